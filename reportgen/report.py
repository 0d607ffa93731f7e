"""Assemble results.json, report.html, report.pdf and report-handout.pdf; write them only once all are ready.

One context, three renderings of it: report.html for a screen (MathML, dark mode, links to
the other files), report.pdf for print (findings first, every claims table in an
appendix) and report-handout.pdf (findings, key figures, material errors: a few pages
for a course). The templates lay the context out; they compute nothing.
"""

import json
import math
import re
import time
from importlib import resources
from pathlib import Path

from reportgen.errors import ReportgenError
from reportgen.family import Table
from reportgen.gcpause import paused_gc
from reportgen.judge import VERDICTS, coverage, family_wise, statements, tally, verdict_counts
from reportgen.stats import LEVEL

LANG = "en"  # the report's own language (its sentences are English whatever the documents')


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


def results_document(sections, catalog, info, title):
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
        "title": title,
        "provenance": info,
        "documents": {d.id: {"title": d.title, "citation": d.citation} for d in catalog.documents.values()},
        "verdicts": verdict_counts(statements(judged)),  # statements: a summary stands for its setups
        "counts": tally(judged),  # statements and checks, named as the report and `check` name them
        "coverage": coverage(judged, catalog.documents, catalog.unchecked),
        "family_wise": family_wise(judged),
        "interval_level": LEVEL,  # of every confidence interval the report prints and judges by
        "not_checkable": [{"doc": u.doc, "section": u.section, "quote": u.quote, "reason": u.reason}
                          for u in catalog.unchecked],
        "claims": [_json_safe(j.to_json()) for j in judged],
        "experiments": experiments,
    }


def templates():
    return resources.files("reportgen.templates")


def environment(medium):
    """The Jinja2 environment of one medium: 'screen' (MathML) or 'print' (SVG and markup)."""
    import jinja2

    from reportgen import mathtex

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates())),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["m"] = lambda text: mathtex.inline(text, medium)
    env.filters["plain"] = mathtex.plain
    env.filters["quote"] = lambda text: mathtex.quote(text, medium)
    env.globals["tex"] = lambda tex, display=False: mathtex.formula(tex, display, medium)
    env.globals["medium"] = medium
    return env


CUSTOM_PROPERTY = re.compile(r"var\((--[\w-]+)\)")


def without_custom_properties(css):
    """The stylesheet with each var(--name) replaced by its :root value, for the PDFs.

    WeasyPrint resolves a custom property through every ancestor of every box (a tenth of
    the PDF's layout time); print has one palette, so it gets the values themselves.
    """
    root = re.search(r":root\s*\{([^}]*)\}", css)
    if root is None:
        return css
    values = dict(re.findall(r"(--[\w-]+)\s*:\s*([^;]+);", root[1]))
    return CUSTOM_PROPERTY.sub(lambda m: values.get(m[1], m[0]), css[: root.start()] + css[root.end():])


def render_html(ctx, medium="screen", template="report.html.j2"):
    """The report as HTML for one medium; the stylesheets go inline, so the file stands alone."""
    folder = templates()
    css = {name: (folder / f"{name}.css").read_text(encoding="utf-8") for name in ("report", "screen", "browser-print")}
    if medium == "print":
        css["report"] = without_custom_properties(css["report"])
    handout = template == "handout.html.j2"
    return environment(medium).get_template(template).render(css=css, handout=handout, **ctx)


