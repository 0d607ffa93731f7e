"""A decoder-only, pre-LayerNorm byte Transformer, many models stacked and trained at once.

Every parameter carries a leading model dimension M: M independent models (variants × learning
rates × seeds of one configuration) run as one batched forward (torch.bmm and batched attention),
one backward and one vectorised AdamW, each model with its own rate, initialization and data.
`train_looped` trains the same models one at a time with torch.optim.AdamW (the benchmark's
reference and the test of equality).

Score conventions (the variants): s = c · f(q)·f(k) with f the identity, a LayerNorm over the
head dimension (QK-LayerNorm, Dehghani et al. 2023) or an L2 normalisation (cosine attention with
a learnable gain, Henry et al. 2020), and c fixed or learned per head (as log c). μP follows
Yang et al. 2022 (Tensor Programs V; the `mup` package's MuReadout and MuAdam): c = 1/d_k,
queries initialised to zero, hidden matrices' Adam rate × base_width/width, readout logits ×
base_width/width. T5 (Raffel et al. 2020) puts no factor in the scores and folds 1/√d_k into
the initialization of W_q.
"""

import math

from reportgen.experiments.lm.params import (
    ADAMW_BETAS,
    ADAMW_EPS,
    FINAL_LR_FRACTION,
    MLP_RATIO,
    SATURATED_ROW,
    WARMUP_FRACTION,
    WEIGHT_DECAY,
)

PLAIN, QKLN, COSINE = "plain", "qk_ln", "cosine"


def variant_spec(name, d_k, context):
    """(log of the initial score multiplier, learnable, score kind, W_q init factor, μP)."""
    half, full = -0.5 * math.log(d_k), -math.log(d_k)
    return {
        "scaled": (half, False, PLAIN, 1.0, False),
        "unscaled": (0.0, False, PLAIN, 1.0, False),
        "inv_d": (full, False, PLAIN, 1.0, False),
        "mup": (full, False, PLAIN, 0.0, True),
        "learned": (half, True, PLAIN, 1.0, False),
        "learned_1": (0.0, True, PLAIN, 1.0, False),
        "learned_inv_d": (full, True, PLAIN, 1.0, False),
        "qk_ln": (half, False, QKLN, 1.0, False),
        # Henry et al. initialise the gain to log2(L² − L) for sequences of length L.
        "cosine": (math.log(math.log2(context**2 - context)), True, COSINE, 1.0, False),
        "t5": (0.0, False, PLAIN, d_k**-0.5, False),
    }[name]


KIND_ORDER = (PLAIN, QKLN, COSINE)


def order_grid(cells, d_k, context):
    """Cells sorted so each score kind is one contiguous slice of the model stack (stable)."""
    return sorted(cells, key=lambda c: KIND_ORDER.index(variant_spec(c[0], d_k, context)[2]))


class Config:
    """Shapes of one architecture and the per-model settings of its stack."""

    def __init__(self, width, heads, layers, context, vocab, base_width, cells, device, d_k=None):
        import torch

        self.D, self.H, self.L, self.T, self.V = width, heads, layers, context, vocab
        # The query/key width per head, decoupled from d_model: the variance argument is about the
        # q·k dimension, so d_k can grow to hundreds at a width the CPU trains. Values keep width/heads.
        self.dk = d_k or width // heads
        self.dv = width // heads
        self.cells = cells  # (variant, lr, seed) per model, kinds contiguous
        specs = [variant_spec(v, self.dk, context) for v, _, _ in cells]
        kinds = [s[2] for s in specs]
        self.M = len(cells)
        self.slices = {k: (kinds.index(k), len(kinds) - kinds[::-1].index(k)) for k in KIND_ORDER if k in kinds}
        self.log_mult = torch.tensor([s[0] for s in specs], device=device)
        self.learnable = torch.tensor([s[1] for s in specs], device=device)
        self.q_init = [s[3] for s in specs]
        self.mup = torch.tensor([s[4] for s in specs], device=device)
        self.width_mult = width / base_width
        self.lr = torch.tensor([lr for _, lr, _ in cells], device=device)
        # μP readout: logits × 1/width_mult (MuReadout); others × 1.
        one = torch.ones(self.M, device=device)
        self.out_mult = torch.where(self.mup, one / self.width_mult, one)
        self.hidden_lr = torch.where(self.mup, one / self.width_mult, one)  # MuAdam: matrix-like × 1/width_mult


