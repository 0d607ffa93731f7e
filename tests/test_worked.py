"""The worked family against hand-derived arithmetic and verdicts (quick profile, in-process)."""

import importlib
import math

import pytest
from conftest import judged_claims, quick_results

from reportgen import experiments
from reportgen.experiments.family import ClaimTable
from reportgen.experiments.worked import params, run, tables
from reportgen.judging import judge, vocabulary
from reportgen.render.wording import words


@pytest.fixture(scope="module")
def results():
    """Quick-profile results after the JSON round trip the pipeline applies."""
    return quick_results("worked")


@pytest.fixture(scope="module")
def judged():
    """{claim id: Judged} of the worked family's claims on the quick results."""
    return judged_claims("worked")


def verdicts(judged, *ids):
    return [judged[i].verdict for i in ids]


def test_tens_variance_population_400(results, judged):
    """[10, …, 70]: Σ(x − 40)² = 2800, so 2800/7 = 400 (np.var) and 2800/6 = 466.67; ÷ 10 gives 4."""
    tens = results["variance_arithmetic"]["tens"]
    assert tens["population"] == pytest.approx(400) and tens["sample"] == pytest.approx(2800 / 6)
    assert results["variance_arithmetic"]["tens_scaled"]["population"] == pytest.approx(4)
    assert verdicts(judged, "002.ex-tens-var", "002.ex-tens-var-divided") == [judge.CONFIRMED] * 2


def test_002_step4_variances(results, judged):
    """Step 3's nine scores sum to 46 with squares 284: Var = 440/81 (÷ n) or 55/9 (÷ n − 1), not 6.89.

    Scaled by 1/√3 they give 440/243 = 1.81 or 55/27 = 2.04, not 2.30; yet 6.89/3 = 2.297 → 2.30,
    so the two printed values agree with each other.
    """
    step3 = results["money_bank"]["variance_candidates"]["Step 3's QKᵀ"]
    assert step3["population"] == pytest.approx(440 / 81) and step3["sample"] == pytest.approx(55 / 9)
    scaled = results["money_bank"]["variance_candidates"]["Step 3's QKᵀ / √3"]
    assert scaled["population"] == pytest.approx(440 / 243) and scaled["sample"] == pytest.approx(55 / 27)
    candidates = [x for v in results["money_bank"]["variance_candidates"].values() for x in v.values()]
    assert not any(f"{x:.2f}" in ("6.89", "2.30") for x in candidates)  # none of them, either convention
    assert judged["002.ex-step4-var-over-dk"].verdict == judge.CONFIRMED


def test_002_projections_follow_from_neither_convention(results, judged):
    """E_money·W_Q = 2·[1,0,1] + 1·[0,1,0] + 3·[1,1,1] = [5, 4, 5]; W_Q·E_money = [5, 1, 6]; 002 prints [2, 1, 3]."""
    q = results["money_bank"]["projections"]["W_Q"]
    assert q["E·W"][0] == [5, 4, 5] and q["W·E"][0] == [5, 1, 6]
    ids = [f"002.ex-step2-{label}-{word}" for label in ("q", "k") for word in params.WORDS]
    assert verdicts(judged, *ids) == [judge.CONTRADICTED] * 6
    money = judged["002.ex-step2-q-money"].measurement
    assert money.value == (5, 4, 5) and money.alternatives == (("W_Q·E", (5, 1, 6)),)


def test_002_nine_dot_products_confirmed(judged):
    """Step 3's written dot products are right for the vectors Step 2 states."""
    dots = [j for i, j in judged.items() if i.startswith("002.ex-dot-")]
    assert len(dots) == 9 and all(j.verdict == judge.CONFIRMED for j in dots)


def test_002_percentages(results, judged):
    """e^10 / (e^5 + e^10 + e^7) = 94.6499…%, printed 94.7: only 002's rounded exps give 94.650 1%."""
    assert results["money_bank"]["percent"][1] == pytest.approx(100 / (1 + math.exp(-5) + math.exp(-3)))
    bank = judged["002.ex-percent-unscaled-bank"]
    assert bank.verdict == judge.CONTRADICTED and "94.6501" in words(bank).measured
    scaled = [f"002.ex-percent-scaled-{w}" for w in params.WORDS]
    assert verdicts(judged, *scaled) == [judge.CONFIRMED] * 3


def test_002_dimension_products(judged):
    """0.707² × 17.33 = 8.662 → 8.66; 0.577² × 52.33 = 17.422, but 52.33/3 = 17.443 → 17.44 with
    0.577 read as the display of 1/√3 (a reading the exact rule accepts)."""
    expected = {
        "002.ex-dims-2d-new": judge.CONFIRMED,
        "002.ex-dims-3d-new": judge.CONFIRMED,
        "002.ex-dims-2d-approx": judge.CONTRADICTED,  # 53% of 16.33
        "002.ex-dims-3d-approx": judge.CONFIRMED,  # 107% of 16.33
        "002.ex-dims-3d-ratio": judge.CONFIRMED,  # 52.33/16.33 = 3.20
        "002.ex-dims-original": judge.UNVERIFIABLE,
    }
    assert {i: judged[i].verdict for i in expected} == expected
    assert judged["002.ex-dims-3d-new"].measurement.value == pytest.approx(0.577**2 * 52.33)


def test_approximately_reads_within_ten_percent_or_the_printed_digit(results):
    """'≈ x' confirmed within 10% of x or within half a unit of x's last digit, and not beyond."""
    from reportgen.experiments.worked.measures import _near

    lo, hi = _near(1.0, 0.10, 2)
    assert (lo, hi) == pytest.approx((1 / 1.1, 1 / 0.9))
    lo, hi = _near(0.0132, 0.10, 2)  # the half unit 0.005 is wider than 10% here
    assert (lo, hi) == pytest.approx((0.0082, 0.0182))


