"""Language-model family, measures: named numbers from the sweep (sweep.py) and the task battery.

Every comparison sets variants side by side, each at its own learning rates (its tuned one,
its fastest, its largest stable one), never at one shared rate; sweep.py defines the terms.
The task battery's measures are in battery_measures.py, the tuned rate's in tuning_measures.py,
the attention's own (logits, entropy, α) in attention_measures.py.

Seeds are paired (run.py): within a seed every variant shares its initialization and its data.
Every comparison is therefore a per-seed difference (or log ratio), and its interval is the
Student-t interval over seeds at the report's LEVEL; the judge reads a verdict only where that
interval clears the claim's threshold. A comparison that rests on a model which does not beat
the bigram table by baselines.GATE_BITS carries that reason (`undecided`) and decides nothing.
"""

import functools
import math

import numpy as np

from reportgen.experiments.lm import attention_measures, battery_measures, tuning_measures
from reportgen.experiments.lm.sweep import (
    NotReached,
    Sweep,
    divergence_sensitivity,
    final,
    initial,
    lr_text,
    name,
    per_seed_test,
)
from reportgen.experiments.measure import Measurement, MeasureUnavailable, Measures
from reportgen.experiments.paired import Conditions, count_measurement, ratio_measurement, ratios
from reportgen.experiments.stats import LEVEL

MEASURES = Measures()  # name -> f(results, **args) -> Measurement: the sweep's, registered below, and
MEASURES.include(battery_measures.MEASURES)  # the task battery's
MEASURES.include(tuning_measures.MEASURES)  # the tuned rate's shift and the loss's sensitivity to the rate
MEASURES.include(attention_measures.MEASURES)  # the attention's logits and entropy


def gated(measure):
    """A measure whose steps-to-target comparison is missing because the models did not learn: inconclusive
    on the learning gate (not unverifiable), with both reasons."""
    @functools.wraps(measure)
    def wrapper(*args, **kwargs):
        try:
            return measure(*args, **kwargs)
        except NotReached as exc:
            if not exc.gate:
                raise
            return Measurement(None, method=str(exc), undecided=f"{exc.gate}; {exc}")

    return wrapper


@MEASURES.register
def stable_lr_ratio(results, sweep="width", at="largest", variant="unscaled", reference="scaled"):
    """How many times larger `reference`'s largest non-diverging rate is than `variant`'s, paired per seed.

    A seed at which `variant` diverges at every rate counts one grid step under the smallest rate;
    when `reference` never diverges on the grid, the grid does not find its limit: undecided.
    """
    s = Sweep(results)
    key, where = s.where(sweep, at)
    s.need(key, variant, reference)
    top_r, top_v = s.per_seed_largest_stable(key, reference), s.per_seed_largest_stable(key, variant)
    ratios = [a / b for a, b in zip(top_r, top_v)]
    undecided = s.gate(key)
    if not undecided and max(top_r) >= max(s.lrs):
        undecided = (f"{reference} does not diverge at the grid's largest rate ({lr_text(max(s.lrs))}) for "
                     f"{sum(t >= max(s.lrs) for t in top_r)} of {len(top_r)} seeds: the grid does not reach its limit")
    return ratio_measurement(ratios, f"largest rate with no diverged run (validation loss), {reference} over "
                             f"{variant}, {where}", undecided=undecided,
                             detail=((f"largest stable rate per seed, {reference}", " ".join(map(lr_text, top_r))),
                                     (variant, " ".join(map(lr_text, top_v))),
                                     ("tuned rate ratio", s.tuned(key, reference) / s.tuned(key, variant), 2)))


@MEASURES.register
def safe_lr_ratio(results, sweep="width", at="largest", variant="scaled", reference="unscaled"):
    """`variant`'s largest non-diverging rate over `reference`'s (the scaled side's view)."""
    return stable_lr_ratio(results, sweep, at, variant=reference, reference=variant)


