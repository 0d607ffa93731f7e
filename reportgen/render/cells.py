"""A data table's cell as the report prints it: the one place a table's numbers become text.

The families' tables hold numbers (reportgen.experiments.cells); the templates print each cell
through `text` (the Jinja filter `cell`), the print tables' column widths measure that text, and
`reportgen run` shows it on a terminal.
"""

from reportgen.experiments.cells import Interval, Num, Phrase, Vector
from reportgen.formatting import fmt, fmt_count, fmt_interval

MISSING = "—"  # a number not there (a run that never got that far)


def number(value, digits, style):
    """One number in one of reportgen.experiments.cells.STYLES."""
    if value is None:
        return MISSING
    if style == "fixed":
        return fmt(value, digits)
    if style == "count":
        return fmt_count(value)
    if style == "plain":
        return str(value)
    if style == "sig":
        return f"{value:.{digits}g}"
    if style == "sci":
        return f"{value:.{digits}e}".replace("e-0", "e-")
    if style == "percent":
        return f"{fmt(100 * value, digits)}%"
    raise ValueError(f"unknown number style {style!r}")


def interval(cell):
    """An Interval in its style: "m [lo, hi]", "m ± h" or "p% [lo, hi]" (percentages)."""
    m, lo, hi, digits = cell.value, cell.lo, cell.hi, cell.digits
    if cell.style == "pm":
        return f"{fmt(m, digits)} ± {fmt(hi - m, digits)}"
    if cell.style == "percent":
        return f"{fmt(100 * m, digits)}% {fmt_interval(100 * lo, 100 * hi, digits)}"
    bracket = fmt_interval(lo, hi, digits)
    return bracket if m is None else f"{fmt(m, digits)} {bracket}"


def text(cell):
    """A table cell as the report prints it (words stay as they are)."""
    if isinstance(cell, str):
        return cell
    if type(cell) is int:
        return str(cell)
    if isinstance(cell, Num):
        return number(cell.value, cell.digits, cell.style)
    if isinstance(cell, Interval):
        return interval(cell)
    if isinstance(cell, Vector):
        inner = cell.sep.join(text(v) for v in cell.values)
        return f"{cell.brackets[:1]}{inner}{cell.brackets[1:]}"
    if isinstance(cell, Phrase):
        pieces = cell.template.split("{}")
        return pieces[0] + "".join(text(v) + after for v, after in zip(cell.values, pieces[1:]))
    raise TypeError(f"not a table cell: {cell!r}")


def texts(rows):
    """Every row's cells as text."""
    return [[text(cell) for cell in row] for row in rows]
