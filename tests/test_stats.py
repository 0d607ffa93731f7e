"""reportgen.experiments.stats and reportgen.claims against closed forms and known values."""

import math

import numpy as np
import pytest

from reportgen.experiments import stats
from reportgen.experiments.moments import Moments



# --- variance standard error and interval ---------------------------------------------


@pytest.mark.parametrize("variance, n, kappa", [(1.0, 2, 0.0), (4.0, 101, 0.0), (16.0, 4000, 6 / 16), (2.5, 10, -1.2)])
def test_variance_se_formula(variance, n, kappa):
    """SE(s²) = σ² · sqrt(2/(n−1) + κ/n)."""
    assert stats.variance_se(variance, n, kappa) == pytest.approx(variance * math.sqrt(2 / (n - 1) + kappa / n), rel=1e-12)


def test_variance_se_known_value():
    """σ² = 4, n = 101, κ = 0: SE = 4·sqrt(0.02) = 0.565685…"""
    assert stats.variance_se(4.0, 101, 0.0) == pytest.approx(0.5656854249, rel=1e-9)


@pytest.mark.parametrize("z", [stats.Z95, stats.Z99, 1.0])
def test_variance_interval_is_symmetric(z):
    """variance_interval = variance ± z·SE."""
    se = stats.variance_se(64.0, 4000, 6 / 64)
    lo, hi = stats.variance_interval(64.0, 4000, 6 / 64, z)
    assert (lo, hi) == pytest.approx((64.0 - z * se, 64.0 + z * se), rel=1e-12)


def test_variance_interval_default_is_95():
    """The default z is the two-sided 95% quantile."""
    assert stats.variance_interval(1.0, 50, 0.0) == stats.variance_interval(1.0, 50, 0.0, 1.959963984540054)
    assert stats.Z99 == pytest.approx(2.5758293035489004)


@pytest.mark.parametrize(
    "draw, kappa",
    [(lambda rng, size: rng.standard_normal(size), 0.0), (lambda rng, size: rng.laplace(size=size), 3.0)],
    ids=["normal", "laplace"],
)
def test_variance_se_matches_simulation(draw, kappa):
    """The closed-form SE of s² matches the spread of s² over 20 000 simulated samples (±6%)."""
    rng = np.random.default_rng(1)
    n, reps = 50, 20_000
    samples = draw(rng, (reps, n))
    s2 = samples.var(axis=1, ddof=1)
    true_var = 1.0 if kappa == 0 else 2.0  # Laplace(0, 1) has variance 2
    assert s2.std(ddof=1) == pytest.approx(stats.variance_se(true_var, n, kappa), rel=0.06)


# --- Wilson interval ------------------------------------------------------------------


@pytest.mark.parametrize(
    "k, n, lo, hi",
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718), (8, 10, 0.4902, 0.9433)],
)
def test_wilson_known_values(k, n, lo, hi):
    """Wilson 95% intervals as published (Newcombe 1998, Table I) and the 8/10 textbook case."""
    p, got_lo, got_hi = stats.wilson_interval(k, n)
    assert p == k / n
    assert got_lo == pytest.approx(lo, abs=6e-5)
    assert got_hi == pytest.approx(hi, abs=6e-5)


def test_wilson_extremes_and_symmetry():
    """0/n starts at 0, n/n ends at 1, and k/n mirrors (n−k)/n."""
    assert stats.wilson_interval(0, 20)[1] == pytest.approx(0.0, abs=1e-12)
    assert stats.wilson_interval(20, 20)[2] == pytest.approx(1.0, abs=1e-12)
    _, lo, hi = stats.wilson_interval(3, 17, stats.Z99)
    _, lo2, hi2 = stats.wilson_interval(14, 17, stats.Z99)
    assert (lo, hi) == pytest.approx((1 - hi2, 1 - lo2), abs=1e-12)


def test_wilson_upper_bound_for_zero_successes():
    """For 0/n the upper bound is z²/(n + z²)."""
    z = stats.Z95
    assert stats.wilson_interval(0, 40)[2] == pytest.approx(z * z / (40 + z * z), rel=1e-12)


