"""Tables of the training family, from its results alone."""

import math
from dataclasses import replace

import numpy as np

from reportgen import claims
from reportgen.experiments.base import Table
from reportgen.experiments.training import (
    BLOWUP,
    S000_LEARNABLE,
    S000_LOW_LR,
    S000_SUMMARY,
    S000_VALIDATION,
    S000_WHY,
    S001_MATTERS,
    S001_SUMMARY,
    S002_COMPARISON,
    S003_NO_SCALE,
    S003_SUMMARY,
    S004_TABLE,
    S004_VANISH,
    SPIKE_NATS,
    SPIKE_SMOOTHING,
)
from reportgen.stats import Z95, mean_interval

PART_SWEEP = "The learning-rate sweep"
PART_CURVES = "Learning curves, attention entropy and max |logit|"
PART_TEMPERATURE = "Where a learnable multiplier ends up"
PART_VERDICTS = "The documents' training claims"
MAIN = ("scaled", "unscaled", "mup", "learned", "qknorm")  # the five variants of the ablation
REACH = 0.9  # 'learned': 90% accuracy on fresh sequences
MUCH_SMALLER_LR = 10  # 'much smaller learning rates': at least 10× (one decade)
SLOWER = 1.5  # 'slows training': at least 1.5× the steps to 90%
MORE_UNSTABLE = 0.2  # 'unstable': at least 20 points more unstable runs
LATE_FRACTION = 4  # 'late' metrics: the mean over the last quarter of the logged windows
# 'performance degrades significantly': a late error rate at least twice scaled's and at least
# one point higher (accuracy near 100% makes a ratio alone meaningless, a difference alone too).
WORSE_ERROR_FACTOR, WORSE_ERROR_POINTS = 2, 0.01
NO_LEARNING = 0.5  # 'can't learn': never past 50% accuracy (chance is 1/16)
HALTED = 0.1  # 'updates halted': W_q moves less than a tenth as far as with the scale
CLAIM_DK = 256  # the large d_k every profile trains; claims about 'large d_k' are judged there
ONE_HOT = 0.25  # 'near one-hot': mean attention entropy below 25% of ln(PAIRS)


class Sweep:
    """The results indexed by (d_k, variant, lr), with the summaries the verdicts use."""

    def __init__(self, results):
        self.results = results
        self.dims = [run["d_k"] for run in results["runs"]]
        self.lrs = results["lrs"]
        self.labels = {v["name"]: v["label"] for v in results["variants"]}
        self.cells = {}
        for run in results["runs"]:
            for m in run["models"]:
                self.cells.setdefault((run["d_k"], m["variant"], m["lr"]), []).append(m)

    def seeds(self, d, variant, lr):
        return self.cells[(d, variant, lr)]

    def runs(self, d, variant):
        return [m for lr in self.lrs for m in self.seeds(d, variant, lr)]

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
        """Mean late accuracy over seeds, with its 95% interval (a non-finite run counts 0)."""
        accs = [self.late(m, "acc") or 0.0 for m in self.seeds(d, variant, lr)]
        return mean_interval(accs, Z95)

    def best_lr(self, d, variant):
        """The rate with the lowest mean late loss: the variant at its tuned rate."""
        return min(self.lrs, key=lambda lr: self.final_loss(d, variant, lr))

    def best_accuracy(self, d, variant):
        return max(self.final_acc(d, variant, lr)[0] for lr in self.lrs)

    def steps(self, d, variant, lr):
        """Mean steps to 90% accuracy over seeds, or None when a seed never got there."""
        steps = [m["steps_to_90"] for m in self.seeds(d, variant, lr)]
        return None if None in steps else float(np.mean(steps))

    def fastest(self, d, variant):
        """(steps, lr): the fewest mean steps to 90% over the rates where every seed got there."""
        found = [(self.steps(d, variant, lr), lr) for lr in self.lrs if self.steps(d, variant, lr) is not None]
        return min(found) if found else (None, None)

    @staticmethod
    def unstable(m):
        return m["diverged"] or m["spikes"] > 0

    def unstable_fraction(self, d, variant):
        runs = self.runs(d, variant)
        return sum(map(self.unstable, runs)) / len(runs)

    def largest_stable_lr(self, d, variant):
        stable = [lr for lr in self.lrs if not any(map(self.unstable, self.seeds(d, variant, lr)))]
        return max(stable) if stable else None

    def working_lrs(self, d, variant):
        """Rates at which every seed reaches 90% without a blow-up or spike."""
        return [
            lr for lr in self.lrs
            if all(m["steps_to_90"] is not None and not self.unstable(m) for m in self.seeds(d, variant, lr))
        ]


