"""No measured number typed by hand in the claims data (issue 20).

A claim's `correct`, `note`, `boundary` and `label` may print a number only when it is not
something a run computes: a measured value is a placeholder (reportgen/judging/prose.py) naming the
claim that measures it. This test reads every such text outside its placeholders and fails on
a number that is none of: the claim's own quote or documented value, a quote or documented
value of the same document, the claim's args, margin, threshold or value (a summary's: its
setups'), the words of the source a reference claim cites, a family's setup parameters
(params.py), a named threshold, or one of the closed-form constants below.
"""

import dataclasses
import importlib
import math
import re

import pytest

from reportgen.experiments import EXPERIMENTS
from reportgen.experiments.thresholds import THRESHOLDS
from reportgen.judging import vocabulary
from reportgen.judging.prose import PLACEHOLDER

TEXTS = ("correct", "note", "boundary", "label")

# A number: digits, optionally grouped in thousands ("20 000", "2,000") and with decimals; a
# fraction of two such ("1/3") is one token. Digits that are part of a name are not numbers:
# W_q, h_0, GPT-2, ViT-22B, float16, 3E, §3.2.1, 1e-3. A citation's year is not a number either.
NUMBER = re.compile(
    r"(?<![\w.§/])(?<![A-Za-z]-)"
    r"(\d{1,3}(?:[ ,]\d{3})+(?!\d)|\d+)(\.\d+)?"
    r"(?:/(\d+(?:\.\d+)?))?"
    r"(?![\w]|\.\d|/\d)(\s?%)?"
)

CITATION = re.compile(r"(?<=et al\. )\(?(19|20)\d\d\)?|(?<=et al\. \()(19|20)\d\d")

# Closed-form constants a text may print, each with why it is not a measurement.
CLOSED_FORM = {
    "1/2": "Xavier on the fused in_proj: Var(q_i) = 2/(E + 3E)·E = 1/2",
    "1/3": "nn.Linear's Kaiming-uniform (a = √5): Var(q_i) = 1/3",
    "1/4": "(1/2)²: the scaled scores' variance under the fused Xavier init",
    "1/9": "(1/3)²: the scaled scores' variance under nn.Linear's default init",
    "100": "a percentage is 100 × a share",
    "12288": "GPT-3 175B's d_model (Brown et al. 2020, Table 2.1), cited as a published size",
    "96": "GPT-3 175B's number of heads (Brown et al. 2020, Table 2.1), cited as a published size",
}


def _numbers(text):
    """(token, value, denominator, is a percentage) of each number of `text` outside its placeholders."""
    bare = CITATION.sub(" ", PLACEHOLDER.sub(" ", text or ""))
    out = []
    for m in NUMBER.finditer(bare):
        whole, decimals, denominator = m.group(1), m.group(2) or "", m.group(3)
        value = float((whole + decimals).replace(" ", "").replace(",", ""))
        out.append((m.group(0).rstrip("% "), value, float(denominator) if denominator else None,
                    bool(m.group(4))))
    return out


def _values(obj):
    """Every number in a nested structure of args, params or documented strings."""
    if isinstance(obj, bool):
        return set()
    if isinstance(obj, (int, float)):
        return {abs(float(obj))}
    if isinstance(obj, str):
        return {v for _, v, _, _ in _numbers(obj)} | {d for _, _, d, _ in _numbers(obj) if d}
    if isinstance(obj, dict):
        return {v for x in obj.values() for v in _values(x)}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return {v for x in obj for v in _values(x)}
    if dataclasses.is_dataclass(obj):
        return _values(dataclasses.asdict(obj))
    return set()


def _setup_numbers():
    """{family: the numbers of its parameters (every profile) and of the documents' inputs its
    params.py keeps}: what a run is given, not what it computes."""
    out = {}
    for name, family in EXPERIMENTS.items():
        module = importlib.import_module(f"{family.package}.params")
        out[name] = _values(list(family.params.values())) | _values(
            [v for k, v in vars(module).items() if k.isupper()])
    return out


@pytest.fixture(scope="module")
def catalog():
    return vocabulary.catalog()


def _allowed(claim, by_id, per_doc, setup):
    own = _values([claim.quote, claim.documented, claim.args, claim.value, claim.margin,
                   claim.reference, claim.reference_quote, THRESHOLDS])
    if claim.threshold is not None:
        own |= _values(THRESHOLDS.get(claim.threshold, claim.threshold))
    families = {claim.family}
    for child in claim.over:
        own |= _values(by_id[child].args)
        families.add(by_id[child].family)
    return own | per_doc[claim.doc] | {v for f in families if f for v in setup[f]}


def _found(value, allowed):
    return any(math.isclose(value, a, rel_tol=1e-9, abs_tol=1e-12) for a in allowed)


def test_no_measured_number_is_typed_in_a_claims_text(catalog):
    by_id = {c.id: c for c in catalog.claims}
    per_doc = {}
    for c in catalog.claims:
        per_doc.setdefault(c.doc, set()).update(_values([c.quote, c.documented, c.value]))
    setup = _setup_numbers()
    closed = {float(k) for k in CLOSED_FORM if "/" not in k}
    problems = []
    for c in catalog.claims:
        allowed = _allowed(c, by_id, per_doc, setup) | closed
        for key in TEXTS:
            for token, value, denominator, percent in _numbers(getattr(c, key)):
                if token in CLOSED_FORM:
                    continue
                if percent:  # as printed in a quote (94.7%), or a level or share given (99%: 0.99)
                    if _found(value, per_doc[c.doc]) or _found(value / 100, allowed - per_doc[c.doc]):
                        continue
                elif _found(value, allowed) and (denominator is None or _found(denominator, allowed)):
                    continue
                problems.append(f"{c.id} {key}: {token}")
    assert not problems, (
        f"{len(problems)} number(s) in the claims' texts that no quote, argument, setup parameter or "
        "closed form gives: put a placeholder naming the claim that measures it, or rephrase:\n  "
        + "\n  ".join(problems)
    )


@pytest.mark.parametrize("text, numbers", [
    ("0.87 at d_k = 64, 1 300× and 97%", ["0.87", "64", "1 300", "97"]),
    ("99% of 4 000 rows, 2,000 steps, [8, 5, 8]", ["99", "4 000", "2,000", "8", "5", "8"]),
    ("W_q, h_0, GPT-2, ViT-22B, float16, 3E, §3.2.1, 1e-3, Henry et al. (2020), Yang et al. 2022", []),
    ("softmax(−0.66, -0.13)", ["0.66", "0.13"]),
    ("variance 1/3, not 1.", ["1/3", "1"]),
    ("{000.var-law-dk16} against {000.var-law-dk16:pct|1} or 0.5", ["0.5"]),
])
def test_numbers_are_read_as_a_reader_reads_them(text, numbers):
    assert [token for token, *_ in _numbers(text)] == numbers


def test_no_label_has_a_placeholder(catalog):
    """A label is printed as written (reportgen.judging.prose fills correct, note and boundary only):
    a measured number has no place in it, as a placeholder or otherwise."""
    bad = [f"{c.id}: {c.label}" for c in catalog.claims if PLACEHOLDER.search(c.label)]
    assert not bad, f"labels with a placeholder, which nothing fills: {bad}"
