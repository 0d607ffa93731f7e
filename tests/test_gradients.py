"""The gradients family: the softmax Jacobian against autograd, closed forms, a tiny run, and its verdicts."""

import math
from dataclasses import replace

import pytest
import torch
from conftest import judged_claims, run_experiment

from reportgen.judging.vocabulary import catalog
from reportgen.experiments.gradients import EXPERIMENT
from reportgen.experiments.gradients import run as G
from reportgen.experiments.gradients.measures import MEASURES
from reportgen.experiments.gradients.params import DOC_SCALES, PARAMS
from reportgen.experiments.measure import Measurement, MeasureUnavailable

TINY = replace(
    PARAMS["quick"], sigmas=(0.1, 1.0, 10.0, 100.0), keys=(4, 16), norm_elements=64, dk_dims=(1, 64, 128, 1024),
    dk_keys=(4,), dk_samples=16, layer_dims=(8, 64, 128), tokens=8, layer_draws=2, depth=2, depth_dims=(16,),
    depth_draws=2,
)


@pytest.fixture(scope="module")
def results():
    return run_experiment(EXPERIMENT, TINY)


def finite_differences(f, s, h=1e-6):
    columns = [(f(s + h * e) - f(s - h * e)) / (2 * h) for e in torch.eye(len(s), dtype=s.dtype)]
    return torch.stack(columns, dim=1)


@pytest.mark.parametrize("n", [2, 5, 9])
def test_jacobian_matches_jacrev_autograd_and_finite_differences(n):
    s = 2 * torch.randn(n, dtype=torch.float64, generator=torch.Generator().manual_seed(n))
    softmax = lambda x: torch.softmax(x, 0)  # noqa: E731
    analytic = G.softmax_jacobian(softmax(s))
    torch.testing.assert_close(analytic, torch.func.jacrev(softmax)(s), rtol=0, atol=1e-14)
    torch.testing.assert_close(analytic, G._autograd_jacobian(s), rtol=0, atol=1e-14)
    torch.testing.assert_close(analytic, finite_differences(softmax, s), rtol=0, atol=1e-8)


@pytest.mark.parametrize("n", [1, 2, 4, 64, 1000])
def test_uniform_closed_forms(n):
    # J = I/n − 11ᵀ/n²: eigenvalues 1/n (n−1 times) and 0, so ‖J‖_F² = (n−1)/n², ‖J‖_2 = 1/n.
    p = torch.full((n,), 1 / n, dtype=torch.float64)
    assert G.jacobian_frobenius(p).item() == pytest.approx(math.sqrt((n - 1) / n**2), abs=1e-15)
    if n > 1:
        assert G.jacobian_spectral(p).item() == pytest.approx(1 / n, rel=1e-12)


@pytest.mark.parametrize("a", [0.5, 0.9, 1 - 1e-9])
def test_two_key_closed_form(a):
    # p = (a, 1 − a): J = a(1−a)·[[1, −1], [−1, 1]], so ‖J‖_2 = 2a(1−a) and ‖J‖_F = 2a(1−a).
    p = torch.tensor([a, 1 - a], dtype=torch.float64)
    expected = 2 * a * (1 - a)
    assert G.jacobian_spectral(p).item() == pytest.approx(expected, rel=1e-9)
    assert G.jacobian_frobenius(p).item() == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("sigma", [0.01, 1.0, 5.0, 40.0])
def test_norms_match_dense_linear_algebra(sigma):
    g = torch.Generator().manual_seed(1)
    p = torch.softmax(sigma * torch.randn(50, 12, dtype=torch.float64, generator=g), -1)
    J = G.softmax_jacobian(p)
    dense_2 = torch.linalg.eigvalsh(J)[..., -1]
    torch.testing.assert_close(G.jacobian_spectral(p), dense_2, rtol=1e-9, atol=0)
    torch.testing.assert_close(G.jacobian_frobenius(p), torch.linalg.matrix_norm(J), rtol=1e-9, atol=0)


