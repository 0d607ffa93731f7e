"""Render every output of a build in memory, as reportgen.artifacts declares them.

One context, laid out by each declared template for each medium its --format asks for:
report.html for a screen (MathML, dark mode, links to the other files), report.pdf for print
(findings first, every claims table in an appendix), report-handout.pdf (findings, key
figures, material errors: a few pages for a course), an errata sheet per document; and the
data files (results.json, report.bib, CITATION.cff). `render` returns the files' bytes; the
pipeline publishes them (reportgen.publish.outputs), all together or none.
"""

import hashlib
import json
import time
from dataclasses import dataclass

from reportgen.artifacts import OUTPUTS, WITHOUT_BUILD, Output
from reportgen.render import citation, formulas, stamp
from reportgen.render.context import build_fields, context
from reportgen.render.pdf import cached_pdfs, pdf_stage, typeset
from reportgen.render.results import results_document
from reportgen.render.templates import render_html

# The data files' makers besides results.json (which the build id is the hash of):
# (config, provenance, build id) -> text.
MAKERS = {"bibliography": citation.bibliography, "citation": citation.cff}


def pages(output, ctx):
    """[(document id or "", the context its template reads)] of one templated output: one page
    set, or one per document (the `sheet` each reads) with no build id in its `meta`."""
    if output.per_document:
        meta = {k: v for k, v in ctx["meta"].items() if k not in WITHOUT_BUILD}
        return [(sheet["doc"], {**view(ctx, output), "meta": meta, "sheet": sheet}) for sheet in ctx["sheets"]]
    return [("", view(ctx, output))]


def view(ctx, output):
    """The parts of the context an output's template reads."""
    return dict(ctx) if "*" in output.reads else {k: ctx[k] for k in output.reads}


def render(report, catalog, info, config, timings, store, progress, graph=None, outputs=OUTPUTS):
    """({file name: text or bytes}, build id) of every output `config.format` asks for, from the
    report model (reportgen.model.Report, which judging assembled); `graph`: the build's jobs
    (reportgen.jobs), whose workers typeset PDFs beside this process; `store`: the cache the PDFs
    and typeset formulas are kept in."""
    formats = config.format
    templated = [o for o in outputs if o.template and o.media(formats)]
    results_json = json.dumps(results_document(report, catalog, info, config.title), indent=1, ensure_ascii=False)
    build = hashlib.sha256(results_json.encode()).hexdigest()[:16]
    files = {o.data: results_json if o.name == "results" else MAKERS[o.name](config, info, build)
             for o in outputs if o.data}
    if not templated:
        return files, build
    stage = time.perf_counter()
    known = formulas.typeset_from(store)
    with progress.stage("html", "laying out the report"):
        ctx = context(report, catalog, info, config, build)
        unnamed = dict(ctx, meta=dict(ctx["meta"], **build_fields(config, info, stamp.PLACEHOLDER)))
        stampable = stamp.usable(results_json, repr(config))
        screens = [(o.file("screen", doc), own, o) for o in templated if "screen" in o.media(formats)
                   for doc, own in pages(o, ctx)]
        printing = [o for o in templated if "print" in o.media(formats)]
        # Each output's PDFs not cached are jobs as soon as its print pages are laid out, in the
        # declared order (report.pdf, the longest, first): a worker that is up begins one while
        # the next pages are laid out.
        laid_out, cached = {}, {}
        for output in printing:
            own = print_pages([output], ctx, unnamed, stampable)
            cached.update(cached_pdfs({k: p.html for k, p in own.items()}, store))  # once: a damaged entry warns once
            if graph is not None:
                typeset(graph, {k: p.html for k, p in own.items()}, info, cached)
            laid_out.update(own)
        printed = {k: p for k, p in sorted(laid_out.items(), key=lambda item: not item[1].output.per_document)}
        if not printed:
            lay_out(screens, files)
    timings["html"] = time.perf_counter() - stage
    if printed:
        stage = time.perf_counter()
        rendered = pdf_stage(ctx, printed, build, results_json.encode(), info, store, progress, graph,
                             lambda: lay_out(screens, files), cached)
        files.update((printed[key].file, pdf) for key, pdf in rendered.items())
        timings["pdf"] = time.perf_counter() - stage
    formulas.typeset_into(store, known)
    return files, build


@dataclass(frozen=True)
class Printed:
    """One PDF's print page: its HTML, its file, and for a stamped output how to stamp it."""

    html: str
    file: str
    output: Output
    own: dict  # the context its template read, with the build id: to render again unstamped
    marks: int | None = None  # stamped outputs: the build id's placeholders in `html` (0: rendered with the id)


def print_pages(outputs, ctx, unnamed, stampable):
    """{cache key: Printed} of each output's print pages; a stamped one with the id's placeholder
    (reportgen.render.stamp) where it can be set after rendering: a change the PDF does not show
    leaves its pages cached."""
    out = {}
    for output in outputs:
        for doc, own in pages(output, ctx):
            if output.stamped and stampable:
                html, marks = stamp.mark(render_html(view(unnamed, output), "print", output))
            else:
                html, marks = render_html(own, "print", output), (0 if output.stamped else None)
            out[output.key(doc)] = Printed(html, output.file("print", doc), output, own, marks)
    return out


def lay_out(screens, files):
    """The screen pages into `files`; with PDFs, while the workers begin them."""
    files.update((name, render_html(own, "screen", output)) for name, own, output in screens)


__all__ = ["MAKERS", "Printed", "render"]
