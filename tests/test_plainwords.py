"""The Findings in plain words: labels without document numbers, how far off in words, one clause."""

from types import SimpleNamespace

import pytest

from reportgen.experiments.measure import Measurement
from reportgen.judging.printed import printed_over_true
from reportgen.render import plainwords

DOCS = ["000", "001", "002", "003", "004"]


@pytest.mark.parametrize("label, plain", [
    ("000: s = (20, 22, 18, 21), unscaled: p1", "s = (20, 22, 18, 21), unscaled: p1"),
    ("000 Visual Summary: with scaling: p2", "Visual Summary: with scaling: p2"),
    ("∂L/∂S through the softmax, d_k = 64 (003's claim)", "∂L/∂S through the softmax, d_k = 64"),
    ("vanishing gradients at 003's large d_k (64, 128)", "vanishing gradients at the document's large d_k (64, 128)"),
    ("histogram range of 1 000 dot products, d = 100", "histogram range of 1 000 dot products, d = 100"),
    ("excess kurtosis of q·k at d_k = 1", "excess kurtosis of q·k at d_k = 1"),
])
def test_a_label_loses_its_document_number_and_nothing_else(label, plain):
    assert plainwords.plain_label(label, DOCS) == plain


def test_a_course_document_id_is_taken_out_too():
    assert plainwords.plain_label("lecture5: peak weight at n = 64", ["lecture5"]) == "peak weight at n = 64"


@pytest.mark.parametrize("ratio, words", [
    (0.2, "20% of the exact value"), (0.87, "87% of the exact value"), (1.27, "127% of the exact value"),
    (3.0, "3.0 times the exact value"), (1.0, ""), (None, ""),
])
def test_how_far_says_the_ratio_in_words(ratio, words):
    assert plainwords.how_far(ratio) == words


def test_the_essence_of_a_correction_is_its_first_clause_without_asides():
    text = ("q·k has mean 0 and variance d_k but is not normal at small d_k: its excess kurtosis is 6/d_k "
            "(6 at d_k = 1, where it is a product of two normals); it approaches N(0, d_k) only as d_k grows.")
    assert plainwords.essence(text) == ("q·k has mean 0 and variance d_k but is not normal at small d_k: "
                                        "its excess kurtosis is 6/d_k")
    # a printed vector in parentheses is no aside: it stays
    assert plainwords.essence("softmax([1, 0.5]) is (0.62, 0.38), which adds to 1.") == \
        "softmax([1, 0.5]) is (0.62, 0.38), which adds to 1"


@pytest.mark.parametrize("correct, read_on", [
    ("At d_k = 64 the gradient does not vanish", "at d_k = 64 the gradient does not vanish"),
    ("Xavier-uniform gives 1/2", "Xavier-uniform gives 1/2"),
    ("nn.Linear's default gives 1/3", "nn.Linear's default gives 1/3"),
])
def test_a_correction_reads_on_after_but_keeping_a_name_capitalised(correct, read_on):
    assert plainwords._but(correct) == read_on


def claim(documented, value=None):
    return SimpleNamespace(documented=documented, value=value)


def test_printed_over_true_is_the_worst_entry_and_none_without_a_number():
    assert printed_over_true(claim("0.018"), Measurement(0.09)) == pytest.approx(0.2)
    assert printed_over_true(claim(["0.5", "0.018"]), Measurement((0.5, 0.09))) == pytest.approx(0.2)
    assert printed_over_true(claim("unit variance", value=1.0), Measurement(0.25)) == pytest.approx(4.0)
    assert printed_over_true(claim("gradients vanish"), Measurement(0.3)) is None
    assert printed_over_true(claim("0"), Measurement(0.1)) is None
    assert printed_over_true(claim("-1"), Measurement(1.0)) is None
    assert printed_over_true(claim("1"), None) is None
