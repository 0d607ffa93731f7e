"""Trace every number a page prints to results.json or to a document's quote.

A number printed with d decimals is traced when some number of results.json rounds to it at
d decimals (a percentage: a fraction × 100), or when the same token is printed in a text of
results.json that a computation wrote (a measured value, a table cell) or in a document's
quote. Texts written by hand (sentences, corrections, rule readings, labels) trace nothing.
"""

import html
import re

NUMBER = re.compile(r"(?<![\w.])(?:\d{1,3}(?:[ \u2009\u202f]\d{3})+|\d+)(?:\.\d+)?(%?)")
# Hex identifiers (a build id, a commit, a SHA-256) are names, not numbers: "Report 3328af5d…"
# printed no number 3328. A run of 12 to 64 hex digits with a letter among them.
IDENTIFIER = re.compile(r"\b(?=[0-9a-f]*[a-f])[0-9a-f]{12,64}\b")
HAND_WRITTEN = ("sentence", "correct", "tolerance", "label", "justification", "note", "reason",
                "reference", "reference_quote", "title", "caption")


def token(text):
    return re.sub(r"[ \u2009\u202f]", "", text)


def _walk(x, skip=()):
    if isinstance(x, dict):
        for k, v in x.items():
            if k not in skip:
                yield from _walk(v, skip)
    elif isinstance(x, list):
        for v in x:
            yield from _walk(v, skip)
    else:
        yield x


def evidence(results):
    """(tokens printed by computations, numbers of results.json) of one results.json."""
    printed, values = set(), []
    for x in _walk(results, HAND_WRITTEN):
        if isinstance(x, str):
            printed.update(token(m.group(0)) for m in NUMBER.finditer(x))
        elif isinstance(x, (int, float)) and not isinstance(x, bool) and x == x and abs(x) != float("inf"):
            values.append(abs(x))
    rounded = set()
    for v in values:
        for d in range(7):
            rounded.add(f"{v:.{d}f}")
            rounded.add(f"{100 * v:.{d}f}%")
    return printed | rounded


def page_text(markup):
    """The text a reader sees in an HTML fragment (MathML's annotations dropped)."""
    text = re.sub(r"<(script|style|annotation)[^>]*>.*?</\1>", " ", markup, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "\n", text))  # one text node's number never spans a tag


def untraced(text, known, cells=False):
    """The numbers of `text` not in `known`, with a little context each. `cells`: the text
    was extracted from a PDF, where table cells side by side read as one grouped number."""
    out = []
    text = IDENTIFIER.sub(" ", text)
    for m in NUMBER.finditer(text):
        parts = re.split(r"[ \u2009\u202f]", m.group(0))  # or numbers set side by side (table cells)
        if token(m.group(0)) not in known and not (cells and all(p in known for p in parts)):
            out.append(f"{m.group(0)!r} in …{' '.join(text[max(0, m.start() - 60):m.end() + 20].split())}…")
    return out
