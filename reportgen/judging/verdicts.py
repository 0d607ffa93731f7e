"""What a verdict is: its five words, a judged claim, and a measurement as a verdict row prints it.

reportgen.judging.judge decides verdicts; this module only names them and carries them (Judged), so
that what reads verdicts (the claims loader, the report, drift, errata) needs no rule.
"""

import math
from dataclasses import dataclass

from reportgen.experiments.measure import Measurement, same_draws, sign_test_draws
from reportgen.formatting import fmt, fmt_interval, parse_printed

CONFIRMED = "confirmed"
PARTLY = "partly"
CONTRADICTED = "contradicted"
INCONCLUSIVE = "inconclusive"
UNVERIFIABLE = "unverifiable"
VERDICTS = (CONFIRMED, PARTLY, CONTRADICTED, INCONCLUSIVE, UNVERIFIABLE)
MINOR, MATERIAL = "minor", "material"


@dataclass(frozen=True)
class Judged:
    """A claim, the measurement it was judged on, and the verdict with its reasons as text."""

    claim: object  # reportgen.claims.Claim
    measurement: Measurement | None
    verdict: str
    measured: str  # the measurement as the report prints it
    tolerance: str  # the rule applied, with its numbers
    sentence: str = ""  # the verdict in one plain sentence
    severity: str | None = None  # contradicted only: material or minor
    setups: tuple = ()  # summary: the Judged of each setup
    correct: str = ""  # contradicted or partly: the correct statement, its numbers filled in (reportgen.judging.prose)
    quote_state: str = "unread"  # whether the quote is in the document's text now (reportgen.judging.documents)

    @property
    def id(self):
        return self.claim.id

    @property
    def documented(self):
        d = self.claim.documented
        return d if isinstance(d, str) else "[" + ", ".join(d) + "]"

    def to_json(self):
        c = self.claim
        return {
            "id": c.id,
            "doc": c.doc,
            "section": c.section,
            "quote": c.quote,
            "label": c.label,
            "kind": c.kind,
            "documented": c.documented,
            "documented_value": documented_value(c),
            "measure": {"name": c.measure, "args": c.args} if c.measure else None,
            "measurement": self.measurement.to_json() if self.measurement else None,
            "measured": self.measured,
            "rule": c.rule,
            "tolerance": self.tolerance,
            "verdict": self.verdict,
            "severity": self.severity,
            "sentence": self.sentence,
            "correct": self.correct,
            "setups": [s.id for s in self.setups],
            "table": c.table,
            "quote_state": self.quote_state,
            "printed_over_true": printed_over_true(c, self.measurement),
        }


def printed_over_true(claim, m):
    """The number a document prints ÷ the measured (or exact) one, where the two differ most
    (entry-wise for a printed vector): how far off the document is, as the Findings say it.
    None when it prints no number, or a pair is 0 or of opposite signs (no ratio means anything)."""
    if m is None or m.value is None:
        return None
    printed = [claim.documented] if isinstance(claim.documented, str) else list(claim.documented)
    values = list(m.value) if isinstance(m.value, (tuple, list)) else [m.value]
    if len(printed) == 1 and len(values) == 1 and claim.value is not None:
        printed = [str(claim.value)]  # a word ("unit variance") with the number it stands for
    if len(printed) != len(values):
        return None
    ratios = []
    for p, v in zip(printed, values):
        number = parse_printed(p)
        if number is None or not isinstance(v, (int, float)) or not math.isfinite(v):
            continue
        if number == 0 or v == 0 or (number > 0) != (v > 0):
            return None
        ratios.append(number / v)
    return max(ratios, key=lambda r: abs(math.log(r)), default=None)


def documented_value(claim):
    """The documented number a rule compares with, or None (printed vectors, words)."""
    if claim.value is not None:
        return claim.value
    if isinstance(claim.documented, str):
        return parse_printed(claim.documented)
    return None


def measured_text(m, digits=None):
    """'1.002 (99% CI [0.95, 1.05]); P(x) = 0.1' from a measurement's numbers.

    A value with an interval is printed to the precision the interval supports (never more
    than the measure's own digits); an interval too wide to mean anything says so.
    """
    digits = m.digits if digits is None else digits
    if isinstance(m.value, (tuple, list)):
        text = "[" + ", ".join(fmt(v, digits) for v in m.value) + "]"
    elif m.value is None:
        text = "—"
    elif too_few(m):
        text = fmt(m.value, digits) + f" ({TOO_FEW})"
    else:
        shown_digits = min(digits, supported_digits(m.hi - m.lo, digits)) if has_interval(m) else digits
        text = fmt(m.value, shown_digits)
        if has_interval(m):
            text += f" ({interval_label(m)}{fmt_interval(m.lo, m.hi, shown_digits)})"
    return text + details_text(m, digits)


TOO_FEW = "too few draws to decide"


def interval_label(m):
    """'99% CI ', '99% of runs in ' or 'range ': what a measurement's [lo, hi] is."""
    if not m.level:
        return "range "
    return f"{m.level:.0%} CI " if m.interval == "CI" else f"{m.level:.0%} of runs in "


def has_interval(m):
    return (not isinstance(m.value, (tuple, list)) and finite(m.lo) and finite(m.hi))


def too_few(m):
    """An interval from so few draws, or so wide, that the report prints no interval for it."""
    if isinstance(m.value, (tuple, list)) or m.lo is None or m.hi is None:
        return False
    if not (finite(m.lo) and finite(m.hi)):
        return True
    return why_too_few(m) is not None or (m.lo > 0 and m.hi / m.lo > 1e4)


def why_too_few(m):
    """Why no verdict can rest on a measurement's draws, in words; None when one can.

    Fewer than 3 draws; or draws that all came out the same (a rate on a grid, a count), whose
    t interval has zero width and so claims a certainty the draws do not give. For those the
    distribution-free interval is the one a sign test gives, from the smallest to the largest
    draw (reportgen.experiments.measure.sign_test_draws: 8 draws at 99%). A wide interval wholly
    beyond a threshold decides.
    """
    if isinstance(m.value, (tuple, list)) or not (finite(m.lo) and finite(m.hi)) or not m.n:
        return None  # no interval: `n` may count what is not a draw (widths, points); the measure says
    if m.n < 3:
        return f"{m.n:g} draw{' is' if m.n == 1 else 's are'} too few to decide"
    if m.interval == "CI" and m.level and same_draws(m.lo, m.hi) and m.n < sign_test_draws(m.level):
        return (f"all {m.n} draws came out the same, and a sign test needs {sign_test_draws(m.level)} "
                f"such draws for a {m.level:.0%} verdict")
    return None


def supported_digits(width, digits):
    """Decimals that show two significant digits of `width` (an interval's width), at most `digits`."""
    if not finite(width) or width <= 0:
        return digits
    return max(0, min(digits, 1 - math.floor(math.log10(abs(width)))))


def details_text(m, digits):
    """'; label = number' for each (label, number[, digits]) of the measurement's detail."""
    out = []
    for label, number, *own in m.detail:
        out.append(f"; {label} = {number if isinstance(number, str) else fmt(number, own[0] if own else digits)}")
    return "".join(out)


def finite(x):
    return isinstance(x, (int, float)) and math.isfinite(x)
