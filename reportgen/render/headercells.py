"""Associate the tagged PDF's table header cells with their data cells (PDF/UA-1 §7.5).

WeasyPrint 70 tags every table but leaves each header cell (TH) without a /Scope: the
HTML's scope attributes do not reach the structure tree, so a screen reader cannot tell
which header belongs to a cell (Matterhorn checkpoint 15-003). This pass reads the scope
of every <th> from the HTML the PDF was rendered from, writes it onto the matching TH as
/Scope, gives every data cell (TD) the /Headers that follow from those scopes (a rowgroup
header heads the rows of its <tbody>, which no /Scope can say), and adds the /IDTree that
resolves the header identifiers. Nothing else in the file changes.

WeasyPrint tags a table once per page it spans, repeating its <thead>; the fragments are
matched to the HTML's tables in order, and a fragment that does not line up with the HTML
row for row is an error rather than a guess.
"""

import io
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from reportgen.errors import ReportgenError

# PDF 1.7 §14.8.5.7, Table attributes: Scope is Row, Column or Both. A rowgroup header is
# a row header for the rows of its group; colgroup likewise for columns.
SCOPES = {"row": "/Row", "rowgroup": "/Row", "col": "/Column", "colgroup": "/Column", "both": "/Both"}
# Structure roles that never hold a table: the walk does not descend into them (most of
# the tree is text spans inside these).
LEAVES = {"/P", "/H1", "/H2", "/H3", "/H4", "/H5", "/H6", "/Span", "/Link", "/Figure", "/Caption",
          "/Lbl", "/TH", "/TD", "/Formula", "/Code", "/Quote"}


@dataclass
class Cell:
    tag: str  # "th" or "td"
    scope: str  # the th's scope attribute, lower case ("" when absent)
    colspan: int


@dataclass
class Table:
    head: list = field(default_factory=list)  # rows of <thead> (repeated on every page)
    body: list = field(default_factory=list)  # (row group number, row) of every other row
    spans_rows: bool = False  # a cell has rowspan > 1: /Headers are left as WeasyPrint wrote them


class _Tables(HTMLParser):
    """Every <table> of a page, in document order, with its rows and cells."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self._open, self._groups = [], [], 0

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append(Table())
            self._open.append([self.tables[-1], None, None])  # table, section, row
        elif not self._open:
            return
        elif tag in ("thead", "tbody", "tfoot"):
            self._groups += 1
            self._open[-1][1] = tag
        elif tag == "tr":
            table, section, _ = self._open[-1]
            if section is None:  # a <tr> straight in <table>: the parser's implicit <tbody>
                self._groups += 1
                section = self._open[-1][1] = "tbody"
            row = self._open[-1][2] = []
            if section == "thead":
                table.head.append(row)
            else:
                table.body.append((self._groups, row))
        elif tag in ("th", "td") and self._open[-1][2] is not None:
            attrs = dict(attrs)
            self._open[-1][2].append(Cell(tag, (attrs.get("scope") or "").lower(), _span(attrs.get("colspan"))))
            self._open[-1][0].spans_rows |= _span(attrs.get("rowspan")) > 1

    def handle_endtag(self, tag):
        if tag == "table" and self._open:
            self._open.pop()
        elif tag in ("thead", "tbody", "tfoot") and self._open:
            self._open[-1][1] = None


def _span(value):
    try:
        return max(1, int(value))
    except (TypeError, ValueError):
        return 1


TABLE = re.compile(r"<table\b.*?</table\s*>", re.S | re.I)


def html_tables(html):
    """The tables of an HTML page, in document order (not nested ones: those would not line up
    with the tagged PDF, which is an error, not a guess)."""
    parser = _Tables()
    for table in TABLE.finditer(html):  # the tables alone: the page's embedded images are megabytes
        parser.feed(table[0])
    parser.close()
    return parser.tables


def _kids(node):
    import pikepdf

    kids = node.get("/K")
    if isinstance(kids, pikepdf.Dictionary):
        kids = [kids]
    if not isinstance(kids, pikepdf.Array):
        return []
    return [k for k in kids if isinstance(k, pikepdf.Dictionary) and "/S" in k]


def _struct_tables(root, ids):
    """The /Table structure elements under root, in document order; ids gets every element
    identifier met on the way."""
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        if "/ID" in node:
            ids[bytes(node.ID)] = node
        role = node.get("/S")
        if role == "/Table":
            out.append(node)
        elif role not in LEAVES:
            stack.extend(reversed(_kids(node)))
    return out


def _fragment_rows(table):
    """(head rows, body rows) of one tagged table fragment; a row is its list of TH/TD elements."""
    head, body = [], []
    for part in _kids(table):
        rows = [part] if part.S == "/TR" else [r for r in _kids(part) if r.S == "/TR"]
        cells = [[c for c in _kids(r) if c.S in ("/TH", "/TD")] for r in rows]
        (head if part.S == "/THead" else body).extend(cells)
    return head, body


def _shape(row):
    return [(c.tag if isinstance(c, Cell) else str(c.S)[1:].lower(),
             c.colspan if isinstance(c, Cell) else int(c.get("/A", {}).get("/ColSpan", 1))) for c in row]


def _fragments(struct_tables, tables, name):
    """Pair each tagged fragment with its HTML table: (fragment, table, head, [(group, html row, row)])."""
    it, table, at = iter(tables), None, 0
    for number, fragment in enumerate(struct_tables, 1):
        head, body = _fragment_rows(fragment)
        if table is None or at >= len(table.body):  # the last table is done: this fragment starts the next
            table, at = next(it, None), 0
        rows = table.body[at:at + len(body)] if table else []
        if (table is None or len(rows) != len(body) or head and len(head) != len(table.head)
                or any(_shape(h) != _shape(p) for h, p in zip(table.head, head))
                or any(_shape(h) != _shape(p) for (_, h), p in zip(rows, body))):
            raise ReportgenError(f"{name}: tagged table {number} does not match the HTML's tables row for "
                                 "row, so its header cells cannot be given their scope (a reportgen bug)")
        at += len(body)
        yield fragment, table, list(zip(table.head, head)), [(g, h, p) for (g, h), p in zip(rows, body)]


def _columns(row):
    """(first column, html cell, pdf cell) of each cell of a (html row, pdf row) pair."""
    j = 0
    for cell, element in zip(*row):
        yield j, cell, element
        j += cell.colspan


def _header(element, ids):
    """The TH's identifier (WeasyPrint gives each one), registered in ids."""
    import pikepdf

    if "/ID" not in element:
        element.ID = pikepdf.String(f"th-{element.objgen[0]}")
    ids[bytes(element.ID)] = element
    return element.ID


