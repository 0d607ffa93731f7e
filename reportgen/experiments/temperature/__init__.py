"""Temperature family: softmax(s/T) from argmax to uniform, τ around √d_k, and the alternatives to √d_k."""

from reportgen.experiments.family import Experiment
from reportgen.experiments.sources import Source
from reportgen.experiments.temperature.params import PARAMS

# Sub-headings of the section, shared by its tables and figures.
PART_SWEEP = "softmax(s/T) from T = 0.01 to 1000"
PART_TAU = "Exercise 4 of the Section 5.3 notes: τ = 0.5√d_k, √d_k and 2√d_k"
PART_BALANCED = "Balanced scaling: q and k each times d_k^(−1/4)"
PART_COSINE = "Cosine attention"
PART_SDPA = "Our attention against torch's scaled_dot_product_attention"

EXPERIMENT = Experiment(
    name="temperature",
    title="Temperature and the alternatives to √d_k",
    summary="softmax(s/T) from T = 0.01 to 1000, τ = 0.5√d_k, √d_k, 2√d_k, balanced and cosine "
    "scaling, and our attention against torch's scaled_dot_product_attention.",
    covers=tuple(
        Source(doc, section)
        for doc, section in (
            ("000", "Connection to Temperature"),
            ("000", "Query-Key Balanced Scaling"),
            ("000", "Cosine Similarity"),
            ("000", "Standard PyTorch Implementation"),
            ("001", "Temperature Scaling"),
            ("001", "Exercises"),
            ("004", "2. The Softmax Saturation Problem"),
            ("004", "4. Performance Comparison"),
            ("001", "Query-Dependent Scaling"),
            ("001", "Connection to Modern LLMs"),
            ("001", "Implementation"),
        )
    ),
    params=PARAMS,
    claim_tables=("temperature-claims", "temperature-tau-claims", "temperature-balanced-claims",
                  "temperature-cosine-claims", "temperature-sdpa-claims"),
    own={PART_TAU: ("001",), "temperature-tau-claims": ("001",), "temperature-claims": ("000", "004"), "temperature-balanced-claims": ("000",),
         "temperature-cosine-claims": ("000",), "temperature-sdpa-claims": ("000",)},
    package=__name__,
    intro=(
        "Dividing the scores by $\\sqrt{d_k}$ is a softmax temperature $T=\\sqrt{d_k}$. As $T$ "
        "falls, softmax tends to the argmax (entropy 0); as $T$ grows, to the uniform "
        "distribution (entropy $\\ln n$); in between, the entropy rises with $T$ for every score "
        "vector that is not constant. Here the scores are raw dot products at $d_k = 64$, so "
        "$T = 1$ is unscaled attention and $T = 8$ scaled attention."
    ),
    formulas=(
        r"\frac{\mathrm{d}H}{\mathrm{d}T}=\frac{\mathrm{Var}_{p}(s)}{T^{3}}\ge 0,\qquad "
        r"p=\mathrm{softmax}(s/T)",
        r"\left(\frac{q}{d_k^{1/4}}\right)^{\!\top}\!\left(\frac{k}{d_k^{1/4}}\right)="
        r"\frac{q^{\top}k}{\sqrt{d_k}},\qquad \cos(q,k)=\frac{q^{\top}k}{\|q\|\,\|k\|}\in[-1,1]",
    ),
)
