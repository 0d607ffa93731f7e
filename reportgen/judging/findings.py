"""The Findings sorted: which statements are material errors (by document and section), minor
slips, true only in part, fixed in their documents or stale, and what holds, chapter by chapter.

A material summary statement stands for its setups: they are not listed again.
"""

from reportgen.model import (
    MOVED,
    DocumentFindings,
    Findings,
    QuoteState,
    Severity,
    Verdict,
    statements,
    verdict_counts,
)

UNSETTLED = (Verdict.INCONCLUSIVE, Verdict.UNVERIFIABLE)


def findings(sections, top, documents, counts):
    """Findings of the statements `top` (each once), for the documents' ids in their order."""
    covered = {s.id for j in top if j.severity == Severity.MATERIAL for s in j.setups}
    by_doc = {doc: {"material": {}, "minor": [], "partly": []} for doc in documents}
    moved = []
    for j in top:
        mine = by_doc.setdefault(j.claim.doc, {"material": {}, "minor": [], "partly": []})
        if j.quote_state in MOVED:
            moved.append(j)
        elif j.severity == Severity.MATERIAL:
            if j.id not in covered:
                mine["material"].setdefault(j.claim.section, []).append(j)
        elif j.severity == Severity.MINOR:
            mine["minor"].append(j)
        elif j.verdict == Verdict.PARTLY:
            mine["partly"].append(j)
    docs = []
    for doc, found in by_doc.items():
        mine = [j for j in top if j.claim.doc == doc]
        docs.append(DocumentFindings(
            doc=doc, counts=verdict_counts(mine),
            material=tuple((section, tuple(js)) for section, js in found["material"].items()),
            n_material=sum(1 for j in mine if j.severity == Severity.MATERIAL and j.quote_state != QuoteState.FIXED),
            minor=tuple(found["minor"]), partly=tuple(found["partly"])))
    right = []
    for s in sections:
        mine = statements(s.judged)
        confirmed = [j for j in mine if j.verdict == Verdict.CONFIRMED]
        if mine:
            right.append((s.experiment.name, len(confirmed), len(mine), tuple(sorted({j.claim.doc for j in confirmed}))))
    return Findings(
        documents=tuple(docs),
        fixed=tuple(j for j in moved if j.quote_state == QuoteState.FIXED),
        stale=tuple(j for j in moved if j.quote_state != QuoteState.FIXED),
        right=tuple(right),
        n_material=sum(d.n_material for d in docs),
        n_minor=sum(len(d.minor) for d in docs),
        n_partly=sum(len(d.partly) for d in docs),
        n_unsettled=sum(counts.get(v, 0) for v in UNSETTLED),
    )
