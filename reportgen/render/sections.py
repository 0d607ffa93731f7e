"""A section laid out: its claims tables filled with their verdicts, its figures beside them.

A failure in any of them fails only its own section (reportgen.model.Section): the report
shows a failure box there.
"""

from dataclasses import replace

from reportgen.errors import short_traceback
from reportgen.experiments.family import ClaimTable


def lay_out(run, judged, documents=None):
    """The family's tables, each claims-table slot holding the verdicts that name it; with
    `documents` (the ids this build checks), without the parts written about other documents."""
    experiment = run.experiment
    by_table = {}
    for j in judged:
        by_table.setdefault(j.claim.table, []).append(j)
    tables = []
    layout = experiment.tables(run.results)
    slots = tuple(t.slug for t in layout if isinstance(t, ClaimTable))
    if slots != experiment.claim_tables:  # what claims are checked against before any run
        raise LookupError(f"the {experiment.name} layout's claims tables {slots} differ from its "
                          f"declared claim_tables {experiment.claim_tables}")
    for table in layout:
        if documents is not None and not (experiment.shown(table.part, documents)
                                          and experiment.shown(table.slug, documents)):
            continue
        if isinstance(table, ClaimTable):
            rows = tuple(by_table.pop(table.slug, ()))
            if rows:
                tables.append((table, rows))
        else:
            tables.append(table)
    if by_table:
        raise LookupError(f"claims name tables the {run.experiment.name} layout lacks: {', '.join(sorted(by_table))}")
    return tuple(tables)


def lay_out_all(sections, documents=None):
    """Each section with its tables, the claims-table slots filled with their verdicts."""
    out = []
    for s in sections:
        if s.error:
            out.append(s)
            continue
        try:
            out.append(replace(s, tables=lay_out(s.run, s.judged, documents)))
        except Exception as exc:
            out.append(replace(s, judged=(), error=short_traceback(exc)))
    return out


def with_figures(section, drawn, documents=None):
    """The section with its figures (those of the parts shown for `documents`), or failed with
    the drawing's error."""
    if drawn is None:
        return section
    figures, error = drawn
    if error:
        return replace(section, tables=(), judged=(), error=error)
    experiment = section.experiment
    return replace(section, figures=tuple(f for f in figures if documents is None
                                          or experiment.shown(f[0].part, documents)))
