"""The judge: every verdict comes from a claim's rule applied to a measurement."""

import math

import pytest

from reportgen.claims import Claim
from reportgen.experiments.measure import Measurement
from reportgen.formatting import fmt, printed_digits
from reportgen.judging import judge
from reportgen.model import verdict_counts
from reportgen.render.wording import words

CONFIRMED, PARTLY, CONTRADICTED, INCONCLUSIVE, UNVERIFIABLE = judge.VERDICTS


def make(rule="interval", documented="1", **kw):
    fields = dict(id="000.x", doc="000", section="S", quote="q", documented=documented, kind="statistical",
                  rule=rule, table="t", label="L", expected={"standard": "confirmed"}, measure="variance.var_qk",
                  justification="because")
    fields.update(kw)
    return Claim(**fields)



@pytest.mark.parametrize(
    "documented, value, verdict",
    [
        ("45.2", 2 * math.sqrt(512), CONTRADICTED),  # 45.25… rounds to 45.3
        ("22.6", math.sqrt(512), CONFIRMED),
        ("22.63", math.sqrt(512), CONFIRMED),
        ("11.3", math.sqrt(128), CONFIRMED),
        ("22.6", 2 * math.sqrt(128), CONFIRMED),
        ("4", 4.0, CONFIRMED),
        ("8.00", 8.0, CONFIRMED),
        ("8.00", 8.004, CONFIRMED),
        ("8.00", 8.006, CONTRADICTED),
        ("1026.39", 1026.39, CONFIRMED),  # thousands separators must not break the comparison
        ("1026.4", 1026.39, CONFIRMED),
        ("1026.3", 1026.39, CONTRADICTED),
        ("\u22120.5", -0.5, CONFIRMED),  # a typographic minus
    ],
)
def test_exact_at_the_printed_precision(documented, value, verdict):
    j = judge.judge(make(rule="exact", documented=documented), Measurement(value))
    assert j.verdict == verdict
    assert f"{printed_digits(documented.replace(chr(0x2212), '-'))} decimal place" in words(j).rule


def test_exact_shows_how_the_value_rounds():
    """The measured text shows enough digits to see the rounding: 45.255 for a printed 45.2."""
    j = judge.judge(make(rule="exact", documented="45.2"), Measurement(2 * math.sqrt(512)))
    assert words(j).measured == "45.255" and "45.3" in words(j).rule
    assert words(judge.judge(make(rule="exact", documented="4"), Measurement(4.0))).measured == "4"


def test_exact_vectors_and_alternative_readings():
    vector = make(rule="exact", documented=["0.50", "0.25", "0.25"])
    assert judge.judge(vector, Measurement((0.5, 0.25, 0.25))).verdict == CONFIRMED
    assert judge.judge(vector, Measurement((0.5, 0.3, 0.2))).verdict == CONTRADICTED
    other = Measurement((0.5, 0.3, 0.2), alternatives=(("W·E", (0.5, 0.25, 0.25)),))
    j = judge.judge(vector, other)
    assert j.verdict == CONFIRMED and "W·E" in words(j).rule
    assert judge.judge(vector, Measurement((1.0, 2.0))).verdict == UNVERIFIABLE  # wrong length


@pytest.mark.parametrize(
    "value, interval, verdict",
    [
        (1.0, (0.9, 1.1), CONFIRMED),
        (0.9, (0.9, 1.1), CONFIRMED),  # lower bound included
        (1.1, (0.9, 1.1), CONFIRMED),  # upper bound included
        (math.nextafter(0.9, 0), (0.9, 1.1), CONTRADICTED),
        (math.nextafter(1.1, 2), (0.9, 1.1), CONTRADICTED),
        (1.0, (float("nan"), 1.1), UNVERIFIABLE),
        (1.0, (0.9, float("inf")), UNVERIFIABLE),
        (1.0, (float("-inf"), float("inf")), UNVERIFIABLE),
    ],
)
def test_interval_boundaries(value, interval, verdict):
    """Confirmed inside the closed interval, contradicted just outside, unverifiable when not finite."""
    j = judge.judge(make(documented="≈ 1", value=value), Measurement(1.0, *interval, method="rule"))
    assert j.verdict == verdict
    assert words(j).rule.startswith("rule")


