"""Worked family, tables: its data tables and where its claims tables sit, from results alone."""

import math
from dataclasses import replace

from reportgen.experiments.cells import Interval, Num, Phrase, Vector, vector
from reportgen.experiments.family import ClaimTable, Table
from reportgen.experiments.sources import Source
from reportgen.experiments.stats import LEVEL, LEVEL_LABEL, Z, wilson_interval
from reportgen.experiments.worked import (
    PART_EXERCISES,
    PART_MODELS,
    PART_ROWS,
    PART_SECOND,
    PART_STEPS,
    PART_SUMMARIES,
    PART_VARIANCE,
)
from reportgen.experiments.worked.measures import rows_cell, score_var_interval, stat_interval
from reportgen.experiments.worked.params import (
    DOC_002_E,
    DOC_002_Q,
    DOC_002_ROOT_PRINTED,
    DOC_002_SECOND,
    EXERCISE_1_DK,
    ROW_KEYS,
    VANISHED_JACOBIAN,
)
from reportgen.formatting import fmt, fmt_count

LM_CLAIMS = "Training with and without the scale: a byte-level language model › The documents' training claims, on this evidence"

# Statements of the same sections whose check lives in another section: source, statement,
# section › part (the printed values themselves are in that family's claims).
ELSEWHERE = (
    (Source("003", "Optional check in code"), "The raw and scaled variance its check prints",
     "Dot-product variance and the √d_k scale › The small demonstrations"),
    (Source("002", "Step-by-Step Matrix Calculation Example"),
     "Step 3's QKᵀ as a matrix, the rounded √3, Step 4's scaled matrix and its variances (np.var)",
     "Softmax saturation › The Day 74 notes' matrix example"),
    (Source("002", "Detailed Softmax Comparison with Matrix Example"),
     "'Original Matrix' = Step 3's QKᵀ, its Scaled Matrix, the exps, sums and row-1 probabilities",
     "Softmax saturation › The Day 74 notes' matrix example"),
    (Source("004", "4. Performance Comparison"), "Softmax State at d_k = 64 (checked here at d_k = 512)",
     "Temperature and the alternatives to √d_k › softmax(s/T) from T = 0.01 to 1000"),
    (Source("000", "Deep Networks"), "Saturated attention in early layers creates severe gradient bottlenecks",
     "Gradients through the softmax and through attention › A stack of pre-LayerNorm attention blocks"),
    (Source("000", "Low Learning Rates"), "Unscaled attention requires much smaller learning rates", LM_CLAIMS),
    (Source("000", "Summary"), "Learning, with scaling: Stable training", LM_CLAIMS),
    (Source("001", "Summary"), "Scaled attention: Stable training", LM_CLAIMS),
    (Source("003", "Summary"), "Training behavior: unstable / slow vs stable / fast", LM_CLAIMS),
    (Source("004", "4. Performance Comparison"),
     "Training Stability: Poor / High Risk of Divergence vs High / Faster Convergence", LM_CLAIMS),
)
# 001's exercises: number, question, where the answer is (None: answered in this section).
EXERCISES = (
    (1, "For d_k = 512, what's the standard deviation of unscaled scores?", None),
    (2, "Plot softmax([x, 0, 0, 0]) as x varies from 0 to 10. Where does it saturate?",
     "Softmax saturation › Exercise 2 of the Section 5.3 notes: softmax([x, 0, 0, 0])"),
    (3, "Train attention with and without scaling. Compare learning curves.",
     "Training with and without the scale: associative recall"),
    (4, "Try τ = 0.5√d_k, √d_k, 2√d_k. How do attention patterns differ?",
     "Temperature and the alternatives to √d_k › Exercise 4 of the Section 5.3 notes: τ = 0.5√d_k, √d_k and 2√d_k"),
    (5, "Compute ∂softmax/∂input for peaked vs uniform distributions.",
     "Gradients through the softmax and through attention › The Section 5.3 notes' gradient examples and exercise 5"),
)


def _vec(v, digits=None):
    return "[" + ", ".join(str(x) if digits is None else fmt(x, digits) for x in v) + "]"


def _mat(m):
    return "[" + ", ".join(_vec(r) for r in m) + "]"


def _matrix(m):
    """A matrix as a cell: its rows as Vectors, each entry as Python prints it."""
    return Vector(tuple(vector(r) for r in m))


# --- 002's "Money Bank Grows" example ------------------------------------------------