def names(cfg):
    """Parameter names in a fixed order; per layer a prefix l{i}."""
    per_layer = ("ln1g", "ln1b", "wqkv", "wo", "ln2g", "ln2b", "w1", "w2", "logm", "gq", "gk")
    return ["emb", "pos"] + [f"l{i}.{n}" for i in range(cfg.L) for n in per_layer] + ["lnfg", "lnfb", "wu"]


HIDDEN = ("wqkv", "wo", "w1", "w2")  # matrix-like: μP divides their rate by the width multiplier
DECAYED = HIDDEN + ("wu",)


def init_params(cfg, generators, device):
    """{name: (M, …) tensor}, each model drawn from its own generator."""
    import torch

    D, V, T, H, dk = cfg.D, cfg.V, cfg.T, cfg.H, cfg.dk
    out = {n: [] for n in names(cfg)}
    for m, g in enumerate(generators):
        def normal(*shape, std=1.0):
            return torch.randn(*shape, generator=g, device=device) * std

        out["emb"].append(normal(V, D))
        out["pos"].append(normal(T, D))
        for i in range(cfg.L):
            p = f"l{i}."
            wqkv = normal(D, 2 * H * dk + D, std=D**-0.5)  # (D, queries H·d_k | keys H·d_k | values D)
            wqkv[:, : H * dk] *= cfg.q_init[m]  # μP: zero queries; T5: ÷ √d_k
            out[p + "wqkv"].append(wqkv)
            out[p + "wo"].append(normal(D, D, std=D**-0.5))
            out[p + "w1"].append(normal(D, MLP_RATIO * D, std=D**-0.5))
            out[p + "w2"].append(normal(MLP_RATIO * D, D, std=(MLP_RATIO * D) ** -0.5))
            for n in ("ln1g", "ln2g"):
                out[p + n].append(torch.ones(D, device=device))
            for n in ("ln1b", "ln2b"):
                out[p + n].append(torch.zeros(D, device=device))
            out[p + "logm"].append(torch.full((H,), float(cfg.log_mult[m]), device=device))
            out[p + "gq"].append(torch.ones(dk, device=device))
            out[p + "gk"].append(torch.ones(dk, device=device))
        out["lnfg"].append(torch.ones(D, device=device))
        out["lnfb"].append(torch.zeros(D, device=device))
        out["wu"].append(normal(D, V, std=D**-0.5))
    return {n: torch.stack(v) for n, v in out.items()}


_FUSED = []  # the autograd.Function, built on first use (this module imports torch lazily)


def fused_cross_entropy(logits, target):
    """Per-token cross-entropy whose backward is one pass: softmax − one-hot (no zero-filled scatter)."""
    if not _FUSED:
        import torch

        class FusedCrossEntropy(torch.autograd.Function):
            @staticmethod
            def forward(ctx, logits, target):
                lse = torch.logsumexp(logits, -1)
                loss = lse - logits.gather(-1, target.unsqueeze(-1)).squeeze(-1)
                ctx.save_for_backward(logits, lse, target)
                return loss

            @staticmethod
            def backward(ctx, grad):
                logits, lse, target = ctx.saved_tensors
                out = (logits - lse.unsqueeze(-1)).exp_()
                out.scatter_add_(-1, target.unsqueeze(-1), torch.full_like(lse, -1.0).unsqueeze(-1))
                return out.mul_(grad.unsqueeze(-1)), None

        _FUSED.append(FusedCrossEntropy)
    return _FUSED[0].apply(logits, target)


def _affine_norm(x, gain, bias):
    """LayerNorm over the last dimension with a per-model gain and bias (M, D)."""
    import torch.nn.functional as F

    import torch

    shape = (x.shape[0],) + (1,) * (x.dim() - 2) + (x.shape[-1],)
    return torch.addcmul(bias.view(shape), F.layer_norm(x, x.shape[-1:]), gain.view(shape))


