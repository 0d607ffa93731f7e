"""The claims files read into values: each entry's keys, types, lengths and rule checked on its
own, with one line per problem naming the file and the claim (a ConfigError, exit 2).

A verdict is one of reportgen.model's, below every stage. What an entry names in judging's
vocabulary (a named threshold, a prose placeholder's field) is checked by
reportgen.judging.vocabulary, which loads the claims through here.
"""

import re
from pathlib import Path

from reportgen import text
from reportgen.claims.fields import (LONGEST, LONGEST_TEXT, MAX_DOCUMENTED_ITEMS, args_problems, known_key,
                                     number)
from reportgen.claims.files import claim_files, default_folder, read
from reportgen.claims.records import Claim, Document, Unchecked
from reportgen.errors import ConfigError
from reportgen.model import VERDICTS

# consistency: a check of a document's own arithmetic on its own numbers (a measured
# confirmation it is not, and the report counts it apart).
KINDS = ("arithmetic", "statistical", "qualitative", "premise", "literature", "consistency")
RULES = ("exact", "interval", "at_least", "at_most", "summary", "reference", "unverifiable")
BOUNDS = ("value", "lo", "hi")
SEVERITIES = ("material", "minor")
REQUIRED = ("id", "section", "quote", "documented", "kind", "rule", "table", "label")
# `expected` may wait for `reportgen check --record`: a new claim's verdict is not guessed by hand.
OPTIONAL = ("expected", "family", "value", "measure", "args", "threshold", "bound", "justification", "reason",
            "margin", "band", "band_reason", "over", "severity", "correct", "note", "boundary", "reference", "reference_quote", "holds",
            "expected_quick", "expected_full")
ID = re.compile(r"[0-9a-z][0-9a-z.-]*")
# Keys whose value is text (shown on the pages, or naming something); `documented` may also be a list of text.
TEXT = ("id", "section", "quote", "kind", "rule", "table", "label", "expected", "expected_quick", "expected_full",
        "measure", "family", "bound", "justification", "reason", "band_reason", "severity", "correct", "note",
        "boundary", "reference", "reference_quote", "holds")
NONEMPTY = ("id", "section", "quote", "table", "label")  # what a row, a table or a sheet is found by
# Keys that are one line: a line break there would start a new line in a log or a terminal.
ONE_LINE = ("id", "section", "kind", "rule", "table", "label", "expected", "expected_quick", "expected_full",
            "measure", "family", "bound", "severity", "holds")


DOC_ID = re.compile(r"[0-9a-z][0-9a-z-]*")  # names its claims file, <id>.toml
DOC_KEYS = {"id": True, "title": True, "citation": False, "kind": False, "file": False}
# Longest of each, in characters: the title heads a sheet and a page, and lands in report.bib.
DOC_LONGEST = {"id": 40, "title": 200, "citation": 600, "kind": 120, "file": 200}


def load_documents(folder=None):
    """{document id: Document} in file order; bad entries are one ConfigError."""
    path = Path(folder or default_folder()) / "documents.toml"
    out, problems = {}, []
    for i, entry in enumerate(_entries(path, "document"), start=1):
        name = entry.get("id")
        where = f"documents.toml document {name if isinstance(name, str) and DOC_ID.fullmatch(name[:40]) else f'#{i}'}"
        problems += [f"{where}: missing key '{k}'" for k, required in DOC_KEYS.items() if required and k not in entry]
        problems += [f"{where}: unknown key '{k}'" + known_key(k, DOC_KEYS) for k in entry if k not in DOC_KEYS]
        problems += [f"{where}: '{k}' must be a string" for k in DOC_KEYS if k in entry and not isinstance(entry[k], str)]
        if any(p.startswith(where) for p in problems):
            continue
        for key, value in entry.items():
            if (bad := text.control_or_break(value)) is not None:
                problems.append(f"{where}: '{key}' holds {text.named(bad)}; remove it (it is one line)")
            elif len(value) > DOC_LONGEST[key]:
                problems.append(f"{where}: '{key}' is {len(value)} characters, over the limit of "
                                f"{DOC_LONGEST[key]}; shorten it")
            elif key == "title" and not value.strip():
                problems.append(f"{where}: 'title' is empty")
        if any(p.startswith(where) for p in problems):
            continue
        if not DOC_ID.fullmatch(entry["id"]):
            problems.append(f"{where}: id must be lower-case letters, digits and '-' (it names {entry['id']}.toml)")
        elif entry["id"] in out:
            problems.append(f"{where}: id used twice")
        file = entry.get("file", "")
        if file and (Path(file).is_absolute() or ".." in Path(file).parts):
            problems.append(f"{where}: file must be a name inside the documents folder, not {file!r}")
        if not problems:
            out[entry["id"]] = Document(**entry)
    if problems:
        raise ConfigError("claims data: " + "; ".join(problems[:5]) + (" …" if len(problems) > 5 else ""))
    return out


