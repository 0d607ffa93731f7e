"""Config strings checked as text: no control characters, bounded lengths, paths spelled out.

A NUL or an ESC in a title reached the HTML, the PDF metadata and the terminal (186 raw
escape sequences under -q); `figures = "~"` made a folder named `~`; an output folder name
longer than the file system allows was found only after all the work. Each is now a
ValueError naming the problem, which config turns into one line with the key (exit 2).
"""

import os
import re
import unicodedata

from reportgen import limits

NAME_MAX = 255  # bytes in one file name on Linux file systems (ext4, xfs, tmpfs)
# Bidirectional overrides and isolates reorder what a reader sees (CVE-2021-42574, "Trojan Source").
BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def control(value):
    """The first control character in value (tab and newlines aside), or None."""
    for char in value:
        if char not in "\t\n\r" and (unicodedata.category(char) == "Cc" or char in BIDI):
            return char
    return None


def control_or_break(value):
    """The first control character in value, tab and line breaks included, or None: for a
    text that is one line (an id, a label, a path), where a newline would start a new line
    in a log (GitHub Actions reads `::error` at a line's start as a command)."""
    for char in value:
        if unicodedata.category(char) in ("Cc", "Zl", "Zp") or char in BIDI:
            return char
    return None


def named(char):
    if char == "\0":
        return "a NUL character (U+0000)"
    if char in "\n\r\u2028\u2029\x0b\x0c\x85":
        return f"a line break (U+{ord(char):04X})"
    return f"a control character (U+{ord(char):04X})"


def checked(value, limit):
    """A config string as one line of text: control characters refused, length bounded."""
    bad = control(value)
    if bad is not None:
        raise ValueError(f"holds {named(bad)}; remove it (write plain text)")
    if len(value) > limit:
        raise ValueError(f"is {len(value)} characters, over the limit of {limit}; shorten it")
    return " ".join(value.split())


def path(value):
    """A path setting with `~` expanded; control characters, an unknown ~user and names too long refused."""
    bad = control_or_break(value)
    if bad is not None:
        raise ValueError(f"the path holds {named(bad)}; give a plain path on one line")
    expanded = os.path.expanduser(value)
    if expanded.startswith("~"):
        raise ValueError(f"cannot expand {value.split('/')[0]!r} (no such user); write the path out in full")
    size = len(os.fsencode(expanded))
    if size > limits.MAX_PATH_BYTES:
        raise ValueError(f"the path is {size} bytes, over the limit of {limits.MAX_PATH_BYTES}; use a shorter one")
    for part in re.split(r"/+", expanded):
        if len(os.fsencode(part)) > NAME_MAX:
            raise ValueError(f"the name {part[:24]}… is {len(os.fsencode(part))} bytes, over the file system's "
                             f"limit of {NAME_MAX}; use a shorter one")
    return expanded


# A line the GitHub Actions runner reads as a workflow command (`::error …`, `##[group]`): it
# trims leading white space first, and colour codes may come before it.
COMMAND_LINE = re.compile(r"^(?:\x1b\[[0-9;]*m)*\s*(?:::|##\[)")


def printable(value):
    """`value` with every control character, line break, bidirectional override and lone surrogate
    written as its escape (\\x1b, \\u202e, \\ud800): text from a results.json, a claims file or a
    cache shown on a terminal or in a log moves no cursor, sets no title, starts no line, and can be
    encoded (JSON's "\\ud800" decodes to a surrogate no UTF-8 stream can write)."""
    if not isinstance(value, str):
        return value
    return "".join(_escaped(c) if unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") or c in BIDI else c
                   for c in value)


def _escaped(char):
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable_lines(message):
    """A message of several lines (our own line breaks) made safe line by line: each line's
    control characters escaped, and no line that a log would read as a command."""
    return "\n".join(not_a_command(printable(line)) for line in str(message).split("\n"))


def not_a_command(line):
    """The line, marked with a leading "| " when a CI log would read it as a workflow command."""
    return f"| {line}" if COMMAND_LINE.match(line) else line