def _associate(table, head, body, group_headers, ids):
    """Set /Scope on the fragment's THs and /Headers on its TDs; ids gets the THs' identifiers."""
    import pikepdf

    columns = []  # (first column, columns spanned, id) of the column headers met so far
    rows = [(None, row) for row in head] + [(group, row) for group, *row in body]
    for group, row in rows:
        row_headers = []
        for j, cell, element in _columns(row):
            if cell.tag != "th":
                continue
            scope = cell.scope if cell.scope in SCOPES else "col" if group is None else "row"
            if "/A" not in element:
                element.A = pikepdf.Dictionary(O=pikepdf.Name.Table)
            element.A.Scope = pikepdf.Name(SCOPES[scope])
            key = _header(element, ids)
            if scope in ("col", "colgroup", "both"):
                columns.append((j, cell.colspan, key))
            if scope in ("row", "both"):
                row_headers.append(key)
            if scope == "rowgroup":
                group_headers[group] = key  # heads the rest of its <tbody>, across pages too
        if group is None or table.spans_rows:
            continue
        for j, cell, element in _columns(row):
            if cell.tag == "td":
                headers = [group_headers[group]] if group in group_headers else []
                headers += row_headers
                headers += [key for k, span, key in columns if k < j + cell.colspan and j < k + span]
                element.A.Headers = pikepdf.Array(headers)


def _join(fragment, into):
    """Move a fragment without rows (a caption left alone at the foot of a page) into the next
    fragment of its table: a /Table with no /TR has no structure to determine (PDF/UA-1 7.5)."""
    import pikepdf

    kids = _kids(fragment)
    for kid in kids:
        kid.P = into
    into.K = pikepdf.Array(kids + _kids(into))
    parent = fragment.P
    siblings = parent.K if isinstance(parent.K, pikepdf.Array) else [parent.K]
    parent.K = pikepdf.Array([k for k in siblings if not (isinstance(k, pikepdf.Dictionary)
                                                          and k.objgen == fragment.objgen)])


def _id_tree(pdf, root, ids):
    """Register every element identifier in the structure tree's /IDTree (PDF 1.7 §14.7.2):
    /Headers names its cells by identifier, and this is where a reader looks them up."""
    import pikepdf

    if ids:
        names = [x for key in sorted(ids) for x in (pikepdf.String(key), ids[key])]
        root.IDTree = pdf.make_indirect(pikepdf.Dictionary(Names=pikepdf.Array(names)))


def associate_headers(pdf_bytes, html, name="the PDF"):
    """The PDF with every TH given its HTML scope and every TD its header cells."""
    import pikepdf

    with pikepdf.open(io.BytesIO(pdf_bytes)) as pdf:
        root = pdf.Root.get("/StructTreeRoot")
        if root is None:
            return pdf_bytes
        group_headers, ids, rowless = {}, {}, []
        for fragment, table, head, body in _fragments(_struct_tables(root, ids), html_tables(html), name):
            _associate(table, head, body, group_headers, ids)
            if rowless and rowless[-1][1] is table:
                _join(rowless.pop()[0], fragment)
            if not head and not body:
                rowless.append((fragment, table))
        _id_tree(pdf, root, ids)
        out = io.BytesIO()
        # deterministic_id derives the /ID from the output instead of the clock (keeping the
        # first part where the input has one): the same input gives the same bytes.
        pdf.save(out, deterministic_id=True)
        return out.getvalue()
