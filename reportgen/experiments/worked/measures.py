"""Worked family, measures: named numbers computed from its results, with their intervals.

The worked examples are exact arithmetic: their measures return the recomputed number
(or vector) and the claims compare it at the printed precision. Where a document says
'≈', the measure gives the interval of documented values that read as approximately
equal to it (the margin, `rel` and `printed_digits`, comes from the claim). The summary
tables' words are judged on the random attention rows: each measure returns a statistic
with its interval, and the claim names the threshold.
"""

import math
from dataclasses import replace
from fractions import Fraction

from reportgen.experiments.measure import Measurement, MeasureUnavailable, Measures
from reportgen.experiments.stats import level_z, variance_interval, wilson_interval
from reportgen.experiments.worked.params import (
    DOC_002_D_K,
    DOC_002_E,
    DOC_002_SECOND,
    DOC_002_SECOND_ROW1_SCALED,
    ROW_KEYS,
    VANISHED_JACOBIAN,
    WORDS,
)
from reportgen.formatting import fmt

MEASURES = Measures()  # name -> f(results, **args) -> Measurement, each registered below


def _vec(values, digits=None):
    return "[" + ", ".join(str(v) if digits is None else fmt(v, digits) for v in values) + "]"


def _near(value, rel, printed_digits):
    """(lo, hi): the documented x with |value − x| ≤ rel·x, or equal to value at printed_digits decimals.

    For value > 0, |value − x| ≤ rel·x is x in [value/(1+rel), value/(1−rel)]; equality at the
    printed precision is x in value ± half a unit of the last printed digit. Both hold value,
    so their union is one interval.
    """
    half = 0.5 * 10**-printed_digits
    return min(value - half, value / (1 + rel)), max(value + half, value / (1 - rel))


def _approx(value, rel, printed_digits, digits, method, detail=()):
    """A Measurement of an exact value, with the interval of documented values '≈' to it when rel is given."""
    if rel is None:
        return Measurement(value, method=method, digits=digits, detail=detail)
    lo, hi = _near(value, rel, printed_digits)
    method += f"; '≈' read as within {rel:.0%} or equal at {printed_digits} decimal(s)"
    return Measurement(value, lo, hi, None, method, digits, detail)


# --- 002's "Money Bank Grows" example ------------------------------------------------


@MEASURES.register
def projection(results, word, weight):
    """A Step 2 vector from Step 1's inputs: E·W (E a row), or W·E (E a column) as the other reading."""
    conventions = results["money_bank"]["projections"][weight]
    i = WORDS.index(word)
    (first, rows), *others = conventions.items()
    return Measurement(
        tuple(float(x) for x in rows[i]),
        method=f"{first.replace('W', weight)} from Step 1's embedding and weights",
        digits=0,
        detail=(("E unchanged", _vec(DOC_002_E[i])),),
        alternatives=tuple((name.replace("W", weight), tuple(float(x) for x in r[i])) for name, r in others),
    )


@MEASURES.register
def dot_terms(results, query, key):
    """q·k from Step 2's stated vectors, written out: q_1, k_1, q_2, k_2, q_3, k_3, then the sum."""
    dot = results["money_bank"]["dots"][f"{query}·{key}"]
    value = tuple(float(x) for pair in dot["pairs"] for x in pair) + (float(dot["sum"]),)
    return Measurement(value, method="the terms q_i × k_i of Step 2's stated vectors, then their sum", digits=0)


@MEASURES.register
def printed_over_dk(results, printed):
    """A variance the document prints, divided by 002's d_k = 3: Var(X/√3) = Var(X)/3."""
    value = float(Fraction(printed) / DOC_002_D_K)
    return Measurement(value, method=f"the document's own {printed} ÷ {DOC_002_D_K}", digits=4)


@MEASURES.register
def step3_weight(results, extreme="max", rel=None, printed_digits=2):
    """The largest (or smallest) softmax weight over the rows of Step 3's QKᵀ, unscaled."""
    rows = results["money_bank"]["step3_softmax"]
    weights = [p for row in rows for p in row]
    value = max(weights) if extreme == "max" else min(weights)
    detail = (("rows", "; ".join(_vec(row, 3) for row in rows)),)
    return _approx(value, rel, printed_digits, 4, f"{'largest' if extreme == 'max' else 'smallest'} weight",
                   detail)


