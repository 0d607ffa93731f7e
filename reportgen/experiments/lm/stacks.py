"""How many language models train as one stack: sized to the device before anything is launched.

A configuration's models (variants × rates × seeds) are independent, so they can train in
sub-stacks of any size; a stack that does not fit in memory must never be launched. The size
comes from a formula of the memory one model needs (its weights, gradients and AdamW moments,
and the activations the backward pass keeps), checked against measured peaks on CUDA
(benchmarks/gpu.py records both), and a budget: on CUDA a share of the card's memory, on a CPU
a share of the machine's. On a CPU the size is also capped at CPU_STACK, a fixed number, so the
split never depends on the machine's cores or memory and the numbers stay the same everywhere.
"""

import math

FLOAT = 4  # bytes per float32 number
CPU_STACK = 25  # models per stack on a CPU: fixed, so a configuration's split is the same on every machine
DEVICE_SHARE = 0.8  # of a card's memory a stack may take at its peak (issue 39's ceiling)
CPU_SHARE = 0.25  # of the machine's memory: the build's other process, the figures and the PDFs need the rest
# Fitted to the peaks of the full profile's nine stacks on an H200 (benchmarks/gpu/h200-2026-11-28,
# TF32): 23 floats per parameter (weights, AdamW's two moments, the gradients as autograd returns them
# and concatenated, the per-number rate, the update's temporaries) and half the activations counted
# below (the fused attention and GELU keep less than a written-out layer). The margin and the reserve
# (the CUDA context and the matrix library's workspace) put the formula above every measured peak
# (tests/test_lm.py checks it against the kept file).
STATE_FLOATS = 24
ACTIVATION_SHARE = 0.5
ALLOCATOR_MARGIN = 1.25
RESERVE = 1 << 30


def parameters(width, heads, d_k, layers, context, vocab, mlp):
    """Trainable numbers of one model (the stacked layout, the per-head multipliers and gains included)."""
    per_layer = 4 * width + width * (2 * heads * d_k + width) + width * width + 2 * mlp * width + heads + 2 * d_k
    return vocab * width + context * width + layers * per_layer + 2 * width + width * vocab


def bytes_per_model(width, heads, d_k, layers, context, batch, vocab, mlp, factored, eval_windows=0):
    """Peak bytes one model of a stack needs in training: the formula, with ALLOCATOR_MARGIN.

    Per token and layer a written-out layer keeps: the residual and both LayerNorms' outputs (4 × D), queries
    (factored: H × D; else q and k, 2·H·d_k) and values (D), the softmax weights (H × T), the heads'
    output (D), the MLP's input and GELU's input and output (2 × mlp); after the layers the final
    LayerNorm (D) and the logits twice (the fused cross-entropy saves them, its backward makes its own).
    The probe at an evaluation holds the weights of every validation window at once (H × T × T each).
    """
    D, H, T = width, heads, context
    state = STATE_FLOATS * parameters(width, heads, d_k, layers, context, vocab, mlp)
    queries = H * D if factored else 2 * H * d_k
    per_token = layers * (6 * D + queries + H * T + 2 * mlp) + D + 2 * vocab
    activations = ACTIVATION_SHARE * batch * T * per_token
    probe = eval_windows * H * T * T * 3  # scores, weights, and one temporary
    return int(ALLOCATOR_MARGIN * FLOAT * (state + max(activations, probe)))


def budget_bytes(device):
    """What one stack may take at its peak on `device`."""
    if device == "cuda":
        import torch

        free, total = torch.cuda.mem_get_info()
        return int(min(free, DEVICE_SHARE * total)) - RESERVE
    import os

    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 8 << 30
    return int(CPU_SHARE * total)


class DoesNotFit(Exception):
    """Not even one model fits the device's budget: nothing is launched."""


def stack_size(per_model, budget, device):
    """Models per stack: as many as fit the budget; on a CPU at most CPU_STACK. Where not one model fits,
    DoesNotFit before anything is launched (an out-of-memory error an hour in is what this prevents)."""
    fits = budget // max(1, per_model)
    if fits < 1:
        raise DoesNotFit(f"one model needs {per_model / 2**30:.2f} GiB at its peak, more than the "
                         f"{max(0, budget) / 2**30:.2f} GiB a stack may take on the {device}")
    return min(fits, CPU_STACK) if device == "cpu" else fits


def split(cells, size):
    """`cells` in consecutive stacks of at most `size`, as even as they can be (a score kind stays contiguous)."""
    count = math.ceil(len(cells) / size)
    step = math.ceil(len(cells) / count)
    return [cells[i : i + step] for i in range(0, len(cells), step)]


def flops_per_token(width, heads, d_k, layers, context, batch, vocab, mlp, factored):
    """Training FLOPs per token of one model: 6 per multiply-add in the matrix products (forward 2,
    backward 4), attention's T × T products included, elementwise work left out."""
    from reportgen.experiments.lm.model import factored_cost

    D, H, T = width, heads, context
    explicit, fact = factored_cost(D, H, d_k, T, batch)
    attention = (fact if factored else explicit) + H * T * (D // H)  # q·kᵀ's part, then weights × values
    per_layer = attention + D * D + D * D + 2 * mlp * D  # values, output projection, the MLP
    return 6 * (layers * per_layer + D * vocab)
