"""Parameters of the language-model family per profile, its variants, and the definitions it records by.

Imports nothing heavy: the family's __init__ reads PARAMS when the families are listed.
"""

import platform
from dataclasses import dataclass, field

# The score conventions compared, in the order tables and figures show them: name and label.
VARIANTS = (
    ("scaled", "× 1/√d_k"),
    ("unscaled", "× 1"),
    ("inv_d", "× 1/d_k"),
    ("mup", "μP: × 1/d_k, μP rates, W_q = 0"),
    ("learned", "learnable, from 1/√d_k"),
    ("learned_1", "learnable, from 1"),
    ("learned_inv_d", "learnable, from 1/d_k"),
    ("qk_ln", "QK-LayerNorm, × 1/√d_k"),
    ("cosine", "cosine × learnable g"),
    ("t5", "T5: × 1, W_q init ÷ √d_k"),
)
LABELS = dict(VARIANTS)
NAMES = tuple(name for name, _ in VARIANTS)

# AdamW, as GPT-style models are trained: decoupled weight decay on the matrices only.
ADAMW_BETAS, ADAMW_EPS, WEIGHT_DECAY = (0.9, 0.95), 1e-8, 0.1
WARMUP_FRACTION = 0.1  # linear warm-up over the first tenth of the steps
FINAL_LR_FRACTION = 0.1  # then cosine decay to a tenth of the peak rate
# Divergence and when a comparison decides: reportgen/experiments/evidence.py, one rule for every setup.
SATURATED_ROW = 0.99  # a row is saturated when its largest weight exceeds this (thresholds.saturated_row)
COLLAPSED_ENTROPY = 0.1  # a head has collapsed when its mean entropy is under a tenth of uniform's
SIGNIFICANT = 4  # significant digits kept for logged numbers

# The task battery: one attention layer on one-hot codes, each task with its attention optimum.
TASKS = (
    ("recall", "associative recall: attend to the one matching key (one-hot optimum)"),
    ("histogram", "histogram: predict the distribution of the symbols seen (uniform optimum)"),
    ("induction", "induction copy: the token that followed the query's earlier occurrence (one-hot)"),
)
BATTERY_SCALINGS = (("scaled", "× 1/√d_k"), ("unscaled", "× 1"), ("inv_d", "× 1/d_k"))
BATTERY_OPTIMIZERS = ("adam", "sgd")


@dataclass(frozen=True)
class BatteryParams:
    dims: tuple  # d_k of the one-layer models
    adam_lrs: tuple  # constant Adam rates
    sgd_lrs: tuple  # constant SGD rates (the SGD arm: no per-coordinate rescaling of gradients)
    seeds: int  # independent models per cell
    steps: int  # constant-rate steps: the loss at a checkpoint is that of a shorter budget
    batch: int
    checkpoints: int  # logged points, evenly spaced


@dataclass(frozen=True)
class LMParams:
    width: int  # d_model of the main configuration
    heads: int  # heads of the main configuration
    main_variants: tuple  # the variants trained at the main configuration (the rest: listed as left out)
    fixed_width_heads: tuple  # other head counts at the main width: d_k varied at fixed width
    fixed_heads_widths: tuple  # other widths at the main head count: d_k varied at fixed heads
    qk_dims: tuple  # q/k widths per head at the main width and heads: d_k varied alone (d_model fixed)
    sweep_variants: tuple  # the variants trained at the other configurations too
    layers: int
    context: int  # bytes per training sequence
    batch: int  # sequences per step
    steps: int
    evals: int  # validation points after step 0, evenly spaced
    eval_windows: int  # the fixed validation set: this many windows of `context` bytes
    test_windows: int  # the test set, scored once at the end
    lrs: tuple  # AdamW peak rates
    battery: BatteryParams
    mlp_ratio: int = 4  # the MLP's hidden width over d_model (GPT's 4)
    qk_width: int = 0  # q/k width per head of the main configuration; 0: width // heads
    base_width: int = 32  # μP's base shape: its rates and readout multiplier are relative to it
    seeds: int = 5  # paired seeds per (configuration, variant, rate) cell: shared init and data within a seed
    python: str = field(default_factory=platform.python_version)  # the corpus is this Python's source


