"""What a family publishes: named measurements as numbers, never as text.

A family's `measures` role maps a measure name to a function `f(results, **args)`
that returns a `Measurement` computed from the run's results alone. Claims name
the measure and its arguments (reportgen/claims/NNN.toml); the judge compares.
"""

import inspect
import math
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Measurement:
    """One measured quantity: a value, its interval when it has one, and how it was obtained."""

    value: Any  # float, or a tuple of floats for a vector or matrix compared entry-wise
    lo: float | None = None  # interval the value is known to lie in (a confidence or sampling range)
    hi: float | None = None
    n: int | None = None  # samples, repeats or draws behind the value; None for exact arithmetic
    method: str = ""  # how value and interval were obtained, e.g. "99% CI, kurtosis-corrected"
    digits: int = 3  # decimals worth showing
    detail: tuple = field(default=())  # (label, number[, digits]) shown beside the value
    # Other readings an exact claim may match, (label, value) each: where a document's
    # convention is ambiguous (E·W or W·E), either reading is arithmetic it could mean.
    alternatives: tuple = field(default=())
    # Other statistics of the same quantity, (label, number) each, judged against the same
    # threshold: a qualitative word read by the mean may read otherwise by the median.
    views: tuple = field(default=())
    # Confidence level of [lo, hi] when it is a confidence interval (0.99), else None: the
    # report labels every interval with it.
    level: float | None = None
    # What [lo, hi] is: "CI" (a confidence interval of the quantity) or "of runs" (where that
    # share of repeated runs lands: a prediction range of one run's printout).
    interval: str = "CI"
    # Why this evidence cannot decide any statement, whatever its numbers ('' when it can): a
    # training comparison between models that did not learn (reportgen.experiments.lm.baselines).
    undecided: str = ""

    def to_json(self):
        value = list(self.value) if isinstance(self.value, (tuple, list)) else self.value
        return {
            "value": value,
            "lo": self.lo,
            "hi": self.hi,
            "n": self.n,
            "level": self.level,
            "interval": self.interval,
            "method": self.method,
            "detail": [list(item) for item in self.detail],
            "alternatives": [[label, list(v) if isinstance(v, (tuple, list)) else v] for label, v in self.alternatives],
            "views": [list(view) for view in self.views],
            "undecided": self.undecided,
        }


def level_of(measure, args):
    """The confidence level a measure's interval is computed at: its `level` argument as the
    claim gives it, else the measure's own default for it; None for a measure without one."""
    if "level" in args:
        return float(args["level"])

    try:
        parameter = inspect.signature(measure).parameters.get("level")
    except (TypeError, ValueError):
        return None
    if parameter is None or parameter.default is inspect.Parameter.empty:
        return None
    return float(parameter.default)


class Measures(dict):
    """A family's measures by name: `MEASURES = Measures()`, then `@MEASURES.register` on each
    measure where it is defined, filed under the function's own name (the name claims use).

    `grids`: {(measure, argument): f(profile's params) -> the values it may take}, for an
    argument that names a point the run measured (a d_k of the sweep) or one of a fixed set,
    declared beside the measure with `@MEASURES.grid(d_k=...)` above `@MEASURES.register`; a
    claim is checked against it before any run (reportgen.claims.checks), and `reportgen list
    --measures` prints it."""

    def __init__(self):
        super().__init__()
        self.grids = {}

    def grid(self, **arguments):
        """Declare the values each named argument of the measure below may take."""
        def declare(measure):
            for name, values in arguments.items():
                self.grids[measure.__name__, name] = values if callable(values) else (lambda _, v=tuple(values): v)
            return measure
        return declare

    def register(self, measure):
        assert measure.__name__ not in self, f"measure {measure.__name__} registered twice"
        self[measure.__name__] = measure
        return measure

    def include(self, other):
        """Add the measures registered in another module of the same family (none registered twice)."""
        assert not self.keys() & other.keys(), f"measures registered twice: {sorted(self.keys() & other.keys())}"
        self.update(other)
        self.grids.update(getattr(other, "grids", {}))


class MeasureUnavailable(LookupError):
    """The results of this run do not hold what the measure needs (say why)."""


def same_draws(lo, hi):
    """Whether an interval has zero width: the same draws averaged can differ from each other
    in the last digit, so a width within rounding of the values is zero."""
    return math.isclose(lo, hi, rel_tol=1e-9, abs_tol=1e-12)


def sign_test_draws(level):
    """Draws that must all fall on one side of a threshold to put it outside an interval at
    `level` when no t interval can: identical draws (a rate on a grid, a count, a 'never'),
    whose t interval has zero width, or draws that are not finite. The distribution-free
    interval for a median, from the smallest to the largest of n draws, misses it with
    probability 2 × 0.5ⁿ (a sign test; order statistics): 8 draws at 99%.
    Here, beside Measurement, because the judge uses it and imports no numpy."""
    return math.ceil(math.log((1 - level) / 2) / math.log(0.5))


# --- what a measurement's draws can carry: facts a verdict and its printout both need --------


def finite(x):
    return isinstance(x, (int, float)) and math.isfinite(x)


def has_interval(m):
    return not isinstance(m.value, (tuple, list)) and finite(m.lo) and finite(m.hi)


def why_too_few(m):
    """(n,) or (n, draws needed) when no verdict can rest on a measurement's draws; () when one can.

    Fewer than 3 draws; or draws that all came out the same (a rate on a grid, a count), whose
    t interval has zero width and so claims a certainty the draws do not give. For those the
    distribution-free interval is the one a sign test gives, from the smallest to the largest
    draw (sign_test_draws: 8 draws at 99%). A wide interval wholly
    beyond a threshold decides.
    """
    if isinstance(m.value, (tuple, list)) or not (finite(m.lo) and finite(m.hi)) or not m.n:
        return ()  # no interval: `n` may count what is not a draw (widths, points); the measure says
    if m.n < 3:
        return (m.n,)
    if m.interval == "CI" and m.level and same_draws(m.lo, m.hi) and m.n < sign_test_draws(m.level):
        return (m.n, sign_test_draws(m.level))
    return ()


def too_few(m):
    """An interval from so few draws, or so wide, that the report prints no interval for it."""
    if isinstance(m.value, (tuple, list)) or m.lo is None or m.hi is None:
        return False
    if not (finite(m.lo) and finite(m.hi)):
        return True
    return bool(why_too_few(m)) or (m.lo > 0 and m.hi / m.lo > 1e4)
