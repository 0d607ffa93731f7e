"""Header cells in the tagged PDF: each TH gets its HTML scope, each TD its headers.

A small page is rendered with WeasyPrint (a second or so) on a page short enough that its
table breaks across pages, so the repeated header and a row group continued on the next
page are both exercised.
"""

import io

import pytest
from conftest import pdf_supported

from reportgen.errors import ReportgenError

pikepdf = pytest.importorskip("pikepdf")
pytestmark = pytest.mark.skipif(not pdf_supported(), reason="WeasyPrint (Pango) is not available")

ROWS = 14  # rows per group: the second group runs onto the next page

PAGE = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>t</title>
<style>@page {{ size: 12cm 9cm; margin: 1cm }} tr {{ break-inside: avoid }}</style></head><body>
<table><tr><th scope="row">Build</th><td>abc</td></tr><tr><th scope="row">Seed</th><td>0</td></tr></table>
<table><caption>Claims</caption><thead><tr><th scope="col">Statement</th><th scope="col">Documented</th></tr></thead>
{groups}</table></body></html>"""


def page(groups=2):
    body = "".join(
        f'<tbody><tr><th colspan="2" scope="rowgroup">Passage {g}</th></tr>'
        + "".join(f"<tr><td>claim {g}.{i}</td><td>{i}</td></tr>" for i in range(ROWS)) + "</tbody>"
        for g in range(groups))
    return PAGE.format(groups=body)


def render(html):
    import weasyprint

    return weasyprint.HTML(string=html).write_pdf(pdf_variant="pdf/ua-1", pdf_identifier=b"0123456789abcdef")


@pytest.fixture(scope="module")
def raw():
    html = page()
    return html, render(html)


def cells(pdf):
    """[(role, scope, [header texts], text)] of every cell, in document order, and the /IDTree."""
    from reportgen.render.headercells import _fragment_rows, _struct_tables

    root = pdf.Root.StructTreeRoot
    names = root.IDTree.Names
    tree = {bytes(names[i]): names[i + 1] for i in range(0, len(names), 2)}
    out, fragments = [], _struct_tables(root, {})
    for fragment in fragments:
        head, body = _fragment_rows(fragment)
        for row in head + body:
            for cell in row:
                attributes = cell.get("/A", {})
                headers = [tree[bytes(i)] for i in attributes.get("/Headers", [])]
                out.append((str(cell.S), str(attributes.get("/Scope", "")), headers, cell))
    return out, len(fragments)


def test_every_header_cell_gets_its_scope_and_every_data_cell_its_headers(raw):
    from reportgen.render.headercells import associate_headers

    html, before = raw
    with pikepdf.open(io.BytesIO(associate_headers(before, html))) as pdf:
        found, fragments = cells(pdf)
        assert fragments >= 3, "the second table breaks across pages"
        scopes = [scope for role, scope, _, _ in found if role == "/TH"]
        assert set(scopes) == {"/Row", "/Column"} and all(scopes)
        data = [(headers, cell) for role, _, headers, cell in found if role == "/TD"]
        assert len(data) == 2 + 2 * ROWS * 2
        # The key-value table: each value is headed by the key in its row.
        assert [h[0].objgen for h, _ in data[:2]] == [found[0][3].objgen, found[2][3].objgen]
        # The claims table: a row group's header, then the column's header (repeated on each page).
        groups = [cell for role, scope, _, cell in found if role == "/TH" and "/ColSpan" in cell.A]
        assert len(groups) == 2
        for number, (headers, _) in enumerate(data[2:]):
            group = groups[number // (2 * ROWS)]
            assert len(headers) == 2 and headers[0].objgen == group.objgen, number
            assert headers[1].S == "/TH" and headers[1].A.Scope == "/Column"


def test_same_input_same_bytes(raw):
    from reportgen.render.headercells import associate_headers

    html, before = raw
    after = associate_headers(before, html)
    assert after == associate_headers(before, html)
    with pikepdf.open(io.BytesIO(after)) as pdf, pikepdf.open(io.BytesIO(before)) as old:
        assert pdf.trailer.ID[0] == old.trailer.ID[0]  # WeasyPrint's identifier stays


def test_a_table_that_does_not_line_up_is_an_error(raw):
    from reportgen.render.headercells import associate_headers

    _, before = raw
    with pytest.raises(ReportgenError, match="does not match the HTML"):
        associate_headers(before, page(groups=1))


def test_a_caption_left_alone_on_a_page_joins_its_table(raw):
    """WeasyPrint can tag a caption at the foot of a page as a table of its own, with no rows;
    it becomes part of the table's next fragment, and the empty table goes."""
    from reportgen.render.headercells import _kids, _struct_tables, associate_headers

    html, before = raw
    with pikepdf.open(io.BytesIO(before)) as pdf:  # make that happen: the caption alone, before its table
        claims = _struct_tables(pdf.Root.StructTreeRoot, {})[1]
        caption, *rest = _kids(claims)
        alone = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructElem, S=pikepdf.Name.Table,
                                                     P=claims.P, K=pikepdf.Array([caption])))
        caption.P, claims.K = alone, pikepdf.Array(rest)
        siblings = list(claims.P.K)
        at = next(i for i, k in enumerate(siblings) if k.objgen == claims.objgen)
        claims.P.K = pikepdf.Array(siblings[:at] + [alone] + siblings[at:])
        split = io.BytesIO()
        pdf.save(split)
    with pikepdf.open(io.BytesIO(associate_headers(split.getvalue(), html))) as pdf:
        tables = _struct_tables(pdf.Root.StructTreeRoot, {})
        roles = [[str(k.S) for k in _kids(t)] for t in tables]
        assert roles[1][:2] == ["/Caption", "/THead"] and ["/Caption"] not in roles, roles
        assert _kids(tables[1])[0].P.objgen == tables[1].objgen
