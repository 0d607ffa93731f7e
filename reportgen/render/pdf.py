"""The PDFs: PDF/UA-1 from print HTML, each cached on its own HTML, typeset as jobs of the build's graph.

report.pdf and the handout get the build id stamped in after rendering (reportgen.render.stamp)
and results.json attached; the errata sheets are cached on their own content.
"""

import re
from pathlib import Path

from reportgen import jobs, signals
from reportgen.gcpause import paused_gc
from reportgen.render.templates import render_html, templates, without_custom_properties


def render_pdf(html, info):
    """PDF/UA-1 (tagged) from print HTML; fetches nothing but data: URIs (no file, no network).

    Dates come from the build time (SOURCE_DATE_EPOCH when set) and the file
    identifier from the content, so an unchanged build gives identical bytes. results.json
    is attached afterwards (attach_results): the rendering depends on the HTML alone.

    WeasyPrint is given no identifier: with one, pydyf serializes and compresses every object
    a second time to hash the file (a sixth of report.pdf's writing). pikepdf derives the
    /ID from the content when headercells saves the file (deterministic_id), in C++.
    """
    import weasyprint
    from weasyprint.urls import URLFetcher

    from reportgen.render import headercells, pngpass

    pngpass.install()  # the figures' PNGs go in as they are
    fetcher = URLFetcher(allowed_protocols=("data",))  # the report embeds everything it shows
    # Paged-media rules go in at author level, after the page's own styles, for WeasyPrint
    # only: report.html keeps CSS that browsers and the Nu checker know.
    print_css = (templates() / "print.css").read_text(encoding="utf-8")
    html = html.replace("</head>", f"<style>\n{print_css}</style>\n</head>", 1)
    with paused_gc():
        document = weasyprint.HTML(string=html, url_fetcher=fetcher, base_url=".")
        # PDF/UA-1: a structure tree (headings, lists, tables with headers, figures with
        # their alt text), the language, the title shown, XMP metadata.
        pdf = document.write_pdf(pdf_variant="pdf/ua-1")
    # WeasyPrint's SVG drawing catches every exception, a Ctrl-C's too, and goes on without the
    # image: a PDF typeset while a signal was taken may lack a formula. It is never cached or
    # published; the build stops here instead of after every other PDF.
    signals.raise_if_taken()
    # ... and each table header cell with its scope, which WeasyPrint leaves out.
    return headercells.associate_headers(pdf, html)


_READIED = []  # [True] once this process has readied itself (ready_to_render)


def ready_to_render():
    """Worker side: ready what rendering a PDF needs, before the first one comes; once per process.

    The imports (a second), then a one-page PDF in the report's stylesheets: a process's first
    render also loads the fonts and fills WeasyPrint's caches, half a second of CPU that the first
    real PDF would pay on the build's critical path (a rebuild that re-renders one sheet waits
    for it), for a tenth of a second here, while the worker waits for its first PDF anyway.
    """
    if not _READIED:
        render_pdf(_warm_up_page(), None)  # installs pngpass too
        _READIED.append(True)


def warming(processes, after=()):
    """Jobs that ready the workers for the PDFs (ready_to_render), one per worker, once the jobs
    of `after` are done (the runs: their imports first): only a worker does one, and only when no
    other job is ready for it; a build without workers drops them."""
    return [jobs.Job(("warm", "pdf", index), None, (ready_to_render,), tuple(after), rank=(jobs.WARM,))
            for index in range(processes)]


def _warm_up_page():
    """A small print page with what the PDFs hold: headings, text in each face, a table with headers."""
    css = without_custom_properties((templates() / "report.css").read_text(encoding="utf-8"))
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>warm-up</title><style>{css}</style>'
            '</head><body><h1>Warm-up</h1><h2>Findings</h2><p>Text, <b>bold</b>, <i>italic</i>, <code>code</code>, '
            'd<sub>k</sub>, 10<sup>2</sup>, √d, ≈ 0.455 ± 0.01.</p><table class="checks"><thead><tr><th>What</th>'
            '<th>Verdict</th></tr></thead><tbody><tr><td>a statement</td><td>confirmed</td></tr></tbody></table>'
            '</body></html>')


