"""The task battery: one attention layer on one-hot codes, three tasks with different attention optima.

- recall: 8 (key, value) pairs from 16 keys and 16 values, then a key; answer its value. The
  optimum attends to exactly one position (one-hot).
- histogram: 16 symbols from 8, then a fixed query token; predict the distribution of the
  symbols seen. The optimum averages: uniform attention.
- induction: 12 tokens from 16 (the first 10 distinct), the last repeating one of the first
  10; answer the token that followed its earlier occurrence. Each memory position's key holds
  its own token and the one before it (the feature a first-layer previous-token head supplies),
  so the query must match the previous-token part and not the distractor, its own earlier copy.

Every code row of W_q and W_k has unit variance, so at initialization q·k has variance about
d_k, as the documents assume. The value path is one matrix R (a code's value through the
readout, W_v W_o in one): the documents' argument is about the q·k path, and a d_k-wide value
path would double the optimiser's work for nothing they claim. Scores are c·q·k with c = 1/√d_k,
1 or 1/d_k. Every model of one d_k (scalings, optimizers, rates, replicates) is one stack. Rates
are constant, so the loss logged at a checkpoint is the loss of a run with that shorter budget.
"""

import math

from reportgen.experiments.lm.params import BATTERY_OPTIMIZERS, BATTERY_SCALINGS, SIGNIFICANT, TASKS

ADAM_BETAS, ADAM_EPS = (0.9, 0.999), 1e-8

# name: (query codes, memory codes, outputs, memory positions, one-hot parts per memory code)
SHAPES = {
    "recall": (16, 32, 16, 8, 2),
    "histogram": (1, 8, 8, 16, 1),
    "induction": (16, 32, 16, 10, 2),
}


def make_batches(task, g, steps, replicates, batch, device):
    """Per step and replicate: query ids (…, B), memory code ids (…, B, L, parts), targets (…, B, out)."""
    import torch

    shape = (steps, replicates, batch)
    n_q, n_c, n_out, L, parts = SHAPES[task]
    if task == "recall":
        keys = torch.rand(*shape, 16, generator=g, device=device).argsort(-1)[..., :L]
        values = torch.randint(16, (*shape, L), generator=g, device=device)
        slot = torch.randint(L, shape, generator=g, device=device)
        query = keys.gather(-1, slot.unsqueeze(-1)).squeeze(-1)
        answer = values.gather(-1, slot.unsqueeze(-1)).squeeze(-1)
        codes = torch.stack((keys, values + 16), -1)
        target = torch.nn.functional.one_hot(answer, n_out).float()
    elif task == "histogram":
        symbols = torch.randint(n_c, (*shape, L), generator=g, device=device)
        query = torch.zeros(shape, dtype=torch.long, device=device)
        codes = symbols.unsqueeze(-1)
        target = torch.nn.functional.one_hot(symbols, n_out).float().mean(-2)
    else:  # induction
        first = torch.rand(*shape, 16, generator=g, device=device).argsort(-1)[..., :L]  # x_1 … x_10, distinct
        last = torch.randint(16, (*shape, 1), generator=g, device=device)  # x_11
        tokens = torch.cat((first, last), -1)  # x_1 … x_11
        j = torch.randint(L, shape, generator=g, device=device)  # the earlier occurrence, x_{j+1} follows it
        query = tokens.gather(-1, j.unsqueeze(-1)).squeeze(-1)  # x_12 = x_j
        answer = tokens.gather(-1, (j + 1).unsqueeze(-1)).squeeze(-1)
        # memory position i holds (previous token, own token) for i = 2 … 11
        codes = torch.stack((tokens[..., :-1], tokens[..., 1:] + 16), -1)
        target = torch.nn.functional.one_hot(answer, n_out).float()
    entropy = torch.special.entr(target).sum(-1)  # the loss floor of a perfect prediction
    return {"query": query, "codes": codes, "target": target, "floor": entropy}


def model_grid(params):
    """(scaling, d_k, optimizer, lr, replicate) of every model of a task, in a fixed order."""
    grid = []
    for d in params.dims:
        for opt in BATTERY_OPTIMIZERS:
            for s, _ in BATTERY_SCALINGS:
                for lr in params.adam_lrs if opt == "adam" else params.sgd_lrs:
                    grid += [(s, d, opt, lr, r) for r in range(params.seeds)]
    return grid


def init_weights(task, grid, seed, device):
    """Stacked W_q, W_k, R = W_v W_o and log-multipliers; each replicate × d_k its own draw."""
    import torch

    from reportgen.experiments.sampling import generator

    n_q, n_c, n_out, _, _ = SHAPES[task]
    draws = {}
    out = [[], [], []]
    for s, d, _, _, r in grid:
        if (d, r) not in draws:
            g = generator(device, seed, "battery", task, d, r)
            w = [torch.randn(rows, d, generator=g, device=device) for rows in (n_q, n_c)]
            w.append(torch.randn(n_c, n_out, generator=g, device=device))  # W_v W_o, entries of variance 1
            draws[(d, r)] = w
        for i, x in enumerate(draws[(d, r)]):
            out[i].append(x)
    log_mult = torch.tensor([{"scaled": -0.5, "unscaled": 0.0, "inv_d": -1.0}[s] * math.log(d)
                             for s, d, _, _, _ in grid], device=device)
    return [torch.stack(x) for x in out], log_mult


