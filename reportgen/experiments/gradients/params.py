"""Parameters of the gradients family per profile, and the documents' inputs it recomputes.

What the documents print (000's Jacobian table, 001's "gradients") are claims, in
reportgen/claims/NNN.gradients.toml; only the inputs behind them live here.
"""

import math
from dataclasses import dataclass

# 000 "Empirical Gradient Analysis": its base scores, multiplied by each of its scales.
DOC_BASE_SCORES = (1.0, 0.5, 0.0, -0.5)
DOC_SCALES = (1, 5, 10, 20)
# 001 "Gradient Flow": the probabilities of its moderate example, [0.3, 0.3, 0.2, 0.2].
DOC_FLOW_MODERATE = (0.3, 0.3, 0.2, 0.2)
# "softmax ≈ [1, 0, 0, ...]": logits [x, 0, 0, 0] at the top of 001 exercise 2's range x = 0 … 10.
FLOW_PEAKED_LOGITS = (10.0, 0.0, 0.0, 0.0)
# 001 exercise 5, "peaked vs uniform", answered on these score vectors (n = 4).
EX5_CASES = (
    ("uniform", (0.0, 0.0, 0.0, 0.0)),
    ("001's moderate [0.3, 0.3, 0.2, 0.2]", tuple(math.log(p) for p in DOC_FLOW_MODERATE)),
    ("000's base scores × 1", DOC_BASE_SCORES),
    ("peaked: [5, 0, 0, 0]", (5.0, 0.0, 0.0, 0.0)),
    ("peaked: [10, 0, 0, 0]", FLOW_PEAKED_LOGITS),
    ("000's base scores × 20", tuple(20 * s for s in DOC_BASE_SCORES)),
)


@dataclass(frozen=True)
class GradientsParams:
    sigmas: tuple  # standard deviations of i.i.d. normal logits for the norm curves
    keys: tuple  # numbers of keys n for the norm curves
    norm_elements: int  # logits per (sigma, n): n keys get norm_elements // n vectors
    dk_dims: tuple  # d_k for the expected norm of random q·k, scaled and unscaled
    dk_keys: tuple  # numbers of keys per query there
    dk_samples: int  # queries per d_k
    layer_dims: tuple  # d_k = d_model of the one-layer gradient measurement
    tokens: int  # sequence length T (self-attention over T tokens)
    layer_draws: int  # independent (x, weights, target) draws per d_k
    depth: int  # number of pre-LayerNorm attention blocks in the stack
    depth_dims: tuple  # widths d_model = d_k of the stack
    depth_draws: int  # independent draws per width


def _geom(lo, hi, n):
    return tuple(float(f"{lo * (hi / lo) ** (i / (n - 1)):.4g}") for i in range(n))


POW2 = tuple(2**i for i in range(11))  # 1 … 1024
# The d_k the documents name in their gradient claims (64, 128, 1024) are in every profile's
# dk_dims and layer_dims, so every profile judges the same claims.
PARAMS = {
    "quick": GradientsParams(
        sigmas=_geom(0.03, 300, 9), keys=(4, 64), norm_elements=1024,
        dk_dims=(1, 64, 128, 1024), dk_keys=(4, 64), dk_samples=1024,
        layer_dims=(8, 64, 128, 1024), tokens=16, layer_draws=2,
        depth=4, depth_dims=(64,), depth_draws=2,
    ),
    "standard": GradientsParams(
        sigmas=_geom(0.01, 1000, 21), keys=(4, 16, 64, 256), norm_elements=65_536,
        dk_dims=POW2, dk_keys=(4, 64), dk_samples=2000,
        layer_dims=tuple(2**i for i in range(3, 11)), tokens=32, layer_draws=16,
        depth=12, depth_dims=(64, 256), depth_draws=8,
    ),
    "full": GradientsParams(
        sigmas=_geom(0.01, 1000, 41), keys=(2, 4, 16, 64, 256, 1024), norm_elements=1 << 22,
        dk_dims=tuple(2**i for i in range(14)), dk_keys=(4, 64, 1024), dk_samples=10_000,
        layer_dims=tuple(2**i for i in range(3, 13)), tokens=64, layer_draws=256,
        depth=48, depth_dims=(64, 256, 1024), depth_draws=64,
    ),
}
