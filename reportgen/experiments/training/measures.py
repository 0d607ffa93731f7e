"""Training family, measures: named numbers from the sweep, each variant at its own learning rates.

Every comparison sets variants side by side each at its own rates (its fastest, its most
accurate, its tuned one), never at a single shared rate. A compound statement becomes a
count (of the signs seen, or of the conditions violated); the claims data says which count
confirms it, and with what margins (the measures' arguments).
"""

import math

import numpy as np

from reportgen.experiments.measure import Measurement, MeasureUnavailable, Measures
from reportgen.experiments.paired import count_measurement, ratio_measurement
from reportgen.experiments.stats import level_z, mean_interval
from reportgen.experiments.training.params import REACH
from reportgen.experiments.training.sweep import Sweep, lr_text, range_text, steps_text, sweep

MEASURES = Measures()  # name -> f(results, **args) -> Measurement, each registered below

def _sig(x):
    """A ratio of grid values to 6 significant digits (3e-2 / 3e-3 is 10, not 10.000000000000002)."""
    return float(f"{x:.6g}")


def _slower(s, d, variant, reference, slower):
    """Whether `variant` needs at least `slower`× the steps to 90% of `reference` (never counts as slower)."""
    fast_v, fast_r = s.fastest(d, variant)[0], s.fastest(d, reference)[0]
    return fast_r is not None and (fast_v is None or fast_v >= slower * fast_r)


def _shakier(s, d, variant, reference, margin):
    """Whether `variant`'s share of unstable runs is at least `margin` above `reference`'s."""
    (cv, n), (cr, _) = s.failed_count(d, variant), s.failed_count(d, reference)
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
    top_r, top_v = s.per_seed_largest_stable(d_k, reference), s.per_seed_largest_stable(d_k, variant)
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
                             undecided=s.undecided(d_k, variant, reference),
                             detail=((reference, steps_text(s, d_k, reference)), (variant, steps_text(s, d_k, variant))))


@MEASURES.register
def instability_growth_misses(results, d_k, small_d_k, margin, variant="unscaled", reference="scaled"):
    """Conditions of 'unstable for large d_k' that fail (0, 1 or 2), paired over seeds.

    At d_k, `variant`'s share of unstable runs (over the rates) should be at least `margin`
    above `reference`'s, and above its own share at `small_d_k`.
    """
    s = sweep(results, d_k, small_d_k)
    c, *_ = s.failure_growth(d_k, small_d_k, variant, reference, margin, "is unstable", (d_k, small_d_k))
    return count_measurement(c, s.n_seeds, f"recall, of 2: {variant} at d_k = {d_k} at least {margin:.0%} points "
                             f"more unstable (blow-up or spike) than {reference}, and more than itself at d_k = "
                             f"{small_d_k}; paired over {s.n_seeds} seeds",
                             undecided=s.undecided(d_k, variant, reference, compare=False),
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
        tuned = s.tuned(d_k, v)
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
    lr = s.tuned(d_k, reference)
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
                             undecided=s.undecided(d_k, variant, reference, compare=False),
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
    (bv, n), (br, _) = (s.failed_count(d_k, v, lambda m: m["diverged"]) for v in (variant, reference))
    (uv, _), (ur, _) = s.failed_count(d_k, variant), s.failed_count(d_k, reference)

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
