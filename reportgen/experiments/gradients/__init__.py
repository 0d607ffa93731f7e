"""Gradients family: the softmax Jacobian, and gradients at initialization through attention."""

from reportgen.experiments.family import Experiment
from reportgen.experiments.gradients.params import PARAMS
from reportgen.experiments.sources import Source

# Sub-headings of the section, shared by its tables and figures.
PART_DOC = "The tutorial's Jacobian table, recomputed"
PART_FORMULA = "The Jacobian formula, checked three ways"
PART_001 = "The Section 5.3 notes' gradient examples and exercise 5"
PART_NORMS = "Jacobian norms against the logit scale and d_k"
PART_LAYER = "One attention layer at initialization"
PART_DEPTH = "A stack of pre-LayerNorm attention blocks"

EXPERIMENT = Experiment(
    name="gradients",
    title="Gradients through the softmax and through attention",
    summary="The softmax Jacobian (000's table, autograd, finite differences), its norms against "
    "the logit scale and d_k, and gradient norms at initialization through one attention layer "
    "and a stack of pre-LayerNorm blocks, scaled against unscaled.",
    covers=tuple(
        Source(doc, section)
        for doc, section in (
            ("000", "Softmax Jacobian"),
            ("000", "When Softmax Saturates"),
            ("000", "With Proper Scaling"),
            ("000", "Empirical Gradient Analysis"),
            ("000", "The Vanishing Gradient Cascade"),
            ("000", "Deep Networks"),
            ("001", "Why This Matters"),
            ("001", "Gradient Flow"),
            ("001", "Exercises (5: Gradient analysis)"),
            ("003", "3. What happens if we don't scale"),
            ("004", "2.1 Gradient Vanishing"),
            ("004", "4. Performance Comparison (Key Research Insight)"),
        )
    ),
    params=PARAMS,
    claim_tables=("gradients-doc-table", "gradients-formula", "gradients-001-flow", "gradients-norm-checks",
                  "gradients-layer-checks", "gradients-depth-checks"),
    own={PART_DOC: ("000",), PART_001: ("001",), "gradients-doc-table": ("000",), "gradients-001-flow": ("001",)},
    package=__name__,
    intro=(
        "Softmax turns scores $s$ into probabilities $p$; a loss gradient $g$ with respect to $p$ "
        "reaches the scores as $Jg$, with $J$ the softmax Jacobian. $J$ is symmetric and positive "
        "semi-definite, its rows sum to zero, and its size depends only on $p$: it is 0 for a "
        "one-hot $p$, and for uniform $p$ over $n$ keys its spectral norm is $1/n$. Whether "
        "learning stops, though, depends on every path the gradient can take, and the value path "
        "$\\partial L/\\partial V = P^{\\top}\\partial L/\\partial O$ does not pass through $J$."
    ),
    formulas=(
        r"J=\mathrm{diag}(p)-pp^{\top},\qquad \|J\|_F^2=\sum_i p_i^2-2\sum_i p_i^3+\Big(\sum_i p_i^2\Big)^2",
        r"p=\tfrac{1}{n}\mathbf{1}:\quad \|J\|_F^2=\frac{n-1}{n^2},\qquad \|J\|_2=\frac{1}{n}",
    ),
)
