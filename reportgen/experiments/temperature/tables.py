"""Temperature family, tables: its data tables and where its claims tables sit, from results alone."""

import math

import numpy as np

from reportgen.experiments.cells import Interval, Num, Phrase, vector
from reportgen.experiments.family import ClaimTable, Table
from reportgen.experiments.stats import LEVEL_LABEL, Z, mean_interval
from reportgen.experiments.temperature import PART_BALANCED, PART_COSINE, PART_SDPA, PART_SWEEP, PART_TAU
from reportgen.experiments.temperature.measures import (
    UNIT_ROUNDOFF,
    balanced_bound,
    cell_interval,
    cells_at,
    lengths,
    share,
)
from reportgen.experiments.temperature.params import EXERCISE_TAUS, FP16_MAX, SDPA_WEIGHTS, SWEEP_DK

TABLE_T = (0.01, 0.1, 1.0, 4.0, 8.0, 16.0, 100.0, 1000.0)  # rows of the sweep tables


def _pm(m, lo, hi, digits):
    return Interval(m, lo, hi, digits, "pm")


def _mean_pm(stat, rows):
    return _pm(*cell_interval(stat, rows, Z), 3)


def _temperature(t):
    """A row's T, and what it stands for where it is a scale of its own."""
    named = {1.0: "{} (unscaled)", float(math.sqrt(SWEEP_DK)): "{} (= √d_k, scaled)"}.get(t)
    return Phrase(named, (Num(t, 6, "sig"),)) if named else Num(t, 6, "sig")


def sweep_tables(results):
    ns = lengths(results)
    temps = [t for t in TABLE_T if cells_at(results, t)]
    entropy_rows, weight_rows = [], []
    for t in temps:
        cells = cells_at(results, t)
        label = _temperature(t)
        entropy_rows.append((label, *(_pm(*share(cells[n], Z), 3) for n in ns)))
        weight_rows.append((label, *(_mean_pm(cells[n]["max_w"], cells[n]["rows"]) for n in ns)))
    columns = ("T",) + tuple(Phrase("n = {}", (n,)) for n in ns)
    rows_per_cell = results["sweep"]["cells"][0]["rows"]
    return [
        Table(
            "temperature-entropy",
            "Mean entropy of softmax(s/T) as a share of ln n",
            f"s = q·k at d_k = {SWEEP_DK} (standard deviation about 8), {rows_per_cell} rows per n, the same "
            f"rows at every T; ± is the {LEVEL_LABEL} confidence interval's half-width.",
            columns, tuple(entropy_rows), PART_SWEEP,
        ),
        Table(
            "temperature-max-weight",
            "Mean largest weight of softmax(s/T)",
            f"The same rows as the table above; ± is the {LEVEL_LABEL} confidence interval's half-width.",
            columns, tuple(weight_rows), PART_SWEEP,
        ),
        ClaimTable(
            "temperature-claims",
            "000's temperature table and 004's statements, checked",
            f"Measured on the sweep's rows (d_k = {SWEEP_DK}) at its extreme temperatures, which stand in "
            "for the limits; 004 names no d_k (its values were lost from the text), so its table is "
            f"checked at d_k = {SWEEP_DK}.",
            PART_SWEEP,
        ),
    ]


def tau_tables(results):
    root = math.sqrt(SWEEP_DK)
    rows = []
    for n in lengths(results):
        row = [n]
        for f in EXERCISE_TAUS:
            c = cells_at(results, f * root)[n]
            row += [_pm(*share(c, Z), 3), _mean_pm(c["max_w"], c["rows"])]
        rows.append(tuple(row))
    columns = ("n",) + tuple(
        Phrase(label + " τ = {}√d_k", (Num(f, 6, "sig"),)) for f in EXERCISE_TAUS
        for label in ("H / ln n,", "largest weight,")
    )
    total = sum(r["rows"] for r in results["sweep"]["taus"])
    return [
        Table(
            "temperature-tau",
            "001 exercise 4 answered: attention at τ = 0.5√d_k, √d_k and 2√d_k",
            f"Rows of the sweep (d_k = {SWEEP_DK}, so τ = 4, 8 and 16); ± is the {LEVEL_LABEL} confidence "
            "interval's half-width.",
            columns, tuple(rows), PART_TAU,
        ),
        ClaimTable(
            "temperature-tau-claims",
            "001 'Temperature Scaling', checked",
            f"Each of the {total} rows (all n) compared at the three temperatures.",
            PART_TAU,
        ),
    ]


