"""Gradients family, tables: its data tables and where its claims tables sit, from results alone."""

import math
from dataclasses import replace

import numpy as np

from reportgen.experiments.cells import Num, Phrase, Vector, vector
from reportgen.experiments.family import ClaimTable, Table
from reportgen.experiments.gradients import PART_001, PART_DEPTH, PART_DOC, PART_FORMULA, PART_LAYER, PART_NORMS
from reportgen.experiments.gradients.measures import depth_ratios, depth_summary, norm_curve, paired_ratio
from reportgen.experiments.gradients.params import DOC_BASE_SCORES
from reportgen.experiments.stats import Z
from reportgen.experiments.thresholds import THRESHOLDS
from reportgen.formatting import fmt

SATURATED = THRESHOLDS["saturated_row"]


def doc_tables(results):
    plain = []
    for row in results["doc_table"]:
        plain.append(
            (
                Num(row["scale"], 0, "plain"),
                vector(row["probs"], 4),
                Num(sum(row["probs"]), 4),
                Num(row["max_element"], 6),
                Num(row["frobenius"], 6),
                Num(row["spectral"], 6),
            )
        )
    first = results["doc_table"][0]
    return [
        ClaimTable(
            "gradients-doc-table",
            "000 'Empirical Gradient Analysis': the Jacobian table",
            f"softmax(scale × {list(DOC_BASE_SCORES)}) and its Jacobian, recomputed in float64 "
            "with 000's own formula; each printed number compared at its 6 printed decimals.",
        ),
        Table(
            "gradients-doc-probs",
            "What the recomputation gives",
            "The probabilities behind each row (they sum to 1), and the spectral norm 000 does not "
            f"print. At scale {first['scale']} the largest probability is {fmt(first['max_prob'], 6)}.",
            ("scale", "softmax", "Σp", "max |J_ij|", "‖J‖_F", "‖J‖_2"),
            tuple(plain),
        ),
    ]


def formula_tables(results):
    return [
        ClaimTable(
            "gradients-formula",
            "The softmax Jacobian formula",
            "The closed form diag(p) − ppᵀ against torch.autograd.functional.jacobian and against "
            "central differences, in float64 (the test suite also compares torch.func.jacrev).",
        )
    ]


def flow_tables(results):
    small = results["small"]
    moderate = small["moderate"]
    plain = []
    by_name = {case["name"]: case for case in small["exercise5"]}
    uniform, spectral = by_name["uniform"], [case["spectral"] for case in small["exercise5"]]
    n = len(uniform["probs"])
    for case in small["exercise5"]:
        plain.append(
            (
                case["name"],
                vector(case["probs"], 3),
                vector(case["diag"], 3, "sig"),
                Num(case["max_off_diag"], 3, "sig"),
                Num(case["frobenius"], 3, "sig"),
                Num(case["spectral"], 3, "sig"),
            )
        )
    return [
        ClaimTable(
            "gradients-001-flow",
            "001 'Gradient Flow': the printed examples",
            "001's 'gradients' are the diagonal entries p_i(1 − p_i) of the Jacobian; those are "
            "checked here. The off-diagonal entries −p_i p_j (up to "
            f"−{fmt(moderate['max_off_diag'], 2)} for the moderate case) are not printed; each row "
            "of the Jacobian sums to 0.",
        ),
        Table(
            "gradients-exercise5",
            "001 exercise 5 answered: ∂softmax/∂input for peaked and uniform distributions",
            f"The whole Jacobian by autograd, n = {n}. The spectral norm ranges from "
            f"{min(spectral):.2g} to {max(spectral):.2g}; uniform p gives 1/n = {uniform['spectral']:.3g}, "
            f"{'the largest' if uniform['spectral'] >= max(spectral) else 'not the largest'} of these.",
            ("case", "p", "diagonal", "max |off-diag.|", "‖J‖_F", "‖J‖_2"),
            tuple(plain),
        ),
    ]


def _pair(a, b):
    """Two numbers of one row, "a / b" (Frobenius / spectral, scaled / unscaled)."""
    return Vector((a, b), " / ", "")


def _at_sigma(sigma):
    return Phrase("at σ = {}", (Num(float(sigma), 6, "sig"),))


def norm_tables(results):
    plain, peaks = [], []
    sigmas = np.asarray(results["curves"]["sigmas"])
    for c in results["curves"]["curves"]:
        n = c["n"]
        _, fro, _, _, fro_median = norm_curve(results, n, "frobenius")
        _, spec, _, _, _ = norm_curve(results, n, "spectral")
        top = int(np.argmax(fro))
        peaks.append(sigmas[top])
        plain.append(
            (
                n,
                _pair(Num(math.sqrt(n - 1) / n, 4), Num(1 / n, 4)),
                _pair(Num(fro[0], 4), Num(spec[0], 4)),
                Num(float(sigmas[top]), 6, "sig"),
                _pair(Num(fro[top], 3), Num(spec[int(np.argmax(spec))], 3)),
                Phrase("{} / {} (median F {})", (Num(fro[-1], 2, "sig"), Num(spec[-1], 2, "sig"),
                                                 Num(fro_median[-1], 2, "sig"))),
                "falls throughout" if top == 0 else "rises, then falls",
            )
        )
    return [
        Table(
            "gradients-norm-shape",
            "The shape of the curve: ‖J‖ against the logit standard deviation σ",
            "Mean over i.i.d. N(0, σ²) logit vectors. Closed forms at σ → 0 (uniform p): "
            "‖J‖_F = √(n−1)/n, ‖J‖_2 = 1/n. The Frobenius norm peaks at σ = "
            + ", ".join(f"{p:g}" for p in peaks) + " for n = "
            + ", ".join(str(c["n"]) for c in results["curves"]["curves"])
            + "; past the peak it falls roughly like a power of σ, not exponentially, because the "
            "top two logits of a random vector are sometimes close: the mean at large σ rests on "
            "those rare vectors, while the median vector's Jacobian does vanish exponentially. "
            "‖J‖_2 comes from the secular "
            "equation (bisection); on a sample it agrees with a dense eigensolver to "
            f"{max(c['bisection_vs_eigvalsh'] for c in results['curves']['curves']):.0e}.",
            ("n keys", "closed form at σ → 0 (F / 2)", _at_sigma(sigmas[0]), "σ at peak (F)", "peak (F / 2)",
             _at_sigma(sigmas[-1]), "shape (F)"),
            tuple(plain),
        ),
        ClaimTable(
            "gradients-norm-checks",
            "Do softmax gradients vanish for unscaled q·k?",
            "Mean Jacobian norm for q·k over n keys with q, k ~ N(0, I), unscaled against "
            "divided by √d_k, at the d_k each document names. The documents' examples use 4–5 "
            "keys; real sequences have many more, and with more keys the scaled (near-uniform) "
            "softmax has the smaller Jacobian.",
        ),
    ]


