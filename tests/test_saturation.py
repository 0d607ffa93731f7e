"""The saturation experiment against closed forms and hand-derived verdicts (quick profile, in-process)."""

import math

import numpy as np
import pytest
import torch
from conftest import run_experiment

from reportgen import claims
from reportgen.experiments import saturation
from reportgen.experiments.saturation_report import AGREEMENT_ULPS, expected_max_normal


@pytest.fixture(scope="module")
def results():
    """Quick-profile results after the JSON round trip the pipeline applies."""
    return run_experiment(saturation.EXPERIMENT, saturation.PARAMS["quick"])


@pytest.fixture(scope="module")
def checks(results):
    return {c.quantity: c for t in saturation.EXPERIMENT.tables(results) for c in t.checks}







def test_behavior_rerun_matches_float64(results):
    """000's demo rerun: float32 softmax of base × scale equals the float64 value to float32 precision."""
    base = np.array(saturation.DOC_BEHAVIOR_BASE)
    for row in results["behavior"]:
        s = base * row["scale"]
        exact = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
        assert np.allclose(row["probs"], exact, atol=1e-6)


def test_behavior_verdicts_by_hand(checks):
    """softmax([1, .5, 0, −.5])₀ = 1/(1 + e^−.5 + e^−1 + e^−1.5) = 0.4551, not 0.3954; at scale 20 the
    top weight is 1/(1 + e^−10 + …) = 0.999955, which prints as 1.0000, not 0.9999."""
    assert checks["scale 1: probs[0]"].verdict == claims.CONTRADICTED
    assert checks["scale 1: sum of the printed probs"].verdict == claims.CONTRADICTED  # 0.8690
    assert checks["scale 10: probs[0]"].verdict == claims.CONFIRMED
    assert checks["scale 20: probs[0]"].verdict == claims.CONTRADICTED
    assert checks["scale 20: max_prob"].verdict == claims.CONFIRMED


def test_worked_example_verdicts_by_hand(checks):
    """softmax(20, 22, 18, 21)₂ = 1/(e^−2 + 1 + e^−4 + e^−1) = 0.657 (000 prints 0.731); 001's unscaled
    5-vector is right at 3 decimals (0.59857 → 0.599); 002's exp(5.78) = 323.76 (it prints 323.6)."""
    assert checks["000: s = (20, 22, 18, 21), unscaled: p2"].verdict == claims.CONTRADICTED
    for i in range(1, 6):
        assert checks[f"001: without scaling: p{i}"].verdict == claims.CONFIRMED
    assert checks["001: with scaling: p1"].verdict == claims.CONTRADICTED
    assert checks["exp(5.78)"].verdict == claims.CONTRADICTED
    assert checks["exp(10)"].verdict == claims.CONFIRMED
    # 22026.47/23271.51 = 0.946499…, which rounds to 0.946; 002 prints 0.947.
    assert checks["002: row 1 unscaled, softmax([5, 10, 7]): p2"].verdict == claims.CONTRADICTED
    assert checks["√512"].verdict == claims.CONFIRMED


def test_002_matrices_by_hand(results, checks):
    """Step 2's q, k give QK^T = [[8,5,8],[3,4,8],[4,1,5]] (as 002 says in Step 3), not its later [[5,10,7],…]."""
    assert results["examples"]["qkt"] == [[8, 5, 8], [3, 4, 8], [4, 1, 5]]
    assert checks["Step 3: QK^T from Step 2's q and k"].verdict == claims.CONFIRMED
    original = [c for q, c in checks.items() if q.startswith("'Original Matrix'")]
    assert original[0].verdict == claims.CONTRADICTED
    # np.var of the nine entries: mean 46/9, Σ(x − mean)² = 440/9, so 440/81 = 5.432…, not 6.89.
    assert results["examples"]["qkt_var"][0] == pytest.approx(440 / 81)
    assert checks["Step 4: variance of QK^T's 9 entries"].verdict == claims.CONTRADICTED


def test_partial_vector_bound(results, checks):
    """For [8.5, −2.1, 7.9, …] the first two weights' ratio is e^0.6 whatever '…' holds."""
    p = results["examples"]["partial"]
    assert p[0] / p[2] == pytest.approx(math.exp(0.6))
    assert checks["001: first weight of softmax([8.5, -2.1, 7.9, …])"].verdict == claims.CONTRADICTED
    assert checks["001: weights after the third"].verdict == claims.UNVERIFIABLE


