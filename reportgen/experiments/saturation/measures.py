"""Saturation family, measures: named numbers computed from its results, with their intervals.

Every measure reads the run's results alone. Where a statement is qualitative the measure
publishes the statistic it is read by (a mean largest weight, an entropy share, a margin,
a count); the claim names the threshold, and reportgen/judging/judge.py decides.
"""

import math

import numpy as np

from reportgen.experiments import thresholds
from reportgen.experiments.measure import Measurement, MeasureUnavailable, Measures
from reportgen.experiments.rowstats import entropy
from reportgen.experiments.saturation.params import DOC_BEHAVIOR_BASE, DOC_FIGURE_LEN, DOC_PARTIAL_SCORES
from reportgen.experiments.stats import level_z
from reportgen.experiments.thresholds import THRESHOLDS

MEASURES = Measures()  # name -> f(results, **args) -> Measurement, each registered below


# ---------------------------------------------------------------- helpers shared with tables and figures


def interval(stat, n, z):
    """Mean with a normal interval from streamed moments {'mean', 'var'} of n independent rows."""
    half = z * math.sqrt(stat["var"] / n)
    return stat["mean"], stat["mean"] - half, stat["mean"] + half


def sweep_cell(results, d_k, n):
    for cell in results["sweep"]:
        if cell["d_k"] == d_k and cell["n"] == n:
            return cell
    raise MeasureUnavailable(f"(d_k = {d_k}, n = {n}) is not in this profile's sweep")


def pooled_max_z(results, n):
    """Moments of max_j z_j over every row of the sweep at length n (the law does not depend on d_k)."""
    cells = [c for c in results["sweep"] if c["n"] == n]
    count = sum(c["rows"] for c in cells)
    mean = sum(c["max_z"]["mean"] * c["rows"] for c in cells) / count
    var = sum(c["max_z"]["var"] * c["rows"] for c in cells) / count  # the cells share one law
    return {"mean": mean, "var": var}, count


def expected_max_normal(n):
    """E[max of n iid N(0, 1)] = ∫ x n φ(x) Φ(x)^(n−1) dx, by the trapezoid rule."""
    x = np.linspace(-12, 12, 48_001)
    phi = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    cdf = 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))
    y = x * n * phi * cdf ** (n - 1)
    return float(((y[1:] + y[:-1]) / 2 * np.diff(x)).sum())


def stability_row(results, dtype, pattern="large positive"):
    for row in results["stability"]:
        if row["dtype"] == dtype and row["pattern"] == pattern:
            return row
    raise MeasureUnavailable(f"no {pattern} stability row for {dtype}")


def _example(results, table, key):
    values = results["examples"][table]
    if key not in values:
        raise MeasureUnavailable(f"no worked example '{key}' in results['examples']['{table}']")
    return values[key]


def _behavior(results, scale):
    for row in results["behavior"]:
        if row["scale"] == scale:
            return row
    raise MeasureUnavailable(f"scale {scale} is not one of 000's softmax_behavior_demo scales")


def _flat(matrix):
    return tuple(float(v) for row in matrix for v in row)


def _sum_interval(probs, decimals, method):
    """Where the sum of these probabilities lies once each is rounded to `decimals` places."""
    total = float(sum(probs))
    slack = len(probs) * 0.5 * 10**-decimals
    return Measurement(total, total - slack, total + slack, None, method, decimals + 2)


# ---------------------------------------------------------------- 000 "Softmax Behavior"


@MEASURES.register
def behavior_prob(results, scale, index):
    """probs[index] of 000's softmax_behavior_demo at one scale (float32, CPU, its own code)."""
    return Measurement(_behavior(results, scale)["probs"][index], method="000's code rerun, float32", digits=6)


@MEASURES.register
def behavior_max_prob(results, scale):
    return Measurement(_behavior(results, scale)["max_prob"], method="000's code rerun, float32", digits=8)