def attach_results(pdf_bytes, results_json, info):
    """The PDF with results.json attached (an embedded file with /F and /UF, relationship Data).

    A tenth of a second where rendering takes seconds: a change to a claim that a PDF does not
    show changes only its attachment, and the rendered pages come from the cache.
    """
    import datetime
    import io

    import pikepdf

    stamp = datetime.datetime.fromisoformat(info["build_time"]).strftime("D:%Y%m%d%H%M%SZ")
    with pikepdf.open(io.BytesIO(pdf_bytes)) as pdf:
        pdf.attachments["results.json"] = pikepdf.AttachedFileSpec(
            pdf, results_json, description="Every number of this report, as JSON", filename="results.json",
            mime_type="application/json", creation_date=stamp, mod_date=stamp, relationship=pikepdf.Name.Data)
        out = io.BytesIO()
        pdf.save(out, deterministic_id=True)
        return out.getvalue()


def pdf_key(html):
    """Hash of everything a rendered PDF depends on: its HTML, every template and stylesheet,
    the code that renders it and post-processes it, and the versions of WeasyPrint and of
    pikepdf (which writes the final file)."""
    import hashlib
    from importlib import metadata

    from reportgen.render import headercells, pngpass

    digest = hashlib.sha256(html.encode())
    folder = templates()
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.is_file() and not item.name.endswith((".py", ".pyc")):
            digest.update(item.name.encode() + b"\0" + item.read_bytes())
    digest.update(Path(__file__).read_bytes())
    for module in (headercells, pngpass):
        digest.update(Path(module.__file__).read_bytes())
    for package in ("weasyprint", "pikepdf"):
        digest.update(metadata.version(package).encode() + b"\0")
    return digest.hexdigest()[:32]


EMBEDDED_PNG = re.compile(r"data:image/png;base64,[A-Za-z0-9+/=]*")


def _weight(html):
    """How long a PDF takes to lay out, roughly: its HTML without the PNGs (embedded as they are)."""
    return len(html) - sum(len(m) for m in EMBEDDED_PNG.findall(html))


def check_pdf(data):
    """Why cached PDF bytes are unfit, or None."""
    if not data.startswith(b"%PDF-") or b"%%EOF" not in data[-1024:]:
        return "not a complete PDF"
    return None


def cached_pdfs(named, store):
    """{name: (cache key, the cached PDF's bytes or None)} for {name: print HTML}."""
    keys = {name: pdf_key(html) for name, html in named.items()}
    return {name: (key, store.load_bytes(name, key, check_pdf)) for name, key in keys.items()}


def typeset(graph, named, info, cached):
    """Add a job to `graph` for each PDF of {name: print HTML} not in the cache (`cached`: what
    cached_pdfs gave) nor added already: a worker that is up may begin the longest at once."""
    new = {}
    for name, html in named.items():
        key, pdf = cached[name]
        if pdf is None and not graph.has(("pdf", key)) and ("pdf", key) not in new:
            new[("pdf", key)] = jobs.Job(("pdf", key), lambda html=html: render_pdf(html, info), (render_pdf, html, info),
                                         rank=(jobs.PDF, _weight(html)))
    graph.add(*new.values())


def pdfs(named, info, store, graph=None, cached=None):
    """{name: PDF bytes} for {name: print HTML}, each cached on its own HTML (`cached`: what
    cached_pdfs gave, when the caller has looked already).

    The PDFs are independent jobs of the build's graph (`graph`, reportgen.jobs; else one of
    its own), shared between this process and the workers, each taking the largest left
    (WeasyPrint holds the GIL); one a worker has begun already is waited for.
    """
    from reportgen import workers

    cached = cached or cached_pdfs(named, store)
    out = {name: pdf for name, (_, pdf) in cached.items()}
    missing = [name for name in named if out[name] is None]
    if missing:
        with jobs.owned(graph, workers.Workers) as graph:
            typeset(graph, named, info, cached)
            names = {}
            for name in missing:
                names.setdefault(("pdf", cached[name][0]), []).append(name)
            for job, done in graph.run(names):
                out.update((name, done.result()) for name in names[job.key])
    for name in missing:
        store.store_bytes(name, cached[name][0], out[name])
    return out


