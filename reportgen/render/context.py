"""What the templates show, numbered and grouped: findings, chapters, appendix, sources.

The context is built once per build and rendered three times (report.html, report.pdf,
report-handout.pdf). Every number in it is a measurement of this run, formatted by the
judge or by reportgen.formatting; the templates add only fixed connecting sentences.
"""

import base64
import datetime
import os
import tomllib
from importlib import resources
from pathlib import Path

from reportgen.errors import ReportgenError
from reportgen.experiments.family import Table
from reportgen.experiments.sources import Source
from reportgen.experiments.stats import LEVEL
from reportgen.model import MOVED_WORDS, VERDICTS, verdict_counts
from reportgen.render import errata, plainwords, wording

# What every page of a build of these profiles says about itself: its sizes decide nothing
# (the title page's sentence, which every PDF page repeats in its margin).
PROFILE_WARNINGS = {"quick": "Quick profile: sizes too small for the verdicts to be relied on."}


def claim_row(j, table):
    """One judged claim as every template shows it."""
    c, said = j.claim, wording.words(j)
    return {
        "j": j,
        "id": j.id,
        "doc": c.doc,
        "section": c.section,
        "label": c.label,
        "quote": c.quote,
        "documented": j.documented,
        "measured": said.measured,
        "headline": said.headline,
        "verdict": j.verdict,
        "severity": j.severity,
        "sentence": said.sentence,
        "correct": said.correct,
        "tolerance": said.rule,
        "table": table,
        "quote_state": j.quote_state,
        "quote_words": MOVED_WORDS.get(j.quote_state, ""),
    }


def passages(rows):
    """Consecutive rows that check one passage of a document, grouped under it.

    The passage (document, section, verbatim quote) heads its rows once, however many values
    it holds: the appendix shows each quote once, and the PDF sets a fifth fewer lines.
    """
    groups = []
    for row in rows:
        key = (row["doc"], row["section"], row["quote"])
        if groups and groups[-1]["key"] == key:
            groups[-1]["rows"].append(row)
        else:
            groups.append({"key": key, "doc": row["doc"], "section": row["section"], "quote": row["quote"],
                           "rows": [row]})
    return groups


def _figure_files(config, experiment, slug, formats):
    """Links from the output folder to a figure's files (SVG, PNG: those this build drew)."""
    out = Path(config.output).resolve()
    folder = Path(config.figures).resolve() / experiment
    return {fmt: Path(os.path.relpath(folder / f"{slug}.{fmt}", out)).as_posix() for fmt in formats}


def covered(section, documents):
    """The document sections a chapter covers: the family's own among `documents`, and those
    its claims quote from documents it does not name (a course's)."""
    own = [c for c in section.experiment.covers if c.doc in documents]
    named = {c.doc for c in section.experiment.covers}
    more = [Source(j.claim.doc, j.claim.section) for j in section.judged if j.claim.doc not in named]
    return list(dict.fromkeys(own + more))


def covered_sections(covers, titles):
    """A chapter's sources as [{title, sections}], one per document in order of first mention:
    a reader sees the document's title, never its number."""
    out = {}
    for source in covers:
        out.setdefault(source.doc, {"title": titles.get(source.doc, source.doc), "sections": []})["sections"].append(
            source.section)
    return list(out.values())


def undecided_caveat(judged):
    """The caption's warning for figures of a chapter whose evidence cannot decide (a language
    model that did not learn: Measurement.undecided), in the measure's own words; '' otherwise."""
    for j in (x for j in judged for x in (j, *getattr(j, "setups", ()))):
        why = getattr(j.measurement, "undecided", "") if j.measurement is not None else ""
        if why:
            return f"Read with care: {why}; no verdict rests on what this figure shows."
    return ""