@MEASURES.register
def entropy_not_rising(results):
    """Rows of Step 3's QKᵀ whose softmax entropy does not rise when the scores are divided by √3."""
    mb = results["money_bank"]
    pairs = list(zip(mb["step3_entropy"], mb["step3_entropy_scaled"]))
    count = sum(after <= before for before, after in pairs)
    detail = (("row entropies (nats)", ", ".join(f"{fmt(a, 3)} → {fmt(b, 3)}" for a, b in pairs)),
              ("ln 3", math.log(3), 3))
    return Measurement(float(count), method="rows whose entropy does not rise after ÷ √3", digits=0,
                       detail=detail)


@MEASURES.register
def percent(results, key, scaled=False):
    """Row 1 of the comparison's matrix through softmax, as a percentage: money → key."""
    mb = results["money_bank"]
    i = WORDS.index(key)
    if scaled:
        value, route = mb["percent_scaled"][i], mb["percent_exact_scaled"][i]
        row, label = DOC_002_SECOND_ROW1_SCALED, f"from {_vec(DOC_002_SECOND[0])}/√3 unrounded"
    else:
        value, route = mb["percent"][i], mb["percent_from_printed_exps"][i]
        row, label = DOC_002_SECOND[0], "from 002's printed exps"
    return Measurement(value, method=f"100·softmax({_vec(row)})", digits=3, detail=((label, route, 4),))


@MEASURES.register
def tens_variance(results, divided=False):
    """Var of [10, 20, …, 70] (or of it divided by 10), dividing by n as np.var."""
    v = results["variance_arithmetic"]["tens_scaled" if divided else "tens"]
    return Measurement(v["population"], method="÷ n as np.var", digits=2, detail=(("÷ (n − 1)", v["sample"], 2),))


def _dim(results, d):
    for row in results["variance_arithmetic"]["dims"]:
        if row["d"] == d:
            return row
    raise MeasureUnavailable(f"002 works no {d}D example")


@MEASURES.register
def inverse_root(results, d):
    """1/√d."""
    return Measurement(_dim(results, d)["factor"], method=f"1/√{d}", digits=5)


@MEASURES.register
def scaled_variance(results, d, factor="printed", rel=None, printed_digits=2):
    """002's dD variance times (1/√d)²: with the factor as it prints it, or with 1/d exactly."""
    row = _dim(results, d)
    if factor == "printed":
        value, method = row["new_printed_factor"], "(printed 1/√d)² × the printed variance"
        detail = ((f"with (1/√{d})² = 1/{d} exactly", row["new_exact_factor"], 4),) if d > 1 else ()
    else:
        value, method, detail = row["new_exact_factor"], "the printed variance ÷ d", ()
    m = _approx(value, rel, printed_digits, 4, method, detail)
    if factor == "printed" and d > 1:
        # The printed factor (0.577 for 1/√3) is the exact one rounded for display: reading it
        # as exact is arithmetic the document can mean too.
        m = replace(m, alternatives=((f"the printed factor read as 1/√{d} exactly", row["new_exact_factor"]),))
    return m


@MEASURES.register
def variance_ratio(results, d, rel=None, printed_digits=0):
    """002's dD variance divided by its 1D variance."""
    return _approx(_dim(results, d)["ratio_to_1d"], rel, printed_digits, 3, f"{d}D variance ÷ 1D variance")


# --- 000's table of models -------------------------------------------------------------


@MEASURES.register
def head_dim(results, model, size=None):
    """d_k = d_model / heads of a published configuration."""
    for row in results["models"]:
        if row["model"] != model:
            continue
        sizes = [s for s in row["sizes"] if size is None or s["size"] == size]
        if len(sizes) == 1:
            s = sizes[0]
            return Measurement(s["d_k"], method="d_model / heads as published", digits=2,
                               detail=(("d_model / heads", f"{s['d_model']} / {s['heads']}"),))
    raise MeasureUnavailable(f"no single published configuration {model} {size or ''}".strip())


