"""Gradients family, measures: named numbers computed from its results, with their intervals.

A qualitative statement ("vanishes", "all vanish", "immediate failure") is judged on a
number published here (a ratio, the largest of several ratios, a count of violations);
the claim's rule and threshold (reportgen/claims/NNN.gradients.toml) decide the verdict.
"""

import math

import numpy as np

from reportgen.experiments.measure import Measurement, MeasureUnavailable, Measures
from reportgen.experiments.stats import Z, level_z, mean_interval
from reportgen.experiments.thresholds import THRESHOLDS

MEASURES = Measures()  # name -> f(results, **args) -> Measurement, each registered below

DOC_QUANTITIES = {  # result key of 000's table rows -> what 000 prints it as
    "max_prob": "Max probability",
    "max_element": "Max Jacobian element",
    "frobenius": "Jacobian Frobenius",
}
NORM_NAMES = {"frobenius": "‖J‖_F", "spectral": "‖J‖_2"}
LAYER_NAMES = {
    "scores": "∂L/∂S",
    "scores_row_median": "median query row of ∂L/∂S",
    "q": "∂L/∂Q",
    "W_q": "∂L/∂W_q",
    "W_k": "∂L/∂W_k",
    "W_v": "∂L/∂W_v",
    "x": "∂L/∂x",
    "x_via_v": "∂L/∂x through V",
    "x_via_qk": "∂L/∂x through Q, K",
}


# Helpers shared with tables.py and figures.py: results -> numbers.


def _readable_digits(x, significant=2):
    """Decimals that show `significant` digits of a small positive number (at least 3)."""
    if not x or not math.isfinite(x) or abs(x) >= 1:
        return 3
    return max(3, significant - 1 - math.floor(math.log10(abs(x))))


def norm_curve(results, n, norm):
    """(sigmas, mean, lo, hi, median) of one norm curve; the mean's interval at the report's level (stats.LEVEL)."""
    curves = {c["n"]: c for c in results["curves"]["curves"]}
    stats = np.asarray(curves[n][norm])  # (sigmas, 5): mean, sd, q1, median, q3
    se = stats[:, 1] / math.sqrt(curves[n]["samples"])
    mean = stats[:, 0]
    return np.asarray(results["curves"]["sigmas"]), mean, mean - Z * se, mean + Z * se, stats[:, 3]


def dk_ratio(row, samples, norm, z):
    """Raw ÷ scaled mean norm with a delta-method interval (same samples, correlation ignored)."""
    (m1, s1), (m0, s0) = row["raw"][norm], row["scaled"][norm]
    r = m1 / m0
    rel = math.sqrt((s1 / m1) ** 2 / samples + (s0 / m0) ** 2 / samples)
    return r, r * math.exp(-z * rel), r * math.exp(z * rel)


def paired_ratio(row, key, z):
    """Geometric mean over draws of unscaled ÷ scaled (same draws), with its interval."""
    logs = np.log(np.asarray(row["unscaled"][key]) / np.asarray(row["scaled"][key]))
    m, lo, hi = mean_interval(logs, z)
    return math.exp(m), math.exp(lo), math.exp(hi)


def depth_summary(row, variant, key, layer, z=Z):
    """Mean over draws of one layer's gradient norm, with its interval."""
    return mean_interval([draw[layer] for draw in row[variant][key]], z)


def depth_ratios(row):
    """(scaled input ÷ top, unscaled input ÷ top, unscaled input ÷ scaled input) of the stream gradient."""
    L = row["depth"]
    s_bottom = depth_summary(row, "scaled", "stream", 0)[0]
    u_bottom = depth_summary(row, "unscaled", "stream", 0)[0]
    s_top = depth_summary(row, "scaled", "stream", L)[0]
    u_top = depth_summary(row, "unscaled", "stream", L)[0]
    return s_bottom / s_top, u_bottom / u_top, u_bottom / s_bottom


def layer_row(results, d_k):
    for row in results["layer"]:
        if row["d_k"] == d_k:
            return row
    raise MeasureUnavailable(f"d_k = {d_k} is not in this profile's one-layer measurement")


