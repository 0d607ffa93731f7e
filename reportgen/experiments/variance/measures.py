"""Variance family, measures: named numbers computed from its results, with their intervals."""

import math

import numpy as np

from reportgen.experiments.measure import Measurement, MeasureUnavailable, Measures
from reportgen.experiments.stats import (
    level_z,
    mean_interval,
    quantile_range,
    variance_se,
    wilson_interval,
)
from reportgen.experiments.variance.intervals import kurtosis_interval, unit_interval, var_interval
from reportgen.experiments.variance.params import DOC_DEMOS, DOC_RANGE_DIMS, DOC_RANGE_PAIRS, INITS

MEASURES = Measures()  # name -> f(results, **args) -> Measurement, each registered below

# What each divisor of 000 "Why √d_k Specifically?" divides q·k by.
DIVISORS = {
    "1": lambda d: 1.0,
    "sqrt_dk": math.sqrt,
    "dk": float,
    "sqrt_half_dk": lambda d: math.sqrt(d / 2),
}


def sweep_dims(params):
    """The d_k of the profile's sweep: what sweep_row finds."""
    return params.dims


def sweep_row(results, d_k):
    for row in results["sweep"]:
        if row["d_k"] == d_k:
            return row
    raise MeasureUnavailable(f"d_k = {d_k} is not in this profile's sweep")


@MEASURES.grid(d_k=sweep_dims, divide_by=tuple(DIVISORS))
@MEASURES.register
def var_qk(results, d_k, divide_by="1", level=0.99):
    """Var(q·k / c) for c in DIVISORS, with the kurtosis-corrected interval."""
    row = sweep_row(results, d_k)
    c2 = DIVISORS[divide_by](d_k) ** 2
    lo, hi = var_interval(row, level_z(level))
    return Measurement(row["var"] / c2, lo / c2, hi / c2, row["n"],
                       f"{level:.0%} CI of the measurement (excess kurtosis 6/d_k)", 3 if c2 == 1 else 4)


@MEASURES.grid(d_k=sweep_dims)
@MEASURES.register
def std_qk(results, d_k, level=0.99):
    row = sweep_row(results, d_k)
    lo, hi = var_interval(row, level_z(level))
    return Measurement(math.sqrt(row["var"]), math.sqrt(lo), math.sqrt(hi), row["n"],
                       f"{level:.0%} CI of the measurement", 3)


@MEASURES.grid(d_k=sweep_dims)
@MEASURES.register
def kurtosis_qk(results, d_k, level=0.99):
    row = sweep_row(results, d_k)
    lo, hi = kurtosis_interval(row, level_z(level))
    return Measurement(row["kurtosis"], lo, hi, row["n"],
                       f"{level:.0%} CI of the measurement (log scale, SE under excess kurtosis 6/d_k)",
                       3, (("6/d_k", 6 / d_k),))


@MEASURES.grid(d=sweep_dims)
@MEASURES.register
def var_unit(results, d, level=0.99):
    """Var(u·v) for random unit vectors u, v in R^d."""
    row = sweep_row(results, d)
    lo, hi = unit_interval(row, level_z(level))
    return Measurement(row["unit_var"], lo, hi, row["n"], f"{level:.0%} CI of the measurement", 6)


@MEASURES.grid(d_k=sweep_dims)
@MEASURES.register
def beyond(results, d_k, magnitude, level=0.99):
    """P(|q·k| > magnitude) with a Wilson interval; magnitude 20 or 40."""
    row = sweep_row(results, d_k)
    z = level_z(level)
    p, lo, hi = wilson_interval(row[f"beyond_{magnitude}"], row["n"], z)
    other = 40 if magnitude == 20 else 20
    p_other = row[f"beyond_{other}"] / row["n"]
    return Measurement(p, lo, hi, row["n"], f"{level:.0%} Wilson interval", 3,
                       ((f"P(|q·k| > {other})", p_other),))


@MEASURES.grid(d_k=sweep_dims, divide_by=tuple(DIVISORS))
@MEASURES.register
def sample_var(results, d_k, samples, divide_by="1", level=0.99):
    """Where a variance from `samples` pairs falls: this run's estimate ± both sampling errors.

    The value shown is 000's own code rerun with its seed (results["verify_rerun"]).
    """
    row = sweep_row(results, d_k)
    kappa = 6 / d_k
    se = math.hypot(variance_se(row["var"], samples, kappa), variance_se(row["var"], row["n"], kappa))
    z = level_z(level)
    c2 = DIVISORS[divide_by](d_k) ** 2
    rerun = {r["d_k"]: r for r in results["verify_rerun"]}.get(d_k)
    value = None if rerun is None else rerun["unscaled" if c2 == 1 else "scaled"]
    digits = 2 if c2 == 1 else 4
    return Measurement(value, (row["var"] - z * se) / c2, (row["var"] + z * se) / c2, samples,
                       f"{level:.0%} interval of a {samples:,}-pair sample variance; value: the seed-42 rerun"
                       .replace(",", " "), digits)