def worse_error(acc, reference):
    """Whether accuracy `acc` is significantly worse than `reference` (see WORSE_ERROR_*)."""
    error, base = 1 - acc, 1 - reference
    return error >= WORSE_ERROR_FACTOR * base and error >= base + WORSE_ERROR_POINTS


def lr_text(lr):
    return "none" if lr is None else f"{lr:.0e}".replace("e-0", "e-")


def range_text(lrs):
    if not lrs:
        return "none"
    return lr_text(lrs[0]) if len(lrs) == 1 else f"{lr_text(lrs[0])} … {lr_text(lrs[-1])} ({len(lrs)})"


def instability_rule(results):
    """The definition of an unstable run, in words."""
    return (
        f"a run is unstable when it blows up (non-finite loss, or a {results['window']}-step window "
        f"mean above {BLOWUP}·ln 16 nats) or has a loss spike (its {SPIKE_SMOOTHING}-step moving "
        f"average rises above twice its running minimum and at least {SPIKE_NATS} nats above it)"
    )


def sweep_table(results):
    s = Sweep(results)
    rows = []
    for d in s.dims:
        for v in MAIN:
            lr = s.best_lr(d, v)
            acc, lo, hi = s.final_acc(d, v, lr)
            lo, hi = max(lo, 0.0), min(hi, 1.0)
            steps, fast_lr = s.fastest(d, v)
            runs = s.runs(d, v)
            rows.append(
                (
                    str(d),
                    s.labels[v],
                    lr_text(lr),
                    f"{s.final_loss(d, v, lr):.2g}",
                    f"{100 * acc:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]",
                    "never" if steps is None else f"{steps:.0f} at {lr_text(fast_lr)}",
                    range_text(s.working_lrs(d, v)),
                    f"{sum(m['diverged'] for m in runs)} / {sum(m['spikes'] > 0 for m in runs)} of {len(runs)}",
                )
            )
    return Table(
        "training-sweep",
        "Each variant at its tuned learning rate, and the range of rates that work",
        f"{len(s.lrs)} Adam learning rates from {lr_text(min(s.lrs))} to {lr_text(max(s.lrs))} × "
        f"{results['seeds']} seeds, {results['steps']} steps of {results['batch']} fresh sequences. "
        "Tuned rate: lowest late loss (mean over seeds and over the last quarter of training). "
        f"Working rates: every seed reaches {REACH:.0%} accuracy with no "
        "blow-up or spike. Last column: runs with a blow-up / with a spike, over all rates and seeds.",
        ("d_k", "scores", "tuned lr", "late loss", "late acc. % (95% CI)", "fewest steps to 90%",
         "working rates", "blow-ups / spiky runs"),
        tuple(rows),
    )


