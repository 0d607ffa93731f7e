"""Saturation family, tables: its data tables and where its claims tables sit, from results alone."""

import math

from reportgen.experiments.cells import Interval, Num, Phrase, vector
from reportgen.experiments.family import ClaimTable, Table
from reportgen.experiments.saturation import (
    PART_002,
    PART_BEHAVIOR,
    PART_EXAMPLES,
    PART_EXERCISE,
    PART_FIGURE,
    PART_STABILITY,
    PART_SWEEP,
)
from reportgen.experiments.saturation.measures import expected_max_normal, interval, pooled_max_z
from reportgen.experiments.saturation.params import DOC_002_ORIGINAL, DOC_002_ROUNDED_ROOT3, DOC_BEHAVIOR_BASE, DOC_FIGURE_LEN
from reportgen.experiments.stats import LEVEL_LABEL, Z
from reportgen.formatting import fmt

TABLE_DIMS = (1, 4, 16, 64, 256, 1024)  # d_k rows of the sweep tables (the figure shows all)


def _row(row, digits=None):
    return vector(row, digits, brackets="")


def matrix_rows_table(results):
    ex = results["examples"]
    plain = []
    for label, matrix, softmaxes in (("QK^T of Step 3", ex["qkt"], ex["qkt_softmax"]),
                                     ("'Original Matrix'", DOC_002_ORIGINAL, ex["original_softmax"])):
        for i, row in enumerate(matrix):
            plain.append((label if i == 0 else "", _row(row, 0), _row(softmaxes[0][i], 3), _row(softmaxes[1][i], 3)))
    return Table(
        "saturation-002-rows",
        "Row softmax of both matrices",
        "What 002's comparison shows for each matrix, every row, unscaled and divided by √3.",
        ("matrix", "row", "softmax(row)", "softmax(row / √3)"),
        tuple(plain),
        PART_002,
    )


def original_scaled_table(results):
    ex = results["examples"]
    rows = tuple(
        (_row(row, 0), _row(exact, 4), _row(rounded, 4))
        for row, exact, rounded in zip(DOC_002_ORIGINAL, ex["original_scaled"], ex["original_scaled_rounded_root"])
    )
    return Table(
        "saturation-002-root",
        f"'Original Matrix' divided by √3 and by the rounded {DOC_002_ROUNDED_ROOT3}",
        "Which root 002's 'Scaled Matrix' divides by: each row of the 'Original Matrix' divided by √3 "
        f"and by {DOC_002_ROUNDED_ROOT3}, the value its Step 4 prints for √3. Compare with the claims above.",
        ("row", "÷ √3", Phrase("÷ {}", (Num(DOC_002_ROUNDED_ROOT3, 0, "plain"),))),
        rows,
        PART_002,
    )


def exercise_table(results):
    ex = results["exercise"]
    vanished = ex["vanished_level"]
    rows = []
    for c in ex["crossings"]:
        p = c["level"]
        closed = Phrase("ln(3·{}/{}) = {}", (Num(p, 6, "sig"), Num(1 - p, 3, "sig"),
                                             Num(math.log(3 * p / (1 - p)), 4)))
        rows.append((Phrase("max prob = {}", (Num(p, 6, "sig"),)), Num(c["x"], 4), closed, Num(p * (1 - p), 4)))
    # p(1 − p) = v at p = (1 + √(1 − 4v)) / 2 on the saturated side.
    p = (1 + math.sqrt(1 - 4 * vanished)) / 2
    closed = Phrase("p(1 − p) = {} at x = {}", (Num(vanished, 6, "sig"), Num(math.log(3 * p / (1 - p)), 4)))
    rows.append((Phrase("dp/dx = {}", (Num(vanished, 6, "sig"),)), Num(ex["vanished_x"], 4), closed, Num(vanished, 4)))
    return Table(
        "saturation-exercise",
        "001 exercise 2 answered: where softmax([x, 0, 0, 0]) saturates",
        "x found by bisection on torch.softmax (float64), beside the closed form p = e^x/(e^x + 3), "
        "so x = ln(3p/(1 − p)). The last row is where the derivative p(1 − p), the diagonal of the "
        f"softmax Jacobian, falls below {vanished:g}, the level this report calls vanished. "
        "001 states no answer, so nothing here has a verdict.",
        ("level", "x (measured)", "closed form", "dp/dx = p(1 − p)"),
        tuple(rows),
        PART_EXERCISE,
    )


