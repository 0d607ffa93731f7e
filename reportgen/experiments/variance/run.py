"""Variance family, run: Var, kurtosis and tails of q·k against d_k, and the documents' variance experiments."""

import math

from reportgen.experiments.variance.params import (
    DOC_DEMOS,
    DOC_RANGE_DIMS,
    DOC_RANGE_PAIRS,
    DOC_VERIFY_DIMS,
    DOC_VERIFY_SAMPLES,
    DOC_VERIFY_SEED,
    INITS,
)


def dot_product_sweep(params, seed, device, progress):
    """Var, kurtosis and ±2σ coverage of q·k, and Var of u·v, for each d_k."""
    import torch

    from reportgen.experiments.moments import Moments
    from reportgen.experiments.sampling import chunks, generator

    rows = []
    for d in progress(params.dims, "variance: d_k sweep"):
        g = generator(device, seed, "sweep", d)
        batches, unit = [], Moments()
        inside_2sigma = beyond_20 = beyond_40 = 0
        per_batch = params.samples // params.batches
        for _ in range(params.batches):
            moments = Moments()
            for c in chunks(per_batch, 2 * d):
                q = torch.randn(c, d, generator=g, device=device)  # (c, d)
                k = torch.randn(c, d, generator=g, device=device)
                s = (q * k).sum(dim=1)  # (c,)
                moments.add(s.double().cpu().numpy())
                unit.add((s / (q.norm(dim=1) * k.norm(dim=1))).double().cpu().numpy())
                a = s.abs()
                inside_2sigma += int((a <= 2 * math.sqrt(d)).sum())
                beyond_20 += int((a > 20).sum())
                beyond_40 += int((a > 40).sum())
            batches.append(moments)
        pooled = batches[0]
        for m in batches[1:]:
            pooled = pooled.merged(m)
        rows.append(
            {
                "d_k": d,
                "n": pooled.n,
                "mean": pooled.mean,
                "var": pooled.variance,
                "kurtosis": pooled.excess_kurtosis,
                "kurtosis_batches": [m.excess_kurtosis for m in batches],
                "inside_2sigma": inside_2sigma,
                "beyond_20": beyond_20,
                "beyond_40": beyond_40,
                "unit_mean": unit.mean,
                "unit_var": unit.variance,
            }
        )
    return rows


def document_verification_rerun():
    """000's 'Empirical Verification' code, exactly: global seed 42, CPU, float32."""
    import torch

    g = torch.Generator().manual_seed(DOC_VERIFY_SEED)  # same stream as torch.manual_seed(42)
    rows = []
    for d in DOC_VERIFY_DIMS:
        Q = torch.randn(DOC_VERIFY_SAMPLES, d, generator=g)
        K = torch.randn(DOC_VERIFY_SAMPLES, d, generator=g)
        unscaled = (Q * K).sum(dim=1)
        scaled = unscaled / (d**0.5)
        rows.append({"d_k": d, "unscaled": unscaled.var().item(), "scaled": scaled.var().item()})
    return rows


def range_experiment(params, seed, device, progress):
    """002's experiment: 1,000 pairs per dimension, repeated to get its spread."""
    import torch

    from reportgen.experiments.sampling import chunks, generator, normal_dot_products

    rows = []
    for d in progress(DOC_RANGE_DIMS, "variance: 002 ranges"):
        g = generator(device, seed, "ranges", d)
        lows, highs, variances = [], [], []
        first = None
        for reps in chunks(params.range_repeats, DOC_RANGE_PAIRS * 4):
            s = normal_dot_products((reps, DOC_RANGE_PAIRS), d, g, device)  # (reps, pairs), float64
            if first is None:
                first = s[0].cpu()
            lows += s.min(dim=1).values.tolist()
            highs += s.max(dim=1).values.tolist()
            variances += s.var(dim=1, correction=0).tolist()  # np.var, as 002's code
        edges = torch.linspace(float(first.min()), float(first.max()), 41, dtype=torch.float64)
        counts = torch.histc(first, bins=40, min=float(edges[0]), max=float(edges[-1]))
        rows.append(
            {
                "d": d,
                "first_min": float(first.min()),
                "first_max": float(first.max()),
                "first_var": float(first.var(correction=0)),
                "hist_edges": edges.tolist(),
                "hist_counts": [int(c) for c in counts.tolist()],
                "max_abs": [max(-lo, hi) for lo, hi in zip(lows, highs)],
                "variances": variances,
            }
        )
    return rows


