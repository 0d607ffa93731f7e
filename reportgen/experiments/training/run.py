"""Training family, run: associative recall learned with five score scalings, over learning rates.

Numbers only: per-model learning curves and summaries, as plain JSON-able values.
"""

import math

from reportgen.experiments.training.params import (
    BLOWUP,
    INPUTS,
    N_KEYS,
    N_VALUES,
    PAIRS,
    REACH,
    SIGNIFICANT,
    SPIKE_NATS,
    SPIKE_SMOOTHING,
)

# Score multipliers: name, label, log of the initial multiplier at d_k, learnable, cosine scores.
VARIANTS = (
    ("scaled", "× 1/√d_k", lambda d: -0.5 * math.log(d), False, False),
    ("unscaled", "× 1", lambda d: 0.0, False, False),
    ("mup", "× 1/d_k (μP)", lambda d: -math.log(d), False, False),
    ("learned", "learnable, from 1/√d_k", lambda d: -0.5 * math.log(d), True, False),
    # QK-norm: cos(q, k) times a learnable g; g = √d_k matches LayerNorm-ed q, k with 1/√d_k.
    ("qknorm", "cosine × learnable g, from √d_k", lambda d: 0.5 * math.log(d), True, True),
    # The learnable multiplier again, from other starting points: where does it end up?
    ("learned_from_1", "learnable, from 1", lambda d: 0.0, True, False),
    ("learned_from_1/d", "learnable, from 1/d_k", lambda d: -math.log(d), True, False),
)
ADAM_BETAS, ADAM_EPS = (0.9, 0.999), 1e-8  # torch.optim.Adam defaults


def recall_batches(g, steps, replicates, batch, device):
    """Fresh recall sequences for every step and replicate: keys, values (…, PAIRS), query slot."""
    import torch

    shape = (steps, replicates, batch)
    keys = torch.rand(*shape, N_KEYS, generator=g, device=device).argsort(-1)[..., :PAIRS]
    values = torch.randint(N_VALUES, (*shape, PAIRS), generator=g, device=device)
    slot = torch.randint(PAIRS, shape, generator=g, device=device)
    return {"keys": keys, "values": values, "slot": slot}


def model_grid(params, d):
    """(variant index, learning rate, replicate) of every model of one d_k, in a fixed order."""
    return [(v, lr, r) for v in range(len(VARIANTS)) for lr in params.lrs for r in range(params.seeds)]


def init_weights(seed, d, replicates, device):
    """Initial weights per replicate; every variant and rate of a replicate starts from them."""
    import torch

    from reportgen.experiments.sampling import generator

    out = []
    for r in range(replicates):
        g = generator(device, seed, "init", d, r)
        # Unit-variance rows: q and k components have variance 1, the documents' premise.
        # Queries are keys, so W_q needs only the key rows.
        w = [torch.randn(rows, d, generator=g, device=device) for rows in (N_KEYS, INPUTS, INPUTS)]
        w.append(torch.randn(d, N_VALUES, generator=g, device=device) / math.sqrt(d))
        out.append(w)
    # W_q (R, N_KEYS, d); W_k, W_v (R, INPUTS, d); W_o (R, d, N_VALUES)
    return [torch.stack(ws) for ws in zip(*out)]


def stack_models(grid, init, d, device):
    """Parameters with a leading model dimension, and the per-model settings."""
    import torch

    replicate = torch.tensor([r for _, _, r in grid], device=device)
    weights = [w[replicate].clone() for w in init]  # (M, …)
    log_scale = torch.tensor([VARIANTS[v][2](d) for v, _, _ in grid], device=device)
    spec = {
        "replicate": replicate,
        "lr": torch.tensor([lr for _, lr, _ in grid], device=device),
        "learnable": torch.tensor([VARIANTS[v][3] for v, _, _ in grid], device=device),
        "cosine_models": torch.tensor([i for i, (v, _, _) in enumerate(grid) if VARIANTS[v][4]],
                                      device=device, dtype=torch.long),
    }
    return weights + [log_scale], spec


