"""Worked family: the documents' worked examples and exercises, recomputed from their own inputs."""

import math
from dataclasses import dataclass
from fractions import Fraction

from reportgen.experiments.base import Experiment, deferred
from reportgen.sources import Source

S000_LARGE = Source("000", "Large Embedding Dimensions")
S000_IMPORTANT = Source("000", "When is Scaling Particularly Important?")
S000_SUMMARY = Source("000", "Summary")
S001_EXERCISES = Source("001", "Exercises")
S001_MATTERS_MOST = Source("001", "When Scaling Matters Most")
S001_SUMMARY = Source("001", "Summary")
S002_MATRIX = Source("002", "Step-by-Step Matrix Calculation Example")
S002_SOFTMAX = Source("002", "Detailed Softmax Comparison with Matrix Example")
S002_SIMPLE = Source("002", "The Simple Solution: Variance Reduction")
S002_ROW = Source("002", "Step 1: Single Row Analysis - Concrete Example")
S002_APPLY = Source("002", "Step 3: Applying Scaling Property")
S003_SUMMARY = Source("003", "Summary")
S004_TABLE = Source("004", "4. Performance Comparison")

# 002 Step 1, "Money Bank Grows": one embedding per word and the weight matrices, row by row.
WORDS = ("money", "bank", "grows")
DOC_002_E = ((2, 1, 3), (1, 2, 1), (0, 1, 2))
DOC_002_W = {
    "W_Q": ((1, 0, 1), (0, 1, 0), (1, 1, 1)),
    "W_K": ((1, 1, 0), (0, 1, 1), (1, 0, 1)),
    "W_V": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
}
# Step 2: the query and key vectors it states, one per word.
DOC_002_Q = ((2, 1, 3), (1, 2, 1), (0, 1, 2))
DOC_002_K = ((1, 0, 2), (2, 1, 0), (1, 3, 1))
# Step 3: each dot product as written, "[2,1,3] · [1,0,2] = 2×1 + 1×0 + 3×2 = 8":
# query word, key word, the written factor pairs, the written result.
DOC_002_DOTS = (
    ("money", "money", ((2, 1), (1, 0), (3, 2)), 8),
    ("money", "bank", ((2, 2), (1, 1), (3, 0)), 5),
    ("money", "grows", ((2, 1), (1, 3), (3, 1)), 8),
    ("bank", "money", ((1, 1), (2, 0), (1, 2)), 3),
    ("bank", "bank", ((1, 2), (2, 1), (1, 0)), 4),
    ("bank", "grows", ((1, 1), (2, 3), (1, 1)), 8),
    ("grows", "money", ((0, 1), (1, 0), (2, 2)), 4),
    ("grows", "bank", ((0, 2), (1, 1), (2, 0)), 1),
    ("grows", "grows", ((0, 1), (1, 3), (2, 1)), 5),
)
DOC_002_QKT = ((8, 5, 8), (3, 4, 8), (4, 1, 5))  # Step 3's "Final QK^T Matrix"
DOC_002_VAR, DOC_002_VAR_SCALED = "6.89", "2.30"  # Step 4: "Variance ≈" before and after ÷ √3
DOC_002_D_K = 3
# Step 5 lists the scaled values again (rounded as printed) and says of the unscaled ones
# "Extreme Softmax: Some ≈ 0.95, others ≈ 0.01".
DOC_002_STEP5_SCALED = (4.62, 2.89, 4.62, 1.73, 2.31, 4.62, 2.31, 0.58, 2.89)
DOC_002_STEP5_HIGH, DOC_002_STEP5_LOW = "0.95", "0.01"
# "Detailed Softmax Comparison": a second score matrix, its row 1 as printed after scaling,
# the printed exps and sum of row 1 unscaled, and the "Visual Comparison" percentages.
DOC_002_SECOND = ((5, 10, 7), (6, 5, 3), (4, 7, 2))
DOC_002_SECOND_SCALED = (("2.89", "5.78", "4.05"), ("3.47", "2.89", "1.73"), ("2.31", "4.05", "1.16"))
DOC_002_SECOND_ROW1_SCALED = (2.89, 5.78, 4.05)
DOC_002_ROOT_PRINTED = "1.73"  # Step 4: "√3 = 1.73"
DOC_002_ROW1_EXPS = (("148.4", "22026.5", "1096.6"), "23271.5")
DOC_002_PERCENT = (("0.6", "94.7", "4.7"), ("4.5", "81.1", "14.4"))  # unscaled, scaled; money → …

