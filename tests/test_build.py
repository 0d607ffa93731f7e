"""Whole builds: atomic output, failing experiments, the registry, results.json."""

import base64
import dataclasses
import errno
import html
import json
import os
import re
import stat
from pathlib import Path

import pytest
from conftest import (
    BUILD_TIME,
    OUTPUT_NAMES,
    SHEETS,
    describe,
    invoke,
    pdf_supported,
    snapshot,
    write_placeholder_output,
)

from reportgen import __version__, atomic
from reportgen.experiments import EXPERIMENTS
from reportgen.experiments.family import PROFILES, ClaimTable, Experiment, Figure, Table
from reportgen.experiments.sources import Source
from reportgen.model import VERDICTS
from reportgen.render.mathtex import plain

needs_pdf = pytest.mark.skipif(not pdf_supported(), reason="WeasyPrint (Pango) is not available")


def stray_files(folder):
    """Files under folder that are not finished outputs (temporary or staged files of a write)."""
    kept = (*OUTPUT_NAMES, *SHEETS, ".reportgen-manifest.json", ".reportgen-lock")  # the lock file stays, empty
    return [p.name for p in Path(folder).iterdir() if p.name not in kept]


def figure_files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(Path(folder).rglob("*")) if p.is_file()}


def test_figure_files_match_the_report(quick_build):
    """Each figure of the report is in figures/<experiment>/ as the SVG the HTML embeds and a PNG,
    free of dates; the figure cache holds both renderings."""
    files = figure_files(quick_build.root / "figures")
    embedded = re.findall(r'<img src="data:image/svg\+xml;base64,([^"]+)"', quick_build.html)
    svgs = {name: data for name, data in files.items() if name.endswith(".svg")}
    pngs = {name: data for name, data in files.items() if name.endswith(".png")}
    assert len(svgs) == len(pngs) > 0 and {n[:-4] for n in svgs} == {n[:-4] for n in pngs}
    figures_in_html = {base64.b64decode(d) for d in embedded if b"<svg" in base64.b64decode(d)[:400]}
    assert set(svgs.values()) <= figures_in_html
    for name, data in pngs.items():
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and b"tIME" not in data, name
    for name, data in svgs.items():
        assert b"<dc:date>" not in data, name
    from reportgen.judging.vocabulary import catalog
    from reportgen.judging.runs import documented_numbers
    from reportgen.publish import cache, keys

    store = cache.Cache(quick_build.cache)
    for name, experiment in EXPERIMENTS.items():
        drawn = {n for n in svgs if n.startswith(f"{name}/")}
        results = quick_build.results["experiments"][name]["results"]
        digest = keys.figures_key(experiment, results, documented_numbers(catalog().of_family(name)))
        entries = store.load(f"{name}.figures", digest, cache.check_figures)
        assert entries is not None, name  # an experiment without figures caches its empty list
        assert {f"{name}/{e['slug']}.svg" for e in entries} == drawn
        for e in entries:
            assert base64.b64decode(e["png"]) == pngs[f"{name}/{e['slug']}.png"]


def test_stdout_is_one_summary_line(quick_build):
    """A build's stdout is exactly one summary line naming what it wrote; progress goes to stderr."""
    lines = quick_build.result.stdout.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"ran {len(EXPERIMENTS)} of {len(EXPERIMENTS)}, 0 from cache")
    assert "results.json" in lines[0] and "report.html" in lines[0]
    assert "variance" in quick_build.result.stderr


def test_build_time_comes_from_source_date_epoch(quick_build):
    """The HTML carries SOURCE_DATE_EPOCH's time, not the wall clock."""
    assert f'content="{BUILD_TIME}"' in quick_build.html


# --- results.json ----------------------------------------------------------------------


def test_results_json_is_strict_json(quick_build):
    """results.json has no NaN/Infinity literals (parses with a strict parser)."""

    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")

    json.loads(quick_build.results_bytes, parse_constant=refuse)


