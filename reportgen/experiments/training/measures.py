"""Training family, measures: named numbers from the sweep, each variant at its own learning rates.

Every comparison sets variants side by side each at its own rates (its fastest, its most
accurate, its tuned one), never at a single shared rate. A compound statement becomes a
count (of the signs seen, or of the conditions violated); the claims data says which count
confirms it, and with what margins (the measures' arguments).
"""

import math

import numpy as np

from reportgen.experiments.training.params import REACH
from reportgen.measure import Measurement, MeasureUnavailable, Measures
from reportgen.paired import Conditions, count_measurement, ratio_measurement
from reportgen.stats import Z, mean_interval

MEASURES = Measures()  # name -> f(results, **args) -> Measurement, each registered below

MAIN = ("scaled", "unscaled", "mup", "learned", "qknorm")  # the five variants of the ablation
LATE_FRACTION = 4  # 'late' metrics: the mean over the last quarter of the logged windows


class Sweep:
    """The results indexed by (d_k, variant, lr), with the summaries the measures use."""

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

    def by_seed(self, d, variant, lr):
        """The models of one cell ordered by seed: paired, a seed's variants share weights and batches."""
        return sorted(self.seeds(d, variant, lr), key=lambda m: m["seed"])

    @property
    def n_seeds(self):
        return self.results["seeds"]

    def per_seed_stable(self, d, variant):
        """Per seed, the largest rate with no blow-up or spike (one grid step under the smallest when none)."""
        step = self.lrs[1] / self.lrs[0]
        out = []
        for i in range(self.n_seeds):
            ok = [lr for lr in self.lrs if not self.unstable(self.by_seed(d, variant, lr)[i])]
            out.append(max(ok) if ok else min(self.lrs) / step)
        return out

    def per_seed_unstable(self, d, variant):
        """Per seed, the share of rates at which the run blew up or spiked."""
        return [float(np.mean([self.unstable(self.by_seed(d, variant, lr)[i]) for lr in self.lrs]))
                for i in range(self.n_seeds)]

    def per_seed_steps(self, d, variant, lr):
        """Per seed, steps to 90% at `lr`; the run's length when a seed never got there (a lower bound)."""
        return [m["steps_to_90"] or self.results["steps"] for m in self.by_seed(d, variant, lr)]

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

    def best_lr(self, d, variant):
        """The rate with the lowest mean late loss: the variant at its tuned rate."""
        return min(self.lrs, key=lambda lr: self.final_loss(d, variant, lr))

    def most_accurate(self, d, variant):
        """(mean late accuracy, rate) at the rate where it is highest."""
        return max((self.final_acc(d, variant, lr)[0], lr) for lr in self.lrs)

    def best_accuracy(self, d, variant):
        return self.most_accurate(d, variant)[0]

    def steps(self, d, variant, lr):
        """Mean steps to 90% accuracy over seeds, or None when a seed never got there."""
        steps = [m["steps_to_90"] for m in self.seeds(d, variant, lr)]
        return None if None in steps else float(np.mean(steps))

    def fastest(self, d, variant):
        """(steps, lr): the fewest mean steps to 90% over the rates where every seed got there."""
        found = [(self.steps(d, variant, lr), lr) for lr in self.lrs if self.steps(d, variant, lr) is not None]
        return min(found) if found else (None, None)

    def reached_all(self, d, variant):
        """Whether some rate takes every seed to 90% accuracy."""
        return self.fastest(d, variant)[0] is not None

    @staticmethod
    def unstable(m):
        return m["diverged"] or m["spikes"] > 0

    def unstable_count(self, d, variant):
        """(unstable runs, runs) over all rates and seeds."""
        runs = self.runs(d, variant)
        return sum(map(self.unstable, runs)), len(runs)

    def unstable_fraction(self, d, variant):
        count, n = self.unstable_count(d, variant)
        return count / n

    def diverged_count(self, d, variant):
        """(runs that blew up, runs) over all rates and seeds."""
        runs = self.runs(d, variant)
        return sum(m["diverged"] for m in runs), len(runs)

    def largest_stable_lr(self, d, variant):
        stable = [lr for lr in self.lrs if not any(map(self.unstable, self.seeds(d, variant, lr)))]
        return max(stable) if stable else None

    def working_lrs(self, d, variant):
        """Rates at which every seed reaches 90% without a blow-up or spike."""
        return [
            lr for lr in self.lrs
            if all(m["steps_to_90"] is not None and not self.unstable(m) for m in self.seeds(d, variant, lr))
        ]


