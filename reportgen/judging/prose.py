"""Sentences kept as data, with the numbers they name resolved from this run's verdicts.

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
did not judge (`--only`) fills in as "not measured in this build". `resolve` turns a text
into a reportgen.model.Prose: words and a Ref for each number, which rendering prints.
"""

import re

from reportgen.experiments import thresholds
from reportgen.formatting import MATH
from reportgen.experiments.measure import too_few
from reportgen.model import Prose, Ref

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


def resolve(text, judged):
    """`text` as a Prose: its words, and a Ref for each placeholder ({id: Judged}); the numbers are
    printed by reportgen.render.wording at the precision each Ref gives."""
    if not text:
        return Prose()
    if "{" not in text:
        return Prose((text,))
    parts = []
    for is_prose, part in _prose_parts(text):
        if not is_prose:
            parts.append(part)
            continue
        last = 0
        for match in PLACEHOLDER.finditer(part):
            parts += [part[last:match.start()], _ref(judged.get(match.group(1)), match)]
            last = match.end()
        parts.append(part[last:])
    return Prose(tuple(p for p in parts if p != ""))


def claim_texts(claim, verdict, judged):
    """A claim's texts that may name numbers, resolved ({id: Judged}): its correct statement
    (contradicted or partly only), note and boundary, as Judged's fields of those names."""
    correct = claim.correct if verdict in ("contradicted", "partly") else ""
    return {"correct": resolve(correct, judged), "note": resolve(claim.note, judged),
            "boundary": resolve(claim.boundary, judged)}


def _ref(j, match):
    field = match.group(2) or "value"
    if j is None:
        return Ref(field)
    if field == "verdict":
        return Ref(field, j.verdict)
    if field == "threshold":
        return Ref(field, thresholds.value(j.claim.threshold) if j.claim.threshold is not None else None)
    m = j.measurement
    if m is None:
        return Ref(field)
    digits = int(match.group(3)) if match.group(3) else m.digits
    if field == "n":
        return Ref(field, m.n)
    if field == "interval":
        return Ref(field, digits=digits, measurement=m)
    if field == "pct":
        return Ref(field, m.value, int(match.group(3)) if match.group(3) else 0)
    if not match.group(3) and field.startswith("detail"):
        digits = _own_digits(m, field, digits)
    return Ref(field, _pick(m, field), digits)


def _pick(m, field):
    if field == "value":
        return m.value
    if field in ("lo", "hi"):
        return None if too_few(m) else getattr(m, field)  # withheld, as the measured column withholds it
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
