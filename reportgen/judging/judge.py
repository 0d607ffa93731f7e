"""The verdict of a claim against a measurement: the only place verdicts are decided.

`judge(claim, measurement)` applies the claim's rule; families publish numbers and
never a verdict. The rules:

- exact: the measured value, rounded to the decimals the document printed, equals the
  printed number (entry-wise for a printed vector or matrix; any accepted reading of an
  ambiguous convention may match);
- interval: equivalence first (two one-sided tests) with the claim's `margin` m:
  confirmed when the whole interval [lo, hi] lies within documented ± m, contradicted when
  it lies wholly beyond documented ± m, inconclusive otherwise (the sentence says how many
  samples would decide). Without a margin (a point statement: a printed draw, a sum that
  must be 1) the documented number must lie in the interval;
- at_least / at_most: the measurement's value (or the end of its interval named by
  `bound`) against the claim's threshold; when the value comes with an interval that
  reaches both sides of the threshold, the run cannot tell: inconclusive, with the sample
  size that would decide; where the measurement offers other statistics of the same
  quantity (its `views`: median, share of rows, …) each is judged too, and a split
  verdict is "partly";
- summary: one statement checked in several setups, summed up: confirmed or contradicted
  when every setup agrees, partly when some setups confirm it and others contradict it;
  setups that only check a document's arithmetic on its own numbers (consistency) explain
  the verdict and never decide it;
- reference: a statement about a paper, a named model or the field, decided by the cited
  source (`reference`, `reference_quote`), as recorded in the claim (`holds`); no run
  number enters it;
- unverifiable: nothing in this run can decide it; the claim's `reason` says what would.

A measurement that says its evidence cannot decide (`undecided`: a language model that does
not beat its bigram baseline), or whose interval no verdict can rest on (too few draws, or
identical draws fewer than a sign test needs: reportgen.judging.verdicts.why_too_few), makes
any verdict inconclusive, with that reason.

A contradicted verdict carries a severity: material (a reader would learn something
false) or minor (rounding, rounding order, presentation). The claim may say which;
otherwise a value within 1% of the exact one (or within the equivalence margin) is minor.
Every verdict comes with one plain sentence.
"""

import math
from decimal import Decimal

from reportgen.experiments import thresholds
from reportgen.experiments.measure import Measurement
from reportgen.formatting import fmt, fmt_interval, parse_printed, printed_digits, shown
from reportgen.judging.verdicts import (
    CONFIRMED,
    CONTRADICTED,
    INCONCLUSIVE,
    MATERIAL,
    MINOR,
    PARTLY,
    UNVERIFIABLE,
    VERDICTS,
    Judged,
    details_text,
    documented_value,
    finite,
    measured_text,
    why_too_few,
)

DECISIVE = (CONFIRMED, CONTRADICTED, PARTLY)
STANDS = "; the verdict stands for any threshold "  # a threshold rule's last clause, for a verdict reached

MINOR_RELATIVE = 0.01  # an exact value off by at most 1% is a rounding-size slip unless the claim says otherwise


# --- the rules: each returns (verdict, measured text, rule text, sentence, deviation) ----------


def _exact(claim, m):
    result = _exact_one(claim, m)
    for label, value in m.alternatives:
        if result[0] == CONFIRMED:
            break
        other = _exact_one(claim, Measurement(value, method=m.method))
        if other[0] == CONFIRMED:
            return (CONFIRMED, f"{other[1]} ({label})", f"{other[2]}; matched by the reading {label}",
                    f"{other[3]} (reading the convention as {label})", 0.0)
    verdict, measured, rule, sentence, deviation = result
    if m.alternatives and verdict != CONFIRMED:
        rule += "; no reading matches (" + ", ".join(label for label, _ in m.alternatives) + " tried too)"
        for label, value in m.alternatives:
            measured += f"; {label}: {measured_text(Measurement(value, digits=m.digits))}"
        sentence += " (the other reading of the convention does not give it either)"
    return verdict, measured, rule, sentence, deviation


