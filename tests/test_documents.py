"""A course's own documents: texts read at build time, every quote looked up in them.

tests/course/ is the course guide's tutorial (docs/course.md): one document (notes/week3.md), its three claims
(claims/), and a config; the slow test checks it, edits the document and checks again.
"""

import json
import shutil
from pathlib import Path

import pytest

from conftest import describe, invoke
from reportgen import claims, config, factcheck
from reportgen.errors import ConfigError
from reportgen.judging import documents, drift, vocabulary
from reportgen.model import Judged, Outcome, Reason

ROOT = Path(__file__).resolve().parent.parent
COURSE = Path(__file__).resolve().parent / "course"
SEEDS = ROOT.parent / "shared" / "seeds"
STD_SENTENCE = "Its standard deviation is therefore 64 as well."
VAR_SENTENCE = "has variance 64."


@pytest.fixture
def course(tmp_path):
    """A copy of the tutorial's course folder."""
    shutil.copytree(COURSE, tmp_path / "course")
    return tmp_path / "course"


def edit(course, old, new):
    path = course / "notes" / "week3.md"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_course_quotes_are_found_until_the_document_changes(course):
    catalog = vocabulary.catalog(course / "claims")
    assert [c.id for c in catalog.claims] == ["week3.var-dk64", "week3.std-dk64", "week3.scaled-var"]
    texts = documents.read(catalog, course / "notes")
    assert texts["week3"].file == "week3.md" and texts["week3"].text is not None
    assert set(documents.quotes(catalog, texts).values()) == {documents.FOUND}
    edit(course, VAR_SENTENCE, "has variance d_k.")
    now = documents.quotes(catalog, documents.read(catalog, course / "notes"))
    assert now == {"week3.var-dk64": "gone", "week3.std-dk64": "found", "week3.scaled-var": "found"}


def test_a_gone_quote_of_an_error_is_an_error_fixed():
    assert documents.state("gone", "contradicted") == documents.FIXED
    assert documents.state("gone", "partly") == documents.FIXED
    assert documents.state("gone", "confirmed") == documents.GONE
    assert documents.state("found", "contradicted") == documents.FOUND


def test_provenance_names_each_document_by_title_and_hash(course):
    catalog = vocabulary.catalog(course / "claims")
    before = documents.provenance(documents.read(catalog, course / "notes"))["week3"]
    assert before["title"] == "Week 3: Why attention divides by √d_k" and before["text"] == "read"
    edit(course, STD_SENTENCE, "Its standard deviation is therefore 8.")
    after = documents.provenance(documents.read(catalog, course / "notes"))["week3"]
    assert len(before["sha256"]) == 64 and before["sha256"] != after["sha256"]


def test_the_built_in_documents_are_not_looked_up_without_their_texts():
    """The five built-in texts are not shipped: their quotes are not looked up, their recorded hash is cited."""
    catalog = vocabulary.catalog()
    texts = documents.read(catalog, "")
    assert all(t.text is None and len(t.sha256) == 64 for t in texts.values())
    assert set(documents.quotes(catalog, texts).values()) == {documents.UNREAD}


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the source documents (../shared/seeds) are not here")
def test_the_built_in_documents_found_by_id_in_a_documents_folder():
    """documents = the seeds folder: each built-in text is NNN_*.txt there, every quote is in it."""
    catalog = vocabulary.catalog()
    texts = documents.read(catalog, SEEDS)
    recorded = documents.read(catalog, "")
    assert {d: t.sha256 for d, t in texts.items()} == {d: t.sha256 for d, t in recorded.items()}
    assert set(documents.quotes(catalog, texts).values()) == {documents.FOUND}


def test_a_missing_text_is_bad_input(course):
    (course / "notes" / "week3.md").unlink()
    with pytest.raises(ConfigError, match="no text for document week3"):
        documents.read(vocabulary.catalog(course / "claims"), course / "notes")


def test_a_text_that_is_not_utf8_is_bad_input(course):
    (course / "notes" / "week3.md").write_bytes(b"\xff\xfe not text")
    with pytest.raises(ConfigError, match="not UTF-8"):
        documents.read(vocabulary.catalog(course / "claims"), course / "notes")


@pytest.mark.parametrize("entry, words", [
    ('id = "Week 3"\ntitle = "x"', "id must be lower-case"),
    ('id = "w3"', "missing key 'title'"),
    ('id = "w3"\ntitle = "x"\nauthor = "y"', "unknown key 'author'"),
    ('id = "w3"\ntitle = "x"\nfile = "../../etc/passwd"', "file must be a name inside"),
    ('id = "w3"\ntitle = 3', "'title' must be a string"),
])
def test_documents_toml_is_validated_like_the_claims(tmp_path, entry, words):
    (tmp_path / "documents.toml").write_text(f"[[document]]\n{entry}\n")
    with pytest.raises(ConfigError, match=words):
        claims.load_documents(tmp_path)


def test_a_course_claim_is_validated_like_a_built_in_one(course):
    path = course / "claims" / "week3.toml"
    path.write_text(path.read_text().replace('rule = "interval"', 'rule = "intervall"', 1))
    with pytest.raises(ConfigError, match="rule 'intervall' is not one of"):
        vocabulary.catalog(course / "claims")


