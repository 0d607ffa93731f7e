"""Parameters of the variance family per profile, and the documents' inputs it recomputes."""

from dataclasses import dataclass

# 000 "Empirical Verification": its code's seed, sample count and dimensions (its printed
# outputs are claims, in reportgen/claims/000.toml).
DOC_VERIFY_SEED = 42
DOC_VERIFY_SAMPLES = 10_000
DOC_VERIFY_DIMS = (16, 64, 256, 512, 1024)
# 002 "Experimental Evidence": 1,000 dot products per dimension, for d = 3, 100, 1000.
DOC_RANGE_DIMS = (3, 100, 1000)
DOC_RANGE_PAIRS = 1000
# The small demonstrations: name, shape (B, T, d_k) of 000's PyTorch demo and 003's check.
DOC_DEMOS = (
    ("000 demo: Q, K of 1×10×512", (1, 10, 512)),
    ("003 check: B, T, d_k = 2, 4, 64", (2, 4, 64)),
)
# Weight inits for q = W_q x: label, component variance and Var(q·k/√d_k) in closed form.
# The closed forms as functions of (d_model, d_k): Var(q_i) = d_model·Var(W_ij) for x ~ N(0, I).
INITS = {
    # nn.Linear's default: kaiming_uniform_(a=√5) is U(±1/√fan_in), Var(W) = 1/(3 d_model).
    "kaiming_uniform": ("nn.Linear default (kaiming_uniform, a=√5)", lambda dm, dk: 1 / 3),
    # nn.MultiheadAttention: xavier_uniform_ on the fused (3E, E) in_proj, Var(W) = 2/(E + 3E).
    "xavier_mha": ("xavier_uniform on the fused in_proj of nn.MultiheadAttention", lambda dm, dk: 1 / 2),
    # xavier_uniform_ on a separate nn.Linear(d_model, d_k): Var(W) = 2/(d_model + d_k).
    "xavier_linear": ("xavier_uniform on a separate nn.Linear(d_model, d_k)", lambda dm, dk: 2 * dm / (dm + dk)),
    "normal": ("N(0, 1/d_model)", lambda dm, dk: 1.0),
}


@dataclass(frozen=True)
class VarianceParams:
    dims: tuple  # d_k of the sweep
    samples: int  # (q, k) pairs per d_k in the sweep
    batches: int  # independent batches per d_k, for the kurtosis interval
    range_repeats: int  # repeats of 002's 1,000-pair experiment (≥ 199 for a 99% range)
    init_pairs: tuple  # (d_model, d_k) for the initialization premise
    init_draws: int  # weight draws per init and pair
    init_tokens: int  # input vectors x per draw
    demo_repeats: int  # repeats of each small demonstration


POW2 = tuple(2**i for i in range(13))  # 1 … 4096
# (d_model, d_k): a single head, BERT-base/GPT-2 small heads, BERT-large, GPT-3-like heads.
# The same in every profile, so every profile checks the same claims.
INIT_PAIRS = ((64, 64), (512, 64), (768, 64), (1024, 128))
PARAMS = {
    # range_repeats ≥ 199: the central 99% of max|q·k| over repeats needs n + 1 ≥ 200 values
    # (stats.quantile_range); 60 and 100 held 96% and 97% of new runs.
    # 002's ranges are judged one-sided at 1% (the lowest 1% of repeats): at d = 3, ±6 is the
    # largest |q·k| of 0.41% of runs, so 2 000 repeats put it below their 1% quantile in nearly
    # every run of the standard profile (400 in quick: a boundary).
    "quick": VarianceParams(POW2, 4_000, 10, 400, INIT_PAIRS, 4, 512, 400),
    "standard": VarianceParams(POW2, 20_000, 20, 2000, INIT_PAIRS, 6, 1024, 2000),
    "full": VarianceParams(tuple(2**i for i in range(15)), 1_000_000, 50, 2000, INIT_PAIRS, 32, 8192, 20000),
}