def steps_tables(results):
    mb = results["money_bank"]
    unchanged = sum(list(q) == list(e) for q, e in zip(DOC_002_Q, DOC_002_E))
    plain = []
    for weight, what in (("W_Q", "Q"), ("W_K", "K"), ("W_V", "V")):
        for conv in ("E·W", "W·E"):
            plain.append((f"{what} = {conv.replace('W', weight)}", _matrix(mb["projections"][weight][conv])))
    for name, matrix in mb["scores_from_inputs"].items():
        plain.append((f"QKᵀ with {name}", _matrix(matrix)))
    candidates = tuple(
        (name, Num(v["population"], 4), Num(v["sample"], 4)) for name, v in mb["variance_candidates"].items()
    )
    return [
        ClaimTable(
            "worked-002-projections",
            "Step 2: the q and k vectors from Step 1's embeddings and weights",
            "002 gives E_money, E_bank, E_grows and W_Q, W_K, W_V, then states q and k vectors. "
            "Each printed vector is set beside both ways of applying the weight matrix, E·W (E a row) "
            f"and W·E (E a column). {unchanged} of the 3 q vectors are their embedding unchanged, as if "
            "W_Q were the identity (W_V is).",
        ),
        Table(
            "worked-002-from-inputs",
            "What Step 1's inputs give",
            "Q, K and V under both conventions, and QKᵀ for the four combinations, to set beside the "
            "vectors 002 states in Step 2 and the QKᵀ of Step 3. W_V is the identity, so V = E either way.",
            ("matrix", "rows (money, bank, grows)"),
            tuple(plain),
        ),
        ClaimTable(
            "worked-002-dots",
            "Step 3: the nine dot products as written",
            "Each dot product exactly as 002 writes it out, its terms then its result, recomputed from "
            "the q and k vectors it states in Step 2 (not from Step 1's inputs, which give other vectors).",
        ),
        Table(
            "worked-002-variance-conventions",
            "Step 4's two printed variances: what they could be the variance of",
            "Each candidate set of nine numbers, dividing by n (np.var, 002's own convention in its code) "
            "and by n − 1, to set beside the variances Step 4 prints (checked in the softmax saturation "
            "section).",
            ("values", "Var ÷ n (np.var)", "Var ÷ (n − 1)"),
            candidates,
        ),
        ClaimTable(
            "worked-002-steps45",
            "Steps 4 and 5: the variance statements against each other, and the softmax words",
            "Dividing by √3 divides a variance by 3, so Step 4's two printed variances can be checked "
            "against each other whatever they are the variance of (previous table). Step 5 describes "
            "the softmax of Step 3's rows; the rows are shown in the measured column.",
        ),
    ]


def second_tables(results):
    mb = results["money_bank"]
    scaled = tuple((Phrase("÷ {}", (d,)), vector(values, 2)) for d, values in mb["second_scaled"].items())
    return [
        ClaimTable(
            "worked-002-percent",
            "'Visual Comparison of Attention Patterns': the six percentages",
            f"Row 1 of the comparison's 'Original Matrix' {_mat(DOC_002_SECOND)}, which 002 calls 'our "
            f"calculated matrices' although it shares {mb['second_equal_entries']} of 9 entries with "
            "Step 3's QKᵀ; the Visual Comparison labels that row 'money → …'. Percentages from the softmax "
            "of the printed row, unscaled and as printed after scaling; the measured column also shows "
            "the route through 002's own rounded exps (unscaled) or through unrounded scaled scores.",
        ),
        Table(
            "worked-002-second-scaled",
            "The comparison's 'Original Matrix' divided by √3 and by the rounded root",
            f"Row by row, at two decimals: dividing by √3, and by the {DOC_002_ROOT_PRINTED} Step 4 "
            "prints for it, to set beside the comparison's Scaled Matrix (checked in the softmax "
            "saturation section).",
            ("divisor", "entries, row by row"),
            scaled,
        ),
    ]


def variance_tables(results):
    return [
        ClaimTable(
            "worked-002-tens",
            "'The Simple Solution': the variance of [10, 20, …, 70]",
            "Exact arithmetic; both conventions shown. Dividing every number by 10 divides the "
            "variance by 100.",
        ),
        ClaimTable(
            "worked-002-dims",
            "'Applying to Our Examples': the 1D, 2D and 3D variance products",
            "Each product recomputed from the factor 002 prints, and beside it from the exact 1/d. The "
            "'≈ … ✓' rows and Step 1's ratios compare 002's own numbers with each other. The variance "
            "of three numbers is a very noisy estimate (for normal data its relative standard error is "
            "√(2/(n − 1)), 100% at n = 3), so examples this small can neither show nor refute Var ∝ d.",
        ),
    ]


# --- 000's models, 001's exercises, the random rows -----------------------------------


def models_table():
    return ClaimTable(
        "worked-000-models",
        "000 'Large Embedding Dimensions': d_k from the published head counts",
        "d_model and head counts as published (BERT: Devlin et al. 2019; GPT-2: Radford et al. 2019 "
        "and its released configurations; GPT-3: Brown et al. 2020, Table 2.1). The saturation rows "
        f"use this section's random rows (n = {ROW_KEYS} keys).",
    )


