"""Temperature family, measures: named numbers computed from its results, with their intervals."""

import math

import numpy as np

from reportgen.experiments import thresholds
from reportgen.experiments.measure import Measurement, MeasureUnavailable, Measures
from reportgen.experiments.stats import level_z
from reportgen.experiments.temperature.params import (
    SDPA_ATOL,
    SDPA_BALANCED,
    SDPA_REFERENCE,
    SDPA_RTOL,
    SDPA_WEIGHTS,
    SHIFTS,
)

MEASURES = Measures()  # name -> f(results, **args) -> Measurement, each registered below

UNIT_ROUNDOFF = 2.0**-24  # float32 unit roundoff u = eps/2 (IEEE 754 binary32, 24-bit significand)
# What a claim's `impl` argument names in the SDPA comparison.
SDPA_IMPLS = {"reference": SDPA_REFERENCE, "balanced": SDPA_BALANCED, "weights": SDPA_WEIGHTS}


# Helpers shared with tables and figures ------------------------------------------------


def cell_interval(stat, n, z):
    """Mean with a normal interval from streamed moments {'mean', 'var'} of n independent rows."""
    half = z * math.sqrt(stat["var"] / n)
    return stat["mean"], stat["mean"] - half, stat["mean"] + half


def share(cell, z):
    """Mean entropy of a sweep cell as a share of ln n, with its interval."""
    return tuple(v / math.log(cell["n"]) for v in cell_interval(cell["entropy"], cell["rows"], z))


def lengths(results):
    return sorted({c["n"] for c in results["sweep"]["cells"]})


def temperature_of(results, T):
    """The sweep's temperature for a claim's T: a number, or 'lowest' / 'highest'."""
    grid = [c["T"] for c in results["sweep"]["cells"]]
    if T == "lowest":
        return min(grid)
    if T == "highest":
        return max(grid)
    return float(T)


def cells_at(results, t):
    """{n: cell} of the sweep at temperature t (the grid holds t to rounding)."""
    return {c["n"]: c for c in results["sweep"]["cells"] if math.isclose(c["T"], t, rel_tol=1e-9)}


def curve(results, n):
    """The sweep's cells at one n, in order of T."""
    return sorted((c for c in results["sweep"]["cells"] if c["n"] == n), key=lambda c: c["T"])


def cosine_bound(d):
    """Worst-case float32 rounding of a cosine score: two normalizations and a d-term dot product."""
    return (2 * d + 4) * UNIT_ROUNDOFF


def balanced_bound(d):
    """Worst-case float32 difference of the two scalings: two d-term dot products and the scalings."""
    return 2 * (d + 3) * UNIT_ROUNDOFF


# Measures ---------------------------------------------------------------------------------

PICK = {"min": min, "max": max}


def _across_n(results, T, across_n, level, stat):
    """The smallest or largest mean over n at one temperature, with that cell's interval."""
    t = temperature_of(results, T)
    cells = cells_at(results, t)
    if not cells:
        raise MeasureUnavailable(f"T = {t:g} is not on this profile's grid")
    z = level_z(level)
    per_n = {n: stat(cell, z) for n, cell in sorted(cells.items())}
    n = PICK[across_n](per_n, key=lambda k: per_n[k][0])
    m, lo, hi = per_n[n]
    return t, n, m, lo, hi, per_n


@MEASURES.register
def largest_weight(results, T, across_n="min", level=0.99):
    """Mean largest softmax(s/T) weight, the smallest (or largest) over n, with its interval."""
    t, n, m, lo, hi, per_n = _across_n(
        results, T, across_n, level, lambda c, z: cell_interval(c["max_w"], c["rows"], z)
    )
    rows = cells_at(results, t)[n]["rows"]
    return Measurement(m, lo, hi, rows,
                       f"{across_n} over n of the mean at T = {t:g} (n = {n}); {level:.0%} normal interval",
                       3, tuple((f"mean at n = {k}", v[0]) for k, v in per_n.items()))


@MEASURES.register
def entropy_share(results, T, across_n="min", level=0.99):
    """Mean entropy of softmax(s/T) as a share of ln n, the smallest (or largest) over n."""
    t, n, m, lo, hi, per_n = _across_n(results, T, across_n, level, share)
    rows = cells_at(results, t)[n]["rows"]
    return Measurement(m, lo, hi, rows,
                       f"{across_n} over n of mean H / ln n at T = {t:g} (n = {n}); {level:.0%} normal interval",
                       5, tuple((f"mean at n = {k}", v[0]) for k, v in per_n.items()))


@MEASURES.register
def one_hot_violations(results, reach="limit_share"):
    """Departures from 'approaches one-hot as scores grow': steps of the T grid where the mean
    largest weight falls as T falls (scores s/T grow), plus lengths n whose mean largest weight
    at the lowest T stays below the threshold `reach` (a name in reportgen/experiments/thresholds.py)."""
    cut = thresholds.value(reach)
    t_min = temperature_of(results, "lowest")
    falls, short, cold = 0, 0, {}
    for n in lengths(results):
        w = [c["max_w"]["mean"] for c in curve(results, n)]
        falls += sum(a < b for a, b in zip(w, w[1:]))  # in order of T: a at the lower T
        cold[n] = cells_at(results, t_min)[n]["max_w"]["mean"]
        short += cold[n] < cut
    return Measurement(float(falls + short), n=len(cold),
                       method=f"steps where the weight falls as T falls, plus n below {cut:g} at T = {t_min:g}",
                       digits=0,
                       detail=(("falls", falls, 0), (f"n below {cut:g}", short, 0),
                               (f"least mean largest weight at T = {t_min:g}", min(cold.values()), 5)))


