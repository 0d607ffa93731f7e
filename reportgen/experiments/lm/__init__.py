"""Language-model family: byte-level Transformers on the Python standard library, ten score conventions."""

from reportgen.experiments.family import Experiment
from reportgen.experiments.lm.baselines import GATE_BITS
from reportgen.experiments.lm.params import PARAMS
from reportgen.experiments.sources import Source

# Sub-headings of the section, shared by its tables and figures.
PART_CORPUS = "The corpus and the models"
PART_SWEEP = "The learning-rate sweep, held out"
PART_ATTENTION = "Attention during training: logit growth, entropy, the premise"
PART_BATTERY = "The task battery: where saturation can bite"
PART_VERDICTS = "The documents' training claims, on this evidence"

EXPERIMENT = Experiment(
    name="lm",
    title="Training with and without the scale: a byte-level language model",
    # the handout's figure: one labelled bar per convention reads in print, where the
    # learning-rate sweep's ten lines cannot be told apart
    key_figure="lm-lr-sensitivity",
    summary="Decoder-only pre-LayerNorm Transformers learn the running Python's standard library as "
    "bytes with up to ten score conventions (× 1/√d_k, × 1, × 1/d_k, μP, three learnable temperatures, "
    "QK-LayerNorm, cosine, T5), over an AdamW learning-rate sweep and d_k at fixed width and at "
    "fixed head count, all models of a configuration trained as one batch; held-out bits per "
    "byte, divergence, learning-rate sensitivity, logit growth, entropy, and a task battery.",
    covers=tuple(
        Source(doc, section)
        for doc, section in (
            ("000", "Low Learning Rates"),
            ("000", "Empirical Validation"),
            ("000", "Summary"),
            ("000", "Why √d_k Specifically?"),
            ("000", "Implications for Attention"),
            ("000", "Learnable Temperature"),
            ("001", "Why This Matters"),
            ("001", "Summary (Key takeaway)"),
            ("002", "Implementation Comparison"),
            ("002", "Architectural Integration"),
            ("002", "Key Takeaways"),
            ("003", "3. What happens if we don't scale"),
            ("003", "Summary"),
            ("003", "4. The fix: scale down by √d_k"),
            ("004", "Introduction"),
            ("004", "2.1 Gradient Vanishing"),
            ("004", "4. Performance Comparison"),
        )
    ),
    params=PARAMS,
    claim_tables=("lm-verdicts",),
    package=__name__,
    resumable=True,  # its stacks are kept as they finish (run.train_all): a rerun trains only the rest
    intro=(
        "The corpus is the running Python's own standard library, read from a pinned list of modules "
        "(nothing is downloaded); whole modules go to training, validation or test, and the bytes are "
        "the tokens. Each model is a decoder-only Transformer with pre-LayerNorm blocks (attention, "
        "then a GELU MLP), learned positions and an untied readout. At initialization the queries and "
        "keys have unit-variance components, so $q\\cdot k$ has variance about $d_k$, the documents' "
        "premise. The query/key width per head is a parameter of its own, so d_k grows to hundreds at "
        "a small model width. Every variant × learning rate × seed of a configuration is one model of "
        "one batch; seeds are paired: within a seed every variant and rate starts from the same "
        "weights and sees the same data, so each comparison is a per-seed difference with a t "
        "interval over seeds. AdamW warms up over the first tenth of the steps and decays by a "
        "cosine to a tenth of its peak. Validation bits per byte are measured on fixed held-out "
        "windows at evenly spaced steps, test bits per byte once at the end, beside unigram and "
        "bigram count tables fit on the training split: a model that does not beat the bigram "
        f"table by {GATE_BITS:g} bit per byte decides no training claim. Beside the language "
        "model, one attention layer learns three small tasks whose best attention is one-hot "
        "(recall, induction copy) or uniform (a histogram), with Adam and with plain SGD."
    ),
    formulas=(
        r"s_{ij}=c\,f(q_i)\cdot f(k_j),\quad c\in\left\{\tfrac{1}{\sqrt{d_k}},\ 1,\ \tfrac{1}{d_k},\ "
        r"e^{\theta}\right\},\quad f\in\left\{\mathrm{id},\ \mathrm{LN},\ \tfrac{x}{\|x\|}\right\}",
        r"\text{sensitivity}=\operatorname{mean}_{\eta}\min\big(\ell(\eta),\ell_0\big)-\min_{\eta}\ell(\eta),"
        r"\qquad \operatorname{std}(q\cdot k)\propto d_k^{\alpha}",
    ),
)
