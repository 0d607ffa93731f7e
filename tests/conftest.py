"""Shared fixtures: one quick build per session, reused read-only by many tests.

The session's build (`quick_build`) and a second cold build (`fresh_build`, for the
reproducibility test), each in a fresh interpreter, run in the background from the session's
start, beside the fast tests; work that needs the session build but not this
process (`after_build`: reading the PDFs' text, the signal cases) starts in the background as
soon as it is done; a `--only PDF_FAMILY` build (`small_pdf_build`) gives the tests that damage
or interrupt a PDF a cheap one to start from.

Every build runs in its own temporary folder (never in the checkout) with
SOURCE_DATE_EPOCH set, so its output is reproducible and comparable.
"""

import datetime
import functools
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from reportgen.cli import main

EPOCH = "1700000000"  # 2023-11-14T22:13:20Z
BUILD_TIME = datetime.datetime.fromtimestamp(int(EPOCH), datetime.timezone.utc).isoformat()
OUTPUT_NAMES = ("results.json", "report.html", "report.pdf", "report-handout.pdf")
DOCUMENTS = ("000", "001", "002", "003", "004")  # one errata sheet each
SHEETS = tuple(f"errata-{doc}.{ext}" for doc in DOCUMENTS for ext in ("html", "pdf"))


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
    from reportgen.judging.vocabulary import catalog
    from reportgen.experiments import EXPERIMENTS
    from reportgen.judging.runs import judge_run
    from reportgen.scheduler import Run

    run = Run(EXPERIMENTS[name], results=quick_results(name))
    return {j.id: j for j in judge_run(run, catalog().of_family(name))}


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes more than a few seconds (deselect with -m 'not slow')")


# Fixtures that build the whole report (the session's quick build, or a copy of its cache):
# a test that uses one is in the slow lane, whether or not it says so itself.
BUILD_FIXTURES = {"quick_build", "warm_dir", "pdf", "pdfs", "handout", "sheets", "sheet", "fresh_build", "pdf_build_dir"}


def pytest_collection_modifyitems(config, items):
    """Mark every test that needs a full build as slow: `pytest -m "not slow"` stays fast.

    The slow tests then run after the others, and the ones that wait for the background build
    of `fresh_build` last (each group in its usual order): it runs beside everything else.
    """
    for item in items:
        if BUILD_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: (item.get_closest_marker("slow") is not None,  # stable: order kept
                                 "fresh_build" in getattr(item, "fixturenames", ())))


RUNNING = pytest.StashKey()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Note the test whose fixtures are being set up (quick_build checks it is a slow one)."""
    item.config.stash[RUNNING] = item


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
        # The cache's MAC key: never the user's own state folder (tests write no home files).
        mp.setenv("REPORTGEN_CACHE_KEY", "reportgen-test-session-key")
        mp.setenv("XDG_STATE_HOME", str(Path(tempfile.mkdtemp(prefix="reportgen-state-"))))
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


class Background:
    """A command running beside the tests: its output is read in a thread (a full pipe never
    stalls it), and it is killed if the session ends first (-x, Ctrl-C). With `nice`, it (and
    the processes it starts) yields the CPU to this one."""

    def __init__(self, config, args, cwd=None, env=None, timeout=600, nice=0):
        self.proc = subprocess.Popen([str(a) for a in args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        if nice:
            try:
                os.setpriority(os.PRIO_PROCESS, self.proc.pid, nice)  # before it starts any worker
            except (AttributeError, OSError):
                pass  # no priorities here: it only competes more
        self.timeout, self._output = timeout, None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        config.add_cleanup(self._stop)

    def _read(self):
        self._output = self.proc.communicate()

    def _stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self._reader.join()

    def result(self):
        """The finished command, as subprocess.run gives it; one still running `timeout` s after
        this is asked is killed."""
        self._reader.join(self.timeout)
        if self._reader.is_alive():
            self._stop()
            raise subprocess.TimeoutExpired(self.proc.args, self.timeout)
        return subprocess.CompletedProcess(self.proc.args, self.proc.returncode, *self._output)


def describe(result):
    """Everything needed to understand a failed CLI call, for assertion messages."""
    exc = getattr(result, "exception", None)
    return (
        f"exit={getattr(result, 'exit_code', getattr(result, 'returncode', None))}\n"
        f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}\nexception: {exc!r}"
    )


def snapshot(folder):
    """{relative path: bytes} of every file under folder (empty when it does not exist), but the
    build lock (.reportgen-lock: an empty file a build leaves on purpose, never removed)."""
    folder = Path(folder)
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != ".reportgen-lock"}


def write_placeholder_output(root):
    """An existing output/ from an earlier build: known bytes to check later."""
    out = Path(root) / "output"
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_bytes(b'{"previous": "build"}\n')
    (out / "report.html").write_bytes(b"<!DOCTYPE html><title>previous build</title>\n")
    (out / "report.pdf").write_bytes(b"%PDF-1.7 previous build placeholder\n")
    files = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in out.iterdir()}
    (out / ".reportgen-manifest.json").write_text(json.dumps({"build": "previous", "files": files}))  # a build's set
    return snapshot(out)


def copy_cache(quick_build, dest):
    """Seed dest with the session build's cache, so a build there needs no fresh run."""
    shutil.copytree(quick_build.cache, Path(dest) / ".reportgen-cache")


