"""Numbers as the report prints them: the one place that turns a float into text."""

import math
import re
from decimal import Decimal, InvalidOperation

# A $…$ span of a text: LaTeX math (a \$ is a dollar sign, in text and in math). The renderer
# typesets it; prose placeholders are never looked for inside it (reportgen.judging.prose).
MATH = re.compile(r"(?<!\\)\$((?:\\.|[^$\\])+)\$")


def fmt(x, digits=2):
    """Format a number at fixed precision; flag NaN and inf instead of hiding them."""
    if x is None:
        return "—"
    if isinstance(x, float) and not math.isfinite(x):
        return f"{x} (non-finite!)"
    return f"{x:,.{digits}f}".replace(",", " ")


def fmt_interval(lo, hi, digits=2):
    """'[lo, hi]' at fixed precision."""
    return f"[{fmt(lo, digits)}, {fmt(hi, digits)}]"


def fmt_count(n):
    """An integer count with thin groups: 20 000."""
    return f"{int(n):,}".replace(",", " ")


def printed_digits(text):
    """Decimal places of a number as printed ('45.2' -> 1)."""
    exponent = Decimal(text).as_tuple().exponent
    return max(0, -exponent)


def parse_printed(text):
    """The float of a number as a document prints it ('−0.5', '1,024'); None when not a number."""
    cleaned = str(text).strip().replace("\u2212", "-").replace(",", "").replace(" ", "")
    try:
        Decimal(cleaned)
    except InvalidOperation:
        return None
    return float(cleaned)


def shown(value, digits):
    """The value with enough decimals that rounding what is shown agrees with rounding the value."""
    target = fmt(value, digits)
    text = target
    for extra in range(0, 9):
        text = fmt(value, digits + extra)
        number = float(text.replace(" ", ""))
        if number == value or extra >= 2 and fmt(number, digits) == target:
            return text  # exact as shown, or enough decimals to see which way it rounds
    return text