def test_exercise_crossings_closed_form(results):
    """softmax([x,0,0,0])₁ = e^x/(e^x + 3): level p is crossed at x = ln(3p/(1 − p)), e.g. 0.9 at ln 27."""
    ex = results["exercise"]
    crossings = {c["level"]: c["x"] for c in ex["crossings"]}
    assert crossings[0.9] == pytest.approx(math.log(27), abs=1e-9)
    assert crossings[0.99] == pytest.approx(math.log(297), abs=1e-9)
    for level, x in crossings.items():
        assert x == pytest.approx(math.log(3 * level / (1 - level)), abs=1e-9)
    x = np.asarray(ex["x"])
    p = np.exp(x) / (np.exp(x) + 3)
    assert np.allclose(ex["p"], p, atol=1e-12)
    assert np.allclose(ex["grad"], p * (1 - p), atol=1e-12)
    # p(1 − p) = v on the saturated side at p = (1 + √(1 − 4v))/2.
    v = saturation.VANISHED_JACOBIAN
    q = (1 + math.sqrt(1 - 4 * v)) / 2
    assert ex["vanished_x"] == pytest.approx(math.log(3 * q / (1 - q)), abs=1e-9)


def test_expected_max_normal_closed_forms():
    """E[max of 1] = 0, E[max of 2 standard normals] = 1/√π, E[max of 3] = 3/(2√π)."""
    assert expected_max_normal(1) == pytest.approx(0, abs=1e-9)
    assert expected_max_normal(2) == pytest.approx(1 / math.sqrt(math.pi), rel=1e-7)
    assert expected_max_normal(3) == pytest.approx(1.5 / math.sqrt(math.pi), rel=1e-7)


def test_sweep_largest_score_law(results):
    """max_j z_j over n standard normals: the sweep's mean is within 5 standard errors of the exact mean."""
    for cell in results["sweep"]:
        stat = cell["max_z"]
        se = math.sqrt(stat["var"] / cell["rows"])
        assert abs(stat["mean"] - expected_max_normal(cell["n"])) < 5 * se, (cell["d_k"], cell["n"])


def test_sweep_shape(results):
    """d_k = 1 scaling is the identity; entropy lies in [0, ln n]; unscaled saturates as d_k grows."""
    cells = {(c["d_k"], c["n"]): c for c in results["sweep"]}
    for (d, n), c in cells.items():
        assert 0 <= c["entropy"]["mean"] <= math.log(n) + 1e-6
        assert 1 / n - 1e-6 <= c["max_w"]["mean"] <= 1
        if d == 1:
            assert c["max_w"]["mean"] == c["max_w_scaled"]["mean"]
    for n in saturation.LENGTHS:
        assert cells[1024, n]["max_w"]["mean"] > cells[1, n]["max_w"]["mean"] + 0.4
        # scaled rows share one law whatever d_k (up to |q|/√d_k fluctuations): entropy shares agree loosely
        shares = [cells[d, n]["entropy_scaled"]["mean"] / math.log(n) for d in (16, 64, 256, 1024)]
        assert max(shares) - min(shares) < 0.05


def test_figure_rerun_is_000s_code(results, checks):
    """The seed-42 block reproduces 000's computation; its reading: saturated yes, near-uniform no."""
    g = torch.Generator().manual_seed(42)
    Q, K = torch.randn(1, 10, 64, generator=g), torch.randn(1, 10, 64, generator=g)
    scores = (Q @ K.transpose(-2, -1)).squeeze(0)
    doc = results["figure"]["doc_seed"]
    assert np.allclose(doc["unscaled"], scores.numpy(), atol=1e-5)
    w = torch.softmax(scores, -1)
    assert doc["stats"]["mean_entropy"] == pytest.approx(-(w * w.log()).sum(-1).mean().item(), rel=1e-5)
    assert checks["Unscaled: 'near-uniform attention'"].verdict == claims.CONTRADICTED
    assert checks["Unscaled: '(saturated softmax)'"].verdict == claims.CONFIRMED


def _first_overflow(dtype):
    """Smallest value x of dtype with e^x at or past the round-to-inf boundary max + ulp(max)/2."""
    top = torch.tensor(torch.finfo(dtype).max, dtype=dtype)
    ulp = top.item() - torch.nextafter(top, torch.zeros((), dtype=dtype)).item()
    limit = math.log(top.item() + ulp / 2)
    x = torch.tensor(limit, dtype=torch.float64).to(dtype)
    while x.double().item() < limit:  # rounded down: step to the next representable value
        x = torch.nextafter(x, torch.tensor(math.inf, dtype=dtype))
    return x.item()


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_naive_softmax_overflow_point(results, dtype):
    """Naive exp/sum first fails where e^x rounds to inf: the first dtype value past ln(max + ulp/2)."""
    row = next(r for r in results["stability"] if r["dtype"] == dtype and r["pattern"] == "large positive")
    assert row["first_failure"] == _first_overflow(getattr(torch, dtype))
    assert row["last_finite"] < row["first_failure"]
    assert row["naive_vs_stable"] <= AGREEMENT_ULPS * row["eps"]
    assert max(row["curve"]["naive_vs_stable"]) == row["naive_vs_stable"]
    assert row["stable_wide_finite"]


def test_float16_overflow_known_values(results):
    """float16: e^11.0859375 = 65 248 is finite, e^11.09375 = 65 761 is not (largest finite 65 504)."""
    row = next(r for r in results["stability"] if r["dtype"] == "float16" and r["pattern"] == "large positive")
    assert (row["last_finite"], row["first_failure"]) == (11.0859375, 11.09375)
