"""The build id set into report.pdf after rendering (reportgen.render.stamp): exactly, or not at all."""

import pytest
from conftest import pdf_supported

from reportgen.render import stamp

pytestmark = pytest.mark.skipif(not pdf_supported(), reason="WeasyPrint cannot load here")

PAGE = ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>t</title></head><body>'
        '<p>Report {id}, built today.</p><pre><code>@misc{{reportgen-{id},\\n  note = {{Report {id}}}}}</code></pre>'
        "<p>Build: {id}</p></body></html>")


def rendered(html):
    from reportgen.render.pdf import render_pdf

    return render_pdf(html, {})


def text(pdf_bytes):
    import io

    import pypdf

    return "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf_bytes)).pages)


def test_the_placeholder_becomes_the_id_everywhere_and_nothing_else_moves():
    html, count = stamp.mark(PAGE.format(id=stamp.PLACEHOLDER))
    assert count == 4
    placeholder = rendered(html)
    done = stamp.stamp(placeholder, "fedcba9876543210", count)
    assert done is not None
    out = text(done)
    assert out.count("fedcba9876543210") == 4 and stamp.PLACEHOLDER not in out
    assert text(placeholder).replace(stamp.PLACEHOLDER, "fedcba9876543210") == out  # the same text, the same places


@pytest.mark.parametrize("build, expected", [
    ("fedcba9876543210", 3),  # a count that differs from the HTML's: not stamped
    ("fedcba987654321", 4),  # not an id
    ("FEDCBA9876543210", 4),
])
def test_anything_unexpected_is_refused_and_rendered_with_the_id(build, expected):
    html, _ = stamp.mark(PAGE.format(id=stamp.PLACEHOLDER))
    assert stamp.stamp(rendered(html), build, expected) is None


def test_a_placeholder_in_an_attribute_is_not_marked():
    html = PAGE.format(id=stamp.PLACEHOLDER).replace("<p>Build", f'<p title="{stamp.PLACEHOLDER}">Build')
    assert stamp.mark(html) == (html, 0)


def test_bytes_that_are_no_pdf_are_refused():
    assert stamp.stamp(b"%PDF-1.7 not rendered", "fedcba9876543210", 1) is None


def test_content_that_holds_the_placeholder_is_typeset_with_the_id():
    """A title (or a claim, a quote) that holds the placeholder's sixteen digits: stamping would
    turn them into the build id too, so those pages are rendered with the id instead."""
    assert stamp.usable('{"title": "measured"}', "BuildConfig(title='x')")
    assert not stamp.usable('{"title": "Hex digits 0123456789abcdef"}', "BuildConfig()")
    assert not stamp.usable("{}", f"BuildConfig(course='{stamp.PLACEHOLDER}')")
