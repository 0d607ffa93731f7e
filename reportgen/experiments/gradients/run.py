"""Gradients family, run: the softmax Jacobian and gradient norms through attention, numbers only."""

import math

from reportgen.experiments.gradients.params import (
    DOC_BASE_SCORES,
    DOC_FLOW_MODERATE,
    DOC_SCALES,
    EX5_CASES,
    FLOW_PEAKED_LOGITS,
)
from reportgen.experiments.thresholds import THRESHOLDS

JACOBIAN_CHECK_VECTORS = 16  # random score vectors for analytic vs autograd vs finite differences
SATURATED = THRESHOLDS["saturated_row"]  # a query row is saturated when its largest probability exceeds this
DRAW_BUDGET = 1 << 24  # weight elements per batch of draws: 64 MiB in float32
FD_STEP = 1e-6  # central differences in float64: truncation ~h², rounding ~1e-16/h


def others_sum(x):
    """Σ_{j≠i} x_j for non-negative x (..., n); for probabilities it is 1 − p_i.

    The largest entry's sum is taken over the others directly: 1 − p_i rounds to 0 when p_i ≈ 1.
    """
    import torch

    top = x.argmax(-1, keepdim=True)
    is_top = torch.zeros_like(x, dtype=torch.bool).scatter_(-1, top, True)
    rest = x.masked_fill(is_top, 0).sum(-1, keepdim=True)
    return torch.where(is_top, rest, x.sum(-1, keepdim=True) - x)


def softmax_jacobian(p):
    """diag(p) − p pᵀ for probabilities p of shape (..., n): shape (..., n, n)."""
    import torch

    outer = -p.unsqueeze(-1) * p.unsqueeze(-2)  # (..., n, n)
    return torch.diagonal_scatter(outer, p * others_sum(p), dim1=-2, dim2=-1)  # diagonal p_i(1 − p_i)


def jacobian_frobenius(p):
    """‖diag(p) − ppᵀ‖_F from Σ p_i²(1 − p_i)² + Σ_i p_i² Σ_{j≠i} p_j², without forming it."""
    q = p**2
    return ((q * others_sum(p) ** 2).sum(-1) + (q * others_sum(q)).sum(-1)).sqrt()


def jacobian_spectral(p, iterations=40):
    """Largest eigenvalue of diag(p) − ppᵀ (its spectral norm: the matrix is PSD), shape (...).

    The eigenvalues of a diagonal minus a rank-one matrix solve the secular equation
    1 = Σ p_i²/(p_i − λ), which with Σp = 1 becomes Σ p_i/(p_i − λ) = 0. The largest root lies
    between the two largest p_i, where that sum rises from −∞ to +∞; bisecting on the geometric
    mean gives it to relative precision in O(n) per step (an eigensolver costs O(n³)), also when
    p is saturated and λ is 1e-30.
    """
    import torch

    top = torch.topk(p, 2, dim=-1).values
    lo, hi = top[..., 1].clone(), top[..., 0].clone()
    usable = (lo > 0) & (hi > lo)
    lo, hi = torch.where(usable, lo, 1.0), torch.where(usable, hi, 1.0)
    for _ in range(iterations):
        mid = (lo * hi).sqrt()
        h = (p / (p - mid.unsqueeze(-1))).sum(-1)
        above = h > 0  # the sum increases with λ: positive means the root is below mid
        hi = torch.where(above, mid, hi)
        lo = torch.where(above, lo, mid)
    # Ties (p_1 = p_2) give λ = p_1; a one-hot p (p_2 underflowed to 0) gives J = 0.
    tie = torch.where(top[..., 1] > 0, top[..., 0], torch.zeros_like(top[..., 0]))
    return torch.where(usable, (lo * hi).sqrt(), tie)


def document_jacobian_table():
    """000's Jacobian analysis, recomputed in float64: max p, max |J_ij|, ‖J‖_F per scale."""
    import torch

    rows = []
    base = torch.tensor(DOC_BASE_SCORES, dtype=torch.float64)
    for scale in DOC_SCALES:
        p = torch.softmax(base * scale, dim=0)
        J = softmax_jacobian(p)
        rows.append(
            {
                "scale": scale,
                "probs": p.tolist(),
                "max_prob": p.max().item(),
                "max_element": J.abs().max().item(),
                "frobenius": torch.linalg.matrix_norm(J).item(),
                "spectral": torch.linalg.matrix_norm(J, ord=2).item(),
            }
        )
    return rows