def test_results_provenance(quick_build):
    """Provenance: versions, device, seed, profile and build_time = SOURCE_DATE_EPOCH."""
    info = quick_build.results["provenance"]
    assert info["build_time"] == BUILD_TIME == "2023-11-14T22:13:20+00:00"
    assert info["seed"] == 0
    assert info["profile"] == "quick"
    assert info["device"] in ("cpu", "cuda")
    assert info["device_name"]
    versions = info["versions"]
    assert versions["reportgen"] == __version__
    for package in ("python", "torch", "numpy", "matplotlib", "jinja2", "click", "weasyprint"):
        assert versions[package] and versions[package] != "not installed", package
    # reportgen's own identity, never the git state of the folder the build ran in
    assert info["reportgen"]["version"] == __version__
    assert "git_commit" not in info


def test_results_verdict_counts(quick_build):
    """Verdict totals cover the fixed verdicts and count statements: a summary row stands for its
    setups, which are rows of results.json but not counted again."""
    doc = quick_build.results
    setups = {i for c in doc["claims"] for i in c["setups"]}
    top = [c for c in doc["claims"] if c["id"] not in setups]
    assert list(doc["verdicts"]) == list(VERDICTS)
    assert sum(doc["verdicts"].values()) == len(top) > 0 and setups
    for verdict in VERDICTS:
        assert doc["verdicts"][verdict] == sum(c["verdict"] == verdict for c in top)
    coverage = doc["coverage"]
    assert sum(c["found"] for c in coverage.values()) == len(top) + len(doc["not_checkable"])


def test_results_every_claim_complete(quick_build):
    """results.json states its schema; every claim row carries its quote, documented value,
    numeric measurement (unless unverifiable), the verdict's reason as numbers and its words, rule
    and verdict."""
    from reportgen.render.results import SCHEMA_VERSION

    doc = quick_build.results
    assert doc["schema_version"] == SCHEMA_VERSION == 3
    for name, experiment in doc["experiments"].items():
        assert experiment["status"] == "ok" and experiment["error"] is None, name
        assert experiment["nonfinite"] == []
    ids = [c["id"] for c in doc["claims"]]
    assert len(ids) == len(set(ids))
    for c in doc["claims"]:
        assert c["doc"] in doc["documents"] and c["section"] and c["quote"].strip(), c["id"]
        assert c["documented"] and c["tolerance"], c["id"]
        assert c["reason"]["outcome"] and isinstance(c["reason"]["views"], list), c["id"]
        assert c["verdict"] in VERDICTS and c["kind"] in ("arithmetic", "statistical", "qualitative",
                                                          "premise", "literature", "consistency")
        if c["rule"] not in ("unverifiable", "reference", "summary") and c["verdict"] != "unverifiable":
            m = c["measurement"]
            assert m is not None and m["method"] is not None, c["id"]
            if m["value"] is None and m.get("undecided"):
                assert c["verdict"] == "inconclusive", c["id"]  # evidence that cannot decide says why, with no number
                continue
            values = m["value"] if isinstance(m["value"], list) else [m["value"]]
            assert all(isinstance(v, (int, float)) for v in values), c["id"]
            assert c["measured"].strip() and c["measured"] != "—", c["id"]


def test_results_match_report_tally(quick_build):
    """The title page's verdict tally in the HTML equals results.json's counts."""
    counts = quick_build.results["verdicts"]
    n = sum(counts.values())
    assert f"{n} statements:" in quick_build.html
    for verdict in VERDICTS:
        assert f'<span class="verdict {verdict}">{counts[verdict]} {verdict}</span>' in quick_build.html


