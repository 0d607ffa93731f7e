"""The temperature experiment against closed forms and hand-derived verdicts (quick profile, in-process)."""

import math

import numpy as np
import pytest
from conftest import judged_claims, quick_results

from reportgen.experiments.temperature import params as tparams
from reportgen.experiments.temperature import run as trun
from reportgen.experiments.temperature.measures import UNIT_ROUNDOFF, cells_at
from reportgen.model import Verdict

CONFIRMED, CONTRADICTED = Verdict.CONFIRMED, Verdict.CONTRADICTED

FP16_MAX = 65504.0  # largest finite float16, (2 − 2^−10)·2^15


@pytest.fixture(scope="module")
def results():
    """Quick-profile results after the JSON round trip the pipeline applies."""
    return quick_results("temperature")


@pytest.fixture(scope="module")
def verdicts():
    """{claim id: verdict} of the family's claims on the quick results."""
    return {cid: j.verdict for cid, j in judged_claims("temperature").items()}


def test_grid_holds_the_named_temperatures():
    """T runs from 0.01 to 1000 and holds T = 1 and τ = 4, 8, 16 (0.5, 1, 2 × √64) exactly."""
    grid = trun.temperatures(2)
    assert grid[0] == pytest.approx(0.01) and grid[-1] == pytest.approx(1000)
    assert {1.0, 4.0, 8.0, 16.0} <= set(grid)


def test_temperature_limits(results):
    """T → 0: entropy → 0 and largest weight → 1; T → ∞: entropy → ln n and largest weight → 1/n."""
    cells = results["sweep"]["cells"]
    t_min, t_max = min(c["T"] for c in cells), max(c["T"] for c in cells)
    for n, c in cells_at(results, t_min).items():
        assert c["entropy"]["mean"] < 0.01 * math.log(n)
        assert c["max_w"]["mean"] > 0.99
    for n, c in cells_at(results, t_max).items():
        assert c["entropy"]["mean"] == pytest.approx(math.log(n), rel=1e-3)
        assert c["max_w"]["mean"] == pytest.approx(1 / n, rel=0.05)


def test_entropy_rises_with_temperature(results):
    """dH/dT = Var_p(s)/T³ ≥ 0: the mean entropy never falls as T grows, at any n."""
    for n in tparams.LENGTHS:
        curve = sorted((c for c in results["sweep"]["cells"] if c["n"] == n), key=lambda c: c["T"])
        h = [c["entropy"]["mean"] for c in curve]
        assert all(a <= b + 1e-9 for a, b in zip(h, h[1:])), n


def test_exercise_4_verdicts(results, verdicts):
    """Entropy is increasing in τ for every non-constant row, so every row is sharper below √d_k."""
    for row in results["sweep"]["taus"]:
        assert row["sharper"] == row["softer"] == row["rows"]
    assert verdicts["001.temp-tau-sharper"] == CONFIRMED
    assert verdicts["001.temp-tau-softer"] == CONFIRMED


def test_004_softmax_state_at_dk_64(verdicts):
    """Unscaled d_k = 64 rows of 1 024 keys average a largest weight near 0.7, well under 0.9."""
    assert tparams.SWEEP_DK == 64
    assert verdicts["004.temp-state-unscaled"] == CONTRADICTED
    assert verdicts["004.temp-state-scaled"] == CONFIRMED


def test_float16_overflow_thresholds_aligned(results):
    """q = k with entries ±r: q·k = d·r² overflows at r = √(65504/d); balanced (√d·r²) at √(65504/√d)."""
    for row in results["balanced"]:
        d = row["d_k"]
        (after,), (balanced,) = row["aligned"]["after"], row["aligned"]["balanced"]
        # float16 rounds r to 11 significant bits and 65504 < x < 65520 still rounds to 65504: 0.3% slack
        assert after == pytest.approx(math.sqrt(FP16_MAX / d), rel=3e-3), d
        assert balanced == pytest.approx(math.sqrt(FP16_MAX / math.sqrt(d)), rel=3e-3), d
        assert balanced / after == pytest.approx(d**0.25, rel=5e-3), d


def test_float16_overflow_random_follows_largest_score(results):
    """Random q, k: overflow where r²·max|u·v| (or r²·max|u·v|/√d_k) reaches 65504."""
    for row in results["balanced"]:
        d, p = row["d_k"], row["random"]
        for after, balanced, largest in zip(p["after"], p["balanced"], p["largest_unit_score"]):
            assert after == pytest.approx(math.sqrt(FP16_MAX / largest), rel=3e-3), d
            assert balanced == pytest.approx(math.sqrt(FP16_MAX * math.sqrt(d) / largest), rel=3e-3), d


def test_float32_balanced_equals_divide_after(results, verdicts):
    """Within the worst-case rounding bound; bit-identical where d_k^(−1/4) is a power of two (16, 256)."""
    for row in results["balanced"]:
        d = row["d_k"]
        assert row["f32_after_vs_balanced"] <= 2 * (d + 3) * UNIT_ROUNDOFF
        if d in (16, 256):
            assert row["f32_after_vs_balanced"] == 0
    assert verdicts["000.temp-balanced-f16"] == CONFIRMED


def test_cosine_range_and_matching_temperature(results):
    """|cos| ≤ 1 up to rounding; the temperature matching scaled attention tends to 1/√d_k."""
    for row in results["cosine"]:
        d = row["d_k"]
        assert max(row["max_abs_cos"], row["max_cos_aligned"]) <= 1 + (2 * d + 4) * UNIT_ROUNDOFF
        if d == 1:
            assert row["max_abs_cos"] == 1.0  # a 1-vector normalizes to ±1
        tau = np.mean([b["matching_t"] for b in row["batches"]])
        if d >= 64:  # |q||k| ≈ d, so q·k/√d_k ≈ √d_k·cos
            assert tau * math.sqrt(d) == pytest.approx(1, abs=0.1), d


def test_sdpa_agrees_within_torch_tolerance(results):
    """Every implementation matches F.scaled_dot_product_attention within torch.testing's float32 defaults."""
    assert results["sdpa"]
    for row in results["sdpa"]:
        assert row["tolerance_ratio"] <= 1, row
        assert row["max_abs"] < 1e-5, row
