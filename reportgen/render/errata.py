"""One errata sheet per document, from the report's context.

A sheet is for the instructor who teaches from one document: how to cite it, its counts,
its material errors beside the correct statement, its minor slips, then every statement
checked, in the document's order, and last the statements no measurement can decide, each
with its reason (report.pdf counts them and points here; report.html lists them all). A
sheet holds nothing of the other documents or of the build as a whole (no build id, no
overall counts), so its PDF is cached on its own content: a change to one document's claims
renders that sheet alone again.
"""

from reportgen.artifacts import by_name
from reportgen.model import statements, verdict_counts
from reportgen.render import wording

ERRATA = by_name("errata")

def measured_values(row):
    """What a wrong row measured, as rows: a statement summed up over setups shows its wrong
    setups (its own "measured" only counts verdicts)."""
    setups = [s for s in getattr(row["j"], "setups", ()) if s.verdict in ("contradicted", "partly")]
    if not setups:
        return [row]
    return [{"label": s.claim.label, "documented": s.documented, "headline": wording.words(s).headline,
             "j": s} for s in setups]


def _groups(rows):
    """Consecutive rows that share a section and a quote, each group once (document order)."""
    out = []
    for row in rows:
        if out and (out[-1]["section"], out[-1]["quote"]) == (row["section"], row["quote"]):
            out[-1]["rows"].append(row)
        else:
            out.append({"section": row["section"], "quote": row["quote"], "doc": row["doc"], "rows": [row]})
    return out


def material_rows(found_doc):
    """The sheet's table of material errors: one row per passage, in document order, with what was
    measured and each correction (a passage wrong in several numbers is quoted once, not once
    for each)."""
    out = []
    for group in found_doc["material"]:
        for item in group["items"]:
            for passage in _groups(item["rows"]):
                shown = [v for r in passage["rows"] for v in measured_values(r)]
                tables = {r["table"] for r in passage["rows"] if r["table"]}
                if not out or (out[-1]["section"], out[-1]["quote"]) != (group["section"], passage["quote"]):
                    out.append({"section": group["section"], "quote": passage["quote"], "rows": [],
                                "corrections": [], "tables": []})
                last = out[-1]
                last["rows"] += shown
                if item["correct"] and item["correct"] not in last["corrections"]:
                    last["corrections"].append(item["correct"])
                last["tables"] = sorted(set(last["tables"]) | tables)
    for row in out:  # a value's label only where the printed values do not tell them apart
        row["labelled"] = len({str(r["documented"]) for r in row["rows"]}) < len(row["rows"])
    return out


def sheets(catalog, rows, found, documents, profile_warning):
    """[{doc, name, title, reference, counts, material, minor, partly, passages, unchecked}]
    for each document with a judged statement, in the catalog's order."""
    by_doc = {d["doc"]: d for d in found["documents"]}
    reference = {d["id"]: d for d in documents}
    out = []
    for doc, document in catalog.documents.items():
        mine = [rows[c.id] for c in catalog.claims if c.doc == doc and c.id in rows]
        if not mine:
            continue
        top = statements(r["j"] for r in mine)
        counts = verdict_counts(top)
        out.append({
            "doc": doc,
            "name": ERRATA.key(doc),  # its files: reportgen.artifacts
            "title": document.title,
            "reference": reference.get(doc, {"id": doc, "title": document.title, "citation": document.citation}),
            "counts": counts,
            "n_statements": len(top),
            "n_checks": len(mine),
            "n_material": by_doc[doc]["n_material"] if doc in by_doc else 0,
            "material": material_rows(by_doc[doc]) if doc in by_doc else [],
            "minor": by_doc[doc]["minor"] if doc in by_doc else [],
            "partly": by_doc[doc]["partly"] if doc in by_doc else [],
            "passages": _groups(mine),
            "unchecked": [u for u in catalog.unchecked if u.doc == doc],
            "profile_warning": profile_warning,
        })
    return out


def short_title(title):
    """A document's title without the kind it adds in parentheses: "Why Scale by √d_k?"."""
    head, sep, tail = title.rpartition(" (")
    return head if sep and tail.endswith(")") else title