def test_findings_list_every_material_error(quick_build):
    """The findings come first and reach every material error (a contradicted claim without a
    severity counts as material): one sentence per section of a document that has one, linking a
    claim of that section to its row in the appendix; minor ones are only counted there."""
    page = quick_build.html
    findings = page[page.index('<section id="findings"') : page.index('<section id="reading"')]
    assert page.index('<section id="findings"') < page.index('<section id="reading"') < page.index('<section id="appendix"')
    claims = quick_build.results["claims"]
    material = [c for c in claims if c["verdict"] == "contradicted" and c.get("severity") != "minor"]
    covered = {s for c in material if c.get("setups") for s in c["setups"]}
    linked = set(re.findall(r'href="#claim-([^"]+)"', findings))
    linked |= {s for c in claims if c["id"] in linked for s in c.get("setups") or ()}  # a summary's setups
    reached = {(c["doc"], c["section"]) for c in claims if c["id"] in linked}
    for c in material:
        if c["id"] not in covered:
            assert (c["doc"], c["section"]) in reached, c["id"]
    for ref in set(re.findall(r'href="#(tab-A\d+)"', findings)):
        assert f'<table id="{ref}"' in page[page.index('<section id="appendix"'):], ref
    for c in claims:  # every claim has its row in the appendix
        assert f'<tr id="claim-{c["id"]}"' in page, c["id"]


# --- registry walk ---------------------------------------------------------------------


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_registered_experiment_is_complete(name, quick_build):
    """Each experiment has its metadata, params for every profile, callables, and a report section."""
    e = EXPERIMENTS[name]
    assert e.name == name and re.fullmatch(r"[a-z][a-z0-9_-]*", name)
    assert e.title.strip() and e.summary.strip()
    assert e.covers and all(isinstance(s, Source) for s in e.covers)
    assert set(e.params) == {"quick", "standard", "full"} == set(PROFILES)
    for profile in PROFILES:
        assert dataclasses.is_dataclass(e.params[profile]), profile
    assert e.summary.strip().endswith(".") and e.intro.strip()
    assert f'<section id="{name}"' in quick_build.html
    headings = [html.unescape(t) for t in re.findall(r'<h2 data-plain="([^"]*)"', quick_build.html)]
    assert any(h.endswith(plain(e.title)) for h in headings), e.title
    assert quick_build.results["experiments"][name]["title"] == e.title


def test_report_follows_the_registry_order(quick_build):
    """Sections appear in the report in the order the registry lists the families."""
    positions = [quick_build.html.index(f'<section id="{name}"') for name in EXPERIMENTS]
    assert positions == sorted(positions)
    assert list(quick_build.results["experiments"]) == list(EXPERIMENTS)


MIN_FIGURE_POINTS = 6.5  # a figure's smallest text, in points, at its own size


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_experiment_tables_and_figures(name, quick_build):
    """From the build's results, every table and figure sits under a sub-heading with a unique slug;
    figures have captions and alt text that quotes numbers; checks cite the sections the
    experiment covers, one quantity per row of a table."""
    import matplotlib.pyplot as plt
    import matplotlib.text

    from reportgen.judging.vocabulary import catalog
    from reportgen.judging.runs import documented_numbers

    e = EXPERIMENTS[name]
    results = quick_build.results["experiments"][name]["results"]
    mine = catalog().of_family(name)
    tables, figures = e.tables(results), e.figures(results, documented_numbers(mine))
    for f in figures:  # legible in print: the PDFs show a figure at the text's width or wider
        f.figure.draw_without_rendering()
        small = {(t.get_text(), t.get_fontsize()) for t in f.figure.findobj(matplotlib.text.Text)
                 if t.get_visible() and t.get_text().strip() and t.get_fontsize() < MIN_FIGURE_POINTS}
        assert not small, f"{f.slug}: text under {MIN_FIGURE_POINTS} pt: {sorted(small)[:5]}"
        plt.close(f.figure)
    assert tables and all(isinstance(t, (Table, ClaimTable)) and t.part for t in tables)
    assert all(isinstance(f, Figure) and f.part and f.caption and re.search(r"\d", f.alt) for f in figures)
    slugs = [t.slug for t in tables] + [f.slug for f in figures]
    assert len(slugs) == len(set(slugs))
    slots = {t.slug for t in tables if isinstance(t, ClaimTable)}
    assert mine and {c.table for c in mine} == slots  # every slot shows claims, every claim has a slot
    shown = quick_build.results["experiments"][name]["tables"]
    assert [t["slug"] for t in shown] == [t.slug for t in tables]