@MEASURES.register
def behavior_sum(results, scale, decimals):
    """The sum of the demo's probabilities, widened by rounding each to the printed `decimals`."""
    probs = _behavior(results, scale)["probs"]
    return _sum_interval(probs, decimals, f"a softmax sums to 1, so {len(probs)} values rounded to "
                                          f"{decimals} decimals sum to within")


# ---------------------------------------------------------------- worked examples


@MEASURES.register
def root(results, d):
    """√d, exact arithmetic (no sampling)."""
    return Measurement(math.sqrt(d), method="√d", digits=4)


@MEASURES.register
def scaled_score(results, example, index):
    """Entry `index` (from 0) of a worked example's scores divided by √d."""
    return Measurement(_example(results, "scaled", example)[index], method="score / √d", digits=4)


@MEASURES.register
def softmax_prob(results, example, index):
    """Entry `index` (from 0) of softmax of a worked example's inputs as printed, in float64."""
    return Measurement(_example(results, "softmax", example)[index], method="float64 softmax", digits=5)


@MEASURES.register
def softmax_sum(results, example, decimals):
    """The sum of a worked example's softmax, widened by rounding each entry to the printed `decimals`."""
    probs = _example(results, "softmax", example)
    return _sum_interval(probs, decimals, f"a softmax sums to 1, so {len(probs)} values rounded to "
                                          f"{decimals} decimals sum to within")


@MEASURES.register
def jacobian_max(results, example):
    """Largest |∂p_i/∂s_j| of softmax at a worked example's inputs (J = diag(p) − pp^T)."""
    return Measurement(_example(results, "jacobian_max", example), method="largest |∂p_i/∂s_j|", digits=8)


@MEASURES.register
def top_mass(results, example, k):
    """Mass held by the k largest weights of a worked example's softmax."""
    probs = sorted(_example(results, "softmax", example))
    return Measurement(float(sum(probs[-k:])), method=f"sum of the {k} largest weights", digits=4)


@MEASURES.register
def entropy_gain(results, example, versus):
    """Entropy (nats) of one example's softmax minus that of another's."""
    h, h_versus = entropy(_example(results, "softmax", example)), entropy(_example(results, "softmax", versus))
    n = len(_example(results, "softmax", example))
    return Measurement(h - h_versus, method="difference of entropies in nats", digits=3,
                       detail=(("entropy", h), ("versus", h_versus), (f"ln {n}", math.log(n))))


@MEASURES.register
def partial_weight(results, index):
    """Weight `index` of softmax of 001's three printed scores alone: its upper bound whatever '…' holds.

    More scores only add to the denominator, so every weight of the full vector is at most this.
    """
    p = results["examples"]["partial"]
    return Measurement(p[index], method="upper bound: softmax of the three printed scores alone", digits=4)


@MEASURES.register
def partial_implied(results, index, given_index, given):
    """The weight `index` that the printed weight `given` at `given_index` implies, whatever '…' holds.

    p_index / p_given = e^(s_index − s_given) does not depend on the elided scores, so the
    printed `given` fixes p_index up to roundings. Both are taken as printed to the decimals
    of `given`: the interval is (given ∓ half a unit)·ratio ∓ half a unit.
    """
    p = results["examples"]["partial"]
    ratio = p[index] / p[given_index]
    g = float(given)
    decimals = len(given.split(".")[1]) if "." in given else 0
    half = 0.5 * 10**-decimals
    s_i, s_g = DOC_PARTIAL_SCORES[index], DOC_PARTIAL_SCORES[given_index]
    return Measurement(g * ratio, (g - half) * ratio - half, (g + half) * ratio + half, None,
                       f"printed {given} × e^({s_i:g} − {s_g:g}), with both roundings", decimals + 2,
                       ((f"e^({s_i:g} − {s_g:g})", ratio, 4),))


# ---------------------------------------------------------------- 002's matrices


