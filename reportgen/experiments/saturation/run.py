"""Saturation family, run: softmax of growing scores, the documents' softmax examples recomputed, numbers only."""

import math

from reportgen.experiments.saturation.params import (
    DOC_002_K,
    DOC_002_ORIGINAL,
    DOC_002_Q,
    DOC_002_ROUNDED_ROOT3,
    DOC_BEHAVIOR_BASE,
    DOC_BEHAVIOR_SCALES,
    DOC_EXP_EXAMPLES,
    DOC_FIGURE_DK,
    DOC_FIGURE_LEN,
    DOC_FIGURE_SEED,
    DOC_PARTIAL_SCORES,
    DOC_SCALED,
    DOC_SOFTMAX,
    EXERCISE_LEVELS,
    EXERCISE_RANGE,
    INF_BITS,
    STABILITY_DTYPES,
    SWEEP_CHUNK,
    HIST_BINS,
)
from reportgen.experiments.thresholds import THRESHOLDS


def saturation_sweep(params, seed, device, progress):
    """Max weight, entropy and largest logit of attention rows, unscaled and scaled, per (d_k, n)."""
    import torch

    from reportgen.experiments.moments import Moments
    from reportgen.experiments.rowstats import row_stats
    from reportgen.experiments.sampling import chunks, generator

    cells = []
    for d in progress(params.dims, "saturation: d_k × n sweep"):
        for n in params.lengths:
            g = generator(device, seed, "sweep", d, n)
            stats = {k: Moments() for k in ("max_w", "entropy", "max_w_scaled", "entropy_scaled", "max_z")}
            # Histograms of the largest weight (the median and upper shares come from them) and
            # of entropy / ln n: a qualitative word may read otherwise by the median than the mean.
            hists = {k: torch.zeros(HIST_BINS, dtype=torch.float64, device=device)
                     for k in ("max_w", "max_w_scaled", "entropy_share", "entropy_share_scaled")}
            above = {"max_w": 0, "max_w_scaled": 0}
            for c in chunks(params.rows, d + n, budget=SWEEP_CHUNK):
                # For a fixed q and keys k_j ~ N(0, I), the scores q·k_j are exactly iid N(0, |q|²):
                # drawing |q| and n standard normals gives the row's joint law at O(d + n), not O(n·d).
                q_norm = torch.randn(c, d, generator=g, device=device).norm(dim=1, keepdim=True)  # (c, 1)
                z = torch.randn(c, n, generator=g, device=device)  # (c, n)
                scores = q_norm * z  # (c, n): q·k_j
                for suffix, logits in (("", scores), ("_scaled", scores / math.sqrt(d))):
                    max_w, entropy = row_stats(logits)
                    stats["max_w" + suffix].add(max_w.double().cpu().numpy())
                    stats["entropy" + suffix].add(entropy.double().cpu().numpy())
                    hists["max_w" + suffix] += torch.histc(max_w.double(), HIST_BINS, 0.0, 1.0)
                    share = (entropy / math.log(n)).double() if n > 1 else torch.zeros_like(entropy).double()
                    hists["entropy_share" + suffix] += torch.histc(share, HIST_BINS, 0.0, 1.0)
                    above["max_w" + suffix] += int((max_w > THRESHOLDS["saturated_row"]).sum())
                stats["max_z"].add(z.max(dim=1).values.double().cpu().numpy())
            cells.append(
                {"d_k": d, "n": n, "rows": params.rows}
                | {k: {"mean": float(m.mean), "var": float(m.variance)} for k, m in stats.items()}
                | {f"hist_{k}": [int(x) for x in h.tolist()] for k, h in hists.items()}
                | {f"above_{k}": v for k, v in above.items()}
            )
    return cells


def exercise_curve(params):
    """001 exercise 2: softmax([x, 0, 0, 0])_0 and its derivative over x, and where it crosses each level."""
    import torch

    def top(x):
        s = torch.stack([x, *(torch.zeros_like(x),) * 3], dim=-1)  # (points, 4)
        return torch.softmax(s, dim=-1)[..., 0]

    x = torch.linspace(*EXERCISE_RANGE, params.curve_points, dtype=torch.float64, requires_grad=True)
    p = top(x)
    (grad,) = torch.autograd.grad(p.sum(), x)  # rows are independent, so this is dp/dx per point

    def crossing(f, level, lo, hi):
        for _ in range(80):  # bisection to float64 resolution on [0, 10]
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if f(mid) < level else (lo, mid)
        return 0.5 * (lo + hi)

    def prob(v):
        return top(torch.tensor([v], dtype=torch.float64)).item()

    def minus_grad(v):  # -dp/dx, increasing in x past p = 1/2
        t = torch.tensor([v], dtype=torch.float64, requires_grad=True)
        return -torch.autograd.grad(top(t).sum(), t)[0].item()

    half = crossing(prob, 0.5, *EXERCISE_RANGE)
    vanished = THRESHOLDS["vanished_jacobian"]
    return {
        "x": x.detach().tolist(),
        "p": p.detach().tolist(),
        "grad": grad.tolist(),
        "crossings": [{"level": lv, "x": crossing(prob, lv, *EXERCISE_RANGE)} for lv in EXERCISE_LEVELS],
        "vanished_level": vanished,
        "vanished_x": crossing(minus_grad, -vanished, half, EXERCISE_RANGE[1]),
    }


