"""`reportgen check --record`: rewrite the `expected*` lines of the claims files, and nothing else."""

import re
import tomllib
from pathlib import Path

from reportgen import claims
from reportgen.atomic import write_atomic
from reportgen.claims.files import claim_files


def record(verdicts, profile, folder=None):
    """Rewrite the expected verdicts of `profile` ({claim id: verdict}); nothing else changes.

    The files are hand-written, so they are edited line by line: inside each claim's
    block only the `expected` (standard) or `expected_<profile>` line is replaced,
    added or dropped; a claim without `expected` gets one. Returns what changed: (file name,
    claim id, the verdict it expected before or "", the one now) for each claim.
    """
    folder = Path(folder or claims.default_folder())
    changed = []
    for doc in claims.load_documents(folder):
        for path in claim_files(folder, doc):
            text = path.read_text(encoding="utf-8")
            new, written = _rewrite(text, verdicts, profile)
            if written:
                write_atomic(path, new)
                changed += [(path.name, *w) for w in written]
    return changed


_BLOCK = re.compile(r"^\[\[claim\]\]\s*$", re.M)


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
        standard = entry.get("expected")
        before = entry.get(f"expected_{profile}", standard) or ""
        if standard is None:  # a new claim: its first verdict is the expected one, whatever the profile
            want = {"expected": verdict}
        elif profile == "standard":
            want = {"expected": verdict}
            if entry.get("expected_quick") == verdict:
                want["expected_quick"] = None
            if entry.get("expected_full") == verdict:
                want["expected_full"] = None
        else:
            want = {f"expected_{profile}": None if verdict == standard else verdict}
        new_block = block
        for key, value in want.items():
            new_block = _set_line(new_block, key, value)
        if new_block != block:
            changed.append((entry["id"], before, verdict))
        out.append(new_block)
    return "".join(out), changed


def _set_line(block, key, value):
    """Replace, add (after `expected`) or drop the line `key = "…"` of one block."""
    line = re.compile(rf'^{key} = "[^"]*"\n', re.M)
    text = f'{key} = "{value}"\n' if value is not None else ""
    if line.search(block):
        return line.sub(text, block, count=1)
    if value is None:
        return block
    anchor = re.search(r'^expected = "[^"]*"\n', block, re.M)
    if anchor is None:  # the block's first `expected`: after its last line of TOML (not a comment)
        lines = block.splitlines(keepends=True)
        last = max(i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#"))
        return "".join(lines[: last + 1]) + text + "".join(lines[last + 1:])
    return block[: anchor.end()] + text + block[anchor.end():]