def init_premise(params, seed, device, progress):
    """Component variance of q = W_q x and Var(q·k/√d_k) under three weight inits."""
    import torch

    from reportgen.experiments.sampling import generator

    rows = []
    for init in progress(list(INITS), "variance: init premise"):
        for d_model, d_k in params.init_pairs:
            g = generator(device, seed, "init", init, d_model, d_k)
            comp, score = [], []
            for _ in range(params.init_draws):
                W_q, W_k = projection_weights(init, d_model, d_k, g, device)  # (d_k, d_model)
                x1 = torch.randn(params.init_tokens, d_model, generator=g, device=device)
                x2 = torch.randn(params.init_tokens, d_model, generator=g, device=device)
                q, k = x1 @ W_q.T, x2 @ W_k.T  # (tokens, d_k): queries and keys of other tokens
                comp.append(0.5 * (q.var().item() + k.var().item()))
                score.append(((q * k).sum(dim=1) / math.sqrt(d_k)).var().item())
            rows.append({"init": init, "d_model": d_model, "d_k": d_k, "comp": comp, "score": score})
    return rows


def projection_weights(init, d_model, d_k, g, device):
    """W_q, W_k of shape (d_k, d_model) initialized as torch would."""
    import torch
    from torch.nn import init as nn_init

    if init == "xavier_mha":
        # nn.MultiheadAttention._reset_parameters: xavier_uniform_ on in_proj_weight (3E, E);
        # the first head's query and key rows are slices of it.
        in_proj = torch.empty(3 * d_model, d_model, device=device)
        nn_init.xavier_uniform_(in_proj, generator=g)
        return in_proj[:d_k], in_proj[d_model : d_model + d_k]
    weights = []
    for _ in range(2):
        w = torch.empty(d_k, d_model, device=device)
        if init == "kaiming_uniform":
            # nn.Linear.reset_parameters: kaiming_uniform_(weight, a=sqrt(5)) -> U(±1/sqrt(fan_in))
            nn_init.kaiming_uniform_(w, a=math.sqrt(5), generator=g)
        elif init == "xavier_linear":
            nn_init.xavier_uniform_(w, generator=g)  # fan_in = d_model, fan_out = d_k
        else:
            nn_init.normal_(w, std=1 / math.sqrt(d_model), generator=g)
        weights.append(w)
    return weights


def small_demos(params, seed, device, progress):
    """The raw and scaled score variance of 000's and 003's demos, repeated."""
    import torch

    from reportgen.experiments.sampling import chunks, generator

    rows = []
    for name, (B, T, d_k) in progress(DOC_DEMOS, "variance: small demos"):
        g = generator(device, seed, "demo", B, T, d_k)
        raw_vars = []
        for reps in chunks(params.demo_repeats, 2 * B * T * d_k):
            Q = torch.randn(reps, B, T, d_k, generator=g, device=device)
            K = torch.randn(reps, B, T, d_k, generator=g, device=device)
            raw = Q @ K.transpose(-2, -1)  # (reps, B, T, T)
            raw_vars += raw.reshape(reps, -1).var(dim=1).tolist()  # tensor.var(), unbiased
        rows.append({"name": name, "shape": [B, T, d_k], "raw_vars": raw_vars})
    return rows


def run(params, seed, device, progress):
    """Run every variance measurement; plain numbers out."""
    return {
        "sweep": dot_product_sweep(params, seed, device, progress),
        "verify_rerun": document_verification_rerun(),
        "ranges": range_experiment(params, seed, device, progress),
        "init": init_premise(params, seed, device, progress),
        "demos": small_demos(params, seed, device, progress),
    }
