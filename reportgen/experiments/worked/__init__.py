"""Worked family: the documents' worked examples and exercises, recomputed from their own inputs."""

from reportgen.experiments.family import Experiment
from reportgen.experiments.sources import Source
from reportgen.experiments.worked.params import PARAMS

# Sub-headings of the section, shared by its tables (and figures, when it has any).
PART_STEPS = "The Day 74 notes' 'Money Bank Grows' example, Steps 1 to 5"
PART_SECOND = "The Day 74 notes' softmax comparison and its percentages"
PART_VARIANCE = "The Day 74 notes' variance arithmetic"
PART_MODELS = "The tutorial's table of models"
PART_EXERCISES = "The Section 5.3 notes' exercises"
PART_ROWS = "Random attention rows: what the summary tables are judged on"
PART_SUMMARIES = "The summary tables, row by row"

EXPERIMENT = Experiment(
    name="worked",
    title="Worked examples and exercises, recomputed",
    summary="Every worked example and exercise of the documents recomputed from their own printed "
    "inputs, and their summary tables judged on random attention rows measured here.",
    covers=tuple(
        Source(doc, section)
        for doc, section in (
            ("002", "Step-by-Step Matrix Calculation Example"),
            ("002", "Detailed Softmax Comparison with Matrix Example"),
            ("002", "The Simple Solution: Variance Reduction"),
            ("002", "Step 1: Single Row Analysis - Concrete Example"),
            ("002", "Step 3: Applying Scaling Property"),
            ("000", "Large Embedding Dimensions"),
            ("000", "When is Scaling Particularly Important?"),
            ("001", "Exercises"),
            ("000", "Summary"),
            ("001", "Summary"),
            ("001", "When Scaling Matters Most"),
            ("003", "Summary"),
            ("004", "4. Performance Comparison"),
            ("003", "5. Intuition in plain words"),
            ("002", "General Pattern"),
            ("002", "Implementation Comparison"),
            ("002", "Paper References"),
            ("002", "Introduction: The Missing Piece in Self-Attention"),
            ("002", "What is $d_k$? Understanding the Dimension"),
            ("002", "Research Impact and Modern Applications"),
            ("002", "References"),
        )
    ),
    params=PARAMS,
    claim_tables=("worked-002-projections", "worked-002-dots", "worked-002-steps45", "worked-002-percent",
                  "worked-002-tens", "worked-002-dims", "worked-000-models", "worked-000-summary",
                  "worked-001-summary", "worked-001-matters-most", "worked-003-summary", "worked-004-comparison"),
    own={PART_STEPS: ("002",), PART_SECOND: ("002",), PART_VARIANCE: ("002",), PART_MODELS: ("000",),
         PART_EXERCISES: ("001",), PART_SUMMARIES: ("000", "001", "003", "004"),
         **{t: (t.split("-")[1],) for t in ("worked-000-models", "worked-002-projections", "worked-002-dots",
            "worked-002-steps45", "worked-002-percent", "worked-002-tens", "worked-002-dims",
            "worked-000-summary", "worked-001-summary", "worked-001-matters-most", "worked-003-summary",
            "worked-004-comparison")}},
    package=__name__,
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
