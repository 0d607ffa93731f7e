"""Figures drawn beside the experiments: worker processes draw while the main one computes.

Each figure is built once and saved twice: SVG for report.html (and for the web), PNG at
print resolution for the PDFs (and for slides). WeasyPrint draws an SVG node by node in
Python, which took a third of the PDF's writing time; a PNG it embeds as it is.
"""

import base64
from dataclasses import dataclass
from pathlib import Path

from reportgen import workers
from reportgen.atomic import write_if_changed
from reportgen.errors import short_traceback
from reportgen.experiments.family import Figure
from reportgen.gcpause import paused_gc
from reportgen.publish import cache

FORMATS = ("svg", "png")


def figure_entries(experiment, results, documented, formats=FORMATS):
    """Caption, alt text, part and the given renderings (SVG text, PNG base64) of each figure."""
    from reportgen.render.figures import render

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
    return figure_entries(workers.registered(name), results, documented, formats)


class Drawer:
    """Draws each finished experiment's figures, in worker processes when they are worth it.

    `finish()` returns once every figure is drawn; `close()` writes and caches them, after
    the report, so an interrupted build leaves the figures of the previous one as they were.
    The workers are the build's (reportgen.workers), which ends them however the build ends.
    Cached figures are never redrawn.
    """

    def __init__(self, config, store, pool=None):
        self.config = config
        self.store = store  # the build's Cache
        self.pool = pool  # the build's Workers; None: everything is drawn here
        self.jobs = []  # (Job, Future, cached entries, or None to draw here)
        self.drawn = []  # (Job, entries, whether they came from the cache)

    def submit(self, run, documented):
        """Start drawing a run's figures; `documented` maps claim ids to printed numbers."""
        experiment = run.experiment
        job = Job(experiment, run.results, documented, cache.figures_key(experiment, run.results, documented))
        entries = self.store.load(job.cache_name, job.digest, cache.check_figures)
        if entries is not None and not all("png" in e for e in entries):
            entries = None  # drawn by an older reportgen, without the PNGs the PDF now uses
        if entries is None and self.pool is not None:
            entries = self.pool.offload(_draw_registered, experiment.name, job.results, documented, FORMATS)
        self.jobs.append((job, entries))

    def drawing(self):
        """How many of the submitted families have figures to draw (the others are cached)."""
        return sum(1 for _, entries in self.jobs if not isinstance(entries, list))

    def finish(self):
        """Wait for the figures. Returns {experiment name: (figures, error)}: figures as
        (Figure, {"svg": bytes, "png": bytes}), or the error that stopped them."""
        drawn = {}
        self._steal()
        for job, entries in self.jobs:
            name = job.experiment.name
            try:
                cached = isinstance(entries, list)
                entries = self._entries(job, entries)
                figures = [(Figure(e["slug"], e["caption"], e["alt"], None, e["part"]),
                            {"svg": e["svg"].encode(), "png": base64.b64decode(e["png"])})
                           for e in entries]
            except Exception as exc:
                drawn[name] = ((), short_traceback(exc))
                continue
            drawn[name] = (figures, None)
            self.drawn.append((job, entries, cached))
        return drawn

    def _steal(self):
        """Draw here, one by one from the last, the jobs no worker has started: this process
        would only wait for them, while the workers go on with the first ones."""
        from concurrent.futures import Future

        while True:
            for index in reversed(range(len(self.jobs))):
                job, entries = self.jobs[index]
                if isinstance(entries, Future) and self.pool.take_back(entries):
                    break
            else:
                return
            here = Future()
            try:
                here.set_result(figure_entries(job.experiment, job.results, job.documented))
            except Exception as exc:  # reported by finish(), like a worker's failure
                here.set_exception(exc)
            self.jobs[index] = (job, here)

    def close(self):
        """Write and cache every figure drawn."""
        for job, entries, cached in self.drawn:
            self._store(job, entries, cached)

    def _entries(self, job, entries):
        """The entries: cached, from a worker, or drawn here."""
        if isinstance(entries, list):
            return entries
        if entries is None or self.pool is None:
            return figure_entries(job.experiment, job.results, job.documented)
        return self.pool.result(entries, lambda: figure_entries(job.experiment, job.results, job.documented))

    def _store(self, job, entries, cached=False):
        """Write each figure's SVG and PNG; cache the entries unless they came from the cache."""
        folder = Path(self.config.figures) / job.experiment.name
        for e in entries:
            write_if_changed(folder / f"{e['slug']}.svg", e["svg"].encode())
            write_if_changed(folder / f"{e['slug']}.png", base64.b64decode(e["png"]))
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
