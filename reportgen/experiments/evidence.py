"""When a training comparison may decide a claim: one rule for every training setup.

The language model (lm/sweep.py), the recall toy (training/) and the task battery
(lm/battery_measures.py) each train variants over a grid of learning rates with paired seeds and
compare variants each at its own tuned rate. A comparison decides a claim only when all of these
hold; otherwise its row is inconclusive and names the quantity that fell short, and by how much:

- learned: the reference variant at its tuned rate beats the baseline its setup states by the
  setup's margin (the language model: the bigram table by lm.baselines.GATE_BITS on held-out bytes);
- bracketed: each compared variant's tuned rate lies strictly inside the rate grid, with at least
  MIN_PER_DECADE rates a decade around it: a best rate at the grid's edge may not be the best rate;
- settled: a variant called worse was not still improving when its budget ran out. Still improving:
  over the last LATE_SHARE of its budget its loss fell by at least the gap it ends behind, so one
  more such stretch would close the gap (an accuracy the same way, rising);
- seeds: at least MIN_SEEDS paired seeds, so the per-seed intervals rest on enough draws.

Stability is judged on absolute terms, never relative to a variant's own best: a run diverged when
its held-out loss went non-finite, ended above its initial loss or above the setup's ceiling (the
unigram table: a model that knows less than byte frequencies), or spiked (`spiked`).
"""

import math

MIN_SEEDS = 5
MIN_PER_DECADE = 2  # rates a decade: neighbours at most half a decade (√10 ≈ 3.16×) from the tuned rate
GRID_ROUNDING = 1.1  # a grid written to one digit (0.001, 0.003, 0.01: 3.3×) still counts as two a decade
LATE_SHARE = 0.25  # 'still improving' is read over the last quarter of the budget
# A spike: after warm-up, the held-out loss rises by more than SPIKE_SHARE of the way it had come down
# (from its initial value to its lowest so far) between two evaluations. The measures show the
# shares of diverged runs at the other cuts of SPIKE_CUTS too: the definition's sensitivity.
SPIKE_SHARE = 0.25
SPIKE_CUTS = (0.1, 0.25, 0.5)


def first_reason(*reasons):
    """The first non-empty reason, '' when every condition holds."""
    return next((r for r in reasons if r), "")


def learned_reason(value, baseline, margin, what, baseline_name, unit="bits/byte"):
    """'' when `value` (a loss) lies at least `margin` below `baseline`; else what fell short and by how much."""
    if value is not None and math.isfinite(value) and value <= baseline - margin:
        return ""
    if value is None or not math.isfinite(value):
        return f"{what} has a non-finite loss: it did not learn, so the comparison decides nothing"
    return (f"{what} reaches {value:.3f} {unit}, {value - (baseline - margin):.3f} short of the learning gate "
            f"({margin:g} below {baseline_name}, {baseline:.3f}): the comparison decides nothing at this budget")


def bracket_reason(lrs, tuned, what):
    """'' when `tuned` lies strictly inside the grid with neighbours at most half a decade away; else why not."""
    grid = sorted(lrs)
    if tuned not in grid:
        return f"{what}'s tuned rate {tuned:g} is not on the grid"
    i = grid.index(tuned)
    if i in (0, len(grid) - 1):
        edge = "smallest" if i == 0 else "largest"
        return (f"{what}'s tuned rate is the grid's {edge} ({tuned:.2g}): the grid does not bracket its optimum, "
                "so a rate beyond it may be better")
    widest = max(grid[i + 1] / grid[i], grid[i] / grid[i - 1])
    if widest > 10 ** (1 / MIN_PER_DECADE) * GRID_ROUNDING:
        return (f"{what}'s tuned rate {tuned:.2g} has a neighbour {widest:.2g}× away, more than the "
                f"{MIN_PER_DECADE} rates a decade that locate an optimum")
    return ""


def seeds_reason(n):
    """'' with at least MIN_SEEDS paired seeds; else how many are missing."""
    if n >= MIN_SEEDS:
        return ""
    return f"{n} paired seed{'s' if n != 1 else ''}, under the {MIN_SEEDS} a training verdict rests on"


def late_drop(curve, higher_is_better=False):
    """How far a logged curve improved over the last LATE_SHARE of its points (positive: better)."""
    points = [v for v in curve if v is not None]
    if len(points) < 2:
        return 0.0
    back = max(1, round(LATE_SHARE * (len(points) - 1)))
    drop = points[-1 - back] - points[-1]
    return -drop if higher_is_better else drop


def still_improving(curve, behind, higher_is_better=False):
    """Whether a run that ends `behind` its reference improved by at least that much over its last stretch."""
    return behind > 0 and late_drop(curve, higher_is_better) >= behind


def settled_reason(curves, behind, what, higher_is_better=False, unit="bits/byte"):
    """'' unless the loser (`curves`: its seeds' curves) was still improving enough to close `behind`."""
    drops = [late_drop(c, higher_is_better) for c in curves]
    drop = sum(drops) / len(drops) if drops else 0.0
    if behind > 0 and drop >= behind:
        return (f"{what} was still improving when its budget ran out: {drop:.3g} {unit} over the last "
                f"{LATE_SHARE:.0%} of it, against the {behind:.3g} it ends behind, so a longer budget may close "
                "the gap")
    return ""


def spiked(curve, warm_points=1, share=SPIKE_SHARE):
    """Whether a held-out loss curve rose, after `warm_points` evaluations, by more than `share` of its descent."""
    points = [v for v in curve if v is not None]
    if len(points) < 3:
        return False
    start, low = points[0], points[0]
    for i in range(1, len(points)):
        if i > warm_points and points[i] - points[i - 1] > share * max(start - low, 1e-12):
            return True
        low = min(low, points[i])
    return False


def diverged(curve, ceiling=math.inf, share=SPIKE_SHARE, warm_points=1):
    """Absolute divergence: non-finite, ended above its start or `ceiling`, or spiked after warm-up."""
    if not curve or any(v is None or not math.isfinite(v) for v in curve):
        return True
    if curve[-1] > curve[0] or curve[-1] > ceiling:
        return True
    return spiked(curve, warm_points, share)