# The measures.


@MEASURES.register
def doc_jacobian(results, scale, quantity):
    """000's Jacobian table recomputed in float64: one printed quantity at one scale."""
    if quantity not in DOC_QUANTITIES:
        raise MeasureUnavailable(f"quantity must be one of {', '.join(DOC_QUANTITIES)}")
    for row in results["doc_table"]:
        if row["scale"] == scale:
            return Measurement(row[quantity], method=f"softmax(scale × base scores) in float64, {DOC_QUANTITIES[quantity]}",
                               digits=6)
    raise MeasureUnavailable(f"scale {scale} is not one of 000's scales")


@MEASURES.register
def decay_rate_spread(results, quantity="max_element", scales=(5, 10, 20)):
    """How far the ln-decay rates per unit of scale between consecutive scales differ, relative to the first.

    An exponential decay has one rate: the largest |rate − first rate| ÷ |first rate| is 0.
    """
    by_scale = {row["scale"]: row[quantity] for row in results["doc_table"]}
    if not set(scales) <= set(by_scale) or len(scales) < 3:
        raise MeasureUnavailable(f"needs at least three of 000's scales, got {list(scales)}")
    rates = [math.log(by_scale[b] / by_scale[a]) / (b - a) for a, b in zip(scales, scales[1:])]
    spread = max(abs(r - rates[0]) for r in rates[1:]) / abs(rates[0])
    detail = tuple((f"ln-decay per unit of scale {a}→{b}", r, 3) for (a, b), r in zip(zip(scales, scales[1:]), rates))
    return Measurement(spread, method="relative spread of the decay rates (the top-two score gap, 0.5 per unit "
                       "of scale, predicts −0.5 throughout)", digits=3, detail=detail)


@MEASURES.register
def jacobian_agreement(results, against):
    """Largest |closed form − autograd| or |closed form − central differences| over random score vectors."""
    a = results["agreement"]
    if against not in ("autograd", "finite_diff"):
        raise MeasureUnavailable("against must be 'autograd' or 'finite_diff'")
    value = a[against]
    how = "reverse-mode autograd" if against == "autograd" else "central differences, step 1e-6"
    return Measurement(value, n=a["vectors"], digits=_readable_digits(value),
                       method=f"max |diag(p) − ppᵀ − {how}| over {a['vectors']} score vectors "
                       f"(n = {min(a['sizes'])} … {max(a['sizes'])}), float64",
                       detail=(("max |difference|", f"{value:.1e}"),))


@MEASURES.register
def uniform_entry(results, entry, atol=1e-12):
    """An entry of the Jacobian at uniform p over m = 4 keys, by autograd, within float64 rounding `atol`."""
    uniform = next(c for c in results["small"]["exercise5"] if c["name"] == "uniform")
    m = len(uniform["probs"])
    if entry == "diagonal":
        value = uniform["diag"][0]
    elif entry == "off_diagonal":
        value = -uniform["max_off_diag"]  # every off-diagonal entry is −1/m² at uniform p
    else:
        raise MeasureUnavailable("entry must be 'diagonal' or 'off_diagonal'")
    return Measurement(value, value - atol, value + atol, method=f"autograd at uniform p, m = {m}, ± {atol:g}",
                       digits=6, detail=(("m", m, 0),))


@MEASURES.register
def small_diagonal(results, case, index):
    """∂p_i/∂s_i = p_i(1 − p_i) of one of 001's examples ('moderate' or 'peaked'), by autograd."""
    c = results["small"][case]
    return Measurement(c["diag"][index], method="autograd, float64", digits=4,
                       detail=((f"p_{index + 1}", c["probs"][index], 4),))


@MEASURES.register
def small_max_entry(results, case):
    """Largest |J_ij| of one of 001's examples, diagonal or not, by autograd."""
    c = results["small"][case]
    value = max(max(abs(d) for d in c["diag"]), c["max_off_diag"])
    return Measurement(value, method="autograd, float64", digits=_readable_digits(value),
                       detail=(("p_1", c["probs"][0], 5), ("max |J_ij| off the diagonal", f"{c['max_off_diag']:.1e}"),
                               ("on it", f"{max(c['diag']):.1e}")))