def behavior_demo():
    """000's softmax_behavior_demo, exactly: F.softmax in float32 on the CPU."""
    import torch

    base = torch.tensor(DOC_BEHAVIOR_BASE)
    out = []
    for scale in DOC_BEHAVIOR_SCALES:
        probs = torch.softmax(base * scale, dim=0)
        out.append({"scale": scale, "probs": probs.tolist(), "max_prob": probs.max().item()})
    return out


def worked_examples():
    """Every worked softmax example recomputed in float64 from the documents' own inputs."""
    import torch

    def softmax(values):
        return torch.softmax(torch.tensor(values, dtype=torch.float64), dim=-1)

    def jacobian_max(values):
        p = softmax(values)
        return (torch.diag(p) - torch.outer(p, p)).abs().max().item()  # J = diag(p) − pp^T

    q, k = torch.tensor(DOC_002_Q, dtype=torch.float64), torch.tensor(DOC_002_K, dtype=torch.float64)
    qkt = q @ k.T  # (3, 3): row i, column j is q_i · k_j
    original = torch.tensor(DOC_002_ORIGINAL, dtype=torch.float64)
    return {
        "softmax": {key: softmax(v).tolist() for key, v in DOC_SOFTMAX.items()},
        "jacobian_max": {key: jacobian_max(v) for key, v in DOC_SOFTMAX.items()},
        "scaled": {key: [s / math.sqrt(d) for s in v] for key, (v, d) in DOC_SCALED.items()},
        "partial": softmax(DOC_PARTIAL_SCORES).tolist(),  # the three printed scores alone
        "qkt": qkt.tolist(),
        "qkt_var": [qkt.var(correction=0).item(), qkt.var().item()],  # np.var (population), sample
        "qkt_scaled": (qkt / math.sqrt(3)).tolist(),
        "qkt_scaled_var": [(qkt / math.sqrt(3)).var(correction=0).item(), (qkt / math.sqrt(3)).var().item()],
        "qkt_softmax": [torch.softmax(qkt, -1).tolist(), torch.softmax(qkt / math.sqrt(3), -1).tolist()],
        "original_scaled": (original / math.sqrt(3)).tolist(),
        "original_scaled_rounded_root": (original / DOC_002_ROUNDED_ROOT3).tolist(),
        "original_softmax": [torch.softmax(original, -1).tolist(), torch.softmax(original / math.sqrt(3), -1).tolist()],
        "exps": {
            key: {"exps": [math.exp(v) for v in DOC_SOFTMAX[key]], "sum": sum(math.exp(v) for v in DOC_SOFTMAX[key])}
            for key in DOC_EXP_EXAMPLES
        },
    }


def _figure_setting(Q, K):
    """Scores, weights and entropies of 000's figure code for Q, K of shape (..., 10, 64)."""
    import torch

    unscaled = Q @ K.transpose(-2, -1)  # (..., 10, 10)
    scaled = unscaled / math.sqrt(Q.shape[-1])
    wu, ws = torch.softmax(unscaled, -1), torch.softmax(scaled, -1)
    hu = -(wu * wu.log()).sum(-1)  # as 000 writes it: NaN if a weight underflows to 0
    hs = -(ws * (ws + 1e-10).log()).sum(-1)  # 000 adds 1e-10 here only
    return unscaled, scaled, wu, ws, hu, hs


def figure_rerun(params, seed, device, progress):
    """000's 2×3 figure with its seed, then the same setting over fresh seeds."""
    import torch

    from reportgen.experiments.moments import Moments
    from reportgen.experiments.sampling import chunks, generator

    g = torch.Generator().manual_seed(DOC_FIGURE_SEED)  # the stream of torch.manual_seed(42)
    Q = torch.randn(1, DOC_FIGURE_LEN, DOC_FIGURE_DK, generator=g)
    K = torch.randn(1, DOC_FIGURE_LEN, DOC_FIGURE_DK, generator=g)
    unscaled, scaled, wu, ws, hu, hs = (t.squeeze(0) for t in _figure_setting(Q, K))
    doc = {
        "unscaled": unscaled.tolist(), "scaled": scaled.tolist(),
        "weights": wu.tolist(), "weights_scaled": ws.tolist(),
        "entropy": hu.tolist(), "entropy_scaled": hs.tolist(),
        "stats": _figure_stats(unscaled, scaled, wu, ws, hu, hs),
    }
    g = generator(device, seed, "figure-repeats")
    moments = {}
    shape = (DOC_FIGURE_LEN, DOC_FIGURE_DK)
    for c in progress(list(chunks(params.figure_repeats, 2 * math.prod(shape))), "saturation: 000 figure reruns"):
        Q = torch.randn(c, *shape, generator=g, device=device)
        K = torch.randn(c, *shape, generator=g, device=device)
        for key, values in _figure_stats(*_figure_setting(Q, K), per_repeat=True).items():
            moments.setdefault(key, Moments()).add(values)
    repeats = {k: {"mean": float(m.mean), "var": float(m.variance), "n": m.n} for k, m in moments.items()}
    return {"doc_seed": doc, "repeats": repeats}