def _autograd_jacobian(s):
    """∂softmax(s)/∂s by reverse-mode autograd.

    torch.autograd.functional rather than torch.func.jacrev: the first jacrev call imports
    torch._dynamo (about 1.3 s), most of the quick profile's budget; the tests compare both.
    """
    import torch

    return torch.autograd.functional.jacobian(lambda x: torch.softmax(x, 0), s)


def jacobian_agreement(seed):
    """Max |analytic − jacrev| and |analytic − central differences| over random score vectors."""
    import torch

    from reportgen.experiments.sampling import generator

    g = generator("cpu", seed, "jacobian-check")
    worst_autograd = worst_fd = 0.0
    sizes = []
    for i in range(JACOBIAN_CHECK_VECTORS):
        n = 2 + i % 7
        s = 3 * torch.randn(n, generator=g, dtype=torch.float64)
        analytic = softmax_jacobian(torch.softmax(s, 0))
        auto = _autograd_jacobian(s)
        eye = torch.eye(n, dtype=torch.float64) * FD_STEP
        fd = torch.stack(
            [(torch.softmax(s + eye[j], 0) - torch.softmax(s - eye[j], 0)) / (2 * FD_STEP) for j in range(n)],
            dim=1,
        )  # (n, n): column j is ∂p/∂s_j
        worst_autograd = max(worst_autograd, (analytic - auto).abs().max().item())
        worst_fd = max(worst_fd, (analytic - fd).abs().max().item())
        sizes.append(n)
    return {"vectors": len(sizes), "sizes": sizes, "autograd": worst_autograd, "finite_diff": worst_fd}


def small_jacobians():
    """001's gradient examples and exercise 5's cases: the whole Jacobian, with autograd."""
    import torch

    def describe(scores):
        s = torch.tensor(scores, dtype=torch.float64)
        p = torch.softmax(s, 0)
        J = _autograd_jacobian(s)
        off = J - torch.diag_embed(torch.diagonal(J))
        return {
            "scores": list(scores),
            "probs": p.tolist(),
            "diag": torch.diagonal(J).tolist(),
            "max_off_diag": off.abs().max().item(),
            "row_sum_max": J.sum(1).abs().max().item(),
            "frobenius": torch.linalg.matrix_norm(J).item(),
            "spectral": torch.linalg.matrix_norm(J, ord=2).item(),
        }

    moderate = tuple(math.log(p) for p in DOC_FLOW_MODERATE)
    return {
        "moderate": describe(moderate),
        "peaked": describe(FLOW_PEAKED_LOGITS),
        "exercise5": [{"name": name, **describe(scores)} for name, scores in EX5_CASES],
    }


def _mean_sd(values):
    """[mean, sample standard deviation] over the last axis, as (nested) lists of floats."""
    import torch

    values = values.double()
    return torch.stack([values.mean(-1), values.std(-1)], dim=-1).tolist()


def _spread(values):
    """[mean, sd, lower quartile, median, upper quartile] over the last axis, as lists."""
    import torch

    values = values.double()
    quartiles = torch.quantile(values, torch.tensor([0.25, 0.5, 0.75], dtype=values.dtype, device=values.device), dim=-1)
    return torch.stack([values.mean(-1), values.std(-1), *quartiles], dim=-1).tolist()