def load(folder=None):
    """Every claim of every document, in document then file order; bad data is one ConfigError."""
    folder = Path(folder or default_folder())
    documents = load_documents(folder)
    problems, claims, seen = [], [], set()
    for doc in documents:
        if not claim_files(folder, doc):  # its sheet would be missing without a word
            problems.append(f"documents.toml lists {doc}, but {folder / f'{doc}.toml'} is not a file; add it "
                            "(empty for a document with no claims yet) or remove the entry")
        for path in claim_files(folder, doc):
            for i, entry in enumerate(_entries(path, "claim"), start=1):
                name = entry.get("id")
                shown = name if isinstance(name, str) and len(name) <= LONGEST["id"] and ID.fullmatch(name) else f"#{i}"
                where = f"{path.name} claim {shown}"
                claim, errors = _parse(entry, doc, where)
                problems += errors
                if claim is None:
                    continue
                if claim.id in seen:
                    problems.append(f"{where}: id used twice")
                seen.add(claim.id)
                claims.append(claim)
    problems += _summary_problems(claims)
    if problems:
        raise ConfigError("claims data: " + "; ".join(problems[:5]) + (" …" if len(problems) > 5 else ""))
    return claims


def _summary_problems(claims):
    by_id = {c.id: c for c in claims}
    parents, problems = {}, []
    for c in claims:
        for child in c.over:
            if child not in by_id:
                problems.append(f"claim {c.id}: 'over' names {child}, which is no claim")
            elif by_id[child].rule == "summary":
                problems.append(f"claim {c.id}: 'over' names {child}, itself a summary")
            elif child in parents:
                problems.append(f"claim {child} is summed up by both {parents[child]} and {c.id}")
            else:
                parents[child] = c.id
    return problems


def load_unchecked(folder=None):
    """The `[[not_checkable]]` entries of every document, in order."""
    folder = Path(folder or default_folder())
    out, problems = [], []
    for doc in load_documents(folder):
        for path in claim_files(folder, doc):
            for i, entry in enumerate(_entries(path, "not_checkable"), start=1):
                missing = [k for k in ("section", "quote", "reason") if not entry.get(k)]
                unknown = [k for k in entry if k not in ("section", "quote", "reason")]
                if missing or unknown:
                    problems.append(f"{path.name} not_checkable #{i}: missing {missing} / unknown {unknown}")
                    continue
                typed = _text_problems(entry, f"{path.name} not_checkable #{i}")
                if typed:
                    problems += typed
                    continue
                out.append(Unchecked(doc, entry["section"], entry["quote"], entry["reason"]))
    if problems:
        raise ConfigError("claims data: " + "; ".join(problems[:5]))
    return out


def _entries(path, key):
    """A claims file's [[key]] tables, or ConfigError when the key holds anything else."""
    entries = read(path).get(key, [])
    if not (isinstance(entries, list) and all(isinstance(e, dict) for e in entries)):
        raise ConfigError(f"claims data: {path.name}: '{key}' must be [[{key}]] tables, not {entries!r:.40}")
    return entries


def _text_problems(entry, where):
    """A text key that is not text, is empty where a row needs it, or holds a control character
    (an ESC or a bidirectional override would reach the pages and the terminal as it is)."""
    problems = []
    for key in TEXT:
        value = entry.get(key)
        if key not in entry:
            continue
        if not isinstance(value, str):
            problems.append(f"{where}: '{key}' must be text in quotes, not {type(value).__name__} {value!r:.40}")
        elif key in NONEMPTY and not value.strip():
            problems.append(f"{where}: '{key}' is empty")
        elif (bad := (text.control_or_break if key in ONE_LINE else text.control)(value)) is not None:
            problems.append(f"{where}: '{key}' holds {text.named(bad)}; remove it"
                            + (" (it is one line)" if key in ONE_LINE else ""))
        elif len(value) > LONGEST.get(key, LONGEST_TEXT):
            problems.append(f"{where}: '{key}' is {len(value)} characters, over the limit of "
                            f"{LONGEST.get(key, LONGEST_TEXT)}; shorten it")
    documented = entry.get("documented")
    items = documented if isinstance(documented, list) else [documented]
    if "documented" in entry and not (items and all(isinstance(x, str) for x in items)):
        problems.append(f"{where}: 'documented' must be text, or a list of texts (a printed vector), "
                        f"not {documented!r:.40}")
    elif "documented" in entry and any(text.control_or_break(x) is not None for x in items):
        problems.append(f"{where}: 'documented' holds a control character or a line break; remove it")
    elif "documented" in entry and (len(items) > MAX_DOCUMENTED_ITEMS
                                    or any(len(x) > LONGEST["documented"] for x in items)):
        problems.append(f"{where}: 'documented' is over its limit ({MAX_DOCUMENTED_ITEMS} texts of at most "
                        f"{LONGEST['documented']} characters); shorten it")
    if "over" in entry and not (isinstance(entry["over"], list) and all(isinstance(x, str) for x in entry["over"])):
        problems.append(f"{where}: 'over' must be a list of claim ids")
    if "args" in entry and not isinstance(entry["args"], dict):
        problems.append(f"{where}: 'args' must be a table, e.g. {{ d_k = 64 }}")
    elif "args" in entry:
        problems += args_problems(entry["args"], where)
    if "value" in entry and not number(entry["value"]):
        problems.append(f"{where}: 'value' must be a finite number")
    return problems


