"""A learning-rate sweep: models trained per (setting, variant, rate), paired seeds in each.

The training and language-model families both train every variant at every rate of one grid
with the same seeds (within a seed the variants share initialization and data) and compare
variants each at its own rates. This is what the two share: the runs indexed by cell, and the
summaries over the rates and seeds. What differs is the family's: its settings (a d_k, a
configuration), its loss, when a run failed (blew up or spiked; diverged), and how many steps
a run took to its target. A family's Sweep subclasses RateSweep and defines those.
"""

import numpy as np

from reportgen.experiments.paired import Conditions


class RateSweep:
    """Runs indexed by (setting, variant, rate); `failed(m)`, `final_loss` and `reached` are the family's."""

    def __init__(self, lrs, n_seeds, length):
        self.lrs = lrs
        self.n_seeds = n_seeds
        self.length = length  # a run's length in steps: what a seed that never reaches its target counts
        self.cells = {}

    def add(self, key, m):
        self.cells.setdefault((key, m["variant"], m["lr"]), []).append(m)

    # --- the family's definitions ------------------------------------------------------------

    def failed(self, m):
        """Whether run m failed (the family's definition: blew up or spiked, or diverged)."""
        raise NotImplementedError

    def final_loss(self, key, variant, lr):
        """Mean final loss over seeds; inf when a seed failed to give one."""
        raise NotImplementedError

    def reached(self, m, target=None):
        """Steps run m took to `target` (the family's own when None); None if it never got there."""
        raise NotImplementedError

    # --- cells ---------------------------------------------------------------------------------

    def seeds(self, key, variant, lr):
        return self.cells[(key, variant, lr)]

    def runs(self, key, variant):
        return [m for lr in self.lrs for m in self.seeds(key, variant, lr)]

    def by_seed(self, key, variant, lr):
        """The models of one cell ordered by seed: paired across variants and rates."""
        return sorted(self.seeds(key, variant, lr), key=lambda m: m["seed"])

    # --- over the rates ------------------------------------------------------------------------

    def tuned(self, key, variant):
        """The rate with the lowest mean final loss: the variant at its tuned rate."""
        return min(self.lrs, key=lambda lr: self.final_loss(key, variant, lr))

    def failed_count(self, key, variant, failed=None):
        """(runs that failed, runs) over all rates and seeds; `failed` defaults to the family's."""
        runs = self.runs(key, variant)
        return sum(map(failed or self.failed, runs)), len(runs)

    def largest_stable(self, key, variant):
        """The largest rate at which no seed failed; None when there is none."""
        stable = [lr for lr in self.lrs if not any(map(self.failed, self.seeds(key, variant, lr)))]
        return max(stable) if stable else None

    def mean_steps(self, key, variant, lr, target=None):
        """Mean steps to `target` over seeds, or None when a seed never got there."""
        steps = [self.reached(m, target) for m in self.seeds(key, variant, lr)]
        return None if None in steps else float(np.mean(steps))

    def fastest(self, key, variant, target=None):
        """(steps, rate): the fewest mean steps to `target` over the rates where every seed gets there."""
        found = [(steps, lr) for lr in self.lrs
                 if (steps := self.mean_steps(key, variant, lr, target)) is not None]
        return min(found) if found else (None, None)

    # --- per seed (seeds paired) ---------------------------------------------------------------

    def per_seed_largest_stable(self, key, variant):
        """Per seed, the largest rate at which its run did not fail (one grid step under the smallest when none)."""
        step = self.lrs[1] / self.lrs[0] if len(self.lrs) > 1 else 10.0
        out = []
        for i in range(self.n_seeds):
            stable = [lr for lr in self.lrs if not self.failed(self.by_seed(key, variant, lr)[i])]
            out.append(max(stable) if stable else min(self.lrs) / step)
        return out

    def per_seed_failed(self, key, variant, failed=None):
        """Per seed, the share of rates at which its run failed; `failed` defaults to the family's."""
        failed = failed or self.failed
        return [float(np.mean([failed(self.by_seed(key, variant, lr)[i]) for lr in self.lrs]))
                for i in range(self.n_seeds)]

    def failure_growth(self, big, small, variant, reference, margin, failing, labels):
        """'Unstable for large d_k' as two paired conditions: at `big`, `variant` fails at least
        `margin` (a share of rates) more often than `reference`, and more than itself at `small`.
        Returns (Conditions, per-seed shares of variant at big, of reference at big, of variant at small);
        `failing` words the failure, `labels` names (big, small)."""
        fv, fr, fs = (self.per_seed_failed(big, variant), self.per_seed_failed(big, reference),
                      self.per_seed_failed(small, variant))
        c = Conditions()
        c.add(f"{variant} {failing} {margin:.0%} points more than {reference}", [a - b for a, b in zip(fv, fr)], margin)
        c.add(f"more at d_k = {labels[0]} than at d_k = {labels[1]}", [a - b for a, b in zip(fv, fs)], 1e-9)
        return c, fv, fr, fs

    def per_seed_steps(self, key, variant, lr, target=None):
        """Per seed, steps to `target` at `lr`; the run's length where a seed never got there (a lower bound)."""
        return [self.reached(m, target) or self.length for m in self.by_seed(key, variant, lr)]
