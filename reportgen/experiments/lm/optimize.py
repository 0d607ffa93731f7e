"""Training the stacked models: the schedule, one AdamW for a whole stack, the precision on CUDA, the loop.

`train_batched` trains M stacked models (model.py) at once: one forward, one backward and one
update of a flat AdamW buffer per step, each model with its own rate. `train_looped` trains the
same models one at a time with torch.optim.AdamW: the benchmark's reference and the test of
equality.
"""

import math

from reportgen.experiments.lm.model import DECAYED, HIDDEN, forward
from reportgen.experiments.lm.params import (
    ADAMW_BETAS,
    ADAMW_EPS,
    FINAL_LR_FRACTION,
    WARMUP_FRACTION,
    WEIGHT_DECAY,
)

def schedule(step, steps):
    """Peak-rate multiplier: linear warm-up, then cosine decay to FINAL_LR_FRACTION."""
    warm = max(1, round(WARMUP_FRACTION * steps))
    if step < warm:
        return (step + 1) / warm
    t = (step - warm) / max(1, steps - warm)
    return FINAL_LR_FRACTION + (1 - FINAL_LR_FRACTION) * 0.5 * (1 + math.cos(math.pi * t))


def param_settings(cfg, name):
    """(rate multiplier per model (M,), decayed, trainable mask (M,) or None) of one parameter."""
    import torch

    base = name.split(".")[-1]
    scale = cfg.hidden_lr if base in HIDDEN else torch.ones_like(cfg.hidden_lr)
    mask = cfg.learnable if base == "logm" else None
    return scale, base in DECAYED, mask


class AdamW:
    """AdamW over stacked parameters: M independent optimisers, one rate per model and parameter.

    Matches torch.optim.AdamW's arithmetic (decoupled decay p ← p(1 − ηλ), bias corrections). Every
    parameter is a view into one (M, N) buffer, so a step is a dozen operations on that buffer
    whatever the number of parameter tensors (the former loop over 49 tensors took about 600 of a
    step's 850 operations on a GPU). `P` is rebound to the views in place.
    """

    def __init__(self, P, cfg):
        import torch

        self.names = list(P)
        M = cfg.M
        sizes = [P[n][0].numel() for n in self.names]
        self.flat = torch.cat([P[n].detach().reshape(M, -1) for n in self.names], 1)  # (M, N)
        device, N = self.flat.device, self.flat.shape[1]
        hidden = torch.zeros(N, device=device)
        decayed = torch.zeros(N, device=device)
        learnable = torch.ones(M, N, device=device)
        self.views, start = [], 0
        for n, size in zip(self.names, sizes):
            view = self.flat[:, start : start + size].view(P[n].shape)
            view.requires_grad_(True)
            P[n] = view
            self.views.append(view)
            scale, decay, mask = param_settings(cfg, n)
            hidden[start : start + size] = float(n.split(".")[-1] in HIDDEN)
            decayed[start : start + size] = float(decay)
            if mask is not None:
                learnable[:, start : start + size] = mask.float().view(M, 1)
            start += size
        self.mask = None if bool(learnable.all()) else learnable
        # the rate of each model and number: μP's hidden matrices × hidden_lr, the rest × 1
        self.rate = cfg.lr.view(M, 1) * (1 + (cfg.hidden_lr.view(M, 1) - 1) * hidden)
        self.decayed = decayed
        self.m = torch.zeros_like(self.flat)
        self.v = torch.zeros_like(self.flat)
        self.count = 0

    def step(self, grads, factor):
        """One update from the gradients of the views (in their order); `factor` the schedule's multiplier."""
        import torch

        self.count += 1
        b1, b2 = ADAMW_BETAS
        bc1, bc2 = 1 - b1**self.count, 1 - b2**self.count
        with torch.no_grad():
            g = torch.cat([x.reshape(x.shape[0], -1) for x in grads], 1)
            if self.mask is not None:
                g.mul_(self.mask)
            lr = self.rate * factor
            self.flat.mul_(1 - lr * WEIGHT_DECAY * self.decayed)
            self.m.lerp_(g, 1 - b1)
            self.v.mul_(b2).addcmul_(g, g, value=1 - b2)
            denom = self.v.sqrt().div_(math.sqrt(bc2)).add_(ADAMW_EPS)
            self.flat.addcdiv_(self.m * (lr / bc1), denom, value=-1)


def layer_grad_norms(names_, grads, L):
    """Per-layer gradient norms (L, M) of each block, and of its q and k projections."""
    import torch

    block = [0.0] * L
    qk = [0.0] * L
    for n, g in zip(names_, grads):
        if not (n.startswith("l") and n[1].isdigit()):
            continue
        i = int(n[1:].split(".")[0])
        sq = g.flatten(1).pow(2).sum(1)
        block[i] = block[i] + sq
        if n.endswith("wqkv"):
            D = g.shape[1]  # (M, D, 2·H·d_k + D): the value columns are the last D
            qk[i] = qk[i] + g[:, :, : g.shape[2] - D].flatten(1).pow(2).sum(1)
    return torch.stack(block).sqrt(), torch.stack(qk).sqrt()


