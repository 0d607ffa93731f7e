"""The worked family against hand-derived arithmetic and verdicts (quick profile, in-process)."""

import importlib
import math
import pkgutil

import pytest
from conftest import run_experiment

from reportgen import claims, experiments
from reportgen.experiments import worked, worked_report


@pytest.fixture(scope="module")
def results():
    """Quick-profile results after the JSON round trip the pipeline applies."""
    return run_experiment(worked.EXPERIMENT, worked.PARAMS["quick"])


@pytest.fixture(scope="module")
def tables(results):
    return worked.EXPERIMENT.tables(results)


@pytest.fixture(scope="module")
def checks(tables):
    """{(table slug, quantity): check}."""
    return {(t.slug, c.quantity): c for t in tables for c in t.checks}


def verdict(checks, slug, start):
    """The verdict of the one check in `slug` whose quantity starts with `start`."""
    found = [c for (s, q), c in checks.items() if s == slug and q.startswith(start)]
    assert len(found) == 1, (slug, start, found)
    return found[0].verdict





def test_tens_variance_population_400(results, checks):
    """[10, …, 70]: Σ(x − 40)² = 2800, so 2800/7 = 400 (np.var) and 2800/6 = 466.67; ÷ 10 gives 4."""
    tens = results["variance_arithmetic"]["tens"]
    assert tens["population"] == pytest.approx(400) and tens["sample"] == pytest.approx(2800 / 6)
    assert results["variance_arithmetic"]["tens_scaled"]["population"] == pytest.approx(4)
    assert verdict(checks, "worked-002-tens", "Var([10") == claims.CONFIRMED
    assert verdict(checks, "worked-002-tens", "Var after") == claims.CONFIRMED


def test_002_step4_variances(results, checks):
    """Step 3's nine scores sum to 46 with squares 284: Var = 440/81 (÷ n) or 55/9 (÷ n − 1), not 6.89.

    Scaled by 1/√3 they give 440/243 = 1.81 or 55/27 = 2.04, not 2.30; yet 6.89/3 = 2.297 → 2.30,
    so the two printed values agree with each other.
    """
    step3 = results["money_bank"]["variance_candidates"]["Step 3's QKᵀ"]
    assert step3["population"] == pytest.approx(440 / 81) and step3["sample"] == pytest.approx(55 / 9)
    scaled = results["money_bank"]["variance_candidates"]["Step 3's QKᵀ / √3"]
    assert scaled["population"] == pytest.approx(440 / 243) and scaled["sample"] == pytest.approx(55 / 27)
    conventions = next(t for t in worked.EXPERIMENT.tables(results) if t.slug == "worked-002-variance-conventions")
    assert "none of them" in conventions.caption
    assert verdict(checks, "worked-002-steps45", "Step 4: the printed 6.89") == claims.CONFIRMED


def test_002_projections_follow_from_neither_convention(results, checks):
    """E_money·W_Q = 2·[1,0,1] + 1·[0,1,0] + 3·[1,1,1] = [5, 4, 5]; W_Q·E_money = [5, 1, 6]; 002 prints [2, 1, 3]."""
    q = results["money_bank"]["projections"]["W_Q"]
    assert q["E·W"][0] == [5, 4, 5] and q["W·E"][0] == [5, 1, 6]
    for label in ("q", "k"):
        for word in worked.WORDS:
            assert verdict(checks, "worked-002-projections", f"Step 2: {label}_{word}") == claims.CONTRADICTED


def test_002_nine_dot_products_confirmed(checks):
    """Step 3's written dot products are right for the vectors Step 2 states."""
    dots = [c for (slug, _), c in checks.items() if slug == "worked-002-dots"]
    assert len(dots) == 9 and all(c.verdict == claims.CONFIRMED for c in dots)


def test_002_percentages(results, checks):
    """e^10 / (e^5 + e^10 + e^7) = 94.6499…%, printed 94.7: only 002's rounded exps give 94.650 1%."""
    assert results["money_bank"]["percent"][1] == pytest.approx(100 / (1 + math.exp(-5) + math.exp(-3)))
    bank = checks[("worked-002-percent", "unscaled: money → bank, softmax([5, 10, 7])")]
    assert bank.verdict == claims.CONTRADICTED and "94.6501" in bank.measured
    scaled = [c for (slug, q), c in checks.items() if slug == "worked-002-percent" and q.startswith("scaled")]
    assert len(scaled) == 3 and all(c.verdict == claims.CONFIRMED for c in scaled)