def _parse(entry, doc, where):
    """A Claim and the problems found in one entry."""
    problems = [f"{where}: missing key '{k}'" for k in REQUIRED if k not in entry]
    problems += [f"{where}: unknown key '{k}'" + known_key(k, REQUIRED + OPTIONAL)
                 for k in entry if k not in REQUIRED + OPTIONAL]
    problems += _text_problems(entry, where)
    if problems:
        return None, problems
    if not ID.fullmatch(entry["id"]):
        problems.append(f"{where}: id must be lower-case letters, digits, '.' and '-'")
    if entry["kind"] not in KINDS:
        problems.append(f"{where}: kind '{entry['kind']}' is not one of {', '.join(KINDS)}")
    rule = entry["rule"]
    if rule not in RULES:
        problems.append(f"{where}: rule '{rule}' is not one of {', '.join(RULES)}")
    if rule not in ("unverifiable", "summary", "reference") and "." not in entry.get("measure", ""):
        problems.append(f"{where}: rule '{rule}' needs measure = \"<family>.<name>\"")
    if rule == "reference" and not (entry.get("reference") and entry.get("reference_quote")
                                    and entry.get("holds") in ("true", "false", "partly")):
        problems.append(f"{where}: a reference claim cites its source in 'reference', quotes what decides it "
                        "in 'reference_quote' and says holds = \"true\", \"false\" or \"partly\"")
    if rule in ("unverifiable", "summary", "reference") and "measure" in entry:
        problems.append(f"{where}: a {rule} claim has no measure; name its section's family in 'family'")
    if rule in ("unverifiable", "summary", "reference") and not entry.get("family"):
        problems.append(f"{where}: a {rule} claim names the family whose section shows it in 'family'")
    if rule == "summary" and not (isinstance(entry.get("over"), list) and len(entry["over"]) >= 2):
        problems.append(f"{where}: a summary claim lists the claims it sums up in 'over' (two or more)")
    if entry.get("severity", "material") not in SEVERITIES:
        problems.append(f"{where}: severity must be one of {', '.join(SEVERITIES)}")
    if "margin" in entry and not (number(entry["margin"]) and entry["margin"] > 0):
        problems.append(f"{where}: margin must be a positive finite number, not {entry['margin']!r:.20}")
    band = entry.get("band")
    if band is not None and not (isinstance(band, list) and len(band) == 2
                                 and all(number(b) for b in band) and band[0] < band[1]
                                 and entry.get("band_reason")):
        problems.append(f"{where}: band is [low, high] of the reasonable cuts, with the reason in 'band_reason'")
    if rule == "unverifiable" and not entry.get("reason"):
        problems.append(f"{where}: an unverifiable claim says why in 'reason'")
    threshold = entry.get("threshold")
    if "threshold" in entry and not (number(threshold) or isinstance(threshold, str)):
        problems.append(f"{where}: threshold must be a number or a name in reportgen/experiments/thresholds.py")
    elif rule in ("at_least", "at_most") and "threshold" not in entry:  # a name: reportgen.judging.vocabulary
        problems.append(f"{where}: rule '{rule}' needs a threshold: a number or one of reportgen/experiments/thresholds.py")
    if rule in ("at_least", "at_most", "interval") and not entry.get("justification"):
        problems.append(f"{where}: rule '{rule}' needs a one-line justification")
    if entry.get("bound", "value") not in BOUNDS:
        problems.append(f"{where}: bound must be one of {', '.join(BOUNDS)}")
    expected = {"standard": entry["expected"]} if "expected" in entry else {}
    for profile in ("quick", "full"):
        if f"expected_{profile}" in entry:
            expected[profile] = entry[f"expected_{profile}"]
    problems += [f"{where}: verdict '{v}' is not one of {', '.join(VERDICTS)}"
                 for v in expected.values() if v not in VERDICTS]
    if problems:
        return None, problems
    value = entry.get("value")
    claim = Claim(
        id=entry["id"], doc=doc, section=entry["section"], quote=entry["quote"],
        documented=entry["documented"], kind=entry["kind"], rule=rule, table=entry["table"],
        label=entry["label"], expected=expected, value=None if value is None else float(value),
        measure=entry.get("measure", ""), family_name=entry.get("family", ""), args=dict(entry.get("args", {})),
        threshold=entry.get("threshold"), bound=entry.get("bound", "value"),
        justification=entry.get("justification", ""), reason=entry.get("reason", ""),
        margin=entry.get("margin"), band=tuple(entry.get("band", ())), band_reason=entry.get("band_reason", ""),
        over=tuple(entry.get("over", ())), severity=entry.get("severity", ""),
        correct=entry.get("correct", ""), note=entry.get("note", ""), boundary=entry.get("boundary", ""),
        reference=entry.get("reference", ""), reference_quote=entry.get("reference_quote", ""),
        holds=entry.get("holds", ""),
    )
    return claim, []
