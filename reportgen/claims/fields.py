"""What each claims field may hold: its longest text, finite numbers, a measure's arguments.

Checked when the claims are loaded, before any experiment runs (reportgen.claims): a claims
file is input, and a value no measure, page or log can take is one line naming the file, the
key and the way out (exit 2), never a failure after the whole run.
"""

import difflib
import math
import re

from reportgen import text

# Longest text of each key, in characters: each still lays out in the report's tables, its
# sheets and both PDFs (a row of the longest fits on one page; tests/test_limits.py builds it).
LONGEST = {"id": 64, "section": 160, "label": 240, "table": 64, "measure": 80, "family": 40, "quote": 1200,
           "documented": 80}
LONGEST_TEXT = 2000  # justification, reason, note, correct, boundary, reference, its quote: prose
MAX_DOCUMENTED_ITEMS = 64  # a printed vector or matrix, one text per number
MAX_ARG_ITEMS = 256  # a list argument (scales, keys)
LEVELS = (0.5, 0.999)  # a confidence level: 0.99 is the claims' own; 1 would make every interval infinite


def number(value):
    """A finite number (inf and nan are no margin, threshold or value: inf confirms anything)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def known_key(key, choices):
    """"(did you mean 'x'?)" naming the nearest key, or ""."""
    near = difflib.get_close_matches(str(key), list(choices), n=1)
    return f" (did you mean '{near[0]}'?)" if near else f" (known keys: {', '.join(choices)})"


def _scalar(value):
    """Whether an argument's value is one a measure takes: a finite number, true/false, or a
    short one-line text."""
    if isinstance(value, str):
        return len(value) <= LONGEST["measure"] and text.control_or_break(value) is None
    return isinstance(value, bool) or number(value)


def args_problems(args, where):
    """A measure's arguments: names, finite numbers, short texts, flat lists, and a `level`
    that is a confidence level (the measures check which names they take)."""
    problems = []
    for name, value in args.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,39}", name):
            problems.append(f"{where}: args key {name[:40]!r} is not an argument name")
        elif isinstance(value, list):
            if len(value) > MAX_ARG_ITEMS or not all(_scalar(v) for v in value):
                problems.append(f"{where}: args '{name}' must be a list of at most {MAX_ARG_ITEMS} finite numbers "
                                "or short texts")
        elif not _scalar(value):
            problems.append(f"{where}: args '{name}' must be a finite number, true/false or a short text, "
                            f"not {value!r:.40}")
        elif name == "level" and not (number(value) and not isinstance(value, bool)
                                      and LEVELS[0] <= value <= LEVELS[1]):
            problems.append(f"{where}: args 'level' is a confidence level from {LEVELS[0]} to {LEVELS[1]}, "
                            f"not {value!r:.20}; did you mean 0.99?")
    return problems