@MEASURES.register
def qkt_matrix(results, scaled=False):
    """Step 3's QK^T from Step 2's q and k (or divided by √3), entry-wise in reading order."""
    ex = results["examples"]
    return Measurement(_flat(ex["qkt_scaled" if scaled else "qkt"]), method="from Step 2's q and k", digits=2)


@MEASURES.register
def qkt_var(results, scaled=False, ddof=0):
    """Variance of the nine entries of QK^T (or of QK^T/√3); ddof 0 is np.var."""
    both = results["examples"]["qkt_scaled_var" if scaled else "qkt_var"]
    other = 1 - ddof
    return Measurement(both[ddof], method="np.var" if ddof == 0 else "with n − 1", digits=4,
                       detail=(("np.var" if other == 0 else "with n − 1", both[other], 2),))


@MEASURES.register
def original_scaled(results):
    """002's 'Original Matrix' divided by √3, entry-wise in reading order."""
    return Measurement(_flat(results["examples"]["original_scaled"]), method="Original Matrix / √3", digits=2)


@MEASURES.register
def exp_value(results, example, index):
    """exp of entry `index` of a worked example's inputs."""
    return Measurement(_example(results, "exps", example)["exps"][index], method="exp", digits=3)


@MEASURES.register
def exp_sum(results, example):
    return Measurement(_example(results, "exps", example)["sum"], method="sum of exps", digits=3)


# ---------------------------------------------------------------- the sweep


def hist_quantile(counts, q):
    """The q-quantile of a sample binned evenly on [0, 1] (linear within the bin)."""
    counts = np.asarray(counts, dtype=np.float64)
    target = q * counts.sum()
    cumulative = np.cumsum(counts)
    i = int(np.searchsorted(cumulative, target))
    below = cumulative[i - 1] if i else 0.0
    width = 1.0 / counts.size
    return (i + (target - below) / counts[i]) * width if counts[i] else i * width


@MEASURES.register
def mean_max_weight(results, d_k, n, scaled=False, level=0.99):
    """Mean largest attention weight of one query against n keys, with its normal interval.

    The median of the largest weight is a second statistic judged against the same
    threshold (its `views`); the share of rows above 0.99 and the mean entropy as a share
    of ln n are shown beside them.
    """
    cell = sweep_cell(results, d_k, n)
    suffix = "_scaled" if scaled else ""
    m, lo, hi = interval(cell["max_w" + suffix], cell["rows"], level_z(level))
    views, detail = (), ()
    if f"hist_max_w{suffix}" in cell:
        views = (("median largest weight", hist_quantile(cell[f"hist_max_w{suffix}"], 0.5)),)
        detail = ((f"share of rows above {THRESHOLDS['saturated_row']}", cell[f"above_max_w{suffix}"] / cell["rows"]),
                  ("mean entropy / ln n", cell["entropy" + suffix]["mean"] / math.log(n) if n > 1 else 0.0))
    return Measurement(m, lo, hi, cell["rows"], f"mean over {cell['rows']} rows, {level:.0%} interval", 3,
                       detail, views=views)


# ---------------------------------------------------------------- 000's figure, seed 42


def _figure(results, key, scaled):
    return results["figure"]["doc_seed"]["stats"][key + ("_scaled" if scaled else "")]


@MEASURES.register
def figure_entropy_share(results, scaled=False):
    """Mean entropy of the seed-42 figure's rows as a share of ln 10 (uniform attention)."""
    h = _figure(results, "mean_entropy", scaled)
    ln_n = math.log(DOC_FIGURE_LEN)
    return Measurement(h / ln_n, method="mean entropy / ln n", digits=3, detail=(("mean entropy", h),))


@MEASURES.register
def figure_row_max_weight(results, scaled=False):
    """Mean over the seed-42 figure's queries of the row's largest weight."""
    return Measurement(_figure(results, "row_max_weight", scaled), method="mean over queries of the largest weight",
                       digits=3)


