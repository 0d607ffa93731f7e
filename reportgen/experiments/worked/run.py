"""Worked family, run: the documents' worked examples recomputed from their inputs, and random attention rows."""

import math
from fractions import Fraction

from reportgen.experiments.rowstats import entropy
from reportgen.experiments.worked.params import (
    DOC_002_D_K,
    DOC_002_DIMS,
    DOC_002_E,
    DOC_002_K,
    DOC_002_Q,
    DOC_002_QKT,
    DOC_002_ROOT_PRINTED,
    DOC_002_ROW1_EXPS,
    DOC_002_SECOND,
    DOC_002_SECOND_ROW1_SCALED,
    DOC_002_STEP5_SCALED,
    DOC_002_TENS,
    DOC_002_TENS_DIVISOR,
    DOC_002_W,
    PUBLISHED_MODELS,
    ROW_DIMS,
    ROW_KEYS,
    VANISHED_JACOBIAN,
    WORDS,
)


def _dot(u, v):
    return sum(a * b for a, b in zip(u, v))


def _times(row, matrix):
    """Row vector times matrix: x·W."""
    return [_dot(row, column) for column in zip(*matrix)]


def _variances(values):
    """Exact variance dividing by n (np.var) and by n − 1 (ddof=1), as floats."""
    values = [Fraction(v) for v in values]
    n = len(values)
    mean = sum(values) / n
    squares = sum((v - mean) ** 2 for v in values)
    return {"population": float(squares / n), "sample": float(squares / (n - 1))}


def _flat(matrix):
    return [v for row in matrix for v in row]


def _softmax(values):
    top = max(values)
    exps = [math.exp(v - top) for v in values]
    total = sum(exps)
    return [e / total for e in exps]


def money_bank():
    """002's worked example from Step 1's inputs to the Visual Comparison, in exact arithmetic."""
    root = math.sqrt(DOC_002_D_K)
    projections = {}
    for name, w in DOC_002_W.items():
        projections[name] = {
            "E·W": [_times(e, w) for e in DOC_002_E],  # embedding as a row vector
            "W·E": [_times(e, list(zip(*w))) for e in DOC_002_E],  # as a column vector: W e = e Wᵀ
        }
    scores_from_inputs = {  # QKᵀ: row i, column j is q_i · k_j
        f"Q: {qc}, K: {kc}": [[_dot(q, k) for k in projections["W_K"][kc]] for q in projections["W_Q"][qc]]
        for qc in ("E·W", "W·E")
        for kc in ("E·W", "W·E")
    }
    dots = {  # Step 3 from Step 2's stated vectors: the terms q_i × k_i and their sum
        f"{qw}·{kw}": {"pairs": [[a, b] for a, b in zip(q, k)], "sum": _dot(q, k)}
        for qw, q in zip(WORDS, DOC_002_Q)
        for kw, k in zip(WORDS, DOC_002_K)
    }
    step3 = _flat(DOC_002_QKT)
    second = _flat(DOC_002_SECOND)
    candidates = {  # the sets of nine numbers Step 4's variances could be the variance of
        "Step 3's QKᵀ": _variances(step3),
        "Step 3's QKᵀ / √3": {k: v / DOC_002_D_K for k, v in _variances(step3).items()},
        "Step 5's printed scaled values": _variances(DOC_002_STEP5_SCALED),
        "the second matrix": _variances(second),
        "the second matrix / √3": {k: v / DOC_002_D_K for k, v in _variances(second).items()},
    }
    rows = [_softmax(r) for r in DOC_002_QKT]
    rows_scaled = [_softmax([v / root for v in r]) for r in DOC_002_QKT]
    exps, total = DOC_002_ROW1_EXPS
    return {
        "projections": projections,
        "scores_from_inputs": scores_from_inputs,
        "dots": dots,
        "variance_candidates": candidates,
        "step3_softmax": rows,
        "step3_softmax_scaled": rows_scaled,
        "step3_entropy": [entropy(p) for p in rows],
        "step3_entropy_scaled": [entropy(p) for p in rows_scaled],
        "second_equal_entries": sum(a == b for a, b in zip(step3, second)),
        "second_scaled": {  # the comparison's matrix ÷ √3, and ÷ the rounded root it prints in Step 4
            "√3": [v / root for v in second],
            DOC_002_ROOT_PRINTED: [float(Fraction(v) / Fraction(DOC_002_ROOT_PRINTED)) for v in second],
        },
        "percent": [100 * p for p in _softmax(DOC_002_SECOND[0])],
        "percent_scaled": [100 * p for p in _softmax(DOC_002_SECOND_ROW1_SCALED)],
        "percent_exact_scaled": [100 * p for p in _softmax([v / root for v in DOC_002_SECOND[0]])],
        "percent_from_printed_exps": [float(100 * Fraction(e) / Fraction(total)) for e in exps],
    }


