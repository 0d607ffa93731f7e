"""Saturation family: how score magnitude pushes softmax towards one-hot, and the documents' softmax examples."""

import math
from dataclasses import dataclass

from reportgen.experiments.base import Experiment, deferred
from reportgen.sources import Source

S000_BEHAVIOR = Source("000", "Softmax Behavior")
S000_NUMERIC = Source("000", "Numerical Example")
S000_VISUAL = Source("000", "Visualization: The Effect of Scaling")
S001_MATTERS = Source("001", "Why This Matters")
S001_VISUAL = Source("001", "Visualizing the Effect")
S001_STABILITY = Source("001", "Numerical Stability")
S001_EXERCISES = Source("001", "Exercises")
S002_MATRIX = Source("002", "Step-by-Step Matrix Calculation Example")
S002_SOFTMAX = Source("002", "Detailed Softmax Comparison with Matrix Example")

# 000 "Softmax Behavior": F.softmax(base * scale) in float32; probs printed 7.4f, max_prob .6f.
DOC_BEHAVIOR_BASE = (1.0, 0.5, 0.0, -0.5)
DOC_BEHAVIOR = (
    (1, ("0.3954", "0.2398", "0.1455", "0.0883"), "0.395447"),
    (5, ("0.9175", "0.0752", "0.0062", "0.0005"), "0.917480"),
    (10, ("0.9933", "0.0067", "0.0000", "0.0000"), "0.993262"),
    (20, ("0.9999", "0.0000", "0.0000", "0.0000"), "0.999955"),
    (50, ("1.0000", "0.0000", "0.0000", "0.0000"), "1.000000"),
)
# Worked examples, softmax(inputs as printed): name, source, inputs, printed probabilities.
DOC_SOFTMAX = (
    ("000: s = (20, 22, 18, 21), unscaled", S000_NUMERIC, (20, 22, 18, 21), ("0.018", "0.731", "0.002", "0.249")),
    ("000: softmax(0.88, 0.97, 0.80, 0.93)", S000_NUMERIC, (0.88, 0.97, 0.80, 0.93),
     ("0.227", "0.249", "0.210", "0.314")),
    ("000 Visual Summary: without scaling", S000_VISUAL, (-15, 8, 22, -3), ("0.00", "0.00", "1.00", "0.00")),
    ("000 Visual Summary: with scaling", S000_VISUAL, (-0.66, 0.35, 0.97, -0.13), ("0.12", "0.32", "0.47", "0.20")),
    ("001: without scaling", S001_VISUAL, (9.2, -3.1, 8.8, -5.4, 1.2), ("0.599", "0.000", "0.401", "0.000", "0.000")),
    ("001: with scaling", S001_VISUAL, (1.15, -0.39, 1.10, -0.68, 0.15), ("0.31", "0.07", "0.30", "0.05", "0.12")),
    ("002: row 1 unscaled, softmax([5, 10, 7])", S002_SOFTMAX, (5, 10, 7), ("0.006", "0.947", "0.047")),
    ("002: row 1 scaled, softmax([2.89, 5.78, 4.05])", S002_SOFTMAX, (2.89, 5.78, 4.05), ("0.045", "0.811", "0.144")),
)
# Worked examples, scores / √d: name, source, scores, d, printed √d (None: not printed), printed result.
DOC_SCALED = (
    ("000: (20, 22, 18, 21) / √512", S000_NUMERIC, (20, 22, 18, 21), 512, "22.6", ("0.88", "0.97", "0.80", "0.93")),
    ("000 Visual Summary: scores / √512", S000_VISUAL, (-15, 8, 22, -3), 512, "22.6",
     ("-0.66", "0.35", "0.97", "-0.13")),
    ("001: scores / 8", S001_VISUAL, (9.2, -3.1, 8.8, -5.4, 1.2), 64, "8", ("1.15", "-0.39", "1.10", "-0.68", "0.15")),
)
# 000 Visual Summary "Gradients": the softmax Jacobian of each score vector above.
DOC_VISUAL_GRADIENTS = ((-15, 8, 22, -3), "[~0, ~0, ~0, ~0]"), ((-0.66, 0.35, 0.97, -0.13), "[meaningful values]")
# 001 "Why This Matters": the first three scores of a longer vector, printed weights; "…" elides the rest.
DOC_PARTIAL_SCORES = (8.5, -2.1, 7.9)
DOC_PARTIAL_WEIGHTS = ("0.99", "0.00", "0.01")
# 002: Step 2's queries and keys (k as printed, one per row), Step 3's QK^T, Step 4's scaling.
DOC_002_Q = ((2, 1, 3), (1, 2, 1), (0, 1, 2))
DOC_002_K = ((1, 0, 2), (2, 1, 0), (1, 3, 1))
DOC_002_QKT = ((8, 5, 8), (3, 4, 8), (4, 1, 5))
DOC_002_QKT_VAR = "6.89"
DOC_002_QKT_SCALED = (("4.62", "2.89", "4.62"), ("1.73", "2.31", "4.62"), ("2.31", "0.58", "2.89"))
DOC_002_QKT_SCALED_VAR = "2.30"
DOC_002_ROOT3 = "1.73"
# 002 "Detailed Softmax Comparison": the matrix it calls 'our calculated matrices', and its scaling.
DOC_002_ORIGINAL = ((5, 10, 7), (6, 5, 3), (4, 7, 2))
DOC_002_ORIGINAL_SCALED = (("2.89", "5.78", "4.05"), ("3.47", "2.89", "1.73"), ("2.31", "4.05", "1.16"))
DOC_002_EXPS = (  # row-1 inputs, printed exp values, printed sum
    ((5, 10, 7), ("148.4", "22026.5", "1096.6"), "23271.5"),
    ((2.89, 5.78, 4.05), ("18.0", "323.6", "57.4"), "399.0"),
)
# 000 "Visualization: The Effect of Scaling": torch.manual_seed(42), d_k = 64, seq_len = 10.
DOC_FIGURE_SEED, DOC_FIGURE_DK, DOC_FIGURE_LEN = 42, 64, 10
# 001 exercise 2: softmax([x, 0, 0, 0]) for x from 0 to 10; the levels where we answer it.
EXERCISE_RANGE = (0.0, 10.0)
EXERCISE_LEVELS = (0.5, 0.9, 0.99, 0.999)
# A softmax Jacobian entry below this counts as vanished: 000 calls its largest entry 0.000045
# at scale 20 "essentially zero" but not 0.0067 at scale 10; 0.001 lies between.
VANISHED_JACOBIAN = 1e-3
STABILITY_DTYPES = ("float32", "float16", "bfloat16")
# Bit patterns just past the largest finite value (+inf) of each dtype (IEEE 754 layouts).
# Elements per sweep chunk: small tensors stay in the allocator's pools instead of fresh pages.
SWEEP_CHUNK = 1 << 18
INF_BITS = {"float32": ("int32", 0x7F800000), "float16": ("int16", 0x7C00), "bfloat16": ("int16", 0x7F80)}


