"""The PDF of the session's quick build, read back with pypdf."""

import html
import json
import re

import pytest

pypdf = pytest.importorskip("pypdf")

TOC_LINE = re.compile(r"^(?P<title>.+?)\s*\.{3,}\s*(?P<page>\d+)\s*$")


@pytest.fixture(scope="module")
def pdf(quick_build):
    """(reader, text of every page) of output/report.pdf."""
    if quick_build.pdf is None:
        pytest.skip("WeasyPrint (Pango) is not available: no PDF was built")
    reader = pypdf.PdfReader(quick_build.pdf)
    return reader, [page.extract_text() for page in reader.pages]


def outline_entries(reader, items=None, depth=0):
    """(depth, title, 0-based page index) for every bookmark, depth first."""
    out = []
    for item in reader.outline if items is None else items:
        if isinstance(item, list):
            out += outline_entries(reader, item, depth + 1)
        else:
            out.append((depth, item.title, reader.get_destination_page_number(item)))
    return out


def chapter_titles(page_html):
    """Text of every <h2> that starts a chapter (the 'Contents' heading is not bookmarked by design)."""
    titles = re.findall(r"<h2(?![^>]*toc-title)[^>]*>(.*?)</h2>", page_html, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", t)).strip() for t in titles]


def test_page_count(pdf):
    """The quick report has more than three pages."""
    reader, _ = pdf
    assert len(reader.pages) > 3


def test_page_numbers_in_footer(pdf):
    """Every page after the title page carries 'n / N' in its footer."""
    reader, texts = pdf
    total = len(reader.pages)
    assert f"1 / {total}" not in texts[0]
    for number, text in enumerate(texts[1:], start=2):
        assert f"{number} / {total}" in text, number


def toc_entries(reader, texts):
    """(title, page) of every contents line, from the title page up to the first chapter's page."""
    first_chapter = outline_entries(reader)[0][2]
    lines = [line for text in texts[0:first_chapter] for line in text.splitlines()]
    return [(m["title"], int(m["page"])) for m in map(TOC_LINE.match, lines) if m]


def test_contents_page(pdf, quick_build):
    """The title page holds the contents: every chapter with a page number that holds its heading."""
    reader, texts = pdf
    assert "Contents" in texts[0]
    assert any(TOC_LINE.match(line) for line in texts[0].splitlines())  # page numbers on the title page
    entries = [{"title": t, "page": p} for t, p in toc_entries(reader, texts)]
    listed = [e["title"] for e in entries]
    for title in chapter_titles(quick_build.html):
        assert title in listed, (title, listed)
    for entry in entries:
        page = int(entry["page"])
        assert 2 <= page <= len(reader.pages), entry
        assert entry["title"] in texts[page - 1], entry


def test_outline_has_every_chapter(pdf, quick_build):
    """The PDF bookmarks include every chapter title from the HTML's h2s, at the top level."""
    reader, _ = pdf
    top = [title for depth, title, _ in outline_entries(reader) if depth == 0]
    chapters = chapter_titles(quick_build.html)
    assert chapters
    assert top == chapters


def test_outline_agrees_with_contents(pdf):
    """Each bookmark points at the page the table of contents gives for the same title."""
    reader, texts = pdf
    toc = dict(toc_entries(reader, texts))
    bookmarks = outline_entries(reader)
    checked = 0
    for _, title, index in bookmarks:
        if title in toc:
            assert index + 1 == toc[title], title
            checked += 1
    assert checked >= 3


def test_tables_text(pdf):
    """The claims tables are real text: sources, verdict words and table numbers are extractable."""
    _, texts = pdf
    everything = "\n".join(texts)
    for needle in ("Empirical Verification", "confirmed", "contradicted", "Table 1.", "45.2"):
        assert needle in everything, needle


def test_verdict_tally_on_title_page(pdf, quick_build):
    """The title page states the same verdict totals as results.json."""
    _, texts = pdf
    counts = quick_build.results["verdicts"]
    assert f"{sum(counts.values())} checks" in texts[0]
    for verdict, n in counts.items():
        assert f"{n} {verdict}" in texts[0]


def test_embedded_results_json(pdf, quick_build):
    """The PDF carries results.json as an attachment, identical to output/results.json."""
    reader, _ = pdf
    assert "results.json" in reader.attachments
    (data,) = reader.attachments["results.json"]
    assert json.loads(data) == quick_build.results
    assert data == quick_build.results_bytes


def test_figures_drawn_from_xobjects(pdf):
    """The page holding Figure 1 has XObject resources and its content draws Form/Image XObjects."""
    reader, texts = pdf
    (index,) = [i for i, t in enumerate(texts) if "Figure 1." in t]
    page = reader.pages[index]
    xobjects = page["/Resources"]["/XObject"]
    assert len(xobjects) > 0
    used = re.findall(rb"/([^\s/\[\]()<>]+)\s+Do\b", page.get_contents().get_data())
    assert used, "no XObject is drawn on the figure's page"
    subtypes = {xobjects["/" + name.decode()].get_object()["/Subtype"] for name in used}
    assert subtypes & {"/Form", "/Image"}


def test_every_figure_caption_in_pdf(pdf, quick_build):
    """Each numbered figure of the HTML has its caption label in the PDF."""
    _, texts = pdf
    numbers = re.findall(r"<b>Figure (\d+)\.</b>", quick_build.html)
    assert numbers
    everything = "\n".join(texts)
    for n in numbers:
        assert f"Figure {n}." in everything


def test_metadata(pdf, quick_build):
    """Title from the HTML and creation date from SOURCE_DATE_EPOCH (reproducible)."""
    reader, _ = pdf
    title = html.unescape(re.search(r"<title>(.*?)</title>", quick_build.html).group(1))
    assert reader.metadata.title == title
    assert reader.metadata["/CreationDate"].startswith("D:20231114221320")
