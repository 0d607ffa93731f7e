"""Tables of the temperature family, from its results alone."""

import math
from dataclasses import replace

import numpy as np

from reportgen import claims
from reportgen.claims import fmt, fmt_interval
from reportgen.experiments.base import Table
from reportgen.experiments.saturation_report import SATURATED_MAX_WEIGHT, interval
from reportgen.experiments.temperature import (
    DOC_TEMPERATURES,
    EXERCISE_TAUS,
    FP16_MAX,
    S000_BALANCED,
    S000_COSINE,
    S000_TEMP,
    S000_TORCH,
    S001_TEMP,
    S004_SOFTMAX,
    S004_TABLE,
    SDPA_ATOL,
    SDPA_RTOL,
    SHIFTS,
    SWEEP_DK,
)
from reportgen.stats import Z95, Z99, mean_interval

PART_SWEEP = "softmax(s/T) from T = 0.01 to 1000"
PART_TAU = "001 exercise 4: τ = 0.5√d_k, √d_k and 2√d_k"
PART_BALANCED = "Balanced scaling: q and k each times d_k^(−1/4)"
PART_COSINE = "Cosine attention"
PART_SDPA = "Our attention against torch's scaled_dot_product_attention"

LIMIT_SHARE = 0.99  # 'hard attention (argmax)': largest weight ≥ 0.99; 'uniform': entropy ≥ 0.99 ln n
UNIT_ROUNDOFF = 2.0**-24  # float32 unit roundoff u = eps/2 (IEEE 754 binary32, 24-bit significand)
TABLE_T = (0.01, 0.1, 1.0, 4.0, 8.0, 16.0, 100.0, 1000.0)  # rows of the sweep tables
SHORT_NAMES = {  # check rows name the implementations in words that wrap on a phone screen
    "000 scaled_dot_product_attention": "000's attention function",
    "000 BalancedScaledAttention": "000's balanced-scaling attention",
}


def cells_at(results, t):
    """{n: cell} of the sweep at temperature t (the grid holds t to rounding)."""
    return {c["n"]: c for c in results["sweep"]["cells"] if math.isclose(c["T"], t, rel_tol=1e-9)}


def share(cell, z=Z95):
    """Mean entropy as a share of ln n, with its interval."""
    return tuple(v / math.log(cell["n"]) for v in interval(cell["entropy"], cell["rows"], z))


def sweep_tables(results):
    lengths = sorted({c["n"] for c in results["sweep"]["cells"]})
    temps = [t for t in TABLE_T if cells_at(results, t)]
    entropy_rows, weight_rows = [], []
    for t in temps:
        cells = cells_at(results, t)
        label = f"{t:g}" + {1.0: " (unscaled)", float(math.sqrt(SWEEP_DK)): " (= √d_k, scaled)"}.get(t, "")
        entropy_rows.append((label, *(_pm(*share(cells[n]), 3) for n in lengths)))
        weight_rows.append((label, *(_pm(*interval(cells[n]["max_w"], cells[n]["rows"], Z95), 3) for n in lengths)))
    columns = ("T",) + tuple(f"n = {n}" for n in lengths)
    rows_per_cell = results["sweep"]["cells"][0]["rows"]
    return [
        Table(
            "temperature-entropy",
            "Mean entropy of softmax(s/T) as a share of ln n",
            f"s = q·k at d_k = {SWEEP_DK} (standard deviation about 8), {rows_per_cell} rows per n, the same "
            "rows at every T; ± is the 95% interval half-width.",
            columns, tuple(entropy_rows),
        ),
        Table(
            "temperature-max-weight",
            "Mean largest weight of softmax(s/T)",
            "The same rows as the table above; ± is the 95% interval half-width.",
            columns, tuple(weight_rows),
        ),
        doc_table_checks(results, lengths),
    ]


def _pm(m, lo, hi, digits):
    return f"{fmt(m, digits)} ± {fmt(hi - m, digits)}"


def _extreme_t(results, pick):
    return pick(c["T"] for c in results["sweep"]["cells"])


