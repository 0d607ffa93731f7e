"""Variance family, intervals: where each statistic of the d_k sweep lies, from the laws of q·k.

The variance's interval takes its standard error from q·k's excess kurtosis (6/d_k), the unit
vectors' from theirs (−6/(d+2)), and the kurtosis's own from q·k's higher moments. The
measures, the tables and the figures all draw their intervals from here.
"""

import math

from reportgen.experiments.stats import variance_interval


def var_interval(row, z):
    # q·k with N(0,1) components has excess kurtosis 6/d_k.
    return variance_interval(row["var"], row["n"], 6 / row["d_k"], z)


def unit_interval(row, z):
    """Interval for Var(u·v) of uniform unit vectors u, v in R^d.

    One coordinate of a uniform unit vector in R^d has excess kurtosis -6/(d+2). At d = 1
    u·v is ±1, so the sample variance is n/(n−1)·(1 − mean²): a function of the mean whose
    error is −χ²₁/n, one-sided, which the symmetric variance interval covered 97.5% of the
    time at a nominal 99%. There Var = 1 − E[u·v]², and its interval is the image of the
    mean's (mean ± z/√n, the variance of ±1 values being at most 1).
    """
    if row["d_k"] == 1:
        mean, n = row["unit_mean"], row["n"]
        lo, hi = mean - z / math.sqrt(n), mean + z / math.sqrt(n)
        nearest = 0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))
        return 1 - max(lo * lo, hi * hi), 1 - nearest * nearest
    return variance_interval(row["unit_var"], row["n"], -6 / (row["d_k"] + 2), z)


def qk_standardized_moment(d_k, order):
    """E[(q·k)^order]/σ^order for q, k ~ N(0, I_dk), order even: E[|k|^order]·E[z^order]/d_k^(order/2).

    q·k is |k|·z with |k|² ~ χ²_dk: E[|k|^2m] = d_k(d_k + 2)…(d_k + 2m − 2), E[z^2m] = (2m − 1)!!.
    """
    m, value = order // 2, 1.0
    for i in range(m):
        value *= (d_k + 2 * i) * (2 * i + 1) / d_k
    return value


def kurtosis_se(d_k, n):
    """Asymptotic SE of the sample excess kurtosis of n draws of q·k (delta method on m4/m2²).

    n·Var(m4/m2²) → β8 − β4² − 4β4(β6 − β4) + 4β4²(β4 − 1) for a symmetric law with standardized
    moments β (Kendall & Stuart, Advanced Theory of Statistics, vol. 1, §10.5); 24 for a normal.
    """
    b4, b6, b8 = (qk_standardized_moment(d_k, k) for k in (4, 6, 8))
    return math.sqrt((b8 - b4**2 - 4 * b4 * (b6 - b4) + 4 * b4**2 * (b4 - 1)) / n)


def kurtosis_interval(row, z):
    """Interval for the pooled excess kurtosis: a normal interval on the log of m4/m2².

    The SE is the estimator's sampling SE under the model the claims test (q·k with N(0, 1)
    components, excess kurtosis 6/d_k), as var_interval takes the variance's SE from κ = 6/d_k.
    The log scale is where m4/m2² is nearly symmetric: at d_k = 1 its right tail is long.
    The spread of a handful of batch kurtoses is what this replaces: with 10 batches of 400
    pairs their t-interval covered 92% at d_k = 1 (96% with 20 batches of 1 000) against a
    nominal 99%, because a batch kurtosis is skewed and its standard deviation is
    underestimated most often exactly when the pooled value is off.
    """
    b2 = row["kurtosis"] + 3  # m4/m2² > 0
    factor = math.exp(z * kurtosis_se(row["d_k"], row["n"]) / (6 / row["d_k"] + 3))
    return b2 / factor - 3, b2 * factor - 3
