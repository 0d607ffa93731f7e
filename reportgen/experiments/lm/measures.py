"""Language-model family, measures: named numbers from the sweep and the task battery.

Every comparison sets variants side by side, each at its own learning rates (its tuned one,
its fastest, its largest stable one), never at one shared rate. Definitions, once:

- the validation loss is bits per byte on the fixed held-out windows; "final" is its last
  point, "tuned rate" the rate with the lowest mean final loss over seeds;
- a run diverged when its validation loss went non-finite or ended (after warm-up and decay) more
  than DIVERGE_BITS above its variant's own best final loss at that configuration and seed
  (never from minibatch spikes); the detail of the divergence measures gives the shares at
  0.5, 1 and 2 bits, the definition's sensitivity;
- learning-rate sensitivity is Wortsman et al.'s (2023): the mean over the rates of
  min(final loss, initial loss) minus the best final loss over the rates;
- a head has collapsed when its mean attention entropy is under COLLAPSED_ENTROPY of uniform's
  (Zhai et al. 2023); a row is saturated when its largest weight exceeds SATURATED_ROW.

Seeds are paired (run.py): within a seed every variant shares its initialization and its data.
Every comparison is therefore a per-seed difference (or log ratio), and its interval is the
Student-t interval over seeds at the report's LEVEL; the judge reads a verdict only where that
interval clears the claim's threshold. A comparison that rests on a model which does not beat
the bigram table by baselines.GATE_BITS carries that reason (`undecided`) and decides nothing.

Configurations are named by role, so a claim reads the same in every profile: `sweep` is
"width" (d_k varied at fixed width: the main width, several head counts) or "heads" (d_k
varied at the main head count, several widths); `at` is "largest", "smallest" or "main".
"""

import math

import numpy as np

from reportgen.experiments.lm.baselines import gate_reason
from reportgen.experiments.lm.params import COLLAPSED_ENTROPY, DIVERGE_BITS
from reportgen.measure import Measurement, MeasureUnavailable, Measures
from reportgen.paired import Conditions, count_measurement, ratio_measurement, ratios
from reportgen.stats import LEVEL, level_z, student_t

MEASURES = Measures()  # name -> f(results, **args) -> Measurement, each registered below

INF = math.inf
SLACK_BITS = 0.05  # steps-to-target: the target is the worse tuned final loss plus this


def lr_text(lr):
    return "none" if lr is None else f"{lr:.2g}"


# --- per model ---------------------------------------------------------------------------------


def final(m):
    v = m["val"][-1]
    return INF if v is None else v


def initial(m):
    return m["val"][0]


def diverged(m, best, bits=DIVERGE_BITS):
    """The held-out loss went non-finite, or ended more than `bits` above `best`: the lowest final loss
    its variant reached at any rate with the same seed and configuration (its own best).

    Read at the end, after warm-up and decay: a loss that peaks at the end of warm-up and recovers
    is not a divergence (the former rule, "above the untrained loss at some evaluation", fired for
    every variant alike at the largest rate), and a variant is judged against what it can do.
    """
    if any(v is None for v in m["val"]):
        return True
    return final(m) - best > bits


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


# --- the sweep ---------------------------------------------------------------------------------