def chapters_and_appendix(sections, config, documents=None, titles=None):
    """Numbered chapters (data tables, figures) and the appendix of claims tables, by chapter;
    `documents`: the ids this build checks (default: every document a family names); `titles`
    names each document (id -> short title) in the chapters' lines of sources."""
    titles = titles or {}
    chapters, appendix, rows = [], [], {}
    fig_no = tab_no = claims_no = 0
    for index, s in enumerate(sections):
        number = index + 2  # chapter 1 is the reading guide
        parts = {}  # sub-heading -> its figures and tables, in order of first appearance
        for t in s.tables:
            part = t.part if isinstance(t, Table) else t[0].part
            parts.setdefault(part, {"title": part, "figures": [], "tables": []})["tables"].append(t)
        for fig, files in s.figures:
            parts.setdefault(fig.part, {"title": fig.part, "figures": [], "tables": []})["figures"].append((fig, files))
        group = {"number": number, "slug": s.experiment.name, "title": s.experiment.title, "tables": []}
        caveat = undecided_caveat(s.judged)
        titled = 0
        for part in parts.values():
            if part["title"]:
                titled += 1
                part["number"] = f"{number}.{titled}"
                part["anchor"] = f"{s.experiment.name}-{titled}"
            figures, tables = [], []
            for fig, files in part["figures"]:
                fig_no += 1
                figures.append({
                    "number": fig_no, "slug": fig.slug, "caption": fig.caption, "alt": fig.alt,
                    # report.html draws the SVG; the PDFs embed the PNG (print resolution), which
                    # WeasyPrint writes in a millisecond where the SVG took a tenth of a second
                    "src": {medium: f"data:image/{mime};base64," + base64.b64encode(files[fmt]).decode()
                            for medium, fmt, mime in (("screen", "svg", "svg+xml"), ("print", "png", "png"))
                            if fmt in files},
                    "files": _figure_files(config, s.experiment.name, fig.slug, files),
                    "caveat": caveat,
                })
            for t in part["tables"]:
                if isinstance(t, Table):
                    tab_no += 1
                    tables.append({"number": str(tab_no), "table": t, "claims": None, "pointer": False})
                    continue
                table, judged = t
                claims_no += 1
                label = f"A{claims_no}"
                mine = [claim_row(j, label) for j in judged]
                rows.update((r["id"], r) for r in mine)
                docs = sorted({r["doc"] for r in mine})
                item = {"number": label, "table": table, "claims": mine, "counts": verdict_counts(judged),
                        "part": part.get("number", ""), "passages": passages(mine), "docs": docs,
                        "chapter": number, "chapter_slug": s.experiment.name}
                group["tables"].append(item)
                tables.append({"number": label, "table": table, "claims": mine, "pointer": True,
                               "counts": item["counts"], "docs": docs})
            part["figures"], part["tables"] = figures, tables
        if group["tables"]:
            appendix.append(group)
        chapters.append({
            "number": number,
            "slug": s.experiment.name,
            "experiment": s.experiment,
            "title": s.experiment.title,
            "formulas": list(s.experiment.formulas),
            "covers": covered_sections(covered(s, documents) if documents is not None else s.experiment.covers, titles),
            "section": s,
            "parts": list(parts.values()),
            "counts": verdict_counts(s.judged),
            "claim_tables": [t["number"] for t in group["tables"]],
            "claim_docs": sorted({d for t in group["tables"] for d in t["docs"]}),
        })
    return chapters, appendix, rows


def _errors_of_section(rows):
    """A section's material errors as items: rows sharing one correction are one item."""
    items, by_correction = [], {}
    for row in rows:
        key = row["correct"] or None
        if key and key in by_correction:
            by_correction[key]["rows"].append(row)
            continue
        item = {"correct": row["correct"], "rows": [row]}
        items.append(item)
        if key:
            by_correction[key] = item
    tables = list(dict.fromkeys(r["table"] for r in rows if r["table"]))
    return items, tables


