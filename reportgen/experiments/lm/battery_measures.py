"""Language-model family, measures of the task battery: one attention layer on three tasks (battery.py).

Each variant at its own best rate, seeds paired; lm/measures.py's MEASURES includes them.
"""

import numpy as np

from reportgen.experiments import evidence
from reportgen.experiments.lm.sweep import INF, lr_text
from reportgen.experiments.measure import MeasureUnavailable, Measures
from reportgen.experiments.paired import ratio_measurement

MEASURES = Measures()  # the battery's measures, name -> f(results, **args) -> Measurement


class Battery:
    def __init__(self, results):
        self.b = results["battery"]

    def task(self, task):
        if task not in self.b["tasks"]:
            raise MeasureUnavailable(f"no battery task '{task}'")
        return self.b["tasks"][task]

    def index(self, task, fraction):
        steps = self.task(task)["checkpoints"]
        i = max(0, min(len(steps) - 1, round(fraction * len(steps)) - 1))
        return i, steps[i]

    def seeds(self, task, scaling, d, optimizer, lr):
        return [m for m in self.task(task)["models"]
                if (m["scaling"], m["d_k"], m["optimizer"], m["lr"]) == (scaling, d, optimizer, lr)]

    def lrs(self, optimizer):
        return self.b["adam_lrs"] if optimizer == "adam" else self.b["sgd_lrs"]

    def dim(self, d):
        """A d_k by value, or by role: "largest" or "smallest" of the battery's."""
        if d in ("largest", "smallest"):
            return max(self.b["dims"]) if d == "largest" else min(self.b["dims"])
        if d not in self.b["dims"]:
            raise MeasureUnavailable(f"the battery trains d_k = {', '.join(map(str, self.b['dims']))}, not {d}")
        return d

    def mean(self, task, scaling, d, optimizer, lr, key, i):
        vals = [m["curves"][key][i] for m in self.seeds(task, scaling, d, optimizer, lr)]
        bad = INF if key == "loss" else 0.0
        return float(np.mean([bad if v is None else v for v in vals]))

    def best(self, task, scaling, d, optimizer, key, i):
        """(value, rate): the lowest mean loss or the highest mean accuracy over the rates."""
        pick = min if key == "loss" else max
        return pick((self.mean(task, scaling, d, optimizer, lr, key, i), lr) for lr in self.lrs(optimizer))

    def reach(self, task, scaling, d, optimizer, level):
        """(fewest mean steps to `level` accuracy over the rates, rate); (None, None) if never."""
        steps = self.task(task)["checkpoints"]
        best = (None, None)
        for lr in self.lrs(optimizer):
            firsts = []
            for m in self.seeds(task, scaling, d, optimizer, lr):
                hit = [s for s, a in zip(steps, m["curves"]["acc"]) if a is not None and a >= level]
                firsts.append(hit[0] if hit else None)
            if None not in firsts and (best[0] is None or np.mean(firsts) < best[0]):
                best = (float(np.mean(firsts)), lr)
        return best


LEARNED_SHARE = 0.5  # the reference learned: its loss above the floor fell to at most half its first window's


def undecided(b, task, d_k, optimizer, i, variant, lv, reference=None, lr_=None, key="loss"):
    """The evidence rule (evidence.py) for a battery comparison at checkpoint i; '' when it may decide.

    The reference learned (its loss above the task's floor at most LEARNED_SHARE of its first window's),
    enough paired seeds, each best rate strictly inside its grid, and the variant, when behind, not
    still improving (loss falling, or accuracy rising, by at least the gap over the last quarter)."""
    where = f"on {task} at d_k = {d_k} ({optimizer})"
    reasons = [evidence.seeds_reason(b.b["seeds"])]
    if reference is not None:
        first, end = b.mean(task, reference, d_k, optimizer, lr_, "loss", 0), \
            b.mean(task, reference, d_k, optimizer, lr_, "loss", i)
        reasons.append(evidence.learned_reason(end, first, (1 - LEARNED_SHARE) * first, f"{reference} {where}",
                                               "its first window's loss above the floor", unit="nats"))
    reasons.append(evidence.bracket_reason(b.lrs(optimizer), lv, f"{variant} {where}"))
    if reference is not None:
        reasons.append(evidence.bracket_reason(b.lrs(optimizer), lr_, f"{reference} {where}"))
        up = key == "acc"
        vv, rr = (b.mean(task, v, d_k, optimizer, lr, key, i) for v, lr in ((variant, lv), (reference, lr_)))
        behind = rr - vv if up else vv - rr
        curves = [m["curves"][key][: i + 1] for m in b.seeds(task, variant, d_k, optimizer, lv)]
        reasons.append(evidence.settled_reason(curves, behind, f"{variant} {where}", higher_is_better=up,
                                               unit="of accuracy" if up else "nats"))
    return evidence.first_reason(*reasons)


