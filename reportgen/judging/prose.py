"""Sentences kept as data, with their numbers filled in from this run's verdicts.

A text of the claims data (a claim's `correct`, `note` or `boundary`, a line of the
findings) never types a measured number: it names it. `{000.sat-peaked-n64}` is that
claim's measured value at the measurement's own precision; a field after a colon picks
another of its numbers, and `|d` sets the decimals:

    {ID}            the value               {ID:lo} {ID:hi}   the ends of its interval
    {ID:interval}   "99% CI 0.80–0.85"      {ID:threshold}    the threshold it was judged by
    {ID:pct}        the value as a percentage ({ID:pct|0} → "87%")
    {ID:n}          the samples behind it   {ID:verdict}      its verdict
    {ID:detail1}    the first number of its detail (detail2, … likewise)
    {ID:view1}      the first of its other statistics (view2, … likewise)

The ids a text names are checked when the claims data loads (`names`); a claim this build
did not judge (`--only`) fills in as "not measured in this build".
"""

import math
import re

from reportgen.formatting import MATH, fmt

# A claim id (reportgen.claims.ID) with a dot in it: `{2}` or `{d}` of a LaTeX span is not one.
CLAIM_ID = r"[0-9a-z][0-9a-z-]*\.[0-9a-z][0-9a-z.-]*?"
PLACEHOLDER = re.compile(rf"\{{({CLAIM_ID})(?::([a-z]+[0-9]*))?(?:\|(\d))?\}}")


def _prose_parts(text):
    """(is prose, part) for the runs of `text` outside and inside its $…$ spans, in order."""
    last = 0
    for m in MATH.finditer(text):
        yield True, text[last:m.start()]
        yield False, m.group(0)
        last = m.end()
    yield True, text[last:]


def _matches(pattern, text):
    return [m for is_prose, part in _prose_parts(text or "") if is_prose for m in pattern.finditer(part)]


FIELDS = ("value", "lo", "hi", "interval", "threshold", "pct", "n", "verdict")
NOT_MEASURED = "(not measured in this build)"


def names(text):
    """The claim ids a text's placeholders name, in order."""
    return [m.group(1) for m in _matches(PLACEHOLDER, text)]


LOOKS_LIKE = re.compile(r"\{[0-9a-z][0-9a-z-]*\.[0-9a-z][^{}\s]*\}")  # what a reader takes for a placeholder


def bad_fields(text):
    """The placeholders of a text whose field is not one this module fills, and what looks like
    one but is none (`{002.range-d3|zz}`: printed as typed, a brace and all)."""
    out = [m.group(0) for m in _matches(LOOKS_LIKE, text) if not PLACEHOLDER.fullmatch(m.group(0))]
    for m in _matches(PLACEHOLDER, text):
        field = m.group(2) or "value"
        if field not in FIELDS and not re.fullmatch(r"(detail|view)[1-9][0-9]?", field):
            out.append(m.group(0))
    return out


def fill(text, judged):
    """`text` with each placeholder replaced by the number it names ({id: Judged})."""
    if not text or "{" not in text:
        return text
    return "".join(PLACEHOLDER.sub(lambda m: _number(judged.get(m.group(1)), m), part) if is_prose else part
                   for is_prose, part in _prose_parts(text))


def _number(j, match):
    if j is None:
        return NOT_MEASURED
    field = match.group(2) or "value"
    if field == "verdict":
        return j.verdict
    if field == "threshold":
        from reportgen.experiments.thresholds import value

        return f"{value(j.claim.threshold):g}" if j.claim.threshold is not None else NOT_MEASURED
    m = j.measurement
    if m is None:
        return NOT_MEASURED
    digits = int(match.group(3)) if match.group(3) else m.digits
    if field == "n":
        return NOT_MEASURED if m.n is None else f"{m.n:,}".replace(",", " ")
    if field == "interval":
        return interval_text(m, digits)
    number = _pick(m, field)
    if not match.group(3) and field.startswith("detail"):
        digits = _own_digits(m, field, digits)
    if not isinstance(number, (int, float)) or not math.isfinite(number):
        return NOT_MEASURED
    if field == "pct":
        return fmt(100 * number, int(match.group(3)) if match.group(3) else 0) + "%"
    return fmt(number, digits)


def _pick(m, field):
    if field in ("value", "pct"):
        return m.value
    if field in ("lo", "hi"):
        from reportgen.judging.verdicts import too_few

        return None if too_few(m) else getattr(m, field)  # withheld, as interval_text withholds it
    found = re.fullmatch(r"(detail|view)([1-9][0-9]?)", field)
    kind, index = found[1], int(found[2]) - 1
    items = m.detail if kind == "detail" else m.views
    # A profile may record fewer of them: the text says the number was not measured (a test
    # checks that a full build of every profile fills each placeholder).
    return items[index][1] if index < len(items) else None


def _own_digits(m, field, digits):
    """The decimals a detail entry gives itself ((label, number, digits)), else `digits`."""
    index = int(field[len("detail"):]) - 1
    item = m.detail[index] if index < len(m.detail) else ()
    return item[2] if len(item) > 2 else digits


def interval_text(m, digits=None):
    """'99% CI 0.80 to 0.85', or the bare range when the measurement does not know its level.

    An interval the measured column withholds (too few draws, or too wide: verdicts.too_few)
    is withheld here too, with the same words: prose never shows a bound a verdict cannot use.
    """
    digits = m.digits if digits is None else digits
    if m.lo is None or m.hi is None:
        return ""
    from reportgen.judging.verdicts import TOO_FEW, interval_label, too_few

    if too_few(m):
        return TOO_FEW
    return f"{interval_label(m)}{fmt(m.lo, digits)} to {fmt(m.hi, digits)}"
