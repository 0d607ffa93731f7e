"""Variance family: how Var(q·k) grows with d_k and what dividing by √d_k does to it."""

from reportgen.experiments.family import Experiment
from reportgen.experiments.sources import Source
from reportgen.experiments.variance.params import PARAMS

# Sub-headings of the section, shared by its tables and figures.
PART_SWEEP = "Variance, shape and unit vectors across d_k"
PART_000 = "The tutorial's tables, recomputed"
PART_002 = "The Day 74 notes' experiment: 1 000 dot products per dimension"
PART_INIT = "The premise: unit-variance q and k at initialization"
PART_DEMOS = "The small demonstrations"

EXPERIMENT = Experiment(
    name="variance",
    title="Dot-product variance and the √d_k scale",
    summary="Var(q·k) and Var(q·k/√d_k) against d_k, their distribution's shape, "
    "unit vectors, the initialization premise and the documents' variance tables.",
    covers=tuple(
        Source(doc, section)
        for doc, section in (
            ("000", "The Problem: Variance Explosion"),
            ("000", "Empirical Verification"),
            ("000", "Standard Deviation"),
            ("000", "Applying the Scale Factor"),
            ("000", "Why √d_k Specifically?"),
            ("000", "Concentration of Measure"),
            ("000", "Standard PyTorch Implementation"),
            ("001", "Variance Analysis"),
            ("001", "Why √d_k Works"),
            ("001", "Why This Matters"),
            ("002", "Experimental Evidence: Dimension vs Variance"),
            ("003", "Optional check in code"),
            ("004", "1. The Variance of High-Dimensional Dot Products"),
            ("003", "1. The formula"),
            ("003", "2. Why scaling is needed"),
            ("004", "3. Stabilization via Scaling"),
            ("002", "Step 1: Single Row Analysis - Concrete Example"),
            ("001", "Mean of Dot Product"),
            ("001", "When Scaling Matters Most"),
        )
    ),
    params=PARAMS,
    claim_tables=("variance-laws", "variance-verify", "variance-verify-arithmetic", "variance-std", "variance-factors",
                  "variance-ranges", "variance-init-checks", "variance-demos"),
    own={PART_000: ("000",), PART_002: ("002",), PART_DEMOS: ("000", "003"), "variance-init-checks": ("000", "004"),
         **dict.fromkeys(("variance-verify", "variance-verify-arithmetic", "variance-std", "variance-factors"), ("000",)),
         "variance-ranges": ("002",), "variance-demos": ("000", "003")},
    package=__name__,
    intro=(
        "For q and k with independent components of mean 0 and variance 1, every term "
        "$q_i k_i$ has variance 1, so the dot product's variance is the number of terms, $d_k$. "
        "Each term also has excess kurtosis 6, so the sum's excess kurtosis is $6/d_k$: "
        "$q\\cdot k$ is only approximately normal, and the confidence intervals below use "
        "that kurtosis instead of assuming normality."
    ),
    formulas=(
        r"\mathrm{Var}(q\cdot k)=\sum_{i=1}^{d_k}\mathrm{Var}(q_i k_i)=d_k,\qquad "
        r"\mathrm{Var}\left(\frac{q\cdot k}{\sqrt{d_k}}\right)=1",
        r"\kappa(q\cdot k)=\frac{6}{d_k}\quad\text{(excess kurtosis)}",
        r"\mathrm{Var}(u\cdot v)=\frac{1}{d}\quad\text{for random unit vectors } u, v",
    ),
)