def exercises_table(results):
    c = rows_cell(results, EXERCISE_1_DK)
    lo, hi = score_var_interval(c, Z)
    answer = Phrase("√{} = {} exactly; measured over {} pairs: {} ({} CI)", (
        EXERCISE_1_DK, Num(math.sqrt(EXERCISE_1_DK), 3), Num(c["rows"], 0, "count"),
        Interval(math.sqrt(c["score_var"]), math.sqrt(lo), math.sqrt(hi), 3), Num(LEVEL, 0, "percent")))
    rows = [(n, q, answer if where is None else Phrase("answered in: {}", (where,))) for n, q, where in EXERCISES]
    return Table(
        "worked-001-exercises",
        "001's five exercises, and where each is answered",
        "001 prints no answers, so nothing here has a verdict. Exercise 1 is answered here; the others "
        "need an experiment of their own and are answered in the sections named.",
        ("exercise", "question", "answer"),
        tuple(rows),
    )


def rows_table(results):
    plain = []
    for c in results["rows"]:
        d = c["d_k"]
        lo, hi = score_var_interval(c, Z)
        for variant, divisor in (("unscaled", 1), ("scaled", d)):
            share, slo, shi = wilson_interval(c[variant]["vanished"], c["rows"], Z)
            plain.append(
                (
                    d if variant == "unscaled" else "",
                    "q·k" if variant == "unscaled" else "q·k/√d_k",
                    Interval(c["score_var"] / divisor, lo / divisor, hi / divisor, 3 if divisor == 1 else 4),
                    Interval(*stat_interval(c, variant, "max_w", Z), 3),
                    Interval(*stat_interval(c, variant, "entropy", Z), 3),
                    Interval(*stat_interval(c, variant, "jac_fro", Z), 4),
                    Interval(share, slo, shi, 2, "percent"),
                )
            )
    return Table(
        "worked-rows",
        "Random attention rows, unscaled and scaled",
        f"{fmt_count(results['rows'][0]['rows'])} rows per d_k, each one query against {ROW_KEYS} keys "
        f"with N(0, 1) components; each cell with its {LEVEL_LABEL} confidence interval. Entropy is a "
        "share of the uniform ln 10. "
        f"A row's Jacobian has vanished when every entry is below {VANISHED_JACOBIAN:g}, the reading of "
        "'essentially zero' that 000's own Jacobian table supports.",
        ("d_k", "scores", "variance", "largest weight", "entropy / ln 10", "Frobenius norm of J", "vanished rows"),
        tuple(plain),
    )


# --- the summary tables ---------------------------------------------------------------


def summary_tables():
    where = f"Judged on the random rows above (n = {ROW_KEYS} keys). "
    return [
        ClaimTable("worked-000-summary", "000 'Summary': the table and the numbered list",
                   where + "Rows naming no d_k are judged at d_k = 512, the large example 000 works through."),
        ClaimTable("worked-001-summary", "001 'Summary' table",
                   where + "Rows naming no d_k are judged at d_k = 512, 001's exercise 1."),
        ClaimTable("worked-001-matters-most", "001 'When Scaling Matters Most'",
                   where + "'High d_k' is judged at d_k = 512, 'low d_k' at d_k = 3, the size of 002's "
                   "worked example."),
        ClaimTable("worked-003-summary", "003 'Summary' table",
                   where + "003 calls d_k = 64 and 128 large, so its softmax rows are judged there."),
        ClaimTable("worked-004-comparison", "004 '4. Performance Comparison'",
                   where + "004 names no d_k: its values, like its formulas, were lost from the text (even the "
                   "column heading reads 'Scaled Dot-Product ()'), so its rows are judged at d_k = 512. The "
                   "temperature section checks the Softmax State row at d_k = 64."),
        Table("worked-elsewhere", "Statements of the same sections checked in other sections",
              "Listed so the reader can find them; their verdicts are counted there, not here.",
              ("source", "statement", "checked in"),
              tuple((Phrase("{} §{}", (s.doc, s.section)), statement, place) for s, statement, place in ELSEWHERE)),
    ]


def tables(results):
    """Every table of the worked section in reading order, under its sub-heading: data tables and claims slots."""
    groups = (
        (PART_STEPS, steps_tables(results)),
        (PART_SECOND, second_tables(results)),
        (PART_VARIANCE, variance_tables(results)),
        (PART_MODELS, [models_table()]),
        (PART_EXERCISES, [exercises_table(results)]),
        (PART_ROWS, [rows_table(results)]),
        (PART_SUMMARIES, summary_tables()),
    )
    return [replace(table, part=part) for part, group in groups for table in group]
