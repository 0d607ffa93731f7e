"""A decoder-only, pre-LayerNorm byte Transformer, many models stacked and trained at once.

Every parameter carries a leading model dimension M: M independent models (variants × learning
rates × seeds of one configuration) run as one batched forward (torch.bmm and batched attention),
one backward and one AdamW update (optimize.py), each model with its own rate, initialization and
data.

Score conventions (the variants): s = c · f(q)·f(k) with f the identity, a LayerNorm over the
head dimension (QK-LayerNorm, Dehghani et al. 2023) or an L2 normalisation (cosine attention with
a learnable gain, Henry et al. 2020), and c fixed or learned per head (as log c). μP follows
Yang et al. 2022 (Tensor Programs V; the `mup` package's MuReadout and MuAdam): c = 1/d_k,
queries initialised to zero, hidden matrices' Adam rate × base_width/width, readout logits ×
base_width/width. T5 (Raffel et al. 2020) puts no factor in the scores and folds 1/√d_k into
the initialization of W_q.
"""

import math

from reportgen.experiments.lm.params import SATURATED_ROW

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

    def __init__(self, width, heads, layers, context, vocab, base_width, cells, device, d_k=None, mlp_ratio=4):
        import torch

        self.D, self.H, self.L, self.T, self.V = width, heads, layers, context, vocab
        self.mlp = mlp_ratio * width  # the MLP's hidden width
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
            out[p + "w1"].append(normal(D, cfg.mlp, std=D**-0.5))
            out[p + "w2"].append(normal(cfg.mlp, D, std=cfg.mlp**-0.5))
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


def _transform(kind, q, k, gq, gk):
    """f(q), f(k) of one score kind: the identity, QK-LayerNorm with gains (m, d_k), or L2 norms."""
    import torch.nn.functional as F

    if kind == QKLN:
        shape = (q.shape[0], 1, 1, 1, q.shape[-1])
        return F.layer_norm(q, q.shape[-1:]) * gq.view(shape), F.layer_norm(k, k.shape[-1:]) * gk.view(shape)
    if kind == COSINE:
        return F.normalize(q, dim=-1), F.normalize(k, dim=-1)
    return q, k


def factored_cost(D, H, dk, T, B):
    """Multiply-adds per token of q·kᵀ (explicit, factored): the projections and the T × T scores.

    Factored: A_h = W_q,h W_k,hᵀ once a step (D × D per head), then (x A_h) xᵀ: per token it costs
    what q/k width = d_model costs, whatever d_k is. Exact for the identity score kind only.
    """
    explicit = 2 * H * dk * D + H * T * dk
    factored = H * D * D + H * T * D + H * D * D * dk / (B * T)
    return explicit, factored


def use_factored_shape(D, H, dk, T, B):
    """Whether plain models of this shape compute q·kᵀ in factored form: where it is cheaper."""
    explicit, factored = factored_cost(D, H, dk, T, B)
    return factored < explicit


def use_factored(cfg, B):
    """Whether the plain models of this stack compute q·kᵀ in factored form."""
    return use_factored_shape(cfg.D, cfg.H, cfg.dk, cfg.T, B)


def _attend(P, cfg, a, i, probe):
    """Layer i's attention output (M, B·T, D), each score kind on its contiguous slice of models.

    a: (M, B, T, D), the layer-normed input. With `probe`, also the statistics per model.
    """
    import torch

    M, B, T, D = a.shape
    H, dk = cfg.H, cfg.dk
    p = f"l{i}."
    outs, stats = [], []
    for kind, (lo, hi) in cfg.slices.items():
        m = hi - lo
        x, W = a[lo:hi], P[p + "wqkv"][lo:hi]  # (m, B, T, D), (m, D, 2·H·d_k + D)
        mult = P[p + "logm"][lo:hi].exp()  # (m, H)
        v = torch.bmm(x.reshape(m, B * T, D), W[..., 2 * H * dk:]).view(m, B, T, H, cfg.dv).transpose(2, 3)
        if kind == PLAIN and not probe and use_factored(cfg, B):
            wq, wk = W[..., : H * dk].view(m, D, H, dk), W[..., H * dk : 2 * H * dk].view(m, D, H, dk)
            A = torch.einsum("mdhc,mehc->mdhe", wq, wk) * mult.view(m, 1, H, 1)  # (m, D, H, D): c·W_q W_kᵀ
            qa = torch.bmm(x.reshape(m, B * T, D), A.reshape(m, D, H * D)).view(m, B, T, H, D).transpose(2, 3)
            outs.append(_attention(qa, x.unsqueeze(2), v))  # keys: x itself, shared by the heads
            continue
        qk = torch.bmm(x.reshape(m, B * T, D), W[..., : 2 * H * dk]).view(m, B, T, 2, H, dk).permute(3, 0, 1, 4, 2, 5)
        q, k = qk[0], qk[1]  # (m, B, H, T, d_k)
        fq, fk = _transform(kind, q, k, P[p + "gq"][lo:hi], P[p + "gk"][lo:hi])
        fq = fq * mult.view(m, 1, H, 1, 1)
        if probe:
            o, layer = _probe_attention(q, k, fq, fk, v)
            stats.append(layer)
        else:
            o = _attention(fq, fk, v)
        outs.append(o)
    o = outs[0] if len(outs) == 1 else torch.cat(outs)
    o = o.transpose(2, 3).reshape(M, B * T, D)
    if not probe:
        return o, None
    return o, {key: torch.cat([s[key] for s in stats]) for key in stats[0]}


