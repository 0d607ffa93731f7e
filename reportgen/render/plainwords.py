"""The Findings in plain words: each material error one sentence an instructor reads at a glance.

A finding names the document by its title and the section by its heading, says what the
document says (its own words, or the numbers it prints), what this run measured and how far
off the document is, and links to the row that decided it. Every number in it is a value of
this build (the judged rows' measurements); this module returns the sentence as parts and
the templates set each part in its own way (a quote as the document typed it, the rest as
text with math), so no part is formatted twice.
"""

import math
import re

from reportgen.formatting import fmt, parse_printed
from reportgen.render.errata import measured_values, short_title

SHOWN = 3  # numbers listed in a finding before "and N more"
# Words a correct statement may open with that read on after "but" in lower case; any
# other first word (a name: Xavier, PyTorch) keeps its capital.
COMMON_OPENERS = frozenset(
    "a an the at with without in on over for from by only each every both its this these those it "
    "they whatever averaged gradient gradients saturation scores softmax if when no not there".split())


def plain_label(label, doc_ids):
    """A row's label without the document numbers the appendix needs ('000: p1' -> 'p1')."""
    text = label or ""
    for doc in doc_ids:
        d = re.escape(doc)
        text = re.sub(rf"^\s*{d}\s*:\s*", "", text)
        text = re.sub(rf"^\s*{d}\s+(?=[A-Za-z'])", "", text)
        text = re.sub(rf"\s*\({d}'s claim\)", "", text)
        text = re.sub(rf"\b(?:at |in |of )?{d}'s\s+", lambda m: (m[0].split(doc)[0] or "") + "the document's ", text)
        # the rest, never the digits of a number ("1 000", "0.002")
        text = re.sub(rf"(?<![\d.,])(?<![\d.,][ \u2009\u202f])\b{d}\b(?![.,]?\d)", "the document", text)
    return text.strip()


def how_far(ratio, of="the exact value"):
    """How far a printed number is from the true one, from their ratio (results.json's
    printed_over_true): '17% of the exact value', '3.0 times the exact value'."""
    if ratio is None or ratio == 1:
        return ""
    return f"{fmt(ratio, 1)} times {of}" if ratio >= 2 else f"{ratio:.0%} of {of}"


def _worst(rows, of="the exact value"):
    """The words for the largest miss among rows' printed numbers ('' when none)."""
    ratios = [r for r in (row["j"].printed_over_true for row in rows) if r]
    if not ratios:
        return ""
    return how_far(max(ratios, key=lambda r: abs(math.log(r))), of)


def _listed(items):
    """'a, b and c'; 'a, b, c and 4 more' past SHOWN."""
    items = list(items)
    if len(items) > SHOWN + 1:
        return ", ".join(items[:SHOWN]) + f" and {len(items) - SHOWN} more"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _but(correct):
    """A correct statement read on after 'but': its first word lower-cased where that is safe."""
    first = re.match(r"[A-Za-z]+", correct)
    if first and first[0].lower() in COMMON_OPENERS and correct[: len(first[0])].istitle() \
            and not correct[len(first[0]):len(first[0]) + 1].isalnum():
        return correct[0].lower() + correct[1:]
    return correct


def _arithmetic(rows, doc_ids):
    """Parts of a finding on printed numbers that are not what their calculation gives."""
    quotes = list(dict.fromkeys(r["quote"] for r in rows))
    truths = [r["headline"] for r in rows]
    worst = _worst(rows)
    tail = f"; the furthest is {worst}" if worst else ""
    if len(quotes) == 1:
        many = len(truths) > 1 or not isinstance(rows[0]["j"].claim.documented, str)
        return [("text", "prints "), ("quote", quotes[0]),
                ("text", f", but the exact {'values are' if many else 'value is'} {_listed(truths)}{tail}")]
    first = rows[0]
    return [("text", f"prints {len(rows)} numbers that its own calculation does not give, such as "
                     f"{plain_label(first['label'], doc_ids)} {first['documented']} (exact {first['headline']}){tail}")]


