"""Time `reportgen build`: median wall time and peak memory over a few runs, against budgets.

Run it from the repository root with the venv the README sets up:

    .venv/bin/python -m benchmarks bench              # 3 runs per case, its table in docs/performance.md too
    .venv/bin/python benchmarks/bench.py              # the same table, printed only
    .venv/bin/python benchmarks/bench.py --runs 5
    .venv/bin/python benchmarks/bench.py --reportgen /path/to/reportgen --device cpu

It installs nothing. Each build runs as a subprocess, with `-q`, in a scratch folder under
the system temp directory (removed afterwards), so the repository's output/, figures/ and
.reportgen-cache/ are never touched. Its peak memory is the largest resident set of the
build and the worker processes it waited for (os.wait4's ru_maxrss, what GNU time -v
reports), taken by a small process that starts the build: Linux carries a peak over fork and
exec, so a build started from this process would count this process's own size. The cases
(docs/performance.md's; the nightly's quick size runs the quick ones):

  quick cold      --profile quick --no-cache, a fresh output folder and cache folder per run
  quick cached    --profile quick with nothing changed, in the last quick cold run's folder
  standard cold   --profile standard --no-cache, a fresh output folder and cache folder per run
  standard cached --profile standard with nothing changed: the cache is warm and the output
                  folder is the same (after the cold runs, in the last cold run's folder)

Wall times depend on what else the machine runs: the entry point records the load average.
A case is within budget when its median wall time and median peak RSS are under the budget.
Exit status: 0 when every case is within budget, 1 when one is not, 2 on a failed build.
"""

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RSS_BUDGET_MIB = 2048

# (case, profile, cold, wall budget in seconds); a warm case follows the cold one of its profile.
CASES = (
    ("quick build, cold", "quick", True, 20.0),
    ("quick rebuild, nothing changed (cache warm)", "quick", False, 5.0),
    ("standard build, cold", "standard", True, 75.0),  # issue 21: the training study paired over 5 seeds (was 45 s)
    ("standard rebuild, nothing changed (cache warm)", "standard", False, 5.0),
)
FULL_CASES = (CASES[0][0], CASES[2][0], CASES[3][0])

SIZES = {
    "quick": {"runs": 1, "cases": (CASES[0][0], CASES[1][0])},
    "full": {"runs": 3, "cases": FULL_CASES},
}


class BuildError(Exception):
    """A build that could not be started or did not succeed."""


def find_reportgen(given):
    if given:
        return given
    beside = Path(sys.executable).parent / "reportgen"
    if beside.is_file():
        return str(beside)
    found = shutil.which("reportgen")
    if not found:
        raise BuildError("no reportgen next to this Python or on PATH; pass --reportgen PATH")
    return found


# Forks and execs the build, waits for it, and writes its ru_maxrss (KiB) to argv[1]. Linux
# carries a process's peak RSS over fork and exec: a build started by this process, grown to
# 860 MiB by an earlier benchmark in it (bench_pdf renders in process), was said to peak at
# 858 MiB whatever it used. Started from this small process, it starts from ~10 MiB.
_PEAK_OF = """import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def timed_build(command, folder, profile, cold, device):
    """One `reportgen build` in folder; returns (wall seconds, peak RSS MiB)."""
    config = folder / "bench.toml"
    if not config.exists():
        # Explicit paths, so a pyproject.toml elsewhere can never change where things go.
        config.write_text('[tool.reportgen]\ncache_dir = "cache"\nfigures = "figures"\n', encoding="utf-8")
    argv = [*command, "build", "-q", "--profile", profile, "--device", device, "--output", "output",
            "--config", str(config)] + (["--no-cache"] if cold else [])
    peak = folder / "peak-rss-kib"
    peak.unlink(missing_ok=True)
    start = time.perf_counter()
    with open(folder / "build.log", "w+", encoding="utf-8") as log:
        returncode = subprocess.call([sys.executable, "-c", _PEAK_OF, str(peak), *argv], cwd=folder, stdout=log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        if returncode != 0:
            log.seek(0)
            raise BuildError(f"{' '.join(argv[len(command):])} exited with {returncode}:\n{log.read()[-4000:]}")
    return wall, int(peak.read_text()) / 1024  # ru_maxrss is in KiB on Linux; it covers the workers waited for


def measure(runs=3, cases=FULL_CASES, device="auto", reportgen=None):
    """Wall seconds and peak RSS of each case's builds, and whether its medians are within budget."""
    if runs < 1:
        raise ValueError("runs must be at least 1")
    command = [find_reportgen(reportgen)]
    chosen = [c for c in CASES if c[0] in cases]
    if len(chosen) != len(cases):
        raise ValueError(f"unknown case among {cases}; the cases are {[c[0] for c in CASES]}")
    rows, last_cold = [], {}
    with tempfile.TemporaryDirectory(prefix="reportgen-bench-") as scratch:
        for case, profile, cold, budget in chosen:
            walls, rsss = [], []
            for i in range(runs):
                if cold:
                    folder = last_cold[profile] = Path(scratch) / f"{profile}-cold-{i}"
                    folder.mkdir()
                else:
                    folder = last_cold[profile]  # warm cache and output from the last cold run
                wall, rss = timed_build(command, folder, profile, cold, device)
                print(f"bench: {case}, run {i + 1}/{runs}: {wall:.2f} s, {rss:.0f} MiB", file=sys.stderr)
                walls.append(wall)
                rsss.append(rss)
            wall, rss = statistics.median(walls), statistics.median(rsss)
            rows.append({"case": case, "profile": profile, "cold": cold, "budget_s": budget, "wall_s": walls,
                         "rss_mib": rsss, "over": [what for what, bad in (("wall", wall > budget),
                                                                          ("RSS", rss > RSS_BUDGET_MIB)) if bad]})
    return {"runs": runs, "device": device, "rss_budget_mib": RSS_BUDGET_MIB, "cases": rows,
            "within_budget": not any(r["over"] for r in rows),
            "seconds": {r["case"]: statistics.median(r["wall_s"]) for r in rows}}


def table(result):
    """docs/performance.md's table: each case's median and extreme wall times, peak RSS and budget."""
    lines = [
        f"`reportgen build -q --device {result['device']}`, {result['runs']} runs per case, medians; within "
        "budget means median wall time and median peak RSS under budget.",
        "",
        "| case | runs | median wall s | min/max wall s | median peak RSS MiB | budget | within budget |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for row in result["cases"]:
        walls, rss = row["wall_s"], statistics.median(row["rss_mib"])
        verdict = "yes" if not row["over"] else "NO (" + ", ".join(row["over"]) + ")"
        lines.append(
            f"| {row['case']} | {len(walls)} | {statistics.median(walls):.1f} | {min(walls):.1f} / {max(walls):.1f} "
            f"| {rss:.0f} | ≤ {row['budget_s']:g} s, ≤ {result['rss_budget_mib']} MiB | {verdict} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="timed runs per case (default 3)")
    parser.add_argument("--reportgen", help="the reportgen script (default: beside this Python, else PATH)")
    parser.add_argument("--device", default="auto", help="--device for every build (default auto)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    try:
        result = measure(args.runs, FULL_CASES, args.device, args.reportgen)
    except BuildError as exc:
        print(f"bench: build failed: {exc}", file=sys.stderr)
        return 2
    print(table(result), end="")
    return 0 if result["within_budget"] else 1


if __name__ == "__main__":
    sys.exit(main())