def lr_text(lr):
    return "none" if lr is None else f"{lr:.0e}".replace("e-0", "e-")


def range_text(lrs):
    if not lrs:
        return "none"
    return lr_text(lrs[0]) if len(lrs) == 1 else f"{lr_text(lrs[0])} … {lr_text(lrs[-1])} ({len(lrs)})"


def steps_text(s, d, variant):
    steps, lr = s.fastest(d, variant)
    return "never" if steps is None else f"{steps:.0f} steps (lr {lr_text(lr)})"


def sweep(results, *dims):
    """The indexed results; MeasureUnavailable when a d_k a claim names was not trained."""
    s = Sweep(results)
    for d in dims:
        if d not in s.dims:
            raise MeasureUnavailable(f"d_k = {d} is not trained in this profile ({', '.join(map(str, s.dims))})")
    return s


def _sig(x):
    """A ratio of grid values to 6 significant digits (3e-2 / 3e-3 is 10, not 10.000000000000002)."""
    return float(f"{x:.6g}")


def _slower(s, d, variant, reference, slower):
    """Whether `variant` needs at least `slower`× the steps to 90% of `reference` (never counts as slower)."""
    fast_v, fast_r = s.fastest(d, variant)[0], s.fastest(d, reference)[0]
    return fast_r is not None and (fast_v is None or fast_v >= slower * fast_r)


def _shakier(s, d, variant, reference, margin):
    """Whether `variant`'s share of unstable runs is at least `margin` above `reference`'s."""
    (cv, n), (cr, _) = s.unstable_count(d, variant), s.unstable_count(d, reference)
    return (cv - cr) / n >= margin


def _worse_error(s, d, variant, reference, factor, points):
    """Late error of `variant` minus the larger of factor × and points + `reference`'s (≥ 0: worse)."""
    error, base = 1 - s.best_accuracy(d, variant), 1 - s.best_accuracy(d, reference)
    return error - max(factor * base, base + points)


def _unstable_shares(s, variants=("unscaled", "scaled")):
    return tuple(
        (f"unstable runs at d_k = {d}", ", ".join(f"{v} {s.unstable_fraction(d, v):.0%}" for v in variants))
        for d in s.dims
    )


@MEASURES.register
def stable_lr_ratio(results, d_k, variant="unscaled", reference="scaled"):
    """How many times larger `reference`'s largest stable rate is than `variant`'s, paired per seed.

    A rate is stable for a seed when that seed's run neither blew up nor spiked; a seed unstable
    at every rate counts one grid step under the smallest. When `reference` is stable at the
    grid's top for a seed, the grid does not find its limit: undecided.
    """
    s = sweep(results, d_k)
    top_r, top_v = s.per_seed_stable(d_k, reference), s.per_seed_stable(d_k, variant)
    edge = sum(t >= max(s.lrs) for t in top_r)
    undecided = (f"{reference} is stable at the grid's largest rate ({lr_text(max(s.lrs))}) for {edge} of "
                 f"{len(top_r)} seeds: the grid does not reach its limit") if edge else ""
    return ratio_measurement([_sig(a / b) for a, b in zip(top_r, top_v)], f"recall, d_k = {d_k}: largest rate with "
                             f"no blow-up or spike, {reference} over {variant}", digits=2, undecided=undecided,
                             detail=((f"largest stable rate per seed, {reference}", " ".join(map(lr_text, top_r))),
                                     (variant, " ".join(map(lr_text, top_v)))))


