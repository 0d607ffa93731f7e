"""Training family: associative recall learned with five score scalings, over learning rates."""

from reportgen.experiments.family import Experiment
from reportgen.experiments.sources import Source
from reportgen.experiments.training.params import PARAMS

# Sub-headings of the section, shared by its tables and figures.
PART_SWEEP = "The learning-rate sweep"
PART_CURVES = "Learning curves, attention entropy and max |logit|"
PART_TEMPERATURE = "Where a learnable multiplier ends up"
PART_VERDICTS = "The documents' training claims"  # worked's tables link here by this name

EXPERIMENT = Experiment(
    name="training",
    title="Training with and without the scale: associative recall",
    summary="One attention layer learns key→value recall with scores × 1/√d_k, × 1, × 1/d_k, a "
    "learnable multiplier and cosine scores, over an Adam learning-rate sweep, several d_k and "
    "seeds, trained as one batched model; learning curves, stability, entropy, max |logit|.",
    covers=tuple(
        Source(doc, section)
        for doc, section in (
            ("000", "Low Learning Rates"),
            ("000", "Empirical Validation"),
            ("000", "Learnable Temperature"),
            ("000", "Summary"),
            ("000", "Why √d_k Specifically?"),
            ("001", "Why This Matters"),
            ("001", "Exercises (3: Scaling ablation)"),
            ("001", "Summary (Key takeaway)"),
            ("002", "Implementation Comparison"),
            ("003", "3. What happens if we don't scale"),
            ("003", "Summary"),
            ("004", "2.1 Gradient Vanishing"),
            ("004", "4. Performance Comparison"),
            ("003", "4. The fix: scale down by √d_k"),
            ("004", "Introduction"),
            ("002", "Architectural Integration"),
            ("002", "Key Takeaways"),
        )
    ),
    params=PARAMS,
    claim_tables=("training-verdicts",),
    package=__name__,
    intro=(
        "Each sequence holds 8 (key, value) pairs drawn from 16 keys and 16 values, then a query "
        "key; the target is the value stored with it, so the query must attend to exactly the "
        "right position — one attention layer solves it, and chance is 1/16. Tokens are one-hot "
        "codes, projected by $W_q, W_k, W_v$ to $d_k$ dimensions with unit-variance rows, so at "
        "initialization unscaled scores have variance about $d_k$, as the documents assume; a "
        "linear readout maps the attention output to the 16 values. Every step draws a fresh "
        "batch, so the training loss before each update is an unbiased estimate of the test loss."
    ),
    formulas=(
        r"s_i=c\,q\cdot k_i,\quad c\in\left\{\tfrac{1}{\sqrt{d_k}},\ 1,\ \tfrac{1}{d_k},\ "
        r"e^{\theta}\ (\text{learned})\right\},\quad\text{or}\quad s_i=g\,\frac{q\cdot k_i}{\|q\|\,\|k_i\|}",
    ),
)