def balanced_tables(results):
    rows = results["balanced"]
    f32, f16 = [], []
    for r in rows:
        d = r["d_k"]
        in_u = [Num(r[k] / UNIT_ROUNDOFF, 2) for k in ("f32_after_vs_balanced", "f32_after_vs_exact",
                                                       "f32_balanced_vs_exact")]
        f32.append((d, *in_u, Num(balanced_bound(d) / UNIT_ROUNDOFF, 0)))
        for kind in ("aligned", "random"):
            p = r[kind]
            after, bal = np.asarray(p["after"]), np.asarray(p["balanced"])
            largest = np.asarray(p["largest_unit_score"])
            pred_after, pred_bal = np.sqrt(FP16_MAX / largest), np.sqrt(FP16_MAX * math.sqrt(d) / largest)
            closed = (Num(math.sqrt(FP16_MAX / d), 2), Num(math.sqrt(FP16_MAX / math.sqrt(d)), 2))
            f16.append((d, kind, _r(after), Num(pred_after.mean(), 2), _r(bal), Num(pred_bal.mean(), 2),
                        *(closed if kind == "aligned" else (Num(None), Num(None))), Num((bal / after).mean(), 3)))
    agree = sum(r[k]["kernel_agrees"] for r in rows for k in ("aligned", "random"))
    return [
        Table(
            "temperature-balanced-f32",
            "float32: the two scalings against each other and against float64",
            "Largest difference over all score entries, in units of u·|q||k|/√d_k (u = 2^−24, the "
            "scale of a score's rounding error). The last column is the worst-case bound on the difference. "
            "d_k^(−1/4) is a power of two for d_k = 16 and 256, and scaling by a power of two is exact.",
            ("d_k", "after vs balanced", "after vs exact", "balanced vs exact", "bound 2(d_k + 3)"),
            tuple(f32), PART_BALANCED,
        ),
        Table(
            "temperature-balanced-f16",
            "float16: the RMS r of q and k at which the scores first overflow",
            "q = r·u and k = r·v in float16; r found by a search on log grids to about 1e-6, with the "
            "product accumulated in float32 and rounded to float16 as torch's float16 matmul does; the "
            f"float16 kernel itself confirmed both ends of the final bracket for {agree} of {2 * len(rows)} "
            "(d_k, pattern) groups. Aligned: u = v with entries ±1; "
            f"random: N(0, 1) rows rescaled to RMS 1, mean and {LEVEL_LABEL} interval over patterns. 'Predicted' "
            "uses the pattern's own largest |u·v|: overflow where r²·max|u·v| (or r²·max|u·v|/√d_k) "
            f"passes {FP16_MAX:.0f}; the closed forms d·r² > 65504 and √d·r² > 65504 are for aligned q, k. "
            "The last column would be d_k^(1/4) exactly without float16 rounding.",
            ("d_k", "q, k", "divide after", "predicted", "balanced", "predicted", "√(65504/d)",
             "√(65504/√d)", "balanced / after"),
            tuple(f16), PART_BALANCED,
        ),
        ClaimTable(
            "temperature-balanced-claims",
            "000 'Query-Key Balanced Scaling', checked",
            "The float32 row compares the two computed scores; the float16 row the overflow points above.",
            PART_BALANCED,
        ),
    ]


def _r(values):
    if len(values) == 1:
        return Num(float(values[0]), 2)
    return Interval(*mean_interval(values, Z), 2)


def cosine_tables(results):
    rows = []
    for r in results["cosine"]:
        d = r["d_k"]
        b = r["batches"]
        reached = [x["matching_t"] for x in b if x["matching_t"] is not None]
        tau = mean_interval(reached, Z) if reached else (None, None, None)
        scaled = mean_interval([x["scaled_entropy"] / math.log(r["n"]) for x in b], Z)
        cosine = mean_interval([x["cosine_entropy_t1"] / math.log(r["n"]) for x in b], Z)
        matched = Interval(*tau, 4) if reached else "out of reach"
        if reached and len(reached) < len(b):
            matched = Phrase("{} ({} of {} batches)", (matched, len(reached), len(b)))
        rows.append((d, Num(r["max_abs_cos"], 6), Num(r["max_cos_aligned"], 7),
                     _pm(*scaled, 3), _pm(*cosine, 3), matched,
                     Num(1 / math.sqrt(d), 4), Num(tau[0] * math.sqrt(d) if reached else None, 3)))
    n = results["cosine"][0]["n"]
    return [
        Table(
            "temperature-cosine",
            "Cosine attention: score range and the temperature it needs",
            f"q, k with N(0, 1) components, {n} keys per query. Entropy shares (± half-width) and τ* "
            f"are means with {LEVEL_LABEL} confidence intervals over batches; τ* is the temperature at "
            "which softmax(cos/τ*) has the same mean "
            "entropy as scaled attention softmax(q·k/√d_k) on the same q, k. 000's CosineAttention "
            "defaults to temperature 1.0.",
            ("d_k", "max |cos|", "max cos(q, q)", "H/ln n scaled", "H/ln n cosine, τ = 1", "τ*", "1/√d_k",
             "τ*·√d_k"),
            tuple(rows), PART_COSINE,
        ),
        ClaimTable(
            "temperature-cosine-claims",
            "000 'Cosine Similarity', checked",
            "Float32 cosine scores, as 000's CosineAttention computes them (F.normalize, then matmul).",
            PART_COSINE,
        ),
    ]


def sdpa_tables(results):
    rows = []
    for r in results["sdpa"]:
        if r["impl"] == SDPA_WEIGHTS:
            continue  # the weights alone stand for 000's 'T = √d_k' row, in the sweep's claims table
        rows.append((r["device"], vector(r["shape"], sep="×", brackets=""), r["mask"], r["impl"].replace("000 ", ""),
                     Num(r["max_abs"], 2, "sig"), Num(r["tolerance_ratio"], 3)))
    return [
        Table(
            "temperature-sdpa",
            "000's attention functions against torch's, float32",
            "Shape B×H×L×S×d_k×d_v; masks: none, causal (lower triangle), padding (random keep-mask, "
            "first key always kept). The last column is the largest |Δ| / (atol + rtol·|ref|): "
            "at most 1 passes torch.testing's float32 defaults.",
            ("device", "shape", "mask", "implementation", "max |Δ|", "of tolerance"),
            tuple(rows), PART_SDPA,
        ),
        ClaimTable(
            "temperature-sdpa-claims",
            "000 'Standard PyTorch Implementation' against the library",
            "torch.nn.functional.scaled_dot_product_attention is the reference.",
            PART_SDPA,
        ),
    ]


def tables(results):
    """The temperature section's tables in reading order: data tables and claims-table slots."""
    return [
        *sweep_tables(results),
        *tau_tables(results),
        *balanced_tables(results),
        *cosine_tables(results),
        *sdpa_tables(results),
    ]
