"""Documented value beside measured value, and the rules that give a verdict."""

import math
import re
from dataclasses import asdict, dataclass, replace
from decimal import Decimal

from reportgen.sources import Source

CONFIRMED = "confirmed"
CONTRADICTED = "contradicted"
UNVERIFIABLE = "unverifiable"
VERDICTS = (CONFIRMED, CONTRADICTED, UNVERIFIABLE)


@dataclass(frozen=True)
class Check:
    """One documented number set beside what this run measured."""

    quantity: str  # what is compared, in words
    source: Source
    documented: str  # exactly as the document prints it
    measured: str  # formatted measurement, with its interval where Monte-Carlo
    verdict: str
    tolerance: str  # the rule applied, with its numbers
    rule: str = ""  # exact | interval | threshold | none: which verdict rule gave the verdict
    id: str = ""  # stable claim id "<experiment>.<table>.<quantity>", given by the pipeline

    def to_json(self):
        out = asdict(self)
        out["source"] = str(self.source)
        return out


def claim_id(experiment, table_slug, quantity):
    """Stable, readable id of a check: experiment, table and the quantity in ASCII."""
    words = re.sub(r"[^0-9a-zA-Z]+", "-", quantity).strip("-").lower()
    return f"{experiment}.{table_slug}.{words}"


def with_ids(experiment, tables):
    """The tables with every check's id filled in; repeats within a table get -2, -3, …"""
    out = []
    for table in tables:
        seen, checks = {}, []
        for check in table.checks:
            base = claim_id(experiment, table.slug, check.quantity)
            seen[base] = seen.get(base, 0) + 1
            checks.append(replace(check, id=base if seen[base] == 1 else f"{base}-{seen[base]}"))
        out.append(replace(table, checks=tuple(checks)))
    return out


def fmt(x, digits=2):
    """Format a number at fixed precision; flag NaN and inf instead of hiding them."""
    if x is None:
        return "—"
    if isinstance(x, float) and not math.isfinite(x):
        return f"{x} (non-finite!)"
    return f"{x:,.{digits}f}".replace(",", " ")


def fmt_interval(lo, hi, digits=2):
    return f"[{fmt(lo, digits)}, {fmt(hi, digits)}]"


def printed_digits(text):
    """Decimal places of a number as printed ('45.2' -> 1)."""
    exponent = Decimal(text).as_tuple().exponent
    return max(0, -exponent)


def shown(value, digits):
    """The value with enough decimals that rounding what is shown agrees with rounding the value."""
    target = fmt(value, digits)
    for extra in range(2, 9):
        text = fmt(value, digits + extra)
        if fmt(float(text.replace(" ", "")), digits) == target:
            return text
    return text


def check_exact(quantity, source, documented, value, note=""):
    """Exact arithmetic: confirmed when equal at the document's printed precision.

    The measured value shows enough decimals to see how it rounds (0.946499, not 0.94650);
    `note` says which convention or route produced it, when that matters.
    """
    digits = printed_digits(documented)
    rounded = fmt(value, digits).replace(" ", "")
    ok = Decimal(rounded) == Decimal(documented)
    measured = shown(value, digits)
    return Check(
        quantity,
        source,
        documented,
        f"{measured} ({note})" if note else measured,
        CONFIRMED if ok else CONTRADICTED,
        f"exact arithmetic, compared at the printed {digits} decimal place(s): {rounded}",
        "exact",
    )


def check_within(quantity, source, documented, measured, interval, tolerance, digits=2, value=None):
    """Monte-Carlo: confirmed when the documented value lies inside `interval`.

    `value` is the documented number when its printed form is not one ("d_k").
    """
    lo, hi = interval
    value = float(documented) if value is None else value
    if not (math.isfinite(lo) and math.isfinite(hi)):
        verdict = UNVERIFIABLE
    else:
        verdict = CONFIRMED if lo <= value <= hi else CONTRADICTED
    return Check(
        quantity,
        source,
        documented,
        measured,
        verdict,
        f"{tolerance}: {fmt_interval(lo, hi, digits)}",
        "interval",
    )


def check_threshold(quantity, source, documented, measured, holds, rule):
    """A qualitative statement judged from a named measurement and threshold."""
    return Check(quantity, source, documented, measured, CONFIRMED if holds else CONTRADICTED, rule, "threshold")


def unverifiable(quantity, source, documented, reason):
    """Nothing to compute from: say why."""
    return Check(quantity, source, documented, "—", UNVERIFIABLE, reason, "none")


def verdict_counts(checks):
    """Number of checks per verdict, in the fixed verdict order."""
    counts = {v: 0 for v in VERDICTS}
    for check in checks:
        counts[check.verdict] += 1
    return counts
