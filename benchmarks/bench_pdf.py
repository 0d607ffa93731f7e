"""Time the PDFs alone: WeasyPrint's layout and writing of report.pdf, the handout and the errata sheets.

    .venv/bin/python -m benchmarks bench_pdf                 # quick and standard, 3 runs, the tables of docs/performance.md
    .venv/bin/python benchmarks/bench_pdf.py                 # quick profile, 3 runs
    .venv/bin/python benchmarks/bench_pdf.py --profile standard --runs 5
    .venv/bin/python benchmarks/bench_pdf.py --parts        # where report.pdf's time goes

It builds the report once in a scratch folder (the cache there makes a second call quick),
keeps the print HTML that `reportgen build` hands to WeasyPrint, then renders each PDF
`--runs` times in this process, one after the other (the build renders the two side by side),
and prints the median layout, writing and total seconds, the pages and the size. Nothing in
the repository is touched; it installs nothing.
"""

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

def print_html(profile, folder):
    """{name: print HTML, "info": provenance} from one build."""
    from reportgen.cli import main
    from reportgen.render import pdf

    captured = {}

    def keep(named, info, store, *_, **__):  # pdf.pdfs: the graph and the cached ones too
        captured.update(named, info=info)
        return {name: b"%PDF-1.7 not rendered" for name in named}

    # the build stamps and attaches the PDFs it gets back: nothing to do on these stand-ins
    real = pdf.pdfs, pdf.attach_results
    pdf.pdfs, pdf.attach_results = keep, lambda data, *_: data
    try:
        main(["build", "--profile", profile, "--config", str(folder / "config.toml"), "-q"], standalone_mode=False)
    finally:
        pdf.pdfs, pdf.attach_results = real
    return captured


def render(html, results_json=None, info=None):
    """(layout s, write s, pages, bytes) of one PDF, as pdf.render_pdf makes it."""
    import weasyprint
    from weasyprint.urls import URLFetcher

    from reportgen.gcpause import paused_gc
    from reportgen.render import pngpass
    from reportgen.render.templates import templates

    pngpass.install()  # as pdf.render_pdf
    css = (templates() / "print.css").read_text(encoding="utf-8")
    html = html.replace("</head>", f"<style>\n{css}</style>\n</head>", 1)
    start = time.perf_counter()
    with paused_gc():
        document = weasyprint.HTML(string=html, url_fetcher=URLFetcher(allowed_protocols=("data",)),
                                   base_url=".").render()
        laid_out = time.perf_counter()
        pdf = document.write_pdf(pdf_variant="pdf/ua-1")
    return laid_out - start, time.perf_counter() - laid_out, len(document.pages), len(pdf)


REGISTER = re.compile(r'<section id="appendix".*?(?=<section id="sources")', re.S)


def register_parts(html):
    """{part: print HTML}: report.pdf cut apart, to see what a design without a part would cost.

    "body" is the report without Appendix A (the register of every claim); "register" is
    Appendix A alone; "bare register" keeps its rows' four cells as plain text, without the
    passages quoted, the reasons and any inline markup: the least a register can be.
    """
    match = REGISTER.search(html)
    if match is None:
        sys.exit("no Appendix A in the print HTML: has the template changed?")
    head, register = html[: html.index("<body")], match[0]
    bare = re.sub(r'<tr class="(passage|why)">.*?</tr>', "", register, flags=re.S)
    bare = re.sub(r"<(?!/?(?:table|thead|tbody|tr|td|th|caption|section|h[1-6])\b)[^>]*>", "", bare)
    bare = re.sub(r"</tbody>\s*<tbody>", "", bare)  # one body per table (WeasyPrint 70 fails on many tiny ones)
    return {
        "report": html,
        "body": html[: match.start()] + html[match.end():],
        "register": f"{head}<body>{register}</body></html>",
        "bare register": f"{head}<body>{bare}</body></html>",
    }


SIZES = {
    "quick": {"profiles": ("quick",), "runs": 1},
    "full": {"profiles": ("quick", "standard"), "runs": 3},
}


def build_folder(profile):
    """A scratch folder kept between calls (its cache makes the next build quick), with its config."""
    folder = Path(tempfile.gettempdir()) / f"reportgen-bench-pdf-{profile}"
    folder.mkdir(exist_ok=True)
    (folder / "config.toml").write_text(
        f'output = "{folder / "out"}"\nfigures = "{folder / "figures"}"\ncache_dir = "{folder / "cache"}"\n'
    )
    return folder


def time_pdfs(named, runs):
    """[{pdf, pages, bytes, layout_s, writing_s}] for each {name: print HTML}, rendered runs times."""
    rows = []
    for name, html in named.items():
        times = [render(html, None, None) for _ in range(runs)]
        rows.append({"pdf": name, "pages": times[0][2], "bytes": times[0][3],
                     "layout_s": [t[0] for t in times], "writing_s": [t[1] for t in times]})
    return rows


def measure(profiles=("quick",), runs=3, parts=False, html=None):
    """Each profile's PDFs rendered alone from its build's print HTML (or from html: {profile: {name: HTML}})."""
    if parts:
        import logging

        logging.getLogger("weasyprint").setLevel(logging.CRITICAL)  # links into the parts left out
    out, seconds = [], {}
    for profile in profiles:
        named = html[profile] if html else print_html(profile, build_folder(profile))
        named = register_parts(named["report"]) if parts else {n: html for n, html in named.items() if n != "info"}
        rows = time_pdfs(named, runs)
        out.append({"profile": profile, "runs": runs, "pdfs": rows})
        for row in rows:
            seconds[f"{row['pdf']} PDF, {profile}"] = statistics.median(
                a + b for a, b in zip(row["layout_s"], row["writing_s"]))
    return {"profiles": out, "seconds": seconds}


def table(result):
    """docs/performance.md's tables: one per profile, each PDF's pages, size and median seconds."""
    lines = []
    for entry in result["profiles"]:
        lines += [f"{entry['profile']} profile, {entry['runs']} runs each, medians (sequential, one process):", "",
                  "| PDF | pages | MiB | layout s | writing s | total s | min / max total s |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for row in entry["pdfs"]:
            totals = [a + b for a, b in zip(row["layout_s"], row["writing_s"])]
            lines.append(f"| {row['pdf']} | {row['pages']} | {row['bytes'] / 2**20:.1f} | "
                         f"{statistics.median(row['layout_s']):.1f} | {statistics.median(row['writing_s']):.1f} | "
                         f"{statistics.median(totals):.1f} | {min(totals):.1f} / {max(totals):.1f} |")
        if len(entry["pdfs"]) > 2:  # what a cold build's pdf stage shares out between its processes
            rows = entry["pdfs"]
            total = lambda key: sum(statistics.median(r[key]) for r in rows)  # noqa: E731  (of the medians)
            lines.append(f"| all {len(rows)} | {sum(r['pages'] for r in rows)} | {sum(r['bytes'] for r in rows) / 2**20:.1f} | "
                         f"{total('layout_s'):.1f} | {total('writing_s'):.1f} | "
                         f"{total('layout_s') + total('writing_s'):.1f} | |")
        lines.append("")
    return "\n".join(lines[:-1]) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="quick", choices=("quick", "standard"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--parts", action="store_true", help="report.pdf whole, without the register, "
                        "the register alone, the register bare")
    args = parser.parse_args(argv)
    print(table(measure((args.profile,), args.runs, args.parts)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