@MEASURES.register
def root(results, d_k):
    """√d_k: the standard deviation of unscaled scores with unit-variance components."""
    return Measurement(math.sqrt(d_k), method="√d_k", digits=2)


# --- random attention rows ------------------------------------------------------------


def rows_cell(results, d_k):
    for c in results["rows"]:
        if c["d_k"] == d_k:
            return c
    raise MeasureUnavailable(f"no random rows at d_k = {d_k}")


def score_var_interval(c, z):
    # q·k with N(0, 1) components has excess kurtosis 6/d_k.
    return variance_interval(c["score_var"], c["rows"], 6 / c["d_k"], z)


def stat_interval(c, variant, stat, z):
    s = c[variant][stat]
    half = z * math.sqrt(s["var"] / c["rows"])
    return s["mean"], s["mean"] - half, s["mean"] + half


def _variant(scaled):
    return "scaled" if scaled else "unscaled"


@MEASURES.register
def max_weight(results, d_k, scaled=False, level=0.99):
    """Mean largest softmax weight of a row (one query, ROW_KEYS keys), with its interval."""
    c = rows_cell(results, d_k)
    m, lo, hi = stat_interval(c, _variant(scaled), "max_w", level_z(level))
    return Measurement(m, lo, hi, c["rows"],
                       f"{level:.0%} CI of the mean largest weight, {_variant(scaled)}, n = {ROW_KEYS} keys", 3)


@MEASURES.register
def vanished_share(results, d_k, scaled=False, level=0.99):
    """Share of rows whose softmax Jacobian has every entry below VANISHED_JACOBIAN, with a Wilson interval."""
    c = rows_cell(results, d_k)
    variant = _variant(scaled)
    share, lo, hi = wilson_interval(c[variant]["vanished"], c["rows"], level_z(level))
    fro = c[variant]["jac_fro"]["mean"]
    return Measurement(share, lo, hi, c["rows"],
                       f"{level:.0%} Wilson interval of the share of rows with every Jacobian entry below "
                       f"{VANISHED_JACOBIAN:g}, {variant}", 4, (("mean Frobenius norm of J", fro, 4),))


@MEASURES.register
def var_law_misses(results, scaled=False, level=0.99):
    """d_k at which the interval of Var(q·k) excludes d_k (of Var(q·k/√d_k), excludes 1)."""
    z = level_z(level)
    misses, detail = 0, []
    for c in results["rows"]:
        d = c["d_k"]
        divisor, target = (d, 1) if scaled else (1, d)
        lo, hi = (x / divisor for x in score_var_interval(c, z))
        misses += not lo <= target <= hi
        detail.append((f"{'Var(q·k/√d_k)' if scaled else 'Var(q·k)'} at d_k = {d}", c["score_var"] / divisor, 3))
    return Measurement(float(misses), n=len(results["rows"]),
                       method=f"d_k whose {level:.0%} interval excludes {'1' if scaled else 'd_k'}", digits=0,
                       detail=tuple(detail))


@MEASURES.register
def var_order_overlaps(results, level=0.99):
    """Neighbouring d_k whose Var(q·k) intervals are not strictly ordered (the larger d_k wholly above)."""
    z = level_z(level)
    cells = sorted(results["rows"], key=lambda c: c["d_k"])
    cis = [score_var_interval(c, z) for c in cells]
    overlaps = sum(not a[1] < b[0] for a, b in zip(cis, cis[1:]))
    detail = tuple((f"Var(q·k) at d_k = {c['d_k']}", c["score_var"], 2) for c in cells)
    return Measurement(float(overlaps), n=len(cells), method=f"{level:.0%} intervals of neighbouring d_k that overlap",
                       digits=0, detail=detail)


@MEASURES.register
def max_weight_spread(results, scaled=True, level=0.99):
    """Width of the band holding the intervals of the mean largest weight at every d_k."""
    z = level_z(level)
    variant = _variant(scaled)
    cis = [(c["d_k"], stat_interval(c, variant, "max_w", z)) for c in results["rows"]]
    spread = max(ci[2] for _, ci in cis) - min(ci[1] for _, ci in cis)
    detail = tuple((f"mean largest weight at d_k = {d}", ci[0], 3) for d, ci in cis)
    return Measurement(spread, n=len(cis), method=f"band holding every d_k's {level:.0%} interval, {variant}",
                       digits=3, detail=detail)