def _qk_transform(cfg, q, k, P, i):
    """f(q), f(k) per score kind, each kind a contiguous slice of the models."""
    import torch
    import torch.nn.functional as F

    if set(cfg.slices) == {PLAIN}:
        return q, k
    qs, ks = [], []
    for kind, (a, b) in cfg.slices.items():
        qa, ka = q[a:b], k[a:b]
        if kind == QKLN:
            shape = (b - a, 1, 1, 1, cfg.dk)
            qa = F.layer_norm(qa, (cfg.dk,)) * P[f"l{i}.gq"][a:b].view(shape)
            ka = F.layer_norm(ka, (cfg.dk,)) * P[f"l{i}.gk"][a:b].view(shape)
        elif kind == COSINE:
            qa, ka = F.normalize(qa, dim=-1), F.normalize(ka, dim=-1)
        qs.append(qa)
        ks.append(ka)
    return torch.cat(qs), torch.cat(ks)


def forward(P, cfg, x, probe=False):
    """Mean cross-entropy per model (nats), and with `probe` the attention statistics per layer.

    x: (M, B, T+1) token ids. Training uses fused attention; the probe computes the weights
    explicitly (no gradient) to measure them.
    """
    import torch
    import torch.nn.functional as F

    M, B, T1 = x.shape
    T, D, H, dk, V = T1 - 1, cfg.D, cfg.H, cfg.dk, cfg.V
    inp, tgt = x[..., :-1], x[..., 1:]
    offset = (torch.arange(M, device=x.device) * V).view(M, 1, 1)
    h = P["emb"].reshape(M * V, D)[inp + offset] + P["pos"][:, None, :T]
    stats = []
    for i in range(cfg.L):
        p = f"l{i}."
        a = _affine_norm(h, P[p + "ln1g"], P[p + "ln1b"])
        qkv = torch.bmm(a.view(M, B * T, D), P[p + "wqkv"])  # (M, B·T, 2·H·d_k + D)
        qk = qkv[..., : 2 * H * dk].view(M, B, T, 2, H, dk).permute(3, 0, 1, 4, 2, 5)
        q, k = qk[0], qk[1]  # (M, B, H, T, d_k)
        v = qkv[..., 2 * H * dk :].view(M, B, T, H, cfg.dv).transpose(2, 3)  # (M, B, H, T, d_v)
        fq, fk = _qk_transform(cfg, q, k, P, i)
        mult = P[p + "logm"].exp().view(M, 1, H, 1, 1)
        if probe:
            o, layer = _probe_attention(q, k, fq * mult, fk, v)
            stats.append(layer)
        else:
            o = _attention(fq * mult, fk, v)
        o = o.transpose(2, 3).reshape(M, B * T, D)
        h = torch.baddbmm(h.view(M, B * T, D), o, P[p + "wo"]).view(M, B, T, D)  # the residual, fused
        a = _affine_norm(h, P[p + "ln2g"], P[p + "ln2b"])
        u = F.gelu(torch.bmm(a.view(M, B * T, D), P[p + "w1"]))
        h = torch.baddbmm(h.view(M, B * T, D), u, P[p + "w2"]).view(M, B, T, D)
    a = _affine_norm(h, P["lnfg"], P["lnfb"])
    logits = torch.bmm(a.view(M, B * T, D), P["wu"]) * cfg.out_mult.view(M, 1, 1)
    loss = fused_cross_entropy(logits, tgt.reshape(M, B * T)).mean(1)
    return (loss, stats) if probe else loss


def _attention(q, k, v):
    """Causal attention with the factor already in q: softmax(q kᵀ + mask) v.

    Written out (one baddbmm, a softmax, one bmm): at these sizes it is faster on the CPU
    than the fused kernel, forward and backward.
    """
    import torch

    M, B, H, T, dk = q.shape
    dv = v.shape[-1]
    mask = torch.full((T, T), float("-inf"), device=q.device, dtype=q.dtype).triu(1)
    scores = torch.baddbmm(mask.expand(M * B * H, T, T), q.reshape(-1, T, dk), k.reshape(-1, T, dk).transpose(1, 2))
    return torch.bmm(scores.softmax(-1), v.reshape(-1, T, dv)).view(M, B, H, T, dv)


PROBE_WINDOWS = 4  # attention statistics from the first windows of the evaluation set (the loss uses all)


