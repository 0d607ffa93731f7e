"""Every number the Findings and the handout print is traced to results.json or a quote."""

import re

import pytest

from tracing import evidence, page_text, untraced


@pytest.mark.slow
def test_every_number_in_the_findings_is_traced(quick_build):
    page = quick_build.html
    findings = page[page.index('<section id="findings"'):page.index('<section id="reading"')]
    missing = untraced(page_text(findings), evidence(quick_build.results))
    assert not missing, "numbers in the Findings that no result gives:\n" + "\n".join(missing[:20])


@pytest.mark.slow
def test_every_number_in_the_handout_is_traced(quick_build):
    if quick_build.handout is None:
        pytest.skip("no PDF in this build (WeasyPrint does not load here)")
    from pypdf import PdfReader

    text = "\n".join(page.extract_text() or "" for page in PdfReader(quick_build.handout).pages)
    text = re.sub(r"(?m)^.*\b(Page|page) \d+ of \d+.*$", " ", text)  # running footers: page numbers
    missing = untraced(text, evidence(quick_build.results), cells=True)
    assert not missing, "numbers in the handout that no result gives:\n" + "\n".join(missing[:20])


@pytest.mark.slow
def test_every_placeholder_is_filled(quick_build):
    """A full build fills every number its texts name: no sentence says a number was not measured."""
    from reportgen.judging.prose import PLACEHOLDER
    from reportgen.render.wording import NOT_MEASURED

    unfilled = [c["id"] for c in quick_build.results["claims"]
                if NOT_MEASURED in c["sentence"] or NOT_MEASURED in (c.get("correct") or "")
                or PLACEHOLDER.search(c["sentence"])]
    assert not unfilled, unfilled
    assert NOT_MEASURED not in quick_build.html