@dataclass(frozen=True)
class SaturationParams:
    dims: tuple  # d_k of the sweep
    lengths: tuple  # sequence lengths n of the sweep
    rows: int  # attention rows (one query against n keys) per (d_k, n)
    figure_repeats: int  # reruns of 000's figure setting (d_k = 64, n = 10) with fresh seeds
    curve_points: int  # x grid of exercise 2's curve
    stability_points: int  # score magnitudes on the naive-vs-stable grid, per dtype and pattern


POW2 = tuple(2**i for i in range(11))  # 1 … 1024
LENGTHS = (4, 16, 64, 256, 1024)
PARAMS = {
    "quick": SaturationParams(
        dims=POW2[::2], lengths=LENGTHS, rows=150, figure_repeats=200, curve_points=201, stability_points=300
    ),
    "standard": SaturationParams(
        dims=POW2, lengths=LENGTHS, rows=3000, figure_repeats=4000, curve_points=501, stability_points=600
    ),
    "full": SaturationParams(
        dims=tuple(2**i for i in range(13)), lengths=LENGTHS + (4096,), rows=100_000, figure_repeats=100_000,
        curve_points=2001, stability_points=4000,
    ),
}


def _row_stats(logits):
    """Max weight and entropy (nats) of softmax over the last axis, one per row."""
    import torch

    logp = torch.log_softmax(logits, dim=-1)  # finite where softmax would underflow to 0
    return logp.max(dim=-1).values.exp(), -torch.linalg.vecdot(logp.exp(), logp)