@MEASURES.register
def extreme_to_peak(results, norm="frobenius"):
    """Mean ‖J‖ at the largest logit std ÷ its peak over σ, the largest over numbers of keys n."""
    ratios, detail = [], []
    sigmas = results["curves"]["sigmas"]
    for c in results["curves"]["curves"]:
        _, mean, _, _, _ = norm_curve(results, c["n"], norm)
        ratios.append(mean[-1] / mean.max())
        detail.append((f"n = {c['n']} ({mean[-1]:.2g} ÷ peak {mean.max():.3g})", float(ratios[-1]), 4))
    return Measurement(float(max(ratios)), method=f"mean {NORM_NAMES[norm]} at σ = {sigmas[-1]:g} ÷ the curve's "
                       "peak, largest over n", digits=4, detail=tuple(detail))


@MEASURES.register
def dk_norm_ratio(results, d_k, n, norms=("frobenius", "spectral"), level=0.99):
    """Mean ‖J‖ of unscaled q·k ÷ that of q·k/√d_k over n keys; the largest over `norms`, with its interval."""
    rows = {(r["n"], r["d_k"]): r for r in results["dk"]["rows"]}
    if (n, d_k) not in rows:
        raise MeasureUnavailable(f"(n = {n}, d_k = {d_k}) is not in this profile's d_k sweep")
    samples = results["dk"]["samples"]
    z = level_z(level)
    ratios = {norm: dk_ratio(rows[(n, d_k)], samples, norm, z) for norm in norms}
    worst = max(norms, key=lambda norm: ratios[norm][0])
    value, lo, hi = ratios[worst]
    return Measurement(value, lo, hi, samples,
                       f"{level:.0%} delta-method interval; the larger over {', '.join(NORM_NAMES[x] for x in norms)}",
                       3, tuple((NORM_NAMES[norm], ratios[norm][0]) for norm in norms))


@MEASURES.register
def layer_ratio(results, d_k, keys, combine="max", level=0.99):
    """Gradient norm of one attention layer, unscaled ÷ scaled: the largest (or smallest) over `keys`.

    Each ratio is a geometric mean over paired draws (the same x, weights and target for
    both); 'max' reads "every one of them", 'min' reads "either suffices", 'each' judges the
    first and shows the others as views of the same statement (a split reads partly).
    """
    row = layer_row(results, d_k)
    z = level_z(level)
    ratios = {key: paired_ratio(row, key, z) for key in keys}
    if combine == "each":
        value, lo, hi = ratios[keys[0]]
        views = tuple((LAYER_NAMES[key], ratios[key][0]) for key in keys[1:])
        return Measurement(value, lo, hi, len(row["scaled"][keys[0]]),
                           f"geometric mean of paired draws, {level:.0%} interval, {LAYER_NAMES[keys[0]]}", 3,
                           ((f"unscaled rows with max p > {THRESHOLDS['saturated_row']}",
                             float(np.mean(row["unscaled"]["saturated_rows"])), 2),), views=views)
    pick = {"max": max, "min": min}[combine]
    chosen = pick(keys, key=lambda key: ratios[key][0])
    value, lo, hi = ratios[chosen]
    draws = len(row["scaled"][keys[0]])
    detail = [(LAYER_NAMES[key], ratios[key][0]) for key in keys] if len(keys) > 1 else []
    if "x" in keys:
        detail += [(LAYER_NAMES[key], paired_ratio(row, key, z)[0], 2) for key in ("x_via_v", "x_via_qk")]
    detail.append((f"unscaled rows with max p > {THRESHOLDS['saturated_row']}",
                   float(np.mean(row["unscaled"]["saturated_rows"])), 2))
    which = f"; the {'largest' if combine == 'max' else 'smallest'} of {len(keys)}" if len(keys) > 1 else ""
    return Measurement(value, lo, hi, draws,
                       f"geometric mean of {draws} paired draws, {level:.0%} interval{which}", 3, tuple(detail))