def norm_curves(params, seed, device, progress):
    """Mean ‖J‖_F and ‖J‖_2 against the std of i.i.d. normal logits, per number of keys."""
    import torch

    from reportgen.experiments.sampling import generator

    rows = []
    for n in progress(params.keys, "gradients: Jacobian norm vs logit std"):
        g = generator(device, seed, "norm-curve", n)
        samples = max(16, params.norm_elements // n)
        z = torch.randn(samples, n, generator=g, device=device, dtype=torch.float64)
        fro, spec = [], []
        for sigma in params.sigmas:  # one σ at a time keeps memory at one (samples, n) tensor
            p = torch.softmax(sigma * z, dim=-1)  # (samples, n)
            fro.append(_spread(jacobian_frobenius(p)))
            spec.append(_spread(jacobian_spectral(p)))
        # Bisection against a dense eigensolver on a few samples, as a self-check.
        p = torch.softmax(params.sigmas[len(params.sigmas) // 2] * z[:8], dim=-1)
        dense = torch.linalg.eigvalsh(softmax_jacobian(p))[..., -1]
        rows.append(
            {
                "n": n,
                "samples": samples,
                "frobenius": fro,  # per sigma: [mean, sd, q1, median, q3] over the samples
                "spectral": spec,
                "bisection_vs_eigvalsh": (dense - jacobian_spectral(p)).abs().max().item(),
            }
        )
    return {"sigmas": list(params.sigmas), "curves": rows}


def norms_vs_dk(params, seed, device, progress):
    """‖J‖ for q·k_j over n keys with q, k ~ N(0, I_dk), raw and divided by √d_k."""
    import torch

    from reportgen.experiments.sampling import chunks, generator

    rows = []
    for n, d in progress([(n, d) for n in params.dk_keys for d in params.dk_dims], "gradients: Jacobian norm vs d_k"):
        g = generator(device, seed, "norm-dk", n, d)
        found = {"raw": ([], []), "scaled": ([], [])}
        for c in chunks(params.dk_samples, n + d):
            q = torch.randn(c, d, generator=g, device=device, dtype=torch.float64)
            # Given q, q·k_j for k_j ~ N(0, I) is exactly N(0, |q|²), independently over j:
            # drawing it as |q|·z costs O(n + d) per query instead of O(n·d), same distribution.
            z = torch.randn(c, n, generator=g, device=device, dtype=torch.float64)
            logits = q.norm(dim=1, keepdim=True) * z  # (c, keys)
            for name, s in (("raw", logits), ("scaled", logits / math.sqrt(d))):
                p = torch.softmax(s, dim=-1)
                found[name][0].append(jacobian_frobenius(p))
                found[name][1].append(jacobian_spectral(p))
        row = {"n": n, "d_k": d}
        for name, (fro, spec) in found.items():
            row[name] = {"frobenius": _mean_sd(torch.cat(fro)), "spectral": _mean_sd(torch.cat(spec))}
        rows.append(row)
    return {"samples": params.dk_samples, "rows": rows}


def _normal(g, device, *shape, std=1.0):
    import torch

    return std * torch.randn(*shape, generator=g, device=device)


def _norms(t):
    """Frobenius norm of each draw's slice of a (draws, ...) tensor, as a list."""
    return t.flatten(1).norm(dim=1).tolist()


def _weight_grad_norms(x, dA):
    """‖xᵀ dA‖_F per draw from T×T Gram matrices, without forming the d×d gradient."""
    gram = (x @ x.transpose(1, 2)) * (dA @ dA.transpose(1, 2))  # (draws, T, T)
    return gram.sum((1, 2)).clamp_min(0).sqrt().tolist()


def layer_gradients(params, seed, device, progress):
    """Gradient norms at init through x → W_q, W_k, W_v → softmax(QKᵀ·s)V → ½‖O − Y‖²/T."""
    import torch

    from reportgen.experiments.sampling import chunks, generator

    rows = []
    T = params.tokens
    for d in progress(params.layer_dims, "gradients: one attention layer"):
        g = generator(device, seed, "layer", d)
        record = {"scaled": {}, "unscaled": {}}
        for D in chunks(params.layer_draws, 4 * d * d, budget=DRAW_BUDGET):
            # N(0, 1/d_model) weights give q, k components of variance 1: the documents' premise.
            x = _normal(g, device, D, T, d)
            W_q, W_k, W_v = (_normal(g, device, D, d, d, std=d**-0.5) for _ in range(3))
            Y = _normal(g, device, D, T, d)
            Q, K, V = (torch.bmm(x, W).requires_grad_(True) for W in (W_q, W_k, W_v))  # (D, T, d)
            for name, scale in (("scaled", d**-0.5), ("unscaled", 1.0)):
                S = scale * Q @ K.transpose(1, 2)  # (D, T, T): the softmax input
                P = torch.softmax(S, dim=-1)
                loss = 0.5 * ((P @ V - Y) ** 2).sum() / T  # draws are independent: a sum of losses
                dS, dQ, dK, dV = torch.autograd.grad(loss, (S, Q, K, V))
                # The projections are linear: ∂L/∂W = xᵀ ∂L/∂(xW) and ∂L/∂x = Σ ∂L/∂(xW) Wᵀ.
                via_v = dV @ W_v.transpose(1, 2)
                via_qk = dQ @ W_q.transpose(1, 2) + dK @ W_k.transpose(1, 2)
                values = {
                    "scores": _norms(dS),
                    "scores_row_median": dS.norm(dim=-1).median(dim=-1).values.tolist(),
                    "q": _norms(dQ),
                    "W_q": _weight_grad_norms(x, dQ),
                    "W_k": _weight_grad_norms(x, dK),
                    "W_v": _weight_grad_norms(x, dV),
                    "x_via_v": _norms(via_v),
                    "x_via_qk": _norms(via_qk),
                    "x": _norms(via_v + via_qk),
                    "eff_keys": (1 / (P**2).sum(-1)).mean(-1).tolist(),
                    "max_p": P.detach().max(-1).values.mean(-1).tolist(),
                    "saturated_rows": (P.detach().max(-1).values > SATURATED).double().mean(-1).tolist(),
                    "logit_std": S.detach().flatten(1).std(1).tolist(),
                }
                for key, value in values.items():
                    record[name].setdefault(key, []).extend(value)
        rows.append({"d_k": d, **record})
    return rows


def _layer_norm(h):
    import torch

    return torch.nn.functional.layer_norm(h, h.shape[-1:])


def depth_gradients(params, seed, device, progress):
    """Per-block gradient norms through L pre-LayerNorm attention blocks, scaled and unscaled."""
    import torch

    from reportgen.experiments.sampling import chunks, generator

    rows = []
    T, L = params.tokens, params.depth
    for d in progress(params.depth_dims, "gradients: stack of attention blocks"):
        g = generator(device, seed, "depth", d)
        record = {"scaled": {}, "unscaled": {}}
        for D in chunks(params.depth_draws, 4 * L * d * d, budget=DRAW_BUDGET):
            x = _normal(g, device, D, T, d)
            # Per block: W_q, W_k, W_v, W_o of shape (D, d, d), all N(0, 1/d).
            weights = [
                [_normal(g, device, D, d, d, std=d**-0.5).requires_grad_(True) for _ in range(4)] for _ in range(L)
            ]
            Y = _normal(g, device, D, T, d)
            for name, scale in (("scaled", d**-0.5), ("unscaled", 1.0)):
                streams, eff = [x.clone().requires_grad_(True)], []
                for W_q, W_k, W_v, W_o in weights:
                    a = _layer_norm(streams[-1])
                    S = scale * (a @ W_q) @ (a @ W_k).transpose(1, 2)  # (D, T, T)
                    P = torch.softmax(S, dim=-1)
                    eff.append((1 / (P**2).sum(-1)).mean(-1).tolist())
                    streams.append(streams[-1] + (P @ (a @ W_v)) @ W_o)  # residual stream (D, T, d)
                loss = 0.5 * ((_layer_norm(streams[-1]) - Y) ** 2).sum() / T
                flat = [w for block in weights for w in block[:3]]
                grads = torch.autograd.grad(loss, streams + flat)
                d_streams, d_w = grads[: L + 1], grads[L + 1 :]
                per_layer = {
                    "stream": [_norms(t) for t in d_streams],  # ∂L/∂h_l, l = 0 … L
                    "W_q": [_norms(t) for t in d_w[0::3]],
                    "W_k": [_norms(t) for t in d_w[1::3]],
                    "W_v": [_norms(t) for t in d_w[2::3]],
                    "eff_keys": eff,
                }
                for key, layers in per_layer.items():
                    # Stored as [draw][layer].
                    record[name].setdefault(key, []).extend(map(list, zip(*layers)))
        rows.append({"d_model": d, "depth": L, **record})
    return rows


def run(params, seed, device, progress):
    """Run every gradient measurement; plain numbers out."""
    return {
        "doc_table": document_jacobian_table(),
        "agreement": jacobian_agreement(seed),
        "small": small_jacobians(),
        "curves": norm_curves(params, seed, device, progress),
        "dk": norms_vs_dk(params, seed, device, progress),
        "layer": layer_gradients(params, seed, device, progress),
        "depth": depth_gradients(params, seed, device, progress),
    }
