"""Tables of the gradients family, from its results alone."""

import math
from dataclasses import replace

import numpy as np

from reportgen import claims
from reportgen.claims import fmt, fmt_interval
from reportgen.experiments.base import Table
from reportgen.experiments.gradients import (
    DOC_BASE_SCORES,
    DOC_FLOW_MODERATE,
    DOC_JACOBIAN,
    FLOW_PEAKED_LOGITS,
    S000_CASCADE,
    S000_DEEP,
    S000_EMPIRICAL,
    S000_JACOBIAN,
    S000_PROPER,
    S000_SATURATES,
    S001_EX5,
    S001_FLOW,
    S001_MATTERS,
    S003_NO_SCALE,
    S004_INSIGHT,
    S004_VANISH,
    SATURATED,
)
from reportgen.stats import Z95, Z99, mean_interval

PART_DOC = "000's Jacobian table, recomputed"
PART_FORMULA = "The Jacobian formula, checked three ways"
PART_001 = "001's gradient examples and exercise 5"
PART_NORMS = "Jacobian norms against the logit scale and d_k"
PART_LAYER = "One attention layer at initialization"
PART_DEPTH = "A stack of pre-LayerNorm attention blocks"

VANISH = 0.1  # 'vanish', 'tiny', 'near zero': below a tenth of the scaled counterpart
VANISH_RULE = "'vanish' read as: below 1/10 of the scaled value (an order of magnitude)"
AUTOGRAD_TOL = 1e-12  # float64 reverse-mode against the closed form: rounding only
FD_TOL = 1e-8  # float64 central differences, h = 1e-6: truncation ~h², rounding ~1e-16/h
EXPONENTIAL_TOL = 0.2  # decay rates per unit of scale agree within 20%: exponential in the scale
# d_k where a document names the dimension of its gradient claim; keys per query judged.
CLAIM_DIMS = ((S001_MATTERS, 64), (S003_NO_SCALE, 128), (S004_VANISH, 1024))
CLAIM_KEYS = (4, 64)
LAYER_CLAIM_DK = 1024  # the large d_k of the one-layer claims, measured by every profile


def paired_ratio(row, key, z=Z99):
    """Geometric mean over draws of unscaled ÷ scaled (same draws), with its interval."""
    logs = np.log(np.asarray(row["unscaled"][key]) / np.asarray(row["scaled"][key]))
    m, lo, hi = mean_interval(logs, z)
    return math.exp(m), math.exp(lo), math.exp(hi)


def _ratio_text(ratio, digits=3):
    r, lo, hi = ratio
    return f"{fmt(r, digits)} {fmt_interval(lo, hi, digits)}"


