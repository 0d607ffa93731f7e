"""Table cells keep their numbers until the template formats them (reportgen.experiments.cells,
reportgen.render.cells): the formatter prints what the report printed, results.json keeps numbers,
and no family's data table holds a number already turned into text."""

import ast
import json
import math
import re
from pathlib import Path

import pytest

import reportgen
from reportgen.experiments import EXPERIMENTS
from reportgen.experiments.cells import (Interval, Num, Phrase, Vector, change, from_json, is_cell, row_json,
                                        table_json, to_json, vector)
from reportgen.experiments.family import Table
from reportgen.render.cells import text, texts
from reportgen.render.columns import widths

# (cell, the text the report prints for it): each form some family's table uses.
KNOWN = [
    (64, "64"),
    ("never", "never"),
    (Num(0.98047829, 3), "0.980"),
    (Num(12345.678, 2), "12 345.68"),
    (Num(None, 3), "—"),
    (Num(math.nan, 2), "nan (non-finite!)"),
    (Num(20000, 0, "count"), "20 000"),
    (Num(0.5, 0, "plain"), "0.5"),
    (Num(0.0021544, 2, "sig"), "0.0022"),
    (Num(2.384185791015625e-07, 2, "sig"), "2.4e-07"),
    (Num(1000.0, 6, "sig"), "1000"),
    (Num(0.0003, 0, "sci"), "3e-4"),
    (Num(0.01, 0, "sci"), "1e-2"),
    (Num(0.000284, 2, "percent"), "0.03%"),
    (Num(0.8567, 0, "percent"), "86%"),
    (Interval(0.98047829, 0.86752896, 1.09342761, 3), "0.980 [0.868, 1.093]"),
    (Interval(None, 52.1, 77.25, 2), "[52.10, 77.25]"),
    (Interval(1.1876548, 1.1341846, 1.2411250, 3, "pm"), "1.188 ± 0.053"),
    (Interval(0.9551, 0.9502, 0.9598, 2, "percent"), "95.51% [95.02, 95.98]"),
    (vector([0.25, 0.75], 4), "[0.2500, 0.7500]"),
    (vector([1, 1, 10, 64], sep="×", brackets=""), "1×1×10×64"),
    (Vector((vector([5, 4]), vector([2, 3]))), "[[5, 4], [2, 3]]"),
    (change(Num(2.3026, 2), Num(0.0123, 2, "sig")), "2.30 → 0.012"),
    (Phrase("d_model = {}, d_k = {}", (512, 64)), "d_model = 512, d_k = 64"),
    (Phrase("{} ({})", (Interval(2.5019, 2.4211, 2.5827, 3, "pm"), Num(0.90237, 0, "percent"))),
     "2.502 ± 0.081 (90%)"),
    (Phrase("{} / {} of {}", (0, 3, 8)), "0 / 3 of 8"),
    (Phrase("÷ {}", ("√3",)), "÷ √3"),
]


@pytest.mark.parametrize("cell, printed", KNOWN, ids=[p for _, p in KNOWN])
def test_formatter_prints_the_known_texts(cell, printed):
    assert is_cell(cell)
    assert text(cell) == printed


@pytest.mark.parametrize("cell, printed", KNOWN, ids=[p for _, p in KNOWN])
def test_a_stored_cell_prints_the_same(cell, printed):
    """results.json keeps enough to print the cell again: from_json(to_json(cell)) prints the same."""
    stored = json.loads(json.dumps(to_json(cell), allow_nan=False))
    assert text(from_json(stored)) == printed


def test_what_is_not_a_cell_is_refused():
    """A float, a bool or a numpy scalar carries no precision: the table must say how to print it."""
    for value in (0.5, True, None, [1, 2], Vector((0.5,)), Phrase("{}", (1.5,))):
        assert not is_cell(value), value
    with pytest.raises(TypeError):
        text(0.5)
    with pytest.raises(TypeError):
        to_json(0.5)


