"""Language-model family, measures of the attention itself: how its largest logit grows over
training, how far its entropy sits from one-hot and from uniform, and the exponent α of
std(q·k) ∝ d_k^α. Included in measures.py's MEASURES.
"""

import math

import numpy as np

from reportgen.experiments.lm.sweep import (Sweep, alpha_fit, collapsed_share, initial_logit, mean_entropy, name,
                                            peak_logit)
from reportgen.experiments.measure import Measurement, MeasureUnavailable, Measures
from reportgen.experiments.paired import ratio_measurement
from reportgen.experiments.stats import LEVEL

MEASURES = Measures()  # name -> f(results, **args) -> Measurement, each registered below


@MEASURES.register
def logit_growth(results, sweep="qk", at="largest", variant="unscaled", reference="scaled", control="qk_ln"):
    """The instability precursor (Wortsman et al. 2023): `variant`'s largest attention logit over training
    ÷ `reference`'s at equal rates, paired per seed (geometric mean over the rates).

    The detail names the positive control: how far `control` (QK-LayerNorm) grows its largest logit from
    step 0 at the main configuration, against `variant` there; it should not grow.
    """
    s = Sweep(results)
    key, where = s.where(sweep, at)
    s.need(key, variant, reference)
    ratios = [math.exp(float(np.mean([math.log(peak_logit(s.by_seed(key, variant, lr)[i])
                                               / peak_logit(s.by_seed(key, reference, lr)[i])) for lr in s.lrs])))
              for i in range(s.n_seeds)]
    detail = []
    if s.has(s.main, control) and s.has(s.main, variant):
        def growth(v):
            return float(np.exp(np.mean([math.log(peak_logit(m) / initial_logit(m)) for m in s.runs(s.main, v)])))

        detail = [(f"growth from step 0 at {name(s, s.main)}, {control} (positive control)", growth(control), 2),
                  (variant, growth(variant), 2), (reference, growth(reference), 2)]
    return ratio_measurement(ratios, f"peak max |attention logit| over training, {variant} ÷ {reference} at equal "
                             f"rates (geometric mean over the rates), {where}", undecided=s.gate(key),
                             detail=tuple(detail))


@MEASURES.register
def entropy_extremity(results, sweep="width", at="largest", variant="unscaled", when="end"):
    """How far `variant`'s attention is from both extremes: min(H, 1 − H), H the mean entropy share.

    At the tuned rate, at the end of training (or at step 0 with when = "init"); 0 is one-hot
    or uniform attention, 0.5 halfway. The interval is over seeds.
    """
    s = Sweep(results)
    key, where = s.where(sweep, at)
    s.need(key, variant, "scaled")
    at_ = 0 if when == "init" else -1

    def h(v):
        return [mean_entropy(m, at_) for m in s.by_seed(key, v, s.tuned(key, v))]

    hv = h(variant)
    return ratio_measurement([min(x, 1 - x) for x in hv], f"mean attention entropy of {variant} over uniform's, "
                             f"distance to 0 or 1, {'at step 0' if when == 'init' else 'after training'}, tuned "
                             f"rate, {where}", log=False, pairs=False, undecided="" if when == "init" else s.gate(key),
                             detail=((f"entropy share, {variant}", np.mean(hv), 2), ("scaled", np.mean(h("scaled")), 2),
                                     ("collapsed heads", float(np.mean([collapsed_share(m, at_) for m in
                                      s.seeds(key, variant, s.tuned(key, variant))])), 2)))


@MEASURES.register
def logit_alpha(results, variant="scaled", when="end", level=LEVEL):
    """The exponent α in std(q·k) ∝ d_k^α: ½ if q and k stay independent, 1 once they align (μP's case)."""
    s = Sweep(results)
    at = 0 if when == "init" else -1
    fit = alpha_fit(s, variant, at, level)
    if fit is None:
        raise MeasureUnavailable(f"{variant}: fewer than two d_k with finite q·k statistics")
    slope, half, n = fit
    lo, hi = (slope - half, slope + half) if half is not None else (None, None)
    return Measurement(slope, lo, hi, n, method=f"least-squares slope of log std(q·k) on log d_k, "
                       f"{'step 0' if at == 0 else 'after training, tuned rate'}"
                       + (f", {level:.0%} t interval" if half is not None else ""), digits=2)