def variance_arithmetic():
    """002's [10, …, 70] example and its 1D/2D/3D variance products, in exact arithmetic."""
    dims = []
    base = Fraction(DOC_002_DIMS[0][1])
    for d, variance, factor in DOC_002_DIMS:
        v = Fraction(variance)
        dims.append(
            {
                "d": d,
                "factor": 1 / math.sqrt(d),
                "new_printed_factor": float(Fraction(factor) ** 2 * v),  # (printed 1/√d)² × Var
                "new_exact_factor": float(v / d),  # (1/√d)² = 1/d exactly
                "ratio_to_1d": float(v / base),
            }
        )
    scaled = [Fraction(x, DOC_002_TENS_DIVISOR) for x in DOC_002_TENS]
    return {"tens": _variances(DOC_002_TENS), "tens_scaled": _variances(scaled), "dims": dims}


def model_sizes():
    """d_model / heads and √d_k for each published configuration behind 000's model table."""
    out = []
    for name, sizes in PUBLISHED_MODELS:
        rows = [{"size": s, "d_model": dm, "heads": h, "d_k": float(Fraction(dm, h))} for s, dm, h in sizes]
        for row in rows:
            row["std"] = math.sqrt(row["d_k"])
        out.append({"model": name, "sizes": rows})
    return out


def jacobian_norms(p):
    """Frobenius norm and largest |entry| of J = diag(p) − ppᵀ for softmax rows p (..., n).

    Near one-hot, 1 − p_max and Σ_{j≠max} p_j² fall below float64's resolution of 1; both are
    summed from the other weights instead of subtracted from 1 or from Σp².
    """
    import torch

    top = p.argmax(-1, keepdim=True)
    others = p.scatter(-1, top, 0.0)  # (..., n): p with its largest weight zeroed
    one_minus = (1 - p).scatter(-1, top, others.sum(-1, keepdim=True))  # 1 − p_i
    p2 = p * p
    squares_rest = (p2.sum(-1, keepdim=True) - p2).scatter(-1, top, (others * others).sum(-1, keepdim=True))
    diag = p * one_minus  # J_ii
    # ‖J‖_F² = Σ_i J_ii² + Σ_i p_i² Σ_{j≠i} p_j²; the largest entry is the largest J_ii or the
    # product of the two largest weights.
    fro = ((diag * diag).sum(-1) + (p2 * squares_rest).sum(-1)).sqrt()
    top2 = p.topk(2, dim=-1).values
    return fro, torch.maximum(diag.amax(-1), top2[..., 0] * top2[..., 1])


def attention_rows(params, seed, device, progress):
    """Score variance, largest weight, entropy and Jacobian of random attention rows, per d_k."""
    import torch

    from reportgen.experiments.moments import Moments
    from reportgen.experiments.sampling import chunks, generator

    cells = []
    for d in progress(ROW_DIMS, "worked: attention rows"):
        g = generator(device, seed, "rows", d)
        score = Moments()
        stats = {s: {k: Moments() for k in ("max_w", "entropy", "jac_fro")} for s in ("unscaled", "scaled")}
        vanished = {"unscaled": 0, "scaled": 0}
        for c in chunks(params.rows, d + ROW_KEYS):
            # For a fixed q and keys k_j ~ N(0, I), the scores q·k_j are exactly iid N(0, |q|²):
            # drawing |q| and ROW_KEYS standard normals gives the row's joint law at O(d + n).
            q_norm = torch.randn(c, d, generator=g, device=device).norm(dim=1, keepdim=True)  # (c, 1)
            scores = q_norm * torch.randn(c, ROW_KEYS, generator=g, device=device)  # (c, n)
            score.add(scores[:, 0].cpu().numpy())  # one score per row: independent draws of q·k
            for name, logits in (("unscaled", scores), ("scaled", scores / math.sqrt(d))):
                logp = torch.log_softmax(logits.double(), dim=-1)  # float64: 1 − p stays exact near one-hot
                p = logp.exp()  # (c, n)
                fro, largest = jacobian_norms(p)
                top = p.amax(-1)
                stats[name]["max_w"].add(top.cpu().numpy())
                stats[name]["entropy"].add((-(p * logp).sum(-1) / math.log(ROW_KEYS)).cpu().numpy())
                stats[name]["jac_fro"].add(fro.cpu().numpy())
                vanished[name] += int((largest < VANISHED_JACOBIAN).sum())
        cells.append(
            {
                "d_k": d,
                "rows": params.rows,
                "score_mean": score.mean,
                "score_var": score.variance,
                **{
                    name: {k: {"mean": m.mean, "var": m.variance} for k, m in stats[name].items()}
                    | {"vanished": vanished[name]}
                    for name in stats
                },
            }
        )
    return cells


def run(params, seed, device, progress):
    """Recompute every worked example and measure the random rows; plain numbers out."""
    return {
        "money_bank": money_bank(),
        "variance_arithmetic": variance_arithmetic(),
        "models": model_sizes(),
        "rows": attention_rows(params, seed, device, progress),
    }
