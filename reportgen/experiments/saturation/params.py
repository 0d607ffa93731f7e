"""Parameters of the saturation family per profile, and the documents' inputs it recomputes.

Only inputs live here: the scores, vectors and matrices the documents feed to softmax,
and the settings of their code. What the documents print as results (probabilities,
scaled scores, variances, exps) are claims, in reportgen/claims/NNN.saturation.toml.
"""

from dataclasses import dataclass

# 000 "Softmax Behavior": F.softmax(base * scale) in float32 on the CPU, for each scale.
DOC_BEHAVIOR_BASE = (1.0, 0.5, 0.0, -0.5)
DOC_BEHAVIOR_SCALES = (1, 5, 10, 20, 50)

# Worked softmax examples: key -> the input vector exactly as the document prints it
# (the scaled ones from their printed, rounded scores).
DOC_SOFTMAX = {
    "000-numerical-unscaled": (20, 22, 18, 21),  # 000 "Numerical Example"
    "000-numerical-scaled": (0.88, 0.97, 0.80, 0.93),
    "000-visual-unscaled": (-15, 8, 22, -3),  # 000 "Visualization": Visual Summary
    "000-visual-scaled": (-0.66, 0.35, 0.97, -0.13),
    "001-visual-unscaled": (9.2, -3.1, 8.8, -5.4, 1.2),  # 001 "Visualizing the Effect"
    "001-visual-scaled": (1.15, -0.39, 1.10, -0.68, 0.15),
    "002-row1-unscaled": (5, 10, 7),  # 002 "Detailed Softmax Comparison", row 1
    "002-row1-scaled": (2.89, 5.78, 4.05),
}
# Worked examples of scores / √d: key -> (scores, d).
DOC_SCALED = {
    "000-numerical": ((20, 22, 18, 21), 512),
    "000-visual": ((-15, 8, 22, -3), 512),
    "001-visual": ((9.2, -3.1, 8.8, -5.4, 1.2), 64),
}
# 002's row 1, whose exp values and their sum it prints.
DOC_EXP_EXAMPLES = ("002-row1-unscaled", "002-row1-scaled")
# 001 "Why This Matters": the first three scores of a longer vector; '…' elides the rest.
DOC_PARTIAL_SCORES = (8.5, -2.1, 7.9)
# 002: Step 2's queries and keys (k as printed, one per row).
DOC_002_Q = ((2, 1, 3), (1, 2, 1), (0, 1, 2))
DOC_002_K = ((1, 0, 2), (2, 1, 0), (1, 3, 1))
# 002 "Detailed Softmax Comparison": the matrix it calls 'our calculated matrices', and the
# rounded √3 of its Step 4 (the run divides by it too, to see which root 002 used).
DOC_002_ORIGINAL = ((5, 10, 7), (6, 5, 3), (4, 7, 2))
DOC_002_ROUNDED_ROOT3 = 1.73
# 000 "Visualization: The Effect of Scaling": torch.manual_seed(42), d_k = 64, seq_len = 10.
DOC_FIGURE_SEED, DOC_FIGURE_DK, DOC_FIGURE_LEN = 42, 64, 10

# 001 exercise 2: softmax([x, 0, 0, 0]) for x from 0 to 10; the levels where we answer it.
EXERCISE_RANGE = (0.0, 10.0)
EXERCISE_LEVELS = (0.5, 0.9, 0.99, 0.999)
STABILITY_DTYPES = ("float32", "float16", "bfloat16")
# Bit patterns just past the largest finite value (+inf) of each dtype (IEEE 754 layouts).
INF_BITS = {"float32": ("int32", 0x7F800000), "float16": ("int16", 0x7C00), "bfloat16": ("int16", 0x7F80)}
# Elements per sweep chunk: small tensors stay in the allocator's pools instead of fresh pages.
SWEEP_CHUNK = 1 << 18
HIST_BINS = 200  # bins of width 0.005 on [0, 1] for the largest weight and entropy / ln n


@dataclass(frozen=True)
class SaturationParams:
    dims: tuple  # d_k of the sweep
    lengths: tuple  # sequence lengths n of the sweep
    rows: int  # attention rows (one query against n keys) per (d_k, n)
    figure_repeats: int  # reruns of 000's figure setting (d_k = 64, n = 10) with fresh seeds
    curve_points: int  # x grid of exercise 2's curve
    stability_points: int  # score magnitudes on the naive-vs-stable grid, per dtype and pattern


POW2 = tuple(2**i for i in range(11))  # 1 … 1024
# Every profile has these lengths and d_k = 64, so every profile checks the same claims.
LENGTHS = (4, 16, 64, 256, 1024)
PARAMS = {
    "quick": SaturationParams(
        dims=POW2[::2], lengths=LENGTHS, rows=150, figure_repeats=200, curve_points=201, stability_points=300
    ),
    "standard": SaturationParams(
        dims=POW2, lengths=LENGTHS, rows=3000, figure_repeats=4000, curve_points=501, stability_points=600
    ),
    "full": SaturationParams(
        dims=tuple(2**i for i in range(13)), lengths=LENGTHS + (4096,), rows=100_000, figure_repeats=100_000,
        curve_points=2001, stability_points=4000,
    ),
}