def test_interval_uses_the_documented_number():
    assert judge.judge(make(documented="64.0"), Measurement(63, 60, 64)).verdict == CONFIRMED
    assert judge.judge(make(documented="64.1"), Measurement(63, 60, 64)).verdict == CONTRADICTED
    assert judge.judge(make(documented="d_k", value=64.0), Measurement(63, 62, 65)).verdict == CONFIRMED
    assert judge.judge(make(documented="a word"), Measurement(1, 0, 2)).verdict == UNVERIFIABLE


def test_threshold_rules_and_named_thresholds():
    at_least = make(rule="at_least", threshold=0.10, bound="lo")
    assert judge.judge(at_least, Measurement(0.2, 0.12, 0.3)).verdict == CONFIRMED
    assert judge.judge(at_least, Measurement(0.2, 0.08, 0.3)).verdict == CONTRADICTED
    named = make(rule="at_least", threshold="saturated_max_weight")
    assert judge.judge(named, Measurement(0.95)).verdict == CONFIRMED
    assert judge.judge(named, Measurement(0.85)).verdict == CONTRADICTED
    assert judge.judge(make(rule="at_most", threshold=0), Measurement(0.0)).verdict == CONFIRMED
    assert judge.judge(make(rule="at_most", threshold=0), Measurement(float("nan"))).verdict == UNVERIFIABLE


def test_a_threshold_inside_the_values_interval_is_inconclusive():
    """A point value on one side of the threshold decides nothing when its own interval
    reaches the other side: another seed would give the other verdict."""
    vanish = make(rule="at_most", threshold=0.1, justification="'vanish' read as: below 1/10")
    j = judge.judge(vanish, Measurement(0.088, 0.072, 0.104, n=2000))
    assert j.verdict == INCONCLUSIVE and j.severity is None
    assert "0.072 to 0.104" in words(j).sentence and "both sides of the reading's threshold 0.1" in words(j).sentence
    # half-width 0.016 must shrink below the 0.012 gap: (0.016 / 0.012)² × 2000 = 3 556 samples
    assert "about 3 556 samples instead of 2 000 would decide" in words(j).sentence
    assert "reaches both sides" in words(j).rule
    # a ratio's interval, symmetric in logs: the samples are counted on the log scale
    ratio = judge.judge(make(rule="at_least", threshold=0.1), Measurement(0.35, 0.035, 3.5, n=2))
    assert ratio.verdict == INCONCLUSIVE and "about 7 samples instead of 2" in words(ratio).sentence
    # an interval on one side decides; so does a bound the claim names
    assert judge.judge(vanish, Measurement(0.088, 0.080, 0.096)).verdict == CONFIRMED
    assert judge.judge(vanish, Measurement(0.12, 0.105, 0.135)).verdict == CONTRADICTED
    upper = make(rule="at_most", threshold=0.1, bound="hi")
    assert judge.judge(upper, Measurement(0.088, 0.073, 0.105)).verdict == CONTRADICTED


def test_unverifiable_and_unavailable_say_why():
    j = judge.judge(make(rule="unverifiable", measure="", reason="needs a trained model"), None)
    assert (j.verdict, words(j).measured, words(j).rule) == (UNVERIFIABLE, "—", "needs a trained model")
    assert "not measured" in words(judge.unavailable(make(), "no d_k = 3")).rule


def test_verdict_counts_in_fixed_order():
    judged = [judge.judge(make(rule="exact", documented=d), Measurement(v))
              for d, v in (("22.6", math.sqrt(512)), ("45.2", 2 * math.sqrt(512)), ("4", 4.0))]
    counts = verdict_counts(judged)
    assert list(counts) == list(judge.VERDICTS)
    assert counts == {"confirmed": 2, "partly": 0, "contradicted": 1, "inconclusive": 0, "unverifiable": 0}
    from reportgen.render.results import claim_json

    assert claim_json(judged[0])["measurement"]["value"] == math.sqrt(512)
    assert claim_json(judged[1])["reason"]["same"] == [False]  # the reason as numbers, beside its words