@MEASURES.register
def var_law_ratio(results, level=0.99):
    """Var(q·k)/d_k (the same number as Var(q·k/√d_k)) at the d_k that departs most from 1, with its interval.

    A claim compares it with 1 under an equivalence margin. The d_k shown: one whose interval
    excludes 1 when there is one (the law fails there), else the one whose interval reaches
    farthest from 1 (it decides whether every d_k lies within the margin).
    """
    z = level_z(level)
    cells = []
    for c in sorted(results["rows"], key=lambda c: c["d_k"]):
        d = c["d_k"]
        lo, hi = (x / d for x in score_var_interval(c, z))
        cells.append((d, c["score_var"] / d, lo, hi, c["rows"]))
    pool = [x for x in cells if not x[2] <= 1 <= x[3]] or cells
    d, value, lo, hi, n = max(pool, key=lambda x: max(abs(x[2] - 1), abs(x[3] - 1)))
    dims = ", ".join(str(x[0]) for x in cells)
    return Measurement(value, lo, hi, n,
                       f"{level:.0%} interval (excess kurtosis 6/d_k) of Var(q·k)/d_k at d_k = {d}, the farthest "
                       f"from 1 of d_k = {dims}", 3,
                       tuple((f"Var(q·k)/d_k at d_k = {x[0]}", x[1], 3) for x in cells))


@MEASURES.register
def max_weight_top(results, scaled=True, level=0.99):
    """The largest mean largest softmax weight over the rows' d_k, with that d_k's interval."""
    z = level_z(level)
    variant = _variant(scaled)
    cis = [(c["d_k"], stat_interval(c, variant, "max_w", z), c["rows"]) for c in results["rows"]]
    d, (m, lo, hi), n = max(cis, key=lambda x: x[1][2])
    return Measurement(m, lo, hi, n,
                       f"{level:.0%} CI of the mean largest weight at d_k = {d}, the largest over d_k, {variant}, "
                       f"n = {ROW_KEYS} keys", 3,
                       tuple((f"at d_k = {dk}", ci[0], 3) for dk, ci, _ in cis))


@MEASURES.register
def score_var(results, d_k, level=0.99):
    """Var(q·k) of the random rows at one d_k (q, k with N(0, 1) components), with its interval.

    With Var(X) = 1 for one product X = q_i·k_i, it is the 'd × Var(X)' of a d-term dot product.
    """
    c = rows_cell(results, d_k)
    lo, hi = score_var_interval(c, level_z(level))
    return Measurement(c["score_var"], lo, hi, c["rows"],
                       f"{level:.0%} interval (excess kurtosis 6/d_k) of Var(q·k) over {c['rows']} rows", 3)


@MEASURES.register
def jacobian_norm_ratio(results, d_k, level=0.99):
    """Mean Frobenius norm of the rows' softmax Jacobian, unscaled ÷ scaled, with a delta-method interval.

    The aggregate reading of 'the gradient vanishes' (vanished_share is the typical row's);
    the two variants' rows are the same draws, their correlation is ignored.
    """
    c = rows_cell(results, d_k)
    u, s = c["unscaled"]["jac_fro"], c["scaled"]["jac_fro"]
    n = c["rows"]
    ratio = u["mean"] / s["mean"]
    rel = math.sqrt(u["var"] / (n * u["mean"] ** 2) + s["var"] / (n * s["mean"] ** 2))
    z = level_z(level)
    return Measurement(ratio, ratio * math.exp(-z * rel), ratio * math.exp(z * rel), n,
                       f"{level:.0%} delta-method interval of the ratio of mean ‖J‖_F over {n} rows, "
                       f"n = {ROW_KEYS} keys", 3,
                       (("mean ‖J‖_F, unscaled", u["mean"], 4), ("scaled", s["mean"], 4)))