@MEASURES.register
def steps_ratio(results, d_k, variant="unscaled", reference="scaled"):
    """Steps to 90% accuracy of `variant` over `reference`'s, each at its own fastest rate, paired per seed.

    The rates are chosen on the seed mean; a seed that never gets there counts the run's length
    (so the ratio is then a lower bound). Unavailable when no rate takes every seed of
    `reference` there.
    """
    s = sweep(results, d_k)
    (fast_v, lv), (fast_r, lr_) = s.fastest(d_k, variant), s.fastest(d_k, reference)
    if fast_r is None:
        raise MeasureUnavailable(f"no rate takes every seed of {reference} to {REACH:.0%} at d_k = {d_k}")
    if lv is None:  # never at any rate: its most accurate rate, counted at the run's length
        lv = s.most_accurate(d_k, variant)[1]
    sv, sr = s.per_seed_steps(d_k, variant, lv), s.per_seed_steps(d_k, reference, lr_)
    method = f"recall, d_k = {d_k}: steps to {REACH:.0%} accuracy, {variant} over {reference}, each at its fastest rate"
    if fast_v is None:
        method += f" (a lower bound: {variant} never got there in {results['steps']} steps)"
    return ratio_measurement([a / b for a, b in zip(sv, sr)], method, digits=2,
                             detail=((reference, steps_text(s, d_k, reference)), (variant, steps_text(s, d_k, variant))))


@MEASURES.register
def instability_growth_misses(results, d_k, small_d_k, margin, variant="unscaled", reference="scaled"):
    """Conditions of 'unstable for large d_k' that fail (0, 1 or 2), paired over seeds.

    At d_k, `variant`'s share of unstable runs (over the rates) should be at least `margin`
    above `reference`'s, and above its own share at `small_d_k`.
    """
    s = sweep(results, d_k, small_d_k)
    uv, ur, us = s.per_seed_unstable(d_k, variant), s.per_seed_unstable(d_k, reference), \
        s.per_seed_unstable(small_d_k, variant)
    c = Conditions()
    c.add(f"{variant} {margin:.0%} points more unstable than {reference}", [a - b for a, b in zip(uv, ur)], margin)
    c.add(f"more at d_k = {d_k} than at d_k = {small_d_k}", [a - b for a, b in zip(uv, us)], 1e-9)
    return count_measurement(c, s.n_seeds, f"recall, of 2: {variant} at d_k = {d_k} at least {margin:.0%} points "
                             f"more unstable (blow-up or spike) than {reference}, and more than itself at d_k = "
                             f"{small_d_k}; paired over {s.n_seeds} seeds",
                             detail=_unstable_shares(s, (variant, reference)) + _logit_growth(s, d_k, variant, reference))


def _logit_growth(s, d_k, variant, reference):
    """The instability precursor (Wortsman et al. 2023): largest |logit| over training at the largest rate."""
    top = max(s.lrs)

    def peak(v):
        return float(np.mean([max(x for x in m["curves"]["max_logit"] if x is not None) for m in s.seeds(d_k, v, top)]))

    return ((f"peak max |logit| at lr {lr_text(top)}, {variant} ÷ {reference}", peak(variant) / peak(reference), 2),)


@MEASURES.register
def init_entropy_extremity(results, d_k, variant="unscaled", reference="scaled"):
    """How far the first step's attention is from both extremes, as a share of ln(positions).

    min(H/ln n, 1 − H/ln n) for the mean attention entropy H over all runs of `variant` on
    their first step: 0 is one-hot or uniform, 0.5 halfway.
    """
    s = sweep(results, d_k)
    pairs = results["task"]["pairs"]
    ln_n = math.log(pairs)
    h_v = float(np.mean([m["initial_entropy"] for m in s.runs(d_k, variant)]))
    h_r = float(np.mean([m["initial_entropy"] for m in s.runs(d_k, reference)]))
    share = h_v / ln_n
    return Measurement(min(share, 1 - share), n=len(s.runs(d_k, variant)),
                       method=f"first-step attention entropy of {variant} over ln {pairs}, distance to 0 or 1",
                       digits=3, detail=((f"mean entropy, {variant}", h_v, 3), (reference, h_r, 3),
                                         (f"ln {pairs}", ln_n, 3)))


@MEASURES.register
def error_excess(results, d_k, factor, points, variant="unscaled", reference="scaled"):
    """Late error rate of `variant` minus max(factor × `reference`'s, `reference`'s + points).

    Error rate: 1 − accuracy over the last quarter of training, mean over seeds, each variant
    at its most accurate rate. At least 0: `variant` errs at least `factor` times as often and
    `points` more.
    """
    s = sweep(results, d_k)
    detail = []
    for label, v in ((f"best late accuracy, {reference}", reference), (variant, variant)):
        tuned = s.best_lr(d_k, v)
        detail += [(label, f"{100 * s.best_accuracy(d_k, v):.1f}% (late loss at its tuned rate "
                           f"{s.final_loss(d_k, v, tuned):.2g})")]
    return Measurement(_worse_error(s, d_k, variant, reference, factor, points), n=results["seeds"],
                       method=f"late error rate of {variant} minus max({factor:g} × {reference}'s, "
                       f"{reference}'s + {points:g})", digits=3, detail=tuple(detail))