@MEASURES.register
def t1_max_diff(results):
    """max |softmax(s/1) − softmax(s)| over every row of the sweep."""
    taus = results["sweep"]["taus"]
    worst = max(r["t1_max_diff"] for r in taus)
    return Measurement(worst, n=sum(r["rows"] for r in taus), method="largest entry-wise difference, float32",
                       digits=3, detail=(("unrounded", f"{worst:.2g}"),))


@MEASURES.register
def shift_max_diff(results):
    """max |softmax(s + c) − softmax(s)| for c in SHIFTS, float64."""
    taus = results["sweep"]["taus"]
    worst = max(r["shift_max_diff"] for r in taus)
    return Measurement(worst, n=sum(r["rows"] for r in taus),
                       method=f"largest entry-wise difference for c in {list(SHIFTS)}, float64", digits=3,
                       detail=(("unrounded", f"{worst:.2g}"),))


@MEASURES.register
def tau_exceptions(results, side):
    """Rows of the sweep where τ = 0.5√d_k is not sharper (side 'below') or 2√d_k not softer
    (side 'above') than √d_k: sharper means lower entropy and a higher largest weight."""
    key = {"below": "sharper", "above": "softer"}[side]
    taus = results["sweep"]["taus"]
    total = sum(r["rows"] for r in taus)
    held = sum(r[key] for r in taus)
    return Measurement(float(total - held), n=total, method=f"rows not {key} than at τ = √d_k, of {total}",
                       digits=0, detail=((f"{key} rows", held, 0),))


@MEASURES.register
def balanced_f32_error(results):
    """Largest |divide-after − balanced| score difference (float32), as a share of the rounding bound."""
    worst, at = 0.0, None
    for r in results["balanced"]:
        ratio = r["f32_after_vs_balanced"] / balanced_bound(r["d_k"])
        if at is None or ratio > worst:
            worst, at = ratio, r["d_k"]
    return Measurement(worst, n=len(results["balanced"]),
                       method="largest difference in units of the bound 2(d_k + 3)u·|q||k|/√d_k, u = 2^−24",
                       digits=3, detail=(("at d_k", at, 0),))


@MEASURES.register
def balanced_f16_no_gain(results):
    """(d_k, pattern) cases where the balanced form overflows float16 at no larger RMS than divide-after."""
    gains = [np.asarray(r[k]["balanced"]) / np.asarray(r[k]["after"])
             for r in results["balanced"] for k in ("aligned", "random")]
    cases = sum(g.size for g in gains)
    return Measurement(float(sum(int((g <= 1).sum()) for g in gains)), n=cases,
                       method=f"cases with r_balanced ≤ r_after, of {cases}", digits=0,
                       detail=(("least r_balanced / r_after", min(float(g.min()) for g in gains), 3),))


@MEASURES.register
def cosine_excess(results):
    """Largest (|cos| − 1) over random and aligned q, k, as a share of the float32 rounding bound."""
    worst = max((max(r["max_abs_cos"], r["max_cos_aligned"]) - 1) / cosine_bound(r["d_k"])
                for r in results["cosine"])
    return Measurement(worst, n=len(results["cosine"]),
                       method="largest |score| − 1 in units of (2d_k + 4)u, u = 2^−24, over every d_k", digits=2)


@MEASURES.register
def cosine_scale_change(results):
    """Largest |cos(1000q, k) − cos(q, k)| as a share of the float32 rounding bound."""
    worst = max(r["scale_invariance"] / cosine_bound(r["d_k"]) for r in results["cosine"])
    return Measurement(worst, n=len(results["cosine"]),
                       method="largest change in units of (2d_k + 4)u, u = 2^−24, over every d_k", digits=2)


@MEASURES.register
def sdpa_tolerance_ratio(results, impl):
    """Largest |Δ| / (atol + rtol·|ref|) of one implementation against torch's SDPA, float32."""
    mine = [r for r in results["sdpa"] if r["impl"] == SDPA_IMPLS[impl]]
    if not mine:
        raise MeasureUnavailable(f"no SDPA comparison of {SDPA_IMPLS[impl]}")
    devices = " and ".join(sorted({r["device"] for r in mine}))
    return Measurement(max(r["tolerance_ratio"] for r in mine), n=len(mine),
                       method=f"{len(mine)} cases on {devices}; torch.testing float32 tolerance "
                       f"{SDPA_ATOL:g} + {SDPA_RTOL:g}·|ref|", digits=3,
                       detail=(("largest |Δ|", f"{max(r['max_abs'] for r in mine):.2g}"),))