# --- mean interval and quantile range -------------------------------------------------


def test_mean_interval():
    """mean ± t·s/√n with the sample standard deviation and the Student-t quantile."""
    values = [1.0, 2.0, 4.0, 7.0]
    se = np.std(values, ddof=1) / 2
    t = stats.student_t(stats.Z95, 3)
    mean, lo, hi = stats.mean_interval(values, stats.Z95)
    assert (mean, lo, hi) == pytest.approx((3.5, 3.5 - t * se, 3.5 + t * se))
    assert stats.mean_interval([5.0]) == (5.0, 5.0, 5.0)


@pytest.mark.parametrize(
    "z, df, exact",  # Student-t quantiles from standard tables
    [(stats.Z95, 3, 3.182446), (stats.Z95, 9, 2.262157), (stats.Z95, 29, 2.045230),
     (stats.Z99, 5, 4.032143), (stats.Z99, 19, 2.860935)],
)
def test_student_t_quantile(z, df, exact):
    """The t quantile is the tabulated one (exact for integer df)."""
    assert stats.student_t(z, df) == pytest.approx(exact, rel=1e-6)


def test_quantile_range():
    """The central 90% of 0…100 at positions p·(n + 1): the 5.1st and 96.9th values, 4.1 and 95.9."""
    assert stats.quantile_range(np.arange(101), 0.90) == pytest.approx((4.1, 95.9))


# --- streaming moments ----------------------------------------------------------------


def numpy_moments(x):
    d = x - x.mean()
    m2, m4 = (d**2).mean(), (d**4).mean()
    return x.mean(), x.var(ddof=1), m4 / m2**2 - 3


@pytest.mark.parametrize("shift", [0.0, 3.0])
def test_moments_match_numpy_in_chunks(shift):
    """Moments fed in uneven chunks give numpy's mean, unbiased variance and excess kurtosis."""
    rng = np.random.default_rng(7)
    x = rng.standard_exponential(10_001) * 2.0 + shift
    m = Moments()
    for part in np.split(x, [1, 1000, 7777]):
        m.add(part)
    mean, var, kurt = numpy_moments(x)
    assert m.n == x.size
    assert m.mean == pytest.approx(mean, rel=1e-12)
    assert m.variance == pytest.approx(var, rel=1e-9)
    assert m.excess_kurtosis == pytest.approx(kurt, rel=1e-8)


def test_moments_merged_equals_all_at_once():
    """merged() of two halves equals adding everything to one accumulator (inputs unchanged)."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(500), rng.standard_normal(700) * 3 + 1
    ma, mb, mall = Moments(), Moments(), Moments()
    ma.add(a), mb.add(b), mall.add(np.concatenate([a, b]))
    merged = ma.merged(mb)
    assert merged.n == 1200 and ma.n == 500 and mb.n == 700
    assert merged.variance == pytest.approx(mall.variance, rel=1e-12)
    assert merged.excess_kurtosis == pytest.approx(mall.excess_kurtosis, rel=1e-10)


def test_moments_accept_float32_and_lists():
    """Inputs of any dtype are folded in float64."""
    m = Moments()
    m.add(np.array([1, 2, 3], dtype=np.float32))
    m.add([4.0, 5.0])
    assert (m.mean, m.variance) == (3.0, 2.5)


@pytest.mark.parametrize(
    "draw, kurtosis",
    [
        (lambda rng, n: rng.uniform(-1, 1, n), -1.2),
        (lambda rng, n: rng.standard_normal(n), 0.0),
        (lambda rng, n: rng.laplace(size=n), 3.0),
        (lambda rng, n: rng.standard_normal(n) * rng.standard_normal(n), 6.0),  # a product term q_i k_i
    ],
    ids=["uniform", "normal", "laplace", "normal-product"],
)
def test_moments_kurtosis_closed_forms(draw, kurtosis):
    """Excess kurtosis of large samples is near the distribution's closed form."""
    m = Moments()
    m.add(draw(np.random.default_rng(11), 400_000))
    assert m.excess_kurtosis == pytest.approx(kurtosis, abs=0.15 if kurtosis >= 3 else 0.03)