def _exact_one(claim, m):
    printed = [claim.documented] if isinstance(claim.documented, str) else list(claim.documented)
    values = list(m.value) if isinstance(m.value, (tuple, list)) else [m.value]
    if len(printed) != len(values):
        why = f"the measure gives {len(values)} numbers for {len(printed)} printed"
        return UNVERIFIABLE, "—", why, why, None
    plain = [p.replace("\u2212", "-").replace(",", "") for p in printed]
    digits = [printed_digits(p) for p in plain]
    rounded = [fmt(v, d).replace(" ", "") for v, d in zip(values, digits)]
    same = [Decimal(r) == Decimal(p) for r, p in zip(rounded, plain)]
    verdict = CONFIRMED if all(same) else CONTRADICTED
    deviation = max((abs(float(p) - v) / abs(v) if v else abs(float(p)) for p, v in zip(plain, values)),
                    default=0.0)
    if len(values) == 1:
        measured = shown(values[0], digits[0]) + details_text(m, m.digits)
        rule = f"exact arithmetic, compared at the printed {digits[0]} decimal place(s): {rounded[0]}"
        if verdict == CONFIRMED:
            sentence = f"{printed[0]} is right: the exact value is {shown(values[0], digits[0])}."
        else:
            sentence = (f"The document prints {printed[0]}, but the exact value is {shown(values[0], digits[0])}, "
                        f"which rounds to {rounded[0]}.")
    else:
        measured = "[" + ", ".join(shown(v, d) for v, d in zip(values, digits)) + "]"
        rule = f"exact arithmetic, entry-wise at the printed precision: {sum(same)} of {len(same)} equal"
        wrong = [i for i, ok in enumerate(same) if not ok]
        if verdict == CONFIRMED:
            sentence = f"All {len(values)} printed numbers are right."
        else:
            sentence = (f"{len(wrong)} of {len(values)} printed numbers are wrong: the exact values are "
                        f"[{', '.join(rounded)}] at the printed precision.")
    if m.method:
        rule += f" ({m.method})"
    return verdict, measured, rule, sentence, deviation


def _interval(claim, m):
    x = documented_value(claim)
    lo, hi = m.lo, m.hi
    text = measured_text(m)
    if x is None:
        return UNVERIFIABLE, text, "the documented value is not a number", "The document gives no number to compare.", None
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        why = f"{m.method}: no finite interval in this run"
        return UNVERIFIABLE, text, why, "This run could not put an interval on the measurement.", None
    rule = f"{m.method}: {fmt_interval(lo, hi, m.digits)}"
    value = m.value if isinstance(m.value, (int, float)) else (lo + hi) / 2
    where = f"this run measures {fmt(value, m.digits)} (interval {fmt(lo, m.digits)} to {fmt(hi, m.digits)})"
    said = _said(claim, x)
    if claim.margin is None:
        # A point statement (a printed draw, a sum that should be exactly 1): containment.
        if not lo <= x <= hi:
            return CONTRADICTED, text, rule, f"The document says {said}, but {where}, which excludes it.", abs(value - x)
        return CONFIRMED, text, rule, f"The document says {said}; {where}, which agrees.", 0.0
    # Equivalence first (two one-sided tests): the statement holds when the whole interval lies
    # within documented ± margin, fails when the whole interval lies beyond it, and otherwise
    # this run cannot tell; an interval that misses the documented number but stays inside the
    # margin is a confirmation, not a contradiction.
    margin = claim.margin
    rule += f"; equivalence margin ±{margin:g} around {x:g} (two one-sided tests)"
    if x - margin <= lo and hi <= x + margin:
        return CONFIRMED, text, rule, f"The document says {said}; {where}, within ±{margin:g} of it.", 0.0
    if hi < x - margin or lo > x + margin:
        return (CONTRADICTED, text, rule,
                f"The document says {said}, but {where}: more than {margin:g} away from it.", abs(value - x))
    # The interval shrinks as 1/√n: to decide, its half-width must fall below the distance from
    # the estimate to the nearer edge of the margin.
    half, off = (hi - lo) / 2, abs(value - x)
    need = _samples_needed(half, abs(margin - off), m.n)
    return (INCONCLUSIVE, text, rule,
            f"The document says {said}; {where}: this run cannot tell it from values "
            f"{margin:g} away{need}.", None)