def render_pdf(html, results_json, info):
    """PDF/UA-1 (tagged) from print HTML; fetches nothing but data: URIs (no file, no network).

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
        relationship="Data",
    )
    identifier = hashlib.sha256(html.encode() + results_json).hexdigest()[:32].encode()
    # Paged-media rules go in at author level, after the page's own styles, for WeasyPrint
    # only: report.html keeps CSS that browsers and the Nu checker know.
    print_css = (templates() / "print.css").read_text(encoding="utf-8")
    html = html.replace("</head>", f"<style>\n{print_css}</style>\n</head>", 1)
    with paused_gc():
        document = weasyprint.HTML(string=html, url_fetcher=fetcher, base_url=".")
        # PDF/UA-1: a structure tree (headings, lists, tables with headers, figures with
        # their alt text), the language, the title shown, XMP metadata.
        return document.write_pdf(attachments=[attachment], pdf_identifier=identifier, pdf_variant="pdf/ua-1")


def pdf_key(html, results_json):
    """Hash of everything the PDF depends on: the HTML, the JSON it carries, every template
    and stylesheet, the code that renders it, and the WeasyPrint version."""
    import hashlib
    from importlib import metadata

    digest = hashlib.sha256(html.encode() + b"\0" + results_json)
    folder = templates()
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.is_file() and not item.name.endswith((".py", ".pyc")):
            digest.update(item.name.encode() + b"\0" + item.read_bytes())
    digest.update(Path(__file__).read_bytes())
    digest.update(metadata.version("weasyprint").encode())
    return digest.hexdigest()[:32]


def pdfs_cached(named, results_json, store):
    """Whether the cache holds every PDF of `named` (the pdf stage's estimate depends on it)."""
    from reportgen.cache import check_pdf

    return all(store.load_bytes(name, pdf_key(html, results_json), check_pdf) is not None
               for name, html in named.items())


def pdfs(named, results_json, info, store):
    """{name: PDF bytes} for {name: print HTML}: cached ones reused, the others rendered, the
    second in a worker process while this one renders the first (WeasyPrint holds the GIL)."""
    from reportgen.cache import check_pdf

    keys = {name: pdf_key(html, results_json) for name, html in named.items()}
    out = {name: store.load_bytes(name, keys[name], check_pdf) for name in named}
    todo = [name for name in named if out[name] is None]
    elsewhere = None
    if len(todo) > 1:
        from reportgen import workers

        try:
            pool = workers.pool(1)
            elsewhere = (todo[-1], pool, workers.submit(pool, render_pdf, named[todo[-1]], results_json, info))
            todo = todo[:-1]
        except OSError:
            elsewhere = None  # no process to spare: render both here
    try:
        for name in todo:
            out[name] = render_pdf(named[name], results_json, info)
        if elsewhere is not None:
            name, pool, future = elsewhere
            try:
                out[name] = future.result()
            except Exception:  # a worker that died: render it here
                out[name] = render_pdf(named[name], results_json, info)
    finally:
        if elsewhere is not None:
            _stop(*elsewhere[1:])
    for name in named:
        store.store_bytes(name, keys[name], out[name])
    return out


def _stop(pool, future):
    """Shut the PDF worker down: wait when its PDF is done, else end it now (the build is stopping).

    A worker left behind would keep its parent (a test session, a CI job) from exiting.
    """
    from reportgen import workers

    if future.done():
        pool.shutdown(wait=True)
    else:
        workers.stop_now(pool)


def write(sections, catalog, info, config, timings, store, progress=None):
    """Render everything in memory, then replace the output files together as one set."""
    import hashlib

    from reportgen.context import context
    from reportgen.progress import Progress
    from reportgen.publish import publish

    progress = progress or Progress(quiet=True)
    out = Path(config.output)
    results_json = json.dumps(results_document(sections, catalog, info, config.title), indent=1, ensure_ascii=False)
    build = hashlib.sha256(results_json.encode()).hexdigest()[:16]
    files = {"results.json": results_json}
    if "html" in config.format or "pdf" in config.format:
        stage = time.perf_counter()
        with progress.stage("html", "laying out the report"):
            ctx = context(sections, catalog, info, config, build)
            if "html" in config.format:
                files["report.html"] = render_html(ctx, "screen")
            if "pdf" in config.format:
                printed = render_html(ctx, "print")
                handout = render_html(ctx, "print", "handout.html.j2")
        timings["html"] = time.perf_counter() - stage
        if "pdf" in config.format:
            stage = time.perf_counter()
            named = {"report": printed, "handout": handout}
            if pdfs_cached(named, results_json.encode(), store):
                kind, what = "cached", "report.pdf and report-handout.pdf from the cache"
            else:
                kind, what = "cold", "typesetting report.pdf and report-handout.pdf (tagged PDF/UA-1)"
            with progress.stage("pdf", what, kind=kind):
                both = pdfs(named, results_json.encode(), info, store)
            files["report.pdf"], files["report-handout.pdf"] = both["report"], both["handout"]
            timings["pdf"] = time.perf_counter() - stage
    try:
        with progress.stage("write", f"{len(files)} files into {out}"):
            return publish(out, files, build, progress.warn)
    except OSError as exc:
        raise ReportgenError(f"cannot write the report into {out}: {exc.strerror or exc}; {_state_of(out)}; "
                             "free space or choose another --output") from None


def _state_of(out):
    """What a failed publish left in `out`, said truly: unchanged only when it is."""
    from reportgen.publish import committed

    if committed(out):
        return "the new report is committed but not all in place; the next build there finishes it"
    return "the previous report there is unchanged"


__all__ = ["VERDICTS", "results_document", "render_html", "render_pdf", "write"]
