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
    added or dropped. Returns the number of claims whose expectation changed.
    """
    folder = Path(folder or claims.default_folder())
    changed = 0
    for doc in claims.load_documents(folder):
        for path in claim_files(folder, doc):
            text = path.read_text(encoding="utf-8")
            new, n = _rewrite(text, verdicts, profile)
            if n:
                write_atomic(path, new)
                changed += n
    return changed


_BLOCK = re.compile(r"^\[\[claim\]\]\s*$", re.M)


def _rewrite(text, verdicts, profile):
    starts = [m.start() for m in _BLOCK.finditer(text)] + [len(text)]
    out, changed = [text[: starts[0]]], 0
    for start, end in zip(starts, starts[1:]):
        block = text[start:end]
        entry = tomllib.loads(block)["claim"][0]
        verdict = verdicts.get(entry.get("id"))
        if verdict is None:
            out.append(block)
            continue
        standard = entry["expected"]
        if profile == "standard":
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
        changed += new_block != block
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
    return block[: anchor.end()] + text + block[anchor.end():]
