"""A verdict in words: the measured column, the rule applied and the plain sentence.

Judging decides (reportgen.judging.judge) and hands over numbers (reportgen.model.Reason);
this module only says what they mean, at the precision each measurement gives. Every
template, the `check` command and results.json read a verdict's words from here.
"""

import math
from dataclasses import dataclass

from reportgen.experiments.measure import Measurement, finite, has_interval, too_few
from reportgen.formatting import fmt, fmt_interval, parse_printed, shown
from reportgen.model import VERDICTS, Outcome, Prose, Ref, Severity, Verdict

TOO_FEW = "too few draws to decide"
NOT_MEASURED = "(not measured in this build)"
STANDS = "; the verdict stands for any threshold "  # a threshold rule's last clause, for a verdict reached


@dataclass(frozen=True)
class Words:
    """One verdict as the report prints it."""

    measured: str  # the measured column, with its detail after "; "
    rule: str  # the rule applied, with its numbers
    sentence: str  # the verdict in plain sentences, the claim's correction and notes included
    correct: str  # the correct statement, its numbers filled in ("" when none)

    @property
    def headline(self):
        """The measured value as the tables print it, without the detail that follows its ';'."""
        return self.measured.split("; ", 1)[0]


def words(j):
    """Words of one judged claim (reportgen.model.Judged)."""
    measured, rule, sentence = _said(j)
    if j.reason.undecided or j.reason.few:
        why = undecided(j)
        rule = f"{rule.partition(STANDS)[0]}; not decisive: {why}"  # no verdict is reached: none stands
        sentence = f"Inconclusive: {why}. (On these numbers: {sentence})"
    if j.reason.outcome != Outcome.NOT_MEASURED:
        sentence = _finish(j, sentence)
    return Words(measured, rule, sentence, prose(j.correct))


def undecided(j):
    """Why the evidence cannot decide, in words: the measure's own, or too few draws'."""
    r = j.reason
    if r.undecided:
        return r.undecided
    if len(r.few) == 1:
        return f"{r.few[0]:g} draw{' is' if r.few[0] == 1 else 's are'} too few to decide"
    n, need = r.few
    return f"all {n} draws came out the same, and a sign test needs {need} such draws for a {j.measurement.level:.0%} verdict"


def _finish(j, sentence):
    extra = []
    if j.reason.overstated:
        (low, high), why = j.reason.band, j.reason.band_why
        extra.append(f"The measurement lies inside the band of reasonable cuts for the word ({low:g} to {high:g}: "
                     f"{why}): an overstatement near the cut, not a false idea.")
    if j.verdict in (Verdict.CONTRADICTED, Verdict.PARTLY) and j.correct:
        extra.append(f"Correct: {prose(j.correct)}")
    if j.verdict == Verdict.CONTRADICTED and j.severity == Severity.MINOR and not j.reason.overstated:
        extra.append("A minor slip (rounding or presentation), not a wrong idea.")
    if j.note:
        extra.append(prose(j.note))
    if j.boundary:
        extra.append(f"On a boundary: {prose(j.boundary)}.")
    return " ".join([sentence, *extra]).strip()


def _said(j):
    """(measured, rule, sentence) of the rule's branch, before the evidence's own caveats."""
    claim, r = j.claim, j.reason
    o = r.outcome
    if o == Outcome.NO_RULE:
        return "—", claim.reason, f"Not checkable here: {claim.reason}."
    if o == Outcome.CITED:
        return "per the cited source", f"decided by {claim.reference}", f"{claim.reference} says: “{claim.reference_quote}”"
    if o == Outcome.NOT_MEASURED:
        return "—", f"not measured in this run: {r.why}", f"This run did not measure it ({r.why})."
    if o == Outcome.SUMMARY:
        return _summary(j)
    if o in (Outcome.COUNT, Outcome.EXACT):
        return _exact(j)
    if o in (Outcome.NO_NUMBER, Outcome.NO_INTERVAL, Outcome.POINT, Outcome.WITHIN, Outcome.BEYOND, Outcome.OPEN):
        return _interval(j)
    return _threshold(j)


