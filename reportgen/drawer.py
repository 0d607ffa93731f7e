"""Figures drawn beside the experiments (orchestration, as reportgen.scheduler is for the runs: it
draws with render's figures, in the build's workers, through publish's cache): each finished
family's figures are a job of the build's graph (reportgen.jobs), ranked below the runs, so
that a process with no experiment left to begin draws the families done.

Each figure is built once and saved in the formats the build needs: SVG for report.html (and
for the web), PNG at print resolution for the PDFs (and for slides). WeasyPrint draws an SVG
node by node in Python, which took a third of the PDF's writing time; a PNG it embeds as it
is. Each format is as long to write as the figure is to build: a build without PDFs draws no
PNG, one without HTML no SVG.
"""

import base64
import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from reportgen import jobs, signals, workers
from reportgen.atomic import write_atomic
from reportgen.errors import ReportgenError, short_traceback
from reportgen.experiments.family import Figure
from reportgen.gcpause import paused_gc
from reportgen.publish import cache, keys
from reportgen.render.figures import render

FORMATS = ("svg", "png")
STAGED = ".staged"  # a figure file written, not yet in place: .NAME.staged


def formats_for(outputs):
    """The figure files a build with these outputs needs: SVG for report.html, PNG for the PDFs."""
    return tuple(fmt for fmt, output in (("svg", "html"), ("png", "pdf")) if output in outputs)


def figure_entries(experiment, results, documented, formats=FORMATS):
    """Caption, alt text, part and the given renderings (SVG text, PNG base64) of each figure."""
    entries = []
    with paused_gc():  # Matplotlib's artists are cyclic garbage: one collection, not dozens
        for fig in experiment.figures(results, documented):
            files = render(fig.figure, formats)
            entry = {"slug": fig.slug, "caption": fig.caption, "alt": fig.alt, "part": fig.part}
            if "svg" in files:
                entry["svg"] = files["svg"].decode()
            if "png" in files:
                entry["png"] = base64.b64encode(files["png"]).decode()
            entries.append(entry)
    return entries


def files(entry):
    """{format: bytes} of one figure entry (SVG text, PNG base64), for the formats it has."""
    out = {}
    if "svg" in entry:
        out["svg"] = entry["svg"].encode()
    if "png" in entry:
        out["png"] = base64.b64decode(entry["png"])
    return out


def _draw_registered(name, results, documented, formats):
    """Worker side: look the experiment up in the registry and draw it."""
    return figure_entries(workers.registered(name), results, documented, formats)


