"""Training family, the sweep: the results indexed by (d_k, variant, rate), for measures, tables and figures.

A run is unstable when it blew up or spiked (run.py says when); 'late' metrics are the mean
over the last quarter of training; a run reached the target when its accuracy got to REACH.
"""

import math

import numpy as np

from reportgen.experiments import evidence
from reportgen.experiments.measure import MeasureUnavailable
from reportgen.experiments.ratesweep import RateSweep
from reportgen.experiments.stats import Z, mean_interval
from reportgen.experiments.training.params import REACH

MAIN = ("scaled", "unscaled", "mup", "learned", "qknorm")  # the five variants of the ablation
LATE_FRACTION = 4  # 'late' metrics: the mean over the last quarter of the logged windows


class Sweep(RateSweep):
    """The results indexed by (d_k, variant, lr), with the summaries the measures use."""

    def __init__(self, results):
        super().__init__(results["lrs"], results["seeds"], results["steps"])
        self.results = results
        self.dims = [run["d_k"] for run in results["runs"]]
        self.labels = {v["name"]: v["label"] for v in results["variants"]}
        for run in results["runs"]:
            for m in run["models"]:
                self.add(run["d_k"], m)

    @staticmethod
    def failed(m):
        """Unstable: the run blew up or spiked."""
        return m["diverged"] or m["spikes"] > 0

    def reached(self, m, target=None):
        """Steps to REACH accuracy (run.py logs them), None if never; the target is always REACH."""
        return m["steps_to_90"]

    @staticmethod
    def late(m, key):
        """Mean of a logged curve over the last quarter of training; None if it went non-finite.

        A quarter rather than the last window: unstable runs spike, and one window would let
        a single spike decide a verdict.
        """
        curve = m["curves"][key]
        tail = curve[-max(1, len(curve) // LATE_FRACTION) :]
        return None if None in tail else float(np.mean(tail))

    def final_loss(self, d, variant, lr):
        """Mean late loss over seeds; inf when a seed's loss went non-finite."""
        losses = [self.late(m, "loss") for m in self.seeds(d, variant, lr)]
        return math.inf if None in losses else float(np.mean(losses))

    def final_acc(self, d, variant, lr):
        """Mean late accuracy over seeds, with its interval at stats.LEVEL (a non-finite run counts 0)."""
        accs = [self.late(m, "acc") or 0.0 for m in self.seeds(d, variant, lr)]
        return mean_interval(accs, Z)

    def most_accurate(self, d, variant):
        """(mean late accuracy, rate) at the rate where it is highest."""
        return max((self.final_acc(d, variant, lr)[0], lr) for lr in self.lrs)

    def best_accuracy(self, d, variant):
        return self.most_accurate(d, variant)[0]

    def undecided(self, d, variant, reference, compare=True):
        """The evidence rule (reportgen/experiments/evidence.py) for `variant` against `reference` at d_k = d:
        enough paired seeds; the reference learned (its most accurate rate reaches REACH in the last quarter);
        with `compare`, each variant's tuned rate inside the grid and the loser not still improving."""
        acc = self.best_accuracy(d, reference)
        reasons = [evidence.seeds_reason(self.n_seeds),
                   "" if acc >= REACH else (f"{reference} at d_k = {d} reaches {acc:.0%} accuracy at its best rate, "
                                            f"{REACH - acc:.0%} short of the {REACH:.0%} that says it learned the task")]
        if compare:
            where = f"at d_k = {d}"
            reasons += [evidence.bracket_reason(self.lrs, self.tuned(d, v), f"{v} {where}") for v in (variant, reference)]
            behind = self.final_loss(d, variant, self.tuned(d, variant)) - self.final_loss(d, reference,
                                                                                          self.tuned(d, reference))
            if math.isfinite(behind):
                curves = [m["curves"]["loss"] for m in self.seeds(d, variant, self.tuned(d, variant))]
                reasons.append(evidence.settled_reason(curves, behind, f"{variant} {where}", unit="nats"))
        return evidence.first_reason(*reasons)

    def reached_all(self, d, variant):
        """Whether some rate takes every seed to 90% accuracy."""
        return self.fastest(d, variant)[0] is not None

    def unstable_fraction(self, d, variant):
        count, n = self.failed_count(d, variant)
        return count / n

    def working_lrs(self, d, variant):
        """Rates at which every seed reaches 90% without a blow-up or spike."""
        return [
            lr for lr in self.lrs
            if all(m["steps_to_90"] is not None and not self.failed(m) for m in self.seeds(d, variant, lr))
        ]


def sweep(results, *dims):
    """The indexed results; MeasureUnavailable when a d_k a claim names was not trained."""
    s = Sweep(results)
    for d in dims:
        if d not in s.dims:
            raise MeasureUnavailable(f"d_k = {d} is not trained in this profile ({', '.join(map(str, s.dims))})")
    return s


def lr_text(lr):
    """A rate of the training grid (one significant digit: 1e-3, 3e-3, …) as the report prints it."""
    return "none" if lr is None else f"{lr:.0e}".replace("e-0", "e-")


def range_text(lrs):
    if not lrs:
        return "none"
    return lr_text(lrs[0]) if len(lrs) == 1 else f"{lr_text(lrs[0])} … {lr_text(lrs[-1])} ({len(lrs)})"


def steps_text(s, d, variant):
    steps, lr = s.fastest(d, variant)
    return "never" if steps is None else f"{steps:.0f} steps (lr {lr_text(lr)})"
