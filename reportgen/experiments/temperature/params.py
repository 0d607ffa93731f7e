"""Parameters of the temperature family per profile, and the documents' inputs it recomputes."""

from dataclasses import dataclass

SWEEP_DK = 64  # raw scores q·k at d_k = 64: T = 1 is unscaled attention, T = √64 = 8 scaled
SWEEP_DECADES = (-2, 3)  # T from 0.01 to 1000
EXERCISE_TAUS = (0.5, 1.0, 2.0)  # 001 exercise 4: τ = 0.5√d_k, √d_k, 2√d_k
EXAMPLE_DK, EXAMPLE_LEN = 64, 10  # the heatmap example (000's figure setting)
SHIFTS = (-100.0, -10.0, 10.0, 100.0)  # 004 §2: added to every score
# Largest finite float16: (2 − 2^−10)·2^15 = torch.finfo(torch.float16).max. Round-to-nearest
# sends values from 65520 (half a spacing of 32 above it) to inf.
FP16_MAX = 65504.0
# torch.testing.assert_close defaults for float32 (torch/testing/_comparison.py).
SDPA_RTOL, SDPA_ATOL = 1.3e-6, 1e-5
SDPA_MASKS = ("none", "causal", "padding")
# The implementations compared with torch's SDPA, as the results name them.
SDPA_REFERENCE = "000 scaled_dot_product_attention"  # 000 "Standard PyTorch Implementation"
SDPA_BALANCED = "000 BalancedScaledAttention"  # 000 "Query-Key Balanced Scaling"
SDPA_WEIGHTS = "softmax(QK^T / T), T = √d_k"  # the weights alone, against SDPA with V = I


@dataclass(frozen=True)
class TemperatureParams:
    temperatures_per_decade: int  # points per decade of the T sweep (plus 1, 4, 8, 16 exactly)
    lengths: tuple  # sequence lengths n
    rows: int  # attention rows per n, the same rows at every T
    balanced_dims: tuple  # d_k for the balanced-scaling comparisons
    balanced_pairs: int  # queries and keys per score matrix
    balanced_repeats: int  # random (q, k) patterns per d_k for the float16 overflow point
    cosine_dims: tuple  # d_k for cosine attention
    cosine_keys: int  # keys per query
    cosine_rows: int  # queries per d_k
    cosine_batches: int  # independent batches, for the matching temperature's interval
    sdpa_shapes: tuple  # (B, H, L, S, d_k, d_v) for the reference comparison


SDPA_SHAPES = ((1, 1, 10, 10, 64, 64), (2, 4, 16, 16, 32, 32), (1, 2, 7, 13, 48, 24), (2, 8, 128, 128, 64, 64))
LENGTHS = (4, 16, 64, 256, 1024)
DIMS = (1, 4, 16, 64, 256, 1024)
PARAMS = {
    "quick": TemperatureParams(
        temperatures_per_decade=2, lengths=LENGTHS, rows=100,
        balanced_dims=DIMS[2:], balanced_pairs=32, balanced_repeats=2,
        cosine_dims=DIMS, cosine_keys=64, cosine_rows=64, cosine_batches=4,
        sdpa_shapes=SDPA_SHAPES[:3],
    ),
    "standard": TemperatureParams(
        temperatures_per_decade=8, lengths=LENGTHS, rows=2000,
        balanced_dims=DIMS[2:], balanced_pairs=64, balanced_repeats=6,
        cosine_dims=DIMS, cosine_keys=64, cosine_rows=800, cosine_batches=10,
        sdpa_shapes=SDPA_SHAPES,
    ),
    "full": TemperatureParams(
        temperatures_per_decade=16, lengths=LENGTHS + (4096,), rows=50_000,
        balanced_dims=DIMS[2:] + (4096,), balanced_pairs=128, balanced_repeats=100,
        cosine_dims=DIMS + (4096,), cosine_keys=128, cosine_rows=10_000, cosine_batches=40,
        sdpa_shapes=SDPA_SHAPES + ((4, 16, 1024, 1024, 128, 128),),
    ),
}