def _cell(results, d, n):
    for cell in results["sweep"]:
        if cell["d_k"] == d and cell["n"] == n:
            return cell
    return None


def sweep_tables(results):
    lengths = sorted({c["n"] for c in results["sweep"]})
    dims = [d for d in TABLE_DIMS if _cell(results, d, lengths[0])]
    weight_rows, entropy_rows = [], []
    for d in dims:
        for suffix, label in (("", "unscaled"), ("_scaled", "scaled")):
            w, h = [d if not suffix else "", label], [d if not suffix else "", label]
            for n in lengths:
                c = _cell(results, d, n)
                w.append(Interval(*interval(c["max_w" + suffix], c["rows"], Z), 3, "pm"))
                m, lo, hi = interval(c["entropy" + suffix], c["rows"], Z)
                h.append(Phrase("{} ({})", (Interval(m, lo, hi, 3, "pm"), Num(m / math.log(n), 0, "percent"))))
            weight_rows.append(tuple(w))
            entropy_rows.append(tuple(h))
    rows_per_cell = results["sweep"][0]["rows"]
    columns = ("d_k", "") + tuple(Phrase("n = {}", (n,)) for n in lengths)
    logit_rows = []
    for n in lengths:
        stat, count = pooled_max_z(results, n)
        mean, lo, hi = interval(stat, count, Z)
        logit_rows.append((n, Interval(mean, lo, hi, 3), Num(expected_max_normal(n), 3),
                           Num(math.sqrt(2 * math.log(n)), 3)))
    return [
        Table(
            "saturation-max-weight",
            "Mean largest attention weight",
            f"One query against n keys, q and k with N(0, 1) components, {rows_per_cell} rows per cell; "
            f"± is the {LEVEL_LABEL} confidence interval's half-width. Unscaled scores q·k, scaled q·k/√d_k.",
            columns, tuple(weight_rows), PART_SWEEP,
        ),
        Table(
            "saturation-entropy",
            "Mean attention entropy in nats (as a share of the uniform ln n)",
            f"The same rows as the table above; ± is the {LEVEL_LABEL} confidence interval's half-width.",
            columns, tuple(entropy_rows), PART_SWEEP,
        ),
        Table(
            "saturation-max-logit",
            "The largest of n scores, in units of its standard deviation",
            "max_j q·k_j / |q| over all rows of the sweep (the law does not depend on d_k), "
            f"with a {LEVEL_LABEL} confidence interval, beside the exact mean of the largest of n standard normals and "
            "the first-order √(2 ln n).",
            ("n", "measured", "exact E[max]", "√(2 ln n)"),
            tuple(logit_rows), PART_SWEEP,
        ),
    ]


def figure_stats_table(results):
    fig = results["figure"]
    doc, reps = fig["doc_seed"]["stats"], fig["repeats"]
    ln_n = math.log(DOC_FIGURE_LEN)
    labels = (
        ("unscaled_mean", "unscaled scores: mean"), ("unscaled_std", "unscaled scores: std"),
        ("scaled_mean", "scaled scores: mean"), ("scaled_std", "scaled scores: std"),
        ("max_weight", "unscaled: max attention weight"), ("max_weight_scaled", "scaled: max attention weight"),
        ("mean_entropy", Phrase("unscaled: mean entropy (max {})", (Num(ln_n, 4),))),
        ("mean_entropy_scaled", Phrase("scaled: mean entropy (max {})", (Num(ln_n, 4),))),
        ("row_max_weight", "unscaled: mean over queries of the row's largest weight"),
        ("row_max_weight_scaled", "scaled: mean over queries of the row's largest weight"),
    )
    plain = []
    for key, label in labels:
        m, lo, hi = interval(reps[key], reps[key]["n"], Z)
        plain.append((label, Num(doc[key], 4), Interval(m, lo, hi, 4)))
    return Table(
        "saturation-figure-stats",
        "000's summary statistics, printed by its code but not shown",
        f"The document's seed against {reps['unscaled_mean']['n']:,} reruns of the same setting "
        f"with fresh seeds (mean and {LEVEL_LABEL} interval).".replace(",", " "),
        ("statistic", "seed 42", "fresh seeds"),
        tuple(plain),
        PART_FIGURE,
    )


