"""The claims registry: every checked statement of the documents, as data, one file per document.

Each entry names the check that measures it (its id: experiment, table, quantity),
the verdict rule that decides it, and the verdict expected from the last review;
`reportgen check` compares a run against it, and `reportgen check --record`
rewrites it after a reviewed change.
"""

import tomllib
from importlib import resources

from reportgen.sources import DOCUMENTS

EXPECTED_KEYS = ("expected", "expected_quick", "expected_full")


def load():
    """{claim id: entry} over all documents; an entry has doc, section, statement, rule, expected…"""
    folder = resources.files("reportgen.registry")
    entries = {}
    for doc in DOCUMENTS:
        path = folder / f"{doc}.toml"
        if not path.is_file():
            continue
        for claim in tomllib.loads(path.read_text(encoding="utf-8")).get("claim", []):
            entries[claim["id"]] = {**claim, "doc": doc}
    return entries


def expected(entry, profile):
    """The verdict expected under a profile: its own when recorded, else the standard one."""
    return entry.get(f"expected_{profile}", entry["expected"])


def _toml_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(doc, claims):
    """TOML text of one document's registry file; claims are dicts in report order."""
    lines = [
        f"# Claims of document {doc}: {DOCUMENTS[doc]}",
        "# Written by `reportgen check --record`; review the diff before committing.",
        "",
    ]
    for claim in claims:
        lines.append("[[claim]]")
        for key in ("id", "section", "statement", "documented", "rule", *EXPECTED_KEYS):
            if key in claim:
                lines.append(f"{key} = {_toml_string(str(claim[key]))}")
        lines.append("")
    return "\n".join(lines)
