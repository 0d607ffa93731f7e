"""Parameters of the worked family per profile, and the documents' inputs it recomputes.

Only inputs live here: the embeddings, matrices, score vectors, dimensions and
published model sizes the worked examples start from. What the documents print as
results (dot products, softmax percentages, variances, products, d_k) are claims, in
reportgen/claims/NNN.worked.toml.
"""

from dataclasses import dataclass

from reportgen.experiments.thresholds import THRESHOLDS

# 002 Step 1, "Money Bank Grows": one embedding per word and the weight matrices, row by row.
WORDS = ("money", "bank", "grows")
DOC_002_E = ((2, 1, 3), (1, 2, 1), (0, 1, 2))
DOC_002_W = {
    "W_Q": ((1, 0, 1), (0, 1, 0), (1, 1, 1)),
    "W_K": ((1, 1, 0), (0, 1, 1), (1, 0, 1)),
    "W_V": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
}
# Step 2's query and key vectors as stated, one per word: the inputs of Step 3's dot products.
DOC_002_Q = ((2, 1, 3), (1, 2, 1), (0, 1, 2))
DOC_002_K = ((1, 0, 2), (2, 1, 0), (1, 3, 1))
# Step 3's "Final QK^T Matrix": the input of Steps 4 and 5 (and d_k of the example).
DOC_002_QKT = ((8, 5, 8), (3, 4, 8), (4, 1, 5))
DOC_002_D_K = 3
# Step 5's "Scaled Values", rounded as listed: one more set whose variance Step 4 could mean.
DOC_002_STEP5_SCALED = (4.62, 2.89, 4.62, 1.73, 2.31, 4.62, 2.31, 0.58, 2.89)
# "Detailed Softmax Comparison": its 'Original Matrix', its row 1 after scaling as it feeds it
# to softmax, the rounded √3 of Step 4 (the run divides by it too), and the exps and sum of
# row 1 it divides (the route by which it reaches its percentages).
DOC_002_SECOND = ((5, 10, 7), (6, 5, 3), (4, 7, 2))
DOC_002_SECOND_ROW1_SCALED = (2.89, 5.78, 4.05)
DOC_002_ROOT_PRINTED = "1.73"
DOC_002_ROW1_EXPS = (("148.4", "22026.5", "1096.6"), "23271.5")

# 002 "The Simple Solution": the numbers and what it divides them by.
DOC_002_TENS = (10, 20, 30, 40, 50, 60, 70)
DOC_002_TENS_DIVISOR = 10
# 002 "Applying to Our Examples": d, the original variance and the factor 1/√d as it
# multiplies them ("New variance = (0.707)² × 17.33"); the products it prints are claims.
DOC_002_DIMS = ((1, "16.33", "1"), (2, "17.33", "0.707"), (3, "52.33", "0.577"))

# 000 "Large Embedding Dimensions": the published configurations behind each row of its
# model table: (model, ((size, d_model, attention heads), ...)).
#   BERT: Devlin et al. 2019, §3 "Model Architecture": BERT_BASE L=12, H=768, A=12;
#         BERT_LARGE L=24, H=1024, A=16. d_k is not printed there: it is H/A.
#   GPT-2: Radford et al. 2019, Table 2 gives d_model 768, 1024, 1280, 1600; the head counts
#         12, 16, 20, 25 are n_head of the released 124M, 355M, 774M and 1558M hparams.json.
#         d_k is n_embd / n_head.
#   GPT-3: Brown et al. 2020, Table 2.1, GPT-3 175B: d_model 12288, n_heads 96, d_head 128
#         (printed there, and equal to d_model / n_heads).
PUBLISHED_MODELS = (
    ("BERT-base", (("base", 768, 12),)),
    ("BERT-large", (("large", 1024, 16),)),
    ("GPT-2", (("small", 768, 12), ("medium", 1024, 16), ("large", 1280, 20), ("XL", 1600, 25))),
    ("GPT-3", (("175B", 12288, 96),)),
)

# 001 exercise 1: "For d_k = 512, what's the standard deviation of unscaled scores?"
EXERCISE_1_DK = 512
# Random attention rows for the summaries' qualitative rows: d_k of 002's example (3),
# the per-head d_k of 000's model table (64, 128) and of 001 exercise 1 and 000's large
# example (512); 10 keys per query as in 000's figure code (seq_len = 10), the only
# random-score setting a document gives a length for besides 003's T = 4.
ROW_DIMS = (3, 64, 128, 512)
ROW_KEYS = 10
# A softmax Jacobian entry below this counts as vanished (the reading of 'essentially zero'
# in reportgen/experiments/thresholds.py); the run counts such rows.
VANISHED_JACOBIAN = THRESHOLDS["vanished_jacobian"]


@dataclass(frozen=True)
class WorkedParams:
    rows: int  # random attention rows (one query against ROW_KEYS keys) per d_k


PARAMS = {
    "quick": WorkedParams(rows=20_000),
    "standard": WorkedParams(rows=100_000),
    "full": WorkedParams(rows=2_000_000),
}
