"""A course's own repository, as a teaching assistant starts one: `reportgen init`, one note,
four claims (two right, two wrong), a quick build about these documents alone.

Also: every bad claims file is one line naming the file, the key and the nearest valid
choice (exit 2, before any experiment runs), and at 80 columns no line of `list`, `check`,
`run` or `config` is wider than the terminal.
"""

import json
import re
import tomllib
from pathlib import Path

import pytest
from conftest import EPOCH, describe, invoke

from reportgen.claims import default_folder
from reportgen.model import VERDICTS

NOTE = """\
# Lecture 5: Scaled dot-product attention

## Why scale the scores

For queries and keys with unit-variance components, the dot product of two 64-dimensional vectors has variance 64.
Its standard deviation is therefore 64 as well.
At d_k = 16 the variance of the dot product is only 4.
Dividing the scores by √d_k = 8 brings their variance back to 1.
"""

DOCUMENT = """
[[document]]
id = "lecture5"
title = "Lecture 5: Scaled dot-product attention"
kind = "Lecture notes"
file = "lecture5.md"
"""


def _claim(id, quote, documented, args, margin, correct=""):
    text = f'''
[[claim]]
id = "lecture5.{id}"
section = "Why scale the scores"
label = "{id}"
quote = "{quote}"
documented = "{documented}"
kind = "statistical"
measure = "variance.{'std_qk' if id.startswith('std') else 'var_qk'}"
args = {args}
rule = "interval"
margin = {margin}
justification = "equivalence: the 99% interval must lie within the documented value ± the margin"
table = "variance-laws"
'''
    return text + (f'correct = "{correct}"\n' if correct else "")


CLAIMS = "".join([
    _claim("var-dk64", "the dot product of two 64-dimensional vectors has variance 64", "64",
           "{ d_k = 64, level = 0.99 }", 6.4),
    _claim("std-dk64", "Its standard deviation is therefore 64 as well.", "64", "{ d_k = 64, level = 0.99 }", 0.8,
           "The standard deviation is √d_k = 8: {lecture5.std-dk64|2} measured."),
    _claim("var-dk16", "At d_k = 16 the variance of the dot product is only 4.", "4", "{ d_k = 16, level = 0.99 }",
           0.4, "The variance is d_k = 16: {lecture5.var-dk16:interval}."),
    _claim("scaled", "Dividing the scores by √d_k = 8 brings their variance back to 1.", "1",
           '{ d_k = 64, divide_by = "sqrt_dk", level = 0.99 }', 0.1),
])


def course(folder):
    """`reportgen init` in `folder`, plus the one-page note and its four claims."""
    result = invoke(["init", folder], folder.parent)
    assert result.exit_code == 0, describe(result)
    (folder / "documents" / "lecture5.md").write_text(NOTE, encoding="utf-8")
    with open(folder / "claims" / "documents.toml", "a", encoding="utf-8") as f:
        f.write(DOCUMENT)
    (folder / "claims" / "lecture5.toml").write_text(CLAIMS, encoding="utf-8")
    return folder


BUILT_IN = tomllib.loads((default_folder() / "documents.toml").read_text(encoding="utf-8"))["document"]
# A built-in document named by its id ("000's tables", "001 'Why This Matters'"), never a number
# that happens to hold its digits (1.000, 4 000), or a placeholder left unfilled.
NAMED = re.compile(r"(?<![\d.,])(?<!\d[ \u202f])\b00[0-4]\b(?![.,]?\d)")
RAW = re.compile(r"\{[0-9a-z][0-9a-z-]*\.[^{}\s]*\}")


