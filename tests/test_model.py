"""The report model between judging and rendering: numbers stay numbers until a template formats them."""

import dataclasses
import enum
import re
import typing

import pytest
from test_judge import make

from reportgen import model
from reportgen.experiments.measure import Measurement
from reportgen.judging import judge, prose
from reportgen.render import wording

# The model's text fields, each data and never a number's printout: what a claims file, a document
# or a measure says in words (a label, a question, why a measure could not be computed), a
# placeholder's field name, a document's id, or a section's error as the traceback said it.
DATA = {
    ("View", "label"), ("Reason", "matched_by"), ("Reason", "undecided"), ("Reason", "why"),
    ("Ref", "field"), ("Beat", "question"), ("Beat", "which"), ("Section", "error"), ("DocumentFindings", "doc"), ("Reason", "band_why"),
}
NUMBERS = (int, float, bool)


def model_classes():
    return [c for c in vars(model).values() if dataclasses.is_dataclass(c) and c.__module__ == model.__name__]


def kinds(annotation):
    """The plain types an annotation allows (X | None, tuple, dict ...)."""
    args = typing.get_args(annotation)
    return [k for a in args for k in kinds(a)] if args else [annotation]


@pytest.mark.parametrize("cls", model_classes(), ids=lambda c: c.__name__)
def test_no_model_field_is_formatted_text(cls):
    """A field is a number, a flag, an enum, another part of the model, a container of them, or a
    reference to the claim, run or measurement it is about; text only where DATA says it is data."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        for kind in kinds(hints[f.name]):
            if kind is str:
                assert (cls.__name__, f.name) in DATA, f"{cls.__name__}.{f.name} is text between judging and rendering"
            else:
                assert kind in (*NUMBERS, type(None), tuple, dict, object) or (
                    isinstance(kind, type) and (issubclass(kind, enum.Enum) or dataclasses.is_dataclass(kind))), (
                    cls.__name__, f.name, kind)


def walk(value, seen=None):
    """Every value reachable from a model instance, with the (class, field) it sits in."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return
    seen.add(id(value))
    if dataclasses.is_dataclass(value) and type(value).__module__ == model.__name__:
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            yield type(value).__name__, f.name, item
            if f.name not in ("claim", "measurement", "compared", "run"):  # what the model is about, not the model
                yield from walk(item, seen)
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from walk(item, seen)


CASES = [
    (dict(rule="exact", documented="45.2"), Measurement(45.254834)),
    (dict(rule="interval", documented="1.0", margin=0.05), Measurement(1.01, 0.98, 1.04, n=4000, level=0.99)),
    (dict(rule="interval", documented="1.0", margin=0.01), Measurement(1.01, 0.98, 1.04, n=4000, level=0.99)),
    (dict(rule="at_least", documented="high", threshold=0.9, justification="most rows"),
     Measurement(0.95, 0.93, 0.97, n=500, level=0.99, views=(("median", 0.8),))),
    (dict(rule="at_most", documented="low", threshold=0.1, justification="few"),
     Measurement(0.09, 0.072, 0.104, n=2000, level=0.99)),
]


@pytest.mark.parametrize("fields, measurement", CASES)
def test_a_judged_claim_carries_numbers_and_rendering_words_them(fields, measurement):
    j = judge.judge(make(**fields), measurement)
    for cls, name, value in walk(j):
        if isinstance(value, str) and not isinstance(value, enum.Enum):
            assert (cls, name) in DATA or value == "", (cls, name, value)
    said = wording.words(j)
    assert said.measured and said.rule and said.sentence  # the words exist, made from the numbers


def test_a_text_naming_a_number_keeps_the_number():
    j = judge.judge(make(id="000.var-law-dk512", rule="interval", documented="512", margin=51.2),
                    Measurement(519.06, 489.06, 549.04, n=4000, level=0.99))
    resolved = prose.resolve("{000.var-law-dk512|1} ({000.var-law-dk512:interval|0})", {j.id: j})
    numbers = [p for p in resolved.parts if isinstance(p, model.Ref)]
    assert numbers[0].value == 519.06 and numbers[1].measurement is j.measurement
    assert not any(re.search(r"\d", p) for p in resolved.parts if isinstance(p, str))
    assert wording.prose(resolved) == "519.1 (99% CI 489 to 549)"