@MEASURES.register
@gated
def steps_ratio(results, sweep="width", at="largest", variant="unscaled", reference="scaled"):
    """Steps to a shared validation target, `variant` over `reference`, each at its fastest rate, paired per seed.

    The target is the worse of the two tuned final losses plus SLACK_BITS, so both reach it.
    """
    s = Sweep(results)
    key, where = s.where(sweep, at)
    s.need(key, variant, reference)
    target, sv, sr, lv, lr_ = s.steps_pair(key, variant, reference)
    return ratio_measurement([a / b for a, b in zip(sv, sr)], f"steps to {target:.3g} bits/byte (validation), "
                             f"{variant} over {reference}, each at its fastest rate, {where}",
                             undecided=s.undecided([key], variant, reference),
                             detail=((f"steps, {variant}", f"{np.mean(sv):.0f} at lr {lr_text(lv)}"),
                                     (reference, f"{np.mean(sr):.0f} at lr {lr_text(lr_)}")))


@MEASURES.register
def instability_growth_misses(results, margin, sweep="width", variant="unscaled", reference="scaled"):
    """Conditions of 'unstable for large d_k' that fail (0, 1 or 2), paired over seeds.

    At the sweep's largest d_k `variant`'s share of diverged runs (over the rates) is at least
    `margin` above `reference`'s, and above its own share at the sweep's smallest d_k.
    """
    s = Sweep(results)
    keys = s.varied(sweep)
    big, small = keys[-1], keys[0]
    s.need(big, variant, reference)
    s.need(small, variant)
    c, dv, dr, ds = s.failure_growth(big, small, variant, reference, margin, "diverges", (s.dk(big), s.dk(small)))
    return count_measurement(c, s.n_seeds, f"of 2: {variant} at d_k = {s.dk(big)} at least {margin:.0%} "
                             f"points more often diverged than {reference}, and more than itself at d_k = {s.dk(small)}"
                             f"; paired over {s.n_seeds} seeds", undecided=s.gate(big, small),
                             detail=((f"diverged share, {variant} at d_k = {s.dk(big)}", np.mean(dv), 2),
                                     (reference, np.mean(dr), 2), (f"{variant} at d_k = {s.dk(small)}", np.mean(ds), 2),
                                     divergence_sensitivity(s, big, variant, reference),
                                     _logit_detail(s, big, variant, reference)))


@MEASURES.register
def divergence_excess(results, sweep="width", at="largest", variant="unscaled", reference="scaled"):
    """`variant`'s share of diverged runs minus `reference`'s, over the rates, paired per seed."""
    s = Sweep(results)
    key, where = s.where(sweep, at)
    s.need(key, variant, reference)
    dv, dr = s.per_seed_failed(key, variant), s.per_seed_failed(key, reference)
    return ratio_measurement([a - b for a, b in zip(dv, dr)], f"share of diverged runs (validation loss), "
                             f"difference, {where}", log=False, undecided=s.gate(key),
                             detail=((f"diverged share, {variant}", np.mean(dv), 2), (reference, np.mean(dr), 2),
                                     divergence_sensitivity(s, key, variant, reference),
                                     _logit_detail(s, key, variant, reference)))


def _logit_detail(s, key, variant, reference):
    """The instability precursor (Wortsman et al. 2023): peak max |logit| at the largest rate, variant ÷ reference."""
    return (f"peak max |logit| at the largest rate, {variant} ÷ {reference}",
            s.peak_at_top(key, variant) / max(s.peak_at_top(key, reference), 1e-30), 2)


@MEASURES.register
def unstable_configs(results, variant="scaled"):
    """Configurations where `variant` diverges at its tuned rate or at any smaller rate."""
    s = Sweep(results)
    keys = [k for k in s.configs if s.has(k, variant)]
    bad = []
    for k in keys:
        tuned = s.tuned(k, variant)
        if any(s.diverged(m) for lr in s.lrs if lr <= tuned for m in s.seeds(k, variant, lr)):
            bad.append(k)
    return Measurement(float(len(bad)), n=len(keys), method=f"of {len(keys)} configurations: a diverged run at or "
                       f"below the tuned rate, any of {s.n_seeds} seeds", digits=0, undecided=s.gate(*keys),
                       detail=tuple((name(s, k), f"tuned {lr_text(s.tuned(k, variant))}, diverged "
                                     f"{s.failed_count(k, variant)[0]} of {s.failed_count(k, variant)[1]}")
                                    for k in sorted(keys, key=s.dk)))


