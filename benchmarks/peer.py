"""reportgen build beside its peer: the documents' own code cells run as a notebook.

The peer is what a reader of the five documents could do by hand: put every ```python
block of the documents in a Jupyter notebook and execute it to HTML (`jupyter nbconvert
--execute --to html`). It prints far less than reportgen (no verdicts, no PDF), so the ratio
says what reportgen's extra work costs. The notebook is committed (benchmarks/peer.ipynb),
so the nightly job needs no copy of the documents; --refresh-notebook rewrites it from them.

    .venv/bin/pip install nbconvert nbclient ipykernel   # once; not a reportgen dependency
    .venv/bin/python -m benchmarks peer                   # 3 interleaved runs, the README's table too
    .venv/bin/python benchmarks/peer.py --runs 5          # printed only
    .venv/bin/python benchmarks/peer.py --refresh-notebook --seeds ../shared/seeds

Each run: the peer notebook, then `reportgen build --profile quick --no-cache` in a fresh
scratch folder (cold: nothing cached), then the same build with --format html (no PDF),
interleaved so that load drifts hit all three alike. A cell that raises does not stop the
notebook (--allow-errors): the documents' code is what it is.
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
BUILDS = (("quick cold, HTML + PDFs", ()), ("quick cold, HTML only", ("--format", "html")))

SIZES = {"quick": {"runs": 3}, "full": {"runs": 3}}


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


def commands(scratch, jupyter, reportgen, profile="quick"):
    """{case: (argv, folder)}: the peer notebook's command, then each build's, folders under scratch."""
    scratch = Path(scratch)
    shutil.copyfile(NOTEBOOK, scratch / NOTEBOOK.name)
    out = {PEER: ([str(jupyter), "nbconvert", "--execute", "--allow-errors", "--to", "html",
                   "--output-dir", str(scratch), NOTEBOOK.name], scratch)}
    for label, extra in BUILDS:
        out[label] = ([str(reportgen), "build", "--profile", profile, "--no-cache", "-q", *extra], scratch / "build")
    return out


def timed(argv, cwd, env):
    """Seconds one command takes; a failure raises with the end of its error output."""
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"failed ({proc.returncode}): {' '.join(argv)}\n{proc.stderr[-2000:]}")
    return seconds


def measure(runs=3, jupyter=None, reportgen=None):
    """Seconds of the peer notebook and of the two quick cold builds, interleaved over runs."""
    bindir = Path(sys.executable).parent
    jupyter, reportgen = jupyter or bindir / "jupyter", reportgen or bindir / "reportgen"
    if not Path(jupyter).exists():
        raise RuntimeError("jupyter is not installed in this venv: .venv/bin/pip install nbconvert nbclient ipykernel")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    cells = len(json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"])
    with tempfile.TemporaryDirectory(prefix="reportgen-peer-") as scratch:
        cases = commands(scratch, jupyter, reportgen)
        times = {label: [] for label in cases}
        for _ in range(runs):
            for label, (argv, folder) in cases.items():
                if label != PEER:  # a build starts cold, in a fresh folder
                    shutil.rmtree(folder, ignore_errors=True)
                    folder.mkdir()
                times[label].append(timed(argv, folder, env))
    return {"runs": runs, "cells": cells, "cases": [{"case": k, "seconds": v} for k, v in times.items()],
            "seconds": {k: statistics.median(v) for k, v in times.items()}}


def table(result):
    """The README's table: each case's median, extremes and ratio to the peer notebook."""
    peer = result["seconds"][PEER]
    lines = [
        f"{result['runs']} interleaved runs; the peer notebook holds the documents' {result['cells']} python cells.",
        "",
        "| case | median s | min / max s | × peer |",
        "|---|---:|---:|---:|",
    ]
    for row in result["cases"]:
        m = statistics.median(row["seconds"])
        lines.append(f"| {row['case']} | {m:.1f} | {min(row['seconds']):.1f} / {max(row['seconds']):.1f} "
                     f"| {m / peer:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--refresh-notebook", action="store_true", help=f"rewrite {NOTEBOOK.name} from --seeds")
    parser.add_argument("--seeds", default=str(SEEDS), help="the documents' folder (default ../shared/seeds)")
    args = parser.parse_args(argv)
    if args.refresh_notebook:
        nb = notebook_from(args.seeds)
        if not nb["cells"]:
            parser.error(f"no python cells in {args.seeds}/*.txt")
        NOTEBOOK.write_text(json.dumps(nb, indent=1) + "\n", encoding="utf-8")
        print(f"{NOTEBOOK}: {len(nb['cells'])} cells")
        return 0
    print(table(measure(args.runs)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