def _exact(j):
    claim, r, m = j.claim, j.reason, j.measurement
    c = r.compared
    printed = [claim.documented] if isinstance(claim.documented, str) else list(claim.documented)
    values = list(c.value) if isinstance(c.value, (tuple, list)) else [c.value]
    if r.outcome == Outcome.COUNT:
        why = f"the measure gives {len(values)} numbers for {len(printed)} printed"
        measured, rule, sentence = "—", why, why
    else:
        digits, same = r.digits, r.same
        rounded = [fmt(v, d).replace(" ", "") for v, d in zip(values, digits)]
        if len(values) == 1:
            measured = shown(values[0], digits[0]) + details_text(c, c.digits)
            rule = f"exact arithmetic, compared at the printed {digits[0]} decimal place(s): {rounded[0]}"
            if all(same):
                sentence = f"{printed[0]} is right: the exact value is {shown(values[0], digits[0])}."
            else:
                sentence = (f"The document prints {printed[0]}, but the exact value is {shown(values[0], digits[0])}, "
                            f"which rounds to {rounded[0]}.")
        else:
            measured = "[" + ", ".join(shown(v, d) for v, d in zip(values, digits)) + "]"
            rule = f"exact arithmetic, entry-wise at the printed precision: {sum(same)} of {len(same)} equal"
            if all(same):
                sentence = f"All {len(values)} printed numbers are right."
            else:
                sentence = (f"{same.count(False)} of {len(values)} printed numbers are wrong: the exact values are "
                            f"[{', '.join(rounded)}] at the printed precision.")
        if c.method:
            rule += f" ({c.method})"
    if r.matched_by:
        label = r.matched_by
        return (f"{measured} ({label})", f"{rule}; matched by the reading {label}",
                f"{sentence} (reading the convention as {label})")
    if r.tried:
        rule += "; no reading matches (" + ", ".join(r.tried) + " tried too)"
        for label, value in m.alternatives:
            measured += f"; {label}: {measured_text(Measurement(value, digits=m.digits))}"
        sentence += " (the other reading of the convention does not give it either)"
    return measured, rule, sentence


def _interval(j):
    claim, r, m = j.claim, j.reason, j.measurement
    text = measured_text(m)
    if r.outcome == Outcome.NO_NUMBER:
        return text, "the documented value is not a number", "The document gives no number to compare."
    if r.outcome == Outcome.NO_INTERVAL:
        return text, f"{m.method}: no finite interval in this run", "This run could not put an interval on the measurement."
    lo, hi, x, d = m.lo, m.hi, r.documented, m.digits
    rule = f"{m.method}: {fmt_interval(lo, hi, d)}"
    where = f"this run measures {fmt(r.statistic, d)} (interval {fmt(lo, d)} to {fmt(hi, d)})"
    said = claim.documented if isinstance(claim.documented, str) else "these numbers"
    if parse_printed(said) is None and claim.value is not None:
        said = f"{said} (= {x:g})"
    if r.outcome == Outcome.POINT:
        if r.holds:
            return text, rule, f"The document says {said}; {where}, which agrees."
        return text, rule, f"The document says {said}, but {where}, which excludes it."
    margin = claim.margin
    rule += f"; equivalence margin ±{margin:g} around {x:g} (two one-sided tests)"
    if r.outcome == Outcome.WITHIN:
        return text, rule, f"The document says {said}; {where}, within ±{margin:g} of it."
    if r.outcome == Outcome.BEYOND:
        return text, rule, f"The document says {said}, but {where}: more than {margin:g} away from it."
    return (text, rule, f"The document says {said}; {where}: this run cannot tell it from values "
                        f"{margin:g} away{_would(r.samples_needed, m.n)}.")


def _would(need, n):
    """'; about N samples instead of n would', or '' when no sample size would decide."""
    if need is None:
        return ""
    return f"; about {need:,} samples instead of {n:,} would".replace(",", " ")


