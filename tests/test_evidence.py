"""No verdict stronger than its evidence: equivalence first, statements judged on what they
assert, words read with their band of reasonable cuts, and prose whose numbers are named."""

import math

import pytest
from test_judge import make as judge_claim

from reportgen import claims
from reportgen.errors import ConfigError
from reportgen.experiments.measure import Measurement
from reportgen.judging import judge, prose, vocabulary
from reportgen.model import Ref
from reportgen.render.wording import NOT_MEASURED, TOO_FEW, prose as said, words

CONFIRMED, PARTLY, CONTRADICTED, INCONCLUSIVE, UNVERIFIABLE = judge.VERDICTS


def make(rule="interval", documented="512", **kw):
    """A claim as test_judge makes them, documented 512 unless told (Var(q·k) at d_k = 512)."""
    return judge_claim(rule, documented, **kw)


@pytest.mark.parametrize("value, lo, hi, verdict", [
    (496.4, 483.6, 509.2, CONFIRMED),  # misses 512 but lies inside 512 ± 51.2: an exact identity holds
    (512.0, 500.0, 524.0, CONFIRMED),
    (600.0, 570.0, 630.0, CONTRADICTED),  # wholly beyond 512 + 51.2
    (420.0, 400.0, 455.0, CONTRADICTED),  # wholly below 512 − 51.2
    (470.0, 440.0, 500.0, INCONCLUSIVE),  # reaches across the margin's edge
    (512.0, 400.0, 620.0, INCONCLUSIVE),  # wider than the margin
])
def test_interval_is_equivalence_first(value, lo, hi, verdict):
    j = judge.judge(make(margin=51.2), Measurement(value, lo, hi, n=10_000, level=0.99))
    assert j.verdict == verdict, words(j).sentence
    if verdict == INCONCLUSIVE:
        assert "samples instead of 10 000 would" in words(j).sentence


def test_no_row_contradicted_inside_its_margin():
    """Whatever the interval, one wholly inside documented ± margin never reads contradicted."""
    for centre in (470.0, 490.0, 512.0, 530.0, 550.0):
        for half in (0.5, 5.0, 12.0):
            j = judge.judge(make(margin=51.2), Measurement(centre, centre - half, centre + half, n=100))
            if 512 - 51.2 <= centre - half and centre + half <= 512 + 51.2:
                assert j.verdict == CONFIRMED


def test_interval_is_labelled_with_its_level_and_digits_follow_the_width():
    j = judge.judge(make(margin=51.2), Measurement(496.4123, 483.61, 509.22, n=1000, digits=3, level=0.99))
    assert words(j).measured.startswith("496 (99% CI [484, 509])")  # a width of 26: no decimals
    wide = judge.judge(make(margin=51.2), Measurement(5.0, 0.0, 1_235_184_471_432.172, n=2, level=0.99))
    assert "too few draws to decide" in words(wide).measured and "1 235" not in words(wide).measured


def test_a_consistency_setup_never_lifts_a_wrong_number():
    """'Variance ≈ 2.30': wrong as a measurement, right as 6.89 ÷ 3; the statement is contradicted."""
    summary = make(rule="summary", kind="arithmetic", measure="", family_name="worked", over=("a", "b"))
    wrong = judge.judge(make(id="a", rule="exact", documented="2.30", kind="arithmetic"), Measurement(1.81))
    follows = judge.judge(make(id="b", rule="exact", documented="2.30", kind="consistency", label="6.89 ÷ 3"),
                          Measurement(2.2967))
    j = judge.summarize(summary, [wrong, follows])
    assert j.verdict == CONTRADICTED and j.severity == "material"
    assert "6.89 ÷ 3" in words(j).sentence and "does not make it right" in words(j).sentence


def test_a_word_near_its_cut_is_an_overstatement():
    """'Extremely peaked' at 0.865 against the 0.9 cut: contradicted, minor; at 0.70: material."""
    peaked = make(rule="at_least", kind="qualitative", documented="extremely peaked",
                  threshold="saturated_max_weight", measure="saturation.max_weight")
    near = judge.judge(peaked, Measurement(0.865, 0.861, 0.867, n=4000, level=0.99))
    assert near.verdict == CONTRADICTED and near.severity == "minor"
    assert "band of reasonable cuts" in words(near).sentence
    far = judge.judge(peaked, Measurement(0.70, 0.68, 0.72, n=4000, level=0.99))
    assert far.verdict == CONTRADICTED and far.severity == "material"
    own = make(rule="at_least", kind="qualitative", threshold=0.5, band=(0.4, 0.6), band_reason="why")
    assert judge.judge(own, Measurement(0.45)).severity == "minor"