def quick_formats():
    """What the session's builds render: both PDFs too where WeasyPrint loads."""
    return "html,pdf" if pdf_supported() else "html"


SESSION_BUILD = pytest.StashKey()


def start_session_build(config, tmp_path_factory):
    """Start the session's build, `python -m reportgen build --profile quick --no-cache` in a fresh
    folder, in the background (once per session); `quick_build` waits for it.

    It needs nothing from this process, so it runs beside the fast tests, which take one core,
    instead of before the first slow one; niced, it takes the CPU they leave."""
    if SESSION_BUILD not in config.stash:
        root = tmp_path_factory.mktemp("quick-build")
        args = [sys.executable, "-m", "reportgen", "build", "--profile", "quick", "--no-cache", "--format",
                quick_formats()]
        build = Background(config, args, cwd=root, env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH}, timeout=600, nice=5)
        config.stash[SESSION_BUILD] = SimpleNamespace(root=root, build=build)
    return config.stash[SESSION_BUILD]


@pytest.fixture(scope="session")
def quick_build(request, tmp_path_factory, source_date_epoch):
    """One `reportgen build --profile quick --no-cache` (seed 0) in a fresh folder, begun in the
    background at the session's start (`early_builds`)."""
    item = request.config.stash.get(RUNNING, None)
    if item is not None and item.get_closest_marker("slow") is None:
        pytest.fail(f"{item.nodeid} is not marked slow but asks for the session's full build (a minute): "
                    "mark it @pytest.mark.slow (request.getfixturevalue hides a fixture from BUILD_FIXTURES)")
    started = start_session_build(request.config, tmp_path_factory)
    root, result = started.root, started.build.result()
    assert result.returncode == 0, describe(result)
    formats = quick_formats()
    out = root / "output"
    build = SimpleNamespace(
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
        sheets=sorted(out.glob("errata-*.pdf")) if "pdf" in formats else [],
    )
    for name in AFTER_BUILD:  # work that waited for this build, wanted by a test of this session
        if any(name in getattr(item, "fixturenames", ()) for item in request.session.items):
            started_after_build(request.config, name, build, tmp_path_factory)
    return build


# --- work started in the background as soon as the session build is there ----------------

AFTER_BUILD = {}  # fixture name -> start(config, quick_build, tmp_path_factory) -> handle
STARTED = pytest.StashKey()