@MEASURES.register
def nonfinite_runs(results, variant="scaled"):
    """Runs of `variant` whose validation loss went non-finite (NaN or inf), over every configuration."""
    s = Sweep(results)
    keys = [k for k in s.configs if s.has(k, variant)]
    runs = [m for k in keys for m in s.runs(k, variant)]
    bad = sum(any(v is None for v in m["val"]) or m["test_bits"] is None for m in runs)
    return Measurement(float(bad), n=len(runs), method="runs with a non-finite loss, all configurations and rates",
                       digits=0, undecided=s.gate(*keys))


@MEASURES.register
def test_excess(results, sweep="width", at="largest", variant="unscaled", reference="scaled", relative=True):
    """Test bits per byte of `variant` minus `reference`'s, each at its tuned rate, paired per seed
    (relative: ÷ reference's)."""
    s = Sweep(results)
    key, where = s.where(sweep, at)
    s.need(key, variant, reference)
    tv, tr = per_seed_test(s, key, variant), per_seed_test(s, key, reference)
    gaps = [(a - b) / b if relative else a - b for a, b in zip(tv, tr)]
    return ratio_measurement(gaps, f"test bits per byte at the tuned rate, {variant} "
                             f"{'relative to' if relative else 'minus'} {reference}, {where}", digits=3, log=False,
                             undecided=s.undecided([key], variant, reference),
                             detail=((f"test bits/byte, {variant}", np.mean(tv), 3), (reference, np.mean(tr), 3),
                                     ("bigram table", s.results["baselines"]["bigram"], 3),
                                     ("tuned rates", f"{lr_text(s.tuned(key, variant))} / "
                                      f"{lr_text(s.tuned(key, reference))}")))


@MEASURES.register
def learning_share(results, sweep="width", at="largest", variant="unscaled", reference="scaled"):
    """`variant`'s drop in validation loss from initialization as a share of `reference`'s (tuned rates), paired."""
    s = Sweep(results)
    key, where = s.where(sweep, at)
    s.need(key, variant, reference)

    def drops(v):
        return [initial(m) - final(m) for m in s.by_seed(key, v, s.tuned(key, v))]

    dv, dr = drops(variant), drops(reference)
    return ratio_measurement(ratios(dv, dr), f"validation loss drop from step 0 at the tuned "
                             f"rate, {variant} over {reference}, {where}", log=False,
                             undecided=s.undecided([key], variant, reference),
                             detail=((f"drop, {variant}", np.mean(dv), 2), (reference, np.mean(dr), 2)))


@MEASURES.register
def not_faster_configs(results, variant="scaled", reference="unscaled", margin=0.0):
    """Configurations where `variant` does not reach the shared target in fewer steps than `reference`
    (at most (1 − margin) × its steps), each a paired interval of the steps ratio over seeds."""
    s = Sweep(results)
    keys = sorted((k for k in s.configs if s.has(k, variant) and s.has(k, reference)), key=s.dk)
    c, detail, unreached = Conditions(), [], []
    for k in keys:
        try:
            _, sv, sr, _, _ = s.steps_pair(k, variant, reference)
        except MeasureUnavailable:  # a comparison that cannot be made is no evidence either way
            unreached.append(name(s, k))
            detail.append((name(s, k), "the target is not reached"))
            continue
        mean = c.add(f"{variant} faster at {name(s, k)}", [a / b for a, b in zip(sv, sr)],
                     (1 - margin) * (1 - 1e-9), log=True, above=False)
        detail.append((name(s, k), f"steps ratio {mean:.2f}"))
    return count_measurement(c, s.n_seeds, f"of {len(keys)} configurations: {variant} not faster than "
                             f"{reference} to the shared target" + (f" by {margin:.0%}" if margin else "")
                             + f", each at its fastest rate, paired over {s.n_seeds} seeds",
                             detail=detail, undecided=s.gate(*keys) or (
                                 f"no rate takes every seed to the shared target at {', '.join(unreached)}"
                                 if unreached else ""))