def doc_table_checks(results, lengths):
    t_min, t_max = _extreme_t(results, min), _extreme_t(results, max)
    cold, hot = cells_at(results, t_min), cells_at(results, t_max)
    root = math.sqrt(SWEEP_DK)
    cold_w = [interval(cold[n]["max_w"], cold[n]["rows"], Z99)[0] for n in lengths]
    hot_h = [share(hot[n], Z99)[0] for n in lengths]
    taus = results["sweep"]["taus"]
    t1 = max(row["t1_max_diff"] for row in taus)
    sdpa = [r for r in results["sdpa"] if r["impl"].startswith("softmax(QK^T / T)")]
    ratio = max(r["tolerance_ratio"] for r in sdpa)
    ranged = lambda vals, digits: f"{fmt(min(vals), digits)} to {fmt(max(vals), digits)}"  # noqa: E731
    (t0, b0), (t_one, b1), (t_root, b2), (t_inf, b3) = DOC_TEMPERATURES
    checks = [
        claims.check_threshold(
            f"{t0}: {b0}", S000_TEMP, b0,
            f"mean largest weight at T = {t_min:g}: {ranged(cold_w, 5)} over n = {lengths[0]}…{lengths[-1]}",
            min(cold_w) >= LIMIT_SHARE, f"'argmax' read as: mean largest weight ≥ {LIMIT_SHARE} at every n",
        ),
        claims.check_threshold(
            f"{t_one}: {b1}", S000_TEMP, b1, f"max |softmax(s/1) − softmax(s)| = {t1:.2g}", t1 == 0,
            "identical to the last bit",
        ),
        claims.check_threshold(
            f"{t_root}: {b2}", S000_TEMP, b2,
            f"softmax(QK^T / √d_k) vs torch's SDPA weights (V = I), {len(sdpa)} shapes: "
            f"largest |Δ| = {max(r['max_abs'] for r in sdpa):.2g}",
            ratio <= 1, f"torch.testing float32 tolerance |Δ| ≤ {SDPA_ATOL:g} + {SDPA_RTOL:g}·|ref|",
        ),
        claims.check_threshold(
            f"{t_inf}: {b3}", S000_TEMP, b3,
            f"mean entropy at T = {t_max:g}: {ranged([100 * h for h in hot_h], 3)}% of ln n",
            min(hot_h) >= LIMIT_SHARE, f"'uniform' read as: mean entropy ≥ {LIMIT_SHARE} ln n at every n",
        ),
    ]
    shift = max(row["shift_max_diff"] for row in taus)
    checks.append(
        claims.check_threshold(
            "'behavior … dictated by the relative differences between its inputs'", S004_SOFTMAX,
            "differences only", f"max |softmax(s + c) − softmax(s)| = {shift:.2g} for c in {list(SHIFTS)}",
            shift <= 1e-12, "equal to float64 rounding (≤ 1e-12) for every shift",
        )
    )
    curves = [[interval(c["max_w"], c["rows"], Z95)[0] for c in sorted(
        (c for c in results["sweep"]["cells"] if c["n"] == n), key=lambda c: c["T"])] for n in lengths]
    monotone = all(all(a >= b for a, b in zip(w, w[1:])) for w in curves)
    checks.append(
        claims.check_threshold(
            "large scores: softmax 'saturates … approaches a one-hot vector'", S004_SOFTMAX, "approaches one-hot",
            f"mean largest weight {'rises' if monotone else 'does not always rise'} as T falls; "
            f"{ranged(cold_w, 5)} at T = {t_min:g}",
            monotone and min(cold_w) >= LIMIT_SHARE,
            f"scores s/T grow as T falls: the mean largest weight rises at every n and reaches ≥ {LIMIT_SHARE}",
        )
    )
    unscaled, scaled = cells_at(results, 1.0), cells_at(results, root)
    w_u = [interval(unscaled[n]["max_w"], unscaled[n]["rows"], Z99)[0] for n in lengths]
    w_s = [interval(scaled[n]["max_w"], scaled[n]["rows"], Z99)[0] for n in lengths]
    each = ", ".join(f"{fmt(w, 3)} (n = {n})" for w, n in zip(w_u, lengths))
    checks += [
        claims.check_threshold(
            f"Softmax State, unscaled (d_k = {SWEEP_DK})", S004_TABLE, "Saturated (Approaching One-Hot)",
            f"mean largest weight {each}", min(w_u) >= SATURATED_MAX_WEIGHT,
            f"'saturated' read as: mean largest weight ≥ {SATURATED_MAX_WEIGHT} at every n",
        ),
        claims.check_threshold(
            f"Softmax State, scaled (d_k = {SWEEP_DK})", S004_TABLE, "Smooth / Distributed",
            f"mean largest weight {ranged(w_s, 3)}", max(w_s) < SATURATED_MAX_WEIGHT,
            f"'distributed' read as: mean largest weight < {SATURATED_MAX_WEIGHT} at every n",
        ),
    ]
    return Table(
        "temperature-claims",
        "000's temperature table and 004's statements, checked",
        f"Measured on the sweep's rows (d_k = {SWEEP_DK}) at its extreme temperatures, which stand in "
        "for the limits; 004 names no d_k (its values were lost from the text), so its table is "
        f"checked at d_k = {SWEEP_DK}.",
        checks=tuple(checks),
    )


