"""Language-model family, the sweep: its results indexed by configuration, variant and rate.

Definitions, once:

- the validation loss is bits per byte on the fixed held-out windows; "final" is its last
  point, "tuned rate" the rate with the lowest mean final loss over seeds;
- a run diverged on absolute terms (evidence.diverged): its held-out loss went non-finite, ended
  above its initial loss or above the unigram table, or spiked after warm-up; the detail of the
  divergence measures gives the shares at each cut of evidence.SPIKE_CUTS, the definition's
  sensitivity;
- a comparison decides only under evidence.py's rule: the learning gate, a tuned rate inside the
  grid, a loser that was not still improving, enough paired seeds;
- learning-rate sensitivity is Wortsman et al.'s (2023): the mean over the rates of
  min(final loss, initial loss) minus the best final loss over the rates;
- a head has collapsed when its mean attention entropy is under COLLAPSED_ENTROPY of uniform's
  (Zhai et al. 2023); a row is saturated when its largest weight exceeds SATURATED_ROW.

Configurations are named by role, so a claim reads the same in every profile: `sweep` is
"width" (d_k varied at fixed width: the main width, several head counts) or "heads" (d_k
varied at the main head count, several widths); `at` is "largest", "smallest" or "main".
"""

import math

import numpy as np

from reportgen.experiments import evidence
from reportgen.experiments.lm.baselines import gate_reason
from reportgen.experiments.lm.params import COLLAPSED_ENTROPY
from reportgen.experiments.measure import MeasureUnavailable
from reportgen.experiments.ratesweep import RateSweep
from reportgen.experiments.stats import LEVEL, level_z, student_t

INF = math.inf
SLACK_BITS = 0.05  # steps-to-target: the target is the worse tuned final loss plus this


def lr_text(lr):
    """A rate of the language-model grid (three a decade: 0.0022, 0.0046, …) as the report prints it."""
    return "none" if lr is None else f"{lr:.2g}"


# --- per model ---------------------------------------------------------------------------------


def final(m):
    v = m["val"][-1]
    return INF if v is None else v


def initial(m):
    return m["val"][0]


def diverged(m, ceiling=INF, share=evidence.SPIKE_SHARE):
    """The held-out loss went non-finite, ended above its start or `ceiling` (the unigram table), or spiked.

    Absolute terms: a variant that learns better is never penalised for it (the former rule, "ended a
    bit above its own variant's best", called the better learner's weak rates diverged).
    """
    return evidence.diverged(m["val"], ceiling, share)


def capped(m):
    """Wortsman et al.'s capped loss: min(final, initial); a non-finite run counts as its start."""
    return min(final(m), initial(m))


def steps_to(m, target, steps):
    """First step the validation loss reaches `target`, interpolated between evaluations; None if never."""
    vals = m["val"]
    for i in range(1, len(vals)):
        a, b = vals[i - 1], vals[i]
        if b is None or a is None:
            return None
        if b <= target:
            frac = 1.0 if a == b else min(1.0, max(0.0, (a - target) / (a - b)))
            return steps[i - 1] + frac * (steps[i] - steps[i - 1])
    return None


def mean_entropy(m, at=-1):
    """Mean attention entropy over heads and layers (share of uniform's) at an evaluation."""
    row = m["entropy"][at]
    row = [x for x in row if x is not None]
    return float(np.mean(row)) if row else math.nan


def collapsed_share(m, at=-1):
    row = [x for x in m["entropy"][at] if x is not None]
    return float(np.mean([x < COLLAPSED_ENTROPY for x in row])) if row else math.nan


def peak_logit(m):
    vals = [x for x in m["max_logit"] if x is not None]
    return max(vals) if vals else INF


def initial_logit(m):
    v = m["max_logit"][0]
    return INF if v is None else v


class NotReached(MeasureUnavailable):
    """No rate takes every seed to the shared target; `gate` says whether the models learned at all."""

    def __init__(self, why, gate):
        super().__init__(why)
        self.gate = gate


# --- the sweep ---------------------------------------------------------------------------------