def curves_table(results):
    s = Sweep(results)
    rows = []
    for d in s.dims:
        for v in MAIN:
            lr = s.best_lr(d, v)
            seeds = s.seeds(d, v, lr)

            def mean_of(key, at):
                values = [m["curves"][key][at] for m in seeds if m["curves"][key][at] is not None]
                return float(np.mean(values)) if values else math.nan

            rows.append(
                (
                    str(d), s.labels[v], lr_text(lr),
                    f"{mean_of('entropy', 0):.2f} → {mean_of('entropy', -1):.2g}",
                    f"{mean_of('max_logit', 0):.3g} → {mean_of('max_logit', -1):.3g}",
                    f"{mean_of('loss', 0):.2f} → {mean_of('loss', -1):.2g}",
                )
            )
    return Table(
        "training-curves",
        "001 exercise 3 answered: what training with and without the scale looks like",
        f"Each variant at its tuned rate, mean over seeds, first → last {results['window']}-step window: "
        f"attention entropy (nats; uniform is ln {results['task']['pairs']} = "
        f"{math.log(results['task']['pairs']):.2f}), the largest |score| in the window, and the loss.",
        ("d_k", "scores", "tuned lr", "entropy", "max |score|", "loss"),
        tuple(rows),
    )


def temperature_table(results):
    s = Sweep(results)
    starts = (("learned", "1/√d_k"), ("learned_from_1", "1"), ("learned_from_1/d", "1/d_k"), ("qknorm", "√d_k (cosine g)"))
    rows = []
    for d in s.dims:
        for v, start in starts:
            finals = []
            for lr in s.lrs:
                ends = [m["curves"]["scale"][-1] for m in s.seeds(d, v, lr)]
                ends = [e for e in ends if e is not None]
                # The multiplier in units of 1/√d_k: 1 means the end point is the standard scale.
                finals.append(f"{math.exp(np.mean(np.log(ends))) * math.sqrt(d):.3g}" if ends else "—")
            rows.append((str(d), start, *finals))
    return Table(
        "training-temperature",
        "Where the learnable multiplier ends, in units of 1/√d_k",
        "Final score multiplier c (s = c·q·k, learned as log c with the same Adam rate) times "
        "√d_k, geometric mean over seeds, for each starting point and learning rate; for the "
        "cosine variant, the learned g on cos(q, k). 1 means it ended at the standard 1/√d_k.",
        ("d_k", "starts at", *[lr_text(lr) for lr in s.lrs]),
        tuple(rows),
    )


def _steps_text(s, d, v):
    steps, lr = s.fastest(d, v)
    return "never" if steps is None else f"{steps:.0f} steps (lr {lr_text(lr)})"