@MEASURES.register
def root(results, d_k, times=1):
    """times·√d_k, exact arithmetic (no sampling)."""
    return Measurement(times * math.sqrt(d_k), method=f"{times}·√d_k" if times != 1 else "√d_k", digits=4)


@MEASURES.register
def scaled_from_printed(results, d_k, unscaled):
    """The document's own unscaled variance divided by d_k, with both printed roundings."""
    u = float(unscaled)
    digits = len(unscaled.split(".")[1]) if "." in unscaled else 0
    half = 0.5 * 10 ** -digits
    return Measurement(u / d_k, (u - half) / d_k - 0.00005, (u + half) / d_k + 0.00005, None,
                       "the document's own unscaled value divided by d_k, with both roundings", 5)


@MEASURES.grid(d=DOC_RANGE_DIMS)
@MEASURES.register
def range_max(results, d, level=0.99):
    """Largest |q·k| among 002's 1,000 pairs: this run, and the central range over repeats."""
    rows = {r["d"]: r for r in results["ranges"]}
    if d not in rows:
        raise MeasureUnavailable(f"d = {d} is not one of 002's dimensions {DOC_RANGE_DIMS}")
    row = rows[d]
    lo, hi = quantile_range(row["max_abs"], level)
    return Measurement(max(-row["first_min"], row["first_max"]), lo, hi, len(row["max_abs"]),
                       f"central {level:.0%} of max|q·k| over {len(row['max_abs'])} repeats of 1 000 pairs", 1,
                       (("this run's min", row["first_min"]), ("max", row["first_max"])), level=level,
                       interval="of runs")


@MEASURES.register
def proportional_misses(results, level=0.99, margin=0.02):
    """At how many of 002's dimensions Var/d departs from 1 by more than `margin`.

    An equivalence reading: with 2 000 repeats each interval is a few tenths of a percent wide,
    so testing "exactly 1" would flag departures no reader means by "proportionally" (and 1 in
    33 builds by chance at three dimensions). np.var over the 1 000 pairs (the document's code)
    has expectation (n − 1)/n · d, so that factor is divided out; the three intervals are
    Bonferroni-corrected to hold together at `level`. Value: dimensions whose mean is outside
    1 ± margin; interval: those whose interval is entirely outside, and those not entirely inside.
    """
    k = len(results["ranges"])
    z = level_z(1 - (1 - level) / k)
    unbias = DOC_RANGE_PAIRS / (DOC_RANGE_PAIRS - 1)
    point = sure = possible = 0
    detail = []
    for row in results["ranges"]:
        mean, lo, hi = (x * unbias / row["d"] for x in mean_interval(row["variances"], z))
        point += abs(mean - 1) > margin
        sure += lo > 1 + margin or hi < 1 - margin
        possible += not (1 - margin <= lo and hi <= 1 + margin)
        detail.append((f"Var/d at d = {row['d']}", mean, 4))
    lo, hi = (None, None) if sure == possible else (float(sure), float(possible))
    return Measurement(float(point), lo, hi, n=k, digits=0, detail=tuple(detail), level=level if lo is not None else None,
                       method=f"dimensions where Var/d (np.var's (n − 1)/n divided out) is outside 1 ± {margin:g}; "
                              f"{level:.0%} t intervals, family-wise over the {k} dimensions")


@MEASURES.register
def init_component_var(results, init, d_model, d_k, level=0.99):
    """Var(q_i) of q = W_q x under one initialization, mean over weight draws."""
    for row in results["init"]:
        if (row["init"], row["d_model"], row["d_k"]) == (init, d_model, d_k):
            m, lo, hi = mean_interval(row["comp"], level_z(level))
            return Measurement(m, lo, hi, len(row["comp"]),
                               f"{level:.0%} interval over {len(row['comp'])} weight draws", 3,
                               (("closed form", INITS[init][1](d_model, d_k)),))
    raise MeasureUnavailable(f"no {init} draw at d_model = {d_model}, d_k = {d_k}")


@MEASURES.register
def demo_var(results, demo, scaled=False, level=0.99):
    """Raw (or /d_k) score variance one run of a small demo prints, and where 99% of runs land."""
    names = [name for name, _ in DOC_DEMOS]
    row = results["demos"][names.index(demo)]
    d_k = row["shape"][-1]
    raw = np.asarray(row["raw_vars"]) / (d_k if scaled else 1)
    lo, hi = quantile_range(raw, level)
    return Measurement(float(raw[0]), lo, hi, raw.size,
                       f"central {level:.0%} of this statistic over {raw.size} repeats at shape {tuple(row['shape'])}",
                       3 if scaled else 2, (("mean over repeats", float(raw.mean())),), level=level,
                       interval="of runs")