def test_saturated_jacobian_has_no_cancellation():
    # p = softmax([40, 0]): p_2 = e^-40/(1+e^-40); J_11 = p_1 p_2 must not round to 0.
    p = torch.softmax(torch.tensor([40.0, 0.0], dtype=torch.float64), 0)
    expected = math.exp(-40) / (1 + math.exp(-40)) ** 2
    assert G.softmax_jacobian(p)[0, 0].item() == pytest.approx(expected, rel=1e-12)
    assert G.jacobian_spectral(p).item() == pytest.approx(2 * expected, rel=1e-9)


def test_document_table_recomputation():
    rows = G.document_jacobian_table()
    assert [r["scale"] for r in rows] == list(DOC_SCALES)
    for r in rows:
        assert sum(r["probs"]) == pytest.approx(1)
        assert r["max_element"] <= 0.25 + 1e-12  # p(1 − p) ≤ 1/4 and |p_i p_j| ≤ 1/4


def test_run_results_are_plain(results):
    assert set(results) == {"doc_table", "agreement", "small", "curves", "dk", "layer", "depth"}
    assert results["agreement"]["autograd"] < 1e-12
    layer = results["layer"][0]
    assert len(layer["scaled"]["W_q"]) == TINY.layer_draws
    depth = results["depth"][0]
    assert len(depth["scaled"]["stream"][0]) == TINY.depth + 1




def test_measures_on_a_tiny_run(results):
    """Every claim's measure gives numbers on a tiny run, or says why it cannot (a d_k not run)."""
    unavailable = set()
    for claim in catalog().of_family("gradients"):
        if not claim.measure:
            continue
        name = claim.measure.split(".", 1)[1]
        try:
            m = MEASURES[name](results, **claim.args)
        except MeasureUnavailable:
            unavailable.add(claim.id)
            continue
        assert isinstance(m, Measurement) and not isinstance(m.value, bool), claim.id
    # TINY runs one layer at d_k = 8, 64, 128 and the d_k sweep with n = 4 keys only.
    assert unavailable >= {
        "000.grad-saturated-median-row", "000.grad-cascade-input", "004.grad-wq-wk",
        "001.grad-norm-dk64-n64", "003.grad-norm-dk128-n64", "004.grad-norm-dk1024-n64",
    }
    with pytest.raises(MeasureUnavailable):
        MEASURES["layer_ratio"](results, d_k=1024, keys=["x"])


def test_combined_ratios_pick_the_extreme(results):
    """'all vanish' is judged on the largest ratio, 'either suffices' on the smallest."""
    keys = ["scores", "scores_row_median"]
    each = [MEASURES["layer_ratio"](results, d_k=64, keys=[k]).value for k in keys]
    assert MEASURES["layer_ratio"](results, d_k=64, keys=keys, combine="max").value == max(each)
    assert MEASURES["layer_ratio"](results, d_k=64, keys=keys, combine="min").value == min(each)


@pytest.mark.parametrize(
    "claim_id, verdict",
    [
        ("000.grad-table-s1-maxp", "contradicted"),  # 000 prints 0.395447; softmax([1, .5, 0, -.5]) peaks at 0.455
        ("000.grad-table-s20-maxel", "confirmed"),
        ("000.grad-exp-decay", "confirmed"),
        ("000.grad-jacobian-autograd", "confirmed"),
        ("000.grad-uniform-offdiag", "confirmed"),
        ("001.grad-flow-p3", "confirmed"),
        ("000.grad-all-vanish", "confirmed"),  # every Jacobian entry of a one-hot softmax vanishes
        # quick's 2 paired draws give an interval of 10⁻⁶ … 10⁵ around 0.64: no verdict either way
        # (standard's 16 draws: contradicted, unscaled ∂L/∂Q grows with √d_k)
        ("000.grad-cannot-learn", "inconclusive"),
        ("004.grad-norm-dk1024-n4", "inconclusive"),  # 0.089 [0.069, 0.114]: on both sides of 0.1
        ("004.grad-depth-failure", "confirmed"),
    ],
)
def test_judged_verdicts(claim_id, verdict):
    assert judged_claims("gradients")[claim_id].verdict == verdict
