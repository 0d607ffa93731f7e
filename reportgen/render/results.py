"""results.json: the report model serialised, every number shown and every verdict's reason as numbers.

Schema 3 adds each claim's `reason` (reportgen.model.Reason: the rule's branch and the numbers
it compared) beside the words the report prints for it; `reportgen diff` reads 2 and 3.
"""

import math

from reportgen.experiments.cells import table_json
from reportgen.experiments.family import Table
from reportgen.experiments.stats import LEVEL
from reportgen.render import wording


def _json_safe(value):
    """Results with NaN/inf as strings, so results.json stays strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


SCHEMA_VERSION = 3  # results.json layout; 2: claims by id, measurements as numbers; 3: each verdict's reason as numbers


def claim_json(j):
    """One judged claim as results.json holds it: the claim, its measurement and the verdict's
    reason as numbers (reportgen.model), and the words the report prints for them."""
    c, said = j.claim, wording.words(j)
    return {
        "id": c.id,
        "doc": c.doc,
        "section": c.section,
        "quote": c.quote,
        "label": c.label,
        "kind": c.kind,
        "documented": c.documented,
        "documented_value": c.documented_value,
        "measure": {"name": c.measure, "args": c.args} if c.measure else None,
        "measurement": j.measurement.to_json() if j.measurement else None,
        "rule": c.rule,
        "verdict": j.verdict,
        "severity": j.severity,
        "reason": j.reason.to_json(),
        "measured": said.measured,
        "tolerance": said.rule,
        "sentence": said.sentence,
        "correct": said.correct,
        "setups": [s.id for s in j.setups],
        "table": c.table,
        "quote_state": j.quote_state,
        "printed_over_true": j.printed_over_true,
    }


def _claim_table_json(table, rows):
    return {"slug": table.slug, "title": table.title, "claims": [j.id for j in rows]}


def results_document(report, catalog, info, title):
    """Every number shown, every claim with its quote, measurement and verdict, and provenance, from
    the report model (reportgen.model.Report)."""
    experiments = {}
    for s in report.sections:
        experiments[s.experiment.name] = {
            "title": s.experiment.title,
            "status": "failed" if s.error else "ok",
            "error": s.error,
            "nonfinite": list(s.run.nonfinite),
            "results": _json_safe(s.run.results),
            "tables": [
                table_json(t)  # its cells as numbers (reportgen.experiments.cells)
                if isinstance(t, Table) else _claim_table_json(*t)
                for t in s.tables
            ],
        }
    judged = report.judged
    return {
        "schema_version": SCHEMA_VERSION,
        "title": title,
        "provenance": info,
        "documents": {d.id: {"title": d.title, "citation": d.citation} for d in catalog.documents.values()},
        "verdicts": report.counts,  # statements: a summary stands for its setups
        "counts": report.tally,  # statements and checks, named as the report and `check` name them
        "coverage": report.coverage,
        "family_wise": report.family_wise,
        "interval_level": LEVEL,  # of every confidence interval the report prints and judges by
        "not_checkable": [{"doc": u.doc, "section": u.section, "quote": u.quote, "reason": u.reason}
                          for u in catalog.unchecked],
        "claims": [_json_safe(claim_json(j)) for j in judged],
        "experiments": experiments,
    }