class Sweep(RateSweep):
    """The language-model results indexed by configuration, variant and rate."""

    def __init__(self, results):
        steps = results["eval_steps"]
        super().__init__(results["lrs"], results["model"]["seeds"], float(steps[-1]))
        self.results = results
        self.steps = steps
        self.configs = {(c["width"], c["heads"], c["d_k"]): c for c in results["configs"]}
        w, h = results["main"]["width"], results["main"]["heads"]
        self.main = (w, h, results["main"].get("d_k", w // h))
        self.ceiling = results.get("baselines", {}).get("unigram", INF)  # a model worse than byte frequencies
        for key, c in self.configs.items():
            for m in c["models"]:
                self.add(key, m)

    def diverged(self, m, share=evidence.SPIKE_SHARE):
        """Whether run m diverged, on absolute terms (evidence.diverged), the unigram table the ceiling."""
        return diverged(m, self.ceiling, share)

    def failed(self, m):
        """Diverged (absolute terms)."""
        return self.diverged(m)

    def reached(self, m, target=None):
        return steps_to(m, target, self.steps)

    def dk(self, key):
        return self.configs[key]["d_k"]

    def where(self, sweep, at):
        """(configuration, its name) of a role: `sweep` 'width', 'heads' or 'qk'; `at` 'largest', 'smallest', 'main'."""
        key = self.config(sweep, at)
        return key, name(self, key)

    def gate(self, *keys):
        """Why the language model at these configurations decides nothing ('' when it learned):
        the scaled variant at its tuned rate must beat the bigram table (baselines.GATE_BITS)."""
        counts = self.results.get("baselines")
        if counts is None:
            return "this run has no count baselines to tell a model that learned from one that did not"
        for key in keys:
            if self.has(key, "scaled"):
                reason = gate_reason(self.test_bits(key, "scaled"), counts, f"the scaled model at {name(self, key)}")
                if reason:
                    return reason
        return ""

    def sweep(self, which):
        """Configurations of a d_k sweep, by d_k: 'width' (fixed width, d_k = width/heads), 'heads'
        (fixed head count, d_k = width/heads) or 'qk' (the main width and heads, the q/k width varied)."""
        if which not in ("width", "heads", "qk"):
            raise MeasureUnavailable(f"no sweep '{which}' (width, heads or qk)")
        if which == "qk":
            keys = [k for k in self.configs if k[:2] == self.main[:2]]
        else:
            i = 0 if which == "width" else 1
            keys = [k for k in self.configs if k == self.main or (k[i] == self.main[i] and k[2] == k[0] // k[1])]
        return sorted(keys, key=self.dk)

    def varied(self, which):
        """The sweep's configurations, when it varies d_k at all (else why not)."""
        keys = self.sweep(which)
        if len(keys) < 2:
            raise MeasureUnavailable(f"this profile trains one d_k ({self.dk(keys[0])}) for the {which} sweep: the "
                                     "full profile varies it")
        return keys

    def config(self, sweep="width", at="largest"):
        if at == "main":
            return self.main
        keys = self.sweep(sweep)
        return keys[-1] if at == "largest" else keys[0]

    def has(self, key, variant):
        return (key, variant, self.lrs[0]) in self.cells

    def need(self, key, *variants):
        for v in variants:
            if not self.has(key, v):
                raise MeasureUnavailable(f"{v} is not trained at {name(self, key)} in this profile (the full "
                                         "profile trains it)")

    def final_loss(self, key, variant, lr):
        """Mean final validation loss over seeds; inf when a seed diverged."""
        ms = self.seeds(key, variant, lr)
        return INF if any(map(self.diverged, ms)) else float(np.mean([final(m) for m in ms]))

    def best_loss(self, key, variant):
        return self.final_loss(key, variant, self.tuned(key, variant))

    def test_bits(self, key, variant, lr=None):
        lr = self.tuned(key, variant) if lr is None else lr
        vals = [m["test_bits"] for m in self.seeds(key, variant, lr)]
        return INF if None in vals else float(np.mean(vals))

    def sensitivity(self, key, variant):
        """Wortsman et al. (2023): mean over rates of min(final, initial), minus the best final."""
        means = [float(np.mean([capped(m) for m in self.seeds(key, variant, lr)])) for lr in self.lrs]
        best = min(float(np.mean([final(m) for m in self.seeds(key, variant, lr)])) for lr in self.lrs)
        return float(np.mean(means)) - best

    def target(self, key, variant, reference):
        """The loss both reach in every seed: the worst seed's final loss of the two at their tuned rates, plus
        SLACK_BITS. (The worse of the two seed means plus the slack left a seed of the worse variant above it
        under other run seeds, and the comparison undecidable for the spread of its seeds.)"""
        worst = max(final(m) for v in (variant, reference) for m in self.seeds(key, v, self.tuned(key, v)))
        return worst + SLACK_BITS

    def steps_pair(self, key, variant, reference):
        """Per-seed steps of both to the shared target, each at its fastest rate (chosen on the seed mean)."""
        target = self.target(key, variant, reference)
        (sv, lv), (sr, lr_) = self.fastest(key, variant, target), self.fastest(key, reference, target)
        if sr is None or sv is None:
            raise NotReached(f"no rate takes every seed to {target:.3g} bits/byte at {name(self, key)}", self.gate(key))
        return (target, self.per_seed_steps(key, variant, lv, target), self.per_seed_steps(key, reference, lr_, target),
                lv, lr_)

    def peak_at_top(self, key, variant):
        """Mean over seeds of the peak max |logit| at the grid's largest rate."""
        return float(np.mean([peak_logit(m) for m in self.seeds(key, variant, max(self.lrs))]))

    def edge(self, key, variant):
        """Why the rate grid does not bracket `variant`'s tuned rate ('' when it does)."""
        return evidence.bracket_reason(self.lrs, self.tuned(key, variant), f"{variant} at {name(self, key)}")

    def settled(self, key, variant, reference):
        """Why `variant` cannot be called worse than `reference` yet: still improving at its tuned rate."""
        behind = self.best_loss(key, variant) - self.best_loss(key, reference)
        if not math.isfinite(behind):
            return ""
        curves = [m["val"] for m in self.seeds(key, variant, self.tuned(key, variant))]
        return evidence.settled_reason(curves, behind, f"{variant} at {name(self, key)}")

    def undecided(self, keys, *variants):
        """The first reason these configurations decide nothing: the learning gate, the paired seeds, a
        tuned rate at the grid's edge, then a loser (the first variant) still improving."""
        reasons = [self.gate(*keys), evidence.seeds_reason(self.n_seeds)]
        reasons += [self.edge(k, v) for k in keys for v in variants]
        if len(variants) == 2:
            reasons += [self.settled(k, *variants) for k in keys]
        return evidence.first_reason(*reasons)


def name(s, key):
    return f"width {key[0]}, {key[1]} head{'s' if key[1] > 1 else ''} (d_k = {s.dk(key)})"


# --- per-seed quantities (seeds paired) ------------------------------------------------------------


def divergence_sensitivity(s, key, variant, reference):
    """(label, text): the diverged shares of both at each spike cut of evidence.SPIKE_CUTS, for the detail."""
    def share(v, cut):
        return np.mean(s.per_seed_failed(key, v, lambda m: s.diverged(m, cut)))

    cells = [f"{c:g}: {share(variant, c):.2f} / {share(reference, c):.2f}" for c in evidence.SPIKE_CUTS]
    return (f"diverged share {variant} / {reference} by spike cut (share of the descent)", "; ".join(cells))


def per_seed_test(s, key, variant):
    return [INF if m["test_bits"] is None else m["test_bits"] for m in s.by_seed(key, variant, s.tuned(key, variant))]


def per_seed_sensitivity(s, key, variant):
    out = []
    for i in range(s.n_seeds):
        ms = [s.by_seed(key, variant, lr)[i] for lr in s.lrs]
        out.append(float(np.mean([capped(m) for m in ms])) - min(final(m) for m in ms))
    return out


# --- q·k statistics ----------------------------------------------------------------------------


def qk_std(s, k, variant, at):
    """std(q·k) of a configuration at evaluation `at`: over every rate at step 0 (nothing trained
    yet), at the tuned rate later; the root of the mean variance over heads and seeds (nan if none)."""
    lrs = s.lrs if at == 0 else [s.tuned(k, variant)]
    vals = [np.mean(np.square([x for x in m["qk_std"][at] if x is not None] or [math.nan]))
            for lr in lrs for m in s.seeds(k, variant, lr)]
    return math.sqrt(float(np.nanmean(vals))) if vals else math.nan


def alpha_fit(s, variant, at, level=LEVEL):
    """Slope of log std(q·k) on log d_k over every configuration (tuned rate; `at` an evaluation index),
    with the half-width of its t interval at `level` (None from fewer than three points)."""
    xs, ys = [], []
    for k in s.configs:
        if not s.has(k, variant):
            continue
        std = qk_std(s, k, variant, at)
        if std > 0 and math.isfinite(std):
            xs.append(math.log(s.dk(k)))
            ys.append(math.log(std))
    if len(set(xs)) < 2:
        return None
    x, y = np.array(xs), np.array(ys)
    slope, intercept = np.polyfit(x, y, 1)
    if len(x) > 2:
        resid = y - (slope * x + intercept)
        se = math.sqrt(float(resid @ resid) / (len(x) - 2) / float(((x - x.mean()) ** 2).sum()))
        half = student_t(level_z(level), len(x) - 2) * se
    else:
        half = None
    return float(slope), half, len(x)