def test_000_model_head_sizes(results, judged):
    """d_model / heads is 64 for BERT and every GPT-2 size, 128 for GPT-3; √128 = 11.3 prints as 11."""
    sizes = [s for row in results["models"] for s in row["sizes"]]
    assert [s["d_k"] for s in sizes] == [64, 64, 64, 64, 64, 64, 128]
    d_k_rows = [j for i, j in judged.items() if i.startswith("000.ex-dk-")]
    assert len(d_k_rows) == 7 and all(j.verdict == judge.CONFIRMED for j in d_k_rows)
    assert judged["000.ex-std-dk128"].verdict == judge.CONFIRMED


def test_attention_rows_against_closed_forms(results):
    """Var(q·k/√d_k) = 1 within 10%; scaled rows never vanish; unscaled rows saturate more as d_k grows."""
    cells = results["rows"]
    assert [c["d_k"] for c in cells] == list(params.ROW_DIMS)
    for c in cells:
        assert c["score_var"] / c["d_k"] == pytest.approx(1, rel=0.10), c["d_k"]
        assert c["scaled"]["vanished"] == 0
        assert 0 < c["scaled"]["jac_fro"]["mean"] < 1 and 1 / params.ROW_KEYS <= c["scaled"]["max_w"]["mean"] < 1
    weights = [c["unscaled"]["max_w"]["mean"] for c in cells]
    assert weights == sorted(weights)


def test_summary_verdicts(judged):
    """At d_k = 512 unscaled rows saturate and most Jacobians vanish; at d_k = 64 they are not yet saturated."""
    assert judged["000.ex-summary-attention-unscaled"].verdict == judge.CONFIRMED
    assert judged["000.ex-summary-learning-unscaled"].verdict == judge.CONFIRMED
    assert judged["004.ex-gradient-flow-scaled"].verdict == judge.CONFIRMED
    assert judged["003.ex-summary-range-unscaled-dk64"].verdict == judge.CONTRADICTED  # mean largest weight ≈ 0.86
    assert judged["003.ex-summary-range-unscaled-dk128"].verdict == judge.CONFIRMED


def test_every_claim_has_its_table_slot(results):
    """Each worked claim names a ClaimTable of the layout, and every slot shows at least one claim."""
    slots = {t.slug for t in run_tables(results) if isinstance(t, ClaimTable)}
    named = {c.table for c in vocabulary.catalog().of_family("worked")}
    assert named == slots


def run_tables(results):
    return tables.tables(results)


def test_jacobian_norms_match_the_explicit_jacobian():
    """jacobian_norms against diag(p) − ppᵀ built in full, and near one-hot against its first-order form."""
    import torch

    p = torch.softmax(torch.tensor([[3.0, 1.0, 0.0, -2.0], [1.0, 1.0, 1.0, 1.0]], dtype=torch.float64), -1)
    jac = torch.diag_embed(p) - p[:, :, None] * p[:, None, :]  # (2, 4, 4)
    fro, largest = run.jacobian_norms(p)
    assert torch.allclose(fro, torch.linalg.matrix_norm(jac), rtol=1e-12, atol=0)
    assert torch.allclose(largest, jac.abs().amax((-2, -1)), rtol=1e-12, atol=0)
    # Near one-hot (p_max rounds to 1.0 in float64): small weights e_j = p_j give J_11 = Σe,
    # J_jj ≈ e_j, J_1j ≈ −e_j, so ‖J‖_F² ≈ (Σe)² + 3Σe² to first order.
    logits = torch.tensor([[40.0, 2.0, 1.0, 0.0]], dtype=torch.float64)
    p = torch.log_softmax(logits, -1).exp()
    e = torch.exp(logits[0, 1:] - 40.0)
    fro, largest = run.jacobian_norms(p)
    assert fro.item() == pytest.approx(math.sqrt(e.sum().item() ** 2 + 3 * (e * e).sum().item()), rel=1e-9)
    assert largest.item() == pytest.approx(e.sum().item(), rel=1e-9)


def _family_parts():
    """{section title: its PART_ headings} for every experiment family."""
    out = {}
    for experiment in experiments.EXPERIMENTS.values():
        module = importlib.import_module(f"reportgen.experiments.{experiment.name}")
        out[experiment.title] = {getattr(module, n) for n in dir(module) if n.startswith("PART_")}
    return out


def test_pointers_name_real_sections():
    """Every 'answered in' names an experiment's title and, when given, one of its sub-headings."""
    parts = _family_parts()
    places = [where for _, _, where in tables.EXERCISES if where]
    places += [where for _, _, where in tables.ELSEWHERE]
    for place in places:
        title, _, part = place.partition(" › ")
        assert title in parts, place
        assert not part or part in parts[title], place


def test_pointed_to_sections_check_the_statement():
    """A statement listed as checked elsewhere has a claim of its document section in that family."""
    families = {e.title: e.name for e in experiments.EXPERIMENTS.values()}
    catalog = vocabulary.catalog()
    for source, statement, place in tables.ELSEWHERE:
        name = families[place.partition(" › ")[0]]
        cited = {(c.doc, c.section) for c in catalog.of_family(name)}
        # A claim of the section or of a sub-part of it ('Summary (Key takeaway)').
        assert any(doc == source.doc and section.startswith(source.section) for doc, section in cited), (
            statement, place)