def test_html_sections_and_anchors(quick_build):
    """The HTML has no failure box in a clean build, and every TOC link points at an id."""
    page = quick_build.html
    assert 'class="failure-box"' not in page
    ids = set(re.findall(r'\bid="([^"]+)"', page))
    links = re.findall(r'href="#([^"]+)"', page)
    assert links and set(links) <= ids
    assert len(re.findall(r"<figure\b", page)) >= 1
    assert re.search(r'<img src="data:image/svg\+xml;base64,', page)


# --- atomic writes ---------------------------------------------------------------------


def test_write_atomic_bytes_and_text(tmp_path):
    """write_atomic writes bytes and UTF-8 text, creating parent folders, leaving no temp files."""
    target = tmp_path / "a" / "b" / "f.txt"
    atomic.write_atomic(target, "√d_k\n")
    assert target.read_bytes() == "√d_k\n".encode()
    atomic.write_atomic(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert os.listdir(target.parent) == ["f.txt"]


def test_write_atomic_failure_keeps_old_file(tmp_path, monkeypatch):
    """A write that fails half-way leaves the old file intact and no temp file."""
    target = tmp_path / "f.bin"
    target.write_bytes(b"old content")
    _fail_when_writing(monkeypatch, b"new content")
    with pytest.raises(OSError):
        atomic.write_atomic(target, b"new content that will not fit")
    monkeypatch.undo()
    assert target.read_bytes() == b"old content"
    assert os.listdir(tmp_path) == ["f.bin"]


def test_write_atomic_interrupted_rename(tmp_path, monkeypatch):
    """Even KeyboardInterrupt at the rename removes the temp file and keeps the old one."""
    target = tmp_path / "f.bin"
    target.write_bytes(b"old")

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic.write_atomic(target, b"new")
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["f.bin"]


def test_write_if_changed(tmp_path):
    """write_if_changed skips identical content (file untouched) and writes different content."""
    target = tmp_path / "f"
    assert atomic.write_if_changed(target, "one") is True
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    assert atomic.write_if_changed(target, "one") is False
    assert target.stat().st_mtime_ns == 1_000_000_000
    assert atomic.write_if_changed(target, b"two") is True
    assert target.read_bytes() == b"two"


def test_write_atomic_respects_umask(tmp_path):
    """A new file gets the permissions a plain open() would give it (0666 minus the umask)."""
    umask = os.umask(0o022)
    try:
        atomic.write_atomic(tmp_path / "report.html", "<p>hi</p>")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "report.html").stat().st_mode) == 0o644