def doc_tables(results):
    checks, plain = [], []
    for row, (scale, max_prob, max_element, frobenius) in zip(results["doc_table"], DOC_JACOBIAN):
        for name, doc, value in (
            ("max probability", max_prob, row["max_prob"]),
            ("max |Jacobian element|", max_element, row["max_element"]),
            ("Jacobian Frobenius norm", frobenius, row["frobenius"]),
        ):
            checks.append(claims.check_exact(f"scale {scale}: {name}", S000_EMPIRICAL, doc, value))
        plain.append(
            (
                str(scale),
                "[" + ", ".join(fmt(p, 4) for p in row["probs"]) + "]",
                fmt(sum(row["probs"]), 4),
                fmt(row["max_element"], 6),
                fmt(row["frobenius"], 6),
                fmt(row["spectral"], 6),
            )
        )
    by_scale = {row["scale"]: row["max_element"] for row in results["doc_table"]}
    if {5, 10, 20} <= set(by_scale):
        early = math.log(by_scale[10] / by_scale[5]) / 5
        late = math.log(by_scale[20] / by_scale[10]) / 10
        checks.append(
            claims.check_threshold(
                "max |Jacobian element| 'vanishes exponentially' with the scale (000's four scores)",
                S000_EMPIRICAL, "exponential decay",
                f"ln-decay per unit of scale: {fmt(early, 3)} (5→10), {fmt(late, 3)} (10→20)",
                abs(late - early) <= EXPONENTIAL_TOL * abs(early),
                f"exponential: the two rates agree within {EXPONENTIAL_TOL:.0%} (the gap of the "
                "top two scores, 0.5 per unit of scale, predicts −0.5)",
            )
        )
    first = results["doc_table"][0]
    return [
        Table(
            "gradients-doc-table",
            "000 'Empirical Gradient Analysis': the Jacobian table",
            f"softmax(scale × {list(DOC_BASE_SCORES)}) and its Jacobian, recomputed in float64 "
            "with 000's own formula; each printed number compared at its 6 printed decimals.",
            checks=tuple(checks),
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


def formula_table(results):
    a = results["agreement"]
    uniform = next(c for c in results["small"]["exercise5"] if c["name"] == "uniform")
    m = len(uniform["probs"])
    diag, off = uniform["diag"][0], -uniform["max_off_diag"]
    checks = [
        claims.check_threshold(
            "∂softmax_i/∂s_j = p_i(δ_ij − p_j) against reverse-mode autograd", S000_JACOBIAN,
            "p_i(δ_ij − p_j)", f"max |difference| {a['autograd']:.1e} over {a['vectors']} score vectors "
            f"(n = {min(a['sizes'])} … {max(a['sizes'])})",
            a["autograd"] <= AUTOGRAD_TOL, f"≤ {AUTOGRAD_TOL:.0e} (float64 rounding)",
        ),
        claims.check_threshold(
            "∂softmax_i/∂s_j = p_i(δ_ij − p_j) against central finite differences", S000_JACOBIAN,
            "p_i(δ_ij − p_j)", f"max |difference| {a['finite_diff']:.1e} over the same vectors",
            a["finite_diff"] <= FD_TOL, f"≤ {FD_TOL:.0e} (step 1e-6 in float64)",
        ),
        claims.check_threshold(
            f"uniform p over m = {m}: diagonal entry", S000_PROPER, f"(1/m)(1 − 1/m) = {1 / m * (1 - 1 / m):g}",
            fmt(diag, 6), abs(diag - (1 / m) * (1 - 1 / m)) <= AUTOGRAD_TOL, f"autograd equals it within {AUTOGRAD_TOL:.0e}",
        ),
        claims.check_threshold(
            f"uniform p over m = {m}: off-diagonal entry", S000_PROPER, f"−1/m² = {-1 / m**2:g}",
            fmt(off, 6), abs(off + 1 / m**2) <= AUTOGRAD_TOL, f"autograd equals it within {AUTOGRAD_TOL:.0e}",
        ),
    ]
    return Table(
        "gradients-formula",
        "The softmax Jacobian formula",
        "The closed form diag(p) − ppᵀ against torch.autograd.functional.jacobian and against "
        "central differences, in float64 (the test suite also compares torch.func.jacrev).",
        checks=tuple(checks),
    )


def flow_tables(results):
    small = results["small"]
    moderate, peaked = small["moderate"], small["peaked"]
    checks = [
        claims.check_exact(f"∂p_{i + 1}/∂s_{i + 1} for p = {list(DOC_FLOW_MODERATE[0])}", S001_FLOW, doc, value)
        for i, (doc, value) in enumerate(zip(DOC_FLOW_MODERATE[1], moderate["diag"]))
    ]
    checks.append(
        claims.check_threshold(
            f"softmax ≈ [1, 0, 0, …] (scores {list(FLOW_PEAKED_LOGITS)}): 'gradients ≈ [0, 0, 0, …]'",
            S001_FLOW, "≈ 0", f"p_1 = {fmt(peaked['probs'][0], 5)}; max |J_ij| = {peaked['max_off_diag']:.1e} "
            f"off the diagonal, {max(peaked['diag']):.1e} on it",
            max(max(peaked["diag"]), peaked["max_off_diag"]) < 0.01,
            "every |J_ij| below 0.01",
        )
    )
    plain = []
    by_name = {case["name"]: case for case in small["exercise5"]}
    uniform, spectral = by_name["uniform"], [case["spectral"] for case in small["exercise5"]]
    n = len(uniform["probs"])
    for case in small["exercise5"]:
        plain.append(
            (
                case["name"],
                "[" + ", ".join(fmt(p, 3) for p in case["probs"]) + "]",
                "[" + ", ".join(f"{v:.3g}" for v in case["diag"]) + "]",
                f"{case['max_off_diag']:.3g}",
                f"{case['frobenius']:.3g}",
                f"{case['spectral']:.3g}",
            )
        )
    return [
        Table(
            "gradients-001-flow",
            "001 'Gradient Flow': the printed examples",
            "001's 'gradients' are the diagonal entries p_i(1 − p_i) of the Jacobian; those are "
            "checked here. The off-diagonal entries −p_i p_j (up to "
            f"−{fmt(moderate['max_off_diag'], 2)} for the moderate case) are not printed; each row "
            "of the Jacobian sums to 0.",
            checks=tuple(checks),
        ),
        Table(
            "gradients-exercise5",
            f"{S001_EX5.doc} exercise 5 answered: ∂softmax/∂input for peaked and uniform distributions",
            f"The whole Jacobian by autograd, n = {n}. The spectral norm ranges from "
            f"{min(spectral):.2g} to {max(spectral):.2g}; uniform p gives 1/n = {uniform['spectral']:.3g}, "
            f"{'the largest' if uniform['spectral'] >= max(spectral) else 'not the largest'} of these.",
            ("case", "p", "diagonal", "max |off-diag.|", "‖J‖_F", "‖J‖_2"),
            tuple(plain),
        ),
    ]


def _curve(results, n, norm):
    """(sigmas, mean, lo, hi, median) of one norm curve; 95% intervals for the mean."""
    curves = {c["n"]: c for c in results["curves"]["curves"]}
    stats = np.asarray(curves[n][norm])  # (sigmas, 5): mean, sd, q1, median, q3
    se = stats[:, 1] / math.sqrt(curves[n]["samples"])
    mean = stats[:, 0]
    return np.asarray(results["curves"]["sigmas"]), mean, mean - Z95 * se, mean + Z95 * se, stats[:, 3]


def _dk_ratio(row, norm, z=Z99):
    """Raw ÷ scaled mean norm with a delta-method interval (same samples, correlation ignored)."""
    (m1, s1), (m0, s0) = row["raw"][norm], row["scaled"][norm]
    n = row["samples"]
    r = m1 / m0
    rel = math.sqrt((s1 / m1) ** 2 / n + (s0 / m0) ** 2 / n)
    return r, r * math.exp(-z * rel), r * math.exp(z * rel)


def norm_tables(results):
    plain, checks, peaks = [], [], []
    sigmas = np.asarray(results["curves"]["sigmas"])
    peak_low = True
    for c in results["curves"]["curves"]:
        n = c["n"]
        _, fro, _, _, fro_median = _curve(results, n, "frobenius")
        _, spec, _, _, _ = _curve(results, n, "spectral")
        top = int(np.argmax(fro))
        peaks.append(sigmas[top])
        peak_low &= fro[-1] < VANISH * fro.max()
        plain.append(
            (
                str(n),
                f"{math.sqrt(n - 1) / n:.4f} / {1 / n:.4f}",
                f"{fro[0]:.4f} / {spec[0]:.4f}",
                f"{sigmas[top]:g}",
                f"{fro[top]:.3f} / {spec[int(np.argmax(spec))]:.3f}",
                f"{fro[-1]:.2g} / {spec[-1]:.2g} (median F {fro_median[-1]:.2g})",
                "falls throughout" if top == 0 else "rises, then falls",
            )
        )
    checks.append(
        claims.check_threshold(
            "'∂softmax/∂input → 0 at extremes'", S001_MATTERS, "→ 0",
            "mean ‖J‖_F at σ = " + f"{sigmas[-1]:g}" + " ÷ its peak: "
            + ", ".join(f"{r[5].split(' / ')[0]} vs {r[4].split(' / ')[0]} (n = {r[0]})" for r in plain),
            bool(peak_low), "at the largest σ, below 1/10 of the curve's peak for every n",
        )
    )
    rows = {(r["n"], r["d_k"]): r for r in results["dk"]["rows"]}
    for source, d in CLAIM_DIMS:
        for n in CLAIM_KEYS:
            if (n, d) not in rows:
                continue
            row = {**rows[(n, d)], "samples": results["dk"]["samples"]}
            fro, spec = _dk_ratio(row, "frobenius"), _dk_ratio(row, "spectral")
            checks.append(
                claims.check_threshold(
                    f"softmax Jacobian of unscaled q·k, d_k = {d}, n = {n} keys: mean ‖J‖ ÷ scaled",
                    source, "gradients vanish",
                    f"‖J‖_F: {_ratio_text(fro)}; ‖J‖_2: {_ratio_text(spec)}",
                    fro[0] < VANISH and spec[0] < VANISH,
                    f"{VANISH_RULE}, for both norms; 99% intervals",
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
            ("n keys", "closed form at σ → 0 (F / 2)", f"at σ = {sigmas[0]:g}", "σ at peak (F)",
             "peak (F / 2)", f"at σ = {sigmas[-1]:g}", "shape (F)"),
            tuple(plain),
        ),
        Table(
            "gradients-norm-checks",
            "Do softmax gradients vanish for unscaled q·k?",
            "Mean Jacobian norm for q·k over n keys with q, k ~ N(0, I), unscaled against "
            "divided by √d_k, at the d_k each document names. The documents' examples use 4–5 "
            "keys; real sequences have many more, and with more keys the scaled (near-uniform) "
            "softmax has the smaller Jacobian.",
            checks=tuple(checks),
        ),
    ]


def _by_dk(results):
    return {row["d_k"]: row for row in results["layer"]}


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
        cells = [str(row["d_k"])]
        cells += [fmt(paired_ratio(row, key, Z95)[0], 3) for key, _ in LAYER_KEYS]
        cells.append(f"{np.mean(row['scaled']['eff_keys']):.1f} / {np.mean(row['unscaled']['eff_keys']):.2f}")
        cells.append(f"{100 * np.mean(row['unscaled']['saturated_rows']):.0f}%")
        plain.append(tuple(cells))
    by_dk = _by_dk(results)
    top = LAYER_CLAIM_DK if LAYER_CLAIM_DK in by_dk else max(by_dk)
    row = by_dk[top]
    draws = len(row["scaled"]["scores"])
    r = {key: paired_ratio(row, key) for key, _ in LAYER_KEYS + (("W_k", ""), ("x_via_v", ""), ("x_via_qk", ""))}
    rule99 = f"{VANISH_RULE}; geometric mean of {draws} paired draws, 99% interval"
    checks = [
        claims.check_threshold(
            f"softmax gradient of the median query, d_k = {top}", S000_SATURATES,
            "≈ 0 when softmax saturates", f"unscaled ÷ scaled {_ratio_text(r['scores_row_median'])}; "
            f"{100 * np.mean(row['unscaled']['saturated_rows']):.0f}% of unscaled rows have max p > {SATURATED}",
            r["scores_row_median"][0] < VANISH, rule99,
        ),
        claims.check_threshold(
            f"'All gradients vanish!': every gradient of the layer, d_k = {top}", S000_SATURATES,
            "all vanish", "unscaled ÷ scaled: " + "; ".join(
                f"{label} {fmt(r[key][0], 2)}" for key, label in LAYER_KEYS if key != "scores_row_median"
            ),
            all(r[key][0] < VANISH for key, _ in LAYER_KEYS if key != "scores_row_median"),
            rule99 + "; 'all': every one of them",
        ),
        claims.check_threshold(
            f"gradient through the attention to its input x, d_k = {top}", S000_CASCADE,
            "cannot effectively propagate", f"∂L/∂x unscaled ÷ scaled {_ratio_text(r['x'])} "
            f"(through V: {fmt(r['x_via_v'][0], 2)}, through Q, K: {fmt(r['x_via_qk'][0], 2)})",
            r["x"][0] < VANISH, rule99,
        ),
        claims.check_threshold(
            f"gradients of W_Q and W_K, d_k = {top}", S004_VANISH, "near zero: updates halted",
            f"∂L/∂W_q {_ratio_text(r['W_q'], 1)}; ∂L/∂W_k {_ratio_text(r['W_k'], 1)} (unscaled ÷ scaled)",
            r["W_q"][0] < VANISH and r["W_k"][0] < VANISH, rule99,
        ),
    ]
    for source, d, text, whose in (
        (S001_FLOW, 64, "tiny without scaling", "001"),
        (S003_NO_SCALE, 64, "vanishing through the softmax", "003"),
        (S003_NO_SCALE, 128, "vanishing through the softmax", "003"),
    ):
        if d not in by_dk:
            continue
        total, median = paired_ratio(by_dk[d], "scores"), paired_ratio(by_dk[d], "scores_row_median")
        checks.append(
            claims.check_threshold(
                f"∂L/∂S through the softmax, d_k = {d} ({whose}'s claim)", source, text,
                f"unscaled ÷ scaled: whole matrix {_ratio_text(total)}; median query row {_ratio_text(median)}",
                total[0] < VANISH or median[0] < VANISH,
                f"{VANISH_RULE}, for the whole matrix or for the median query (either suffices); 99% intervals",
            )
        )
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
        Table(
            "gradients-layer-checks",
            "What vanishes and what does not",
            "Saturated query rows do pass almost no gradient to their scores; the few rows whose "
            "top two scores are close pass large ones, the value path does not go through the "
            "softmax Jacobian, and without the 1/√d_k factor ∂L/∂Q = ∂L/∂S·K is √d_k times larger.",
            checks=tuple(checks),
        ),
    ]


def depth_summary(row, variant, key, layer, z=Z95):
    """Mean over draws of one layer's gradient norm, with its interval."""
    return mean_interval([draw[layer] for draw in row[variant][key]], z)


def depth_tables(results):
    checks, plain = [], []
    spread = {}
    for row in results["depth"]:
        d, L = row["d_model"], row["depth"]
        s_bottom = depth_summary(row, "scaled", "stream", 0)[0]
        u_bottom = depth_summary(row, "unscaled", "stream", 0)[0]
        s_ratio = s_bottom / depth_summary(row, "scaled", "stream", L)[0]
        u_ratio = u_bottom / depth_summary(row, "unscaled", "stream", L)[0]
        spread[d] = (s_ratio, u_ratio, u_bottom / s_bottom)
        wq = [depth_summary(row, v, "W_q", 0)[0] for v in ("scaled", "unscaled")]
        eff = [np.mean([draw[-1] for draw in row[v]["eff_keys"]]) for v in ("scaled", "unscaled")]
        plain.append(
            (str(d), str(L), f"{s_ratio:.3g} / {u_ratio:.3g}", f"{u_bottom / s_bottom:.3g}",
             f"{wq[1] / wq[0]:.3g}", f"{eff[0]:.1f} / {eff[1]:.2f}")
        )
    if spread:
        widest = max(spread)
        L = results["depth"][0]["depth"]
        text = "; ".join(f"d = {d}: {u:.3g} (scaled {s:.3g})" for d, (s, u, _) in spread.items())
        checks.append(
            claims.check_threshold(
                "gradient reaching the first block of the stack, unscaled ÷ scaled", S000_DEEP,
                "severe bottleneck in early layers",
                "; ".join(f"d = {d}: {b:.3g}" for d, (_, _, b) in spread.items()),
                all(b < VANISH for _, _, b in spread.values()),
                f"{VANISH_RULE} ('bottleneck': less gradient gets through); means over draws",
            )
        )
        failing = all(not (0.1 <= u <= 10) for _, u, _ in spread.values())
        growing = len(spread) < 2 or abs(math.log(spread[widest][1])) >= abs(math.log(spread[min(spread)][1]))
        direction = "explodes toward the input" if spread[widest][1] > 10 else "vanishes toward the input"
        checks.append(
            claims.check_threshold(
                "gradient propagation through the stack without the scale, at each width",
                S004_INSIGHT, "immediate failure",
                f"{L} blocks, ‖∂L/∂h_0‖ ÷ ‖∂L/∂h_{L}‖ unscaled: {text}; it {direction}",
                failing and growing,
                "failure read as: the gradient at the input differs from the gradient at the top by "
                "more than 10× either way, and more so at the larger width",
            )
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
        Table(
            "gradients-depth-checks",
            "Depth and width without the scale",
            "Vanishing would mean less gradient reaching the early blocks; the measured ratios "
            "say which way the unscaled gradient departs from the scaled one.",
            checks=tuple(checks),
        ),
    ]


def tables(results):
    """Every table of the gradients section, in reading order, under its sub-heading."""
    groups = (
        (PART_DOC, doc_tables(results)),
        (PART_FORMULA, [formula_table(results)]),
        (PART_001, flow_tables(results)),
        (PART_NORMS, norm_tables(results)),
        (PART_LAYER, layer_tables(results)),
        (PART_DEPTH, depth_tables(results)),
    )
    return [replace(table, part=part) for part, group in groups for table in group]


def figures(results):
    """Every figure of the gradients section."""
    from reportgen.experiments import gradients_figures

    return gradients_figures.figures(results)
