"""Column widths for the print tables, from their text.

The PDFs lay their data tables out with `table-layout: fixed` (print.css): WeasyPrint's automatic
layout measures every cell first and made report.pdf 60% slower. Fixed layout without widths
gives every column the same share, so a column of `scaled_dot_product_attention` wrapped in the
middle of the name while a column of `cpu` stood half empty, and a table of one-line rows took
two lines a row. The widths here follow CSS's automatic algorithm on character counts instead
of measured text: each column gets its longest word, then the rest of the line in proportion to
what its longest cell still lacks (CSS 2.1 §17.5.2.2, with characters for lengths).
"""

from reportgen.render.mathtex import plain

LINE = 110  # characters of table text in the PDFs' text width (17 cm at 7.6 pt)
PADDING = 2  # a cell's padding, in characters


def widths(columns, rows):
    """Each column's share of the table's width, in percent (one decimal), summing to 100."""
    cells = [[plain(str(cell)) for cell in row] for row in rows]
    shortest, longest = [], []
    for index, header in enumerate(columns):
        texts = [row[index] for row in cells if index < len(row)]
        words = [len(word) for text in [plain(str(header)), *texts] for word in text.split()]
        least = max(words, default=1) + PADDING
        shortest.append(least)
        longest.append(max([least, *(len(text) + PADDING for text in texts)]))
    if sum(longest) <= LINE:
        chosen = longest
    elif sum(shortest) >= LINE:
        chosen = shortest
    else:
        spare, wanted = LINE - sum(shortest), sum(longest) - sum(shortest)
        chosen = [least + spare * (most - least) / wanted for least, most in zip(shortest, longest)]
    total = sum(chosen)
    shares = [round(100 * width / total, 1) for width in chosen]
    shares[-1] = round(100 - sum(shares[:-1]), 1)
    return shares