def test_documents_and_claims_settings_are_folders(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes").mkdir()
    cfg = config.load(None, {"documents": "notes", "claims": "notes"})
    assert (cfg.documents, cfg.claims) == ("notes", "notes")
    with pytest.raises(ConfigError) as err:
        config.load(None, {"documents": "nowhere", "claims": "nowhere"})
    assert "not a folder" in str(err.value) and len(err.value.problems) == 2


def test_status_of_a_row_puts_a_gone_quote_first():
    j = Judged(claim=None, measurement=None, verdict="confirmed", reason=Reason(Outcome.NO_RULE), quote_state="gone")
    assert factcheck.status("confirmed", j) == factcheck.STALE
    j = Judged(claim=None, measurement=None, verdict="contradicted", reason=Reason(Outcome.NO_RULE), quote_state="fixed")
    assert factcheck.status("contradicted", j) == factcheck.FIXED
    j = Judged(claim=None, measurement=None, verdict="confirmed", reason=Reason(Outcome.NO_RULE), quote_state="found")
    assert factcheck.status("confirmed", j) == factcheck.SAME


def _results(state):
    claim = {"id": "week3.var-dk64", "label": "Var", "verdict": "confirmed", "measured": "64", "quote_state": state}
    return {"schema_version": 2, "experiments": {}, "claims": [claim], "provenance": {}}


def test_diff_names_a_quote_that_left_its_document():
    result = drift.compare(_results("found"), _results("gone"))
    assert drift.exit_code(result) == 1 and not result.verdict_changed
    from test_drift import as_text, row_of

    text = as_text(result)
    assert text.splitlines()[0].endswith("1 quote(s) no longer in their documents")
    assert row_of(text, "week3.var-dk64", "Var", "quote no longer in the document")
    assert drift.exit_code(drift.compare(_results("gone"), _results("gone"))) == 0
    assert drift.exit_code(drift.compare(_results("unread"), _results("found"))) == 0


@pytest.mark.slow
def test_editing_a_quoted_sentence_fails_check_naming_the_claim(course, warm_dir):
    """The issue's "done when": check is green, an edited sentence makes it exit 1 naming the claim,
    a corrected error reads as fixed, and the report and diff say so too."""
    shutil.copytree(warm_dir / ".reportgen-cache", course / ".reportgen-cache")
    cfg = course / "reportgen.toml"
    result = invoke(["check", "--config", cfg, "--profile", "quick", "-q"], course)
    assert result.exit_code == 0, describe(result)
    build = invoke(["build", "--config", cfg, "--profile", "quick", "--format", "html", "-q"], course)
    assert build.exit_code == 0, describe(build)
    shutil.copy(course / "output" / "results.json", course / "before.json")

    edit(course, VAR_SENTENCE, "has variance d_k = 64.")
    edit(course, STD_SENTENCE, "Its standard deviation is therefore √64 = 8.")
    result = invoke(["check", "--config", cfg, "--profile", "quick", "-q"], course)
    assert result.exit_code == 1, describe(result)
    lines = result.output.splitlines()
    assert any(line.startswith("week3.var-dk64: quote no longer in the document") for line in lines)
    assert any(line.startswith("week3.std-dk64: error fixed in the document") for line in lines)

    build = invoke(["build", "--config", cfg, "--profile", "quick", "--format", "html", "-q"], course)
    assert build.exit_code == 0, describe(build)
    html = (course / "output" / "report.html").read_text(encoding="utf-8")
    assert "quote no longer in the document" in html and "error fixed in the document" in html
    results = json.loads((course / "output" / "results.json").read_text(encoding="utf-8"))
    states = {c["id"]: c["quote_state"] for c in results["claims"]}
    assert states == {"week3.var-dk64": "gone", "week3.std-dk64": "fixed", "week3.scaled-var": "found"}
    assert results["provenance"]["documents"]["week3"]["title"] == "Week 3: Why attention divides by √d_k"
    diff = invoke(["diff", course / "before.json", course / "output" / "results.json"], course)
    assert diff.exit_code == 1 and "week3.var-dk64" in diff.output, describe(diff)


def test_variance_figures_mark_nothing_without_the_built_in_claims():
    """A course's claims hold none of the built-in ones the figures mark: they draw without them."""
    from conftest import quick_results
    from reportgen.experiments import EXPERIMENTS

    figures = EXPERIMENTS["variance"].figures(quick_results("variance"), {})
    assert figures and all("stated ±" not in f.alt and "documented" not in f.alt for f in figures)


def test_the_course_guide_tutorial_is_tests_course():
    """Each file the course guide's tutorial (docs/course.md) shows is the one in tests/course/, byte for byte."""
    import re

    guide = (ROOT / "docs" / "course.md").read_text(encoding="utf-8")
    shown = dict(re.findall(r"<!-- tutorial: (\S+) -->\n```\w+\n(.*?)```", guide, re.S))
    assert set(shown) == {"notes/week3.md", "claims/documents.toml", "claims/week3.toml", "reportgen.toml"}
    for name, text in shown.items():
        assert text == (COURSE / name).read_text(encoding="utf-8"), name
