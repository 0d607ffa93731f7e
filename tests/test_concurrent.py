"""Builds into one output folder at once: each publishes a whole set, and says only what is true.

Two builds differ by their title, so every file tells which build wrote it: the manifest's
build id is the hash of results.json, and report.html carries results.json's title. Run as
a script for many pairs: `python tests/test_concurrent.py 200`.
"""

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILD = ["build", "--profile", "quick", "--only", "worked", "--format", "html", "-q"]


def config(root, title):
    path = root / f"{title}.toml"
    path.write_text(f'title = "{title}"\noutput = "out"\nfigures = "fig-{title}"\ncache_dir = "cache-{title}"\n')
    return path


def start(root, title, env):
    return subprocess.Popen([sys.executable, "-m", "reportgen", *BUILD, "--config", str(config(root, title))],
                            cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def mixed(out):
    """Why the output folder is not one build's set, or None."""
    manifest = json.loads((out / ".reportgen-manifest.json").read_text())
    results = (out / "results.json").read_bytes()
    if manifest["build"] != hashlib.sha256(results).hexdigest()[:16]:
        return "results.json is not the manifest's build"
    for name, digest in manifest["files"].items():
        if hashlib.sha256((out / name).read_bytes()).hexdigest() != digest:
            return f"{name} is not the manifest's build"
    title = json.loads(results)["title"]
    if f"<title>{title}" not in (out / "report.html").read_text():
        return "report.html is another build's"
    if (out / ".reportgen-swap.json").exists() or list(out.glob(".*.staged")):
        return "a journal or staged file was left"
    return None


def false_messages(proc, code, stderr):
    """Lines a build printed that are not true of a build that ended with `code`."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    bad = [line for line in lines if "Traceback" in line or "unchanged" in line and code == 0]
    if code != 0:
        bad.append(f"exit {code}: {lines[-1:] or 'no message'}")
    return bad


def pairs(n, width=2, verbose=False):
    """Run n rounds of `width` builds at once into one folder; (mixed sets, false messages, seconds)."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000", "REPORTGEN_LOCK_WAIT": "120"}
    mixes, falses, start_time = [], [], time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        titles = [f"Build{chr(65 + i)}" for i in range(width)]
        for title in titles:  # warm each build's own cache once
            assert start(root, title, env).wait() == 0
        for i in range(n):
            procs = [start(root, t, env) for t in titles]
            for proc in procs:
                _, err = proc.communicate(timeout=300)
                falses += false_messages(proc, proc.returncode, err)
            why = mixed(root / "out")
            if why:
                mixes.append(why)
            if verbose and (i + 1) % 10 == 0:
                print(f"{i + 1} rounds: {len(mixes)} mixed, {len(falses)} false messages", flush=True)
    return mixes, falses, time.perf_counter() - start_time


@pytest.mark.slow
@pytest.mark.parametrize("width", [2, 3])
def test_concurrent_builds_publish_whole_sets(width):
    mixes, falses, _ = pairs(3, width)
    assert mixes == [] and falses == []


if __name__ == "__main__":
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    width = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    mixes, falses, seconds = pairs(rounds, width, verbose=True)
    print(f"{rounds} rounds of {width} concurrent builds in {seconds:.0f} s: {len(mixes)} mixed sets, "
          f"{len(falses)} false messages")
    for line in (mixes + falses)[:20]:
        print("  ", line)
