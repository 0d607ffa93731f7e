"""Temperature family, run: softmax(s/T) over T, τ around √d_k, balanced and cosine scaling, and torch's SDPA."""

import math

from reportgen.experiments.rowstats import row_stats
from reportgen.experiments.temperature.params import (
    EXAMPLE_DK,
    EXAMPLE_LEN,
    EXERCISE_TAUS,
    SDPA_ATOL,
    SDPA_BALANCED,
    SDPA_MASKS,
    SDPA_REFERENCE,
    SDPA_RTOL,
    SDPA_WEIGHTS,
    SHIFTS,
    SWEEP_DECADES,
    SWEEP_DK,
)


def temperatures(per_decade):
    """The T grid: log-spaced over SWEEP_DECADES, with 1 and the exercise's τ exactly on it."""
    lo, hi = SWEEP_DECADES
    grid = {10 ** (e / per_decade) for e in range(lo * per_decade, hi * per_decade + 1)}
    root = math.sqrt(SWEEP_DK)
    return sorted(grid | {1.0} | {f * root for f in EXERCISE_TAUS})


def temperature_sweep(params, seed, device, progress):
    """Largest weight and entropy of softmax(s/T) over T, for raw scores s = q·k at d_k = 64."""
    import torch

    from reportgen.experiments.moments import Moments
    from reportgen.experiments.sampling import chunks, generator

    grid = temperatures(params.temperatures_per_decade)
    taus = [f * math.sqrt(SWEEP_DK) for f in EXERCISE_TAUS]
    cells, rows = [], []
    for n in progress(params.lengths, "temperature: T sweep"):
        g = generator(device, seed, "temperature-sweep", n)
        moments = {t: (Moments(), Moments()) for t in grid}  # largest weight, entropy
        sharper = softer = 0
        shift = t1 = 0.0
        for c in chunks(params.rows, n * len(grid)):
            # For a fixed q and keys k_j ~ N(0, I), the scores q·k_j are exactly iid N(0, |q|²).
            q_norm = torch.randn(c, SWEEP_DK, generator=g, device=device).norm(dim=1, keepdim=True)
            scores = q_norm * torch.randn(c, n, generator=g, device=device)  # (c, n)
            ts = torch.tensor(grid, device=device)
            max_w, entropy = row_stats(scores / ts[:, None, None])  # (T, c) each
            for t, w, h in zip(grid, max_w.double().cpu().numpy(), entropy.double().cpu().numpy()):
                moments[t][0].add(w)
                moments[t][1].add(h)
            # 001 exercise 4, row by row: is every row sharper below √d_k and softer above it?
            (w_lo, w_mid, w_hi), (h_lo, h_mid, h_hi) = (x[[grid.index(t) for t in taus]] for x in (max_w, entropy))
            sharper += int(((h_lo < h_mid) & (w_lo > w_mid)).sum())
            softer += int(((h_hi > h_mid) & (w_hi < w_mid)).sum())
            exact = scores.double()  # 004 §2 is about the formula: float64 keeps rounding out of it
            for shift_by in SHIFTS:
                shift = max(shift, (torch.softmax(exact + shift_by, -1) - torch.softmax(exact, -1)).abs().max().item())
            t1 = max(t1, (torch.softmax(scores / 1.0, -1) - torch.softmax(scores, -1)).abs().max().item())
        for t, (w, h) in moments.items():
            cells.append({"n": n, "T": t, "rows": w.n, "max_w": _moments(w), "entropy": _moments(h)})
        rows.append({"n": n, "rows": params.rows, "sharper": sharper, "softer": softer,
                     "shift_max_diff": shift, "t1_max_diff": t1})
    return {"cells": cells, "taus": rows}


def _moments(m):
    return {"mean": float(m.mean), "var": float(m.variance)}


def exercise_example(seed, device):
    """One seeded query block (d_k = 64, 10 positions) at τ = 0.5√d_k, √d_k and 2√d_k."""
    import torch

    from reportgen.experiments.sampling import generator

    g = generator(device, seed, "exercise-4")
    Q = torch.randn(EXAMPLE_LEN, EXAMPLE_DK, generator=g, device=device)
    K = torch.randn(EXAMPLE_LEN, EXAMPLE_DK, generator=g, device=device)
    scores = Q @ K.T  # (10, 10)
    out = []
    for f in EXERCISE_TAUS:
        logp = torch.log_softmax(scores / (f * math.sqrt(EXAMPLE_DK)), dim=-1)
        out.append({"factor": f, "weights": logp.exp().tolist(), "entropy": (-(logp.exp() * logp).sum(-1)).tolist()})
    return out


def first_crossing(holds, lo, hi, points=16, stages=6):
    """The bracket (last false, first true) where a monotone predicate turns true in [lo, hi].

    Staged log grids, one batched call each: `holds` maps a (points,) float64 tensor to a
    (points,) bool tensor. Each stage narrows the bracket by a factor points − 1 in log scale,
    so [1e-4, 1e4] ends about 1e-6 wide (relative).
    """
    import torch

    for _ in range(stages):
        grid = torch.logspace(math.log10(lo), math.log10(hi), points, dtype=torch.float64)
        hits = holds(grid).cpu()
        if hits[0] or not hits[-1]:
            raise ValueError(f"no crossing between {lo:g} and {hi:g}")
        i = int(hits.to(torch.int8).argmax())  # the first grid point where it holds
        lo, hi = grid[i - 1].item(), grid[i].item()
    return lo, hi