def _threshold(j):
    claim, r, m = j.claim, j.reason, j.measurement
    reading = claim.justification or "threshold"
    if r.outcome == Outcome.NOT_FINITE:
        return (measured_text(m), f"{reading}: the statistic is not finite in this run",
                "This run gives no finite statistic to judge it by.")
    sign = "≥" if claim.rule == "at_least" else "≤"
    d, threshold = m.digits, r.threshold
    measured = measured_text(m) + "".join(f"; {v.label} = {fmt(v.value, d)}" for v in r.views)
    if r.outcome == Outcome.STRADDLES:
        value, lo, hi = r.statistic, m.lo, m.hi
        need = _would(r.samples_needed, m.n)
        rule = (f"{reading} ({fmt(value, d)} {sign} {threshold:g}, but its interval "
                f"{fmt_interval(lo, hi, d)} reaches both sides); inconclusive for any threshold "
                f"in {fmt_interval(lo, hi, d)}")
        sentence = (f"Measured {fmt(value, d)}, but its interval ({fmt(lo, d)} to {fmt(hi, d)}) "
                    f"reaches both sides of the reading's threshold {threshold:g}: this run cannot tell"
                    f"{need + ' decide' if need else ''}.")
        return measured, rule, sentence
    stat, holds = r.statistic, r.holds
    which = "" if claim.bound == "value" else f"{'lower' if claim.bound == 'lo' else 'upper'} bound "
    rule = f"{reading} ({which}{fmt(stat, d)} {sign} {threshold:g})"
    # The range of thresholds over which this verdict stands: up to (or down to) the statistic.
    keeps = "≤" if holds == (claim.rule == "at_least") else ">"
    rule += f"{STANDS}{keeps} {fmt(stat, d)}"
    agree = [v.label for v in r.views if v.holds == holds]
    disagree = [v.label for v in r.views if v.holds != holds]
    if r.outcome == Outcome.SPLIT:
        main = m.method or "the main statistic"
        true_by = ([main] if holds else []) + (agree if holds else disagree)
        false_by = ([] if holds else [main]) + (disagree if holds else agree)
        sentence = (f"True by {', '.join(true_by)} but not by {', '.join(false_by)}: "
                    f"{claim.label} holds for typical cases only in part.")
        return measured, rule + f"; split across statistics ({', '.join(disagree)} disagree)", sentence
    verb = "meets" if holds else "misses"
    also = f" (as do {', '.join(agree)})" if agree else ""
    return measured, rule, f"Measured {fmt(stat, d)}{also}, which {verb} the reading: {reading}."


def _summary(j):
    setups = j.setups
    deciding = [s for s in setups if s.id in j.reason.deciding]
    explaining = [s for s in setups if s.id not in j.reason.deciding]
    sentence = _summary_sentence(deciding)
    if explaining:
        held = [s.claim.label for s in explaining if s.verdict == Verdict.CONFIRMED]
        failed = [s.claim.label for s in explaining if s.verdict == Verdict.CONTRADICTED]
        if held:
            sentence += f" It follows from the document's own numbers ({'; '.join(held)}), which does not make it right."
        if failed:
            sentence += f" It does not even follow from the document's own numbers ({'; '.join(failed)})."
    verdicts = [s.verdict for s in setups]
    counts = ", ".join(f"{verdicts.count(v)} {v}" for v in VERDICTS if verdicts.count(v))
    return counts, f"summary of {len(setups)} setups", sentence


def _summary_sentence(setups):
    """The sentence of the setups that decide a summary."""
    verdicts = [s.verdict for s in setups]
    true = [s.claim.label for s in setups if s.verdict == Verdict.CONFIRMED]
    false = [s.claim.label for s in setups if s.verdict == Verdict.CONTRADICTED]
    if not setups or all(v == Verdict.UNVERIFIABLE for v in verdicts):
        return "None of its setups could be checked in this run."
    if true and false:
        return f"True in {len(true)} of {len(setups)} setups ({'; '.join(true)}); false in {'; '.join(false)}."
    if false and len(setups) == 1:
        return f"False: {false[0]}."
    if false:
        return f"False in {len(false)} of {len(setups)} setups ({'; '.join(false)})."
    if true and len(true) == len(setups):
        return f"True in every setup checked ({len(setups)})." if len(setups) > 1 else f"True: {true[0]}."
    open_ = "; ".join(s.claim.label for s in setups if s.verdict in (Verdict.INCONCLUSIVE, Verdict.UNVERIFIABLE))
    if true:
        return (f"True in {len(true)} of {len(setups)} setups ({'; '.join(true)}); this run cannot "
                f"tell in the others ({open_}).")
    return f"This run cannot tell in any setup ({open_})."