def verdict_table(results):
    s = Sweep(results)
    # Claims are judged at fixed widths, so a claim keeps its id whatever the profile measures.
    big = CLAIM_DK if CLAIM_DK in s.dims else max(s.dims)
    small = min(s.dims)
    checks = []

    top_s, top_u = s.largest_stable_lr(big, "scaled"), s.largest_stable_lr(big, "unscaled")
    holds = top_s is not None and (top_u is None or top_u * MUCH_SMALLER_LR <= top_s * (1 + 1e-9))
    checks.append(
        claims.check_threshold(
            f"largest stable learning rate, d_k = {big}", S000_LOW_LR,
            "unscaled needs much smaller rates", f"scaled {lr_text(top_s)}, unscaled {lr_text(top_u)}",
            holds, f"'much smaller': unscaled's largest rate with no unstable seed at least "
            f"{MUCH_SMALLER_LR}× below scaled's; 'unstable' as defined in the caption",
        )
    )
    fast_s, fast_u = s.fastest(big, "scaled")[0], s.fastest(big, "unscaled")[0]
    checks.append(
        claims.check_threshold(
            f"fewest steps to {REACH:.0%} accuracy over the rates, d_k = {big}", S000_LOW_LR,
            "unscaled trains slower", f"scaled {_steps_text(s, big, 'scaled')}; unscaled {_steps_text(s, big, 'unscaled')}",
            fast_s is not None and (fast_u is None or fast_u >= SLOWER * fast_s),
            f"'slower': at least {SLOWER}× the steps (each at its own fastest rate); mean over seeds",
        )
    )
    frac = {(d, v): s.unstable_fraction(d, v) for d in s.dims for v in ("scaled", "unscaled")}
    unstable_text = "; ".join(
        f"d_k = {d}: unscaled {frac[(d, 'unscaled')]:.0%}, scaled {frac[(d, 'scaled')]:.0%}" for d in s.dims
    )
    # 'Becomes unstable for large d_k': more unstable than the scaled control at the large d_k,
    # and more unstable there than itself at the small d_k (the direction, not a size).
    grows = (
        frac[(big, "unscaled")] >= frac[(big, "scaled")] + MORE_UNSTABLE - 1e-9  # shares of whole runs
        and frac[(big, "unscaled")] > frac[(small, "unscaled")]
    )
    rule = (
        f"share of unstable runs over all rates and seeds: unscaled at d_k = {big} at least "
        f"{MORE_UNSTABLE:.0%} points above scaled at d_k = {big}, and above unscaled at d_k = {small}"
    )
    for source, doc, whose in (
        (S000_VALIDATION, "unstable for large d_k", "000's ablations"),
        (S002_COMPARISON, "unscaled: unstable for large d_k", "002's comparison table"),
    ):
        checks.append(claims.check_threshold(f"training instability without the scale, by d_k ({whose})", source,
                                             doc, unstable_text, grows, rule))
    init_u = np.mean([m["initial_entropy"] for m in s.runs(big, "unscaled")])
    init_s = np.mean([m["initial_entropy"] for m in s.runs(big, "scaled")])
    pairs = results["task"]["pairs"]
    checks.append(
        claims.check_threshold(
            f"attention pattern without the scale at initialization, d_k = {big}", S000_VALIDATION,
            "collapses to near-uniform or one-hot",
            f"mean entropy {init_u:.3f} nats unscaled, {init_s:.3f} scaled (uniform: ln {pairs} = {math.log(pairs):.3f})",
            init_u < ONE_HOT * math.log(pairs) or init_u > (1 - ONE_HOT) * math.log(pairs),
            f"below {ONE_HOT:.0%} of ln {pairs} (near one-hot) or above {1 - ONE_HOT:.0%} (near uniform), on "
            "the first step; after training every variant that solves the task is one-hot, as the task needs",
        )
    )
    acc_s, acc_u = s.best_accuracy(big, "scaled"), s.best_accuracy(big, "unscaled")
    loss_s = s.final_loss(big, "scaled", s.best_lr(big, "scaled"))
    loss_u = s.final_loss(big, "unscaled", s.best_lr(big, "unscaled"))
    checks.append(
        claims.check_threshold(
            f"best late accuracy over the rates, d_k = {big}", S000_VALIDATION, "performance degrades significantly",
            f"scaled {100 * acc_s:.1f}% (late loss at its tuned rate {loss_s:.2g}), unscaled {100 * acc_u:.1f}% "
            f"({loss_u:.2g})",
            worse_error(acc_u, acc_s),
            f"a late error rate (1 − accuracy over the last quarter of training) at least {WORSE_ERROR_FACTOR}× "
            f"scaled's and {100 * WORSE_ERROR_POINTS:.0f} point higher; each variant at its most accurate rate, "
            "mean over seeds",
        )
    )
    reached_all = any(
        all(m["steps_to_90"] is not None for m in s.seeds(big, "unscaled", lr)) for lr in s.lrs
    )
    checks.append(
        claims.check_threshold(
            f"can unscaled attention learn the task at all? d_k = {big}", S001_MATTERS,
            "no learning: the model can't adjust attention patterns",
            f"best late accuracy {100 * acc_u:.1f}%; every seed past {REACH:.0%} at some rate: "
            f"{'yes' if reached_all else 'no'}",
            acc_u < NO_LEARNING, f"'no learning': below {NO_LEARNING:.0%} accuracy at every rate (chance 6%)",
        )
    )
    lr = s.best_lr(big, "scaled")
    moved_s, moved_u = (
        np.mean([m["w_q_moved"] if m["w_q_moved"] is not None else np.inf for m in s.seeds(big, v, lr)])
        for v in ("scaled", "unscaled")
    )
    checks.append(
        claims.check_threshold(
            f"updates to W_q and convergence without the scale, d_k = {big}", S004_VANISH,
            "updates halted, model does not converge",
            f"‖ΔW_q‖/‖W_q‖ at lr {lr_text(lr)}: unscaled {moved_u:.3f}, scaled {moved_s:.3f}; "
            f"unscaled reaches {REACH:.0%} in every seed at some rate: {'yes' if reached_all else 'no'}",
            moved_u < HALTED * moved_s or not reached_all,
            f"'halted': W_q moves less than {HALTED} × as far as with the scale at the same rate, "
            f"or no rate takes every seed to {REACH:.0%}",
        )
    )
    checks.append(
        claims.check_threshold(
            f"blow-ups without the scale, d_k = {big}", S004_TABLE, "unscaled: high risk of divergence",
            f"runs that blew up: unscaled {sum(m['diverged'] for m in s.runs(big, 'unscaled'))}, scaled "
            f"{sum(m['diverged'] for m in s.runs(big, 'scaled'))}, of {len(s.runs(big, 'scaled'))} each",
            np.mean([m["diverged"] for m in s.runs(big, "unscaled")])
            >= np.mean([m["diverged"] for m in s.runs(big, "scaled")]) + MORE_UNSTABLE - 1e-9,
            f"'high risk': a share of blow-ups at least {MORE_UNSTABLE:.0%} points above scaled's, over "
            f"all rates and seeds (blow-up: non-finite, or a window mean above {BLOWUP}·ln 16 nats)",
        )
    )
    faster = all(
        s.fastest(d, "scaled")[0] is not None
        and (s.fastest(d, "unscaled")[0] is None or s.fastest(d, "scaled")[0] < s.fastest(d, "unscaled")[0])
        for d in s.dims
    )
    checks.append(
        claims.check_threshold(
            "convergence with the scale, at every d_k", S004_TABLE, "scaled: faster convergence",
            "; ".join(f"d_k = {d}: {_steps_text(s, d, 'scaled')} vs {_steps_text(s, d, 'unscaled')}" for d in s.dims),
            faster, f"fewer steps to {REACH:.0%} than unscaled at every d_k, each at its fastest rate",
        )
    )
    mid = 64 if 64 in s.dims else big
    f_s, f_u = s.fastest(mid, "scaled")[0], s.fastest(mid, "unscaled")[0]
    slow = f_s is not None and (f_u is None or f_u >= SLOWER * f_s)
    shaky = frac.get((mid, "unscaled"), 0) >= frac.get((mid, "scaled"), 0) + MORE_UNSTABLE - 1e-9
    checks.append(
        claims.check_threshold(
            f"slow or unstable training without the scale, d_k = {mid}", S003_NO_SCALE, "slow or unstable",
            f"steps to {REACH:.0%}: {_steps_text(s, mid, 'unscaled')} vs scaled {_steps_text(s, mid, 'scaled')}; "
            f"unstable runs {frac[(mid, 'unscaled')]:.0%} vs {frac[(mid, 'scaled')]:.0%}",
            slow or shaky, f"either at least {SLOWER}× the steps, or at least {MORE_UNSTABLE:.0%} points more unstable runs",
        )
    )
    works_everywhere = all(s.working_lrs(d, "scaled") for d in s.dims)
    works_text = "; ".join(f"d_k = {d}: {range_text(s.working_lrs(d, 'scaled'))}" for d in s.dims)
    for source, doc, whose in (
        (S002_COMPARISON, "scaled: stable for any d_k", "002's comparison table"),
        (S001_SUMMARY, "stable training regardless of dimension", "001's key takeaway"),
        (S000_SUMMARY, "Learning, with scaling: Stable training", "000's summary table"),
    ):
        checks.append(
            claims.check_threshold(
                f"stable training with the scale, at every d_k ({whose})", source, doc, f"working rates: {works_text}",
                works_everywhere, f"at every d_k, some rate takes every seed to {REACH:.0%} with no blow-up or spike",
            )
        )
    checks.append(
        claims.check_threshold(
            "training behavior, unscaled vs scaled (003's summary table)", S003_SUMMARY,
            "unstable / slow vs stable / fast",
            f"unscaled at d_k = {mid}: {'slow or unstable' if slow or shaky else 'neither slow nor unstable'}; "
            f"scaled: {'stable' if works_everywhere else 'not stable'} at every d_k, "
            f"{'faster' if faster else 'not faster'} than unscaled at every d_k",
            (slow or shaky) and works_everywhere and faster,
            "both halves hold: unscaled is slow or unstable (the row for 003 §3 above), and scaled has a "
            f"working rate and reaches {REACH:.0%} in fewer steps than unscaled at every d_k",
        )
    )
    acc_m = s.best_accuracy(big, "mup")
    fast_m, fast_m_lr = s.fastest(big, "mup")
    slower = fast_m is None or (fast_s is not None and fast_m >= SLOWER * fast_s)
    worse = worse_error(acc_m, acc_s) or slower
    quantity = f"dividing by d_k instead (μP), d_k = {big}"
    measured = (
        f"best late accuracy {100 * acc_m:.1f}% vs {100 * acc_s:.1f}%; {_steps_text(s, big, 'mup')} vs "
        f"{_steps_text(s, big, 'scaled')}"
    )
    rule = (
        f"'too small' read as: trains worse than 1/√d_k, a late error rate at least {WORSE_ERROR_FACTOR}× "
        f"scaled's and {100 * WORSE_ERROR_POINTS:.0f} point higher, or at least {SLOWER}× the steps"
    )
    if worse and not worse_error(acc_m, acc_s) and fast_m_lr == max(s.lrs):
        # Slower only at the top of the grid: a larger rate might close the gap.
        checks.append(claims.unverifiable(quantity, S000_WHY, "variance 1/d_k: too small",
                                          f"{measured}; μP is fastest at the largest rate tested, so the "
                                          f"grid does not show its best ({rule})"))
    else:
        checks.append(claims.check_threshold(quantity, S000_WHY, "variance 1/d_k: too small", measured, worse, rule))
    learned = [m["curves"]["scale"][-1] for m in s.runs(big, "learned") if m["curves"]["scale"][-1] is not None]
    end = f"{math.exp(np.mean(np.log(learned))) * math.sqrt(big):.3g} × 1/√d_k" if learned else "non-finite"
    checks.append(
        claims.unverifiable(
            "a learnable temperature initialized to √d_k", S000_LEARNABLE, "τ learned, starts at √d_k",
            f"000 states no outcome to check; measured: τ = √d_k ends at {end} at d_k = {big} "
            "(geometric mean over rates and seeds; see the table above)",
        )
    )
    return Table(
        "training-verdicts",
        "The documents' training claims against the sweep",
        "Every row compares variants each at its own learning rates (never at a single one); "
        "thresholds are in the tolerance column. Unstable: " + instability_rule(results) + ".",
        checks=tuple(checks),
    )


def tables(results):
    """Every table of the training section, in reading order, under its sub-heading."""
    groups = (
        (PART_SWEEP, [sweep_table(results)]),
        (PART_CURVES, [curves_table(results)]),
        (PART_TEMPERATURE, [temperature_table(results)]),
        (PART_VERDICTS, [verdict_table(results)]),
    )
    return [replace(table, part=part) for part, group in groups for table in group]


def figures(results):
    """Every figure of the training section."""
    from reportgen.experiments import training_figures

    return training_figures.figures(results)


