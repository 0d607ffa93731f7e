"""`reportgen check --record`: rewrite the `expected*` lines of the claims files, and nothing else.

The files are hand-written, so they are edited line by line. Each rewrite is proved before it
is written: the new file, parsed, must be the old one with only those verdicts changed. A file
whose layout the line edit cannot follow (a `[[claim]]` inside a multi-line string, claims
written inline) is refused in one line, before any experiment runs (`rewritable`), never
half-rewritten.
"""

import copy
import re
import tomllib
from pathlib import Path

from reportgen import claims
from reportgen.atomic import write_atomic
from reportgen.claims.files import claim_files, read
from reportgen.errors import ConfigError

PROBE = "probe"  # a verdict no claim expects: every claim's lines are rewritten in the trial


def record(verdicts, profile, folder=None):
    """Rewrite the expected verdicts of `profile` ({claim id: verdict}); nothing else changes.

    Inside each claim's block only the `expected` (standard) or `expected_<profile>` line is
    replaced, added or dropped; a claim without `expected` gets one. Returns what changed:
    (file name, claim id, the verdict it expected before or "", the one now) for each claim.
    """
    folder = Path(folder or claims.default_folder())
    changed = []
    for doc in claims.load_documents(folder):
        for path in claim_files(folder, doc):
            text = path.read_text(encoding="utf-8")
            new, written = _proved(path, text, verdicts, profile)
            if written:
                write_atomic(path, new)
                changed += [(path.name, *w) for w in written]
    return changed


def rewritable(profile, folder=None):
    """ConfigError, before any work, when --record could not rewrite a claims file line by line."""
    folder = Path(folder or claims.default_folder())
    for doc in claims.load_documents(folder):
        for path in claim_files(folder, doc):
            data = read(path)
            ids = {c.get("id"): PROBE for c in data.get("claim", []) if isinstance(c, dict)}
            _proved(path, path.read_text(encoding="utf-8"), ids, profile)


def _proved(path, text, verdicts, profile):
    """(new text, what changed), once the new text parses as the old one with only the verdicts
    changed; ConfigError naming the file otherwise."""
    try:
        new, changed = _rewrite(text, verdicts, profile)
        if tomllib.loads(new) == _wanted(tomllib.loads(text), verdicts, profile):
            return new, changed
    except (tomllib.TOMLDecodeError, AttributeError, KeyError, IndexError, TypeError, ValueError):
        pass
    raise ConfigError(f"{path}: --record edits each claim's lines in place and cannot follow this file's layout; "
                      "write each [[claim]] header on a line of its own and expected = \"…\" (and "
                      "expected_quick, expected_full) as one line each, then record again")


def _want(entry, verdict, profile):
    """{key: new value, or None to drop it} of one claim's expected keys."""
    standard = entry.get("expected")
    if standard is None:  # a new claim: its first verdict is the expected one, whatever the profile
        return {"expected": verdict}
    if profile == "standard":
        want = {"expected": verdict}
        for other in ("expected_quick", "expected_full"):
            if entry.get(other) == verdict:
                want[other] = None
        return want
    return {f"expected_{profile}": None if verdict == standard else verdict}


def _wanted(data, verdicts, profile):
    """The parsed file as it should be once recorded."""
    data = copy.deepcopy(data)
    for entry in data.get("claim", []):
        verdict = verdicts.get(entry.get("id"))
        if verdict is None:
            continue
        for key, value in _want(entry, verdict, profile).items():
            if value is None:
                entry.pop(key, None)
            else:
                entry[key] = value
    return data


_BLOCK = re.compile(r"^\[\[\s*claim\s*\]\][ \t]*(#[^\n]*)?$", re.M)


def _rewrite(text, verdicts, profile):
    starts = [m.start() for m in _BLOCK.finditer(text)] + [len(text)]
    out, changed = [text[: starts[0]]], []
    for start, end in zip(starts, starts[1:]):
        block = text[start:end]
        entry = tomllib.loads(block)["claim"][0]
        verdict = verdicts.get(entry.get("id"))
        if verdict is None:
            out.append(block)
            continue
        before = entry.get(f"expected_{profile}", entry.get("expected")) or ""
        new_block = block
        for key, value in _want(entry, verdict, profile).items():
            new_block = _set_line(new_block, key, value)
        if new_block != block:
            changed.append((entry["id"], before, verdict))
        out.append(new_block)
    return "".join(out), changed


def _line(key):
    """The line `key = "…"` (or '…'), a comment after it allowed."""
    return re.compile(rf"""^{key}[ \t]*=[ \t]*("[^"\n\\]*"|'[^'\n]*')[ \t]*(#[^\n]*)?(\n|\Z)""", re.M)


def _set_line(block, key, value):
    """Replace, add (after `expected`) or drop the line `key = "…"` of one block."""
    text = f'{key} = "{value}"\n' if value is not None else ""
    if _line(key).search(block):
        return _line(key).sub(lambda m: text, block, count=1)
    if value is None:
        return block
    anchor = _line("expected").search(block)
    if anchor is None:  # the block's first `expected`: after its last line of TOML (not a comment)
        lines = block.splitlines(keepends=True)
        last = max(i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#"))
        head = "".join(lines[: last + 1])
        return head + ("" if head.endswith("\n") else "\n") + text + "".join(lines[last + 1:])
    end = anchor.end()
    return block[:end] + ("" if block[:end].endswith("\n") else "\n") + text + block[end:]
