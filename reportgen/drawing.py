"""Figures drawn beside the experiments: worker processes draw while the main one computes.

The report needs only the SVGs, so the workers draw those first; the PNGs (for
slides) are drawn while the main process lays out the PDF, on the core it leaves idle.
"""

import base64
import multiprocessing
import os
from dataclasses import dataclass
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from reportgen import cache, workers
from reportgen.atomic import write_if_changed
from reportgen.errors import short_traceback
from reportgen.family import Figure
from reportgen.gcpause import paused_gc

FORMATS = ("svg", "png")


def figure_entries(experiment, results, documented, formats=FORMATS):
    """Caption, alt text, part and the given renderings (SVG text, PNG base64) of each figure."""
    from reportgen.figures import render

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


def _draw_registered(name, results, documented, formats):
    """Worker side: look the experiment up in the registry and draw it."""
    from reportgen.experiments import EXPERIMENTS

    return figure_entries(EXPERIMENTS[name], results, documented, formats)


def _worker_pool():
    context = multiprocessing.get_context("spawn")  # no fork after torch's threads start
    # Two workers: once the experiments are done (in quick, after 4 s) both cores draw.
    return ProcessPoolExecutor(max_workers=2, mp_context=context, initializer=_die_with_parent,
                               initargs=(os.getpid(),))


def _die_with_parent(parent):
    """Worker start: end this worker when the build process ends, however it ends.

    Linux delivers SIGTERM when the parent dies (prctl PR_SET_PDEATHSIG); elsewhere, and as
    a fallback, a thread notices the worker was re-parented and exits.
    """
    import ctypes
    import signal
    import threading
    import time

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG (linux/prctl.h)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)

    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


class Drawer:
    """Draws each finished experiment's figures, in worker processes when they are worth it.

    `finish()` returns once every SVG is there; `close()` waits for the PNGs, then
    writes and caches them. Cached figures are never redrawn.
    """

    def __init__(self, config, store, parallel=True, executor=None):
        self.config = config
        self.store = store  # the build's Cache
        self.parallel = parallel
        self.executor = executor or _worker_pool
        self.pool = None
        self.jobs = []  # (Job, future or entries)
        self.pngs = []  # (Job, svg entries, future of png entries)

    def submit(self, run, documented):
        """Start drawing a run's figures; `documented` maps claim ids to printed numbers."""
        experiment = run.experiment
        job = Job(experiment, run.results, documented, cache.figures_key(experiment, run.results, documented))
        entries = self.store.load(job.cache_name, job.digest, cache.check_figures)
        if entries is None and self.parallel:
            entries = self._submit(job, ("svg",))
        self.jobs.append((job, entries))

    def _submit(self, job, formats):
        if self.pool is None:
            self.pool = self.executor()
        return workers.submit(self.pool, _draw_registered, job.experiment.name, job.results, job.documented, formats)

    def finish(self):
        """Wait for the SVGs; start the PNGs. Files are written by close(), SVG and PNG together,
        so an interrupted build leaves the figures of the previous one as they were.

        Returns {experiment name: (figures, error)}: figures as (Figure, svg bytes), or
        the error that stopped them.
        """
        drawn = {}
        try:
            for job, entries in self.jobs:
                name = job.experiment.name
                try:
                    cached = isinstance(entries, list)
                    entries = self._entries(job, entries)
                    figures = [(Figure(e["slug"], e["caption"], e["alt"], None, e["part"]), e["svg"].encode())
                               for e in entries]
                    drawn[name] = (figures, None)
                    if all("png" in e for e in entries):
                        self.pngs.append((job, entries, _done(entries, cached)))
                        continue
                except Exception as exc:
                    drawn[name] = ((), short_traceback(exc))
                    continue
                try:
                    png = self._submit(job, ("png",))
                except Exception as exc:  # a broken pool: the SVGs and the report still stand
                    png = Future()
                    png.set_exception(exc)
                self.pngs.append((job, entries, png))
        except BaseException:
            self.abandon()
            raise
        return drawn

    def close(self):
        """Wait for the PNGs, write and cache every figure, stop the workers.

        Returns {experiment name: last error line} for PNGs that failed; the report is
        written by then, so the build reports them in its summary line and exit status.
        """
        failed = {}
        try:
            for job, entries, png in self.pngs:
                try:
                    drawn = png.result()
                    if [e["slug"] for e in drawn] != [e["slug"] for e in entries]:
                        raise RuntimeError("the figures changed between the SVG and the PNG drawing")
                    cached = getattr(png, "cached", False)
                    self._store(job, [{**e, "png": p["png"]} for e, p in zip(entries, drawn)], cached)
                except Exception as exc:
                    failed[job.experiment.name] = f"{type(exc).__name__}: {exc}"
                    self._write_svgs_only(job, entries)
        finally:
            if self.pool is not None:
                self.pool.shutdown(cancel_futures=True)
        return failed

    def abandon(self):
        """Stop drawing now (the build is stopping): end the workers and wait for them to go."""
        if self.pool is not None:
            workers.stop_now(self.pool)

    def _entries(self, job, entries):
        """The SVG entries: cached, from a worker, or drawn here (SVG and PNG at once)."""
        if isinstance(entries, list):
            return entries
        try:
            entries = entries.result() if entries is not None else None
        except KeyError:
            entries = None  # not in the worker's registry (registered at run time): draw here
        except BrokenProcessPool:
            entries = None  # a worker died (killed, out of memory): draw here
        if entries is None:
            entries = figure_entries(job.experiment, job.results, job.documented)
        return entries

    def _store(self, job, entries, cached=False):
        """Write each figure's SVG and PNG; cache the entries unless they came from the cache."""
        folder = Path(self.config.figures) / job.experiment.name
        for e in entries:
            write_if_changed(folder / f"{e['slug']}.svg", e["svg"].encode())
            write_if_changed(folder / f"{e['slug']}.png", base64.b64decode(e["png"]))
        if not cached:
            self.store.store(job.cache_name, job.digest, entries)


    def _write_svgs_only(self, job, entries):
        """The PNGs failed: write the new SVGs and remove PNGs of older results beside them."""
        folder = Path(self.config.figures) / job.experiment.name
        try:
            for e in entries:
                write_if_changed(folder / f"{e['slug']}.svg", e["svg"].encode())
                (folder / f"{e['slug']}.png").unlink(missing_ok=True)
        except OSError:
            pass  # the failure is already reported; the report holds the SVGs


def _done(entries, cached):
    """A finished future holding entries that already have their PNGs."""
    future = Future()
    future.set_result(entries)
    future.cached = cached
    return future


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
