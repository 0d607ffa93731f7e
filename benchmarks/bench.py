"""Time `reportgen build`: median wall time and peak memory over a few runs, against budgets.

Run it from the repository root with the venv the README sets up:

    .venv/bin/python benchmarks/bench.py              # 3 runs per case, a few minutes on 2 cores
    .venv/bin/python benchmarks/bench.py --runs 5
    .venv/bin/python benchmarks/bench.py --reportgen /path/to/reportgen --device cpu
    .venv/bin/python benchmarks/bench.py --update-readme   # also replace the README's table

It installs nothing. Each build runs as a subprocess under GNU time (`/usr/bin/time -v`; on
Debian `apt-get install time` provides it), with `-q`, in a scratch folder under the system
temp directory (removed afterwards unless --keep), so the repository's output/, figures/ and
.reportgen-cache/ are never touched. The cases:

  quick cold      --profile quick --no-cache, a fresh output folder and cache folder per run
  standard cold   --profile standard --no-cache, a fresh output folder and cache folder per run
  standard cached --profile standard with nothing changed: the cache is warm and the output
                  folder is the same (after the cold runs, in the last cold run's folder)

It prints a Markdown table and writes it to benchmarks/results.md (or --results FILE); with
--update-readme it also puts it between the bench:start/bench:end markers of README.md.
Wall times depend on what else the machine runs: the header records the load average.
A case is within budget when its median wall time and median peak RSS are under the budget.
Exit status: 0 when every case is within budget, 1 when one is not, 2 on a failed build.
.ci/run does not use this script.
"""

import argparse
import datetime
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

GNU_TIME = "/usr/bin/time"
HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RSS_BUDGET_MIB = 2048

# (case, profile, cold, wall budget in seconds)
CASES = (
    ("quick build, cold", "quick", True, 20.0),
    ("standard build, cold", "standard", True, 45.0),  # issue 15's target (was 90 s)
    ("standard rebuild, nothing changed (cache warm)", "standard", False, 5.0),
)


class BuildError(Exception):
    pass


def find_reportgen(given):
    if given:
        return given
    beside = Path(sys.executable).parent / "reportgen"
    if beside.is_file():
        return str(beside)
    found = shutil.which("reportgen")
    if not found:
        sys.exit("bench: no reportgen next to this Python or on PATH; pass --reportgen PATH")
    return found


def elapsed_seconds(text):
    """GNU time's 'h:mm:ss' or 'm:ss.ss' as seconds."""
    seconds = 0.0
    for part in text.strip().split(":"):
        seconds = seconds * 60 + float(part)
    return seconds


def timed_build(reportgen, folder, profile, cold, device):
    """One `reportgen build` in folder; returns (wall seconds, peak RSS MiB)."""
    config = folder / "bench.toml"
    if not config.exists():
        # Explicit paths, so a pyproject.toml elsewhere can never change where things go.
        config.write_text('[tool.reportgen]\ncache_dir = "cache"\nfigures = "figures"\n', encoding="utf-8")
    stats = folder / "time.txt"
    command = [GNU_TIME, "-v", "-o", str(stats), reportgen, "build", "-q",
               "--profile", profile, "--device", device, "--output", "output", "--config", str(config)]
    if cold:
        command.append("--no-cache")
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise BuildError(f"{' '.join(command[4:])} exited with {done.returncode}:\n{done.stdout}{done.stderr}")
    report = stats.read_text(encoding="utf-8")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", report)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report)
    if not wall or not rss:
        raise BuildError(f"cannot read {GNU_TIME} -v output:\n{report}")
    return elapsed_seconds(wall.group(1)), int(rss.group(1)) / 1024


def machine():
    cpu = platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                memory = f", {int(line.split()[1]) / 1024**2:.0f} GiB RAM"
                break
    except (OSError, ValueError):
        pass
    return f"{os.cpu_count()} cores ({cpu}){memory}, {platform.system()} {platform.release()}"


def git_commit():
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + (" (with uncommitted changes)" if dirty else "")


