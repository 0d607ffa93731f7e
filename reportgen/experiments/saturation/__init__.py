"""Saturation family: how score magnitude pushes softmax towards one-hot, and the documents' softmax examples."""

from reportgen.experiments.family import Experiment
from reportgen.experiments.saturation.params import PARAMS
from reportgen.experiments.sources import Source

# Sub-headings of the section, shared by its tables and figures.
PART_BEHAVIOR = "The tutorial's softmax demonstration, rerun"
PART_EXAMPLES = "The worked examples of the tutorial and the Section 5.3 notes, recomputed"
PART_002 = "The Day 74 notes' matrix example"
PART_EXERCISE = "Exercise 2 of the Section 5.3 notes: softmax([x, 0, 0, 0])"
PART_SWEEP = "Largest weight and entropy against d_k and n"
PART_FIGURE = "The tutorial's figure, rerun: seed 42, d_k = 64, ten positions"
PART_STABILITY = "Naive and max-subtracted softmax in low precision"

EXPERIMENT = Experiment(
    name="saturation",
    title="Softmax saturation",
    # The handout's figure: largest weight and entropy against d_k for several n, the chapter's
    # finding at a glance (its first figure is one document's exercise, named by its id).
    key_figure="saturation-sweep",
    summary="Softmax of growing scores: the documents' printed examples recomputed, max weight and "
    "entropy against d_k and n, 000's figure rerun, and naive vs stable softmax in low precision.",
    covers=tuple(
        Source(doc, section)
        for doc, section in (
            ("000", "Softmax Behavior"),
            ("000", "Numerical Example"),
            ("000", "Visualization: The Effect of Scaling"),
            ("001", "Why This Matters"),
            ("001", "Visualizing the Effect"),
            ("001", "Numerical Stability"),
            ("001", "Exercises"),
            ("002", "Step-by-Step Matrix Calculation Example"),
            ("002", "Detailed Softmax Comparison with Matrix Example"),
        )
    ),
    params=PARAMS,
    claim_tables=("saturation-behavior", "saturation-scaled-scores", "saturation-examples", "saturation-readings",
                  "saturation-002", "saturation-peaked", "saturation-figure-reading", "saturation-stability-checks"),
    own={PART_BEHAVIOR: ("000",), PART_EXAMPLES: ("000", "001"), PART_002: ("002",), PART_EXERCISE: ("001",),
         PART_FIGURE: ("000",), "saturation-peaked": ("001",), "saturation-stability-checks": ("001",),
         "saturation-behavior": ("000",), "saturation-figure-reading": ("000",), "saturation-002": ("002",),
         **dict.fromkeys(("saturation-scaled-scores", "saturation-examples", "saturation-readings"), ("000", "001"))},
    package=__name__,
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
