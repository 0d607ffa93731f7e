"""A build's verdicts: each run's claims judged on its measures, then summed up, filled in and
marked with the state of their quotes. reportgen.judging.judge decides each verdict; this module
only hands it the measurements and carries the verdicts on.
"""

from dataclasses import replace

from reportgen.errors import short_traceback
from reportgen.experiments.measure import MeasureUnavailable, level_of
from reportgen.judging import prose
from reportgen.judging.documents import UNREAD, state
from reportgen.judging.judge import judge, summarize, unavailable
from reportgen.model import QuoteState, Section


def present(run, claims):
    """The section of a finished run: its claims' verdicts; a failure here fails only this section."""
    if run.error:
        return Section(run, error=run.error)
    try:
        return Section(run, judge_run(run, claims))
    except Exception as exc:
        return Section(run, error=short_traceback(exc))


def judge_run(run, claims):
    """The verdict of every claim measured by this run's family, in claims order."""
    if run.results is None:
        return ()
    measures = run.experiment.measures()
    judged = []
    for claim in claims:
        if claim.rule in ("unverifiable", "reference"):
            judged.append(judge(claim, None))
            continue
        name = claim.measure.split(".", 1)[1]
        if name not in measures:
            judged.append(unavailable(claim, f"the {run.experiment.name} family has no measure '{name}'"))
            continue
        try:
            measurement = measures[name](run.results, **claim.args)
        except MeasureUnavailable as exc:
            judged.append(unavailable(claim, str(exc)))
            continue
        if measurement.level is None and measurement.lo is not None:
            measurement = replace(measurement, level=level_of(measures[name], claim.args))
        judged.append(judge(claim, measurement))
    return tuple(judged)


def documented_numbers(claims):
    """{claim id: the documented number} for figures that mark what a document prints."""
    return {c.id: c.documented_value for c in claims}


def sum_up(sections, catalog):
    """Judge each statement checked in several setups from its setups' verdicts, and place it
    in the section of the family it names (beside its setups' tables)."""
    judged = {j.id: j for s in sections for j in s.judged}
    ran = {s.experiment.name for s in sections if not s.error}
    extra = {}
    for claim in catalog.summaries():
        if catalog.families_needed(claim) <= ran:  # else it is not judged at all
            setups = [judged[i] for i in claim.over if i in judged]
            extra.setdefault(claim.family, []).append(summarize(claim, setups))
    return [replace(s, judged=s.judged + tuple(extra.get(s.experiment.name, ()))) for s in sections]


def fill_in(sections):
    """Each verdict's correct statement, note and boundary with the numbers they name resolved
    from this build's measurements (reportgen.judging.prose), once every statement is judged."""
    judged = {j.id: j for s in sections for j in s.judged}

    def filled(j):
        return replace(j, **prose.claim_texts(j.claim, j.verdict, judged))

    return [replace(s, judged=tuple(filled(j) for j in s.judged)) for s in sections]


def mark_quotes(sections, quotes):
    """Each verdict with the state of its quote in the document's text now (reportgen.judging.documents):
    found, gone, an error fixed in the document, or not looked up."""
    def marked(j):
        return replace(j, quote_state=QuoteState(state(quotes.get(j.id, UNREAD), j.verdict)))

    return [replace(s, judged=tuple(marked(j) for j in s.judged)) for s in sections]