def forward(weights, log_mult, task, batch):
    """Per-model loss above the floor (nats), accuracy, attention entropy / ln L, max |score|."""
    import torch

    W_q, W_k, R = weights
    parts = SHAPES[task][4]
    query, codes, target = batch["query"], batch["codes"], batch["target"]  # (M, B), (M, B, L, parts), (M, B, out)
    M, B, L, _ = codes.shape
    G = torch.bmm(W_q, W_k.transpose(1, 2))  # (M, n_q, n_c): q(query) · W_k[code]
    row = G.gather(1, query.unsqueeze(-1).expand(M, B, G.shape[2]))  # (M, B, n_c)
    raw = row.gather(2, codes.flatten(2)).view(M, B, L, parts).sum(-1) / math.sqrt(parts)  # q · k_i, (M, B, L)
    scores = raw * log_mult.exp().view(M, 1, 1)
    p = torch.softmax(scores, -1)
    flat = codes.flatten(2)  # (M, B, L·parts)
    share = (p / math.sqrt(parts)).repeat_interleave(parts, -1)  # each part of a code gets its p_i/√parts
    mix = torch.zeros(M, B, R.shape[1], device=p.device, dtype=p.dtype).scatter_add(2, flat, share)
    logits = torch.bmm(mix, R)  # (Σ_i p_i x_i) R, in the one-hot basis
    loss = -(target * torch.log_softmax(logits, -1)).sum(-1) - batch["floor"]
    with torch.no_grad():
        stats = {
            "acc": (logits.argmax(-1) == target.argmax(-1)).float().mean(1),
            "entropy": torch.special.entr(p).sum(-1).mean(1) / math.log(L),
            "max_logit": scores.abs().flatten(1).amax(1),
        }
    return loss.mean(1), stats


def train(task, params, seed, device):
    """Every scaling × d_k × optimizer × rate × replicate of one task; plain numbers.

    One stack per d_k (padding the small d_k to the large one would double the optimiser's
    work), every scaling, optimizer, rate and replicate of that d_k in it.
    """
    from reportgen.experiments.sampling import generator

    grid = model_grid(params)
    batches = make_batches(task, generator(device, seed, "battery-data", task), params.steps, params.seeds,
                           params.batch, device)
    parts = []
    for d in params.dims:
        cells = [c for c in grid if c[1] == d]
        parts.append((cells, train_stack(task, cells, batches, params, seed, device)))
    history = {k: __import__("torch").cat([h[k] for _, h in parts], 1) for k in parts[0][1]}
    order = [c for cells, _ in parts for c in cells]
    return summarize(history, order, params)


def train_stack(task, grid, batches, params, seed, device):
    """Train one stack (one d_k); the per-step history, each (steps, M), and W_q's relative move."""
    import torch

    weights, log_mult = init_weights(task, grid, seed, device)
    start_q = weights[0].detach().clone()
    replicate = torch.tensor([r for *_, r in grid], device=device)
    lr = torch.tensor([x[3] for x in grid], device=device).view(-1, 1, 1)
    a = sum(x[2] == "adam" for x in grid)  # model_grid puts each d_k's Adam models before its SGD ones
    assert all(x[2] == "adam" for x in grid[:a]) and all(x[2] == "sgd" for x in grid[a:])
    m = [torch.zeros_like(w[:a]) for w in weights]
    v = [torch.zeros_like(w[:a]) for w in weights]
    for w in weights:
        w.requires_grad_(True)
    keys = ("loss", "acc", "entropy", "max_logit")
    history = {k: torch.empty(params.steps, len(grid), device=device) for k in keys}
    b1, b2 = ADAM_BETAS
    for step in range(params.steps):
        batch = {k: x[step][replicate] for k, x in batches.items()}
        loss, stats = forward(weights, log_mult, task, batch)
        grads = torch.autograd.grad(loss.sum(), weights)
        with torch.no_grad():
            bc1, bc2 = 1 - b1 ** (step + 1), 1 - b2 ** (step + 1)
            for w, g, mw, vw in zip(weights, grads, m, v):
                mw.lerp_(g[:a], 1 - b1)
                vw.mul_(b2).addcmul_(g[:a], g[:a], value=1 - b2)
                denom = vw.sqrt().div_(math.sqrt(bc2)).add_(ADAM_EPS)
                w[:a].addcdiv_(mw * (lr[:a] / bc1), denom, value=-1)
                w[a:].sub_(lr[a:] * g[a:])
        history["loss"][step] = loss.detach()
        for k in keys[1:]:
            history[k][step] = stats[k]
    with torch.no_grad():
        moved = (weights[0] - start_q).flatten(1).norm(dim=1) / start_q.flatten(1).norm(dim=1)
        history["w_q_moved"] = moved.expand(1, -1)
    return history


def _round(values):
    return [float(f"{v:.{SIGNIFICANT}g}") if math.isfinite(v) else None for v in values]


def summarize(history, grid, params):
    """Checkpoint window means per model (loss above the floor, accuracy, entropy share, max |score|)."""
    moved = history.pop("w_q_moved")[0].tolist()
    steps = history["loss"].shape[0]
    n = params.checkpoints
    w = steps // n
    curves = {}
    for k, x in history.items():
        x = x[: n * w].view(n, w, -1)
        curves[k] = x.amax(1) if k == "max_logit" else x.mean(1)
    models = []
    for i, (s, d, opt, lr, r) in enumerate(grid):
        models.append({
            "scaling": s, "d_k": d, "optimizer": opt, "lr": lr, "seed": r,
            "initial_loss": _round([history["loss"][0, i].item()])[0],
            "initial_entropy": _round([history["entropy"][0, i].item()])[0],
            "w_q_moved": _round([moved[i]])[0],
            "curves": {k: _round(c[:, i].tolist()) for k, c in curves.items()},
        })
    return {"checkpoints": [(j + 1) * w for j in range(n)], "models": models}


def run(params, seed, device, progress):
    """Every task of the battery: {task: its checkpoints and models}."""
    return {task: train(task, params, seed, device) for task in progress([t for t, _ in TASKS], "lm: task battery")}
