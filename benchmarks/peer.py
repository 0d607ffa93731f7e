"""reportgen build beside its peer: the documents' own code cells run as a notebook.

The peer is what a reader of the five documents could do by hand: put every ```python
block of the documents in a Jupyter notebook and execute it to HTML (`jupyter nbconvert
--execute --to html`). It prints far less than reportgen (no verdicts, no PDF), so the ratio
says what reportgen's extra work costs. The notebook is committed (benchmarks/peer.ipynb),
so the nightly job needs no copy of the documents; --refresh-notebook rewrites it from them.

    .venv/bin/pip install nbconvert nbclient ipykernel   # once; not a reportgen dependency
    .venv/bin/python -m benchmarks peer                   # 5 interleaved runs, its table in docs/performance.md too
    .venv/bin/python benchmarks/peer.py --runs 5          # printed only
    .venv/bin/python benchmarks/peer.py --refresh-notebook --seeds ../shared/seeds

Each run, interleaved so that load drifts hit every case alike:

  peer notebook                     the documents' cells, executed to HTML
  quick cold, HTML + PDFs           `reportgen build --profile quick --no-cache`, a fresh folder
  quick cold, HTML only             the same with --format html (no PDF)
  standard cold, HTML + PDFs        `--profile standard --no-cache`, a fresh folder
  quick rebuild, one claim's text   in a folder built once before the first run (cache warm),
                                    one claim's note changed (a copy of the built-in claims,
                                    named by the `claims` setting), then `reportgen build`:
                                    what an instructor editing a claims file waits for

A cell that raises does not stop the notebook (--allow-errors): the documents' code is what it is.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
NOTEBOOK = HERE / "peer.ipynb"
SEEDS = HERE.parent.parent / "shared" / "seeds"  # the documents, beside the checkout
CODE = re.compile(r"```python\n(.*?)```", re.S)
PEER = "peer notebook"
BUILDS = (("quick cold, HTML + PDFs", "quick", ()), ("quick cold, HTML only", "quick", ("--format", "html")),
          ("standard cold, HTML + PDFs", "standard", ()))
EDIT = "quick rebuild, one claim's text changed (cache warm)"
EDITED_CLAIM = ("002.toml", 'note = "A reading of')  # the line whose text each run changes

SIZES = {"quick": {"runs": 3}, "full": {"runs": 5}}  # full: docs/performance.md's; this machine drifts by a quarter within minutes
# Issue 22's targets: (case, limit, unit) with unit "× peer" or "s"; the table says whether each holds.
TARGETS = {"quick cold, HTML + PDFs": (3.0, "× peer"), "quick cold, HTML only": (1.5, "× peer"),
           "standard cold, HTML + PDFs": (75.0, "s"), EDIT: (5.0, "s")}


def notebook_from(seeds):
    """The documents' python cells as one notebook (a dict), in document order."""
    cells = []
    for path in sorted(Path(seeds).glob("*.txt")):
        for block in CODE.findall(path.read_text(encoding="utf-8")):
            cells.append({"cell_type": "code", "metadata": {"source_doc": path.name[:3]},
                          "execution_count": None, "outputs": [], "source": block})
    return {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                         "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def commands(scratch, jupyter, reportgen):
    """{case: (argv, folder)}: the peer notebook's command, then each build's, folders under scratch."""
    scratch = Path(scratch)
    shutil.copyfile(NOTEBOOK, scratch / NOTEBOOK.name)
    out = {PEER: ([str(jupyter), "nbconvert", "--execute", "--allow-errors", "--to", "html",
                   "--output-dir", str(scratch), NOTEBOOK.name], scratch)}
    for label, profile, extra in BUILDS:
        out[label] = ([str(reportgen), "build", "--profile", profile, "--no-cache", "-q", *extra], scratch / "build")
    out[EDIT] = ([str(reportgen), "build", "--config", "edit.toml", "--profile", "quick", "-q"], scratch / "edit")
    return out


def prepare_edit(folder, reportgen, env):
    """A folder with a copy of the built-in claims, named by its config, built once (the cache warm)."""
    from importlib.resources import files

    folder.mkdir()
    claims = folder / "claims"
    shutil.copytree(Path(str(files("reportgen") / "claims")), claims, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    (folder / "edit.toml").write_text('[tool.reportgen]\nclaims = "claims"\n', encoding="utf-8")
    timed([str(reportgen), "build", "--config", "edit.toml", "--profile", "quick", "-q"], folder, env)


def edit_claim(folder, run):
    """Change one claim's note: a different text each run, so every rebuild has a change to render."""
    path = folder / "claims" / EDITED_CLAIM[0]
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(EDITED_CLAIM[1], 1)
    rest = re.sub(r"^( \(edit [a-z]+\))?", f" (edit {'abcdefghij'[run % 10]})", rest, count=1)
    path.write_text(head + EDITED_CLAIM[1] + rest, encoding="utf-8")


def timed(argv, cwd, env):
    """Seconds one command takes; a failure raises with the end of its error output."""
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"failed ({proc.returncode}): {' '.join(argv)}\n{proc.stderr[-2000:]}")
    return seconds


def measure(runs=3, jupyter=None, reportgen=None, only=()):
    """Seconds of the peer notebook and of the builds, interleaved over runs; `only`: words of the
    cases to time (the peer notebook is always timed: every ratio is to it)."""
    bindir = Path(sys.executable).parent
    jupyter, reportgen = jupyter or bindir / "jupyter", reportgen or bindir / "reportgen"
    if not Path(jupyter).exists():
        raise RuntimeError("jupyter is not installed in this venv: .venv/bin/pip install nbconvert nbclient ipykernel")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    cells = len(json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"])
    with tempfile.TemporaryDirectory(prefix="reportgen-peer-") as scratch:
        cases = {label: case for label, case in commands(scratch, jupyter, reportgen).items()
                 if label == PEER or not only or any(word in label for word in only)}
        if EDIT in cases:
            prepare_edit(cases[EDIT][1], reportgen, env)
        times = {label: [] for label in cases}
        for run in range(runs):
            for label, (argv, folder) in cases.items():
                if label == EDIT:
                    edit_claim(folder, run)
                elif label != PEER:  # a build starts cold, in a fresh folder
                    shutil.rmtree(folder, ignore_errors=True)
                    folder.mkdir()
                times[label].append(timed(argv, folder, env))
    return {"runs": runs, "cells": cells, "cases": [{"case": k, "seconds": v} for k, v in times.items()],
            "seconds": {k: statistics.median(v) for k, v in times.items()}}


def table(result):
    """docs/performance.md's table: each case's median, extremes and ratio to the peer notebook."""
    peer = result["seconds"][PEER]
    lines = [
        f"{result['runs']} interleaved runs; the peer notebook holds the documents' {result['cells']} python cells.",
        "",
        "| case | median s | min / max s | × peer | target | met |",
        "|---|---:|---:|---:|---|---|",
    ]
    for row in result["cases"]:
        m = statistics.median(row["seconds"])
        limit, unit = TARGETS.get(row["case"], (None, ""))
        value = m / peer if unit == "× peer" else m
        target = f"≤ {limit:g}{' ' if unit == 's' else ''}{unit}" if limit else ""
        met = ("yes" if value <= limit else "**no**") if limit else ""
        lines.append(f"| {row['case']} | {m:.1f} | {min(row['seconds']):.1f} / {max(row['seconds']):.1f} "
                     f"| {m / peer:.2f} | {target} | {met} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--refresh-notebook", action="store_true", help=f"rewrite {NOTEBOOK.name} from --seeds")
    parser.add_argument("--seeds", default=str(SEEDS), help="the documents' folder (default ../shared/seeds)")
    parser.add_argument("--case", action="append", default=[], metavar="WORDS",
                        help="time only the cases whose name holds WORDS (repeatable; e.g. 'HTML only'), and the peer")
    args = parser.parse_args(argv)
    if args.refresh_notebook:
        nb = notebook_from(args.seeds)
        if not nb["cells"]:
            parser.error(f"no python cells in {args.seeds}/*.txt")
        NOTEBOOK.write_text(json.dumps(nb, indent=1) + "\n", encoding="utf-8")
        print(f"{NOTEBOOK}: {len(nb['cells'])} cells")
        return 0
    print(table(measure(args.runs, only=args.case)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