def findings(report, catalog, rows, chapters):
    """The findings (reportgen.model.Findings, which judging sorted) as the templates show them:
    each statement as its row, each section's material errors grouped by their correction."""
    f = report.findings
    row = lambda j: rows.get(j.id) or claim_row(j, None)  # noqa: E731
    documents = []
    for d in f.documents:
        title = catalog.documents[d.doc].title if d.doc in catalog.documents else d.doc
        material = []
        for section, judged in d.material:
            section_rows = [row(j) for j in judged]
            items, tables = _errors_of_section(section_rows)
            material.append({"section": section, "items": items, "tables": tables, "rows": section_rows})
        entry = {"doc": d.doc, "title": title, "counts": d.counts, "total": sum(d.counts.values()),
                 "material": material, "n_material": d.n_material,
                 "minor": [row(j) for j in d.minor], "partly": [row(j) for j in d.partly]}
        entry["findings"] = plainwords.error_findings(entry, entry["title"], list(catalog.documents))
        documents.append(entry)
    chapter = {c["slug"]: c for c in chapters}
    right = [{"title": chapter[family]["title"], "slug": family, "confirmed": confirmed, "checked": checked,
              "docs": list(docs)} for family, confirmed, checked, docs in f.right if family in chapter]
    return {
        "documents": documents,
        "fixed": [row(j) for j in f.fixed],
        "stale": [row(j) for j in f.stale],
        "right": right,
        "counts": report.counts,
        "n_statements": len(report.statements),
        "tally": report.tally,
        "n_material": f.n_material,
        "n_minor": f.n_minor,
        "n_partly": f.n_partly,
        "n_unsettled": f.n_unsettled,
    }


def references(catalog, sections, info, config):
    """(documents, papers): a bibliography entry per checked document, and the papers relied on.

    A document is cited by its title, its kind and the course's url or name (reportgen.render.citation),
    with the SHA-256 of the text checked (read in this build, or recorded with the claims)."""
    from reportgen.render.citation import document_citation

    data = tomllib.loads((resources.files("reportgen.templates") / "references.toml").read_text(encoding="utf-8"))
    texts = info.get("documents") or {}
    documents = []
    for doc in catalog.documents.values():
        cited = document_citation(texts.get(doc.id, {"title": doc.title, "kind": doc.kind}), config)
        documents.append(dict(cited, id=doc.id, title=doc.title, short=errata.short_title(doc.title),
                              citation=doc.citation, read=texts.get(doc.id, {}).get("text") == "read"))
    papers = [dict(r, cited_by=[]) for r in data.get("reference", [])]
    # Claims decided by a source (rule "reference") cite it in their own words, often with
    # a section: one entry per work (first author and year), naming the claims it decides.
    by_work = {_work(p["entry"]): p for p in papers}
    for s in sections:
        for j in s.judged:
            source = getattr(j.claim, "reference", "")
            if not source:
                continue
            work = _work(source)
            entry = by_work.get(work)
            if entry is None:
                entry = by_work[work] = {"key": "", "entry": source, "url": "", "for": "", "cited_by": []}
                papers.append(entry)
            entry["cited_by"].append(j.id)
    return documents, papers


def _work(citation):
    """(first author's surname, year) of a citation, to tell one work from another."""
    import re

    author = re.match(r"\W*([^\W\d_][\w'’-]*)", citation)
    year = re.search(r"\b(1[89]\d\d|20\d\d)\b", citation)
    return ((author[1] if author else citation[:20]).lower(), year[1] if year else "")