def overflow_point(u, v, prepare):
    """RMS r at which float16 scores prepare(r·u) @ prepare(r·v)^T first hold inf or NaN.

    The search runs the product in float32 on the float16 inputs and rounds it to float16 —
    what torch's CPU kernel and cuBLAS's default do for a float16 matmul, at a fraction of the
    CPU kernel's cost. The float16 kernel itself then decides both ends of the final bracket.
    Returns (r, whether the float16 kernel agrees).
    """
    import torch

    def operands(r):
        r = torch.as_tensor(r, dtype=torch.float64, device=u.device)[..., None, None]
        return prepare((r * u).to(torch.float16)), prepare((r * v).to(torch.float16))

    def overflows(r):
        q, k = operands(r)  # (points, n, d) each
        scores = (q.float() @ k.float().transpose(-2, -1)).to(torch.float16)
        return ~torch.isfinite(scores).flatten(1).all(dim=1)

    lo, hi = first_crossing(overflows, 1.0, 1e4)
    finite = [bool(torch.isfinite(q @ k.T).all()) for q, k in (operands(lo), operands(hi))]
    return math.sqrt(lo * hi), finite == [True, False]


def balanced_scaling(params, seed, device, progress):
    """Divide-after vs balanced d_k^(−1/4) scaling: float32 agreement, float16 overflow point."""
    import torch

    from reportgen.experiments.sampling import generator

    out = []
    n = params.balanced_pairs
    for d in progress(params.balanced_dims, "temperature: balanced scaling"):
        g = generator(device, seed, "balanced", d)
        quarter = d**-0.25
        row = {"d_k": d, "f32_after_vs_balanced": 0.0, "f32_after_vs_exact": 0.0, "f32_balanced_vs_exact": 0.0}
        signs = torch.randint(0, 2, (n, d), generator=g, device=device).double() * 2 - 1  # entries ±1: RMS 1
        pairs = {"aligned": [(signs, signs)], "random": []}
        for _ in range(params.balanced_repeats):
            # float32: both forms against a float64 reference, on the same N(0, 1) q and k.
            Q = torch.randn(n, d, generator=g, device=device)
            K = torch.randn(n, d, generator=g, device=device)
            after = (Q @ K.T) / math.sqrt(d)  # (n, n)
            balanced = (Q * quarter) @ (K * quarter).T
            exact = (Q.double() @ K.double().T) / math.sqrt(d)
            # |q||k|/√d_k: the scale of a score's rounding error (Cauchy–Schwarz bound of Σ|q_i k_i|)
            size = Q.double().norm(dim=1)[:, None] * K.double().norm(dim=1)[None, :] / math.sqrt(d)
            for key, a, b in (("f32_after_vs_balanced", after.double(), balanced.double()),
                              ("f32_after_vs_exact", after.double(), exact),
                              ("f32_balanced_vs_exact", balanced.double(), exact)):
                row[key] = max(row[key], ((a - b).abs() / size).max().item())
            rms = lambda x: x / x.pow(2).mean(dim=1, keepdim=True).sqrt()  # noqa: E731
            pairs["random"].append((rms(Q.double()), rms(K.double())))  # the same draws, rows at RMS 1
        # float16: q = r·u and k = r·v for fixed u, v of RMS 1; at which r do the scores overflow?
        for kind, patterns in pairs.items():
            points = {"after": [], "balanced": [], "largest_unit_score": [], "kernel_agrees": True}
            for u, v in patterns:
                # Divide after: (q·k)/√d_k overflows exactly when q·k does, so the division can wait.
                for method, prepare in (("after", lambda x: x), ("balanced", lambda x: x * quarter)):
                    r, agrees = overflow_point(u, v, prepare)  # x * quarter stays float16
                    points[method].append(r)
                    points["kernel_agrees"] &= agrees
                points["largest_unit_score"].append((u @ v.T).abs().max().item())  # max |u_i·v_j| at r = 1
            row[kind] = points
        out.append(row)
    return out