def test_002_dimension_products(checks):
    """0.707² × 17.33 = 8.662 → 8.66; 0.577² × 52.33 = 17.422, not 17.44 (52.33/3 = 17.443 is)."""
    slug = "worked-002-dims"
    assert verdict(checks, slug, "2D: new variance (0.707)²") == claims.CONFIRMED
    assert verdict(checks, slug, "3D: new variance (0.577)²") == claims.CONTRADICTED
    assert verdict(checks, slug, "2D: new variance 8.66 ≈") == claims.CONTRADICTED  # 53% of 16.33
    assert verdict(checks, slug, "3D: new variance 17.44 ≈") == claims.CONFIRMED  # 107% of 16.33
    assert verdict(checks, slug, "2D variance ÷ 1D") == claims.CONTRADICTED  # 17.33/16.33 = 1.06
    assert verdict(checks, slug, "3D variance ÷ 1D") == claims.CONFIRMED  # 52.33/16.33 = 3.20
    assert verdict(checks, slug, "the original variances") == claims.UNVERIFIABLE


def test_000_model_head_sizes(results, checks):
    """d_model / heads is 64 for BERT and every GPT-2 size, 128 for GPT-3; √128 = 11.3 prints as 11."""
    sizes = [s for row in results["models"] for s in row["sizes"]]
    assert [s["d_k"] for s in sizes] == [64, 64, 64, 64, 64, 64, 128]
    d_k_rows = [c for (slug, q), c in checks.items() if slug == "worked-000-models" and "heads" in q]
    assert len(d_k_rows) == 7 and all(c.verdict == claims.CONFIRMED for c in d_k_rows)
    assert verdict(checks, "worked-000-models", "standard deviation of unscaled scores at d_k = 128") == claims.CONFIRMED


def test_attention_rows_against_closed_forms(results):
    """Var(q·k/√d_k) = 1 within 10%; scaled rows never vanish; unscaled rows saturate more as d_k grows."""
    cells = results["rows"]
    assert [c["d_k"] for c in cells] == list(worked.ROW_DIMS)
    for c in cells:
        assert c["score_var"] / c["d_k"] == pytest.approx(1, rel=0.10), c["d_k"]
        assert c["scaled"]["vanished"] == 0
        assert 0 < c["scaled"]["jac_fro"]["mean"] < 1 and 1 / worked.ROW_KEYS <= c["scaled"]["max_w"]["mean"] < 1
    weights = [c["unscaled"]["max_w"]["mean"] for c in cells]
    assert weights == sorted(weights)


def test_jacobian_norms_match_the_explicit_jacobian():
    """jacobian_norms against diag(p) − ppᵀ built in full, and near one-hot against its first-order form."""
    import torch

    p = torch.softmax(torch.tensor([[3.0, 1.0, 0.0, -2.0], [1.0, 1.0, 1.0, 1.0]], dtype=torch.float64), -1)
    jac = torch.diag_embed(p) - p[:, :, None] * p[:, None, :]  # (2, 4, 4)
    fro, largest = worked.jacobian_norms(p)
    assert torch.allclose(fro, torch.linalg.matrix_norm(jac), rtol=1e-12, atol=0)
    assert torch.allclose(largest, jac.abs().amax((-2, -1)), rtol=1e-12, atol=0)
    # Near one-hot (p_max rounds to 1.0 in float64): small weights e_j = p_j give J_11 = Σe,
    # J_jj ≈ e_j, J_1j ≈ −e_j, so ‖J‖_F² ≈ (Σe)² + 3Σe² to first order.
    logits = torch.tensor([[40.0, 2.0, 1.0, 0.0]], dtype=torch.float64)
    p = torch.log_softmax(logits, -1).exp()
    e = torch.exp(logits[0, 1:] - 40.0)
    fro, largest = worked.jacobian_norms(p)
    assert fro.item() == pytest.approx(math.sqrt(e.sum().item() ** 2 + 3 * (e * e).sum().item()), rel=1e-9)
    assert largest.item() == pytest.approx(e.sum().item(), rel=1e-9)


def _family_parts():
    """{section title: its PART_ headings} for every experiment module, registered or not."""
    out = {}
    for info in pkgutil.iter_modules(experiments.__path__):
        module = importlib.import_module(f"reportgen.experiments.{info.name}")
        experiment = getattr(module, "EXPERIMENT", None)
        if experiment is None:
            continue
        try:
            report = importlib.import_module(f"reportgen.experiments.{info.name}_report")
        except ModuleNotFoundError:
            report = None
        parts = {getattr(report, n) for n in dir(report) if n.startswith("PART_")} if report else set()
        out[experiment.title] = parts
    return out


def test_pointers_name_real_sections():
    """Every 'answered in' names an experiment's title and, when given, one of its sub-headings."""
    parts = _family_parts()
    places = [where for _, _, where in worked_report.EXERCISES if where]
    places += [where for _, _, where in worked_report.ELSEWHERE]
    for place in places:
        title, _, part = place.partition(" › ")
        assert title in parts, place
        assert not part or part in parts[title], place


def test_pointed_to_sections_check_the_statement(quick_build):
    """A statement listed as checked elsewhere has a check of its document section in that family."""
    by_title = {e["title"]: e for e in quick_build.results["experiments"].values()}
    for source, statement, place in worked_report.ELSEWHERE:
        title = place.partition(" › ")[0]
        sources = {c["source"] for c in by_title[title]["checks"]}
        assert any(s.startswith(str(source)) for s in sources), (statement, place)
