"""Variance family: how Var(q·k) grows with d_k and what dividing by √d_k does to it."""

import math
from dataclasses import dataclass

from reportgen.experiments.base import Experiment, deferred
from reportgen.sources import Source

S000_PROBLEM = Source("000", "The Problem: Variance Explosion")
S000_STD = Source("000", "Standard Deviation")
S000_VERIFY = Source("000", "Empirical Verification")
S000_WHY = Source("000", "Why √d_k Specifically?")
S000_MEASURE = Source("000", "Concentration of Measure")
S000_TORCH = Source("000", "Standard PyTorch Implementation")
S001_VAR = Source("001", "Variance Analysis")
S001_MATTERS = Source("001", "Why This Matters")
S001_WORKS = Source("001", "Why √d_k Works")
S000_SCALE = Source("000", "Applying the Scale Factor")
S002_EVIDENCE = Source("002", "Experimental Evidence: Dimension vs Variance")
S003_CHECK = Source("003", "Optional check in code")
S004_VAR = Source("004", "1. The Variance of High-Dimensional Dot Products")

# 000 "Empirical Verification": torch.manual_seed(42), 10,000 pairs per d_k; printed output.
DOC_VERIFY_SAMPLES = 10_000
DOC_VERIFY_SEED = 42
DOC_VERIFY = (  # d_k, "Unscaled Var", "Scaled Var", "sqrt(d_k)" as printed
    (16, "16.05", "1.0032", "4.00"),
    (64, "63.81", "0.9970", "8.00"),
    (256, "257.42", "1.0055", "16.00"),
    (512, "513.68", "1.0034", "22.63"),
    (1024, "1026.39", "1.0024", "32.00"),
)
# 000 "Standard Deviation" table: d_k, sqrt(d_k), the +-2 sigma bound, as printed.
DOC_STD = ((16, "4", "8"), (64, "8", "16"), (128, "11.3", "22.6"), (512, "22.6", "45.2"))
# 002 "The Spreading Pattern": histogram range of 1,000 dot products per dimension.
DOC_RANGES = ((3, "6"), (100, "10"), (1000, "30"))
DOC_RANGE_PAIRS = 1000
# Small demonstrations: name, source, shape (B, T, d_k), printed raw and scaled variance.
DOC_DEMOS = (
    ("000 demo: Q, K of 1×10×512", S000_TORCH, (1, 10, 512), "512", "1"),
    ("003 check: B, T, d_k = 2, 4, 64", S003_CHECK, (2, 4, 64), "64.0", "1.0"),
)
# Scaling factors of 000 "Why √d_k Specifically?", evaluated at d_k = 64.
FACTOR_DK = 64
FACTORS = (  # label, divisor as a function of d_k, documented variance (text, value)
    ("none", lambda d: 1.0, "d_k", lambda d: d),
    ("d_k", lambda d: d, "1/d_k", lambda d: 1 / d),
    ("√d_k", lambda d: math.sqrt(d), "1", lambda d: 1.0),
    ("√(d_k/2)", lambda d: math.sqrt(d / 2), "2", lambda d: 2.0),
)
CLAIM_DIMS = (1, 16, 64, 512, 4096)  # where the closed-form laws get a verdict row
# Weight inits for q = W_q x: component variance and Var(q·k/√d_k) in closed form.
INITS = {
    "kaiming_uniform": ("nn.Linear default (kaiming_uniform, a=√5)", 1 / 3, 1 / 9),
    "xavier_mha": ("xavier_uniform on the in_proj of nn.MultiheadAttention", 1 / 2, 1 / 4),
    "normal": ("N(0, 1/d_model)", 1.0, 1.0),
}


@dataclass(frozen=True)
class VarianceParams:
    dims: tuple  # d_k of the sweep
    samples: int  # (q, k) pairs per d_k in the sweep
    batches: int  # independent batches per d_k, for the kurtosis interval
    range_repeats: int  # repeats of 002's 1,000-pair experiment
    init_pairs: tuple  # (d_model, d_k) for the initialization premise
    init_draws: int  # weight draws per init and pair
    init_tokens: int  # input vectors x per draw
    demo_repeats: int  # repeats of each small demonstration