class Drawer:
    """Draws each finished experiment's figures, in worker processes when they are worth it.

    `finish()` returns once every figure is drawn; `stage()` writes their files beside their
    names before the report is published, `close()` puts them in place and caches them after
    it: a build that stops before (interrupted, a full folder) leaves the previous report and
    its figures as they were.
    Each family to draw is a job of the build's graph (`graph`, reportgen.jobs; else finish
    draws them in a graph of its own), whose workers end however the build ends. Cached
    figures are never redrawn.
    """

    def __init__(self, config, store, graph=None, expected=None):
        self.config = config
        self.store = store  # the build's Cache
        self.graph = graph  # the build's jobs.Graph; None: finish() draws in a graph of its own
        self.expected = expected or (lambda name: None)  # seconds a family's figures take to draw, or None
        self.formats = formats_for(config.format) or FORMATS
        self.jobs = []  # (Job, cached entries or None: drawn by the graph's job ("figures", name))
        self.drawn = []  # (Job, entries, whether they came from the cache)
        self.staged = None  # [(staged file, its final name)] once stage() ran

    def submit(self, run, documented):
        """A run's figures to draw; `documented` maps claim ids to printed numbers."""
        experiment = run.experiment
        job = Job(experiment, run.results, documented, keys.figures_key(experiment, run.results, documented))
        entries = self.store.load(job.cache_name, job.digest, cache.check_figures)
        if entries is not None and not all(fmt in e for e in entries for fmt in self.formats):
            entries = None  # drawn by a build that needed other formats (or an older reportgen)
        self.jobs.append((job, entries))
        if entries is None and self.graph is not None:
            self.graph.add(self._job(job))

    def _job(self, job):
        """The graph's job that draws one family (here, or in a worker), ranked by how long it
        is expected to take: the longest first leaves the shortest for the end, when one process
        would otherwise draw alone."""
        there = (_draw_registered, job.experiment.name, job.results, job.documented, self.formats)
        return jobs.Job(("figures", job.experiment.name), lambda: self._draw_here(job), there,
                        rank=(jobs.FIGURES, self.expected(job.experiment.name) or 0.0))

    def drawing(self):
        """How many of the submitted families have figures still to draw (the others are
        cached, or were drawn while the experiments ran)."""
        return sum(1 for job, entries in self.jobs if entries is None and self._done(job) is None)

    def cached(self):
        """How many of the submitted families' figures came from the cache."""
        return sum(1 for _, entries in self.jobs if entries is not None)

    def _done(self, job):
        return self.graph.outcome(("figures", job.experiment.name)) if self.graph is not None else None

    def finish(self):
        """Wait for the figures. Returns {experiment name: (figures, error)}: figures as
        (Figure, {"svg": bytes, "png": bytes}), or the error that stopped them."""
        drawn = {}
        with jobs.owned(self.graph, workers.Workers) as graph:
            if graph is not self.graph:
                graph.add(*(self._job(job) for job, entries in self.jobs if entries is None))
            keys = [("figures", job.experiment.name) for job, entries in self.jobs if entries is None]
            outcomes = {done.key[1]: future for done, future in graph.run(keys)}
        for job, entries in self.jobs:
            name = job.experiment.name
            try:
                cached = entries is not None
                entries = entries if cached else outcomes[name].result()
                figures = [(Figure(e["slug"], e["caption"], e["alt"], None, e["part"]), files(e)) for e in entries]
            except Exception as exc:
                drawn[name] = ((), short_traceback(exc))
                continue
            drawn[name] = (figures, None)
            self.drawn.append((job, entries, cached))
        return drawn

    def _draw_here(self, job):
        """The job's entries, drawn in this process."""
        return figure_entries(job.experiment, job.results, job.documented, self.formats)

    def stage(self):
        """Write every figure file that changes beside its name (`.NAME.staged`), before the
        report is published: a figures folder that is full or read-only stops the build here,
        with the previous report and its figures as they were (ReportgenError, the files staged
        removed)."""
        self.staged = []
        try:
            for job, entries, _ in self.drawn:
                folder = Path(self.config.figures) / job.experiment.name
                for e in entries:
                    for fmt, data in files(e).items():
                        final = folder / f"{e['slug']}.{fmt}"
                        if final.is_file() and not final.is_symlink() and final.read_bytes() == data:
                            continue
                        staged = folder / f".{final.name}{STAGED}"
                        write_atomic(staged, data)
                        self.staged.append((staged, final))
        except OSError as exc:  # a disk that filled up, a folder that went read-only meanwhile
            self.discard()
            raise ReportgenError(
                f"cannot write the figure files in {exc.filename or self.config.figures} ({exc.strerror or exc}); "
                "the previous report and its figures are unchanged; free space or set another 'figures' "
                "folder, then build again") from None
        except BaseException:
            self.discard()
            raise

    @contextlib.contextmanager
    def publishing(self):
        """Stage the figure files, then let the report be published (the block); a report not
        published leaves none of them behind."""
        self.stage()
        try:
            yield
        except BaseException:
            self.discard()
            raise

    def discard(self):
        """Remove the staged figure files (the report was not published)."""
        for staged, _ in self.staged or ():
            staged.unlink(missing_ok=True)
        self.staged = None

    def close(self):
        """Put the staged figure files in place (the report is published), remove the formats
        this build did not draw, and cache the entries drawn."""
        if self.staged is None:
            self.stage()
        try:
            with signals.held():  # the report and its figures: renames only, not cut in between
                for staged, final in self.staged:
                    os.replace(staged, final)
        except OSError as exc:
            where = exc.filename or self.config.figures
            raise ReportgenError(f"the report is written, but not all its figure files: cannot rename in {where} "
                                 f"({exc.strerror or exc}); build again") from None
        self.staged = None
        for job, entries, cached in self.drawn:
            self._store(job, entries, cached)

    def _store(self, job, entries, cached=False):
        """Cache the entries unless they came from the cache; a format this build did not draw
        is removed, not left from an older build's results (the files are in place: stage)."""
        folder = Path(self.config.figures) / job.experiment.name
        for e in entries:
            for fmt in FORMATS:
                if fmt not in e:
                    (folder / f"{e['slug']}.{fmt}").unlink(missing_ok=True)
        if not cached:
            self.store.store(job.cache_name, job.digest, entries)


@dataclass(frozen=True)
class Job:
    """One family's figures to draw: what they are drawn from, and their cache key."""

    experiment: object
    results: dict
    documented: dict  # claim id -> documented number
    digest: str

    @property
    def cache_name(self):
        return f"{self.experiment.name}.figures"