def _grid(lo, hi, per_decade=3):
    """Rates from 10**(lo / per_decade) to 10**(hi / per_decade), `per_decade` to a decade, 3 digits."""
    return tuple(float(f"{10 ** (i / per_decade):.3g}") for i in range(lo, hi + 1))


PARAMS = {
    "quick": LMParams(
        width=16, heads=2, main_variants=("scaled", "unscaled", "mup", "qk_ln"), fixed_width_heads=(4,),
        fixed_heads_widths=(32,), qk_dims=(64,), sweep_variants=("scaled", "unscaled"), layers=2, context=16,
        batch=2, steps=24, evals=4, eval_windows=4, test_windows=8, lrs=(1e-3, 1e-2, 1e-1, 1.0),
        battery=BatteryParams(dims=(8, 64), adam_lrs=(1e-2, 1e-1), sgd_lrs=(1.0,), seeds=1, steps=40, batch=8,
                              checkpoints=4),
        base_width=16, seeds=2,
    ),
    # Sized to decide on two CPU cores (issue 38). The scaled model must beat the bigram table by
    # baselines.GATE_BITS (2.94 bits/byte on this corpus) at its tuned rate. Measured here, scaled only, 2
    # seeds: width 64, one layer, context 32, batch 16, MLP 2 × width reached 2.85-2.91 after 4·10^5
    # bytes and 2.81-2.83 after 5.1·10^5 (context 32 with batch 8); context 64 with batch 4 reached only
    # 2.90-2.95 after 4·10^5, an MLP of 4 × width cost 15% more for 0.05 bits. One configuration, at
    # q/k width 128 (the documents' "large d_k", cheap in factored form): both variants × 5 rates × 5
    # paired seeds = 50 models of 5.1·10^5 bytes, in stacks of stacks.CPU_STACK, one per core.
    "standard": LMParams(
        width=64, heads=2, main_variants=("scaled", "unscaled"), fixed_width_heads=(), fixed_heads_widths=(),
        qk_dims=(), sweep_variants=("scaled", "unscaled"), layers=1, context=32, batch=16, steps=1000, evals=8,
        eval_windows=64, test_windows=256, lrs=_grid(-6, -2, 2),  # 1e-3 … 0.1: two decades, two rates a decade
        battery=BatteryParams(dims=(16, 256), adam_lrs=(3e-3, 1e-2, 3e-2, 1e-1), sgd_lrs=(1.0, 3.0),
                              seeds=5, steps=240, batch=32, checkpoints=12),
        mlp_ratio=2, qk_width=128,
    ),
    # For one GPU, in minutes (issue 39): 1 890 models (10 variants at the main configuration, 4 at each
    # of 8 sweep configurations, × 9 rates × 5 seeds), 2.0 MB of training bytes each, two layers at width
    # 128 (a 2.9 MB slice of four layers reached 2.06 bits/byte on an H200, far past the gate). About 15
    # PFLOP (benchmarks/gpu.py counts them per configuration); q·kᵀ in factored form from q/k width 128
    # on. The former design (2 730 models of 8.2 MB, four layers, 13 rates) needed 290 PFLOP, 4.4 h on an
    # H200 as it ran. The tiny-size end-to-end test is
    # tests/test_lm.py::test_full_profile_runs_end_to_end_at_a_tiny_size.
    "full": LMParams(
        width=128, heads=4, main_variants=NAMES, fixed_width_heads=(8, 2), fixed_heads_widths=(64, 256),
        qk_dims=(128, 256, 512, 1024), sweep_variants=("scaled", "unscaled", "qk_ln", "mup"), layers=2,
        context=64, batch=32, steps=1000, evals=10, eval_windows=64, test_windows=512,
        lrs=_grid(-8, 0, 2),  # 1e-4 … 1: four decades, two rates a decade
        battery=BatteryParams(dims=(16, 64, 256, 1024), adam_lrs=_grid(-9, -3), sgd_lrs=_grid(-3, 3),
                              seeds=5, steps=2000, batch=64, checkpoints=20),
        base_width=64,
    ),
}