def forward(params, spec, keys, values, slot):
    """Per-model loss and statistics for one batch; keys, values (M, B, PAIRS), slot (M, B).

    Tokens are one-hot codes, so x W is a row lookup: q = W_q[query key], and a memory token's
    k = (W_k[key] + W_k[N_KEYS + value])/√2. Every score is then an entry of W_q W_kᵀ and every
    output a row of W_v W_o: the same function of the weights, computed on (INPUTS × INPUTS)
    products instead of per-token d-vectors.
    """
    import torch

    W_q, W_k, W_v, W_o, log_scale = params
    M, B = slot.shape
    query = keys.gather(2, slot.unsqueeze(-1)).squeeze(-1)  # (M, B)
    target = values.gather(2, slot.unsqueeze(-1)).squeeze(-1)
    code = (keys, values + N_KEYS)  # the two one-hot slots of each memory token, (M, B, PAIRS)
    qk = torch.bmm(W_q, W_k.transpose(1, 2))  # (M, N_KEYS, INPUTS): q(key) · W_k[j]
    per_input = qk.gather(1, query.unsqueeze(-1).expand(M, B, INPUTS))  # (M, B, INPUTS)
    raw = sum(per_input.gather(2, c) for c in code) / math.sqrt(2)  # (M, B, PAIRS): q · k_i
    cos = spec["cosine_models"]  # indices of the cosine-score models (a fraction of M)
    if len(cos):
        # |k_i|² = (G_kk + 2 G_kv + G_vv)/2 with G = W_k W_kᵀ, for those models only.
        gram = torch.bmm(W_k[cos], W_k[cos].transpose(1, 2)).flatten(1)  # (C, INPUTS²)
        pair = [(a[cos] * INPUTS + b[cos]).flatten(1) for a in code for b in code]
        k_sq = sum(gram.gather(1, i) for i in pair).view(len(cos), B, -1) / 2
        q_norm = W_q[cos].norm(dim=-1).gather(1, query[cos]).unsqueeze(-1)  # (C, B, 1)
        raw = raw.index_copy(0, cos, raw[cos] / (q_norm * k_sq.clamp_min(1e-30).sqrt()))
    scores = raw * log_scale.exp().view(M, 1, 1)  # (M, B, PAIRS): the softmax input
    p = torch.softmax(scores, dim=-1)
    mix = torch.zeros(M, B, INPUTS, device=p.device, dtype=p.dtype)
    for c in code:
        mix = mix.scatter_add(2, c, p / math.sqrt(2))  # Σ_i p_i x_i in the one-hot basis
    logits = torch.bmm(mix, torch.bmm(W_v, W_o))  # (M, B, N_VALUES) = (Σ_i p_i v_i) W_o
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), target.flatten(), reduction="none")
    with torch.no_grad():
        stats = {
            "acc": (logits.argmax(-1) == target).float().mean(1),
            "entropy": torch.special.entr(p).sum(-1).mean(1),
            "max_logit": scores.abs().flatten(1).max(1).values,
        }
    return loss.view(M, B).mean(1), stats


class Adam:
    """Adam over parameters with a leading model dimension and one learning rate per model.

    Adam is elementwise, so on stacked parameters it is M independent Adams; the per-model
    rate multiplies the update (scaling the gradient would not change it). Matches
    torch.optim.Adam's arithmetic, bias corrections included.
    """

    def __init__(self, params, lr, masks):
        import torch

        self.params, self.masks, self.step_count = params, masks, 0
        self.lr = [lr.view(-1, *[1] * (p.dim() - 1)) for p in params]
        self.m = [torch.zeros_like(p) for p in params]
        self.v = [torch.zeros_like(p) for p in params]

    def step(self, grads):
        import torch

        self.step_count += 1
        b1, b2 = ADAM_BETAS
        bc1, bc2 = 1 - b1**self.step_count, 1 - b2**self.step_count
        with torch.no_grad():
            for p, g, m, v, lr, mask in zip(self.params, grads, self.m, self.v, self.lr, self.masks):
                if mask is not None:
                    g = torch.where(mask, g, torch.zeros_like(g))  # frozen: zero gradient, zero update
                m.lerp_(g, 1 - b1)
                v.mul_(b2).addcmul_(g, g, value=1 - b2)
                denom = v.sqrt().div_(math.sqrt(bc2)).add_(ADAM_EPS)
                p.addcdiv_(m * (lr / bc1), denom, value=-1)