def _figure_stats(unscaled, scaled, wu, ws, hu, hs, per_repeat=False):
    """000's printed summary statistics, and the row means its written reading is about."""
    dims = (-2, -1)
    std = (lambda t: t.flatten(-2).std(-1)) if per_repeat else (lambda t: t.std())
    out = {
        "unscaled_mean": unscaled.mean(dims), "unscaled_std": std(unscaled),
        "scaled_mean": scaled.mean(dims), "scaled_std": std(scaled),
        "max_weight": wu.amax(dims), "max_weight_scaled": ws.amax(dims),
        "mean_entropy": hu.mean(-1), "mean_entropy_scaled": hs.mean(-1),
        "row_max_weight": wu.amax(-1).mean(-1), "row_max_weight_scaled": ws.amax(-1).mean(-1),
    }
    if per_repeat:
        return {k: v.double().cpu().numpy() for k, v in out.items()}
    return {k: v.item() for k, v in out.items()}


def naive_softmax(s):
    """exp(s) / sum exp(s), as the formula reads."""
    e = s.exp()
    return e / e.sum(dim=-1, keepdim=True)


def stable_softmax(s):
    """001's stable_softmax: subtract the row maximum first."""
    e = (s - s.max(dim=-1, keepdim=True).values).exp()
    return e / e.sum(dim=-1, keepdim=True)


def _pattern(name, x, dtype):
    """Score vectors of magnitude x: 000's base scores times x, or shifted down by x."""
    import torch

    base = torch.tensor(DOC_BEHAVIOR_BASE, dtype=torch.float64)
    x = torch.as_tensor(x, dtype=torch.float64).reshape(-1, 1)
    return (x * base if name == "large positive" else base - x).to(dtype)  # (points, 4)


def stability(params):
    """Naive vs max-subtracted softmax per dtype: first score magnitude where naive is inf/NaN, agreement below."""
    import torch

    out = []
    for name in STABILITY_DTYPES:
        dtype = getattr(torch, name)
        int_type, inf_bits = INF_BITS[name]

        def value(bits):
            return torch.tensor(bits, dtype=getattr(torch, int_type)).view(dtype).item()

        for pattern in ("large positive", "large negative"):
            def fails(bits):
                return not bool(torch.isfinite(naive_softmax(_pattern(pattern, value(bits), dtype))).all())

            lo, hi = 0, inf_bits - 1  # x = 0 is fine; the largest finite x fails
            while hi - lo > 1:  # bisection over bit patterns: they order positive floats
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if fails(mid) else (mid, hi)
            first = value(hi)
            x = torch.linspace(0, value(lo), params.stability_points, dtype=torch.float64)
            s = _pattern(pattern, x, dtype)
            naive, stable = naive_softmax(s).double(), stable_softmax(s).double()
            exact = torch.softmax(s.double(), dim=-1)  # the same rounded scores, in float64
            magnitudes = torch.logspace(0, math.log10(torch.finfo(dtype).max), 400, dtype=torch.float64)
            wide = _pattern(pattern, magnitudes, dtype)  # up to the largest finite value
            stable_wide = stable_softmax(wide).double()
            deviation = (naive - stable).abs().amax(-1)  # (points,)
            row = {
                "dtype": name, "pattern": pattern, "first_failure": first, "last_finite": value(lo),
                "naive_fails_at_max": fails(inf_bits - 1),
                "eps": torch.finfo(dtype).eps, "max": torch.finfo(dtype).max, "points": len(x),
                "naive_vs_stable": deviation.max().item(),
                "stable_vs_exact": (stable - exact).abs().max().item(),
                "stable_wide_points": len(magnitudes),
                "stable_wide_nonfinite": int((~torch.isfinite(stable_wide)).any(-1).sum()),
                "stable_wide_sum_error": (stable_wide.sum(-1) - 1).abs().max().item(),
            }
            if pattern == "large positive":  # the curve the figure draws
                row["curve"] = {"x": x.tolist(), "naive_vs_stable": deviation.tolist()}
            out.append(row)
    return out


def run(params, seed, device, progress):
    """Run every saturation measurement; plain numbers out."""
    return {
        "behavior": behavior_demo(),
        "examples": worked_examples(),
        "exercise": exercise_curve(params),
        "sweep": saturation_sweep(params, seed, device, progress),
        "figure": figure_rerun(params, seed, device, progress),
        "stability": stability(params),
    }
