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
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from reportgen.cli import main

EPOCH = "1700000000"  # 2023-11-14T22:13:20Z
CACHE_KEY = "reportgen-test-session-key"  # the cache's MAC key in every build of the session
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
    if not hasattr(config, "workerinput"):  # the session's own process (xdist's workers inherit the folder)
        folder = Path(tempfile.mkdtemp(prefix="reportgen-tests-"))
        os.environ[SHARED] = str(folder)
        config.stash[BUILDER] = Builder(config, folder)


def pytest_unconfigure(config):
    builder = config.stash.get(BUILDER, None)
    if builder is not None:
        builder.close()


# Fixtures that build the whole report (the session's quick build, or a copy of its cache):
# a test that uses one is in the slow lane, whether or not it says so itself.
BUILD_FIXTURES = {"quick_build", "warm_dir", "pdf", "pdfs", "handout", "sheets", "sheet", "fresh_build", "pdf_build_dir"}


def pytest_collection_modifyitems(config, items):
    """Mark every test that needs a full build as slow: `pytest -m "not slow"` stays fast.

    The fast tests then run first: those of files without a slow test, then the others' (so that
    pytest-xdist, which hands out whole files in this order, gives out the files that need no build
    while the session's build runs); then the slow tests, and the ones that wait for the background
    build of `fresh_build` last: it runs beside everything else.
    """
    for item in items:
        if BUILD_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    needs_build = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: (item.path in needs_build,  # stable: order kept
                                 item.get_closest_marker("slow") is not None,
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
        mp.setenv("REPORTGEN_CACHE_KEY", CACHE_KEY)
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


@pytest.fixture(scope="session")
def quick_build(request, tmp_path_factory, source_date_epoch):
    """One `reportgen build --profile quick --no-cache` (seed 0) in a fresh folder and a fresh
    interpreter, begun in the background at the session's start (BUILDS)."""
    item = request.config.stash.get(RUNNING, None)
    if item is not None and item.get_closest_marker("slow") is None:
        pytest.fail(f"{item.nodeid} is not marked slow but asks for the session's full build (a minute): "
                    "mark it @pytest.mark.slow (request.getfixturevalue hides a fixture from BUILD_FIXTURES)")
    root, result = background_build("quick")
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
    for name in AFTER_BUILD if not hasattr(request.config, "workerinput") else ():
        # work that waited for this build, wanted by a test of this session (in one of xdist's workers,
        # which does not know which tests it will be given: begun by the fixture that wants it)
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


# --- the session's builds, in the background, shared by every process of the session -------

BUILDS = {  # name -> (arguments after `python -m reportgen build --format FORMATS`, nice)
    # the session's build, read by every slow test; niced a little: the whole suite took 218-220 s
    # with it at 5 against 234-239 s at 0 (the workers' tests keep the cores busy meanwhile)
    "quick": (["--profile", "quick", "--no-cache"], 5),
    # a second cold build, for the reproducibility test (test_same_seed_gives_identical_bytes, run last)
    "fresh": (["--profile", "quick", "--no-cache", "-q"], 10),
}
WANTED_BY = {"quick": "quick_build", "fresh": "fresh_build"}  # the fixture that waits for each
SHARED = "REPORTGEN_TEST_SHARED"  # the folder they are built in, the same for all of xdist's workers
BUILDER = pytest.StashKey()


class Builder:
    """Runs BUILDS in the background for the whole session, each once, in the process that runs
    the session (xdist's controller, or the only one): they need nothing from a test process, so
    they run beside the fast tests, niced, on the CPU those leave.

    A process whose tests want a build asks for it with a file (`want`); the builder starts it
    and writes its outcome beside its folder (`background_build` waits for that)."""

    def __init__(self, config, folder):
        self.folder, self.started, self.stop = folder, {}, threading.Event()
        self.state = Path(tempfile.mkdtemp(prefix="reportgen-state-"))
        (folder / "want").mkdir()
        self.config = config
        self.thread = threading.Thread(target=self._watch, daemon=True, name="builder")
        self.thread.start()

    def _watch(self):
        while not self.stop.wait(0.1):
            for name in sorted(p.name for p in (self.folder / "want").iterdir()):
                if name in BUILDS and name not in self.started:
                    try:
                        self._start(name)
                    except Exception as exc:  # a build that cannot start: its tests fail at once, saying why
                        self.started[name] = None
                        self._write(name, {"returncode": -1, "stdout": "", "stderr": f"cannot start: {exc!r}"})
            for name, build in list(self.started.items()):
                if build is not None and build.proc.poll() is not None:
                    self._finish(name, build)

    def _start(self, name):
        args, nice = BUILDS[name]
        root = self.folder / name
        root.mkdir()
        env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH, "REPORTGEN_CACHE_KEY": CACHE_KEY,
               "XDG_STATE_HOME": str(self.state)}
        self.started[name] = Background(self.config, [sys.executable, "-m", "reportgen", "build", "--format",
                                                       quick_formats(), *args], cwd=root, env=env, timeout=600,
                                        nice=nice)

    def _finish(self, name, build):
        done = build.result()
        self._write(name, {"returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr})
        self.started[name] = None

    def _write(self, name, outcome):
        """The outcome `background_build` waits for, written whole (renamed into place)."""
        staged = self.folder / f".{name}.json"
        staged.write_text(json.dumps(outcome), encoding="utf-8")
        staged.replace(self.folder / f"{name}.json")

    def close(self):
        """End the builds still running (the session ended first: -x, Ctrl-C) and remove their folder."""
        self.stop.set()
        self.thread.join()
        for build in self.started.values():
            if build is not None:
                build._stop()
        shutil.rmtree(self.folder, ignore_errors=True)
        shutil.rmtree(self.state, ignore_errors=True)


def shared_folder():
    return Path(os.environ[SHARED])


def want(name):
    """Ask the session's builder for a build (once is enough; asking again changes nothing)."""
    (shared_folder() / "want" / name).touch()


def background_build(name, timeout=600):
    """(folder, CompletedProcess) of a background build, waited for."""
    want(name)
    outcome, deadline = shared_folder() / f"{name}.json", time.monotonic() + timeout
    while not outcome.is_file():
        if time.monotonic() > deadline:
            raise subprocess.TimeoutExpired(name, timeout)
        time.sleep(0.1)
    done = json.loads(outcome.read_text(encoding="utf-8"))
    return shared_folder() / name, subprocess.CompletedProcess(name, done["returncode"], done["stdout"], done["stderr"])


@pytest.fixture(scope="session", autouse=True)
def early_builds(request, source_date_epoch):
    """Ask for the background builds at the session's first test when a test will want them."""
    wanted = set().union(*(getattr(item, "fixturenames", ()) for item in request.session.items))
    for name, fixture in WANTED_BY.items():
        if fixture in wanted:
            want(name)


@pytest.fixture(scope="session")
def fresh_build(source_date_epoch):
    """The finished background build: root, and a CompletedProcess of its run (as run_cli gives)."""
    root, proc = background_build("fresh")
    return SimpleNamespace(root=root, output=root / "output", proc=proc)
