"""Variance family, measures: named numbers computed from its results, with their intervals."""

import math

import numpy as np

from reportgen.experiments.variance.params import DOC_DEMOS, DOC_RANGE_DIMS, INITS
from reportgen.measure import Measurement, MeasureUnavailable
from reportgen.stats import (
    level_z,
    mean_interval,
    quantile_range,
    student_t,
    variance_interval,
    variance_se,
    wilson_interval,
)

# What each divisor of 000 "Why √d_k Specifically?" divides q·k by.
DIVISORS = {
    "1": lambda d: 1.0,
    "sqrt_dk": math.sqrt,
    "dk": float,
    "sqrt_half_dk": lambda d: math.sqrt(d / 2),
}


def sweep_row(results, d_k):
    for row in results["sweep"]:
        if row["d_k"] == d_k:
            return row
    raise MeasureUnavailable(f"d_k = {d_k} is not in this profile's sweep")


def var_interval(row, z):
    # q·k with N(0,1) components has excess kurtosis 6/d_k.
    return variance_interval(row["var"], row["n"], 6 / row["d_k"], z)


def unit_interval(row, z):
    # One coordinate of a uniform unit vector in R^d has excess kurtosis -6/(d+2).
    return variance_interval(row["unit_var"], row["n"], -6 / (row["d_k"] + 2), z)


def kurtosis_interval(row, z):
    """The pooled kurtosis ± a Student-t half-width from the spread of independent batches.

    A handful of batch kurtoses gives a noisy standard deviation: the t quantile (df =
    batches - 1), not the normal one, keeps the interval's coverage.
    """
    b = np.asarray(row["kurtosis_batches"])
    half = student_t(z, b.size - 1) * b.std(ddof=1) / math.sqrt(b.size)
    return row["kurtosis"] - half, row["kurtosis"] + half


def var_qk(results, d_k, divide_by="1", level=0.99):
    """Var(q·k / c) for c in DIVISORS, with the kurtosis-corrected interval."""
    row = sweep_row(results, d_k)
    c2 = DIVISORS[divide_by](d_k) ** 2
    lo, hi = var_interval(row, level_z(level))
    return Measurement(row["var"] / c2, lo / c2, hi / c2, row["n"],
                       f"{level:.0%} CI of the measurement (excess kurtosis 6/d_k)", 3 if c2 == 1 else 4)


def std_qk(results, d_k, level=0.99):
    row = sweep_row(results, d_k)
    lo, hi = var_interval(row, level_z(level))
    return Measurement(math.sqrt(row["var"]), math.sqrt(lo), math.sqrt(hi), row["n"],
                       f"{level:.0%} CI of the measurement", 3)


def kurtosis_qk(results, d_k, level=0.99):
    row = sweep_row(results, d_k)
    lo, hi = kurtosis_interval(row, level_z(level))
    return Measurement(row["kurtosis"], lo, hi, row["n"],
                       f"{level:.0%} CI of the measurement, from {len(row['kurtosis_batches'])} batches",
                       3, (("6/d_k", 6 / d_k),))


def var_unit(results, d, level=0.99):
    """Var(u·v) for random unit vectors u, v in R^d."""
    row = sweep_row(results, d)
    lo, hi = unit_interval(row, level_z(level))
    return Measurement(row["unit_var"], lo, hi, row["n"], f"{level:.0%} CI of the measurement", 6)


def beyond(results, d_k, magnitude, level=0.99):
    """P(|q·k| > magnitude) with a Wilson interval; magnitude 20 or 40."""
    row = sweep_row(results, d_k)
    z = level_z(level)
    p, lo, hi = wilson_interval(row[f"beyond_{magnitude}"], row["n"], z)
    other = 40 if magnitude == 20 else 20
    p_other = row[f"beyond_{other}"] / row["n"]
    return Measurement(p, lo, hi, row["n"], f"{level:.0%} Wilson interval", 3,
                       ((f"P(|q·k| > {other})", p_other),))


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


