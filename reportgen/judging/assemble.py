"""A build's verdicts as one report model: the sections, and everything counted once.

Judging's last step (reportgen.model.Report): the statements, their verdict counts, the tally,
coverage per document, the family-wise error count, the √d_k story and what none of the
documents says. Every output reads these; none counts again.
"""

from reportgen.judging import story
from reportgen.judging.findings import findings
from reportgen.judging.tally import coverage, family_wise, tally
from reportgen.model import Report, statements, verdict_counts


def assemble(sections, catalog):
    """The report model of laid-out sections (their claims tables hold the verdicts they show)."""
    judged = [j for s in sections for j in s.judged]
    top = statements(judged)
    counts = verdict_counts(top)
    return Report(
        sections=tuple(sections),
        statements=tuple(top),
        counts=counts,
        tally=tally(judged),
        coverage=coverage(judged, catalog.documents, catalog.unchecked),
        family_wise=family_wise(judged),
        findings=findings(sections, top, list(catalog.documents), counts),
        story=story.story(catalog, sections),
        unsaid=story.unsaid(catalog, sections),
    )
