"""reportgen build beside its peer: the documents' own code cells run as a notebook.

The peer is what a reader of the five documents could do by hand: put every ```python
block of ../shared/seeds/*.txt in a Jupyter notebook and execute it to HTML
(`jupyter nbconvert --execute --to html`). It prints far less than reportgen (no
verdicts, no PDF), so the ratio says what reportgen's extra work costs.

    .venv/bin/pip install nbconvert nbclient ipykernel   # once; not a reportgen dependency
    .venv/bin/python benchmarks/peer.py --runs 5          # interleaved, medians and ratios
    .venv/bin/python benchmarks/peer.py --update-readme   # also the README's table

Each run: the peer notebook, then `reportgen build --profile quick --no-cache` in a fresh
scratch folder (cold: nothing cached), then the same build with --format html (no PDF),
interleaved so that load drifts hit all three alike. A cell that raises does not stop the
notebook (--allow-errors): the documents' code is what it is.
"""

import argparse
import datetime
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

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT.parent / "shared" / "seeds"
CODE = re.compile(r"```python\n(.*?)```", re.S)


def notebook(folder):
    """The documents' python cells as one notebook, in document order; returns its path."""
    cells = []
    for path in sorted(SEEDS.glob("*.txt")):
        for block in CODE.findall(path.read_text(encoding="utf-8")):
            cells.append({"cell_type": "code", "metadata": {"source_doc": path.name[:3]},
                          "execution_count": None, "outputs": [], "source": block})
    nb = {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                       "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    target = Path(folder) / "documents.ipynb"
    target.write_text(json.dumps(nb), encoding="utf-8")
    return target, len(cells)


def timed(cmd, cwd, env):
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(map(str, cmd))}\n{proc.stderr[-2000:]}")
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--update-readme", action="store_true")
    args = parser.parse_args()
    bindir = Path(sys.executable).parent
    jupyter, reportgen = bindir / "jupyter", bindir / "reportgen"
    if not jupyter.exists():
        sys.exit("jupyter is not installed in this venv: .venv/bin/pip install nbconvert nbclient ipykernel")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    times = {"peer notebook": [], "quick cold, HTML + PDFs": [], "quick cold, HTML only": []}
    with tempfile.TemporaryDirectory(prefix="reportgen-peer-") as scratch:
        nb, n_cells = notebook(scratch)
        load_before = os.getloadavg()[0]
        for _ in range(args.runs):
            times["peer notebook"].append(timed(
                [jupyter, "nbconvert", "--execute", "--allow-errors", "--to", "html", "--output-dir", scratch, nb],
                scratch, env))
            for label, extra in (("quick cold, HTML + PDFs", []), ("quick cold, HTML only", ["--format", "html"])):
                folder = Path(scratch) / "build"
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                times[label].append(timed([reportgen, "build", "--profile", "quick", "--no-cache", "-q", *extra],
                                          folder, env))
        load_after = os.getloadavg()[0]
    peer = statistics.median(times["peer notebook"])
    lines = [
        f"Measured {datetime.date.today()} on {os.cpu_count()} cores; {args.runs} interleaved runs; "
        f"the peer notebook holds the documents' {n_cells} python cells; 1-minute load {load_before:.2f} before, "
        f"{load_after:.2f} after.",
        "",
        "| case | median s | min / max s | × peer |",
        "|---|---:|---:|---:|",
    ]
    for label, values in times.items():
        m = statistics.median(values)
        lines.append(f"| {label} | {m:.1f} | {min(values):.1f} / {max(values):.1f} | {m / peer:.2f} |")
    table = "\n".join(lines)
    print(table)
    (ROOT / "benchmarks" / "peer.md").write_text(table + "\n", encoding="utf-8")
    if args.update_readme:
        readme = ROOT / "README.md"
        text = readme.read_text(encoding="utf-8")
        text = re.sub(r"<!-- peer:start -->.*<!-- peer:end -->", f"<!-- peer:start -->\n{table}\n<!-- peer:end -->",
                      text, flags=re.S)
        readme.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