LAYER_KEYS = (  # result key, label for tables
    ("scores", "∂L/∂S"),
    ("scores_row_median", "median query row of ∂L/∂S"),
    ("q", "∂L/∂Q"),
    ("W_q", "∂L/∂W_q"),
    ("W_v", "∂L/∂W_v"),
    ("x", "∂L/∂x"),
)


def layer_tables(results):
    plain = []
    for row in results["layer"]:
        cells = [row["d_k"]]
        cells += [Num(paired_ratio(row, key, Z)[0], 3) for key, _ in LAYER_KEYS]
        cells.append(_pair(Num(float(np.mean(row["scaled"]["eff_keys"])), 1),
                           Num(float(np.mean(row["unscaled"]["eff_keys"])), 2)))
        cells.append(Num(float(np.mean(row["unscaled"]["saturated_rows"])), 0, "percent"))
        plain.append(tuple(cells))
    return [
        Table(
            "gradients-layer",
            "Gradient norms at initialization, one attention layer: unscaled ÷ scaled",
            "x ~ N(0, I) of T tokens, W_q, W_k, W_v ~ N(0, 1/d) (so q, k have unit-variance "
            "components), loss ½‖softmax(QKᵀ·s)V − Y‖²/T against a random target Y. Ratios are "
            "geometric means over paired draws (the same x, weights and Y for both). The last "
            "columns: the effective number of keys 1/Σp² (scaled / unscaled) and the share of "
            f"unscaled query rows whose largest probability exceeds {SATURATED}.",
            ("d_k", *[label for _, label in LAYER_KEYS], "1/Σp²", "saturated rows"),
            tuple(plain),
        ),
        ClaimTable(
            "gradients-layer-checks",
            "What vanishes and what does not",
            "Saturated query rows do pass almost no gradient to their scores; the few rows whose "
            "top two scores are close pass large ones, the value path does not go through the "
            "softmax Jacobian, and without the 1/√d_k factor ∂L/∂Q = ∂L/∂S·K is √d_k times larger.",
        ),
    ]


def depth_tables(results):
    plain = []
    for row in results["depth"]:
        d, L = row["d_model"], row["depth"]
        s_ratio, u_ratio, bottom = depth_ratios(row)
        wq = [depth_summary(row, v, "W_q", 0)[0] for v in ("scaled", "unscaled")]
        eff = [np.mean([draw[-1] for draw in row[v]["eff_keys"]]) for v in ("scaled", "unscaled")]
        plain.append(
            (d, L, _pair(Num(s_ratio, 3, "sig"), Num(u_ratio, 3, "sig")), Num(bottom, 3, "sig"),
             Num(wq[1] / wq[0], 3, "sig"), _pair(Num(float(eff[0]), 1), Num(float(eff[1]), 2)))
        )
    return [
        Table(
            "gradients-depth",
            "A stack of pre-LayerNorm attention blocks at initialization",
            "h(l+1) = h(l) + softmax(s·(a W_q)(a W_k)ᵀ)(a W_v) W_o with a = LayerNorm(h(l)), all "
            "weights N(0, 1/d), loss ½‖LayerNorm(h_L) − Y‖²/T. Columns: how the residual-stream "
            "gradient changes from top to input (‖∂L/∂h_0‖ ÷ ‖∂L/∂h_L‖, scaled / unscaled), "
            "the input gradient and the first block's ∂L/∂W_q unscaled ÷ scaled, and 1/Σp² in "
            "the last block (scaled / unscaled).",
            ("d", "blocks", "input ÷ top", "∂L/∂h_0 ratio", "∂L/∂W_q¹ ratio", "1/Σp²"),
            tuple(plain),
        ),
        ClaimTable(
            "gradients-depth-checks",
            "Depth and width without the scale",
            "Vanishing would mean less gradient reaching the early blocks; the measured ratios "
            "say which way the unscaled gradient departs from the scaled one.",
        ),
    ]


def tables(results):
    """The gradients section's tables in reading order: data tables and claims-table slots."""
    groups = (
        (PART_DOC, doc_tables(results)),
        (PART_FORMULA, formula_tables(results)),
        (PART_001, flow_tables(results)),
        (PART_NORMS, norm_tables(results)),
        (PART_LAYER, layer_tables(results)),
        (PART_DEPTH, depth_tables(results)),
    )
    return [replace(table, part=part) for part, group in groups for table in group]
