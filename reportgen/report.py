"""Assemble results.json, report.html and report.pdf; write them only once all are ready."""

import base64
import json
import math
import time
from importlib import resources
from pathlib import Path

from reportgen.errors import ReportgenError
from reportgen.family import Table
from reportgen.gcpause import paused_gc
from reportgen.judge import VERDICTS, verdict_counts

TITLE = "Why divide by √d_k? The documents' claims, measured"


def _json_safe(value):
    """Results with NaN/inf as strings, so results.json stays strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


SCHEMA_VERSION = 2  # results.json layout; 2: claims by id, measurements as numbers


def _claim_table_json(table, rows):
    return {"slug": table.slug, "title": table.title, "claims": [j.id for j in rows]}


def results_document(sections, catalog, info):
    """Every number shown, every claim with its quote, measurement and verdict, and provenance."""
    experiments = {}
    for s in sections:
        experiments[s.experiment.name] = {
            "title": s.experiment.title,
            "status": "failed" if s.error else "ok",
            "error": s.error,
            "nonfinite": list(s.run.nonfinite),
            "results": _json_safe(s.run.results),
            "tables": [
                {"slug": t.slug, "title": t.title, "columns": list(t.columns), "rows": [list(r) for r in t.rows]}
                if isinstance(t, Table) else _claim_table_json(*t)
                for t in s.tables
            ],
        }
    judged = [j for s in sections for j in s.judged]
    return {
        "schema_version": SCHEMA_VERSION,
        "title": TITLE,
        "provenance": info,
        "documents": {d.id: {"title": d.title, "citation": d.citation} for d in catalog.documents.values()},
        "verdicts": verdict_counts(judged),
        "claims": [_json_safe(j.to_json()) for j in judged],
        "experiments": experiments,
    }


def context(sections, catalog, info):
    """What the template shows, numbered and ready: the template only lays it out."""
    from reportgen.mathtex import math_img

    chapters, fig_no, tab_no = [], 0, 0
    table_of = {}  # claim id -> number of the table showing it
    for number, s in enumerate(sections, start=1):
        parts = {}  # sub-heading -> its figures and tables, in order of first appearance
        for t in s.tables:
            part = t.part if isinstance(t, Table) else t[0].part
            parts.setdefault(part, {"title": part, "figures": [], "tables": []})["tables"].append(t)
        for fig, svg in s.figures:
            parts.setdefault(fig.part, {"title": fig.part, "figures": [], "tables": []})["figures"].append((fig, svg))
        titled = 0
        for part in parts.values():
            if part["title"]:
                titled += 1
                part["number"] = f"{number + 1}.{titled}"
                part["anchor"] = f"{s.experiment.name}-{titled}"
            figures = []
            for fig, svg in part["figures"]:
                fig_no += 1
                src = "data:image/svg+xml;base64," + base64.b64encode(svg).decode()
                figures.append({"number": fig_no, "caption": fig.caption, "alt": fig.alt, "src": src})
            tables = []
            for t in part["tables"]:
                tab_no += 1
                if isinstance(t, Table):
                    tables.append({"number": tab_no, "table": t, "claims": ()})
                else:
                    table, rows = t
                    table_of.update((j.id, tab_no) for j in rows)
                    tables.append({"number": tab_no, "table": table, "claims": rows})
            part["figures"], part["tables"] = figures, tables
        chapters.append(
            {
                "number": number + 1,  # section 1 is the reading guide
                "slug": s.experiment.name,
                "experiment": s.experiment,
                "formulas": [math_img(f, display=True) for f in s.experiment.formulas],
                "covers": [str(c) for c in s.experiment.covers],
                "section": s,
                "parts": list(parts.values()),
                "counts": verdict_counts(s.judged),
            }
        )
    judged = [j for s in sections for j in s.judged]
    # The summary lists what a reader must act on: every claim this run contradicts or
    # cannot check, contradicted first. Confirmed claims are counted here and shown with
    # their evidence in the section tables; listing them twice doubled the PDF's tables.
    summary = {doc: [] for doc in catalog.documents}
    for j in judged:
        if j.verdict != "confirmed":
            summary[j.claim.doc].append({"judged": j, "table": table_of.get(j.id)})
    for rows in summary.values():
        rows.sort(key=lambda row: VERDICTS.index(row["judged"].verdict))
    per_document = []
    for doc in catalog.documents.values():
        mine = [j for j in judged if j.claim.doc == doc.id]
        per_document.append({"doc": doc.id, "title": doc.title, "counts": verdict_counts(mine), "total": len(mine)})
    return {
        "title": TITLE,
        "info": info,
        "sections": chapters,
        "totals": verdict_counts(judged),
        "n_checks": len(judged),
        "n_documents": len(catalog.documents),
        "per_document": per_document,
        "summary": summary,
        "verdicts": VERDICTS,
        "failed": [s.experiment.name for s in sections if s.error],
    }


def render_html(ctx):
    import jinja2

    from reportgen.mathtex import math_img, prose

    folder = resources.files("reportgen.templates")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["prose"] = prose
    env.globals["tex"] = math_img
    css = (folder / "report.css").read_text(encoding="utf-8")
    screen_css = (folder / "screen.css").read_text(encoding="utf-8")
    return env.get_template("report.html.j2").render(css=css, screen_css=screen_css, **ctx)


def render_pdf(html, results_json, info):
    """PDF from the same HTML; fetches nothing but data: URIs (no file, no network).

    Dates come from the build time (SOURCE_DATE_EPOCH when set) and the file
    identifier from the content, so an unchanged build gives identical bytes.
    """
    import datetime
    import hashlib

    import weasyprint
    from weasyprint.urls import URLFetcher

    when = datetime.datetime.fromisoformat(info["build_time"])
    fetcher = URLFetcher(allowed_protocols=("data",))  # the report embeds everything it shows
    attachment = weasyprint.Attachment(
        string=results_json,
        name="results.json",
        description="Every number of this report, as JSON",
        created=when,
        modified=when,
    )
    identifier = hashlib.sha256(html.encode() + results_json).hexdigest()[:32].encode()
    # Paged-media rules go in at author level, after the page's own styles, for WeasyPrint
    # only: report.html keeps CSS that browsers and the Nu checker know.
    print_css = (resources.files("reportgen.templates") / "print.css").read_text(encoding="utf-8")
    html = html.replace("</head>", f"<style>\n{print_css}</style>\n</head>", 1)
    with paused_gc():
        document = weasyprint.HTML(string=html, url_fetcher=fetcher, base_url=".")
        return document.write_pdf(attachments=[attachment], pdf_identifier=identifier)


def pdf_key(html, results_json):
    """Hash of everything the PDF depends on: the HTML, the JSON it carries, every template
    and stylesheet, the code that renders it, and the WeasyPrint version."""
    import hashlib
    from importlib import metadata

    digest = hashlib.sha256(html.encode() + b"\0" + results_json)
    folder = resources.files("reportgen.templates")
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.is_file() and not item.name.endswith((".py", ".pyc")):
            digest.update(item.name.encode() + b"\0" + item.read_bytes())
    digest.update(Path(__file__).read_bytes())
    digest.update(metadata.version("weasyprint").encode())
    return digest.hexdigest()[:32]


def cached_pdf(html, results_json, info, store):
    """The PDF of exactly this HTML and JSON: rendered once, then reused from the cache."""
    from reportgen.cache import check_pdf

    digest = pdf_key(html, results_json)
    pdf = store.load_bytes("report", digest, check_pdf)
    if pdf is None:
        pdf = render_pdf(html, results_json, info)
        store.store_bytes("report", digest, pdf)
    return pdf


def write(sections, catalog, info, config, timings, store):
    """Render everything in memory, then replace the output files together as one set."""
    import hashlib

    from reportgen.publish import publish

    out = Path(config.output)
    results_json = json.dumps(results_document(sections, catalog, info), indent=1, ensure_ascii=False)
    files = {"results.json": results_json}
    if "html" in config.format or "pdf" in config.format:
        stage = time.perf_counter()
        html = render_html(context(sections, catalog, info))
        timings["html"] = time.perf_counter() - stage
        if "html" in config.format:
            files["report.html"] = html
        if "pdf" in config.format:
            stage = time.perf_counter()
            files["report.pdf"] = cached_pdf(html, results_json.encode(), info, store)
            timings["pdf"] = time.perf_counter() - stage
    build = hashlib.sha256(results_json.encode()).hexdigest()[:16]
    try:
        return publish(out, files, build)
    except OSError as exc:
        raise ReportgenError(
            f"cannot write the report into {out}: {exc.strerror or exc}; the previous report there is "
            "unchanged; free space or choose another --output"
        ) from None