# On CUDA, matrix products in TF32 ("tf32") or under bf16 autocast ("bf16": weights, optimizer state,
# LayerNorm, softmax statistics and the loss stay float32), or neither ("fp32"). On a CPU always float32.
# benchmarks/gpu.py compares the three on a 300-step slice at q/k width 1024, where the unscaled logits
# are largest (benchmarks/gpu/h200-2026-11-28): against float32, TF32 moved held-out losses by 0.034
# bits/byte on average and kept every tuned rate; bf16 moved them as much but flipped one tuned rate (a
# near tie), so TF32 it is, until a longer slice shows bf16's choices agree.
CUDA_PRECISION = "tf32"


def set_precision(device):
    """TF32 matrix products on CUDA unless CUDA_PRECISION is "fp32" (a process-wide switch)."""
    import torch

    if device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = CUDA_PRECISION != "fp32"
        torch.backends.cudnn.allow_tf32 = CUDA_PRECISION != "fp32"


class Stopped(Exception):
    """Training was told to stop (another stack failed, or the build was interrupted)."""


def train_batched(P, cfg, batches, steps, eval_at=(), evaluate=None, stop=None, tick=None, compile_fn="device"):
    """Train the stacked models; `evaluate(step, P, grads)` runs after the steps in `eval_at`.

    batches(step) -> (M, B, T+1) token ids; `stop` a threading.Event checked every step; `tick()` called
    after every step (progress). `compile_fn`: fn -> its compiled form, or None for eager; by default the
    device's (compiled.compiler: torch.compile on CUDA, eager on a CPU). Returns the training loss per
    step, (steps, M).
    """
    import torch

    from reportgen.experiments.lm import compiled

    opt = AdamW(P, cfg)  # P's tensors become views into its buffer
    params = opt.views
    device = params[0].device
    losses = torch.empty(steps, cfg.M, device=device)
    half = device.type == "cuda" and CUDA_PRECISION == "bf16"
    compile_fn = compiled.compiler(device.type) if compile_fn == "device" else compile_fn
    fast = compiled.Step(opt, cfg, steps, schedule, compile_fn, half) if compile_fn else None
    for step in range(steps):
        if stop is not None and stop.is_set():
            raise Stopped("training stopped")
        if fast is not None:
            loss, grads = fast(P, batches(step), step)
        else:
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=half):
                loss = forward(P, cfg, batches(step))
            grads = torch.autograd.grad(loss.sum(), params, materialize_grads=True)  # each model its own gradient
            opt.step(grads, schedule(step, steps))
        losses[step] = loss.detach()
        if evaluate is not None and step + 1 in eval_at:
            evaluate(step + 1, P, grads)
        if tick is not None:
            tick()
    return losses


def one_model(P, cfg, m):
    """Copies of model m's parameters (M = 1) and its one-model configuration."""
    import copy

    mine = {n: p[m : m + 1].detach().clone() for n, p in P.items()}
    one = copy.copy(cfg)
    one.cells = [cfg.cells[m]]
    one.M = 1
    kind = next(k for k, (a, b) in cfg.slices.items() if a <= m < b)
    one.slices = {kind: (0, 1)}
    for attr in ("log_mult", "learnable", "mup", "lr", "out_mult", "hidden_lr"):
        setattr(one, attr, getattr(cfg, attr)[m : m + 1])
    one.q_init = [cfg.q_init[m]]
    return mine, one


def train_looped(P, cfg, batches, steps):
    """The same models one at a time, each with its own torch.optim.AdamW; (steps, M) losses."""
    import torch

    losses = torch.empty(steps, cfg.M, device=next(iter(P.values())).device)
    for m in range(cfg.M):
        mine, one = one_model(P, cfg, m)
        groups = []
        for n, p in mine.items():
            scale, decayed, mask = param_settings(one, n)
            if mask is not None and not bool(mask[0]):
                continue  # a fixed multiplier is no parameter
            p.requires_grad_(True)
            groups.append({"params": [p], "scale": float(scale[0]), "weight_decay": WEIGHT_DECAY if decayed else 0.0})
        opt = torch.optim.AdamW(groups, lr=float(one.lr[0]), betas=ADAMW_BETAS, eps=ADAMW_EPS)
        for step in range(steps):
            for group in opt.param_groups:
                group["lr"] = float(one.lr[0]) * group["scale"] * schedule(step, steps)
            loss = forward(mine, one, batches(step)[m : m + 1])
            opt.zero_grad()
            loss.sum().backward()
            opt.step()
            losses[step, m] = loss.detach()[0]
    return losses