def _samples_needed(half, gap, n):
    """'; about N samples instead of n would': an interval's half-width shrinks as 1/√n, and
    must fall below `gap` to decide. Empty when there is no sample size or no gap."""
    if not n or gap <= 0:
        return ""
    return f"; about {math.ceil((half / gap) ** 2 * n):,} samples instead of {n:,} would".replace(",", " ")


def _said(claim, x):
    d = claim.documented if isinstance(claim.documented, str) else "these numbers"
    return d if parse_printed(d) is not None or claim.value is None else f"{d} (= {x:g})"


def _threshold(claim, m):
    threshold = thresholds.value(claim.threshold)
    sign = "≥" if claim.rule == "at_least" else "≤"
    reading = claim.justification or "threshold"
    stat = {"value": m.value, "lo": m.lo, "hi": m.hi}[claim.bound]
    if not finite(stat):
        return (UNVERIFIABLE, measured_text(m), f"{reading}: the statistic is not finite in this run",
                "This run gives no finite statistic to judge it by.", None)

    def holds(s):
        return s >= threshold if claim.rule == "at_least" else s <= threshold

    views = [(label, v) for label, v in m.views if finite(v)]
    measured = measured_text(m) + "".join(f"; {label} = {fmt(v, m.digits)}" for label, v in views)
    if claim.bound == "value" and finite(m.lo) and finite(m.hi) and holds(m.lo) != holds(m.hi):
        return _straddles(m, threshold, sign, reading, measured)
    which = "" if claim.bound == "value" else f"{'lower' if claim.bound == 'lo' else 'upper'} bound "
    rule = f"{reading} ({which}{fmt(stat, m.digits)} {sign} {threshold:g})"
    # The range of thresholds over which this verdict stands: up to (or down to) the statistic.
    keeps = "≤" if holds(stat) == (claim.rule == "at_least") else ">"
    rule += f"{STANDS}{keeps} {fmt(stat, m.digits)}"
    agree = [label for label, v in views if holds(v) == holds(stat)]
    disagree = [label for label, v in views if holds(v) != holds(stat)]
    main = "the main statistic" if not m.method else m.method
    if disagree:
        true_by = ([main] if holds(stat) else []) + [l for l in (agree if holds(stat) else disagree)]
        false_by = ([] if holds(stat) else [main]) + [l for l in (disagree if holds(stat) else agree)]
        sentence = (f"True by {', '.join(true_by)} but not by {', '.join(false_by)}: "
                    f"{claim.label} holds for typical cases only in part.")
        return PARTLY, measured, rule + f"; split across statistics ({', '.join(disagree)} disagree)", sentence, None
    verdict = CONFIRMED if holds(stat) else CONTRADICTED
    verb = "meets" if verdict == CONFIRMED else "misses"
    also = f" (as do {', '.join(agree)})" if agree else ""
    sentence = f"Measured {fmt(stat, m.digits)}{also}, which {verb} the reading: {reading}."
    deviation = abs(stat - threshold) / abs(threshold) if threshold else None
    return verdict, measured, rule, sentence, deviation