def visible_text(path):
    """The text a reader sees: a PDF's (pypdf), or an HTML page's without markup."""
    import html

    if path.suffix == ".pdf":
        pypdf = pytest.importorskip("pypdf")
        return "\n".join(page.extract_text() for page in pypdf.PdfReader(path).pages)
    text = re.sub(r"<(style|script)\b.*?</\1>", " ", path.read_text(encoding="utf-8"), flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


@pytest.fixture(scope="module")
def built_course(tmp_path_factory):
    """The course, built cold on the quick profile: only the variance family runs (about 20 s
    on 2 busy cores), so it needs nothing of the session's whole build."""
    folder = course(tmp_path_factory.mktemp("course") / "course")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        result = invoke(["build", "--profile", "quick", "-q"], folder)  # reportgen.toml found without --config
    return folder, result


@pytest.mark.slow
def test_a_new_course_builds_a_report_about_its_own_documents(built_course):
    folder, result = built_course
    assert result.exit_code == 0, describe(result)
    results = json.loads((folder / "output" / "results.json").read_text(encoding="utf-8"))
    verdicts = {c["id"]: c["verdict"] for c in results["claims"] if c["id"].startswith("lecture5.")}
    assert verdicts == {"lecture5.var-dk64": "confirmed", "lecture5.std-dk64": "contradicted",
                        "lecture5.var-dk16": "contradicted", "lecture5.scaled": "confirmed"}
    assert list(results["experiments"]) == ["variance"]  # only the family its claims name
    pages = ["report.pdf", "report-handout.pdf", "errata-lecture5.pdf", "errata-week1.pdf", "report.html",
             "errata-lecture5.html"]
    for name in pages:
        text = visible_text(folder / "output" / name)
        assert not NAMED.findall(text), (name, [text[max(0, m.start() - 60):m.end() + 20] for m in NAMED.finditer(text)])
        assert not RAW.findall(text), (name, RAW.findall(text))
        for doc in BUILT_IN:
            assert doc["title"] not in text, (name, doc["title"])
        assert "1 documents" not in text and "2 document " not in text
    report = visible_text(folder / "output" / "report.pdf")
    # the finding reads "… says “64”, but the standard deviation is √d_k = 8: … measured"
    assert re.search(r"[Tt]he\s+standard\s+deviation\s+is\s+√", report) and "measured" in report
    assert re.search(r"Lecture 5: Scaled dot-product attention", report)
    assert "2 teaching documents explain" in report


def bad(folder, old, new):
    path = folder / "claims" / "lecture5.toml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize("old, new, words", [
    ('table = "variance-laws"', 'table = "variance-law"', "table 'variance-law' is not a claims table of variance "
                                                          "for these documents; did you mean 'variance-laws'?"),
    ('table = "variance-laws"', 'table = "variance-std"', "table 'variance-std' is not a claims table of variance "
                                                          "for these documents; did you mean 'variance-laws'?"),
    ('measure = "variance.var_qk"', 'measure = "variance.varqk"', "measure 'varqk' is not one of variance's; "
                                                                  "did you mean 'var_qk'?"),
    ('measure = "variance.var_qk"', 'measure = "varianse.var_qk"', "family 'varianse' is not one of reportgen's; "
                                                                   "did you mean 'variance'?"),
    ("args = { d_k = 64, level = 0.99 }", "args = { dk = 64, level = 0.99 }",
     "args: 'dk' is not an argument of variance.var_qk; did you mean 'd_k'?"),
    ("args = { d_k = 64, level = 0.99 }", "args = { d_k = 100, level = 0.99 }",
     "args: d_k = 100 is not on the quick profile's grid (1, 2, 4, 8, 16, 32, 64, 128, …); nearest: 128"),
    ('id = "lecture5.std-dk64"', 'id = "lecture5.var-dk64"', "lecture5.toml claim lecture5.var-dk64: id used twice"),
])
def test_a_bad_claims_file_is_one_line_and_exit_2_before_any_run(tmp_path, old, new, words):
    folder = course(tmp_path / "course")
    bad(folder, old, new)
    for command in (["check", "--profile", "quick"], ["build", "--profile", "quick"]):
        result = invoke(command, folder)
        assert result.exit_code == 2, describe(result)
        assert result.stdout == "" and len(result.stderr.splitlines()) == 1, describe(result)
        line = result.stderr.strip()
        assert words in line and ("claims/lecture5.toml" in line or "lecture5.toml" in line), line
        assert not (folder / ".reportgen-cache").exists() and not (folder / "output").exists()


def test_a_placeholder_of_a_course_claim_is_filled():
    from types import SimpleNamespace

    from reportgen.experiments.measure import Measurement
    from reportgen.judging import prose
    from reportgen.render.wording import prose as said

    judged = {"lecture5.std-dk64": SimpleNamespace(measurement=Measurement(7.964, 7.73, 8.2, 4000, digits=3),
                                                   verdict="contradicted", claim=None)}
    filled = lambda text, judged: said(prose.resolve(text, judged))  # noqa: E731
    text = "√d_k = 8: {lecture5.std-dk64|2} measured; $\\frac{1}{2}\\hspace{0.5em}$ stays LaTeX."
    assert prose.names(text) == ["lecture5.std-dk64"]
    assert filled(text, judged) == "√d_k = 8: 7.96 measured; $\\frac{1}{2}\\hspace{0.5em}$ stays LaTeX."


def lines_over(text, width=80):
    return [line for line in text.splitlines() if len(line) > width]


@pytest.mark.parametrize("command", [["list"], ["list", "--measures"], ["config"]])
def test_list_and_config_fit_80_columns(tmp_path, monkeypatch, command):
    monkeypatch.setenv("COLUMNS", "80")
    folder = course(tmp_path / "course")
    result = invoke(command, folder)
    assert result.exit_code == 0, describe(result)
    assert not lines_over(result.stdout), lines_over(result.stdout)