def stability_table(results):
    plain = []
    for row in results["stability"]:
        eps = row["eps"]
        closed = math.log(row["max"]) if row["pattern"] == "large positive" else None
        plain.append(
            (row["dtype"], row["pattern"], Num(row["first_failure"], 7, "sig"), Num(row["last_finite"], 7, "sig"),
             Num(closed, 4), Num(row["naive_vs_stable"] / eps, 3, "sig"), Num(row["stable_vs_exact"] / eps, 2, "sig"))
        )
    return Table(
        "saturation-stability",
        "Where the naive softmax fails, per dtype",
        "Scores [x, x/2, 0, −x/2] (large positive: 000's base scores times x) and "
        "[1, 0.5, 0, −0.5] − x (large negative). The first failing x is exact: a bisection over "
        "the dtype's own values. The last two columns are the largest deviation, in units of the "
        "dtype's eps, over scores from 0 to the last x where the naive form is finite. The large "
        "negative scores fail by underflow: every exp rounds to 0 and 0/0 is NaN; before that, "
        "subnormal exps lose digits.",
        ("dtype", "scores", "first inf/NaN at x", "last finite x", "ln(largest finite)",
         "max |naive − stable| / eps", "max |stable − exact| / eps"),
        tuple(plain),
        PART_STABILITY,
    )


def tables(results):
    """The saturation section's tables in reading order: data tables and claims-table slots."""
    base = ", ".join(fmt(b, 1) for b in DOC_BEHAVIOR_BASE)
    return [
        ClaimTable(
            "saturation-behavior",
            "000 'Softmax Behavior': printed output beside a rerun of its code",
            f"softmax(scale × [{base}]) for each scale, from the document's softmax_behavior_demo run unchanged "
            "(torch, float32, CPU); probabilities compared at the 4 decimals it prints them with, max_prob at 6. "
            "The sum rows ask whether the printed probabilities could come from one softmax at all.",
            PART_BEHAVIOR,
        ),
        ClaimTable(
            "saturation-scaled-scores",
            "Scaled scores of the worked examples",
            "Each printed score divided by √d_k, compared at the printed precision.",
            PART_EXAMPLES,
        ),
        ClaimTable(
            "saturation-examples",
            "Worked softmax examples of 000 and 001",
            "softmax of each input vector exactly as printed (the scaled ones from their printed, "
            "rounded scores), in float64, compared at the printed precision.",
            PART_EXAMPLES,
        ),
        ClaimTable(
            "saturation-readings",
            "What the worked examples are said to show",
            "Qualitative statements next to the examples, each read as the threshold in its row. "
            "001's vector '[8.5, −2.1, 7.9, …]' is incomplete, so its rows hold for every completion: "
            "more scores can only lower each printed weight, and never change the ratio of two of them.",
            PART_EXAMPLES,
        ),
        ClaimTable(
            "saturation-002",
            "002's matrix example, recomputed from its own inputs",
            "Step 2's queries and keys give Step 3's QK^T; the softmax comparison then uses a "
            "different matrix it calls 'our calculated matrices'. Both are recomputed as printed.",
            PART_002,
        ),
        original_scaled_table(results),
        matrix_rows_table(results),
        exercise_table(results),
        *sweep_tables(results),
        ClaimTable(
            "saturation-peaked",
            "001 'Why This Matters': scores with standard deviation 8",
            "001 says that at d_k = 64 'softmax becomes extremely peaked'. It names no sequence length, "
            "so the statement is checked at each n of the sweep.",
            PART_SWEEP,
        ),
        figure_stats_table(results),
        ClaimTable(
            "saturation-figure-reading",
            "000's written reading of its figure, checked against the figure",
            "000 says the figure shows: 'Unscaled: Large score magnitudes lead to near-uniform "
            "attention (saturated softmax)' and 'Scaled: Moderate score magnitudes allow nuanced "
            "attention patterns'. Measured on the seed-42 figure itself.",
            PART_FIGURE,
        ),
        stability_table(results),
        ClaimTable(
            "saturation-stability-checks",
            "001 'Numerical Stability', checked",
            "The naive exp(s)/Σexp(s) against 001's stable_softmax in each dtype, on the large positive scores.",
            PART_STABILITY,
        ),
    ]
