"""The verdict of a claim against a measurement: the only place verdicts are decided.

`judge(claim, measurement)` applies the claim's rule; families publish numbers and
never a verdict. The rules:

- exact: the measured value, rounded to the decimals the document printed, equals the
  printed number (entry-wise for a printed vector or matrix);
- interval: the documented number lies in the measurement's interval [lo, hi];
- at_least / at_most: the measurement's value (or the end of its interval named by
  `bound`) is at least / at most the claim's threshold;
- unverifiable: nothing in this run can decide it; the claim's `reason` says what would.
"""

import math
from dataclasses import dataclass
from decimal import Decimal

from reportgen import thresholds
from reportgen.formatting import fmt, fmt_interval, parse_printed, printed_digits, shown
from reportgen.measure import Measurement

CONFIRMED = "confirmed"
CONTRADICTED = "contradicted"
UNVERIFIABLE = "unverifiable"
VERDICTS = (CONFIRMED, CONTRADICTED, UNVERIFIABLE)


@dataclass(frozen=True)
class Judged:
    """A claim, the measurement it was judged on, and the verdict with its reasons as text."""

    claim: object  # reportgen.claims.Claim
    measurement: Measurement | None
    verdict: str
    measured: str  # the measurement as the report prints it
    tolerance: str  # the rule applied, with its numbers

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
            "table": c.table,
        }


def documented_value(claim):
    """The documented number a rule compares with, or None (printed vectors, words)."""
    if claim.value is not None:
        return claim.value
    if isinstance(claim.documented, str):
        return parse_printed(claim.documented)
    return None


def measured_text(m, digits=None):
    """'1.002 [0.95, 1.05]; P(x) = 0.1' from a measurement's numbers."""
    digits = m.digits if digits is None else digits
    if isinstance(m.value, (tuple, list)):
        text = "[" + ", ".join(fmt(v, digits) for v in m.value) + "]"
    elif m.value is None:
        text = "—"
    else:
        text = fmt(m.value, digits)
    if m.lo is not None and m.hi is not None and not isinstance(m.value, (tuple, list)):
        text += " " + fmt_interval(m.lo, m.hi, digits)
    return text + _details(m, digits)


def _details(m, digits):
    """'; label = number' for each (label, number[, digits]) of the measurement's detail."""
    out = []
    for label, number, *own in m.detail:
        out.append(f"; {label} = {number if isinstance(number, str) else fmt(number, own[0] if own else digits)}")
    return "".join(out)


def _exact(claim, m):
    verdict, measured, rule = _exact_one(claim, m)
    for label, value in m.alternatives:
        if verdict == CONFIRMED:
            break
        other = _exact_one(claim, Measurement(value, method=m.method))
        if other[0] == CONFIRMED:
            return CONFIRMED, f"{other[1]} ({label})", f"{other[2]}; matched by the reading {label}"
    if m.alternatives and verdict != CONFIRMED:
        rule += "; no reading matches (" + ", ".join(label for label, _ in m.alternatives) + " tried too)"
        for label, value in m.alternatives:
            measured += f"; {label}: {measured_text(Measurement(value, digits=m.digits))}"
    return verdict, measured, rule


def _exact_one(claim, m):
    printed = [claim.documented] if isinstance(claim.documented, str) else list(claim.documented)
    values = list(m.value) if isinstance(m.value, (tuple, list)) else [m.value]
    if len(printed) != len(values):
        return UNVERIFIABLE, "—", f"the measure gives {len(values)} numbers for {len(printed)} printed"
    digits = [printed_digits(p.replace("\u2212", "-")) for p in printed]
    rounded = [fmt(v, d).replace(" ", "") for v, d in zip(values, digits)]
    same = [Decimal(r) == Decimal(p.replace("\u2212", "-").replace(",", "")) for r, p in zip(rounded, printed)]
    verdict = CONFIRMED if all(same) else CONTRADICTED
    if len(values) == 1:
        measured = shown(values[0], digits[0]) + _details(m, m.digits)
        rule = f"exact arithmetic, compared at the printed {digits[0]} decimal place(s): {rounded[0]}"
    else:
        measured = "[" + ", ".join(shown(v, d) for v, d in zip(values, digits)) + "]"
        rule = f"exact arithmetic, entry-wise at the printed precision: {sum(same)} of {len(same)} equal"
    if m.method:
        rule += f" ({m.method})"
    return verdict, measured, rule


def _interval(claim, m):
    x = documented_value(claim)
    lo, hi = m.lo, m.hi
    if x is None:
        return UNVERIFIABLE, measured_text(m), "the documented value is not a number"
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return UNVERIFIABLE, measured_text(m), f"{m.method}: no finite interval in this run"
    verdict = CONFIRMED if lo <= x <= hi else CONTRADICTED
    return verdict, measured_text(m), f"{m.method}: {fmt_interval(lo, hi, m.digits)}"


def _threshold(claim, m):
    stat = {"value": m.value, "lo": m.lo, "hi": m.hi}[claim.bound]
    sign = "≥" if claim.rule == "at_least" else "≤"
    said = f"{claim.justification}" if claim.justification else "threshold"
    if stat is None or not math.isfinite(stat):
        return UNVERIFIABLE, measured_text(m), f"{said}: the statistic is not finite in this run"
    threshold = thresholds.value(claim.threshold)
    holds = stat >= threshold if claim.rule == "at_least" else stat <= threshold
    which = "" if claim.bound == "value" else f"{'lower' if claim.bound == 'lo' else 'upper'} bound "
    rule = f"{said} ({which}{fmt(stat, m.digits)} {sign} {threshold:g})"
    return (CONFIRMED if holds else CONTRADICTED), measured_text(m), rule


RULES = {"exact": _exact, "interval": _interval, "at_least": _threshold, "at_most": _threshold}


def judge(claim, measurement):
    """The verdict of one claim on one measurement (None: the measure is unavailable)."""
    if claim.rule == "unverifiable":
        return Judged(claim, None, UNVERIFIABLE, "—", claim.reason)
    if measurement is None:
        return Judged(claim, None, UNVERIFIABLE, "—", "no measurement in this run")
    verdict, measured, tolerance = RULES[claim.rule](claim, measurement)
    return Judged(claim, measurement, verdict, measured, tolerance)


def unavailable(claim, why):
    """A claim whose measure could not be computed from this run's results."""
    return Judged(claim, None, UNVERIFIABLE, "—", f"not measured in this run: {why}")


def verdict_counts(judged):
    """Number of claims per verdict, in the fixed verdict order."""
    counts = {v: 0 for v in VERDICTS}
    for j in judged:
        counts[j.verdict] += 1
    return counts