def _probe_attention(q, k, fq, fk, v):
    """Attention output and its statistics for one layer (no gradient): (M, …) tensors.

    Rows and pairs: row i ≥ 1 (row 0 has one key, trivially one-hot); pairs (i, j < i), keys
    strictly before their query (q_i and k_i come from the same token, so the diagonal is not
    an independent pair). The statistics use the first PROBE_WINDOWS windows.
    """
    import torch
    import torch.nn.functional as F

    M, B, H, T, dk = q.shape
    future = torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1)
    scores = (fq @ fk.transpose(-1, -2)).masked_fill_(future, float("-inf"))  # (M, B, H, T, T)
    weights = scores.softmax(-1)
    out = weights @ v
    w, n = weights[:, :PROBE_WINDOWS], min(B, PROBE_WINDOWS)
    q, k = q[:, :n], k[:, :n]
    ln_keys = torch.log(torch.arange(2, T + 1, device=q.device, dtype=q.dtype))  # ln(i+1), i ≥ 1
    ent = torch.special.entr(w[..., 1:, :]).sum(-1) / ln_keys  # (M, n, H, T-1): share of uniform's
    past = torch.ones(T, T, dtype=torch.bool, device=q.device).tril(-1)
    raw = (q @ k.transpose(-1, -2))[..., past]  # (M, n, H, pairs): the premise's q·k, no factor
    q2, k2 = q.pow(2).mean((1, 3)), k.pow(2).mean((1, 3))  # (M, H, dk): E[q_c²], E[k_c²]
    independent = (q2 * k2).sum(-1)  # E[(q·k)²] were q and k independent
    # mean cos(q_i, k_j) over pairs j < i: Σ_i q̂_i · Σ_{j<i} k̂_j, with a cumulative sum
    before = F.normalize(k, dim=-1).cumsum(-2)[..., :-1, :]
    cos = (F.normalize(q, dim=-1)[..., 1:, :] * before).sum((-1, -2)) / (T * (T - 1) / 2)  # (M, n, H)
    layer = {
        "max_logit": scores[:, :n].masked_fill(future, 0).abs().amax((1, 2, 3, 4)),
        "entropy": ent.mean((1, 3)),  # (M, H)
        "saturated": (w[..., 1:, :].amax(-1) > SATURATED_ROW).float().mean((1, 2, 3)),
        "qk_std": raw.var((1, 3)).mean(-1).sqrt(),  # per head over pairs; mean variance over heads
        "qk_ratio": raw.pow(2).mean((1, 3)).mean(-1) / independent.mean(-1).clamp_min(1e-30),
        "cos": cos.mean((1, 2)),
    }
    return out, layer


# --- optimisation ---------------------------------------------------------------------------


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

    Matches torch.optim.AdamW's arithmetic (decoupled decay p ← p(1 − ηλ), bias corrections).
    """

    def __init__(self, params, cfg):
        import torch

        self.names, self.params = list(params), list(params.values())
        self.settings = [param_settings(cfg, n) for n in self.names]
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]
        self.lr, self.count = cfg.lr, 0

    def step(self, grads, factor):
        import torch

        self.count += 1
        b1, b2 = ADAMW_BETAS
        bc1, bc2 = 1 - b1**self.count, 1 - b2**self.count
        with torch.no_grad():
            for p, g, m, v, (scale, decayed, mask) in zip(self.params, grads, self.m, self.v, self.settings):
                shape = (-1,) + (1,) * (p.dim() - 1)
                if mask is not None:
                    g = g * mask.view(shape)
                lr = (self.lr * scale * factor).view(shape)
                if decayed:
                    p.mul_(1 - lr * WEIGHT_DECAY)
                m.lerp_(g, 1 - b1)
                v.mul_(b2).addcmul_(g, g, value=1 - b2)
                denom = v.sqrt().div_(math.sqrt(bc2)).add_(ADAMW_EPS)
                p.addcdiv_(m * (lr / bc1), denom, value=-1)


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


def train_batched(P, cfg, batches, steps, eval_at=(), evaluate=None):
    """Train the stacked models; `evaluate(step, P, grads)` runs after the steps in `eval_at`.

    batches(step) -> (M, B, T+1) token ids. Returns the training loss per step, (steps, M).
    """
    import torch

    for p in P.values():
        p.requires_grad_(True)
    opt = AdamW(P, cfg)
    params = list(P.values())
    losses = torch.empty(steps, cfg.M, device=params[0].device)
    for step in range(steps):
        loss = forward(P, cfg, batches(step))
        grads = torch.autograd.grad(loss.sum(), params, materialize_grads=True)  # each model its own gradient
        opt.step(grads, schedule(step, steps))
        losses[step] = loss.detach()
        if evaluate is not None and step + 1 in eval_at:
            evaluate(step + 1, P, grads)
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
