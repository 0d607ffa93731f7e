"""report.bib and CITATION.cff: filled from the config, every value escaped for its format."""

import re
from types import SimpleNamespace

import pytest

from reportgen import config
from reportgen.errors import ConfigError
from reportgen.render import citation
from reportgen.render.mathtex import plain  # a title's plain math ($x$, d_k) is typeset as text, as on the title page

HOSTILE = [
    'Braces {open} and } close',
    'A "quoted" title',
    'Back\\slash \\textbf{bold} \\end{document}',
    'New\nline and\ttab',
    '}, note = {injected}, x = {',
    '@misc{evil, title = {pwned}}',
    '100% & #1 $x$ a_b ~ ^',
]
INFO = {"build_time": "2027-03-01T12:00:00+00:00", "profile": "quick", "seed": 0,
        "reportgen": {"version": "0.1.0", "commit": "0123456789abcdef"},
        "documents": {"week3": {"title": "Week 3", "kind": "Lecture notes", "sha256": "ab" * 32}}}


def settings(text, **extra):
    values = dict(title=text, subtitle="", author=text, course=text, institution=text, url="https://example.edu/x",
                  keywords=(text,))
    values.update(extra)
    return SimpleNamespace(**values)


def parse_bib(text):
    """[(type, key, {field: raw value})] read the way BibTeX reads: braces counted, backslashes not."""
    entries, i = [], 0
    text = "\n".join(line for line in text.splitlines() if not line.startswith("%"))
    while (at := text.find("@", i)) != -1:
        head = re.compile(r"@(\w+)\{([^,\s]+),").match(text, at)
        assert head, text[at:at + 60]
        fields, i = {}, head.end()
        while True:
            m = re.compile(r"\s*(\w+) = \{").match(text, i)
            if not m:
                break
            depth, j = 1, m.end()
            while depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            fields[m[1]] = text[m.end():j - 1]
            i = j + (text[j] == ",")
        assert re.compile(r"\s*\}").match(text, i), text[i:i + 60]
        i = text.index("}", i) + 1
        entries.append((head[1], head[2], fields))
    return entries


UNESCAPE = [(r"\textbraceleft{}", "{"), (r"\textbraceright{}", "}"), (r"\textbackslash{}", "\\"),
            (r"\textasciitilde{}", "~"), (r"\textasciicircum{}", "^"), ('{"}', '"')]


def unescape(value):
    for escaped, char in UNESCAPE:
        value = value.replace(escaped, "\0" + char)  # a marker, so one replacement never feeds another
    value = re.sub(r"\\([%&#$_])", r"\1", value)
    return value.replace("\0", "")


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_stays_one_field_of_one_entry(text):
    bib = citation.bibliography(settings(text), INFO, "0123456789abcdef")
    entries = parse_bib(bib)
    assert [(kind, key) for kind, key, _ in entries] == [("misc", "reportgen-0123456789abcdef"),
                                                         ("misc", "document-week3")]
    report = entries[0][2]
    assert set(report) == {"title", "author", "institution", "year", "howpublished", "url", "note"}
    flat = " ".join(text.split())
    assert unescape(report["title"][1:-1]) == plain(flat)
    assert unescape(report["author"][1:-1]) == flat
    assert unescape(report["howpublished"]) == flat
    assert entries[1][2]["howpublished"] == report["howpublished"]


@pytest.mark.parametrize("text", HOSTILE + ["bidi \u202e override, NUL \0, line \u2028 sep, emoji 😀"])
def test_hostile_text_round_trips_through_citation_cff(text):
    yaml = pytest.importorskip("yaml")
    data = yaml.safe_load(citation.cff(settings(text), INFO, "0123456789abcdef"))
    assert data["cff-version"] == "1.2.0" and data["type"] == "dataset"
    assert data["title"] == plain(text) and data["authors"] == [{"name": text}]
    assert data["keywords"] == [text] and data["url"] == "https://example.edu/x"
    cited = data["preferred-citation"]
    assert cited["type"] == "report" and cited["institution"] == {"name": text} and cited["year"] == 2027
    assert data["date-released"] == "2027-03-01"


def test_documents_are_cited_by_title_kind_and_the_course():
    bib = citation.bibliography(settings("CS 101", url=""), INFO, "0123456789abcdef")
    (_, _, report), (_, _, week3) = [e for e in parse_bib(bib)]
    assert "url" not in report and week3["title"] == "{Week 3}" and week3["howpublished"] == "CS 101"
    assert week3["note"].startswith("Lecture notes.") and "ab" * 32 in week3["note"]


def test_url_setting_is_an_http_address(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert config.load(None, {"url": "https://example.edu/cs101"}).url == "https://example.edu/cs101"
    for bad in ("javascript:alert(1)", "example.edu", "https://x.edu/{a}", 'https://x.edu/"', "https://a b"):
        with pytest.raises(ConfigError, match="not an http"):
            config.load(None, {"url": bad})