def after_build(name):
    """Register `start(config, quick_build, tmp_path_factory)`: slow work that needs the session
    build but not this process (subprocesses to run, files to read), begun in the background the
    moment the build is done when a selected test uses the fixture `name`. The tests between the
    build and the one that uses it run meanwhile; that fixture gets the handle start returned
    from `started_after_build`.
    """

    def register(start):
        AFTER_BUILD[name] = start
        return start

    return register


def started_after_build(config, name, quick_build, tmp_path_factory):
    """The handle of the work registered under `name`, started now if it was not."""
    started = config.stash.setdefault(STARTED, {})
    if name not in started:
        started[name] = AFTER_BUILD[name](config, quick_build, tmp_path_factory)
    return started[name]


@pytest.fixture
def warm_dir(tmp_path, quick_build):
    """A fresh working folder holding a copy of the session build's cache."""
    copy_cache(quick_build, tmp_path)
    return tmp_path


# The family whose own report renders fastest (both PDFs in about 3 s, against 7 s for variance
# and 40 s for the whole quick report): tests that need a real PDF render but not a given one
# build `--only` this family.
PDF_FAMILY = "training"


@pytest.fixture(scope="session")
def small_pdf_build(quick_build, tmp_path_factory):
    """A folder with the session build's cache and a `--only PDF_FAMILY` build in it: output/
    (HTML and both PDFs), figures/, and the two PDFs in the cache's render cache."""
    if quick_build.pdf is None:
        pytest.skip("WeasyPrint (Pango) is not available: no PDF was built")
    root = tmp_path_factory.mktemp("small-pdf-build")
    copy_cache(quick_build, root)
    result = invoke(["build", "--profile", "quick", "--only", PDF_FAMILY, "-q"], root)
    assert result.exit_code == 0 and (root / "output" / "report.pdf").is_file(), describe(result)
    return root


@pytest.fixture
def pdf_build_dir(tmp_path, small_pdf_build):
    """A fresh working folder holding a copy of small_pdf_build (cache, output and figures): the
    state right after a `--only PDF_FAMILY` build, without rendering its PDFs again."""
    shutil.copytree(small_pdf_build, tmp_path, dirs_exist_ok=True)
    return tmp_path


# --- a second cold build in a fresh interpreter, run beside the session's own -------------

FRESH_BUILD = pytest.StashKey()


def start_fresh_build(config, tmp_path_factory):
    """Start `python -m reportgen build --profile quick --no-cache` in a fresh folder and a fresh
    interpreter, in the background (once per session); `fresh_build` waits for it.

    Like the session's build, it runs beside the fast tests; niced further, it takes the CPU
    they and that build leave (test_same_seed_gives_identical_bytes, which waits for it, runs last).
    """
    if FRESH_BUILD in config.stash:
        return config.stash[FRESH_BUILD]
    root = tmp_path_factory.mktemp("fresh-build")
    args = [sys.executable, "-m", "reportgen", "build", "--profile", "quick", "--no-cache", "--format",
            quick_formats(), "-q"]
    build = Background(config, args, cwd=root, env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH}, timeout=600, nice=10)
    config.stash[FRESH_BUILD] = SimpleNamespace(root=root, build=build)
    return config.stash[FRESH_BUILD]


@pytest.fixture(scope="session", autouse=True)
def early_builds(request, tmp_path_factory, source_date_epoch):
    """Start the background builds at the session's first test when a test will want them (after
    the session's environment is set: a build must not make a cache key in the real home)."""
    wanted = set().union(*(getattr(item, "fixturenames", ()) for item in request.session.items))
    if "quick_build" in wanted:
        start_session_build(request.config, tmp_path_factory)
    if "fresh_build" in wanted:
        start_fresh_build(request.config, tmp_path_factory)


@pytest.fixture(scope="session")
def fresh_build(request, tmp_path_factory, source_date_epoch):
    """The finished background build: root, and a CompletedProcess of its run (as run_cli gives)."""
    started = start_fresh_build(request.config, tmp_path_factory)
    return SimpleNamespace(root=started.root, output=started.root / "output", proc=started.build.result())
