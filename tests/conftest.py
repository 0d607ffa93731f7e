"""Shared fixtures: one quick build per session, reused read-only by many tests.

Every build runs in its own temporary folder (never in the checkout) with
SOURCE_DATE_EPOCH set, so its output is reproducible and comparable.
"""

import datetime
import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from reportgen.cli import main

EPOCH = "1700000000"  # 2023-11-14T22:13:20Z
BUILD_TIME = datetime.datetime.fromtimestamp(int(EPOCH), datetime.timezone.utc).isoformat()
OUTPUT_NAMES = ("results.json", "report.html", "report.pdf", "report-handout.pdf")


def no_progress(items, label):
    """The progress callable experiments take, silent."""
    return items


def run_experiment(experiment, params):
    """An experiment's results on the CPU with seed 0, after the pipeline's JSON round trip.

    One torch thread, as the pipeline's default: a second OpenMP thread spin-waits on a
    shared 2-core machine and made the language model's quick run 30x slower.
    """
    import torch

    torch.set_num_threads(1)
    return json.loads(json.dumps(experiment.run(params, 0, "cpu", no_progress)))


@functools.cache
def quick_results(name):
    """A family's quick-profile results (seed 0, CPU), computed once per test session."""
    from reportgen.experiments import EXPERIMENTS

    experiment = EXPERIMENTS[name]
    return run_experiment(experiment, experiment.params["quick"])


@functools.cache
def judged_claims(name):
    """{claim id: Judged} of a family's claims on its quick results."""
    from reportgen.claims import catalog
    from reportgen.experiments import EXPERIMENTS
    from reportgen.pipeline import Run, judge_run

    run = Run(EXPERIMENTS[name], results=quick_results(name))
    return {j.id: j for j in judge_run(run, catalog().of_family(name))}


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes more than a few seconds (deselect with -m 'not slow')")


# Fixtures that build the whole report (the session's quick build, or a copy of its cache):
# a test that uses one is in the slow lane, whether or not it says so itself.
BUILD_FIXTURES = {"quick_build", "warm_dir", "pdf", "pdfs", "handout"}


def pytest_collection_modifyitems(config, items):
    """Mark every test that needs a full build as slow: `pytest -m "not slow"` stays fast."""
    for item in items:
        if BUILD_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def pdf_supported():
    """True when WeasyPrint and its system libraries (Pango) load."""
    try:
        import weasyprint  # noqa: F401
    except (ImportError, OSError):
        return False
    return True


@pytest.fixture(scope="session", autouse=True)
def source_date_epoch():
    """SOURCE_DATE_EPOCH for every build of the session, in-process and in subprocesses."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        yield EPOCH


def invoke(args, cwd):
    """Run the CLI in-process with cwd as the working directory; return click's Result."""
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(cwd)
        return CliRunner().invoke(main, [str(a) for a in args])


def run_cli(args, cwd, env=None):
    """Run `python -m reportgen ARGS` in a fresh interpreter (full isolation)."""
    full_env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "reportgen", *map(str, args)],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def describe(result):
    """Everything needed to understand a failed CLI call, for assertion messages."""
    exc = getattr(result, "exception", None)
    return (
        f"exit={getattr(result, 'exit_code', getattr(result, 'returncode', None))}\n"
        f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}\nexception: {exc!r}"
    )


def snapshot(folder):
    """{relative path: bytes} of every file under folder (empty when it does not exist)."""
    folder = Path(folder)
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def write_placeholder_output(root):
    """An existing output/ from an earlier build: known bytes to check later."""
    out = Path(root) / "output"
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_bytes(b'{"previous": "build"}\n')
    (out / "report.html").write_bytes(b"<!DOCTYPE html><title>previous build</title>\n")
    (out / "report.pdf").write_bytes(b"%PDF-1.7 previous build placeholder\n")
    return snapshot(out)


def copy_cache(quick_build, dest):
    """Seed dest with the session build's cache, so a build there needs no fresh run."""
    shutil.copytree(quick_build.cache, Path(dest) / ".reportgen-cache")


@pytest.fixture(scope="session")
def quick_build(tmp_path_factory, source_date_epoch):
    """One `reportgen build --profile quick --no-cache` (seed 0) in a fresh folder."""
    root = tmp_path_factory.mktemp("quick-build")
    formats = "html,pdf" if pdf_supported() else "html"
    result = invoke(["build", "--profile", "quick", "--no-cache", "--format", formats], root)
    assert result.exit_code == 0, describe(result)
    out = root / "output"
    return SimpleNamespace(
        root=root,
        output=out,
        cache=root / ".reportgen-cache",
        result=result,
        results_bytes=(out / "results.json").read_bytes(),
        results=json.loads((out / "results.json").read_text(encoding="utf-8")),
        html_bytes=(out / "report.html").read_bytes(),
        html=(out / "report.html").read_text(encoding="utf-8"),
        pdf=out / "report.pdf" if "pdf" in formats else None,
        handout=out / "report-handout.pdf" if "pdf" in formats else None,
    )


@pytest.fixture
def warm_dir(tmp_path, quick_build):
    """A fresh working folder holding a copy of the session build's cache."""
    copy_cache(quick_build, tmp_path)
    return tmp_path
