"""Table cells that keep their numbers: what a family's data tables hold until a template formats them.

A cell of a `Table` row, or a column heading, is one of:

  str       words only ("never", a variant's name, a dtype): it holds no computed number
  int       an exact integer printed as it is (a d_k, a sequence length)
  Num       a number with its precision and style: fixed decimals, a count, a percentage, …
  Interval  an estimate with its confidence interval ("16.0 [15.5, 16.4]", "0.91 ± 0.02"),
            or an interval alone
  Vector    cells in a list: "[0.25, 0.75]", "2×4×16"
  Phrase    words around cells: "d_model = {}, d_k = {}" with the numbers kept

reportgen.render.cells prints each as the report shows it; `to_json` is results.json's form and
`from_json` reads it back. Nothing here formats: a cell is data, and one formatter, at the edge,
makes it text.
"""

import math
import numbers
from dataclasses import dataclass

# How a Num prints (reportgen.render.cells.number):
#   fixed    `digits` decimals, groups of three split by a space: 20 000.50 (reportgen.formatting.fmt)
#   count    an integer in groups of three: 20 000 (digits unused)
#   plain    as Python prints it: 64, 0.5 (digits unused)
#   sig      `digits` significant digits, exponent when needed: 0.0023, 1.2e+03
#   sci      one exponent form, `digits` decimals before it, no leading zero in it: 3e-4
#   percent  a share as a percentage with `digits` decimals: 0.1234 -> 12.34%
STYLES = ("fixed", "count", "plain", "sig", "sci", "percent")
# How an Interval prints: "bracket" the estimate and [lo, hi]; "pm" the estimate ± the upper
# half-width; "percent" shares as percentages, the estimate with its % sign, then [lo, hi].
INTERVAL_STYLES = ("bracket", "pm", "percent")


@dataclass(frozen=True)
class Num:
    """A number, its precision and its style (STYLES); None is a value not there ("—")."""

    value: object  # int, float or None
    digits: int = 2
    style: str = "fixed"

    def __post_init__(self):
        assert self.style in STYLES, self.style


@dataclass(frozen=True)
class Interval:
    """An estimate with its interval [lo, hi] at `digits` decimals; value None: the interval alone."""

    value: object  # float or None
    lo: float
    hi: float
    digits: int = 3
    style: str = "bracket"

    def __post_init__(self):
        assert self.style in INTERVAL_STYLES, self.style
        assert self.value is not None or self.style == "bracket", "an interval alone is bracketed"


@dataclass(frozen=True)
class Vector:
    """Cells in a row: joined by `sep`, inside `brackets` (two characters, or "" for none)."""

    values: tuple
    sep: str = ", "
    brackets: str = "[]"

    def __post_init__(self):
        assert len(self.brackets) in (0, 2), self.brackets


@dataclass(frozen=True)
class Phrase:
    """Words with a {} where each of `values` (cells) goes: a row label computed from parameters."""

    template: str
    values: tuple

    def __post_init__(self):
        assert self.template.count("{}") == len(self.values), (self.template, self.values)


def vector(values, digits=None, style="fixed", sep=", ", brackets="[]"):
    """A Vector of numbers at one precision; without `digits`, each as Python prints it."""
    return Vector(tuple(Num(v, 0, "plain") if digits is None else Num(v, digits, style) for v in values),
                  sep, brackets)


def change(before, after):
    """Two cells of one quantity, at the start and at the end: "2.30 → 0.012"."""
    return Vector((before, after), " → ", "")


def is_cell(value):
    """Whether `value` is a cell a data table may hold."""
    if isinstance(value, (Num, Interval, str)) or type(value) is int:
        return True
    if isinstance(value, Vector):
        return all(is_cell(v) for v in value.values)
    if isinstance(value, Phrase):
        return all(is_cell(v) for v in value.values)
    return False


def _number(x):
    """A number as strict JSON holds it (a numpy scalar as Python's): NaN and infinities as their names."""
    if x is None or isinstance(x, bool):
        return x
    if isinstance(x, numbers.Integral):
        return int(x)
    return float(x) if math.isfinite(x) else str(float(x))


def _read_number(x):
    """A number as to_json stored it ("nan", "inf" and "-inf" back to floats)."""
    return float(x) if isinstance(x, str) else x


def to_json(cell):
    """One cell as results.json stores it:

    - a string: words
    - a JSON number: an int, or a Num printed as Python prints it
    - {"value", "digits", "style"}: a Num (value null: none there, "nan"/"inf": non-finite)
    - {"value", "lo", "hi", "digits", "style"}: an Interval
    - a list: a Vector of cells printed "[a, b]"; {"values", "sep", "brackets"} one printed otherwise
    - {"text", "values"}: a Phrase, its words with {} where each value goes
    """
    if isinstance(cell, str) or type(cell) is int:
        return cell
    if isinstance(cell, Num):
        if cell.style == "plain":
            return _number(cell.value)
        return {"value": _number(cell.value), "digits": cell.digits, "style": cell.style}
    if isinstance(cell, Interval):
        return {"value": _number(cell.value), "lo": _number(cell.lo), "hi": _number(cell.hi),
                "digits": cell.digits, "style": cell.style}
    if isinstance(cell, Vector):
        values = [to_json(v) for v in cell.values]
        return values if (cell.sep, cell.brackets) == (", ", "[]") else \
            {"values": values, "sep": cell.sep, "brackets": cell.brackets}
    if isinstance(cell, Phrase):
        return {"text": cell.template, "values": [to_json(v) for v in cell.values]}
    raise TypeError(f"not a table cell: {cell!r}")


def from_json(value):
    """The cell to_json stored: what a renderer of a saved results.json prints again."""
    if isinstance(value, str) or type(value) is int:
        return value
    if isinstance(value, float):
        return Num(value, 0, "plain")
    if isinstance(value, list):
        return Vector(tuple(from_json(v) for v in value))
    if isinstance(value, dict) and "text" in value:
        return Phrase(value["text"], tuple(from_json(v) for v in value["values"]))
    if isinstance(value, dict) and "sep" in value:
        return Vector(tuple(from_json(v) for v in value["values"]), value["sep"], value["brackets"])
    if isinstance(value, dict) and "lo" in value:
        return Interval(_read_number(value["value"]), _read_number(value["lo"]), _read_number(value["hi"]),
                        value["digits"], value["style"])
    if isinstance(value, dict) and "style" in value:
        return Num(_read_number(value["value"]), value["digits"], value["style"])
    raise ValueError(f"not a stored table cell: {value!r}")


def row_json(row):
    """A table row as results.json stores it: one to_json per cell."""
    return [to_json(cell) for cell in row]


def table_json(table):
    """A data table (reportgen.experiments.family.Table) as results.json stores it, cells as numbers."""
    return {"slug": table.slug, "title": table.title, "columns": row_json(table.columns),
            "rows": [row_json(row) for row in table.rows]}
