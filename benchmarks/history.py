"""The nightly benchmark history: ratios to the peer, one line a night, and regressions beyond the noise.

    python -m benchmarks.history HISTORY RESULTS [--window 14] [--min-nights 5] [--k 4]

RESULTS is a `python -m benchmarks` results file. Each of its benchmarks' "seconds" is divided
by the peer notebook's median seconds of the same run: GitHub's runners differ from night to
night, and a ratio to a peer timed beside it cancels most of that. The night is judged against
the last --window nights of HISTORY (JSON Lines, one night a line), then appended to it.

A case regresses when its ratio exceeds the recent median by more than k robust standard
deviations (1.4826 × the median absolute deviation, the run-to-run noise those nights showed),
and by at least --floor of the median: a history of near-identical nights must not make a 2%
wobble news. A case with fewer than --min-nights earlier ratios is never flagged.
Exit status: 0 no regression, 1 a regression (listed on stdout), 2 bad input.
"""

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a file too: `python benchmarks/history.py`
from benchmarks import PEER  # noqa: E402

MAD_TO_SD = 1.4826  # MAD of a normal sample × 1.4826 estimates its standard deviation


def ratios(results):
    """{"benchmark: case": seconds / the peer notebook's seconds} of one results file."""
    name, case = PEER
    peer = results[name]["result"]["seconds"][case]
    return {f"{bench}: {label}": seconds / peer
            for bench, entry in sorted(results.items())
            for label, seconds in sorted(entry["result"]["seconds"].items())
            if (bench, label) != PEER}


def night(results, run=None):
    """One line of the history: when, which commit, the load, and the ratios."""
    env = results[PEER[0]]["environment"]
    return {"date": env["date"], "commit": env["commit"], "run": run, "load": env["load_before"],
            "ratios": ratios(results)}


def regressions(history, tonight, window=14, min_nights=5, k=4.0, floor=0.10):
    """[(case, ratio, median, threshold)] of tonight's ratios beyond the noise of the last window nights."""
    out = []
    for case, ratio in sorted(tonight["ratios"].items()):
        recent = [n["ratios"][case] for n in history if case in n["ratios"]][-window:]
        if len(recent) < min_nights:
            continue
        median = statistics.median(recent)
        mad = statistics.median(abs(r - median) for r in recent)
        threshold = median + max(k * MAD_TO_SD * mad, floor * median)
        if ratio > threshold:
            out.append((case, ratio, median, threshold))
    return out


def read(path):
    """The nights of a history file, oldest first; none when it does not exist yet."""
    path = Path(path)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.history", description=__doc__.splitlines()[0])
    parser.add_argument("history", help="JSON Lines history file (created when missing)")
    parser.add_argument("results", help="results JSON of tonight's `python -m benchmarks` run")
    parser.add_argument("--run", help="an identifier of tonight's run (the CI run's URL)")
    parser.add_argument("--window", type=int, default=14, help="recent nights the noise is measured over (default 14)")
    parser.add_argument("--min-nights", type=int, default=5, help="nights needed before flagging (default 5)")
    parser.add_argument("--k", type=float, default=4.0, help="robust standard deviations allowed (default 4)")
    parser.add_argument("--floor", type=float, default=0.10, help="smallest rise flagged, × median (default 0.10)")
    args = parser.parse_args(argv)
    try:
        history = read(args.history)
        tonight = night(json.loads(Path(args.results).read_text(encoding="utf-8")), args.run)
    except (OSError, ValueError, KeyError) as exc:
        print(f"history: cannot read the history or results: {exc!r}", file=sys.stderr)
        return 2
    found = regressions(history, tonight, args.window, args.min_nights, args.k, args.floor)
    with open(args.history, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(tonight, sort_keys=True) + "\n")
    print(f"{len(tonight['ratios'])} ratios to the peer appended to {args.history} ({len(history) + 1} nights)")
    for case, ratio, median, threshold in found:
        print(f"REGRESSION {case}: {ratio:.2f} × peer, recent median {median:.2f}, threshold {threshold:.2f}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
