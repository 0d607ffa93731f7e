"""The verdicts counted: statements (a summary stands for its setups), coverage per document, tallies."""

from reportgen.model import Verdict, statements, verdict_counts

CONFIRMED, CONTRADICTED, UNVERIFIABLE = Verdict.CONFIRMED, Verdict.CONTRADICTED, Verdict.UNVERIFIABLE

def coverage(judged, documents, unchecked):
    """Per document: statements found, checked, left unverifiable, not checkable, consistency rows."""
    top = statements(judged)
    out = {}
    for doc in documents:
        mine = [j for j in top if j.claim.doc == doc]
        not_checkable = sum(1 for u in unchecked if u.doc == doc)
        unverifiable = sum(1 for j in mine if j.verdict == UNVERIFIABLE)
        out[doc] = {
            "found": len(mine) + not_checkable,
            "statements": len(mine),
            "checked": len(mine) - unverifiable,
            "unverifiable": unverifiable,
            "not_checkable": not_checkable,
            "consistency": sum(1 for j in mine if j.claim.kind == "consistency"),
            "rows": sum(1 for j in judged if j.claim.doc == doc),
        }
    return out


def family_wise(judged):
    """The interval rows and how many false contradictions chance alone would give among them.

    Each interval row uses its own confidence level (args 'level', default 0.99); if every
    statement were true, the expected number of false contradictions is the sum of (1 − level).
    """
    rows = [j for j in judged if j.claim.rule == "interval" and j.measurement is not None
            and j.claim.kind in ("statistical", "premise")]
    expected = sum(1 - float(j.claim.args.get("level", 0.99)) for j in rows)
    return {"interval_rows": len(rows), "expected_false_contradictions": round(expected, 2),
            "contradicted": sum(1 for j in rows if j.verdict == CONTRADICTED)}


def tally(judged):
    """The report's counts in one vocabulary.

    A *statement* is what a document asserts (a summary stands for its setups); a *check* is
    every row that tests something, setups included. Of the statements confirmed ("hold as
    written"), each holds by one of three kinds of evidence: a measurement of this run, the
    source it cites (rule reference), or only consistency with the document's own numbers.
    """
    judged = list(judged)
    top = statements(judged)
    confirmed = [j for j in top if j.verdict == CONFIRMED]
    cited = sum(1 for j in confirmed if j.claim.rule == "reference")
    consistency = sum(1 for j in confirmed if j.claim.kind == "consistency" and j.claim.rule != "reference")
    return {
        "statements": len(top),
        "checks": len(judged),
        "verdicts": verdict_counts(top),
        "check_verdicts": verdict_counts(judged),
        "hold": {"measured": len(confirmed) - cited - consistency, "cited": cited, "consistency": consistency},
    }