def _pdf_estimate(progress, printed, missing):
    """(kind, expected seconds or None) of the pdf stage. With some PDFs from the cache it is
    "partial": a cached stage's time and the cold time's share of what is typeset, kept apart
    (no estimate's kind, so it never moves the cold or cached ones)."""
    if not missing or len(missing) == len(printed):
        return ("cold" if missing else "cached"), None
    cold, cached = progress.expected("pdf", "cold"), progress.expected("pdf", "cached")
    weight = sum(_weight(printed[n]) for n in missing) / sum(_weight(h) for h in printed.values())
    share = max(weight, len(missing) / len(printed))  # a sheet's tables cost more per byte
    return "partial", (cached + cold * share if cold is not None and cached is not None else None)


def pdf_stage(ctx, pages, build, results_json, info, store, progress, graph, screen, cached):
    """{key: finished PDF bytes} of the print pages ({key: reportgen.render.report.Printed}):
    rendered or cached, the build id stamped into a stamped output's PDF printed with its
    placeholder (else rendered with the id), results.json attached to it; `screen()` lays out
    the screen pages, this process's first job while the workers begin the PDFs; `cached`:
    cached_pdfs'; `graph`: the build's jobs (reportgen.jobs), else a graph of its own."""
    from reportgen import workers
    from reportgen.render import stamp

    printed = {key: page.html for key, page in pages.items()}
    marks = {key: page.marks for key, page in pages.items() if page.output.stamped}
    missing = [name for name, (_, pdf) in cached.items() if pdf is None]
    typeset_files = [pages[n].file for n in missing]
    also = ", with report.html meanwhile" if "html" in ctx["formats"] else ""
    what = (f"typesetting {', '.join(typeset_files) if len(typeset_files) < 4 else f'{len(typeset_files)} PDFs'} "
            f"(tagged PDF/UA-1), {len(printed) - len(typeset_files)} from the cache{also}" if typeset_files
            else f"all {len(printed)} PDFs from the cache{also}")
    kind, expected = _pdf_estimate(progress, printed, missing)
    finished, tried = {}, set()

    def finish(pdfs_by_name, stamped=True):
        for name, pdf in pdfs_by_name.items():
            tried.add(name)
            if name in marks:  # report.pdf and the handout: the id stamped, results.json attached
                pdf = stamp.stamp(pdf, build, marks[name]) if stamped and marks[name] else pdf
                if pdf is None:
                    continue  # cannot be stamped exactly: rendered with the id, below
                pdf = attach_results(pdf, results_json, info)
            finished[name] = pdf

    # this process's first, while the workers typeset: the screen pages, the cached PDFs finished
    first = [jobs.Job(("pages", "screen"), screen, rank=(jobs.PAGES,)),
             jobs.Job(("pages", "cached PDFs"), lambda: finish({name: pdf for name, (_, pdf) in cached.items()
                                                                if pdf is not None}), rank=(jobs.PAGES,))]
    with progress.stage("pdf", what, kind=kind, expected=expected), jobs.owned(graph, workers.Workers) as graph:
        graph.add(*first)
        rendered = pdfs(printed, info, store, graph, cached)
        for _, done in graph.run([job.key for job in first]):
            done.result()  # a failure of its own is the build's
        finish({name: rendered[name] for name in printed if name not in tried})  # the cached ones are done
        again = {name: render_html(pages[name].own, "print", pages[name].output) for name in marks if name not in finished}
        finish(pdfs(again, info, store, graph) if again else {}, stamped=False)
    return {name: finished[name] for name in printed}  # one order, whichever came from the cache
