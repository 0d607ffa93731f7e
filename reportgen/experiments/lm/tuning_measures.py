"""Language-model family, measures of the tuned rate: how far it moves across configurations, and how
much the loss depends on the rate (Wortsman et al. 2023's sensitivity). Included in measures.py's MEASURES.
"""

import math

import numpy as np

from reportgen.experiments.lm.sweep import Sweep, lr_text, name, per_seed_sensitivity
from reportgen.experiments.measure import Measurement, Measures
from reportgen.experiments.paired import ratio_measurement, ratios

MEASURES = Measures()  # name -> f(results, **args) -> Measurement, each registered below


WIDTH_RANGE = 4  # 'without retuning' needs widths at least this far apart (Yang et al. 2022: a 2× range moves
# the tuned rate by about one grid step, the resolution itself)


def _full_widths():
    from reportgen.experiments.lm.params import PARAMS

    full = PARAMS["full"]
    widths = sorted({full.width, *full.fixed_heads_widths})
    return f"{widths[0]} to {widths[-1]}"


@MEASURES.register
def best_lr_shift(results, variant="scaled"):
    """How far `variant`'s tuned rate moves across every configuration trained: log10 range, in decades."""
    s = Sweep(results)
    keys = sorted((k for k in s.configs if s.has(k, variant)), key=lambda k: (k[0], -k[1]))
    tuned = [s.tuned(k, variant) for k in keys]
    span = math.log10(max(tuned) / min(tuned))
    step = math.log10(s.lrs[1] / s.lrs[0])
    widths = [k[0] for k in keys]
    reasons = [s.gate(*keys)]
    if max(widths) < WIDTH_RANGE * min(widths):
        reasons.insert(0, f"the widths trained span {max(widths) / min(widths):g}× ({min(widths)} to {max(widths)}), "
                          f"under the {WIDTH_RANGE}× a tuned-rate shift needs to show beyond one grid step; the full "
                          f"profile (widths {_full_widths()}) decides it")
    undecided = "; and ".join(r for r in reasons if r)
    return Measurement(span, n=len(keys), method=f"log10(largest / smallest tuned rate) over {len(keys)} "
                       f"configurations (grid step {step:.2f} decades)", digits=2, undecided=undecided,
                       detail=tuple((name(s, k), lr_text(t)) for k, t in zip(keys, tuned)))


@MEASURES.register
def lr_sensitivity(results, sweep="width", at="main", variant="unscaled"):
    """Wortsman et al.'s learning-rate sensitivity of one variant at one configuration (bits/byte), over seeds."""
    s = Sweep(results)
    key, where = s.where(sweep, at)
    s.need(key, variant)
    return ratio_measurement(per_seed_sensitivity(s, key, variant), f"mean over {len(s.lrs)} rates of "
                             f"min(final, initial) − best final, {where}", digits=3, log=False, pairs=False,
                             undecided=s.gate(key))


@MEASURES.register
def sensitivity_ratio(results, sweep="width", at="main", variant="unscaled", reference="scaled"):
    """`variant`'s learning-rate sensitivity over `reference`'s, paired per seed."""
    s = Sweep(results)
    key, where = s.where(sweep, at)
    s.need(key, variant, reference)
    a, b = per_seed_sensitivity(s, key, variant), per_seed_sensitivity(s, key, reference)
    return ratio_measurement(ratios(a, b), f"Wortsman LR sensitivity, {variant} over {reference}, "
                             f"{where}", undecided=s.gate(key), detail=((variant, np.mean(a), 3),
                                                                       (reference, np.mean(b), 3)))