class Sweep:
    """The language-model results indexed by configuration, variant and rate."""

    def __init__(self, results):
        self.results = results
        self.lrs = results["lrs"]
        self.steps = results["eval_steps"]
        self.configs = {(c["width"], c["heads"], c["d_k"]): c for c in results["configs"]}
        w, h = results["main"]["width"], results["main"]["heads"]
        self.main = (w, h, results["main"].get("d_k", w // h))
        self.cells = {}
        self.best = {}  # (configuration, variant, seed): the lowest final loss over the rates
        self.key_of = {}
        for key, c in self.configs.items():
            for m in c["models"]:
                self.cells.setdefault((key, m["variant"], m["lr"]), []).append(m)
                self.key_of[id(m)] = key
                own = (key, m["variant"], m["seed"])
                self.best[own] = min(self.best.get(own, INF), final(m))

    def diverged(self, m, bits=DIVERGE_BITS):
        """Whether run m diverged: non-finite, or `bits` above its variant's own best (same seed)."""
        return diverged(m, self.best[(self.key_of[id(m)], m["variant"], m["seed"])], bits)

    def dk(self, key):
        return self.configs[key]["d_k"]

    @property
    def n_seeds(self):
        return self.results["model"]["seeds"]

    def by_seed(self, key, variant, lr):
        """The models of one cell ordered by seed (paired across variants and rates)."""
        return sorted(self.seeds(key, variant, lr), key=lambda m: m["seed"])

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
            keys = [k for k in self.configs if k[i] == self.main[i] and k[2] == k[0] // k[1]]
        if len(keys) < 2 and which == "qk":
            raise MeasureUnavailable("this profile does not vary the q/k width")
        return sorted(keys, key=self.dk)

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

    def seeds(self, key, variant, lr):
        return self.cells[(key, variant, lr)]

    def runs(self, key, variant):
        return [m for lr in self.lrs for m in self.seeds(key, variant, lr)]

    def final_loss(self, key, variant, lr):
        """Mean final validation loss over seeds; inf when a seed diverged."""
        ms = self.seeds(key, variant, lr)
        return INF if any(map(self.diverged, ms)) else float(np.mean([final(m) for m in ms]))

    def tuned(self, key, variant):
        """The rate with the lowest mean final validation loss (the variant at its tuned rate)."""
        return min(self.lrs, key=lambda lr: self.final_loss(key, variant, lr))

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

    def diverged_count(self, key, variant):
        runs = self.runs(key, variant)
        return sum(map(self.diverged, runs)), len(runs)

    def largest_stable(self, key, variant):
        stable = [lr for lr in self.lrs if not any(map(self.diverged, self.seeds(key, variant, lr)))]
        return max(stable) if stable else None

    def fastest(self, key, variant, target):
        """(steps to `target`, rate): the fewest mean steps over the rates where every seed gets there."""
        found = []
        for lr in self.lrs:
            s = [steps_to(m, target, self.steps) for m in self.seeds(key, variant, lr)]
            if None not in s:
                found.append((float(np.mean(s)), lr))
        return min(found) if found else (None, None)

    def target(self, key, variant, reference):
        """The loss both can reach: the worse of the two tuned final losses, plus SLACK_BITS."""
        return max(self.best_loss(key, variant), self.best_loss(key, reference)) + SLACK_BITS


def name(s, key):
    return f"width {key[0]}, {key[1]} head{'s' if key[1] > 1 else ''} (d_k = {s.dk(key)})"


def sweep(results):
    return Sweep(results)


def gated(measure):
    """A measure whose steps-to-target comparison is missing because the models did not learn: inconclusive
    on the learning gate (not unverifiable), with both reasons."""
    import functools

    @functools.wraps(measure)
    def wrapper(*args, **kwargs):
        try:
            return measure(*args, **kwargs)
        except NotReached as exc:
            if not exc.gate:
                raise
            return Measurement(None, method=str(exc), undecided=f"{exc.gate}; {exc}")

    return wrapper


def _where(s, sweep_, at):
    key = s.config(sweep_, at)
    return key, name(s, key)


# --- per-seed quantities (seeds paired) ------------------------------------------------------------


def per_seed_largest_stable(s, key, variant):
    """Per seed, the largest rate at which that seed's run did not diverge (one grid step under the
    smallest rate when none)."""
    step = s.lrs[1] / s.lrs[0] if len(s.lrs) > 1 else 10.0
    out = []
    for i in range(s.n_seeds):
        stable = [lr for lr in s.lrs if not s.diverged(s.by_seed(key, variant, lr)[i])]
        out.append(max(stable) if stable else min(s.lrs) / step)
    return out


def per_seed_steps(s, key, variant, lr, target):
    """Per seed, steps to `target` at `lr`; the run's length where a seed never gets there (a lower bound)."""
    return [steps_to(m, target, s.steps) or float(s.steps[-1]) for m in s.by_seed(key, variant, lr)]


def per_seed_diverged(s, key, variant, bits=DIVERGE_BITS):
    """Per seed, the share of rates at which that seed's run diverged (`bits` above its own best)."""
    return [float(np.mean([s.diverged(s.by_seed(key, variant, lr)[i], bits) for lr in s.lrs]))
            for i in range(s.n_seeds)]


DIVERGE_SENSITIVITY = (0.5, 1.0, 2.0)  # bits above the variant's own best: the definition's sensitivity


def divergence_sensitivity(s, key, variant, reference):
    """(label, text): the diverged shares of both at each cut in DIVERGE_SENSITIVITY, for the detail."""
    cells = [f"{b:g}: {np.mean(per_seed_diverged(s, key, variant, b)):.2f} / "
             f"{np.mean(per_seed_diverged(s, key, reference, b)):.2f}" for b in DIVERGE_SENSITIVITY]
    return (f"diverged share {variant} / {reference} by bits above own best", "; ".join(cells))


def per_seed_test(s, key, variant):
    return [INF if m["test_bits"] is None else m["test_bits"] for m in s.by_seed(key, variant, s.tuned(key, variant))]


def per_seed_sensitivity(s, key, variant):
    out = []
    for i in range(s.n_seeds):
        ms = [s.by_seed(key, variant, lr)[i] for lr in s.lrs]
        out.append(float(np.mean([capped(m) for m in ms])) - min(final(m) for m in ms))
    return out


def _edge(s, key, variant):
    """Why the rate grid does not bracket `variant`'s tuned rate ('' when it does)."""
    tuned = s.tuned(key, variant)
    if tuned in (min(s.lrs), max(s.lrs)):
        return (f"{variant}'s tuned rate at {name(s, key)} is the grid's {'smallest' if tuned == min(s.lrs) else 'largest'}"
                f" ({lr_text(tuned)}): the grid does not bracket its optimum")
    return ""


def _undecided(s, keys, *variants):
    """The first reason these configurations decide nothing: the learning gate, then the grid's edge."""
    for reason in [s.gate(*keys)] + [_edge(s, k, v) for k in keys for v in variants]:
        if reason:
            return reason
    return ""


# --- measures: the sweep -----------------------------------------------------------------------


@MEASURES.register
def stable_lr_ratio(results, sweep="width", at="largest", variant="unscaled", reference="scaled"):
    """How many times larger `reference`'s largest non-diverging rate is than `variant`'s, paired per seed.

    A seed at which `variant` diverges at every rate counts one grid step under the smallest rate;
    when `reference` never diverges on the grid, the grid does not find its limit: undecided.
    """
    s = Sweep(results)
    key, where = _where(s, sweep, at)
    s.need(key, variant, reference)
    top_r, top_v = per_seed_largest_stable(s, key, reference), per_seed_largest_stable(s, key, variant)
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


class NotReached(MeasureUnavailable):
    """No rate takes every seed to the shared target; `gate` says whether the models learned at all."""

    def __init__(self, why, gate):
        super().__init__(why)
        self.gate = gate


def _steps_pair(s, key, variant, reference):
    """Per-seed steps of both to the shared target, each at its fastest rate (chosen on the seed mean)."""
    target = s.target(key, variant, reference)
    (sv, lv), (sr, lr_) = s.fastest(key, variant, target), s.fastest(key, reference, target)
    if sr is None or sv is None:
        raise NotReached(f"no rate takes every seed to {target:.3g} bits/byte at {name(s, key)}", s.gate(key))
    return target, per_seed_steps(s, key, variant, lv, target), per_seed_steps(s, key, reference, lr_, target), lv, lr_


@MEASURES.register
@gated
def steps_ratio(results, sweep="width", at="largest", variant="unscaled", reference="scaled"):
    """Steps to a shared validation target, `variant` over `reference`, each at its fastest rate, paired per seed.

    The target is the worse of the two tuned final losses plus SLACK_BITS, so both reach it.
    """
    s = Sweep(results)
    key, where = _where(s, sweep, at)
    s.need(key, variant, reference)
    target, sv, sr, lv, lr_ = _steps_pair(s, key, variant, reference)
    return ratio_measurement([a / b for a, b in zip(sv, sr)], f"steps to {target:.3g} bits/byte (validation), "
                             f"{variant} over {reference}, each at its fastest rate, {where}",
                             undecided=_undecided(s, [key], variant, reference),
                             detail=((f"steps, {variant}", f"{np.mean(sv):.0f} at lr {lr_text(lv)}"),
                                     (reference, f"{np.mean(sr):.0f} at lr {lr_text(lr_)}")))


@MEASURES.register
def instability_growth_misses(results, margin, sweep="width", variant="unscaled", reference="scaled"):
    """Conditions of 'unstable for large d_k' that fail (0, 1 or 2), paired over seeds.

    At the sweep's largest d_k `variant`'s share of diverged runs (over the rates) is at least
    `margin` above `reference`'s, and above its own share at the sweep's smallest d_k.
    """
    s = Sweep(results)
    big, small = s.config(sweep, "largest"), s.config(sweep, "smallest")
    s.need(big, variant, reference)
    s.need(small, variant)
    dv, dr, ds = per_seed_diverged(s, big, variant), per_seed_diverged(s, big, reference), \
        per_seed_diverged(s, small, variant)
    c = Conditions()
    c.add(f"{variant} diverges {margin:.0%} points more than {reference}", [a - b for a, b in zip(dv, dr)], margin)
    c.add(f"more at d_k = {s.dk(big)} than at d_k = {s.dk(small)}", [a - b for a, b in zip(dv, ds)], 1e-9)
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
    key, where = _where(s, sweep, at)
    s.need(key, variant, reference)
    dv, dr = per_seed_diverged(s, key, variant), per_seed_diverged(s, key, reference)
    return ratio_measurement([a - b for a, b in zip(dv, dr)], f"share of diverged runs (validation loss), "
                             f"difference, {where}", log=False, undecided=s.gate(key),
                             detail=((f"diverged share, {variant}", np.mean(dv), 2), (reference, np.mean(dr), 2),
                                     divergence_sensitivity(s, key, variant, reference),
                                     _logit_detail(s, key, variant, reference)))


def _initial_logit(m):
    v = m["max_logit"][0]
    return INF if v is None else v


@MEASURES.register
def logit_growth(results, sweep="qk", at="largest", variant="unscaled", reference="scaled", control="qk_ln"):
    """The instability precursor (Wortsman et al. 2023): `variant`'s largest attention logit over training
    ÷ `reference`'s at equal rates, paired per seed (geometric mean over the rates).

    The detail names the positive control: how far `control` (QK-LayerNorm) grows its largest logit from
    step 0 at the main configuration, against `variant` there; it should not grow.
    """
    s = Sweep(results)
    key, where = _where(s, sweep, at)
    s.need(key, variant, reference)
    ratios = [math.exp(float(np.mean([math.log(peak_logit(s.by_seed(key, variant, lr)[i])
                                               / peak_logit(s.by_seed(key, reference, lr)[i])) for lr in s.lrs])))
              for i in range(s.n_seeds)]
    detail = []
    if s.has(s.main, control) and s.has(s.main, variant):
        def growth(v):
            return float(np.exp(np.mean([math.log(peak_logit(m) / _initial_logit(m)) for m in s.runs(s.main, v)])))

        detail = [(f"growth from step 0 at {name(s, s.main)}, {control} (positive control)", growth(control), 2),
                  (variant, growth(variant), 2), (reference, growth(reference), 2)]
    return ratio_measurement(ratios, f"peak max |attention logit| over training, {variant} ÷ {reference} at equal "
                             f"rates (geometric mean over the rates), {where}", undecided=s.gate(key),
                             detail=tuple(detail))


def _logit_detail(s, key, variant, reference):
    """The instability precursor (Wortsman et al. 2023): peak max |logit| at the largest rate, variant ÷ reference."""
    return (f"peak max |logit| at the largest rate, {variant} ÷ {reference}",
            _peak_at_top(s, key, variant) / max(_peak_at_top(s, key, reference), 1e-30), 2)


def _peak_at_top(s, key, variant):
    return float(np.mean([peak_logit(m) for m in s.seeds(key, variant, max(s.lrs))]))


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
                                     f"{s.diverged_count(k, variant)[0]} of {s.diverged_count(k, variant)[1]}")
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
    key, where = _where(s, sweep, at)
    s.need(key, variant, reference)
    tv, tr = per_seed_test(s, key, variant), per_seed_test(s, key, reference)
    gaps = [(a - b) / b if relative else a - b for a, b in zip(tv, tr)]
    return ratio_measurement(gaps, f"test bits per byte at the tuned rate, {variant} "
                             f"{'relative to' if relative else 'minus'} {reference}, {where}", digits=3, log=False,
                             undecided=_undecided(s, [key], variant, reference),
                             detail=((f"test bits/byte, {variant}", np.mean(tv), 3), (reference, np.mean(tr), 3),
                                     ("bigram table", s.results["baselines"]["bigram"], 3),
                                     ("tuned rates", f"{lr_text(s.tuned(key, variant))} / "
                                      f"{lr_text(s.tuned(key, reference))}")))


@MEASURES.register
def learning_share(results, sweep="width", at="largest", variant="unscaled", reference="scaled"):
    """`variant`'s drop in validation loss from initialization as a share of `reference`'s (tuned rates), paired."""
    s = Sweep(results)
    key, where = _where(s, sweep, at)
    s.need(key, variant, reference)

    def drops(v):
        return [initial(m) - final(m) for m in s.by_seed(key, v, s.tuned(key, v))]

    dv, dr = drops(variant), drops(reference)
    return ratio_measurement(ratios(dv, dr), f"validation loss drop from step 0 at the tuned "
                             f"rate, {variant} over {reference}, {where}", log=False,
                             undecided=_undecided(s, [key], variant, reference),
                             detail=((f"drop, {variant}", np.mean(dv), 2), (reference, np.mean(dr), 2)))


@MEASURES.register
def entropy_extremity(results, sweep="width", at="largest", variant="unscaled", when="end"):
    """How far `variant`'s attention is from both extremes: min(H, 1 − H), H the mean entropy share.

    At the tuned rate, at the end of training (or at step 0 with when = "init"); 0 is one-hot
    or uniform attention, 0.5 halfway. The interval is over seeds.
    """
    s = Sweep(results)
    key, where = _where(s, sweep, at)
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
def not_faster_configs(results, variant="scaled", reference="unscaled", margin=0.0):
    """Configurations where `variant` does not reach the shared target in fewer steps than `reference`
    (at most (1 − margin) × its steps), each a paired interval of the steps ratio over seeds."""
    s = Sweep(results)
    keys = sorted((k for k in s.configs if s.has(k, variant) and s.has(k, reference)), key=s.dk)
    c, detail = Conditions(), []
    for k in keys:
        try:
            _, sv, sr, _, _ = _steps_pair(s, k, variant, reference)
        except MeasureUnavailable:
            c.fixed(f"{variant} faster at {name(s, k)}", False)
            detail.append((name(s, k), "the target is not reached"))
            continue
        mean = c.add(f"{variant} faster at {name(s, k)}", [a / b for a, b in zip(sv, sr)],
                     (1 - margin) * (1 - 1e-9), log=True, above=False)
        detail.append((name(s, k), f"steps ratio {mean:.2f}"))
    return count_measurement(c, s.n_seeds, f"of {len(keys)} configurations: {variant} not faster than "
                             f"{reference} to the shared target" + (f" by {margin:.0%}" if margin else "")
                             + f", each at its fastest rate, paired over {s.n_seeds} seeds",
                             detail=detail, undecided=s.gate(*keys))


def _slow_or_unstable(s, key, slower, margin, variant, reference):
    c = Conditions()
    _, sv, sr, _, _ = _steps_pair(s, key, variant, reference)
    ratio = c.add(f"at least {slower:g}× the steps", [a / b for a, b in zip(sv, sr)], slower, log=True)
    dv, dr = per_seed_diverged(s, key, variant), per_seed_diverged(s, key, reference)
    excess = c.add(f"at least {margin:.0%} points more diverged", [a - b for a, b in zip(dv, dr)], margin)
    return c, ratio, excess


@MEASURES.register
@gated
def slow_or_unstable_signs(results, slower, margin, sweep="width", at="largest", variant="unscaled",
                           reference="scaled"):
    """Signs of 'slow or unstable' (0, 1 or 2), paired over seeds: `slower`× the steps; `margin` more diverged."""
    s = Sweep(results)
    key, where = _where(s, sweep, at)
    s.need(key, variant, reference)
    c, ratio, excess = _slow_or_unstable(s, key, slower, margin, variant, reference)
    return count_measurement(c, s.n_seeds, f"of 2: at least {slower:g}× the steps to the shared target; at "
                             f"least {margin:.0%} points more diverged runs; {where}", misses=False,
                             undecided=_undecided(s, [key], variant, reference),
                             detail=(("steps ratio", ratio, 2), ("diverged share, difference", excess, 2)))


@MEASURES.register
@gated
def summary_misses(results, slower, margin, sweep="width", at="largest", variant="unscaled", reference="scaled",
                   faster=0.0):
    """Halves of 'unstable / slow vs stable / fast' that fail: `variant` neither slow nor unstable at the
    configuration named, plus configurations where `reference` is unstable, plus those where it is not faster."""
    s = Sweep(results)
    key, _ = _where(s, sweep, at)
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
    key, where = _where(s, sweep, at)
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
                             undecided=_undecided(s, [key], variant, reference),
                             detail=((f"‖∂L/∂(W_q, W_k)‖, {variant}", np.mean(gv), 3), (reference, np.mean(gr), 3),
                                     ("tuned validation loss gap, bits/byte", gap, 3)))


@MEASURES.register
@gated
def worse_signs(results, relative, slower, sweep="width", at="largest", variant="inv_d", reference="scaled"):
    """Signs that `variant` trains worse (0, 1 or 2), paired: test loss `relative` above; `slower`× the steps."""
    s = Sweep(results)
    key, where = _where(s, sweep, at)
    s.need(key, variant, reference)
    tv, tr = per_seed_test(s, key, variant), per_seed_test(s, key, reference)
    c = Conditions()
    excess = c.add(f"test loss {relative:.0%} above", [(a - b) / b for a, b in zip(tv, tr)], relative)
    _, sv, sr, _, _ = _steps_pair(s, key, variant, reference)
    ratio = c.add(f"{slower:g}× the steps", [a / b for a, b in zip(sv, sr)], slower, log=True)
    return count_measurement(c, s.n_seeds, f"of 2: test loss at least {relative:.0%} above {reference}'s; at "
                             f"least {slower:g}× the steps; {where}", misses=False,
                             undecided=_undecided(s, [key], variant, reference),
                             detail=(("test loss, relative excess", excess, 3), ("steps ratio", ratio, 2)))


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
    key, where = _where(s, sweep, at)
    s.need(key, variant)
    return ratio_measurement(per_seed_sensitivity(s, key, variant), f"mean over {len(s.lrs)} rates of "
                             f"min(final, initial) − best final, {where}", digits=3, log=False, pairs=False,
                             undecided=s.gate(key))


@MEASURES.register
def sensitivity_ratio(results, sweep="width", at="main", variant="unscaled", reference="scaled"):
    """`variant`'s learning-rate sensitivity over `reference`'s, paired per seed."""
    s = Sweep(results)
    key, where = _where(s, sweep, at)
    s.need(key, variant, reference)
    a, b = per_seed_sensitivity(s, key, variant), per_seed_sensitivity(s, key, reference)
    return ratio_measurement(ratios(a, b), f"Wortsman LR sensitivity, {variant} over {reference}, "
                             f"{where}", undecided=s.gate(key), detail=((variant, np.mean(a), 3),
                                                                       (reference, np.mean(b), 3)))


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


# --- measures: the task battery ------------------------------------------------------------------


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
                             "best rate", detail=((f"excess loss, {variant}", f"{lv:.3g} at lr {lr_text(rv)}"),
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
                             f"rate ({lr_text(lr)})", digits=3, log=False, pairs=False)


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
    return (_per_seed(b, task, variant, d_k, optimizer, lv, first), _per_seed(b, task, reference, d_k, optimizer,
                                                                               lr_, first),
            "never" if sv is None else f"{sv:.0f} at lr {lr_text(lv)}", f"{sr:.0f} at lr {lr_text(lr_)}")


@MEASURES.register
def battery_steps_ratio(results, task, d_k="largest", level=0.9, optimizer="adam", variant="unscaled",
                        reference="scaled"):
    """Steps to `level` accuracy, `variant` over `reference`, each at its fastest rate, paired per seed
    (checkpoint resolution); a seed that never gets there counts the run's length (a lower bound)."""
    b = Battery(results)
    d_k = b.dim(d_k)
    sv, sr, tv, tr = _battery_steps(b, task, d_k, level, optimizer, variant, reference)
    return ratio_measurement([x / y for x, y in zip(sv, sr)], f"{task}, d_k = {d_k}, {optimizer}: steps to "
                             f"{level:.0%} accuracy, {variant} over {reference}, each at its fastest rate"
                             + ("" if tv != "never" else f" (a lower bound: {variant} never got there)"),
                             detail=((variant, tv), (reference, tr)))


@MEASURES.register
def battery_slowdown_growth(results, task, d_k="largest", small_d_k="smallest", level=0.9, optimizer="adam",
                            variant="unscaled", reference="scaled"):
    """How much more `variant` is slowed at `d_k` than at `small_d_k`: ratio of the two steps ratios, per seed."""
    b = Battery(results)
    d_k, small_d_k = b.dim(d_k), b.dim(small_d_k)
    bv, br, _, _ = _battery_steps(b, task, d_k, level, optimizer, variant, reference)
    sv, sr, _, _ = _battery_steps(b, task, small_d_k, level, optimizer, variant, reference)
    big, small = [x / y for x, y in zip(bv, br)], [x / y for x, y in zip(sv, sr)]
    return ratio_measurement([x / y for x, y in zip(big, small)], f"steps-to-{level:.0%} ratio at d_k = {d_k} over "
                             f"the ratio at d_k = {small_d_k}", detail=((f"ratio at d_k = {d_k}", np.mean(big), 2),
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
                             f"{variant} at its best rate ({lr_text(lr)})", log=False, pairs=False,
                             detail=((f"at step 1, {variant}", h0, 2), (f"{reference} at step {step}", np.mean(hr), 2)))