def essence(correct):
    """A correct statement's main clause: its asides in parentheses and what follows its first
    '; ' left to the row (the finding is one sentence; the row has the whole correction)."""
    out, depth, i = [], 0, 0
    while i < len(correct):
        c = correct[i]
        if c == "(" and depth == 0 and i and correct[i - 1] == " " and _is_aside(correct[i:]):
            depth, i = 1, i + 1
            out.pop()  # the space before the aside
            continue
        if depth:
            depth += {"(": 1, ")": -1}.get(c, 0)
        elif c == ";" and correct[i + 1:i + 2] == " ":
            break
        else:
            out.append(c)
        i += 1
    return "".join(out).strip().rstrip(".")


def _is_aside(text):
    """Whether a parenthesis opening text holds words (an aside), not numbers (a printed vector)."""
    depth = 0
    for end, c in enumerate(text):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth == 0:
            return re.search(r"[A-Za-z]{3,}", text[:end]) is not None
    return False


def _corrected(item, doc_ids):
    """Parts of a finding on a statement with its correct version: what the document says, the
    correct statement, and what this run measured, named."""
    first = item["rows"][0]
    text = essence(item["correct"])
    this_run = _this_run(item["rows"], doc_ids)
    # a correction that names a number says what was measured; report.html and the handout,
    # with room to spare, name the measured value beside it all the same ("run-aside")
    run = [("run-aside" if re.search(r"\d", text) else "run", this_run)] if this_run else []
    return [("text", "says "), _said(first), ("text", f", but {_but(text)}")] + run


def _said(row):
    """What a row's document says, as short as it can be quoted: the value as the claims file
    writes it ("said": plain notation, typeset), else the verbatim quote."""
    return ("said", row["documented"]) if len(str(row["documented"])) <= 80 else ("quote", row["quote"])


def _this_run(rows, doc_ids):
    """'label, value' of the first measured value behind rows (a summary's first wrong setup)."""
    for v in (v for r in rows for v in measured_values(r)):
        if v.get("j") is not None and v["j"].measurement is not None and v["headline"] not in ("—", ""):
            return f"{plain_label(v['label'], doc_ids)}, {v['headline']}"
    return ""


def _measured(row, doc_ids):
    """Parts of a finding on a statement without a correct version: what it says, what was measured."""
    said = [("text", "says "), _said(row)]
    this_run = _this_run([row], doc_ids)
    worst = _worst([row], "the measured value")
    if not this_run:
        return said + [("text", f", which this run contradicts: {row['sentence'].rstrip('.')}")]
    far = f", so the document's is {worst}" if worst else ""
    return said + [("text", f", but this run measured {this_run}{far}")]


def error_findings(found_doc, title, doc_ids):
    """One finding per section of a document with a material error: {title, section, parts, id,
    table, n, more}.

    A section wrong in several ways leads with the statement a reader would carry away (a
    claim in words before a printed number) and counts the others; the row it links to, and
    the table beside it, hold them all."""
    out = []
    for group in found_doc["material"]:
        arithmetic = [r for item in group["items"] if not item["correct"] for r in item["rows"]
                      if r["j"].claim.rule == "exact"]
        candidates = []  # (rank, finding): the lowest rank leads
        for item in group["items"]:
            if item["correct"]:
                worded = parse_printed(str(item["rows"][0]["documented"])) is None \
                    and not str(item["rows"][0]["documented"]).startswith("[")
                candidates.append((0 if worded else 1, _finding(title, group["section"], _corrected(item, doc_ids),
                                                                item["rows"])))
                continue
            for row in item["rows"]:
                if row["j"].claim.rule != "exact":
                    candidates.append((3, _finding(title, group["section"], _measured(row, doc_ids), [row])))
                elif row is arithmetic[0]:
                    candidates.append((2, _finding(title, group["section"], _arithmetic(arithmetic, doc_ids),
                                                   arithmetic)))
        lead = min(candidates, key=lambda c: c[0])[1]
        lead["more"] = sum(f["n"] for _, f in candidates if f is not lead)
        out.append(lead)
    return out


def _finding(title, section, parts, rows):
    return {"title": short_title(title), "section": section, "parts": parts,
            "id": rows[0]["id"], "table": rows[0]["table"], "n": len(rows), "more": 0}