@MEASURES.register
def depth_input_ratio(results):
    """Gradient reaching the stack's input, unscaled ÷ scaled (means over draws): the largest over widths."""
    if not results["depth"]:
        raise MeasureUnavailable("no width in this profile's stack")
    ratios = {row["d_model"]: depth_ratios(row)[2] for row in results["depth"]}
    return Measurement(max(ratios.values()), n=len(results["depth"][0]["scaled"]["stream"]),
                       method="mean ‖∂L/∂h_0‖ over draws, unscaled ÷ scaled; the largest over widths", digits=3,
                       detail=tuple((f"at d = {d}", r) for d, r in ratios.items()))


@MEASURES.register
def depth_failure_violations(results, factor=10):
    """Widths at which the unscaled stack does NOT fail, plus one if failure does not grow with width.

    'Failure' at a width: the gradient at the input differs from the gradient at the top by more
    than `factor` either way; 'growing': that departure (|ln|) is at least as large at the widest
    width as at the narrowest. 0 means both hold everywhere.
    """
    if not results["depth"]:
        raise MeasureUnavailable("no width in this profile's stack")
    spread = {row["d_model"]: depth_ratios(row) for row in results["depth"]}
    holding = sum(1 for _, u, _ in spread.values() if 1 / factor <= u <= factor)
    narrow, wide = min(spread), max(spread)
    growing = len(spread) < 2 or abs(math.log(spread[wide][1])) >= abs(math.log(spread[narrow][1]))
    L = results["depth"][0]["depth"]
    detail = [(f"d = {d}: ‖∂L/∂h_0‖ ÷ ‖∂L/∂h_{L}‖ unscaled", f"{u:.3g} (scaled {s:.3g})") for d, (s, u, _) in spread.items()]
    detail.append(("direction", "grows toward the input" if spread[wide][1] > 1 else "shrinks toward the input"))
    return Measurement(float(holding + (not growing)), n=len(spread),
                       method=f"{L} blocks; widths within {factor}× either way, plus 1 if the departure shrinks with width",
                       digits=0, detail=tuple(detail))


@MEASURES.register
def layer_max_weight(results, d_k, scaled=False, level=0.99):
    """Mean largest attention weight of the one-layer measurement's rows (queries against T tokens).

    Each draw gives the mean over its query rows; the interval is over draws.
    """
    row = layer_row(results, d_k)
    variant = "scaled" if scaled else "unscaled"
    m, lo, hi = mean_interval(row[variant]["max_p"], level_z(level))
    draws = len(row[variant]["max_p"])
    return Measurement(m, lo, hi, draws, f"mean over {draws} draws of the rows' mean largest weight, {variant}; "
                       f"{level:.0%} interval", 3,
                       ((f"rows with max p > {THRESHOLDS['saturated_row']}",
                         float(np.mean(row[variant]["saturated_rows"])), 2),
                        ("std of the softmax input", float(np.mean(row[variant]["logit_std"])), 1)))


@MEASURES.register
def saturated_row_share(results, variant="scaled"):
    """Share of query rows with max p > saturated_row in the one-layer measurement: the largest over d_k.

    Each d_k's share is the mean over its draws.
    """
    shares = {row["d_k"]: float(np.mean(row[variant]["saturated_rows"])) for row in results["layer"]}
    weights = {row["d_k"]: float(np.mean(row[variant]["max_p"])) for row in results["layer"]}
    d = max(shares, key=shares.get)
    draws = len(results["layer"][0][variant]["saturated_rows"])
    return Measurement(shares[d], n=draws,
                       method=f"share of rows with max p > {THRESHOLDS['saturated_row']}, {variant}: the largest over "
                       f"d_k = {min(shares)} … {max(shares)} (at d_k = {d})", digits=4,
                       detail=(("mean largest weight", f"{min(weights.values()):.2f} to {max(weights.values()):.2f}"),))
