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
identical draws fewer than a sign test needs: reportgen.experiments.measure.why_too_few), makes
any verdict inconclusive, with that reason.

A contradicted verdict carries a severity: material (a reader would learn something
false) or minor (rounding, rounding order, presentation). The claim may say which;
otherwise a value within 1% of the exact one (or within the equivalence margin) is minor.
A verdict comes with its reason as numbers (reportgen.model.Reason: the rule's branch, what it
compared, the samples that would decide); reportgen.render.wording says it in one plain sentence.
"""

import math
from dataclasses import replace
from decimal import Decimal

from reportgen.experiments import thresholds
from reportgen.formatting import fmt, printed_digits
from reportgen.judging.printed import printed_over_true
from reportgen.judging.prose import claim_texts
from reportgen.experiments.measure import Measurement, finite, why_too_few
from reportgen.model import (
    DECISIVE,
    VERDICTS,
    Judged,
    Outcome,
    Reason,
    Severity,
    Verdict,
    View,
)

CONFIRMED, PARTLY, CONTRADICTED = Verdict.CONFIRMED, Verdict.PARTLY, Verdict.CONTRADICTED
INCONCLUSIVE, UNVERIFIABLE = Verdict.INCONCLUSIVE, Verdict.UNVERIFIABLE
MATERIAL, MINOR = Severity.MATERIAL, Severity.MINOR

MINOR_RELATIVE = 0.01  # an exact value off by at most 1% is a rounding-size slip unless the claim says otherwise


# --- the rules: each returns (verdict, Reason); reportgen.render.wording says them in words ---


def _exact(claim, m):
    result = _exact_one(claim, m)
    for label, value in m.alternatives:
        if result[0] == CONFIRMED:
            break
        other = _exact_one(claim, Measurement(value, method=m.method))
        if other[0] == CONFIRMED:
            return CONFIRMED, replace(other[1], matched_by=label, deviation=0.0)
    verdict, reason = result
    if m.alternatives and verdict != CONFIRMED:
        reason = replace(reason, tried=tuple(label for label, _ in m.alternatives))
    return verdict, reason


def _exact_one(claim, m):
    printed = [claim.documented] if isinstance(claim.documented, str) else list(claim.documented)
    values = list(m.value) if isinstance(m.value, (tuple, list)) else [m.value]
    if len(printed) != len(values):
        return UNVERIFIABLE, Reason(Outcome.COUNT, compared=m)
    plain = [p.replace("\u2212", "-").replace(",", "") for p in printed]
    digits = [printed_digits(p) for p in plain]
    rounded = [fmt(v, d).replace(" ", "") for v, d in zip(values, digits)]
    same = [Decimal(r) == Decimal(p) for r, p in zip(rounded, plain)]
    verdict = CONFIRMED if all(same) else CONTRADICTED
    deviation = max((abs(float(p) - v) / abs(v) if v else abs(float(p)) for p, v in zip(plain, values)),
                    default=0.0)
    return verdict, Reason(Outcome.EXACT, compared=m, digits=tuple(digits), same=tuple(same), deviation=deviation)


def _interval(claim, m):
    x = claim.documented_value
    lo, hi = m.lo, m.hi
    if x is None:
        return UNVERIFIABLE, Reason(Outcome.NO_NUMBER)
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return UNVERIFIABLE, Reason(Outcome.NO_INTERVAL)
    value = m.value if isinstance(m.value, (int, float)) else (lo + hi) / 2
    if claim.margin is None:
        # A point statement (a printed draw, a sum that should be exactly 1): containment.
        inside = bool(lo <= x <= hi)
        return ((CONFIRMED if inside else CONTRADICTED),
                Reason(Outcome.POINT, documented=x, statistic=value, holds=inside,
                       deviation=0.0 if inside else abs(value - x)))
    # Equivalence first (two one-sided tests): the statement holds when the whole interval lies
    # within documented ± margin, fails when the whole interval lies beyond it, and otherwise
    # this run cannot tell; an interval that misses the documented number but stays inside the
    # margin is a confirmation, not a contradiction.
    margin = claim.margin
    if x - margin <= lo and hi <= x + margin:
        return CONFIRMED, Reason(Outcome.WITHIN, documented=x, statistic=value, deviation=0.0)
    if hi < x - margin or lo > x + margin:
        return CONTRADICTED, Reason(Outcome.BEYOND, documented=x, statistic=value, deviation=abs(value - x))
    # The interval shrinks as 1/√n: to decide, its half-width must fall below the distance from
    # the estimate to the nearer edge of the margin.
    half, off = (hi - lo) / 2, abs(value - x)
    return INCONCLUSIVE, Reason(Outcome.OPEN, documented=x, statistic=value,
                                samples_needed=samples_needed(half, abs(margin - off), m.n))


def samples_needed(half, gap, n):
    """About how many samples would decide: an interval's half-width shrinks as 1/√n, and must
    fall below `gap`. None when there is no sample size or no gap."""
    if not n or gap <= 0:
        return None
    return math.ceil((half / gap) ** 2 * n)


def _threshold(claim, m):
    threshold = thresholds.value(claim.threshold)
    stat = {"value": m.value, "lo": m.lo, "hi": m.hi}[claim.bound]
    if not finite(stat):
        return UNVERIFIABLE, Reason(Outcome.NOT_FINITE, threshold=threshold)

    def holds(s):
        return bool(s >= threshold if claim.rule == "at_least" else s <= threshold)

    views = tuple(View(label, v, holds(v)) for label, v in m.views if finite(v))
    if claim.bound == "value" and finite(m.lo) and finite(m.hi) and holds(m.lo) != holds(m.hi):
        return INCONCLUSIVE, _straddles(m, threshold, views)
    if any(v.holds != holds(stat) for v in views):
        return PARTLY, Reason(Outcome.SPLIT, statistic=stat, threshold=threshold, holds=holds(stat), views=views)
    verdict = CONFIRMED if holds(stat) else CONTRADICTED
    deviation = abs(stat - threshold) / abs(threshold) if threshold else None
    return verdict, Reason(Outcome.DECIDED, statistic=stat, threshold=threshold, holds=holds(stat), views=views,
                           deviation=deviation)


def _straddles(m, threshold, views):
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
    return Reason(Outcome.STRADDLES, statistic=value, threshold=threshold, views=views,
                  samples_needed=samples_needed(half, gap, m.n))


RULES = {"exact": _exact, "interval": _interval, "at_least": _threshold, "at_most": _threshold}


def _severity(claim, verdict, deviation, m=None):
    if verdict != CONTRADICTED:
        return None
    if claim.severity:
        return Severity(claim.severity)
    if claim.rule == "exact" and deviation is not None and deviation <= MINOR_RELATIVE:
        return MINOR
    if claim.rule == "interval" and claim.margin is not None and deviation is not None and deviation <= claim.margin:
        return MINOR
    if _in_band(claim, m):
        return MINOR
    return MATERIAL


def cut_band(claim):
    """(low, high, why) of the reasonable cuts for a threshold rule's word, or None: the claim's
    own band, else its named threshold's (reportgen.experiments.thresholds)."""
    if claim.rule not in ("at_least", "at_most"):
        return None
    if claim.band:
        return (*claim.band, claim.band_reason)
    return thresholds.band(claim.threshold)


