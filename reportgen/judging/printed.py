"""How far off a document's printed numbers are from the measured ones (the Findings say it)."""

import math

from reportgen.formatting import parse_printed


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