HISTORY = ("loss", "acc", "entropy", "max_logit", "scale")  # logged every step, per model


def _record(history, step, loss, stats, log_scale):
    """Write one step's numbers into the preallocated (steps, M) history.

    In place: a few small tensors kept per step would pin the allocator's larger freed blocks
    and grow memory with the step count (measured: +200 MB over 300 steps).
    """
    history["loss"][step] = loss.detach()
    history["scale"][step] = log_scale.detach().exp()
    for k, v in stats.items():
        history[k][step] = v


def train_batched(params, spec, batches, steps):
    """Train all models at once; returns the per-step history, each (steps, M)."""
    import torch

    for p in params:
        p.requires_grad_(True)
    masks = [None, None, None, None, spec["learnable"]]
    adam = Adam(params, spec["lr"], masks)
    M = params[0].shape[0]
    history = {k: torch.empty(steps, M, device=params[0].device) for k in HISTORY}
    for step in range(steps):
        keys, values, slot = (batches[k][step][spec["replicate"]] for k in ("keys", "values", "slot"))
        loss, stats = forward(params, spec, keys, values, slot)
        # Models are independent: the gradient of the sum is each model's own gradient.
        grads = torch.autograd.grad(loss.sum(), params)
        adam.step(grads)
        _record(history, step, loss, stats, params[4])
    return history


def train_looped(params, spec, batches, steps):
    """The same work as a plain loop: one model at a time, each with its own torch.optim.Adam."""
    import torch

    M = params[0].shape[0]
    history = {k: torch.empty(steps, M, device=params[0].device) for k in HISTORY}
    for m in range(M):
        mine = [p[m : m + 1].detach().clone().requires_grad_(True) for p in params]
        one = {k: v[m : m + 1] for k, v in spec.items() if k != "cosine_models"}
        one["cosine_models"] = torch.arange(1 if m in spec["cosine_models"].tolist() else 0)
        trainable = mine[:4] + ([mine[4]] if bool(one["learnable"]) else [])
        opt = torch.optim.Adam(trainable, lr=float(one["lr"]), betas=ADAM_BETAS, eps=ADAM_EPS)
        column = {k: v[:, m : m + 1] for k, v in history.items()}  # views: writes land in history
        for step in range(steps):
            keys, values, slot = (batches[k][step][one["replicate"]] for k in ("keys", "values", "slot"))
            loss, stats = forward(mine, one, keys, values, slot)
            opt.zero_grad()
            loss.sum().backward()
            opt.step()
            _record(column, step, loss, stats, mine[4])
    return history


def count_spikes(loss):
    """Loss spikes per model in a (steps, M) history.

    A spike: the SPIKE_SMOOTHING-step moving average rises above twice its running minimum and
    at least SPIKE_NATS above it; each excursion counts once, however long it lasts.
    """
    import torch

    k = SPIKE_SMOOTHING
    smooth = torch.nn.functional.avg_pool1d(loss.T.unsqueeze(1), k, stride=1).squeeze(1).T  # (steps-k+1, M)
    smooth = torch.nan_to_num(smooth, nan=float("inf"))
    floor = torch.cummin(smooth, dim=0).values
    above = (smooth > 2 * floor) & (smooth > floor + SPIKE_NATS)
    starts = above[1:] & ~above[:-1]
    return (starts.sum(0) + above[0].long()).tolist()