@MEASURES.register
def best_accuracy(results, d_k, variant="unscaled"):
    """The best mean late accuracy over the rates (mean over seeds, last quarter of training)."""
    s = sweep(results, d_k)
    acc, lr = s.most_accurate(d_k, variant)
    return Measurement(acc, n=results["seeds"], method=f"{variant}, at its most accurate rate ({lr_text(lr)})",
                       digits=3, detail=((f"every seed past {REACH:.0%} at some rate",
                                          "yes" if s.reached_all(d_k, variant) else "no"),))


@MEASURES.register
def halt_signs(results, d_k, halted_ratio, variant="unscaled", reference="scaled"):
    """Signs of 'updates halted, does not converge' seen (0, 1 or 2).

    W_q moves (‖ΔW_q‖/‖W_q‖, mean over seeds) less than `halted_ratio` × as far as with
    `reference` at `reference`'s tuned rate; no rate takes every seed of `variant` to 90%.
    """
    s = sweep(results, d_k)
    lr = s.best_lr(d_k, reference)
    moved_r, moved_v = (
        float(np.mean([m["w_q_moved"] if m["w_q_moved"] is not None else np.inf for m in s.seeds(d_k, v, lr)]))
        for v in (reference, variant)
    )
    reached = s.reached_all(d_k, variant)
    signs = (moved_v < halted_ratio * moved_r) + (not reached)
    return Measurement(float(signs), n=results["seeds"],
                       method=f"of 2: W_q moves under {halted_ratio:g} × {reference}'s at lr {lr_text(lr)}; "
                       f"no rate takes every seed to {REACH:.0%}", digits=0,
                       detail=((f"‖ΔW_q‖/‖W_q‖ at lr {lr_text(lr)}, {variant}", moved_v, 3),
                               (reference, moved_r, 3),
                               (f"{variant} reaches {REACH:.0%} in every seed at some rate",
                                "yes" if reached else "no")))


@MEASURES.register
def blowup_excess(results, d_k, variant="unscaled", reference="scaled"):
    """`variant`'s share of runs that blew up minus `reference`'s, over the rates, paired per seed."""
    s = sweep(results, d_k)

    def shares(v):
        return [float(np.mean([s.by_seed(d_k, v, lr)[i]["diverged"] for lr in s.lrs])) for i in range(s.n_seeds)]

    bv, br = shares(variant), shares(reference)
    return ratio_measurement([a - b for a, b in zip(bv, br)], f"recall, d_k = {d_k}: share of blow-ups "
                             "(non-finite, or a window mean above the blow-up line), difference", digits=3, log=False,
                             detail=((f"blow-up share, {variant}", np.mean(bv), 2), (reference, np.mean(br), 2))
                             + _logit_growth(s, d_k, variant, reference))


@MEASURES.register
def not_faster_dims(results, variant="scaled", reference="unscaled"):
    """How many trained d_k where `variant` does not reach 90% in fewer steps than `reference`.

    Each at its own fastest rate; never reaching 90% is slowest.
    """
    s = Sweep(results)
    misses = 0
    for d in s.dims:
        fast_v, fast_r = s.fastest(d, variant)[0], s.fastest(d, reference)[0]
        misses += not (fast_v is not None and (fast_r is None or fast_v < fast_r))
    return Measurement(float(misses), n=len(s.dims), method=f"of {len(s.dims)} d_k", digits=0,
                       detail=tuple((f"d_k = {d}", f"{steps_text(s, d, variant)} vs {steps_text(s, d, reference)}")
                                    for d in s.dims))


@MEASURES.register
def unworkable_dims(results, variant="scaled"):
    """How many trained d_k where no rate takes every seed to 90% with no blow-up or spike."""
    s = Sweep(results)
    misses = sum(not s.working_lrs(d, variant) for d in s.dims)
    return Measurement(float(misses), n=len(s.dims), method=f"of {len(s.dims)} d_k", digits=0,
                       detail=tuple((f"working rates at d_k = {d}", range_text(s.working_lrs(d, variant)))
                                    for d in s.dims))