def tau_tables(results):
    lengths = sorted({c["n"] for c in results["sweep"]["cells"]})
    root = math.sqrt(SWEEP_DK)
    rows = []
    for n in lengths:
        row = [str(n)]
        for f in EXERCISE_TAUS:
            c = cells_at(results, f * root)[n]
            row += [_pm(*share(c), 3), _pm(*interval(c["max_w"], c["rows"], Z95), 3)]
        rows.append(tuple(row))
    columns = ("n",) + tuple(
        f"{label} τ = {f:g}√d_k" for f in EXERCISE_TAUS for label in ("H / ln n,", "largest weight,")
    )
    taus = results["sweep"]["taus"]
    total = sum(r["rows"] for r in taus)
    sharper, softer = sum(r["sharper"] for r in taus), sum(r["softer"] for r in taus)
    checks = (
        claims.check_threshold(
            "τ < √d_k: 'Sharper attention (more peaked)'", S001_TEMP, "sharper",
            f"τ = {EXERCISE_TAUS[0]:g}√d_k sharper than √d_k in {sharper} of {total} rows",
            sharper == total, "sharper read as: lower entropy and a higher largest weight, in every row",
        ),
        claims.check_threshold(
            "τ > √d_k: 'Softer attention (more uniform)'", S001_TEMP, "softer",
            f"τ = {EXERCISE_TAUS[2]:g}√d_k softer than √d_k in {softer} of {total} rows",
            softer == total, "softer read as: higher entropy and a lower largest weight, in every row",
        ),
    )
    return [
        Table(
            "temperature-tau",
            "001 exercise 4 answered: attention at τ = 0.5√d_k, √d_k and 2√d_k",
            f"Rows of the sweep (d_k = {SWEEP_DK}, so τ = 4, 8 and 16); ± is the 95% interval half-width.",
            columns, tuple(rows),
        ),
        Table(
            "temperature-tau-claims",
            "001 'Temperature Scaling', checked",
            f"Each of the {total} rows (all n) compared at the three temperatures.",
            checks=checks,
        ),
    ]