def saturation_sweep(params, seed, device, progress):
    """Max weight, entropy and largest logit of attention rows, unscaled and scaled, per (d_k, n)."""
    import torch

    from reportgen.sampling import chunks, generator
    from reportgen.stats import Moments

    cells = []
    for d in progress(params.dims, "saturation: d_k × n sweep"):
        for n in params.lengths:
            g = generator(device, seed, "sweep", d, n)
            stats = {k: Moments() for k in ("max_w", "entropy", "max_w_scaled", "entropy_scaled", "max_z")}
            for c in chunks(params.rows, d + n, budget=SWEEP_CHUNK):
                # For a fixed q and keys k_j ~ N(0, I), the scores q·k_j are exactly iid N(0, |q|²):
                # drawing |q| and n standard normals gives the row's joint law at O(d + n), not O(n·d).
                q_norm = torch.randn(c, d, generator=g, device=device).norm(dim=1, keepdim=True)  # (c, 1)
                z = torch.randn(c, n, generator=g, device=device)  # (c, n)
                scores = q_norm * z  # (c, n): q·k_j
                for suffix, logits in (("", scores), ("_scaled", scores / math.sqrt(d))):
                    max_w, entropy = _row_stats(logits)
                    stats["max_w" + suffix].add(max_w.double().cpu().numpy())
                    stats["entropy" + suffix].add(entropy.double().cpu().numpy())
                stats["max_z"].add(z.max(dim=1).values.double().cpu().numpy())
            cells.append(
                {"d_k": d, "n": n, "rows": params.rows}
                | {k: {"mean": float(m.mean), "var": float(m.variance)} for k, m in stats.items()}
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
    return {
        "x": x.detach().tolist(),
        "p": p.detach().tolist(),
        "grad": grad.tolist(),
        "crossings": [{"level": lv, "x": crossing(prob, lv, *EXERCISE_RANGE)} for lv in EXERCISE_LEVELS],
        "vanished_x": crossing(minus_grad, -VANISHED_JACOBIAN, half, EXERCISE_RANGE[1]),
    }


def behavior_demo():
    """000's softmax_behavior_demo, exactly: F.softmax in float32 on the CPU."""
    import torch

    base = torch.tensor(DOC_BEHAVIOR_BASE)
    out = []
    for scale, _, _ in DOC_BEHAVIOR:
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
        "softmax": [softmax(v).tolist() for _, _, v, _ in DOC_SOFTMAX],
        "scaled": [[s / math.sqrt(d) for s in v] for _, _, v, d, _, _ in DOC_SCALED],
        "roots": [math.sqrt(d) for _, _, _, d, _, _ in DOC_SCALED],
        "jacobian_max": [jacobian_max(v) for v, _ in DOC_VISUAL_GRADIENTS],
        "partial": softmax(DOC_PARTIAL_SCORES).tolist(),  # the three printed scores alone
        "qkt": qkt.tolist(),
        "qkt_var": [qkt.var(correction=0).item(), qkt.var().item()],  # np.var (population), sample
        "qkt_scaled": (qkt / math.sqrt(3)).tolist(),
        "qkt_scaled_var": [(qkt / math.sqrt(3)).var(correction=0).item(), (qkt / math.sqrt(3)).var().item()],
        "qkt_softmax": [torch.softmax(qkt, -1).tolist(), torch.softmax(qkt / math.sqrt(3), -1).tolist()],
        "original_scaled": (original / math.sqrt(3)).tolist(),
        "original_scaled_rounded_root": (original / float(DOC_002_ROOT3)).tolist(),
        "original_softmax": [torch.softmax(original, -1).tolist(), torch.softmax(original / math.sqrt(3), -1).tolist()],
        "root3": math.sqrt(3),
        "exps": [
            {"exps": [math.exp(v) for v in inputs], "sum": sum(math.exp(v) for v in inputs)}
            for inputs, _, _ in DOC_002_EXPS
        ],
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

    from reportgen.sampling import chunks, generator
    from reportgen.stats import Moments

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
                "eps": torch.finfo(dtype).eps, "max": torch.finfo(dtype).max, "points": len(x),
                "naive_vs_stable": deviation.max().item(),
                "stable_vs_exact": (stable - exact).abs().max().item(),
                "stable_wide_finite": bool(torch.isfinite(stable_wide).all()),
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


EXPERIMENT = Experiment(
    name="saturation",
    title="Softmax saturation",
    summary="Softmax of growing scores: the documents' printed examples recomputed, max weight and "
    "entropy against d_k and n, 000's figure rerun, and naive vs stable softmax in low precision.",
    covers=(
        S000_BEHAVIOR,
        S000_NUMERIC,
        S000_VISUAL,
        S001_MATTERS,
        S001_VISUAL,
        S001_STABILITY,
        S001_EXERCISES,
        S002_MATRIX,
        S002_SOFTMAX,
    ),
    params=PARAMS,
    run=run,
    figures=deferred("saturation_figures", "figures"),
    tables=deferred("saturation_report", "tables"),
    intro=(
        "Softmax depends only on the differences between scores, and a difference of $\\Delta$ "
        "between the two largest gives them weights in the ratio $e^{\\Delta}$. Unscaled scores "
        "have standard deviation $\\sqrt{d_k}$, so their gaps grow with $d_k$ and the largest "
        "weight tends to 1. How far depends on the sequence length $n$ as well: the largest of "
        "$n$ scores sits near $\\sigma\\sqrt{2\\ln n}$, and more keys mean more close competitors. "
        "Near one-hot, every entry of the softmax Jacobian is small."
    ),
    formulas=(
        r"H(p)=-\sum_{j=1}^{n}p_j\ln p_j\in[0,\ln n],\qquad "
        r"\mathrm{softmax}([x,0,0,0])_1=\frac{e^{x}}{e^{x}+3}",
        r"\mathbb{E}\left[\max_{j\le n} z_j\right]\approx\sqrt{2\ln n}\quad "
        r"\text{for } z_j\sim\mathcal{N}(0,1)\text{ independent}",
    ),
)
