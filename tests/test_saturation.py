"""The saturation experiment against closed forms and hand-derived verdicts (quick profile, in-process)."""

import math

import numpy as np
import pytest
import torch
from conftest import judged_claims, quick_results

from reportgen.experiments.saturation import params as sparams
from reportgen.experiments.saturation.measures import expected_max_normal
from reportgen.experiments.thresholds import THRESHOLDS
from reportgen.model import Verdict

CONFIRMED, CONTRADICTED, UNVERIFIABLE = Verdict.CONFIRMED, Verdict.CONTRADICTED, Verdict.UNVERIFIABLE


@pytest.fixture(scope="module")
def results():
    """Quick-profile results after the JSON round trip the pipeline applies."""
    return quick_results("saturation")


@pytest.fixture(scope="module")
def verdicts():
    """{claim id: verdict} of the family's claims on the quick results."""
    return {cid: j.verdict for cid, j in judged_claims("saturation").items()}


def test_behavior_rerun_matches_float64(results):
    """000's demo rerun: float32 softmax of base × scale equals the float64 value to float32 precision."""
    base = np.array(sparams.DOC_BEHAVIOR_BASE)
    for row in results["behavior"]:
        s = base * row["scale"]
        exact = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
        assert np.allclose(row["probs"], exact, atol=1e-6)


def test_behavior_verdicts_by_hand(verdicts):
    """softmax([1, .5, 0, −.5])₀ = 1/(1 + e^−.5 + e^−1 + e^−1.5) = 0.4551, not 0.3954; at scale 20 the
    top weight is 1/(1 + e^−10 + …) = 0.999955, which prints as 1.0000, not 0.9999."""
    assert verdicts["000.sat-behavior-s1-p0"] == CONTRADICTED
    assert verdicts["000.sat-behavior-s1-sum"] == CONTRADICTED  # the printed probs add to 0.8690
    assert verdicts["000.sat-behavior-s10-p0"] == CONFIRMED
    assert verdicts["000.sat-behavior-s20-p0"] == CONTRADICTED
    assert verdicts["000.sat-behavior-s20-max"] == CONFIRMED


def test_worked_example_verdicts_by_hand(verdicts):
    """softmax(20, 22, 18, 21)₂ = 1/(e^−2 + 1 + e^−4 + e^−1) = 0.657 (000 prints 0.731); 001's unscaled
    5-vector is right at 3 decimals (0.59857 → 0.599); 002's exp(5.78) = 323.76 (it prints 323.6)."""
    assert verdicts["000.sat-numerical-softmax-p2"] == CONTRADICTED
    for i in range(1, 6):
        assert verdicts[f"001.sat-visual-softmax-p{i}"] == CONFIRMED
    assert verdicts["001.sat-visual-scaled-softmax-p1"] == CONTRADICTED
    assert verdicts["002.sat-exp-5-78"] == CONTRADICTED
    assert verdicts["002.sat-exp-10"] == CONFIRMED
    # 22026.47/23271.51 = 0.946499…, which rounds to 0.946; 002 prints 0.947.
    assert verdicts["002.sat-row1-p2"] == CONTRADICTED
    assert verdicts["000.sat-root-512"] == CONFIRMED


def test_002_matrices_by_hand(results, verdicts):
    """Step 2's q, k give QK^T = [[8,5,8],[3,4,8],[4,1,5]] (as 002 says in Step 3), not its later [[5,10,7],…]."""
    assert results["examples"]["qkt"] == [[8, 5, 8], [3, 4, 8], [4, 1, 5]]
    assert verdicts["002.sat-qkt"] == CONFIRMED
    assert verdicts["002.sat-original-is-qkt"] == CONTRADICTED
    # np.var of the nine entries: mean 46/9, Σ(x − mean)² = 440/9, so 440/81 = 5.432…, not 6.89.
    assert results["examples"]["qkt_var"][0] == pytest.approx(440 / 81)
    assert verdicts["002.sat-qkt-var"] == CONTRADICTED