@pytest.mark.parametrize(
    "x, digits, text",
    [(1234567.891, 2, "1 234 567.89"), (12.0, 0, "12"), (float("nan"), 2, "nan (non-finite!)"), (None, 2, "—"),
     (-3.14159, 3, "-3.142")],
)
def test_fmt(x, digits, text):
    """fmt: fixed precision, spaces as thousands separators, NaN flagged, None as a dash."""
    assert fmt(x, digits) == text


@pytest.mark.parametrize("text, digits", [("45.2", 1), ("4", 0), ("8.00", 2), ("1.0032", 4), ("1e3", 0)])
def test_printed_digits(text, digits):
    assert printed_digits(text) == digits


def test_equivalence_margin_gives_inconclusive_and_the_sample_size_needed():
    """Excess kurtosis 0 claimed; a ±0.09 interval cannot show |κ| ≤ 0.05: inconclusive, with n needed."""
    claim = make(documented="0", margin=0.05)
    j = judge.judge(claim, Measurement(0.01, -0.08, 0.10, n=20_000, method="99% CI"))
    assert j.verdict == INCONCLUSIVE and "samples" in words(j).sentence
    assert judge.judge(claim, Measurement(0.01, -0.03, 0.04, n=20_000)).verdict == CONFIRMED
    assert judge.judge(claim, Measurement(0.2, 0.1, 0.3, n=20_000)).verdict == CONTRADICTED


def test_severity_minor_for_rounding_material_otherwise():
    rounding = judge.judge(make(rule="exact", documented="45.2"), Measurement(2 * math.sqrt(512)))
    assert (rounding.verdict, rounding.severity) == (CONTRADICTED, "minor")
    wrong = judge.judge(make(rule="exact", documented="0.9175"), Measurement(0.9796))
    assert (wrong.verdict, wrong.severity) == (CONTRADICTED, "material")
    said = judge.judge(make(rule="exact", documented="45.2", severity="material"), Measurement(45.26))
    assert said.severity == "material"
    assert judge.judge(make(rule="exact", documented="4"), Measurement(4.0)).severity is None


def test_every_verdict_has_a_sentence_and_a_contradiction_states_the_correct_value():
    j = judge.judge(make(rule="exact", documented="45.2"), Measurement(2 * math.sqrt(512)))
    assert "45.25" in words(j).sentence and "45.3" in words(j).sentence
    q = judge.judge(make(rule="at_least", threshold=0.9, correct="only short rows saturate"), Measurement(0.5))
    assert q.verdict == CONTRADICTED and "only short rows saturate" in words(q).sentence


def test_statistics_that_disagree_make_partly():
    claim = make(rule="at_least", threshold="saturated_max_weight", label="rows are saturated")
    split = Measurement(0.85, method="mean", views=(("median", 0.97), ("share of rows > 0.99", 0.4)))
    j = judge.judge(claim, split)
    assert j.verdict == PARTLY and "median" in words(j).sentence
    assert judge.judge(claim, Measurement(0.95, views=(("median", 0.97),))).verdict == CONFIRMED


def test_summary_of_setups():
    setups = [judge.judge(make(id=f"000.s{i}", rule="exact", documented="1", label=f"setup {i}"), Measurement(v))
              for i, v in enumerate((1.0, 1.0, 2.0))]
    parent = make(id="000.all", rule="summary", measure="", over=("000.s0", "000.s1", "000.s2"))
    j = judge.summarize(parent, setups)
    assert j.verdict == PARTLY and "setup 2" in words(j).sentence and len(j.setups) == 3
    assert judge.summarize(parent, setups[:2]).verdict == CONFIRMED
    assert judge.summarize(parent, setups[2:]).verdict == CONTRADICTED