def _slow_or_unstable(s, key, slower, margin, variant, reference):
    c = Conditions()
    _, sv, sr, _, _ = s.steps_pair(key, variant, reference)
    ratio = c.add(f"at least {slower:g}× the steps", [a / b for a, b in zip(sv, sr)], slower, log=True)
    dv, dr = s.per_seed_failed(key, variant), s.per_seed_failed(key, reference)
    excess = c.add(f"at least {margin:.0%} points more diverged", [a - b for a, b in zip(dv, dr)], margin)
    return c, ratio, excess


@MEASURES.register
@gated
def slow_or_unstable_signs(results, slower, margin, sweep="width", at="largest", variant="unscaled",
                           reference="scaled"):
    """Signs of 'slow or unstable' (0, 1 or 2), paired over seeds: `slower`× the steps; `margin` more diverged."""
    s = Sweep(results)
    key, where = s.where(sweep, at)
    s.need(key, variant, reference)
    c, ratio, excess = _slow_or_unstable(s, key, slower, margin, variant, reference)
    return count_measurement(c, s.n_seeds, f"of 2: at least {slower:g}× the steps to the shared target; at "
                             f"least {margin:.0%} points more diverged runs; {where}", misses=False,
                             undecided=s.undecided([key], variant, reference),
                             detail=(("steps ratio", ratio, 2), ("diverged share, difference", excess, 2)))


@MEASURES.register
@gated
def summary_misses(results, slower, margin, sweep="width", at="largest", variant="unscaled", reference="scaled",
                   faster=0.0):
    """Halves of 'unstable / slow vs stable / fast' that fail: `variant` neither slow nor unstable at the
    configuration named, plus configurations where `reference` is unstable, plus those where it is not faster."""
    s = Sweep(results)
    key, _ = s.where(sweep, at)
    signs = _slow_or_unstable(s, key, slower, margin, variant, reference)[0].signs()
    unstable = unstable_configs(results, reference)
    slow = not_faster_configs(results, reference, variant, faster)
    # 'neither slow nor unstable' is a miss: surely when no sign can hold, possibly when none surely does
    slow_lo, slow_hi = (slow.value, slow.value) if slow.lo is None else (slow.lo, slow.hi)
    point, lo, hi = (float(signs[0] == 0) + unstable.value + slow.value, float(signs[2] == 0) + unstable.value
                     + slow_lo, float(signs[1] == 0) + unstable.value + slow_hi)
    lo, hi = (None, None) if lo == hi else (lo, hi)
    return Measurement(point, lo, hi, s.n_seeds, method=f"{variant} slow or unstable; {reference} stable and "
                       f"faster in every configuration, paired over {s.n_seeds} seeds", digits=0,
                       level=LEVEL if lo is not None else None, undecided=s.gate(*s.configs),
                       detail=((f"{variant} slow or unstable", "yes" if signs[0] else "no"),
                               (f"configurations where {reference} is unstable", unstable.value, 0),
                               ("where it is not faster", slow.value, 0)))