# 002 "The Simple Solution": the numbers, the divisor, and the variances it prints.
DOC_002_TENS = (10, 20, 30, 40, 50, 60, 70)
DOC_002_TENS_DIVISOR = 10
DOC_002_TENS_VAR, DOC_002_TENS_VAR_SCALED = "400", "4"
# 002 "Applying to Our Examples": d, original variance, printed 1/√d, printed new variance.
DOC_002_DIMS = ((1, "16.33", "1", "16.33"), (2, "17.33", "0.707", "8.66"), (3, "52.33", "0.577", "17.44"))
DOC_002_TARGET = "16.33"  # each "≈ 16.33 ✓"

# 000 "Large Embedding Dimensions": model, d_model and d_k as printed, and the published
# configurations each row stands for: (size, d_model, attention heads).
#   BERT: Devlin et al. 2019, §3 "Model Architecture": BERT_BASE L=12, H=768, A=12;
#         BERT_LARGE L=24, H=1024, A=16. d_k is not printed there: it is H/A.
#   GPT-2: Radford et al. 2019, Table 2 gives d_model 768, 1024, 1280, 1600; the head counts
#         12, 16, 20, 25 are n_head of the released 124M, 355M, 774M and 1558M hparams.json.
#         d_k is n_embd / n_head.
#   GPT-3: Brown et al. 2020, Table 2.1, GPT-3 175B: d_model 12288, n_heads 96, d_head 128
#         (printed there, and equal to d_model / n_heads).
DOC_MODELS = (
    ("BERT-base", "768", "64", (("base", 768, 12),)),
    ("BERT-large", "1024", "64", (("large", 1024, 16),)),
    ("GPT-2", "768-1600", "64", (("small", 768, 12), ("medium", 1024, 16), ("large", 1280, 20), ("XL", 1600, 25))),
    ("GPT-3", "12288", "128", (("175B", 12288, 96),)),
)
DOC_STD_RANGE = ("8", "11")  # "standard deviations of 8-11"

# 001 exercise 1: "For d_k = 512, what's the standard deviation of unscaled scores?"
EXERCISE_1_DK = 512
# Random attention rows for the summaries' qualitative rows: d_k of 002's example (3),
# the per-head d_k of 000's model table (64, 128) and of 001 exercise 1 and 000's large
# example (512); 10 keys per query as in 000's figure code (seq_len = 10), the only
# random-score setting a document gives a length for besides 003's T = 4.
ROW_DIMS = (3, 64, 128, 512)
ROW_KEYS = 10
# A softmax Jacobian entry below this counts as vanished: 000 calls 0.000045 "essentially
# zero" and does not call 0.0067 so (the saturation family's reading, kept identical).
VANISHED_JACOBIAN = 1e-3


@dataclass(frozen=True)
class WorkedParams:
    rows: int  # random attention rows (one query against ROW_KEYS keys) per d_k


PARAMS = {
    "quick": WorkedParams(rows=20_000),
    "standard": WorkedParams(rows=100_000),
    "full": WorkedParams(rows=2_000_000),
}


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