def _fail_when_writing(monkeypatch, magic):
    """Make reportgen.atomic fail half-way through writing any file whose data starts with magic."""
    real_os = atomic.os

    class HalfWriter:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            if bytes(data).startswith(magic):
                self.f.write(data[: len(data) // 2])
                self.f.flush()
                raise OSError(errno.ENOSPC, "No space left on device")
            return self.f.write(data)

        def __getattr__(self, name):
            return getattr(self.f, name)

    class FailingOs:
        def fdopen(self, fd, mode="r", *args, **kwargs):
            return HalfWriter(real_os.fdopen(fd, mode, *args, **kwargs))

        def __getattr__(self, name):
            return getattr(real_os, name)

    monkeypatch.setattr(atomic, "os", FailingOs())


@pytest.mark.parametrize(
    "magic, formats, failing",
    [
        (b"<!DOCTYPE", "html", "report.html"),  # the 2nd output file written
        pytest.param(b"%PDF", "html,pdf", "report.pdf", marks=needs_pdf),
    ],
    ids=["html-write-fails", "pdf-write-fails"],
)
def test_interrupted_output_write(warm_dir, quick_build, monkeypatch, magic, formats, failing):
    """An output write failing mid-file: the build fails with one line, and the previous set stays
    whole: no file of it replaced, no temporary or staged file left."""
    before = write_placeholder_output(warm_dir)
    _fail_when_writing(monkeypatch, magic)
    result = invoke(["build", "--profile", "quick", "-q", "--format", formats, "--replace"], warm_dir)
    assert result.exit_code == 1, describe(result)
    lines = [line for line in result.stderr.strip().splitlines() if not line.startswith("warning:")]
    assert len(lines) == 1 and "output" in lines[0] and "unchanged" in lines[0], describe(result)
    assert stray_files(warm_dir / "output") == []
    assert snapshot(warm_dir / "output") == before


def test_unwritable_output_is_one_line(warm_dir):
    """--output under a regular file: refused before any work (exit 2), one line naming the path."""
    (warm_dir / "blocker").write_text("a file, not a folder")
    result = invoke(["build", "--profile", "quick", "-q", "--format", "html", "--output", "blocker/out"], warm_dir)
    assert result.exit_code == 2, describe(result)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "blocker" in lines[0], describe(result)
    assert (warm_dir / "blocker").read_text() == "a file, not a folder"


@needs_pdf
def test_pdf_rendering_failure_touches_nothing(warm_dir, monkeypatch):
    """If rendering the PDF raises mid-build, no output file is replaced and no temp file is left.

    One core: the PDFs are rendered in this process, where the crash is planted (a worker
    process would render with the real WeasyPrint)."""
    import weasyprint

    def broken(*args, **kwargs):
        raise RuntimeError("PDF renderer crashed")

    monkeypatch.setattr("os.cpu_count", lambda: 1)
    monkeypatch.setattr(weasyprint.HTML, "write_pdf", broken)
    before = write_placeholder_output(warm_dir)
    for pdf in (warm_dir / ".reportgen-cache").glob("report*"):
        pdf.unlink()  # the render cache would otherwise serve the PDF without rendering
    result = invoke(["build", "--profile", "quick", "-q"], warm_dir)
    assert result.exit_code != 0, describe(result)
    assert snapshot(warm_dir / "output") == before
    assert stray_files(warm_dir / "output") == []


class InlineExecutor:
    """Runs drawing jobs at once in this process; fails them, or refuses them, when told to."""

    def __init__(self, error=None, refuse=False):
        self.error, self.refuse = error, refuse

    def submit(self, fn, *args):
        from concurrent.futures import Future

        if self.refuse:
            from concurrent.futures.process import BrokenProcessPool

            raise BrokenProcessPool("a worker died")
        future = Future()
        try:
            if self.error:
                raise self.error
            future.set_result(fn(*args))
        except Exception as exc:
            future.set_exception(exc)
        return future

    def shutdown(self, wait=True, cancel_futures=False):
        pass


def draw_variance(tmp_path, executor, formats=("html", "pdf")):
    """Submit the session's quick variance results to a Drawer running on `executor`."""
    from conftest import quick_results

    from reportgen.judging.vocabulary import catalog
    from reportgen.config import BuildConfig
    from reportgen.judging.runs import documented_numbers
    from reportgen.drawer import Drawer
    from reportgen.scheduler import Run
    from reportgen.workers import Workers

    from reportgen.publish.cache import Cache

    from reportgen.jobs import Graph

    config = BuildConfig(cache_dir=str(tmp_path / "cache"), figures=str(tmp_path / "figures"), format=formats)
    pool = Workers(start=lambda processes: executor)
    pool.ready()  # up (as in a build whose runs started them): the one family's figures may go to it
    drawer = Drawer(config, Cache(config.cache_dir), Graph(pool))
    run = Run(EXPERIMENTS["variance"], results=quick_results("variance"))
    drawer.submit(run, documented_numbers(catalog().of_family("variance")))
    return drawer, drawer.finish()


class IdleExecutor:
    """Takes jobs and never starts them, like a pool whose workers never come up."""

    def submit(self, fn, *args):
        from concurrent.futures import Future

        return Future()

    def shutdown(self, wait=True, cancel_futures=False):
        pass


def test_a_job_no_worker_started_is_drawn_here_and_cached(tmp_path):
    """finish() does not wait for a worker that has not begun: a job no worker has taken is this
    process's to draw; the figures are written and cached."""
    drawer, drawn = draw_variance(tmp_path, IdleExecutor())
    figures, error = drawn["variance"]
    assert error is None and figures
    drawer.close()
    assert (tmp_path / "figures" / "variance" / "variance-vs-dk.png").is_file()
    assert list((tmp_path / "cache").glob("variance.figures-*"))


def test_a_build_without_pdfs_draws_no_png_and_leaves_none_of_older_results(tmp_path):
    """--format html: each figure is drawn as SVG only (a PNG takes as long to write as the figure
    to build); a PNG an earlier build left for the same figure goes, as it shows older results.
    A later build that needs the PNGs draws again rather than use the SVG-only cache entry."""
    folder = tmp_path / "figures" / "variance"
    folder.mkdir(parents=True)
    (folder / "variance-vs-dk.png").write_bytes(b"a PNG of older results")
    drawer, drawn = draw_variance(tmp_path, InlineExecutor(), formats=("html",))
    figures, error = drawn["variance"]
    assert error is None and figures and all(set(files) == {"svg"} for _, files in figures)
    drawer.close()
    assert (folder / "variance-vs-dk.svg").is_file() and not list(folder.glob("*.png"))
    again, drawn = draw_variance(tmp_path, InlineExecutor(), formats=("html", "pdf"))
    assert again.cached() == 0 and all(set(files) == {"svg", "png"} for _, files in drawn["variance"][0])


def test_a_familys_figures_are_a_job_of_the_builds_graph(tmp_path):
    """Drawer.submit adds the family's figures to the graph (drawn while the runs go on, here or
    in a worker); finish() takes what was drawn."""
    from conftest import quick_results

    from reportgen.config import BuildConfig
    from reportgen.drawer import Drawer
    from reportgen.jobs import Graph
    from reportgen.judging.runs import documented_numbers
    from reportgen.judging.vocabulary import catalog
    from reportgen.publish.cache import Cache
    from reportgen.scheduler import Run

    config = BuildConfig(cache_dir=str(tmp_path / "cache"), figures=str(tmp_path / "figures"), format=("html",))
    graph = Graph(None)
    drawer = Drawer(config, Cache(config.cache_dir), graph)
    drawer.submit(Run(EXPERIMENTS["variance"], results=quick_results("variance")),
                  documented_numbers(catalog().of_family("variance")))
    assert drawer.drawing() == 1
    assert [job.key for job, _ in graph.run()] == [("figures", "variance")] and drawer.drawing() == 0
    figures, error = drawer.finish()["variance"]
    assert error is None and figures


class LosingExecutor:
    """Starts, then loses every job with its worker (BrokenProcessPool)."""

    def __init__(self):
        self.submitted = 0

    def submit(self, fn, *args):
        from concurrent.futures import Future
        from concurrent.futures.process import BrokenProcessPool

        future = Future()
        self.submitted += 1
        if args:
            future.set_exception(BrokenProcessPool("a worker died"))
        else:
            future.set_result(None)  # Workers.ready's no-op
        return future

    def shutdown(self, wait=True, cancel_futures=False):
        pass


def test_a_job_handed_to_a_worker_that_is_lost_is_drawn_here(tmp_path):
    """A worker that died with the figures' job (BrokenProcessPool): they are drawn here, and
    the pool is not used again."""
    drawer, drawn = draw_variance(tmp_path, LosingExecutor(), formats=("html",))
    figures, error = drawn["variance"]
    assert error is None and figures
    assert drawer.graph.pool.broken


def test_failed_drawing_fails_its_chapter_and_is_not_cached(tmp_path, monkeypatch):
    """A drawing that raises: its family gets the error (the chapter says it failed), no figure
    file is written and nothing is cached, so the next build draws again."""
    def out_of_memory(*args):
        raise MemoryError("out of memory")

    monkeypatch.setattr("reportgen.drawer.figure_entries", out_of_memory)
    drawer, drawn = draw_variance(tmp_path, InlineExecutor(error=MemoryError("out of memory")))
    figures, error = drawn["variance"]
    assert figures == () and "MemoryError: out of memory" in error
    drawer.close()
    assert not (tmp_path / "figures" / "variance").exists()
    assert not list((tmp_path / "cache").glob("variance*"))


def test_a_broken_pool_draws_here_and_replaces_old_files_at_close(tmp_path):
    """If the pool cannot take the job (a worker died), the figures are drawn in this process;
    both files of every figure are written by close(), not before, and cached."""
    folder = tmp_path / "figures" / "variance"
    folder.mkdir(parents=True)
    (folder / "variance-vs-dk.png").write_bytes(b"a PNG of older results")
    drawer, drawn = draw_variance(tmp_path, InlineExecutor(refuse=True))
    figures, error = drawn["variance"]
    assert error is None and figures
    assert all(files["png"].startswith(b"\x89PNG") and files["svg"].lstrip().startswith(b"<")
               for _, files in figures)
    assert (folder / "variance-vs-dk.png").read_bytes() == b"a PNG of older results"  # untouched until close
    drawer.close()
    assert (folder / "variance-vs-dk.png").read_bytes() == dict(
        (fig.slug, files["png"]) for fig, files in figures)["variance-vs-dk"]
    assert list((tmp_path / "cache").glob("variance.figures-*"))


# --- failing and non-finite experiments ------------------------------------------------


@dataclasses.dataclass(frozen=True)
class NoParams:
    size: int = 1


def _broken_run(params, seed, device, progress):
    raise RuntimeError("deliberate failure in the broken experiment")


def _nan_run(params, seed, device, progress):
    return {"fine": 1.5, "bad": float("nan"), "rows": [0.0, float("inf")]}


@dataclasses.dataclass(frozen=True)
class FakeExperiment(Experiment):
    """A family double: its roles are methods instead of modules."""

    run_function: object = None

    def run(self, params, seed, device, progress):
        return self.run_function(params, seed, device, progress)

    def measures(self):
        return {}

    def tables(self, results):
        return []

    def figures(self, results, documented):
        return []


def fake_experiment(name, run):
    return FakeExperiment(
        name=name,
        title=f"Fake experiment {name}",
        summary="A test double.",
        covers=(Source("000", "Test section"),),
        params={p: NoParams() for p in PROFILES},
        package=f"fake_{name}",
        run_function=run,
    )


@pytest.fixture
def broken(monkeypatch):
    """A registered experiment whose run raises, after the real ones."""
    monkeypatch.setitem(EXPERIMENTS, "broken", fake_experiment("broken", _broken_run))
    return "broken"


def test_failing_experiment_is_isolated(warm_dir, broken, quick_build):
    """A failing experiment: exit 1, other sections still reported, failure box, marked failed in
    results.json; the report goes to output-failed, beside the output folder (issue 42)."""
    result = invoke(["build", "--profile", "quick", "--format", "html"], warm_dir)
    assert result.exit_code == 1, describe(result)
    assert "FAILED: broken" in result.stdout
    assert not (warm_dir / "output").exists()
    page = (warm_dir / "output-failed" / "report.html").read_text(encoding="utf-8")
    assert '<section id="variance"' in page
    section = page.split('<section id="broken"', 1)[1].split("</section>", 1)[0]
    assert 'class="failure-box"' in section
    assert "deliberate failure in the broken experiment" in section
    doc = json.loads((warm_dir / "output-failed" / "results.json").read_text(encoding="utf-8"))
    assert doc["experiments"]["broken"]["status"] == "failed"
    assert "RuntimeError: deliberate failure" in doc["experiments"]["broken"]["error"]
    assert doc["experiments"]["variance"]["status"] == "ok"
    assert doc["experiments"]["variance"] == quick_build.results["experiments"]["variance"]
    assert not list((warm_dir / ".reportgen-cache").glob("broken-*.json"))  # failures are not cached


def test_fail_fast_writes_nothing(warm_dir, broken):
    """--fail-fast: exit 1 with one line naming the experiment; output/ keeps its old bytes."""
    before = write_placeholder_output(warm_dir)
    result = invoke(["build", "--profile", "quick", "--fail-fast"], warm_dir)
    assert result.exit_code == 1, describe(result)
    lines = result.stderr.strip().splitlines()
    assert lines and "broken" in lines[-1] and "fail-fast" in lines[-1]
    assert "Traceback" not in result.output
    assert snapshot(warm_dir / "output") == before


def test_fail_fast_from_config_file(warm_dir, broken):
    """fail-fast = true in pyproject.toml works like the flag: nothing written."""
    (warm_dir / "pyproject.toml").write_text("[tool.reportgen]\nfail-fast = true\nprofile = 'quick'\n")
    result = invoke(["build", "--format", "html"], warm_dir)
    assert result.exit_code == 1, describe(result)
    assert not (warm_dir / "output").exists()


def test_run_command_reports_failure(tmp_path, broken):
    """`run broken` exits 1 and prints the failure on stderr."""
    result = invoke(["run", "broken", "--profile", "quick", "-q"], tmp_path)
    assert result.exit_code == 1, describe(result)
    assert "broken FAILED" in result.stderr


def test_nonfinite_results_are_flagged(tmp_path, monkeypatch):
    """NaN/inf results: named in the summary, shown in a box, stored as strings in strict JSON."""
    monkeypatch.setitem(EXPERIMENTS, "nanny", fake_experiment("nanny", _nan_run))
    result = invoke(["build", "--profile", "quick", "--only", "nanny", "--format", "html"], tmp_path)
    assert "NaN/inf in: nanny" in result.stdout, describe(result)
    doc = json.loads((tmp_path / "output" / "results.json").read_text(), parse_constant=lambda c: pytest.fail(c))
    entry = doc["experiments"]["nanny"]
    assert entry["results"] == {"fine": 1.5, "bad": "nan", "rows": [0.0, "inf"]}
    assert entry["nonfinite"] == ["results.bad", "results.rows[1]"]
    section = (tmp_path / "output" / "report.html").read_text().split('<section id="nanny"', 1)[1]
    assert 'class="failure-box"' in section.split("</section>", 1)[0]


def test_verdicts_a_reviewer_can_sign(quick_build):
    """Every row says its verdict in a sentence; every contradiction has a severity; no statement
    (same document, quote and printed value) is both confirmed and contradicted at top level,
    consistency checks of a document's own arithmetic aside."""
    rows = quick_build.results["claims"]
    setups = {i for r in rows for i in r["setups"]}
    for r in rows:
        assert r["sentence"].strip(), r["id"]
        assert (r["severity"] in ("material", "minor")) == (r["verdict"] == "contradicted"), r["id"]
    statements = {}
    for r in rows:
        if r["id"] in setups or r["kind"] == "consistency":
            continue
        key = (r["doc"], r["quote"], json.dumps(r["documented"]))
        statements.setdefault(key, set()).add(r["verdict"])
    both = [key for key, verdicts in statements.items() if {"confirmed", "contradicted"} <= verdicts]
    assert not both, both[:3]