def versions(reportgen):
    """torch and Python versions of the environment the reportgen script runs in."""
    script = Path(reportgen).resolve()
    python = script.parent / "python"
    if not python.exists():
        return ""
    code = "import platform, torch; print(f'Python {platform.python_version()}, torch {torch.__version__}')"
    try:
        return subprocess.run([str(python), "-c", code], capture_output=True, text=True,
                              timeout=120).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def load_average():
    try:
        return Path("/proc/loadavg").read_text(encoding="utf-8").split()[0]
    except (OSError, IndexError):
        return "?"


def update_readme(text, readme=REPO / "README.md"):
    start, end = "<!-- bench:start -->", "<!-- bench:end -->"
    content = readme.read_text(encoding="utf-8")
    before, sep1, rest = content.partition(start)
    _, sep2, after = rest.partition(end)
    if not (sep1 and sep2):
        sys.exit(f"bench: {readme} has no {start} … {end} markers")
    readme.write_text(f"{before}{start}\n{text}{end}{after}", encoding="utf-8")


def table(rows, header_lines):
    lines = list(header_lines) + [
        "",
        "| case | runs | median wall s | min/max wall s | median peak RSS MiB | budget | within budget |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for case, walls, rsss, budget in rows:
        wall, rss = statistics.median(walls), statistics.median(rsss)
        over = [what for what, bad in (("wall", wall > budget), ("RSS", rss > RSS_BUDGET_MIB)) if bad]
        verdict = "yes" if not over else "NO (" + ", ".join(over) + ")"
        lines.append(
            f"| {case} | {len(walls)} | {wall:.1f} | {min(walls):.1f} / {max(walls):.1f} | {rss:.0f} "
            f"| ≤ {budget:g} s, ≤ {RSS_BUDGET_MIB} MiB | {verdict} |"
        )
    return "\n".join(lines) + "\n", all(
        statistics.median(w) <= b and statistics.median(r) <= RSS_BUDGET_MIB for _, w, r, b in rows
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="timed runs per case (default 3)")
    parser.add_argument("--reportgen", help="the reportgen script (default: beside this Python, else PATH)")
    parser.add_argument("--device", default="auto", help="--device for every build (default auto)")
    parser.add_argument("--results", default=str(HERE / "results.md"), help="Markdown output file")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--update-readme", action="store_true", help="also replace the table in README.md")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if not os.access(GNU_TIME, os.X_OK):
        sys.exit(f"bench: {GNU_TIME} not found; on Debian `apt-get install time` provides it")
    reportgen = find_reportgen(args.reportgen)

    load_before = load_average()
    scratch = Path(tempfile.mkdtemp(prefix="reportgen-bench-"))
    rows, last_cold = [], None
    try:
        for case, profile, cold, budget in CASES:
            walls, rsss = [], []
            for i in range(args.runs):
                if cold:
                    folder = scratch / f"{profile}-cold-{i}"
                    folder.mkdir()
                    last_cold = folder
                else:
                    folder = last_cold  # warm cache and output from the last standard cold run
                wall, rss = timed_build(reportgen, folder, profile, cold, args.device)
                print(f"bench: {case}, run {i + 1}/{args.runs}: {wall:.2f} s, {rss:.0f} MiB", file=sys.stderr)
                walls.append(wall)
                rsss.append(rss)
            rows.append((case, walls, rsss, budget))
    except BuildError as exc:
        print(f"bench: build failed: {exc}", file=sys.stderr)
        return 2
    finally:
        if args.keep:
            print(f"bench: scratch folder kept: {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)

    today = datetime.date.today().isoformat()
    env = versions(reportgen)
    header = [
        f"Measured {today} on {machine()}; reportgen at commit {git_commit()}"
        + (f"; {env}" if env else "") + f"; --device {args.device}; "
        f"1-minute load average {load_before} before, {load_average()} after.",
        f"`benchmarks/bench.py --runs {args.runs}`: `/usr/bin/time -v reportgen build -q`, "
        "medians over the runs; within budget means median wall time and median peak RSS under budget.",
    ]
    text, ok = table(rows, header)
    Path(args.results).write_text(text, encoding="utf-8")
    print(text, end="")
    if args.update_readme:
        update_readme(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