def embedded_logo(path):
    """The logo as a data: URI, read again (it may have changed since the build started)."""
    from reportgen.render import logo

    try:
        mime, data = logo.read(path)
    except (OSError, ReportgenError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else getattr(exc, "reason", exc)
        raise ReportgenError(f"cannot read the logo {path} ({why}): it was usable when the build "
                             "started; put it back or remove the 'logo' key") from None
    return f"data:image/{mime};base64," + base64.b64encode(data).decode()


def build_fields(config, info, build):
    """The title block's fields that name the build: the id, the "how to cite" line and the
    BibTeX. The PDFs get them with the id's placeholder (reportgen.render.stamp), the id itself
    set after rendering."""
    from reportgen.render import citation
    from reportgen.render.mathtex import plain

    when = datetime.datetime.fromisoformat(info["build_time"])
    who = config.author or config.institution or "reportgen"
    parts = [f"{who} ({when.year}). {plain(config.title)}."]
    if config.subtitle:
        parts[-1] = parts[-1][:-1] + f": {plain(config.subtitle)}."
    parts += [p + "." for p in (config.course, config.institution if config.author else "") if p]
    if config.url:
        parts.append(f"{config.url}.")
    identity = citation.identity(info, build) + "."
    # The handout's students cite the course and the day; the build's details go in its small print.
    handout = [parts[0].replace(f"({when.year})", f"({when.date().isoformat()})", 1), *parts[1:]]
    return {"build": build, "cite": " ".join(parts + [identity]), "handout_cite": " ".join(handout),
            "identity": identity, "bibtex": citation.report_bibtex(config, info, build)}


def title_block(config, info, build):
    """Title page, metadata and the "how to cite" line, from the config and this build."""
    from reportgen.render.mathtex import plain

    when = datetime.datetime.fromisoformat(info["build_time"])
    logo = embedded_logo(config.logo) if config.logo else ""
    return {
        "title": config.title,
        "title_plain": plain(config.title),
        "subtitle": config.subtitle,
        "author": config.author,
        "course": config.course,
        "institution": config.institution,
        "logo": logo,
        "keywords": list(config.keywords),
        "lang": "en",
        "date": when.date().isoformat(),
        "year": when.year,
        **build_fields(config, info, build),
        "url": config.url,
        "profile_warning": PROFILE_WARNINGS.get(info["profile"], ""),
    }


def key_figures(chapters):
    """The handout's figure of each chapter (the family's key figure, else its first), numbered 1, 2, …"""
    out = []
    for c in chapters:
        drawn = [f for p in c["parts"] for f in p["figures"]]
        key = c["experiment"].key_figure
        chosen = next((f for f in drawn if f["slug"] == key), drawn[0] if drawn else None)
        if chosen:
            out.append(dict(chosen, number=len(out) + 1, report_number=chosen["number"],
                            chapter=c["title"], chapter_slug=c["slug"]))
    return out


def story(report, rows, chapters):
    """The √d_k story's beats as the templates show them: texts printed, rows and chapters named."""
    title = {c["slug"]: c["title"] for c in chapters}
    return [{"question": beat.question, "which": beat.which, "text": wording.prose(beat.text),
             "lead": wording.prose(beat.lead), "scale": wording.prose(beat.scale),
             "chapters": [title[f] for f in beat.families if f in title], "rows": [rows[i] for i in beat.claims]}
            for beat in report.story]


def context(report, catalog, info, config, build):
    """Everything the templates show, for one build (`report`: reportgen.model.Report)."""
    sections = report.sections
    titles = {d: errata.short_title(doc.title) for d, doc in catalog.documents.items()}
    chapters, appendix, rows = chapters_and_appendix(sections, config, set(catalog.documents), titles)
    found = findings(report, catalog, rows, chapters)
    found["story"] = story(report, rows, chapters)
    found["unsaid"] = [wording.prose(text) for text in report.unsaid]
    documents, papers = references(catalog, sections, info, config)
    meta = title_block(config, info, build)
    sheets = errata.sheets(catalog, rows, found, documents, meta["profile_warning"])
    sheeted = {sheet["doc"] for sheet in sheets}
    return {
        "meta": meta,
        "sheets": sheets,
        "info": info,
        "sections": chapters,
        "appendix": appendix,
        "claims": rows,
        "findings": found,
        "coverage": report.coverage,
        "family_wise": report.family_wise,
        "unchecked": list(catalog.unchecked),
        "unchecked_without_sheet": [u for u in catalog.unchecked if u.doc not in sheeted],  # report.pdf lists these
        "totals": found["counts"],
        "n_statements": found["n_statements"],
        "n_checks": found["tally"]["checks"],
        "n_documents": len(catalog.documents),
        "doc_ids": list(catalog.documents),  # the numbers plain_label takes out of a row's label
        "doc_titles": titles,  # a reader sees a document's title, never its number
        "verdicts": VERDICTS,
        "level": f"{LEVEL:.0%}",  # every interval's level, for the sentences that name it
        "miss_rate": f"{1 - LEVEL:.0%}",
        "documents": documents,
        "papers": papers,
        "key_figures": key_figures(chapters),
        "formats": list(config.format),
        "failed": [s.experiment.name for s in sections if s.error],
    }