def forward(P, cfg, x, probe=False):
    """Mean cross-entropy per model (nats), and with `probe` the attention statistics per layer.

    x: (M, B, T+1) token ids. Training computes attention without keeping its weights; the probe
    computes them explicitly (no gradient) to measure them.
    """
    import torch
    import torch.nn.functional as F

    M, B, T1 = x.shape
    T, D, V = T1 - 1, cfg.D, cfg.V
    inp, tgt = x[..., :-1], x[..., 1:]
    offset = (torch.arange(M, device=x.device) * V).view(M, 1, 1)
    h = P["emb"].reshape(M * V, D)[inp + offset] + P["pos"][:, None, :T]
    stats = []
    for i in range(cfg.L):
        p = f"l{i}."
        a = _affine_norm(h, P[p + "ln1g"], P[p + "ln1b"])
        o, layer = _attend(P, cfg, a, i, probe)
        if probe:
            stats.append(layer)
        h = torch.baddbmm(h.view(M, B * T, D), o, P[p + "wo"]).view(M, B, T, D)  # the residual, fused
        a = _affine_norm(h, P[p + "ln2g"], P[p + "ln2b"])
        u = F.gelu(torch.bmm(a.view(M, B * T, D), P[p + "w1"]))
        h = torch.baddbmm(h.view(M, B * T, D), u, P[p + "w2"]).view(M, B, T, D)
    a = _affine_norm(h, P["lnfg"], P["lnfb"])
    logits = torch.bmm(a.view(M, B * T, D), P["wu"]).float() * cfg.out_mult.view(M, 1, 1)  # float32 under autocast
    loss = fused_cross_entropy(logits, tgt.reshape(M, B * T)).mean(1)
    return (loss, stats) if probe else loss


def fused(q):
    """Whether attention on q's device goes through PyTorch's fused kernel (on CUDA)."""
    return q.is_cuda


def _attention(q, k, v):
    """Causal attention with the factor already in q: softmax(q kᵀ + mask) v.

    q: (M, B, H, T, e); k: (M, B, H, T, e), or (M, B, 1, T, e) shared by the heads; v: (M, B, H, T, d_v).
    On a GPU, PyTorch's fused kernel (scale 1: the factor is in q), which never stores the T × T
    weights; on a CPU written out (one baddbmm, a softmax, one bmm), faster there at these sizes,
    forward and backward.
    """
    import torch

    M, B, H, T, e = q.shape
    dv = v.shape[-1]
    if fused(q):
        import torch.nn.functional as F

        shared = k.shape[2] == 1 and H > 1
        o = F.scaled_dot_product_attention(q.reshape(M * B, H, T, e), k.reshape(M * B, k.shape[2], T, e),
                                           v.reshape(M * B, H, T, dv), is_causal=True, scale=1.0, enable_gqa=shared)
        return o.view(M, B, H, T, dv)
    mask = torch.full((T, T), float("-inf"), device=q.device, dtype=q.dtype).triu(1)
    if k.shape[2] == 1:  # one key set for every head: (M·B, H·T, e) @ (M·B, e, T), no copy of the keys
        scores = torch.bmm(q.reshape(M * B, H * T, e), k.reshape(M * B, T, e).transpose(1, 2)).view(-1, T, T)
        scores = scores + mask
    else:
        scores = torch.baddbmm(mask.expand(M * B * H, T, T), q.reshape(-1, T, e), k.reshape(-1, T, e).transpose(1, 2))
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