def balanced_tables(results):
    rows = results["balanced"]
    f32, f16, checks = [], [], []
    worst = 0.0
    for r in rows:
        d = r["d_k"]
        bound = 2 * (d + 3) * UNIT_ROUNDOFF  # two d-term dot products and the scalings, worst case
        worst = max(worst, r["f32_after_vs_balanced"] / bound)
        in_u = [f"{r[k] / UNIT_ROUNDOFF:.2f}" for k in ("f32_after_vs_balanced", "f32_after_vs_exact",
                                                         "f32_balanced_vs_exact")]
        f32.append((str(d), *in_u, f"{bound / UNIT_ROUNDOFF:.0f}"))
        for kind in ("aligned", "random"):
            p = r[kind]
            after, bal = np.asarray(p["after"]), np.asarray(p["balanced"])
            largest = np.asarray(p["largest_unit_score"])
            pred_after, pred_bal = np.sqrt(FP16_MAX / largest), np.sqrt(FP16_MAX * math.sqrt(d) / largest)
            closed = (fmt(math.sqrt(FP16_MAX / d), 2), fmt(math.sqrt(FP16_MAX / math.sqrt(d)), 2))
            f16.append((str(d), kind, _r(after), fmt(pred_after.mean(), 2), _r(bal), fmt(pred_bal.mean(), 2),
                        *(closed if kind == "aligned" else ("—", "—")), fmt((bal / after).mean(), 3)))
    agree = sum(r[k]["kernel_agrees"] for r in rows for k in ("aligned", "random"))
    gains = [np.asarray(r[k]["balanced"]) / np.asarray(r[k]["after"]) for r in rows for k in ("aligned", "random")]
    least = min(g.min() for g in gains)
    checks += [
        claims.check_threshold(
            "float32: balanced = scores / √d_k ('mathematically equivalent')", S000_BALANCED, "equivalent",
            f"largest |difference| = {worst:.2g} of the rounding bound",
            worst <= 1, "within the worst-case float32 rounding bound 2(d_k + 3)u·|q||k|/√d_k at every d_k",
        ),
        claims.check_threshold(
            "float16: 'can improve numerical stability in some implementations'", S000_BALANCED, "can improve",
            f"balanced overflows at ≥ {fmt(least, 3)}× the RMS of divide-after",
            least > 1, "the balanced form overflows at a larger RMS r, for every d_k and q, k pattern",
        ),
    ]
    return [
        Table(
            "temperature-balanced-f32",
            "float32: the two scalings against each other and against float64",
            "Largest difference over all score entries, in units of u·|q||k|/√d_k (u = 2^−24, the "
            "scale of a score's rounding error). The last column is the worst-case bound on the difference. "
            "d_k^(−1/4) is a power of two for d_k = 16 and 256, and scaling by a power of two is exact.",
            ("d_k", "after vs balanced", "after vs exact", "balanced vs exact", "bound 2(d_k + 3)"),
            tuple(f32),
        ),
        Table(
            "temperature-balanced-f16",
            "float16: the RMS r of q and k at which the scores first overflow",
            "q = r·u and k = r·v in float16; r found by a search on log grids to about 1e-6, with the "
            "product accumulated in float32 and rounded to float16 as torch's float16 matmul does; the "
            f"float16 kernel itself confirmed both ends of the final bracket for {agree} of {2 * len(rows)} "
            "(d_k, pattern) groups. Aligned: u = v with entries ±1; "
            "random: N(0, 1) rows rescaled to RMS 1, mean and 95% interval over patterns. 'Predicted' "
            "uses the pattern's own largest |u·v|: overflow where r²·max|u·v| (or r²·max|u·v|/√d_k) "
            f"passes {FP16_MAX:.0f}; the closed forms d·r² > 65504 and √d·r² > 65504 are for aligned q, k. "
            "The last column would be d_k^(1/4) exactly without float16 rounding.",
            ("d_k", "q, k", "divide after", "predicted", "balanced", "predicted", "√(65504/d)",
             "√(65504/√d)", "balanced / after"),
            tuple(f16),
        ),
        Table(
            "temperature-balanced-claims",
            "000 'Query-Key Balanced Scaling', checked",
            "The float32 row compares the two computed scores; the float16 row the overflow points above.",
            checks=tuple(checks),
        ),
    ]


def _r(values):
    if len(values) == 1:
        return fmt(float(values[0]), 2)
    m, lo, hi = mean_interval(values, Z95)
    return f"{fmt(m, 2)} {fmt_interval(lo, hi, 2)}"