@MEASURES.register
def demo_mean_var(results, demo, scaled=False, level=0.99):
    """Mean over repeats of the raw (or /d_k) score variance a small demo prints, with its interval.

    What the demo prints on average; the scatter of a single run is in the detail.
    """
    names = [name for name, _ in DOC_DEMOS]
    row = results["demos"][names.index(demo)]
    d_k = row["shape"][-1]
    raw = np.asarray(row["raw_vars"]) / (d_k if scaled else 1)
    m, lo, hi = mean_interval(raw, level_z(level))
    q_lo, q_hi = quantile_range(raw, level)
    digits = 3 if scaled else 2
    return Measurement(m, lo, hi, raw.size,
                       f"{level:.0%} interval of the mean over {raw.size} repeats at shape {tuple(row['shape'])}",
                       digits, (("this run", float(raw[0]), digits), ("median run", float(np.median(raw)), digits),
                                (f"central {level:.0%} of single runs", f"{q_lo:.{digits}f} to {q_hi:.{digits}f}")))


@MEASURES.register
def var_growth_exponent(results, level=0.99):
    """Exponent b of Var(q·k) ∝ d_k^b over the whole sweep: the slope of ln Var on ln d_k.

    Weighted least squares, each d_k weighted by 1/SE² of its ln Var (SE of a sample variance
    over Var, excess kurtosis 6/d_k); the interval is slope ± z·SE of the slope. 'Grows
    linearly with d_k' is b = 1.
    """
    rows = results["sweep"]
    x = np.log([r["d_k"] for r in rows])
    y = np.log([r["var"] for r in rows])
    se = np.array([variance_se(1.0, r["n"], 6 / r["d_k"]) for r in rows])  # SE of ln s² ≈ SE(s²)/σ²
    w = 1 / se**2
    xm, ym = np.average(x, weights=w), np.average(y, weights=w)
    sxx = float(np.sum(w * (x - xm) ** 2))
    slope = float(np.sum(w * (x - xm) * (y - ym)) / sxx)
    half = level_z(level) / math.sqrt(sxx)
    dims = [r["d_k"] for r in rows]
    return Measurement(slope, slope - half, slope + half, len(rows),
                       f"{level:.0%} interval of the slope of ln Var(q·k) on ln d_k, d_k = {min(dims)} … {max(dims)} "
                       "(weighted least squares)", 3,
                       (("Var(q·k)/d_k", f"{min(r['var'] / r['d_k'] for r in rows):.3f} to "
                                         f"{max(r['var'] / r['d_k'] for r in rows):.3f}"),))


@MEASURES.register
def std_order_overlaps(results, level=0.99):
    """Neighbouring d_k of the sweep whose intervals of the score std are not strictly ordered."""
    z = level_z(level)
    rows = sorted(results["sweep"], key=lambda r: r["d_k"])
    cis = [tuple(math.sqrt(x) for x in var_interval(row, z)) for row in rows]
    overlaps = sum(not a[1] < b[0] for a, b in zip(cis, cis[1:]))
    return Measurement(float(overlaps), n=len(rows), method=f"{level:.0%} intervals of std(q·k) at neighbouring d_k "
                       "that overlap or fall", digits=0,
                       detail=tuple((f"std(q·k) at d_k = {row['d_k']}", math.sqrt(row["var"]), 2) for row in rows))


@MEASURES.grid(d_k=sweep_dims)
@MEASURES.register
def mean_qk(results, d_k, level=0.99):
    """E[q·k] at one d_k of the sweep, with its normal interval (mean ± z·√(Var/n))."""
    row = sweep_row(results, d_k)
    half = level_z(level) * math.sqrt(row["var"] / row["n"])
    return Measurement(row["mean"], row["mean"] - half, row["mean"] + half, row["n"],
                       f"{level:.0%} interval of the mean of q·k over {row['n']} pairs", 4,
                       (("std of q·k", math.sqrt(row["var"])),))


@MEASURES.grid(d_k=sweep_dims)
@MEASURES.register
def second_moment_qk(results, d_k, level=0.99):
    """E[(q·k)²] = Var(q·k) + E[q·k]² at one d_k, with the variance's interval (excess kurtosis 6/d_k)."""
    row = sweep_row(results, d_k)
    shift = row["mean"] ** 2
    lo, hi = var_interval(row, level_z(level))
    return Measurement(row["var"] + shift, lo + shift, hi + shift, row["n"],
                       f"{level:.0%} CI of Var(q·k) + mean², excess kurtosis 6/d_k", 3,
                       (("E[q·k]²", shift, 6),))