@MEASURES.register
def slow_or_unstable_signs(results, d_k, slower, margin, variant="unscaled", reference="scaled"):
    """Signs of 'slow or unstable' seen (0, 1 or 2).

    At least `slower`× `reference`'s steps to 90% (each at its fastest rate), or a share of
    unstable runs at least `margin` above `reference`'s.
    """
    s = sweep(results, d_k)
    signs = _slower(s, d_k, variant, reference, slower) + _shakier(s, d_k, variant, reference, margin)
    return Measurement(float(signs), n=results["seeds"],
                       method=f"of 2: at least {slower:g}× the steps; at least {margin:.0%} points more unstable",
                       digits=0, detail=((f"steps to {REACH:.0%}, {variant}", steps_text(s, d_k, variant)),
                                         (reference, steps_text(s, d_k, reference)),
                                         (f"unstable runs, {variant}", f"{s.unstable_fraction(d_k, variant):.0%}"),
                                         (reference, f"{s.unstable_fraction(d_k, reference):.0%}")))


@MEASURES.register
def summary_misses(results, d_k, slower, margin, variant="unscaled", reference="scaled"):
    """Halves of 'unstable / slow vs stable / fast' that fail, counted.

    1 if `variant` at d_k is neither slow nor unstable (slow_or_unstable_signs is 0), plus the
    d_k where `reference` has no working rate, plus those where it is not faster than `variant`.
    """
    s = sweep(results, d_k)
    slow_shaky = _slower(s, d_k, variant, reference, slower) or _shakier(s, d_k, variant, reference, margin)
    no_work = unworkable_dims(results, reference).value
    not_faster = not_faster_dims(results, reference, variant).value
    return Measurement(float(not slow_shaky) + no_work + not_faster, n=len(s.dims),
                       method=f"{variant} slow or unstable at d_k = {d_k}; "
                       f"{reference} works and is faster at every d_k",
                       digits=0, detail=((f"{variant} at d_k = {d_k}", "slow or unstable" if slow_shaky else
                                          "neither slow nor unstable"),
                                         (f"d_k where {reference} has no working rate", no_work, 0),
                                         ("d_k where it is not faster", not_faster, 0)))


@MEASURES.register
def worse_signs(results, d_k, factor, points, slower, variant="mup", reference="scaled"):
    """Signs that `variant` trains worse than `reference` (0, 1 or 2).

    A late error rate at least `factor`× and `points` above `reference`'s (each at its most
    accurate rate), or at least `slower`× the steps to 90% (each at its fastest rate).
    Unavailable when the only sign is speed and `variant` is fastest at the largest rate
    tested: a larger rate might close the gap, so the grid does not show its best.
    """
    s = sweep(results, d_k)
    fast_v, fast_lr = s.fastest(d_k, variant)
    fast_r = s.fastest(d_k, reference)[0]
    worse = _worse_error(s, d_k, variant, reference, factor, points) >= 0
    slow = fast_v is None or (fast_r is not None and fast_v >= slower * fast_r)
    detail = ((f"best late accuracy, {variant}", f"{100 * s.best_accuracy(d_k, variant):.1f}%"),
              (reference, f"{100 * s.best_accuracy(d_k, reference):.1f}%"),
              (f"steps to {REACH:.0%}, {variant}", steps_text(s, d_k, variant)),
              (reference, steps_text(s, d_k, reference)))
    if slow and not worse and fast_lr == max(s.lrs):
        raise MeasureUnavailable(f"{variant} is slower only at the largest rate tested ({lr_text(fast_lr)}), "
                                 "so the grid does not show its best; " + "; ".join(f"{a} {b}" for a, b in detail))
    return Measurement(float(worse + slow), n=results["seeds"],
                       method=f"of 2: late error at least {factor:g}× and {points:g} above {reference}'s; "
                       f"at least {slower:g}× the steps", digits=0, detail=detail)


@MEASURES.register
def multiplier_end(results, d_k, variant="learned"):
    """Where a learnable multiplier ends, × √d_k: geometric mean over rates and seeds."""
    s = sweep(results, d_k)
    ends = [m["curves"]["scale"][-1] for m in s.runs(d_k, variant) if m["curves"]["scale"][-1] is not None]
    if not ends:
        raise MeasureUnavailable(f"every {variant} run went non-finite at d_k = {d_k}")
    return Measurement(math.exp(np.mean(np.log(ends))) * math.sqrt(d_k), n=len(ends),
                       method="final multiplier in units of 1/√d_k, geometric mean over rates and seeds", digits=3)