def test_002_scaled_matrix_divides_by_rounded_root(results):
    """002's 'Scaled Matrix' is the 'Original Matrix' divided by 1.73, not by √3: 10/1.73 = 5.780 (it prints
    5.78), 10/√3 = 5.774."""
    rounded = np.asarray(results["examples"]["original_scaled_rounded_root"])
    exact = np.asarray(results["examples"]["original_scaled"])
    assert rounded[0, 1] == pytest.approx(10 / 1.73) and round(rounded[0, 1], 2) == 5.78
    assert round(exact[0, 1], 2) == 5.77


def test_partial_vector_bound(results, verdicts):
    """For [8.5, −2.1, 7.9, …] the first and third weights' ratio is e^0.6 whatever '…' holds."""
    p = results["examples"]["partial"]
    assert p[0] / p[2] == pytest.approx(math.exp(0.6))
    assert verdicts["001.sat-partial-first"] == CONTRADICTED
    # 0.99 printed first weight implies a third of 0.99·e^−0.6 = 0.543, not 0.01.
    assert judged_claims("saturation")["001.sat-partial-third"].measurement.value == pytest.approx(
        0.99 * math.exp(-0.6))
    assert verdicts["001.sat-partial-third"] == CONTRADICTED
    assert verdicts["001.sat-partial-rest"] == UNVERIFIABLE


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
    v = THRESHOLDS["vanished_jacobian"]
    assert ex["vanished_level"] == v
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
    for n in sparams.LENGTHS:
        assert cells[1024, n]["max_w"]["mean"] > cells[1, n]["max_w"]["mean"] + 0.4
        # scaled rows share one law whatever d_k (up to |q|/√d_k fluctuations): entropy shares agree loosely
        shares = [cells[d, n]["entropy_scaled"]["mean"] / math.log(n) for d in (16, 64, 256, 1024)]
        assert max(shares) - min(shares) < 0.05


def test_figure_rerun_is_000s_code(results, verdicts):
    """The seed-42 block reproduces 000's computation; its reading: saturated yes, near-uniform no."""
    g = torch.Generator().manual_seed(42)
    Q, K = torch.randn(1, 10, 64, generator=g), torch.randn(1, 10, 64, generator=g)
    scores = (Q @ K.transpose(-2, -1)).squeeze(0)
    doc = results["figure"]["doc_seed"]
    assert np.allclose(doc["unscaled"], scores.numpy(), atol=1e-5)
    w = torch.softmax(scores, -1)
    assert doc["stats"]["mean_entropy"] == pytest.approx(-(w * w.log()).sum(-1).mean().item(), rel=1e-5)
    assert verdicts["000.sat-figure-near-uniform"] == CONTRADICTED
    assert verdicts["000.sat-figure-saturated"] == CONFIRMED


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
def test_naive_softmax_overflow_point(results, verdicts, dtype):
    """Naive exp/sum first fails where e^x rounds to inf: the first dtype value past ln(max + ulp/2)."""
    row = next(r for r in results["stability"] if r["dtype"] == dtype and r["pattern"] == "large positive")
    assert row["first_failure"] == _first_overflow(getattr(torch, dtype))
    assert row["last_finite"] < row["first_failure"]
    assert row["naive_fails_at_max"]
    assert max(row["curve"]["naive_vs_stable"]) == row["naive_vs_stable"]
    assert row["stable_wide_nonfinite"] == 0
    for claim in ("overflow", "stable", "same"):
        assert verdicts[f"001.sat-{claim}-{dtype}"] == CONFIRMED


def test_float16_overflow_known_values(results):
    """float16: e^11.0859375 = 65 248 is finite, e^11.09375 = 65 761 is not (largest finite 65 504)."""
    row = next(r for r in results["stability"] if r["dtype"] == "float16" and r["pattern"] == "large positive")
    assert (row["last_finite"], row["first_failure"]) == (11.0859375, 11.09375)