def _straddles(m, threshold, sign, reading, measured):
    """Inconclusive: the value's interval reaches both sides of the threshold.

    The samples that would decide come from the interval's half-width shrinking as 1/√n
    until it no longer reaches the threshold: in logarithms when the interval is a
    ratio's (symmetric on a log scale), else as it is.
    """
    value, lo, hi = m.value, m.lo, m.hi
    scale = (lambda x: x)
    if lo > 0 and threshold > 0 and value > 0:
        linear = abs(hi + lo - 2 * value) / (hi - lo)
        logs = abs(math.log(hi) + math.log(lo) - 2 * math.log(value)) / math.log(hi / lo)
        scale = math.log if logs < linear else scale
    half, gap = (scale(hi) - scale(lo)) / 2, abs(scale(value) - scale(threshold))
    need = _samples_needed(half, gap, m.n)
    rule = (f"{reading} ({fmt(value, m.digits)} {sign} {threshold:g}, but its interval "
            f"{fmt_interval(lo, hi, m.digits)} reaches both sides); inconclusive for any threshold "
            f"in {fmt_interval(lo, hi, m.digits)}")
    sentence = (f"Measured {fmt(value, m.digits)}, but its interval ({fmt(lo, m.digits)} to {fmt(hi, m.digits)}) "
                f"reaches both sides of the reading's threshold {threshold:g}: this run cannot tell"
                f"{need + ' decide' if need else ''}.")
    return INCONCLUSIVE, measured, rule, sentence, None


RULES = {"exact": _exact, "interval": _interval, "at_least": _threshold, "at_most": _threshold}


def _severity(claim, verdict, deviation, m=None):
    if verdict != CONTRADICTED:
        return None
    if claim.severity:
        return claim.severity
    if claim.rule == "exact" and deviation is not None and deviation <= MINOR_RELATIVE:
        return MINOR
    if claim.rule == "interval" and claim.margin is not None and deviation is not None and deviation <= claim.margin:
        return MINOR
    if _in_band(claim, m):
        return MINOR
    return MATERIAL


def _in_band(claim, m):
    """Whether a threshold rule's statistic may lie where a reasonable reader's cut could fall:
    the statistic, or any of its interval, inside the band (material needs the whole interval
    beyond every reasonable cut)."""
    cut = claim.cut_band if claim.rule in ("at_least", "at_most") else None
    if not cut or m is None:
        return False
    stat = {"value": m.value, "lo": m.lo, "hi": m.hi}[claim.bound]
    if not finite(stat):
        return False
    if claim.bound == "value" and finite(m.lo) and finite(m.hi):
        return m.lo <= cut[1] and cut[0] <= m.hi
    return cut[0] <= stat <= cut[1]


def _finish(claim, verdict, sentence, severity, m=None):
    extra = []
    overstated = verdict == CONTRADICTED and _in_band(claim, m)
    if overstated:
        low, high, why = claim.cut_band
        extra.append(f"The measurement lies inside the band of reasonable cuts for the word ({low:g} to {high:g}: "
                     f"{why}): an overstatement near the cut, not a false idea.")
    if verdict in (CONTRADICTED, PARTLY) and claim.correct:
        extra.append(f"Correct: {claim.correct}")
    if verdict == CONTRADICTED and severity == MINOR and not overstated:
        extra.append("A minor slip (rounding or presentation), not a wrong idea.")
    if claim.note:
        extra.append(claim.note)
    if claim.boundary:
        extra.append(f"On a boundary: {claim.boundary}.")
    return " ".join([sentence, *extra]).strip()