def _in_band(claim, m):
    """Whether a threshold rule's statistic may lie where a reasonable reader's cut could fall:
    the statistic, or any of its interval, inside the band (material needs the whole interval
    beyond every reasonable cut)."""
    cut = cut_band(claim)
    if not cut or m is None:
        return False
    stat = {"value": m.value, "lo": m.lo, "hi": m.hi}[claim.bound]
    if not finite(stat):
        return False
    if claim.bound == "value" and finite(m.lo) and finite(m.hi):
        return m.lo <= cut[1] and cut[0] <= m.hi
    return cut[0] <= stat <= cut[1]


def judge(claim, measurement):
    """The verdict of one claim on one measurement (None: the measure is unavailable); the
    numbers its texts name are resolved once every claim is judged (reportgen.judging.runs.fill_in)."""
    judged = _judge(claim, measurement)
    if judged.reason.outcome == Outcome.NOT_MEASURED:
        return judged
    return replace(judged, **claim_texts(claim, judged.verdict, {}))


def _judge(claim, measurement):
    if claim.rule == "unverifiable":
        return Judged(claim, None, UNVERIFIABLE, Reason(Outcome.NO_RULE))
    if claim.rule == "reference":
        verdict = {"true": CONFIRMED, "false": CONTRADICTED, "partly": PARTLY}[claim.holds]
        severity = Severity(claim.severity or MATERIAL) if verdict == CONTRADICTED else None
        return Judged(claim, None, verdict, Reason(Outcome.CITED), severity)
    if measurement is None:
        return unavailable(claim, "no measurement")
    verdict, reason = RULES[claim.rule](claim, measurement)
    # Evidence that cannot decide (a model that did not learn, too few draws): the numbers stay,
    # the verdict goes.
    few = why_too_few(measurement) if verdict in DECISIVE and not measurement.undecided else ()
    if (measurement.undecided or few) and verdict != INCONCLUSIVE:
        verdict, reason = INCONCLUSIVE, replace(reason, undecided=measurement.undecided, few=few)
    severity = _severity(claim, verdict, reason.deviation, measurement)
    if verdict == CONTRADICTED and _in_band(claim, measurement):
        low, high, why = cut_band(claim)
        reason = replace(reason, overstated=True, band=(low, high), band_why=why)
    return Judged(claim, measurement, verdict, reason, severity,
                  printed_over_true=printed_over_true(claim, measurement))


def unavailable(claim, why):
    """A claim whose measure could not be computed from this run's results."""
    return Judged(claim, None, UNVERIFIABLE, Reason(Outcome.NOT_MEASURED, why=why))


def summarize(claim, setups):
    """The verdict of one statement checked in several setups (`setups`: their Judged).

    The verdict is on what the statement asserts: setups that only check a document's own
    arithmetic on its own numbers (kind "consistency") explain the sentence and never decide
    it, so a wrong number reached by a correct step stays wrong.
    """
    deciding = [s for s in setups if s.claim.kind != "consistency"] or list(setups)
    verdict = _summary_verdict(deciding)
    severity = None
    if verdict == CONTRADICTED:
        severity = Severity(claim.severity) if claim.severity else (
            MATERIAL if any(s.severity == MATERIAL for s in deciding) else MINOR)
    return Judged(claim, None, verdict, Reason(Outcome.SUMMARY, deciding=tuple(s.id for s in deciding)),
                  severity, tuple(setups), **claim_texts(claim, verdict, {}))


def _summary_verdict(setups):
    """The verdict of the setups that decide a summary."""
    verdicts = [s.verdict for s in setups]
    if not setups or all(v == UNVERIFIABLE for v in verdicts):
        return UNVERIFIABLE
    if CONTRADICTED in verdicts:
        return PARTLY if CONFIRMED in verdicts else CONTRADICTED
    if all(v == CONFIRMED for v in verdicts):
        return CONFIRMED
    return INCONCLUSIVE


__all__ = ["VERDICTS", "judge", "summarize", "unavailable"]
