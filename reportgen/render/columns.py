"""Column widths for the print tables, from their cells as printed.

The PDFs lay their data tables out with `table-layout: fixed` (print.css): WeasyPrint's automatic
layout measures every cell first and made report.pdf 60% slower. Fixed layout without widths
gives every column the same share, so a column of `scaled_dot_product_attention` wrapped in the
middle of the name while a column of `cpu` stood half empty, and a table of one-line rows took
two lines a row. The widths here follow CSS's automatic algorithm on character counts instead
of measured text: each column gets its longest word, then the rest of the line in proportion to
what its longest cell still lacks (CSS 2.1 §17.5.2.2, with characters for lengths).
"""

import re

from reportgen.render.cells import text as cell_text
from reportgen.render.mathtex import plain

LINE = 110  # characters of table text in the PDFs' text width (17 cm at 7.6 pt)
PADDING = 2  # a cell's padding, in characters
LEAST_SHARE = 3.0  # percent: a column the others crowd still shows a few characters
# Where a line may break: whitespace, but not the no-break spaces inside a number (12 345 678)
BREAKS = re.compile(r"[^\S\u00a0\u2007\u202f]+")


def widths(columns, rows):
    """Each column's share of the table's width, in percent (one decimal, at least LEAST_SHARE
    where there is room), summing to 100; [] for a table without columns.

    A word longer than half a line counts as half a line: the cell breaks it anyway
    (print.css: overflow-wrap), and it must not starve the other columns.
    """
    if not columns:
        return []
    cells = [[plain(cell_text(cell)) for cell in row] for row in rows]  # as printed (reportgen.render.cells)
    shortest, longest = [], []
    for index, header in enumerate(columns):
        texts = [row[index] for row in cells if index < len(row)]
        words = [len(word) for text in [plain(cell_text(header)), *texts] for word in BREAKS.split(text)]
        least = min(max(words, default=1), LINE // 2) + PADDING
        shortest.append(least)
        longest.append(min(max([least, *(len(text) + PADDING for text in texts)]), 4 * LINE))
    if sum(longest) <= LINE:
        chosen = longest
    elif sum(shortest) >= LINE:
        chosen = shortest
    else:
        spare, wanted = LINE - sum(shortest), sum(longest) - sum(shortest)
        chosen = [least + spare * (most - least) / wanted for least, most in zip(shortest, longest)]
    floor = min(LEAST_SHARE, 100 / len(chosen))
    shares = [100 * width / sum(chosen) for width in chosen]
    raised = [max(share, floor) for share in shares]
    excess, room = sum(raised) - 100, sum(share - floor for share in raised)
    shares = [share - (share - floor) * excess / room if room else 100 / len(raised) for share in raised]
    rounded = [round(share, 1) for share in shares]
    largest = rounded.index(max(rounded))  # the rounding's remainder goes where it shows least
    rounded[largest] = round(100 - sum(rounded) + rounded[largest], 1)
    return rounded