def test_results_json_keeps_numbers():
    """Each cell is stored as a number, or an object with its value, precision and style; strict JSON."""
    row = (64, "scaled", Num(0.98, 3), Num(3, 0, "plain"), Num(math.inf, 2),
           Interval(1.0, 0.9, 1.1, 3, "pm"), vector([1, 2]), Phrase("{} of {}", (2, Num(3.5, 1))),
           vector([4, 8], sep=" / ", brackets=""))
    assert row_json(row) == [
        64, "scaled", {"value": 0.98, "digits": 3, "style": "fixed"}, 3,
        {"value": "inf", "digits": 2, "style": "fixed"},
        {"value": 1.0, "lo": 0.9, "hi": 1.1, "digits": 3, "style": "pm"}, [1, 2],
        {"text": "{} of {}", "values": [2, {"value": 3.5, "digits": 1, "style": "fixed"}]},
        {"values": [4, 8], "sep": " / ", "brackets": ""},
    ]
    json.dumps(row_json(row), allow_nan=False)


def test_a_table_in_results_json():
    """A table's headings are cells too ("n = 64" keeps its 64)."""
    table = Table("t", "T", "C", ("d_k", Phrase("n = {}", (64,))), ((8, Num(0.5, 3)),))
    assert table_json(table) == {"slug": "t", "title": "T", "columns": ["d_k", {"text": "n = {}", "values": [64]}],
                                 "rows": [[8, {"value": 0.5, "digits": 3, "style": "fixed"}]]}


def test_column_widths_measure_the_printed_text():
    columns = ("d_k", Phrase("n = {}", (64,)), "scores")
    rows = [(1, Interval(0.98, 0.87, 1.09, 3), "unscaled"), (1024, Interval(1020.5, 990.25, 1051.0, 3), "scaled")]
    assert widths(columns, rows) == widths(texts([columns])[0], texts(rows))


# --- every family's data tables, on the quick build's results -----------------------------------

# A digit that starts a token ("0.98", "3.11.7", "√3"); one inside a word ("float16", "base64") is a name.
NUMBER = re.compile(r"(?<!\w)\d")


def _leaves(cell):
    """The strings of a cell: its words, a Phrase's template and the words among its values."""
    if isinstance(cell, str):
        yield cell
    elif isinstance(cell, Vector):
        for value in cell.values:
            yield from _leaves(value)
    elif isinstance(cell, Phrase):
        yield cell.template
        for value in cell.values:
            yield from _leaves(value)


def _typed(package):
    """Every string literal of a family's package and the shared experiments modules: text typed by hand."""
    root = Path(reportgen.__file__).parent / "experiments"
    folder = root / package.rsplit(".", 1)[-1]
    out = set()
    for path in [*folder.glob("*.py"), *root.glob("*.py")]:
        out |= {n.value for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Constant)
                and isinstance(n.value, str)}
    return out


def _strings(value):
    """Every string of a results object, keys included: names and versions a run recorded."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_no_table_cell_holds_a_formatted_number(name, quick_build):
    """Every cell and heading of every data table is a cell type, and no string in one holds a
    number the code computed: a string with a number in it is a literal of the family's code (a
    label such as "QK^T of Step 3") or a string of its results (a Python version, a hash)."""
    results = quick_build.results["experiments"][name]["results"]
    typed, recorded = _typed(EXPERIMENTS[name].package), set(_strings(results))
    tables = [t for t in EXPERIMENTS[name].tables(results) if isinstance(t, Table)]
    stored = {t["slug"]: t for t in quick_build.results["experiments"][name]["tables"]}
    assert tables
    found = []
    for table in tables:
        again = stored[table.slug]  # read back from results.json, each cell prints as it did
        assert [text(from_json(c)) for c in again["columns"]] == [text(c) for c in table.columns], table.slug
        assert [[text(from_json(c)) for c in row] for row in again["rows"]] == texts(table.rows), table.slug
        assert all(len(row) == len(table.columns) for row in table.rows), table.slug
        for cell in [*table.columns, *(cell for row in table.rows for cell in row)]:
            assert is_cell(cell), (table.slug, cell)
            found += [(table.slug, s) for s in _leaves(cell) if NUMBER.search(s) and s not in typed and s not in recorded]
    assert found == []
