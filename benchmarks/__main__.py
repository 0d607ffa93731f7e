"""python -m benchmarks [NAME ...]: run the benchmarks, record them in one JSON file, rewrite docs/performance.md.

    .venv/bin/python -m benchmarks                    # every benchmark at the full size
    .venv/bin/python -m benchmarks throughput peer    # a named subset; the others keep their results
    .venv/bin/python -m benchmarks --size quick --results out.json --no-docs   # the nightly's run
    .venv/bin/python -m benchmarks --docs-only        # rewrite docs/performance.md from the results file alone

The results file (default benchmarks/results.json) holds one entry per benchmark: its size,
environment (machine, commit, load average before and after, versions) and numbers. A run
replaces the entries of the benchmarks it ran and keeps the others; docs/performance.md's tables
are then rewritten from the whole file, so every table in it comes from the same place. Only
full-size results reach the page unless --size quick is asked for explicitly with it.
A benchmark that fails is reported and skipped; the exit status is then 1.
"""

import argparse
import json
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

from benchmarks import BENCHMARKS, load
from benchmarks.environment import REPO, environment, load_average
from benchmarks.pages import block, update

RESULTS = REPO / "benchmarks" / "results.json"
PERFORMANCE = REPO / "docs" / "performance.md"


def run(names, size, keep=lambda name, entry: None):
    """{name: entry} for each benchmark run at size, and the names that failed; keep(name, entry) after each."""
    entries, failed = {}, []
    for name in names:
        module = load(name)
        print(f"benchmarks: {name} ({size}) …", file=sys.stderr, flush=True)
        env, start = environment(), time.perf_counter()
        try:
            result = module.measure(**module.SIZES[size])
        except Exception:  # one benchmark's failure is reported, the others still run
            traceback.print_exc()
            failed.append(name)
            continue
        entries[name] = {"size": size, "environment": env, "load_after": load_average(),
                         "wall_s": round(time.perf_counter() - start, 1), "result": result}
        keep(name, entries[name])
        print(f"benchmarks: {name} done in {entries[name]['wall_s']} s", file=sys.stderr, flush=True)
    return entries, failed


def write_json(path, data):
    """Write data to path atomically (a partial file never replaces a good one)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1, sort_keys=True)
        handle.write("\n")
    os.replace(tmp, path)


def rewrite_docs(results, page=PERFORMANCE):
    """Put every benchmark's table of results into docs/performance.md; returns the names written."""
    blocks = {name: block(name, entry, load(name)) for name, entry in results.items() if name in BENCHMARKS}
    page = Path(page)
    page.write_text(update(page.read_text(encoding="utf-8"), blocks), encoding="utf-8")
    return sorted(blocks)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"benchmarks to run (default all: {' '.join(BENCHMARKS)})")
    parser.add_argument("--size", choices=("quick", "full"), default="full", help="quick: the nightly's (default full)")
    parser.add_argument("--results", default=str(RESULTS), help="results JSON to update (default benchmarks/results.json)")
    parser.add_argument("--no-docs", action="store_true", help="leave docs/performance.md alone")
    parser.add_argument("--docs-only", action="store_true", help="run nothing; rewrite docs/performance.md from --results")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    args = parser.parse_args(argv)
    if args.list:
        for name in BENCHMARKS:
            print(f"{name:15} {(load(name).__doc__ or '').splitlines()[0]}")
        return 0
    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"no benchmark {', '.join(unknown)}; there are {', '.join(BENCHMARKS)}")
    path = Path(args.results)
    results = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    failed = []
    if not args.docs_only:
        def keep(name, entry):  # after each benchmark: a later crash loses nothing measured
            results[name] = entry
            write_json(path, results)

        entries, failed = run(args.names or BENCHMARKS, args.size, keep)
        print(f"benchmarks: {len(entries)} of {len(entries) + len(failed)} ran; results in {path}", file=sys.stderr)
    if not args.no_docs:
        written = rewrite_docs({n: e for n, e in results.items() if e["size"] == "full" or args.size == "quick"})
        print(f"benchmarks: docs/performance.md tables rewritten: {', '.join(written) or 'none'}", file=sys.stderr)
    if failed:
        print(f"benchmarks: FAILED: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