@MEASURES.register
def figure_nuance_margin(results, uniform, saturated, scaled=True):
    """How far the seed-42 figure is from both near-uniform and saturated: the smaller margin.

    `uniform` and `saturated` name thresholds (reportgen/experiments/thresholds.py) on the entropy share and
    the mean largest weight; the margin is positive when the figure meets neither.
    """
    share = figure_entropy_share(results, scaled).value
    weight = figure_row_max_weight(results, scaled).value
    margin = min(thresholds.value(uniform) - share, thresholds.value(saturated) - weight)
    return Measurement(margin, method="min(uniform cut − entropy share, saturated cut − largest weight)", digits=3,
                       detail=(("entropy share of ln 10", share), ("mean largest weight", weight)))


# ---------------------------------------------------------------- 001 "Numerical Stability"


@MEASURES.register
def naive_overflow_headroom(results, dtype):
    """Decades between the first score where the naive exp/sum gives inf or NaN and the dtype's largest value.

    At least 0 when the naive form fails at a finite score; +inf when it never fails up to the largest.
    """
    row = stability_row(results, dtype)
    if not row["naive_fails_at_max"]:
        return Measurement(math.inf, method="the naive form stays finite up to the largest value", digits=2)
    return Measurement(math.log10(row["max"] / row["first_failure"]),
                       method=f"log10(largest {dtype} / first failing score)", digits=2,
                       detail=(("first inf/NaN at x", f"{row['first_failure']:.7g}"),))


@MEASURES.register
def stable_nonfinite(results, dtype):
    """Rows of the max-subtracted softmax with an inf or NaN, for scores up to the dtype's largest value."""
    row = stability_row(results, dtype)
    return Measurement(float(row["stable_wide_nonfinite"]), n=row["stable_wide_points"],
                       method=f"of {row['stable_wide_points']} score magnitudes up to {row['max']:.4g}", digits=0,
                       detail=(("largest |sum − 1|", f"{row['stable_wide_sum_error']:.2g}"),))


@MEASURES.register
def naive_stable_gap(results, dtype):
    """Largest |naive − stable| in units of the dtype's eps, up to the last score where naive is finite."""
    row = stability_row(results, dtype)
    return Measurement(row["naive_vs_stable"] / row["eps"], n=row["points"],
                       method=f"over {row['points']} largest scores from 0 to {row['last_finite']:.7g}", digits=3,
                       detail=(("max |naive − stable|", f"{row['naive_vs_stable']:.3g}"),))


@MEASURES.register
def jacobian_ratio(results, example, versus):
    """Largest |∂p_i/∂s_j| of one worked example's softmax over that of another (J = diag(p) − pp^T)."""
    j, j_versus = _example(results, "jacobian_max", example), _example(results, "jacobian_max", versus)
    return Measurement(j / j_versus, method=f"largest |∂p_i/∂s_j| of {example} over that of {versus}", digits=3,
                       detail=((example, j, 4), (versus, j_versus, 4)))


@MEASURES.register
def behavior_scores(results, scale):
    """The scores 000's softmax_behavior_demo prints at one scale: its base scores × scale, in float32."""
    _behavior(results, scale)  # a scale the run has
    scores = tuple(float(np.float32(b) * np.float32(scale)) for b in DOC_BEHAVIOR_BASE)
    return Measurement(scores, method="000's base scores × scale, float32", digits=2)


@MEASURES.register
def jacobian_min_diagonal(results, example):
    """Smallest diagonal entry p_i(1 − p_i) of the softmax Jacobian at a worked example's inputs.

    ∂p_i/∂s_i is the gradient that reaches position i's own score: the weakest position's.
    """
    probs = _example(results, "softmax", example)
    diag = [p * (1 - p) for p in probs]
    i = min(range(len(diag)), key=diag.__getitem__)
    return Measurement(diag[i], method="smallest p_i(1 − p_i) over the positions", digits=4,
                       detail=((f"at position {i + 1}, p", probs[i], 4),))