def filled(text, judged):
    """A text as the report prints it: its numbers resolved by judging, printed by rendering."""
    return said(prose.resolve(text, judged))


def test_prose_resolves_numbers_as_numbers():
    """Judging hands rendering a number and its decimals, never the number's text."""
    j = judge.judge(make(id="000.var-law-dk512", margin=51.2), Measurement(519.06, 489.06, 549.04, n=4000, level=0.99))
    parts = prose.resolve("Var is {000.var-law-dk512:value|1}.", {j.id: j}).parts
    assert parts == ("Var is ", Ref("value", 519.06, 1), ".")


def test_prose_fills_named_numbers():
    j = judge.judge(make(id="000.var-law-dk512", margin=51.2),
                    Measurement(519.06, 489.06, 549.04, n=4000, digits=3, level=0.99, detail=(("std", 22.78, 2),)))
    by_id = {j.id: j}
    text = "Var is {000.var-law-dk512:value|1} ({000.var-law-dk512:interval|0}), std {000.var-law-dk512:detail1|1}."
    assert filled(text, by_id) == "Var is 519.1 (99% CI 489 to 549), std 22.8."
    assert filled("{000.var-law-dk512:pct}", {}) == NOT_MEASURED
    assert prose.bad_fields("{000.x:median}") == ["{000.x:median}"]


def test_prose_withholds_an_interval_the_measured_column_withholds():
    """Two draws, or identical draws short of a sign test: no bound in prose either."""
    two = judge.judge(make(id="000.var-law-dk512", margin=51.2), Measurement(519.0, 480.0, 560.0, n=2, level=0.99))
    same = judge.judge(make(id="000.var-law-dk512", margin=51.2), Measurement(4.0, 4.0, 4.0, n=5, level=0.99))
    for j in (two, same):
        text = "({000.var-law-dk512:interval}; from {000.var-law-dk512:lo})"
        assert filled(text, {j.id: j}) == f"({TOO_FEW}; from {NOT_MEASURED})"