def cosine_tables(results):
    rows, worst, invariance = [], 0.0, 0.0
    for r in results["cosine"]:
        d = r["d_k"]
        bound = (2 * d + 4) * UNIT_ROUNDOFF  # two normalizations and a d-term dot product, worst case
        worst = max(worst, (max(r["max_abs_cos"], r["max_cos_aligned"]) - 1) / bound)
        invariance = max(invariance, r["scale_invariance"] / bound)
        b = r["batches"]
        reached = [x["matching_t"] for x in b if x["matching_t"] is not None]
        tau = mean_interval(reached, Z95) if reached else (None, None, None)
        scaled = mean_interval([x["scaled_entropy"] / math.log(r["n"]) for x in b], Z95)
        cosine = mean_interval([x["cosine_entropy_t1"] / math.log(r["n"]) for x in b], Z95)
        matched = f"{fmt(tau[0], 4)} {fmt_interval(*tau[1:], 4)}" if reached else "out of reach"
        if reached and len(reached) < len(b):
            matched += f" ({len(reached)} of {len(b)} batches)"
        rows.append((str(d), f"{r['max_abs_cos']:.6f}", f"{r['max_cos_aligned']:.7f}",
                     _pm(*scaled, 3), _pm(*cosine, 3), matched,
                     fmt(1 / math.sqrt(d), 4), fmt(tau[0] * math.sqrt(d), 3) if reached else "—"))
    n = results["cosine"][0]["n"]
    checks = (
        claims.check_threshold(
            "cosine scores 'bounded to [−1, 1] regardless of dimension'", S000_COSINE, "[−1, 1]",
            f"largest |score| − 1 = {worst:.2g} of the rounding bound (random and aligned q, k)",
            worst <= 1, "|score| ≤ 1 + (2d_k + 4)u, the worst-case float32 rounding (u = 2^−24), at every d_k",
        ),
        claims.check_threshold(
            "'automatic scale invariance'", S000_COSINE, "scale invariant",
            f"|cos(1000q, k) − cos(q, k)| ≤ {invariance:.2g} of the rounding bound",
            invariance <= 1, "within the same rounding bound at every d_k",
        ),
    )
    return [
        Table(
            "temperature-cosine",
            "Cosine attention: score range and the temperature it needs",
            f"q, k with N(0, 1) components, {n} keys per query. Entropy shares are means with 95% "
            "intervals over batches; τ* is the temperature at which softmax(cos/τ*) has the same mean "
            "entropy as scaled attention softmax(q·k/√d_k) on the same q, k. 000's CosineAttention "
            "defaults to temperature 1.0.",
            ("d_k", "max |cos|", "max cos(q, q)", "H/ln n scaled", "H/ln n cosine, τ = 1", "τ*", "1/√d_k",
             "τ*·√d_k"),
            tuple(rows),
        ),
        Table(
            "temperature-cosine-claims",
            "000 'Cosine Similarity', checked",
            "Float32 cosine scores, as 000's CosineAttention computes them (F.normalize, then matmul).",
            checks=checks,
        ),
    ]


def sdpa_tables(results):
    rows, checks = [], []
    impls = [r for r in results["sdpa"] if not r["impl"].startswith("softmax(QK^T / T)")]
    for r in impls:
        rows.append((r["device"], "×".join(map(str, r["shape"])), r["mask"], r["impl"].replace("000 ", ""),
                     f"{r['max_abs']:.2g}", f"{r['tolerance_ratio']:.3f}"))
    for impl in sorted({r["impl"] for r in impls}):
        mine = [r for r in impls if r["impl"] == impl]
        ratio = max(r["tolerance_ratio"] for r in mine)
        devices = " and ".join(sorted({r["device"] for r in mine}))
        checks.append(
            claims.check_threshold(
                f"{SHORT_NAMES.get(impl, impl)} = torch's SDPA (float32)", S000_TORCH, "standard SDPA",
                f"{len(mine)} cases on {devices}: largest |Δ| = {max(r['max_abs'] for r in mine):.2g}, "
                f"{fmt(ratio, 3)} of the tolerance",
                ratio <= 1, f"torch.testing float32 tolerance |Δ| ≤ {SDPA_ATOL:g} + {SDPA_RTOL:g}·|ref| everywhere",
            )
        )
    return [
        Table(
            "temperature-sdpa",
            "000's attention functions against torch's, float32",
            "Shape B×H×L×S×d_k×d_v; masks: none, causal (lower triangle), padding (random keep-mask, "
            "first key always kept). The last column is the largest |Δ| / (atol + rtol·|ref|): "
            "at most 1 passes torch.testing's float32 defaults.",
            ("device", "shape", "mask", "implementation", "max |Δ|", "of tolerance"),
            tuple(rows),
        ),
        Table(
            "temperature-sdpa-claims",
            "000 'Standard PyTorch Implementation' against the library",
            "torch.nn.functional.scaled_dot_product_attention is the reference.",
            checks=tuple(checks),
        ),
    ]


def tables(results):
    """Every table of the temperature section, in reading order, under its sub-heading."""
    groups = (
        (PART_SWEEP, sweep_tables(results)),
        (PART_TAU, tau_tables(results)),
        (PART_BALANCED, balanced_tables(results)),
        (PART_COSINE, cosine_tables(results)),
        (PART_SDPA, sdpa_tables(results)),
    )
    return [replace(table, part=part) for part, group in groups for table in group]


def figures(results):
    """Every figure of the temperature section."""
    from reportgen.experiments import temperature_figures

    return temperature_figures.figures(results)