POW2 = tuple(2**i for i in range(13))  # 1 … 4096
# (d_model, d_k): a single head, BERT-base/GPT-2 small heads, BERT-large, GPT-3-like heads.
# The same in every profile, so every profile checks the same claims.
INIT_PAIRS = ((64, 64), (512, 64), (768, 64), (1024, 128))
PARAMS = {
    "quick": VarianceParams(POW2, 4_000, 10, 60, INIT_PAIRS, 4, 512, 400),
    "standard": VarianceParams(POW2, 20_000, 20, 100, INIT_PAIRS, 6, 1024, 2000),
    "full": VarianceParams(
        tuple(2**i for i in range(15)),
        1_000_000,
        50,
        2000,
        INIT_PAIRS,
        32,
        8192,
        20000,
    ),
}


def dot_product_sweep(params, seed, device, progress):
    """Var, kurtosis and ±2σ coverage of q·k, and Var of u·v, for each d_k."""
    import torch

    from reportgen.sampling import chunks, generator
    from reportgen.stats import Moments

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
    for d, *_ in DOC_VERIFY:
        Q = torch.randn(DOC_VERIFY_SAMPLES, d, generator=g)
        K = torch.randn(DOC_VERIFY_SAMPLES, d, generator=g)
        unscaled = (Q * K).sum(dim=1)
        scaled = unscaled / (d**0.5)
        rows.append({"d_k": d, "unscaled": unscaled.var().item(), "scaled": scaled.var().item()})
    return rows


def range_experiment(params, seed, device, progress):
    """002's experiment: 1,000 pairs per dimension, repeated to get its spread."""
    import torch

    from reportgen.sampling import chunks, generator

    rows = []
    for d, _ in progress(DOC_RANGES, "variance: 002 ranges"):
        g = generator(device, seed, "ranges", d)
        lows, highs, variances = [], [], []
        first = None
        for reps in chunks(params.range_repeats, DOC_RANGE_PAIRS * 2 * d):
            q = torch.randn(reps, DOC_RANGE_PAIRS, d, generator=g, device=device)
            k = torch.randn(reps, DOC_RANGE_PAIRS, d, generator=g, device=device)
            s = (q * k).sum(dim=-1).double()  # (reps, pairs)
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

    from reportgen.sampling import generator

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
        else:
            nn_init.normal_(w, std=1 / math.sqrt(d_model), generator=g)
        weights.append(w)
    return weights


def small_demos(params, seed, device, progress):
    """The raw and scaled score variance of 000's and 003's demos, repeated."""
    import torch

    from reportgen.sampling import chunks, generator

    rows = []
    for name, _, (B, T, d_k), _, _ in progress(DOC_DEMOS, "variance: small demos"):
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


EXPERIMENT = Experiment(
    name="variance",
    title="Dot-product variance and the √d_k scale",
    summary="Var(q·k) and Var(q·k/√d_k) against d_k, their distribution's shape, "
    "unit vectors, the initialization premise and the documents' variance tables.",
    covers=(
        S000_PROBLEM,
        S000_VERIFY,
        S000_STD,
        S000_SCALE,
        S000_WHY,
        S000_MEASURE,
        S000_TORCH,
        S001_VAR,
        S001_WORKS,
        S001_MATTERS,
        S002_EVIDENCE,
        S003_CHECK,
        S004_VAR,
    ),
    params=PARAMS,
    run=run,
    figures=deferred("variance_figures", "figures"),
    tables=deferred("variance_report", "tables"),
    intro=(
        "For q and k with independent components of mean 0 and variance 1, every term "
        "$q_i k_i$ has variance 1, so the dot product's variance is the number of terms, $d_k$. "
        "Each term also has excess kurtosis 6, so the sum's excess kurtosis is $6/d_k$: "
        "$q\\cdot k$ is only approximately normal, and the confidence intervals below use "
        "that kurtosis instead of assuming normality."
    ),
    formulas=(
        r"\mathrm{Var}(q\cdot k)=\sum_{i=1}^{d_k}\mathrm{Var}(q_i k_i)=d_k,\qquad "
        r"\mathrm{Var}\left(\frac{q\cdot k}{\sqrt{d_k}}\right)=1",
        r"\kappa(q\cdot k)=\frac{6}{d_k}\quad\text{(excess kurtosis)}",
        r"\mathrm{Var}(u\cdot v)=\frac{1}{d}\quad\text{for random unit vectors } u, v",
    ),
)
