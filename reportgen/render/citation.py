"""How to cite a report and the documents it checks: report.bib and a CITATION.cff template.

Both are filled from the config (title, author, course, institution, url, keywords) and the
build's identity. Config text and the documents' titles are data, never markup: every value
goes through the escaping of the format it lands in (BibTeX, YAML), so a brace, a quote,
a backslash or a newline in a title stays text and cannot open or close a field.
"""

import unicodedata

from reportgen.render.mathtex import plain

# Characters BibTeX or LaTeX read as syntax. BibTeX counts braces even after a backslash, so
# `\{` would unbalance a field: braces become \textbraceleft{} / \textbraceright{}, whose own
# braces are balanced (LaTeX 2e's text commands, https://ctan.org/pkg/comprehensive).
_BIB = {
    "\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}",
    "%": r"\%", "&": r"\&", "#": r"\#", "$": r"\$", "_": r"\_",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", '"': '{"}',
}
CFF_VERSION = "1.2.0"  # https://citation-file-format.github.io/


def bib_text(text):
    """Text as the value of a braced BibTeX field: syntax escaped, whitespace on one line."""
    return "".join(_BIB.get(ch, ch) for ch in " ".join(str(text).split()))


def yaml_text(text):
    """Text as a double-quoted YAML scalar: quotes, backslashes and every non-printable character escaped."""
    out = []
    for ch in str(text):
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif unicodedata.category(ch) in ("Cc", "Cs", "Cf", "Zl", "Zp") or ch in "\ufffe\uffff":
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _who(config):
    """The report's author: the configured author, else the institution, else reportgen."""
    return config.author or config.institution or "reportgen"


def identity(info, build):
    """The build as every citation names it: id, date, reportgen's version and commit (marked
    +dirty when built from a changed checkout), profile and seed."""
    own = info.get("reportgen") or {}
    commit = own.get("commit") or "commit unknown"
    commit = commit[:12] + ("+dirty" if commit.endswith("+dirty") else "")
    return (f"Report {build}, built {info['build_time'][:10]} by reportgen {own.get('version', '')} "
            f"({commit}), profile {info['profile']}, seed {info['seed']}")


def _entry(kind, key, fields):
    """One BibTeX entry; `fields` is [(name, value)], empty values left out, values escaped."""
    lines = [f"  {name} = {{{value}}}" for name, value in fields if value]
    return f"@{kind}{{{key},\n" + ",\n".join(lines) + "\n}\n"


def report_key(build):
    return f"reportgen-{build}"


def report_bibtex(config, info, build):
    """The report's own BibTeX entry (what "how to cite" shows)."""
    title = plain(config.title) + (f": {plain(config.subtitle)}" if config.subtitle else "")
    return _entry("misc", report_key(build), [
        ("title", "{" + bib_text(title) + "}"),  # inner braces: keep the title's capitals as written
        ("author", "{" + bib_text(_who(config)) + "}"),  # one name as written: an "and" in it is no list
        ("institution", bib_text(config.institution) if config.author else ""),
        ("year", info["build_time"][:4]),
        ("howpublished", bib_text(config.course)),
        ("url", bib_text(config.url)),
        ("note", bib_text(identity(info, build)) + "."),
    ])


def document_citation(doc, config):
    """How a checked document is cited: title, kind, and the course's url or name when given."""
    return {"title": plain(doc.get("title", "")), "kind": doc.get("kind", ""), "course": config.course,
            "url": config.url, "sha256": doc.get("sha256", "")}


def document_bibtex(doc_id, doc, config):
    cited = document_citation(doc, config)
    return _entry("misc", f"document-{doc_id}", [
        ("title", "{" + bib_text(cited["title"]) + "}"),
        ("howpublished", bib_text(cited["course"])),
        ("url", bib_text(cited["url"])),
        ("note", bib_text(cited["kind"] + "." if cited["kind"] else "")
         + (f" SHA-256 of the text checked: {cited['sha256']}." if cited["sha256"] else "")),
    ])


def bibliography(config, info, build):
    """report.bib: the report's entry, then one per checked document."""
    header = ("% The report and the documents it checks, as BibTeX (written by reportgen build).\n"
              f"% Cite the report as \\cite{{{report_key(build)}}}.\n\n")
    documents = info.get("documents") or {}
    return header + "\n".join([report_bibtex(config, info, build)]
                              + [document_bibtex(i, d, config) for i, d in documents.items()])


def cff(config, info, build):
    """A CITATION.cff template for the course repository, filled from the config and this build."""
    title = plain(config.title) + (f": {plain(config.subtitle)}" if config.subtitle else "")
    lines = [
        "# CITATION.cff for this report, filled from reportgen's config by reportgen build.",
        "# A template: check it, then commit it at the root of the course repository.",
        f"cff-version: {CFF_VERSION}",
        'message: "If you use this report, please cite it as below."',
        "type: dataset",
        f"title: {yaml_text(title)}",
        "authors:",
        f"  - name: {yaml_text(_who(config))}",
        f"version: {yaml_text(build)}",
        f"date-released: {yaml_text(info['build_time'][:10])}",
    ]
    if config.url:
        lines.append(f"url: {yaml_text(config.url)}")
    if config.keywords:
        lines.append("keywords:")
        lines += [f"  - {yaml_text(k)}" for k in config.keywords]
    lines += [
        "preferred-citation:",
        "  type: report",
        f"  title: {yaml_text(title)}",
        "  authors:",
        f"    - name: {yaml_text(_who(config))}",
        f"  year: {int(info['build_time'][:4])}",
    ]
    if config.institution:
        lines += ["  institution:", f"    name: {yaml_text(config.institution)}"]
    if config.url:
        lines.append(f"  url: {yaml_text(config.url)}")
    lines.append(f"  notes: {yaml_text('. '.join(p for p in (config.course, identity(info, build)) if p) + '.')}")
    return "\n".join(lines) + "\n"