@pytest.mark.slow
def test_check_and_run_fit_80_columns_and_never_break_a_word(built_course, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    folder, _ = built_course  # its cache holds the run: check and run read it
    vocabulary = set(re.findall(r"[A-Za-z]+", NOTE + CLAIMS + " ".join(VERDICTS)))
    words = {w for w in vocabulary if len(w) >= 6}
    for command in (["check", "--profile", "quick", "--all"], ["check", "--profile", "quick"],
                    ["run", "variance", "--profile", "quick"]):
        result = invoke(command, folder)
        assert result.exit_code in (0, 1), describe(result)
        for stream in (result.stdout, result.stderr):
            assert not lines_over(stream), (command, lines_over(stream))
        tokens = set(re.findall(r"[A-Za-z]+", result.stdout)) - vocabulary
        for word in words:  # a word is never cut across lines ("contradict" / "ed")
            cuts = [(word[:k], word[k:]) for k in range(4, len(word) - 1)]
            assert not [c for c in cuts if set(c) <= tokens], (command, word, result.stdout)


class MemoryCache:
    """What documents.looked_up asks of the build's cache, in memory."""

    enabled = writable = True

    def __init__(self):
        self.entries = {}

    def load(self, name, digest, check=None):
        payload = self.entries.get((name, digest))
        return payload if payload is None or check is None or check(payload) is None else None

    def store(self, name, digest, payload):
        self.entries[name, digest] = payload


def test_a_quote_that_never_matched_is_not_an_error_fixed(tmp_path):
    """`q·k` quoted from a text that writes `q \\cdot k` never matched: it is "not found", never
    FIXED; a quote found by an earlier build and gone now is "no longer in the document"."""
    from reportgen.judging import documents, vocabulary

    folder = course(tmp_path / "course")
    note = folder / "documents" / "lecture5.md"
    note.write_text(NOTE.replace("Its standard deviation is", "Its standard deviation $q \\cdot k$ is"), encoding="utf-8")
    bad(folder, "Its standard deviation is therefore 64 as well.", "Its standard deviation q·k is therefore 64 as well.")
    catalog = vocabulary.catalog(folder / "claims")
    store = MemoryCache()
    states = documents.looked_up(catalog, documents.read(catalog, folder / "documents"), "claims", store)
    assert states["lecture5.std-dk64"] == documents.UNMATCHED
    assert documents.state(states["lecture5.std-dk64"], "contradicted") == documents.UNMATCHED  # never FIXED
    assert states["lecture5.var-dk64"] == documents.FOUND
    note.write_text(NOTE.replace("has variance 64", "has variance d_k"), encoding="utf-8")
    states = documents.looked_up(catalog, documents.read(catalog, folder / "documents"), "claims", store)
    assert states["lecture5.var-dk64"] == documents.GONE  # found by the build before: the document changed


def test_a_quote_is_typeset_only_between_dollars():
    from reportgen.render import mathtex

    for medium in ("screen", "print"):
        plain = str(mathtex.quote(r"the variance grows with q \cdot k", medium))
        assert plain == r"the variance grows with q \cdot k"
        typeset = str(mathtex.quote(r"the variance grows with $q \cdot k$", medium))
        assert typeset.startswith("the variance grows with ") and "cdot" not in typeset  # typeset: MathML, SVG or markup


def test_a_fresh_run_reads_the_clock_once(monkeypatch):
    """The cache entry and the run carry one time: read twice, a second could tick between them,
    and the next build, dated by the entry, typeset every PDF again."""
    import datetime

    from reportgen import scheduler
    from reportgen.experiments import EXPERIMENTS

    ticks = iter(range(1_700_000_000, 1_700_000_100))

    class Clock(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime.datetime.fromtimestamp(next(ticks), tz)

    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    monkeypatch.setattr(datetime, "datetime", Clock)
    store = MemoryCache()
    run = scheduler.fresh_run(EXPERIMENTS["variance"], "0" * 32, {"x": 1}, store, 1.0)
    (entry,) = store.entries.values()
    assert run.computed_at == entry["computed_at"]


def test_init_writes_a_course_and_overwrites_nothing(tmp_path):
    from reportgen import __version__

    folder = tmp_path / "course"
    result = invoke(["init", folder], tmp_path)
    assert result.exit_code == 0, describe(result)
    workflow = (folder / ".github" / "workflows" / "report.yml").read_text(encoding="utf-8")
    assert f"uses: OWNER/reportgen@v{__version__}" in workflow and "@main" not in workflow
    config = tomllib.loads((folder / "reportgen.toml").read_text(encoding="utf-8"))["tool"]["reportgen"]
    assert (config["documents"], config["claims"]) == ("documents", "claims")
    (folder / "documents" / "week1.md").write_text("mine", encoding="utf-8")
    again = invoke(["init", folder], tmp_path)
    assert again.exit_code == 2 and len(again.stderr.splitlines()) == 1, describe(again)
    assert (folder / "documents" / "week1.md").read_text(encoding="utf-8") == "mine"