@MEASURES.register
def instability_excess(results, d_k, variant="unscaled", reference="scaled"):
    """`variant`'s share of blow-ups minus `reference`'s, over all rates and seeds; as a view, the
    same difference for unstable runs (a blow-up or a loss spike): 'poor stability' may read either way.
    """
    s = sweep(results, d_k)
    (bv, n), (br, _) = s.diverged_count(d_k, variant), s.diverged_count(d_k, reference)
    (uv, _), (ur, _) = s.unstable_count(d_k, variant), s.unstable_count(d_k, reference)

    def calm(v):
        ok = [lr for lr in s.lrs if not any(m["diverged"] for m in s.seeds(d_k, v, lr))]
        return lr_text(max(ok) if ok else None)

    return Measurement((bv - br) / n, n=n, method="share of blow-ups (non-finite, or a window mean above "
                       "the blow-up line), difference", digits=3,
                       detail=((f"runs that blew up, {variant}", f"{bv} of {n}"), (reference, f"{br} of {n}"),
                               (f"unstable runs (blow-up or spike), {variant}", f"{uv} of {n}"),
                               (reference, f"{ur} of {n}"),
                               (f"largest rate with no blow-up, {variant}", calm(variant)), (reference, calm(reference)),
                               (f"rates where every seed reaches {REACH:.0%} with no blow-up or spike, {variant}",
                                range_text(s.working_lrs(d_k, variant))),
                               (reference, range_text(s.working_lrs(d_k, reference)))),
                       views=(("share of unstable runs (blow-up or spike), difference", (uv - ur) / n),))


@MEASURES.register
def slowdown_growth(results, d_k, small_d_k, variant="unscaled", reference="scaled"):
    """How many times `variant`'s slowdown against `reference` at d_k exceeds that at small_d_k.

    Slowdown: fewest mean steps to 90% of `variant` over `reference`'s, each at its own fastest
    rate (steps_ratio). Unavailable when `variant` never got there at either d_k: the ratio
    is then only a lower bound, and two lower bounds do not compare.
    """
    s = sweep(results, d_k, small_d_k)
    ratios = {d: steps_ratio(results, d, variant, reference) for d in (small_d_k, d_k)}
    for d, m in ratios.items():
        if m.lo is not None or m.value == 0:
            raise MeasureUnavailable(f"at d_k = {d} {variant} or {reference} never reached {REACH:.0%} in "
                                     f"{results['steps']} steps: the slowdown there is not measured")
    return Measurement(ratios[d_k].value / ratios[small_d_k].value, n=results["seeds"],
                       method=f"slowdown of {variant} (steps to {REACH:.0%} ÷ {reference}'s) at d_k = {d_k} "
                       f"÷ the one at d_k = {small_d_k}", digits=2,
                       detail=tuple((f"slowdown at d_k = {d}", m.value, 1) for d, m in ratios.items())
                       + _unstable_shares(s, (variant, reference)))


@MEASURES.register
def init_entropy_share(results, d_k, variant="mup", level=0.99):
    """First-step attention entropy of `variant` as a share of ln(positions): 1 is uniform, 0 one-hot.

    The first step does not depend on the learning rate, so each seed counts once (its runs
    at every rate start alike); the interval is a t-interval over seeds.
    """
    from reportgen.stats import level_z

    s = sweep(results, d_k)
    ln_n = math.log(results["task"]["pairs"])
    per_seed = {}
    for m in s.runs(d_k, variant):
        per_seed.setdefault(m["seed"], []).append(m["initial_entropy"] / ln_n)
    shares = [float(np.mean(v)) for v in per_seed.values()]
    m, lo, hi = mean_interval(shares, level_z(level))
    return Measurement(m, lo, hi, len(shares),
                       f"{level:.0%} t-interval over {len(shares)} seeds of the first-step entropy / ln "
                       f"{results['task']['pairs']}, {variant}", 3,
                       (("initial entropy share, scaled", float(np.mean([x["initial_entropy"] for x in
                                                                        s.runs(d_k, "scaled")])) / ln_n, 3),))