def root(results, d_k, times=1):
    """times·√d_k, exact arithmetic (no sampling)."""
    return Measurement(times * math.sqrt(d_k), method=f"{times}·√d_k" if times != 1 else "√d_k", digits=4)


def scaled_from_printed(results, d_k, unscaled):
    """The document's own unscaled variance divided by d_k, with both printed roundings."""
    u = float(unscaled)
    digits = len(unscaled.split(".")[1]) if "." in unscaled else 0
    half = 0.5 * 10 ** -digits
    return Measurement(u / d_k, (u - half) / d_k - 0.00005, (u + half) / d_k + 0.00005, None,
                       "the document's own unscaled value divided by d_k, with both roundings", 5)


def range_max(results, d, level=0.99):
    """Largest |q·k| among 002's 1,000 pairs: this run, and the central range over repeats."""
    rows = {r["d"]: r for r in results["ranges"]}
    if d not in rows:
        raise MeasureUnavailable(f"d = {d} is not one of 002's dimensions {DOC_RANGE_DIMS}")
    row = rows[d]
    lo, hi = quantile_range(row["max_abs"], level)
    return Measurement(max(-row["first_min"], row["first_max"]), lo, hi, len(row["max_abs"]),
                       f"central {level:.0%} of max|q·k| over {len(row['max_abs'])} repeats of 1 000 pairs", 1,
                       (("this run's min", row["first_min"]), ("max", row["first_max"])))


def proportional_misses(results, level=0.99):
    """How many of 002's dimensions have Var/d's interval (mean over repeats) excluding 1."""
    z = level_z(level)
    misses, detail = 0, []
    for row in results["ranges"]:
        _, lo, hi = mean_interval(row["variances"], z)
        mean = float(np.mean(row["variances"]))
        misses += not (lo / row["d"] <= 1 <= hi / row["d"])
        detail.append((f"Var/d at d = {row['d']}", mean / row["d"], 4))
    return Measurement(float(misses), n=len(results["ranges"]), method=f"{level:.0%} t-intervals of Var/d",
                       digits=0, detail=tuple(detail))


def init_component_var(results, init, d_model, d_k, level=0.99):
    """Var(q_i) of q = W_q x under one initialization, mean over weight draws."""
    for row in results["init"]:
        if (row["init"], row["d_model"], row["d_k"]) == (init, d_model, d_k):
            m, lo, hi = mean_interval(row["comp"], level_z(level))
            return Measurement(m, lo, hi, len(row["comp"]),
                               f"{level:.0%} interval over {len(row['comp'])} weight draws", 3,
                               (("closed form", INITS[init][1](d_model, d_k)),))
    raise MeasureUnavailable(f"no {init} draw at d_model = {d_model}, d_k = {d_k}")


def demo_var(results, demo, scaled=False, level=0.99):
    """Raw (or /d_k) score variance one run of a small demo prints, and where 99% of runs land."""
    names = [name for name, _ in DOC_DEMOS]
    row = results["demos"][names.index(demo)]
    d_k = row["shape"][-1]
    raw = np.asarray(row["raw_vars"]) / (d_k if scaled else 1)
    lo, hi = quantile_range(raw, level)
    return Measurement(float(raw[0]), lo, hi, raw.size,
                       f"central {level:.0%} of this statistic over {raw.size} repeats at shape {tuple(row['shape'])}",
                       3 if scaled else 2, (("mean over repeats", float(raw.mean())),))


MEASURES = {
    "var_qk": var_qk,
    "std_qk": std_qk,
    "kurtosis_qk": kurtosis_qk,
    "var_unit": var_unit,
    "beyond": beyond,
    "sample_var": sample_var,
    "root": root,
    "scaled_from_printed": scaled_from_printed,
    "range_max": range_max,
    "proportional_misses": proportional_misses,
    "init_component_var": init_component_var,
    "demo_var": demo_var,
}