# --- a measurement in words ---------------------------------------------------------------------


def measured_text(m, digits=None):
    """'1.002 (99% CI [0.95, 1.05]); P(x) = 0.1' from a measurement's numbers.

    A value with an interval is printed to the precision the interval supports (never more
    than the measure's own digits); an interval too wide to mean anything says so.
    """
    digits = m.digits if digits is None else digits
    if isinstance(m.value, (tuple, list)):
        text = "[" + ", ".join(fmt(v, digits) for v in m.value) + "]"
    elif m.value is None:
        text = "—"
    elif too_few(m):
        text = fmt(m.value, digits) + f" ({TOO_FEW})"
    else:
        shown_digits = min(digits, supported_digits(m.hi - m.lo, digits)) if has_interval(m) else digits
        text = fmt(m.value, shown_digits)
        if has_interval(m):
            text += f" ({interval_label(m)}{fmt_interval(m.lo, m.hi, shown_digits)})"
    return text + details_text(m, digits)


def interval_label(m):
    """'99% CI ', '99% of runs in ' or 'range ': what a measurement's [lo, hi] is."""
    if not m.level:
        return "range "
    return f"{m.level:.0%} CI " if m.interval == "CI" else f"{m.level:.0%} of runs in "


def supported_digits(width, digits):
    """Decimals that show two significant digits of `width` (an interval's width), at most `digits`."""
    if not finite(width) or width <= 0:
        return digits
    return max(0, min(digits, 1 - math.floor(math.log10(abs(width)))))


def details_text(m, digits):
    """'; label = number' for each (label, number[, digits]) of the measurement's detail."""
    out = []
    for label, number, *own in m.detail:
        out.append(f"; {label} = {number if isinstance(number, str) else fmt(number, own[0] if own else digits)}")
    return "".join(out)


def interval_text(m, digits=None):
    """'99% CI 0.80 to 0.85', or the bare range when the measurement does not know its level.

    An interval the measured column withholds (too few draws, or too wide) is withheld here
    too, with the same words: prose never shows a bound a verdict cannot use.
    """
    digits = m.digits if digits is None else digits
    if m.lo is None or m.hi is None:
        return ""
    if too_few(m):
        return TOO_FEW
    return f"{interval_label(m)}{fmt(m.lo, digits)} to {fmt(m.hi, digits)}"


# --- the claims data's texts, their numbers filled in ----------------------------------------


def prose(p):
    """A Prose as text: its words, and each number at the precision its Ref gives."""
    return "".join(part if isinstance(part, str) else ref(part) for part in (p.parts if p else ()))


def ref(r):
    """One number a text names, printed (reportgen.judging.prose gives the fields)."""
    if r.field == "interval":
        return interval_text(r.measurement, r.digits) if r.measurement is not None else NOT_MEASURED
    if r.value is None:
        return NOT_MEASURED
    if r.field == "verdict":
        return str(r.value)
    if r.field == "threshold":
        return f"{r.value:g}"
    if r.field == "n":
        return f"{r.value:,}".replace(",", " ")
    if not isinstance(r.value, (int, float)) or not math.isfinite(r.value):
        return NOT_MEASURED
    if r.field == "pct":
        return fmt(100 * r.value, r.digits) + "%"
    return fmt(r.value, r.digits)


__all__ = ["NOT_MEASURED", "TOO_FEW", "Prose", "Ref", "Words", "measured_text", "prose", "words"]