def _per_seed(b, task, scaling, d, optimizer, lr, f):
    """f(model) for each seed of one cell, in seed order (the battery's seeds are paired)."""
    return [f(m) for m in sorted(b.seeds(task, scaling, d, optimizer, lr), key=lambda m: m["seed"])]


def _curve(key, i, bad):
    return lambda m: bad if m["curves"][key][i] is None else m["curves"][key][i]


@MEASURES.register
def battery_excess_ratio(results, task, d_k="largest", budget=1.0, optimizer="adam", variant="unscaled",
                         reference="scaled"):
    """`variant`'s loss above the task's floor over `reference`'s, each at its best rate (chosen on the seed
    mean), after `budget` (a fraction of the battery's steps), paired per seed."""
    b = Battery(results)
    d_k = b.dim(d_k)
    i, step = b.index(task, budget)
    (lv, rv), (lr_, rr) = b.best(task, variant, d_k, optimizer, "loss", i), \
        b.best(task, reference, d_k, optimizer, "loss", i)
    xv = _per_seed(b, task, variant, d_k, optimizer, rv, _curve("loss", i, INF))
    xr = _per_seed(b, task, reference, d_k, optimizer, rr, _curve("loss", i, INF))
    ent = float(np.mean([m["curves"]["entropy"][i] or 0 for m in b.seeds(task, variant, d_k, optimizer, rv)]))
    return ratio_measurement([a / max(c, 1e-12) for a, c in zip(xv, xr)], f"{task}, d_k = {d_k}, {optimizer}, "
                             f"{step} steps: excess loss over the floor, {variant} over {reference}, each at its "
                             "best rate", undecided=undecided(b, task, d_k, optimizer, i, variant, rv, reference, rr),
                             detail=((f"excess loss, {variant}", f"{lv:.3g} at lr {lr_text(rv)}"),
                                                  (reference, f"{lr_:.3g} at lr {lr_text(rr)}"),
                                                  (f"attention entropy share, {variant}", ent, 2)))


@MEASURES.register
def battery_best_accuracy(results, task, d_k="largest", budget=1.0, optimizer="adam", variant="unscaled"):
    """The best mean accuracy over the rates after `budget` (a fraction of the battery's steps), with its
    t interval over seeds at that rate."""
    b = Battery(results)
    d_k = b.dim(d_k)
    i, step = b.index(task, budget)
    acc, lr = b.best(task, variant, d_k, optimizer, "acc", i)
    return ratio_measurement(_per_seed(b, task, variant, d_k, optimizer, lr, _curve("acc", i, 0.0)),
                             f"{task}, d_k = {d_k}, {optimizer}, after {step} steps, {variant} at its most accurate "
                             f"rate ({lr_text(lr)})", digits=3, log=False, pairs=False, bounds=(0.0, 1.0),
                             undecided=undecided(b, task, d_k, optimizer, i, variant, lr))


@MEASURES.register
def battery_error_excess(results, task, factor, points, d_k="largest", budget=1.0, optimizer="adam",
                         variant="unscaled", reference="scaled"):
    """Error rate of `variant` minus max(factor × `reference`'s, `reference`'s + points), best rates, paired."""
    b = Battery(results)
    d_k = b.dim(d_k)
    i, step = b.index(task, budget)
    av, lv = b.best(task, variant, d_k, optimizer, "acc", i)
    ar, lr_ = b.best(task, reference, d_k, optimizer, "acc", i)
    ev = [1 - a for a in _per_seed(b, task, variant, d_k, optimizer, lv, _curve("acc", i, 0.0))]
    er = [1 - a for a in _per_seed(b, task, reference, d_k, optimizer, lr_, _curve("acc", i, 0.0))]
    return ratio_measurement([x - max(factor * y, y + points) for x, y in zip(ev, er)],
                             f"{task}, d_k = {d_k}, {optimizer}, {step} steps: error of {variant} minus "
                             f"max({factor:g} × {reference}'s, {reference}'s + {points:g})", digits=3, log=False,
                             undecided=undecided(b, task, d_k, optimizer, i, variant, lv, reference, lr_, "acc"),
                             detail=((f"best accuracy, {variant}", av, 3), (reference, ar, 3)))


def _first_reach(b, task, level):
    steps = b.task(task)["checkpoints"]

    def first(m):
        hit = [s for s, a in zip(steps, m["curves"]["acc"]) if a is not None and a >= level]
        return float(hit[0]) if hit else float(steps[-1])  # never: the run's length, a lower bound

    return first