def judge(claim, measurement):
    """The verdict of one claim on one measurement (None: the measure is unavailable)."""
    if claim.rule == "unverifiable":
        return Judged(claim, None, UNVERIFIABLE, "—", claim.reason,
                      _finish(claim, UNVERIFIABLE, f"Not checkable here: {claim.reason}.", None))
    if claim.rule == "reference":
        verdict = {"true": CONFIRMED, "false": CONTRADICTED, "partly": PARTLY}[claim.holds]
        sentence = f"{claim.reference} says: “{claim.reference_quote}”"
        return Judged(claim, None, verdict, "per the cited source", f"decided by {claim.reference}",
                      _finish(claim, verdict, sentence, claim.severity or MATERIAL if verdict == CONTRADICTED
                              else None), (claim.severity or MATERIAL) if verdict == CONTRADICTED else None)
    if measurement is None:
        return unavailable(claim, "no measurement")
    verdict, measured, tolerance, sentence, deviation = RULES[claim.rule](claim, measurement)
    # Evidence that cannot decide (a model that did not learn, too few draws): the numbers stay,
    # the verdict goes.
    undecided = measurement.undecided or (why_too_few(measurement) if verdict in DECISIVE else None)
    if undecided and verdict != INCONCLUSIVE:
        reached = tolerance.partition(STANDS)[0]  # no verdict is reached: none stands for any threshold
        verdict, tolerance, sentence = (INCONCLUSIVE, f"{reached}; not decisive: {undecided}",
                                        f"Inconclusive: {undecided}. (On these numbers: {sentence})")
    severity = _severity(claim, verdict, deviation, measurement)
    return Judged(claim, measurement, verdict, measured, tolerance,
                  _finish(claim, verdict, sentence, severity, measurement), severity)


def unavailable(claim, why):
    """A claim whose measure could not be computed from this run's results."""
    return Judged(claim, None, UNVERIFIABLE, "—", f"not measured in this run: {why}",
                  f"This run did not measure it ({why}).")


def summarize(claim, setups):
    """The verdict of one statement checked in several setups (`setups`: their Judged).

    The verdict is on what the statement asserts: setups that only check a document's own
    arithmetic on its own numbers (kind "consistency") explain the sentence and never decide
    it, so a wrong number reached by a correct step stays wrong.
    """
    deciding = [s for s in setups if s.claim.kind != "consistency"] or list(setups)
    explaining = [s for s in setups if s not in deciding]
    verdict, sentence = _summary_verdict(deciding)
    if explaining:
        held = [s.claim.label for s in explaining if s.verdict == CONFIRMED]
        failed = [s.claim.label for s in explaining if s.verdict == CONTRADICTED]
        if held:
            sentence += f" It follows from the document's own numbers ({'; '.join(held)}), which does not make it right."
        if failed:
            sentence += f" It does not even follow from the document's own numbers ({'; '.join(failed)})."
    severity = None
    if verdict == CONTRADICTED:
        severity = claim.severity or (MATERIAL if any(s.severity == MATERIAL for s in deciding) else MINOR)
    verdicts = [s.verdict for s in setups]
    counts = ", ".join(f"{verdicts.count(v)} {v}" for v in VERDICTS if verdicts.count(v))
    return Judged(claim, None, verdict, counts, f"summary of {len(setups)} setups",
                  _finish(claim, verdict, sentence, severity), severity, tuple(setups))


def _summary_verdict(setups):
    """(verdict, sentence) of the setups that decide a summary."""
    verdicts = [s.verdict for s in setups]
    true = [s.claim.label for s in setups if s.verdict == CONFIRMED]
    false = [s.claim.label for s in setups if s.verdict == CONTRADICTED]
    if not setups or all(v == UNVERIFIABLE for v in verdicts):
        return UNVERIFIABLE, "None of its setups could be checked in this run."
    if true and false:
        return PARTLY, f"True in {len(true)} of {len(setups)} setups ({'; '.join(true)}); false in {'; '.join(false)}."
    if false and len(setups) == 1:
        return CONTRADICTED, f"False: {false[0]}."
    if false:
        return CONTRADICTED, f"False in {len(false)} of {len(setups)} setups ({'; '.join(false)})."
    if true and len(true) == len(setups):
        return CONFIRMED, f"True in every setup checked ({len(setups)})." if len(setups) > 1 else f"True: {true[0]}."
    open_ = "; ".join(s.claim.label for s in setups if s.verdict in (INCONCLUSIVE, UNVERIFIABLE))
    if true:
        return INCONCLUSIVE, (f"True in {len(true)} of {len(setups)} setups ({'; '.join(true)}); this run cannot "
                              f"tell in the others ({open_}).")
    return INCONCLUSIVE, f"This run cannot tell in any setup ({open_})."
