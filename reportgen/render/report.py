"""Render every output of a build in memory: results.json, report.html, the PDFs, the citations.

One context, several renderings of it: report.html for a screen (MathML, dark mode, links to
the other files), report.pdf for print (findings first, every claims table in an
appendix), report-handout.pdf (findings, key figures, material errors: a few pages for a
course) and an errata sheet per document. `render` returns the files' bytes; the pipeline
publishes them (reportgen.publish.outputs), all together or none.
"""

import hashlib
import json
import time

from reportgen.render import citation, formulas, stamp
from reportgen.render.context import build_fields, context
from reportgen.render.pdf import begin_sheet, cached_pdfs, pdf_stage, ready_to_render
from reportgen.render.results import results_document
from reportgen.render.templates import render_html, render_sheet


def render(report, catalog, info, config, timings, store, progress, pool=None):
    """({file name: text or bytes}, build id) of every output `config.format` asks for, from the
    report model (reportgen.model.Report, which judging assembled); `pool`: the
    build's worker processes (reportgen.workers), which render PDFs beside this one; `store`: the
    cache the PDFs and typeset formulas are kept in."""
    if "pdf" in config.format and pool is not None:
        pool.warm(ready_to_render)  # while this process lays the pages out (none on one core)
    results_json = json.dumps(results_document(report, catalog, info, config.title), indent=1, ensure_ascii=False)
    build = hashlib.sha256(results_json.encode()).hexdigest()[:16]
    files = {"results.json": results_json, "report.bib": citation.bibliography(config, info, build),
             "CITATION.cff": citation.cff(config, info, build)}
    if "html" not in config.format and "pdf" not in config.format:
        return files, build
    stage = time.perf_counter()

    def screen():  # report.html and the sheets' pages; with PDFs, while the workers begin them
        if "html" in config.format:
            files["report.html"] = render_html(ctx, "screen")
            files.update((f"{sheet['name']}.html", render_sheet(ctx, sheet, "screen")) for sheet in ctx["sheets"])

    known = formulas.typeset_from(store)
    with progress.stage("html", "laying out the report"):
        ctx = context(report, catalog, info, config, build)
        if "pdf" in config.format:
            sheets = {sheet["name"]: render_sheet(ctx, sheet, "print") for sheet in ctx["sheets"]}
            cached = cached_pdfs(sheets, store)  # looked up once: a damaged entry warns once
            begun = begin_sheet(sheets, cached, info, pool)  # while the report's pages are laid out
            # report.pdf and the handout with the build id's placeholder, set after rendering
            # (reportgen.render.stamp): a change they do not show leaves their pages cached
            stampable = stamp.usable(results_json, repr(config))
            unnamed = dict(ctx, meta=dict(ctx["meta"], **build_fields(config, info, stamp.PLACEHOLDER)))
            printed, marks = {}, {}
            for name, template in (("report", "report.html.j2"), ("handout", "handout.html.j2")):
                printed[name], marks[name] = (stamp.mark(render_html(unnamed, "print", template)) if stampable
                                              else (render_html(ctx, "print", template), 0))
            printed.update(sheets)
            cached.update(cached_pdfs({name: printed[name] for name in marks}, store))
        else:
            screen()
    timings["html"] = time.perf_counter() - stage
    if "pdf" in config.format:
        stage = time.perf_counter()
        rendered = pdf_stage(ctx, printed, marks, build, results_json.encode(), info, store, progress, pool,
                             screen, begun, cached)
        files["report.pdf"], files["report-handout.pdf"] = rendered.pop("report"), rendered.pop("handout")
        files.update((f"{name}.pdf", pdf) for name, pdf in rendered.items())
        timings["pdf"] = time.perf_counter() - stage
    formulas.typeset_into(store, known)
    return files, build


__all__ = ["render"]