def _farthest(cells, target):
    """The cell (value, lo, hi, d_k) whose interval excludes `target`, or else reaches farthest from it."""
    pool = [c for c in cells if not c[1] <= target <= c[2]] or cells
    return max(pool, key=lambda c: max(abs(c[1] - target), abs(c[2] - target)))


@MEASURES.register
def var_ratio_worst(results, level=0.99):
    """Var(q·k)/d_k (= Var(q·k/√d_k)) at the sweep's d_k that departs most from 1, with its interval.

    The intervals are joint at `level` over every d_k of the sweep (Bonferroni), so one d_k
    straying by chance does not make the law fail. Shown: a d_k whose interval excludes 1 if
    there is one, else the one whose interval reaches farthest from 1.
    """
    rows = sorted(results["sweep"], key=lambda r: r["d_k"])
    z = level_z(1 - (1 - level) / len(rows))
    cells = [(r["var"] / r["d_k"], *(x / r["d_k"] for x in var_interval(r, z)), r["d_k"]) for r in rows]
    value, lo, hi, d = _farthest(cells, 1.0)
    return Measurement(value, lo, hi, rows[0]["n"],
                       f"{level:.0%} joint interval (Bonferroni over {len(rows)} d_k, excess kurtosis 6/d_k) of "
                       f"Var(q·k)/d_k at d_k = {d}, the farthest from 1 of d_k = {rows[0]['d_k']} … {rows[-1]['d_k']}",
                       3, (("Var(q·k)/d_k over the sweep", f"{min(c[0] for c in cells):.3f} to "
                                                         f"{max(c[0] for c in cells):.3f}"),))


@MEASURES.register
def mean_worst(results, level=0.99):
    """E[q·k]/√d_k (the mean in units of its standard deviation) at the sweep's d_k farthest from 0.

    Joint intervals over the sweep (Bonferroni), as var_ratio_worst.
    """
    rows = sorted(results["sweep"], key=lambda r: r["d_k"])
    z = level_z(1 - (1 - level) / len(rows))
    cells = []
    for r in rows:
        s = math.sqrt(r["d_k"])
        half = z * math.sqrt(r["var"] / r["n"]) / s
        cells.append((r["mean"] / s, r["mean"] / s - half, r["mean"] / s + half, r["d_k"]))
    value, lo, hi, d = _farthest(cells, 0.0)
    return Measurement(value, lo, hi, rows[0]["n"],
                       f"{level:.0%} joint interval (Bonferroni over {len(rows)} d_k) of E[q·k]/√d_k at d_k = {d}, "
                       f"the farthest from 0 of d_k = {rows[0]['d_k']} … {rows[-1]['d_k']}", 4)


@MEASURES.register
def init_score_var(results, init, d_model, d_k, level=0.99):
    """Var(q·k/√d_k) = Var(q·k)/d_k for q = W_q x, k = W_k x' under one initialization, mean over weight draws."""
    for row in results["init"]:
        if (row["init"], row["d_model"], row["d_k"]) == (init, d_model, d_k):
            m, lo, hi = mean_interval(row["score"], level_z(level))
            return Measurement(m, lo, hi, len(row["score"]),
                               f"{level:.0%} t-interval over {len(row['score'])} weight draws", 3,
                               (("closed form Var(q_i)²", INITS[init][1](d_model, d_k) ** 2),))
    raise MeasureUnavailable(f"no {init} draw at d_model = {d_model}, d_k = {d_k}")


@MEASURES.grid(d=sweep_dims)
@MEASURES.register
def mean_unit(results, d, level=0.99):
    """E[u·v] for random unit vectors u, v in R^d, with its normal interval (mean ± z·√(Var/n))."""
    row = sweep_row(results, d)
    half = level_z(level) * math.sqrt(row["unit_var"] / row["n"])
    return Measurement(row["unit_mean"], row["unit_mean"] - half, row["unit_mean"] + half, row["n"],
                       f"{level:.0%} interval of the mean of u·v over {row['n']} pairs", 6,
                       (("std of u·v", math.sqrt(row["unit_var"]), 4),))


@MEASURES.register
def unit_var_not_falling(results, level=0.99):
    """Neighbouring d of the sweep whose intervals of Var(u·v) are not strictly falling (the larger d wholly below).

    0 means random unit vectors are measurably closer to orthogonal at every step up in d.
    """
    z = level_z(level)
    rows = sorted(results["sweep"], key=lambda r: r["d_k"])
    cis = [unit_interval(row, z) for row in rows]
    misses = sum(not b[1] < a[0] for a, b in zip(cis, cis[1:]))
    return Measurement(float(misses), n=len(rows), method=f"{level:.0%} intervals of Var(u·v) at neighbouring d "
                       "that overlap or rise", digits=0,
                       detail=tuple((f"std of u·v at d = {row['d_k']}", math.sqrt(row["unit_var"]), 4)
                                    for row in rows if row["d_k"] in (1, 16, 64, 512, 4096)))