def _round(values):
    """Finite values to SIGNIFICANT digits; NaN and inf as None (a diverged run)."""
    return [float(f"{v:.{SIGNIFICANT}g}") if math.isfinite(v) else None for v in values]


def summarize(history, grid, params, weights_moved):
    """Per-model learning curves (window means) and the numbers the verdicts use."""
    import torch

    steps = history["loss"].shape[0]
    w = min(params.window, steps)  # at least one logged window, however short the run
    n = steps // w

    def windows(x, how):
        x = x[: n * w].view(n, w, -1)
        return x.mean(1) if how == "mean" else x.amax(1)

    curves = {
        "loss": windows(history["loss"], "mean"),
        "acc": windows(history["acc"], "mean"),
        "entropy": windows(history["entropy"], "mean"),
        "max_logit": windows(history["max_logit"], "max"),
        "scale": history["scale"][w - 1 :: w][:n],
    }
    spikes = count_spikes(history["loss"])
    finite = torch.isfinite(history["loss"]).all(0)
    blown = torch.nan_to_num(curves["loss"], nan=float("inf")).amax(0) > BLOWUP * math.log(N_VALUES)
    models = []
    for i, (v, lr, r) in enumerate(grid):
        acc = curves["acc"][:, i]
        reached = torch.nonzero(acc >= REACH)
        first_loss = history["loss"][0, i].item()
        final_loss = curves["loss"][-1, i].item()
        models.append(
            {
                "variant": VARIANTS[v][0],
                "lr": lr,
                "seed": r,
                "initial_loss": first_loss,
                "final_loss": final_loss if math.isfinite(final_loss) else None,
                "final_acc": curves["acc"][-1, i].item() if math.isfinite(final_loss) else None,
                "steps_to_90": int((reached[0, 0].item() + 1) * w) if len(reached) else None,
                "diverged": bool(not finite[i] or blown[i]),
                "spikes": spikes[i],
                "initial_entropy": history["entropy"][0, i].item(),
                "initial_max_logit": history["max_logit"][0, i].item(),
                "w_q_moved": weights_moved[i],
                "curves": {k: _round(c[:, i].tolist()) for k, c in curves.items()},
            }
        )
    return models


def train_one_width(params, seed, d, device):
    """Every variant × rate × seed at one d_k, as one batched model; its summary."""
    import torch

    from reportgen.experiments.sampling import generator

    grid = model_grid(params, d)
    init = init_weights(seed, d, params.seeds, device)
    weights, spec = stack_models(grid, init, d, device)
    start_q = weights[0].detach().clone()
    g = generator(device, seed, "data", d)
    batches = recall_batches(g, params.steps, params.seeds, params.batch, device)
    history = train_batched(weights, spec, batches, params.steps)
    with torch.no_grad():
        moved = ((weights[0] - start_q).flatten(1).norm(dim=1) / start_q.flatten(1).norm(dim=1)).tolist()
    return {"d_k": d, "models": summarize(history, grid, params, _round(moved))}


def run(params, seed, device, progress):
    """Train every variant × learning rate × seed, one batched model per d_k; plain numbers out."""
    import torch

    runs = []
    # Saturated softmaxes produce subnormal floats, which the CPU handles 10-100x slower;
    # flushing them to zero changes nothing above 1e-38.
    # (The pipeline's one torch thread matters here too: the ops take about a millisecond.)
    flushed = torch.set_flush_denormal(True)
    try:
        for d in progress(params.dims, "training: d_k sweep, all models batched"):
            runs.append(train_one_width(params, seed, d, device))
    finally:
        if flushed:
            torch.set_flush_denormal(False)
    return {
        "task": {"keys": N_KEYS, "values": N_VALUES, "pairs": PAIRS},
        "lrs": list(params.lrs),
        "seeds": params.seeds,
        "steps": params.steps,
        "batch": params.batch,
        "window": params.window,
        "variants": [{"name": v[0], "label": v[1]} for v in VARIANTS],
        "runs": runs,
    }