def cosine_attention(params, seed, device, progress):
    """Cosine scores: their range, and the temperature that matches scaled attention's entropy."""
    import torch
    import torch.nn.functional as F

    from reportgen.experiments.sampling import chunks, generator

    out = []
    n = params.cosine_keys
    for d in progress(params.cosine_dims, "temperature: cosine attention"):
        g = generator(device, seed, "cosine", d)
        batches, largest, aligned, invariance = [], 0.0, 0.0, 0.0
        per_batch = params.cosine_rows // params.cosine_batches
        for _ in range(params.cosine_batches):
            cos_rows, scaled_rows = [], []
            for c in chunks(per_batch, (n + 1) * d):
                q = torch.randn(c, 1, d, generator=g, device=device)
                k = torch.randn(c, n, d, generator=g, device=device)
                cos = (F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)).squeeze(1)  # (c, n)
                big = (F.normalize(1000 * q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)).squeeze(1)
                same = (F.normalize(q, dim=-1) @ F.normalize(q, dim=-1).transpose(-2, -1)).squeeze()
                largest = max(largest, cos.abs().max().item())
                aligned = max(aligned, same.abs().max().item())  # cos(q, q): 1 in exact arithmetic
                invariance = max(invariance, (big - cos).abs().max().item())
                cos_rows.append(cos)
                scaled_rows.append((q @ k.transpose(-2, -1)).squeeze(1) / math.sqrt(d))
            cos_b, scaled_b = torch.cat(cos_rows), torch.cat(scaled_rows)
            target = row_stats(scaled_b)[1].mean().item()
            batches.append(
                {
                    "scaled_entropy": target,
                    "cosine_entropy_t1": row_stats(cos_b)[1].mean().item(),  # 000's default temperature=1.0
                    "matching_t": _matching_temperature(cos_b, target),
                }
            )
        out.append({"d_k": d, "n": n, "max_abs_cos": largest, "max_cos_aligned": aligned,
                    "scale_invariance": invariance, "batches": batches})
    return out


def _matching_temperature(cos, target):
    """τ at which the mean entropy of softmax(cos/τ) reaches target (it grows with τ); None if never.

    At d_k = 1 every cosine is ±1: as τ → 0 the weight spreads over the tied keys, so the entropy
    cannot fall below the mean log of their number and a sharp target may be out of reach.
    """

    def warm_enough(taus):
        entropy = row_stats(cos / taus.to(cos.device)[:, None, None])[1]  # (taus, rows)
        return entropy.mean(dim=1) >= target

    try:
        return math.sqrt(math.prod(first_crossing(warm_enough, 1e-4, 1e4)))
    except ValueError:
        return None


def reference_attention(Q, K, V, mask=None):
    """000 'Standard PyTorch Implementation': softmax(QK^T/√d_k) V, mask == 0 blocked."""
    import torch

    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(Q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    return torch.matmul(torch.softmax(scores, dim=-1), V)


def balanced_attention(Q, K, V, mask=None):
    """000 BalancedScaledAttention.forward: q and k each times d_k^(−1/4)."""
    import torch

    scale = Q.size(-1) ** (-0.25)
    scores = torch.matmul(Q * scale, (K * scale).transpose(-2, -1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    return torch.matmul(torch.softmax(scores, dim=-1), V)


def sdpa_comparison(params, seed, device, progress):
    """Our attention and 000's balanced form against F.scaled_dot_product_attention, float32."""
    import torch
    import torch.nn.functional as F

    from reportgen.experiments.sampling import generator

    devices = ["cpu"] + (["cuda"] if str(device).startswith("cuda") else [])
    out = []
    for dev in devices:
        for shape in progress(params.sdpa_shapes, f"temperature: SDPA reference on {dev}"):
            B, H, L, S, d_k, d_v = shape
            g = generator(dev, seed, "sdpa", *shape)
            Q = torch.randn(B, H, L, d_k, generator=g, device=dev)
            K = torch.randn(B, H, S, d_k, generator=g, device=dev)
            V = torch.randn(B, H, S, d_v, generator=g, device=dev)
            for mask_kind in SDPA_MASKS:
                mask = None
                if mask_kind == "causal":
                    mask = torch.ones(L, S, dtype=torch.bool, device=dev).tril()  # SDPA's is_causal alignment
                elif mask_kind == "padding":
                    mask = torch.rand(B, 1, L, S, generator=g, device=dev) < 0.7
                    mask[..., 0] = True  # every query keeps a key, so no row is all -inf
                ref = F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
                for name, fn in ((SDPA_REFERENCE, reference_attention), (SDPA_BALANCED, balanced_attention)):
                    diff = (fn(Q, K, V, mask) - ref).abs()
                    out.append({"device": dev, "shape": list(shape), "mask": mask_kind, "impl": name,
                                "max_abs": diff.max().item(),
                                "tolerance_ratio": (diff / (SDPA_ATOL + SDPA_RTOL * ref.abs())).max().item()})
            # 000's table, 'T = √d_k: scaled attention': SDPA with V = I returns the weights themselves.
            eye = torch.eye(S, device=dev).expand(B, H, S, S)
            weights = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
            diff = (weights - F.scaled_dot_product_attention(Q, K, eye)).abs()
            out.append({"device": dev, "shape": list(shape), "mask": "none", "impl": SDPA_WEIGHTS,
                        "max_abs": diff.max().item(),
                        "tolerance_ratio": (diff / (SDPA_ATOL + SDPA_RTOL * weights.abs())).max().item()})
    return out


def run(params, seed, device, progress):
    """Run every temperature measurement; plain numbers out."""
    return {
        "sweep": temperature_sweep(params, seed, device, progress),
        "example": exercise_example(seed, device),
        "balanced": balanced_scaling(params, seed, device, progress),
        "cosine": cosine_attention(params, seed, device, progress),
        "sdpa": sdpa_comparison(params, seed, device, progress),
    }

