"""Paired comparisons over seeds: a difference or a ratio per seed, and its t interval at LEVEL.

Training families pair their seeds (within a seed every variant shares its initialization and
its data), so a comparison between two variants is one number per seed and the seed-to-seed
spread of initialization and data cancels. A statement made of several conditions counts them
(`Conditions`): how many hold on the estimates, and how many surely hold or surely fail once
each condition's interval is taken into account; the judge reads an inconclusive verdict where
those counts straddle the claim's threshold.
"""

import math

import numpy as np

from reportgen.experiments.measure import Measurement, same_draws, sign_test_draws
from reportgen.experiments.stats import LEVEL, Z, mean_interval



ONE_SEED = "one seed has no spread to judge by: it decides nothing"


def paired(values, log=False):
    """(mean, lo, hi) over seeds at LEVEL (Student t), of the values or, for ratios, of their logs
    mapped back; (mean, None, None) when a value is not finite or there is one seed."""
    xs = np.asarray(values, dtype=float)
    if len(xs) < 2 or not np.all(np.isfinite(xs)) or (log and np.any(xs <= 0)):
        return float(np.mean(xs)) if len(xs) else math.nan, None, None
    mean, lo, hi = mean_interval(np.log(xs) if log else xs, Z)
    return tuple(math.exp(x) for x in (mean, lo, hi)) if log else (mean, lo, hi)


def ratios(a, b):
    """Per-seed a / b; inf where b is 0 (the interval is then not finite, and none is shown)."""
    return [x / y if y else math.inf for x, y in zip(a, b)]


def seeds_to_decide(values, threshold, log=False):
    """Seeds whose t interval would clear `threshold` at the observed spread (the 1/√n law); None if none would."""
    xs = np.asarray(values, dtype=float)
    if len(xs) < 2 or not np.all(np.isfinite(xs)) or (log and (np.any(xs <= 0) or threshold <= 0)):
        return None
    xs, threshold = (np.log(xs), math.log(threshold)) if log else (xs, threshold)
    gap, sd = abs(float(xs.mean()) - threshold), float(xs.std(ddof=1))
    if gap == 0:
        return None
    return max(len(xs), math.ceil((Z * sd / gap) ** 2))


class Conditions:
    """Conditions of a statement, each a paired interval against its cut: how many hold, sure and maybe."""

    def __init__(self):
        self.rows = []  # (label, point holds, surely holds, surely fails, seeds to decide, seeds)

    def add(self, label, values, cut, log=False, above=True):
        """A condition on per-seed values against `cut`. It is sure to hold (or to fail) when its
        t interval lies on one side; where there is none to judge by (one seed, a value not
        finite such as a 'never', seeds that all came out the same), when every seed lies on
        that side and there are enough of them for a sign test (measure.sign_test_draws)."""
        mean, lo, hi = paired(values, log)
        holds = (lambda x: x >= cut) if above else (lambda x: x <= cut)
        if lo is None or same_draws(lo, hi):
            enough = len(values) >= sign_test_draws(LEVEL)
            sure = enough and all(holds(v) for v in values)
            fails = enough and not any(holds(v) for v in values)
            need = None if sure or fails or len({holds(v) for v in values}) > 1 else sign_test_draws(LEVEL)
        else:
            sure, fails = holds(lo) and holds(hi), not holds(lo) and not holds(hi)
            need = None if sure or fails else seeds_to_decide(values, cut, log)
        self.rows.append((label, holds(mean), sure, fails, need, len(values)))
        return mean

    def fixed(self, label, holds):
        self.rows.append((label, bool(holds), bool(holds), not holds, None, math.inf))

    def misses(self):
        """(point, fewest, most): conditions that fail, on the estimates and within the intervals."""
        return (float(sum(not r[1] for r in self.rows)), float(sum(r[3] for r in self.rows)),
                float(sum(not r[2] for r in self.rows)))

    def signs(self):
        """(point, fewest, most): conditions that hold."""
        return (float(sum(r[1] for r in self.rows)), float(sum(r[2] for r in self.rows)),
                float(sum(not r[3] for r in self.rows)))

    def open_text(self):
        """'; open: label (≈N seeds decide)' for each condition the seeds cannot decide."""
        def why(row):
            if row[5] < 2:
                return ONE_SEED
            return f"about {row[4]} seeds would decide" if row[4] else "no seed count would: no difference"

        out = [f"{r[0]} ({why(r)})" for r in self.rows if not r[2] and not r[3]]
        return ("; undecided at this many seeds: " + "; ".join(out)) if out else ""


def count_measurement(conditions, n, method, detail=(), undecided="", misses=True):
    value, lo, hi = conditions.misses() if misses else conditions.signs()
    lo, hi = (None, None) if lo == hi else (lo, hi)  # every condition decided: no range to show
    return Measurement(value, lo, hi, n, method=method + conditions.open_text(), digits=0, detail=tuple(detail),
                       level=LEVEL if lo is not None else None, undecided=undecided)


def ratio_measurement(values, method, digits=2, detail=(), undecided="", log=True, pairs=True, bounds=None):
    """A Measurement of per-seed values (differences, ratios, or one variant's numbers when not `pairs`).

    `bounds`: (lowest, highest) the quantity can take (an accuracy or a share: (0, 1)); the t interval
    is cut to them, which keeps its coverage and never prints an accuracy above 100%."""
    mean, lo, hi = paired(values, log)
    if bounds is not None and lo is not None:
        lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
    return Measurement(mean, lo, hi, len(values), method=method + f", {'paired ' if pairs else ''}over {len(values)} seeds, "
                       f"{LEVEL:.0%} t interval" + (" of the log ratio" if log else ""), digits=digits,
                       detail=tuple(detail), level=LEVEL if lo is not None else None,
                       undecided=undecided or (ONE_SEED if len(values) < 2 else ""))