def _battery_steps(b, task, d_k, level, optimizer, variant, reference):
    """Per-seed steps to `level` of both, each at its fastest rate; and the text of each."""
    (sv, lv), (sr, lr_) = b.reach(task, variant, d_k, optimizer, level), b.reach(task, reference, d_k, optimizer,
                                                                                    level)
    if sr is None:
        raise MeasureUnavailable(f"{reference} never reaches {level:.0%} on {task} at d_k = {d_k}")
    if lv is None:  # never at any rate: its most accurate rate, at the run's length
        lv = b.best(task, variant, d_k, optimizer, "acc", len(b.task(task)["checkpoints"]) - 1)[1]
    first = _first_reach(b, task, level)
    last = len(b.task(task)["checkpoints"]) - 1
    return (_per_seed(b, task, variant, d_k, optimizer, lv, first), _per_seed(b, task, reference, d_k, optimizer,
                                                                               lr_, first),
            "never" if sv is None else f"{sv:.0f} at lr {lr_text(lv)}", f"{sr:.0f} at lr {lr_text(lr_)}",
            undecided(b, task, d_k, optimizer, last, variant, lv, reference, lr_, "acc"))


@MEASURES.register
def battery_steps_ratio(results, task, d_k="largest", level=0.9, optimizer="adam", variant="unscaled",
                        reference="scaled"):
    """Steps to `level` accuracy, `variant` over `reference`, each at its fastest rate, paired per seed
    (checkpoint resolution); a seed that never gets there counts the run's length (a lower bound)."""
    b = Battery(results)
    d_k = b.dim(d_k)
    sv, sr, tv, tr, why = _battery_steps(b, task, d_k, level, optimizer, variant, reference)
    return ratio_measurement([x / y for x, y in zip(sv, sr)], f"{task}, d_k = {d_k}, {optimizer}: steps to "
                             f"{level:.0%} accuracy, {variant} over {reference}, each at its fastest rate"
                             + ("" if tv != "never" else f" (a lower bound: {variant} never got there)"),
                             undecided=why, detail=((variant, tv), (reference, tr)))


@MEASURES.register
def battery_slowdown_growth(results, task, d_k="largest", small_d_k="smallest", level=0.9, optimizer="adam",
                            variant="unscaled", reference="scaled"):
    """How much more `variant` is slowed at `d_k` than at `small_d_k`: ratio of the two steps ratios, per seed."""
    b = Battery(results)
    d_k, small_d_k = b.dim(d_k), b.dim(small_d_k)
    bv, br, _, _, why = _battery_steps(b, task, d_k, level, optimizer, variant, reference)
    sv, sr, _, _, why_small = _battery_steps(b, task, small_d_k, level, optimizer, variant, reference)
    big, small = [x / y for x, y in zip(bv, br)], [x / y for x, y in zip(sv, sr)]
    return ratio_measurement([x / y for x, y in zip(big, small)], f"steps-to-{level:.0%} ratio at d_k = {d_k} over "
                             f"the ratio at d_k = {small_d_k}", undecided=evidence.first_reason(why, why_small),
                             detail=((f"ratio at d_k = {d_k}", np.mean(big), 2),
                                                                       (f"at d_k = {small_d_k}", np.mean(small), 2)))


@MEASURES.register
def battery_entropy(results, task, d_k="largest", budget=1.0, optimizer="adam", variant="unscaled",
                    reference="scaled"):
    """`variant`'s attention entropy share (1 is uniform) after `budget`, at its lowest-loss rate, over seeds."""
    b = Battery(results)
    d_k = b.dim(d_k)
    i, step = b.index(task, budget)

    def at(v):
        lr = b.best(task, v, d_k, optimizer, "loss", i)[1]
        ms = b.seeds(task, v, d_k, optimizer, lr)
        return (_per_seed(b, task, v, d_k, optimizer, lr, lambda m: m["curves"]["entropy"][i] or 0.0),
                float(np.mean([m["initial_entropy"] or 0 for m in ms])), lr)

    (hv, h0, lr), (hr, _, _) = at(variant), at(reference)
    return ratio_measurement(hv, f"{task}, d_k = {d_k}, {optimizer}, step {step}: attention entropy over uniform's, "
                             f"{variant} at its best rate ({lr_text(lr)})", log=False, pairs=False, bounds=(0.0, 1.0),
                             detail=((f"at step 1, {variant}", h0, 2), (f"{reference} at step {step}", np.mean(hr), 2)))
