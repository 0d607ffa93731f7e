"""Assemble results.json, report.html and report.pdf; write them only once all are ready."""

import base64
import json
import math
import time
from importlib import resources
from pathlib import Path

from reportgen import claims, registry
from reportgen.atomic import write_atomic
from reportgen.errors import ReportgenError
from reportgen.gcpause import paused_gc
from reportgen.sources import DOCUMENTS

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


def results_document(outcomes, info):
    """Every number shown, every check with its verdict, and provenance."""
    experiments = {}
    for o in outcomes:
        experiments[o.experiment.name] = {
            "title": o.experiment.title,
            "status": "failed" if o.error else "ok",
            "error": o.error,
            "nonfinite": o.nonfinite,
            "results": _json_safe(o.results),
            "tables": [
                {"slug": t.slug, "title": t.title, "columns": list(t.columns), "rows": [list(r) for r in t.rows]}
                for t in o.tables
                if not t.checks
            ],
            "checks": [c.to_json() for c in o.checks],
        }
    all_checks = [c for o in outcomes for c in o.checks]
    return {
        "title": TITLE,
        "provenance": info,
        "verdicts": claims.verdict_counts(all_checks),
        "experiments": experiments,
    }


def context(outcomes, info):
    """What the template shows, numbered and ready: the template only lays it out."""
    from reportgen.mathtex import math_img

    sections, fig_no, tab_no = [], 0, 0
    for number, o in enumerate(outcomes, start=1):
        parts = {}  # sub-heading -> its figures and tables, in order of first appearance
        for t in o.tables:
            parts.setdefault(t.part, {"title": t.part, "figures": [], "tables": []})["tables"].append(t)
        for fig, svg in o.figures:
            parts.setdefault(fig.part, {"title": fig.part, "figures": [], "tables": []})["figures"].append((fig, svg))
        titled = 0
        for part in parts.values():
            if part["title"]:
                titled += 1
                part["number"] = f"{number + 1}.{titled}"
                part["anchor"] = f"{o.experiment.name}-{titled}"
            figures = []
            for fig, svg in part["figures"]:
                fig_no += 1
                src = "data:image/svg+xml;base64," + base64.b64encode(svg).decode()
                figures.append({"number": fig_no, "caption": fig.caption, "alt": fig.alt, "src": src})
            tables = []
            for t in part["tables"]:
                tab_no += 1
                tables.append({"number": tab_no, "table": t})
            part["figures"], part["tables"] = figures, tables
        sections.append(
            {
                "number": number + 1,  # section 1 is the reading guide
                "slug": o.experiment.name,
                "experiment": o.experiment,
                "formulas": [math_img(f, display=True) for f in o.experiment.formulas],
                "covers": [str(s) for s in o.experiment.covers],
                "outcome": o,
                "parts": list(parts.values()),
                "counts": claims.verdict_counts(o.checks),
            }
        )
    all_checks = [c for o in outcomes for c in o.checks]
    statements = {claim_id: e["statement"] for claim_id, e in registry.load().items()}
    # The summary lists what a reader must act on: every claim this run contradicts or
    # cannot check, contradicted first. Confirmed claims are counted here and shown with
    # their evidence in the section tables; listing them twice doubled the PDF's tables.
    summary = {doc: [] for doc in DOCUMENTS}
    for section in sections:
        for part in section["parts"]:
            for item in part["tables"]:
                for c in item["table"].checks:
                    if c.verdict != "confirmed":
                        summary[c.source.doc].append(
                            {"check": c, "statement": statements.get(c.id, c.quantity), "table": item["number"]}
                        )
    for rows in summary.values():
        rows.sort(key=lambda row: claims.VERDICTS.index(row["check"].verdict))
    per_document = []
    for doc, title in DOCUMENTS.items():
        mine = [c for c in all_checks if c.source.doc == doc]
        per_document.append({"doc": doc, "title": title, "counts": claims.verdict_counts(mine), "total": len(mine)})
    return {
        "title": TITLE,
        "info": info,
        "sections": sections,
        "totals": claims.verdict_counts(all_checks),
        "n_checks": len(all_checks),
        "per_document": per_document,
        "summary": summary,
        "verdicts": claims.VERDICTS,
        "failed": [o.experiment.name for o in outcomes if o.error],
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
    """PDF from the same HTML; fetches nothing but data URIs and local files.

    Dates come from the build time (SOURCE_DATE_EPOCH when set) and the file
    identifier from the content, so an unchanged build gives identical bytes.
    """
    import datetime
    import hashlib

    import weasyprint
    from weasyprint.urls import URLFetcher

    when = datetime.datetime.fromisoformat(info["build_time"])
    fetcher = URLFetcher(allowed_protocols=("data", "file"))
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


def cached_pdf(html, results_json, info, config):
    """The PDF of exactly this HTML and JSON: rendered once, then reused from the cache."""
    import hashlib

    digest = hashlib.sha256(html.encode() + results_json).hexdigest()[:32]
    path = Path(config.cache_dir) / f"report-{digest}.pdf"
    if config.cache and path.is_file():
        return path.read_bytes()
    pdf = render_pdf(html, results_json, info)
    for old in Path(config.cache_dir).glob("report-*.pdf"):
        old.unlink(missing_ok=True)
    write_atomic(path, pdf)
    return pdf


def write(outcomes, info, config, timings):
    """Render everything in memory, then replace the outputs one atomic rename each."""
    out = Path(config.output)
    results_json = json.dumps(results_document(outcomes, info), indent=1, ensure_ascii=False)
    files = {out / "results.json": results_json}
    if "html" in config.format or "pdf" in config.format:
        stage = time.perf_counter()
        html = render_html(context(outcomes, info))
        timings["html"] = time.perf_counter() - stage
        if "html" in config.format:
            files[out / "report.html"] = html
        if "pdf" in config.format:
            stage = time.perf_counter()
            files[out / "report.pdf"] = cached_pdf(html, results_json.encode(), info, config)
            timings["pdf"] = time.perf_counter() - stage
    for path, data in files.items():
        try:
            write_atomic(path, data)
        except OSError as exc:
            raise ReportgenError(f"cannot write {path}: {exc.strerror or exc}; choose another --output") from None
    return list(files)