def _entropy(p):
    return -sum(x * math.log(x) for x in p if x > 0)


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
    index = {w: i for i, w in enumerate(WORDS)}
    dots = []
    for qw, kw, _, _ in DOC_002_DOTS:
        q, k = DOC_002_Q[index[qw]], DOC_002_K[index[kw]]
        dots.append({"pairs": [[a, b] for a, b in zip(q, k)], "sum": _dot(q, k)})
    step3 = _flat(DOC_002_QKT)
    second = _flat(DOC_002_SECOND)
    candidates = {  # what '≈ 6.89' and '≈ 2.30' could be the variance of
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
        "printed_var_over_d": float(Fraction(DOC_002_VAR) / DOC_002_D_K),  # Var(X/√3) = Var(X)/3
        "step3_softmax": rows,
        "step3_softmax_scaled": rows_scaled,
        "step3_entropy": [_entropy(p) for p in rows],
        "step3_entropy_scaled": [_entropy(p) for p in rows_scaled],
        "second_equal_entries": sum(a == b for a, b in zip(step3, second)),
        "second_scaled": {  # the comparison's Scaled Matrix: the second matrix ÷ √3, or ÷ the printed 1.73
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
    for d, variance, factor, new in DOC_002_DIMS:
        v = Fraction(variance)
        dims.append(
            {
                "d": d,
                "factor": 1 / math.sqrt(d),
                "new_printed_factor": float(Fraction(factor) ** 2 * v),  # (printed 1/√d)² × Var
                "new_exact_factor": float(v / d),  # (1/√d)² = 1/d exactly
                "ratio_to_1d": float(v / base),
                "new_to_target": float(Fraction(new) / Fraction(DOC_002_TARGET)),  # its '≈ 16.33 ✓'

            }
        )
    scaled = [Fraction(x, DOC_002_TENS_DIVISOR) for x in DOC_002_TENS]
    return {"tens": _variances(DOC_002_TENS), "tens_scaled": _variances(scaled), "dims": dims}


def model_sizes():
    """d_model / heads and √d_k for each published configuration behind 000's model table."""
    out = []
    for name, _, _, sizes in DOC_MODELS:
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

    from reportgen.sampling import chunks, generator
    from reportgen.stats import Moments

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


EXPERIMENT = Experiment(
    name="worked",
    title="Worked examples and exercises, recomputed",
    summary="Every worked example and exercise of the documents recomputed from their own printed "
    "inputs, and their summary tables judged on random attention rows measured here.",
    covers=(
        S002_MATRIX,
        S002_SOFTMAX,
        S002_SIMPLE,
        S002_ROW,
        S002_APPLY,
        S000_LARGE,
        S000_IMPORTANT,
        S001_EXERCISES,
        S000_SUMMARY,
        S001_SUMMARY,
        S001_MATTERS_MOST,
        S003_SUMMARY,
        S004_TABLE,
    ),
    params=PARAMS,
    run=run,
    figures=lambda results: [],  # tables only
    tables=deferred("worked_report", "tables"),
    intro=(
        "Each worked example is recomputed from the numbers the document itself prints, in exact "
        "arithmetic, and compared at the precision it prints. Where the document's own numbers "
        "disagree with each other, both computations are shown. The summary tables' qualitative "
        "rows are judged on random attention rows measured here: one query against $n = 10$ keys, "
        "q and k with independent $\\mathcal{N}(0, 1)$ components, at $d_k$ = 3, 64, 128 and 512."
    ),
    formulas=(
        r"\mathrm{Var}_{n}(x)=\frac{1}{n}\sum_{i=1}^{n}(x_i-\bar{x})^2\ \ (\texttt{np.var}),\qquad "
        r"\mathrm{Var}_{n-1}(x)=\frac{1}{n-1}\sum_{i=1}^{n}(x_i-\bar{x})^2",
        r"J=\mathrm{diag}(p)-pp^{\top},\qquad "
        r"\|J\|_F^2=\sum_i p_i^2(1-p_i)^2+\sum_{i\neq j}p_i^2p_j^2",
    ),
)