@MEASURES.register
def halt_signs(results, halted_ratio, not_converged, sweep="width", at="largest", variant="unscaled",
               reference="scaled"):
    """Signs of 'updates halted, not converging' (0, 1 or 2), paired over seeds.

    The gradient reaching W_q and W_k (first logged step, mean over layers, at `reference`'s tuned
    rate) under `halted_ratio` × `reference`'s; `variant`'s tuned final loss at least
    `not_converged` bits/byte above `reference`'s.
    """
    s = Sweep(results)
    key, where = s.where(sweep, at)
    s.need(key, variant, reference)
    lr = s.tuned(key, reference)

    def grads(v):
        return [float(np.mean([g for g in m["grad_qk"][0] if g is not None] or [math.nan]))
                for m in s.by_seed(key, v, lr)]

    def finals(v):
        return [final(m) for m in s.by_seed(key, v, s.tuned(key, v))]

    gv, gr = grads(variant), grads(reference)
    c = Conditions()
    c.add(f"gradient under {halted_ratio:g}× {reference}'s", ratios(gv, gr), halted_ratio,
          log=True, above=False)
    gap = c.add(f"tuned loss {not_converged:g} bits/byte above", [a - b for a, b in zip(finals(variant),
                                                                                     finals(reference))],
                not_converged)
    return count_measurement(c, s.n_seeds, f"of 2: ‖∂L/∂(W_q, W_k)‖ under {halted_ratio:g}× {reference}'s at "
                             f"lr {lr_text(lr)} (step {s.steps[1]}); tuned loss {not_converged:g} bits/byte or more "
                             f"above {reference}'s; {where}", misses=False,
                             undecided=s.undecided([key], variant, reference),
                             detail=((f"‖∂L/∂(W_q, W_k)‖, {variant}", np.mean(gv), 3), (reference, np.mean(gr), 3),
                                     ("tuned validation loss gap, bits/byte", gap, 3)))


@MEASURES.register
@gated
def worse_signs(results, relative, slower, sweep="width", at="largest", variant="inv_d", reference="scaled"):
    """Signs that `variant` trains worse (0, 1 or 2), paired: test loss `relative` above; `slower`× the steps."""
    s = Sweep(results)
    key, where = s.where(sweep, at)
    s.need(key, variant, reference)
    tv, tr = per_seed_test(s, key, variant), per_seed_test(s, key, reference)
    c = Conditions()
    excess = c.add(f"test loss {relative:.0%} above", [(a - b) / b for a, b in zip(tv, tr)], relative)
    _, sv, sr, _, _ = s.steps_pair(key, variant, reference)
    ratio = c.add(f"{slower:g}× the steps", [a / b for a, b in zip(sv, sr)], slower, log=True)
    return count_measurement(c, s.n_seeds, f"of 2: test loss at least {relative:.0%} above {reference}'s; at "
                             f"least {slower:g}× the steps; {where}", misses=False,
                             undecided=s.undecided([key], variant, reference),
                             detail=(("test loss, relative excess", excess, 3), ("steps ratio", ratio, 2)))


SCALE_FIELDS = ("largest model's parameters", "training bytes per model", "share of the training split",
                "paired seeds", "models trained", "smallest d_k", "largest d_k", "learning rates", "decades of rates",
                "scaled test bits/byte at the main configuration", "bigram table", "unigram table")


@MEASURES.register
def evidence_scale(results):
    """The scale the language-model evidence rests on, for the Findings to state: the value is the main
    configuration's parameter count; the detail, in SCALE_FIELDS order, the rest (read it as detail1 …)."""
    s = Sweep(results)
    sc, base = results["scale"], results["baselines"]
    main_bits = s.test_bits(s.main, "scaled") if s.has(s.main, "scaled") else math.nan
    numbers = (sc["parameters_max"], sc["bytes_per_model"], sc["bytes_share_of_train"], sc["seeds"], sc["models"],
               sc["d_k_min"], sc["d_k_max"], sc["rates"], sc["rate_decades"], main_bits, base["bigram"],
               base["unigram"])
    digits = (0, 0, 4, 0, 0, 0, 0, 0, 1, 3, 3, 3)
    return Measurement(float(sc["parameters_main"]), method="the language-model evidence: parameters of the main "
                       "configuration's model; bytes, seeds, d_k and rates in the detail", digits=0,
                       detail=tuple((label, float(x), d) for label, x, d in zip(SCALE_FIELDS, numbers, digits)),
                       undecided=s.gate(s.main))