def test_findings_prose_names_only_claims_that_exist(tmp_path):
    """A renamed id in findings.toml fails the load with one line naming it."""
    folder = tmp_path / "claims"
    folder.mkdir()
    source = claims.default_folder()
    for path in source.glob("*.toml"):
        (folder / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    findings = (folder / "findings.toml").read_text(encoding="utf-8")
    (folder / "findings.toml").write_text(findings.replace("001.grad-norm-dk64-n64", "001.grad-norm-renamed"),
                                          encoding="utf-8")
    with pytest.raises(ConfigError, match="001.grad-norm-renamed, which is no claim"):
        vocabulary.catalog(folder)


def test_every_beat_and_correction_names_real_claims():
    catalog = vocabulary.catalog()
    ids = {c.id for c in catalog.claims}
    assert catalog.story and catalog.unsaid
    for beat in catalog.story:
        assert set(beat.claims) <= ids


def test_templates_type_no_measured_number():
    """Text typed in the templates carries numbers of structure only (section numbers, SHA-256,
    200 dpi, 16 hex digits); every measured number comes in through the context."""
    import re
    from pathlib import Path

    structural = re.compile(r"^(?:[0-9A-C](?:\.[0-9])? |.*SHA-256.*|.*200 dpi.*|.*16 hex digits.*|.*right\)=1.*)")
    root = Path(__file__).resolve().parents[1] / "templates"
    found = []
    for path in sorted(root.glob("*.j2")):
        text = re.sub(r"\{#.*?#\}|\{\{.*?\}\}|\{%.*?%\}|<script>.*?</script>", "",
                      path.read_text(encoding="utf-8"), flags=re.S)
        for line in re.sub(r"<[^>]+>", "\n", text).splitlines():
            line = line.strip()
            if re.search(r"\d", line) and not structural.match(line):
                found.append(f"{path.name}: {line[:80]}")
    assert not found, found


def test_no_verdict_rests_on_too_few_draws():
    """Two draws, however narrow their interval, decide nothing; the measured text said so, and
    now the verdict agrees with it."""
    for lo, hi in ((0.8, 0.9), (1.0, 1.0)):
        j = judge.judge(make(margin=0.05), Measurement(0.85 if lo != hi else 1.0, lo, hi, n=2, level=0.99))
        assert j.verdict == INCONCLUSIVE, words(j).sentence
        assert "too few draws to decide" in words(j).measured and "2 draws are too few to decide" in words(j).sentence


def test_identical_draws_decide_only_where_a_sign_test_would():
    """Every seed gave the same grid value: a t interval of zero width is no 99% evidence. The
    sign test's interval, smallest to largest draw, misses the median with probability
    2 × 0.5ⁿ: 6.25% with 5 draws, 1.6% with 7, 0.8% with 8."""
    claim = make(rule="at_least", threshold=2, documented="essential", margin=None)
    five = judge.judge(claim, Measurement(4.0, 4.0, 4.0, n=5, level=0.99))
    assert five.verdict == INCONCLUSIVE
    assert "all 5 draws came out the same" in words(five).sentence and "needs 8" in words(five).sentence
    assert "verdict stands" not in words(five).rule and words(five).rule.endswith("for a 99% verdict")
    seven = judge.judge(claim, Measurement(4.0, 4.0, 4.0, n=7, level=0.99))
    assert seven.verdict == INCONCLUSIVE, words(seven).sentence
    eight = judge.judge(claim, Measurement(4.0, 4.0, 4.0, n=8, level=0.99))
    assert eight.verdict == CONFIRMED, words(eight).sentence
    spread = judge.judge(claim, Measurement(4.0, 3.0, 5.0, n=5, level=0.99))
    assert spread.verdict == CONFIRMED  # an interval with width is judged as it is
    exact = judge.judge(claim, Measurement(4.0))  # a computed value has no draws to count
    assert exact.verdict == CONFIRMED


def test_identical_draws_averaged_to_a_hair_of_width_are_still_identical():
    """The mean of three 0.1s is not exactly 0.1: a t interval of 1e-16 is zero width."""
    claim = make(rule="at_least", threshold=0.05, documented="essential", margin=None)
    j = judge.judge(claim, Measurement(0.1, 0.09999999999999992, 0.10000000000000012, n=3, level=0.99))
    assert j.verdict == INCONCLUSIVE and "all 3 draws came out the same" in words(j).sentence


def test_one_seed_decides_no_paired_comparison():
    """One seed gives no interval; the paired measurement says it decides nothing, and a
    condition on one seed is neither sure to hold nor sure to fail."""
    from reportgen.experiments.paired import ONE_SEED, Conditions, count_measurement, ratio_measurement

    m = ratio_measurement([4.0], "steps, unscaled over scaled")
    assert m.undecided == ONE_SEED
    j = judge.judge(make(rule="at_least", threshold=2, documented="essential", margin=None), m)
    assert j.verdict == INCONCLUSIVE
    conditions = Conditions()
    conditions.add("unscaled slower", [4.0], 2.0)
    counted = count_measurement(conditions, 1, "of 1")
    assert (counted.lo, counted.hi) == (0.0, 1.0) and ONE_SEED in counted.method
    assert ratio_measurement([4.0, 4.5], "two seeds").undecided == ""  # two give an interval: the judge weighs it


def test_a_condition_on_identical_or_never_seeds_is_sure_only_with_a_sign_tests_count():
    """Five seeds that all 'never' reach the accuracy (inf), or all give the same ratio, put no
    99% interval beside the cut; eight do (2 × 0.5⁸ < 1%). Seeds with spread are judged by their
    t interval as before."""
    from reportgen.experiments.paired import Conditions
    from reportgen.experiments.measure import sign_test_draws

    assert sign_test_draws(0.99) == 8 and sign_test_draws(0.95) == 6
    c = Conditions()
    c.add("never, 5 seeds", [math.inf] * 5, 2.0)
    c.add("same ratio, 5 seeds", [4.0] * 5, 2.0)
    c.add("never, 8 seeds", [math.inf] * 8, 2.0)
    c.add("spread, 5 seeds", [3.9, 4.0, 4.1, 4.0, 3.95], 2.0)
    c.add("split, 8 seeds", [math.inf] * 7 + [1.0], 2.0)
    sure = [row[2] for row in c.rows]
    assert sure == [False, False, True, True, False]
    assert [row[4] for row in c.rows][:2] == [8, 8] and c.rows[4][4] is None
    assert "about 8 seeds would decide" in c.open_text()


def test_a_question_answered_partly_is_answered_mixed_not_fails():
    """A statement that holds in one setup and fails in another (partly) is right in part: the
    Findings' answer to its question is 'mixed', never 'not in the ways the documents warn of'."""
    from reportgen.judging.story import choice

    assert choice(["partly", "inconclusive", "inconclusive"]) == "mixed"
    assert choice(["contradicted", "inconclusive"]) == "fails"
    assert choice(["confirmed", "contradicted"]) == "mixed"
    assert choice(["inconclusive", "unverifiable"]) == "open"
    assert choice(["confirmed", "partly"]) == "mixed"
