"""Figures drawn beside the experiments: worker processes draw while the main one computes.

The report needs only the SVGs, so the workers draw those first; the PNGs (for
slides) are drawn while the main process lays out the PDF, on the core it leaves idle.
"""

import base64
import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from reportgen import cache
from reportgen.atomic import write_if_changed
from reportgen.experiments.base import Figure
from reportgen.gcpause import paused_gc

FORMATS = ("svg", "png")


def figure_entries(experiment, results, formats=FORMATS):
    """Caption, alt text, part and the given renderings (SVG text, PNG base64) of each figure."""
    from reportgen.figures import render

    entries = []
    with paused_gc():  # Matplotlib's artists are cyclic garbage: one collection, not dozens
        for fig in experiment.figures(results):
            files = render(fig.figure, formats)
            entry = {"slug": fig.slug, "caption": fig.caption, "alt": fig.alt, "part": fig.part}
            if "svg" in files:
                entry["svg"] = files["svg"].decode()
            if "png" in files:
                entry["png"] = base64.b64encode(files["png"]).decode()
            entries.append(entry)
    return entries


def _draw_registered(name, results, formats):
    """Worker side: look the experiment up in the registry and draw it."""
    from reportgen.experiments import EXPERIMENTS

    return figure_entries(EXPERIMENTS[name], results, formats)


class Drawer:
    """Draws each finished experiment's figures, in worker processes when they are worth it.

    `finish()` returns once every SVG is there; `close()` waits for the PNGs, then
    writes and caches them. Cached figures are never redrawn.
    """

    def __init__(self, config, parallel=True):
        self.config = config
        self.parallel = parallel
        self.pool = None
        self.jobs = []  # [outcome, digest, future or entries]
        self.pngs = []  # (outcome, digest, svg entries, future of png entries)

    def submit(self, outcome):
        experiment, results = outcome.experiment, outcome.results
        digest = cache.figures_key(experiment, results)
        name = f"{experiment.name}.figures"
        entries = cache.load(self.config.cache_dir, name, digest) if self.config.cache else None
        if entries is None and self.parallel:
            entries = self._submit(experiment.name, results, ("svg",))
        self.jobs.append((outcome, digest, entries))

    def _submit(self, name, results, formats):
        if self.pool is None:
            context = multiprocessing.get_context("spawn")  # no fork after torch's threads start
            # Two workers: once the experiments are done (in quick, after 4 s) both cores draw.
            self.pool = ProcessPoolExecutor(max_workers=2, mp_context=context)
        return self.pool.submit(_draw_registered, name, results, formats)

    def finish(self):
        """Wait for the SVGs, write them and attach them to the outcomes; start the PNGs."""
        try:
            for outcome, digest, entries in self.jobs:
                try:
                    cached = isinstance(entries, list)
                    entries = self._entries(outcome, entries)
                    folder = Path(self.config.figures) / outcome.experiment.name
                    for e in entries:
                        svg = e["svg"].encode()
                        write_if_changed(folder / f"{e['slug']}.svg", svg)
                        outcome.figures.append((Figure(e["slug"], e["caption"], e["alt"], None, e["part"]), svg))
                    if all("png" in e for e in entries):
                        self._store(outcome, digest, entries, cached)
                        continue
                    for e in entries:  # no PNG of older results may sit beside the new SVG
                        (folder / f"{e['slug']}.png").unlink(missing_ok=True)
                except Exception as exc:
                    self._failed(outcome, exc)
                    continue
                try:
                    png = self._submit(outcome.experiment.name, outcome.results, ("png",))
                except Exception as exc:  # a broken pool: the SVGs and the report still stand
                    png = Future()
                    png.set_exception(exc)
                self.pngs.append((outcome, digest, entries, png))
        except BaseException:
            self.abandon()
            raise

    def close(self):
        """Wait for the PNGs, write and cache every figure, stop the workers.

        Returns {experiment name: last error line} for PNGs that failed; the report is
        written by then, so the build reports them in its summary line and exit status.
        """
        failed = {}
        try:
            for outcome, digest, entries, png in self.pngs:
                try:
                    drawn = png.result()
                    if [e["slug"] for e in drawn] != [e["slug"] for e in entries]:
                        raise RuntimeError("the figures changed between the SVG and the PNG drawing")
                    self._store(outcome, digest, [{**e, "png": p["png"]} for e, p in zip(entries, drawn)])
                except Exception as exc:
                    failed[outcome.experiment.name] = f"{type(exc).__name__}: {exc}"
        finally:
            if self.pool is not None:
                self.pool.shutdown(cancel_futures=True)
        return failed

    def abandon(self):
        """Stop drawing without waiting (the build is stopping)."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)

    def _entries(self, outcome, entries):
        """The SVG entries: cached, from a worker, or drawn here (SVG and PNG at once)."""
        if isinstance(entries, list):
            return entries
        try:
            entries = entries.result() if entries is not None else None
        except KeyError:
            entries = None  # not in the worker's registry (registered at run time): draw here
        except BrokenProcessPool:
            entries = None  # a worker died (killed, out of memory): draw here
        return entries if entries is not None else figure_entries(outcome.experiment, outcome.results)

    def _store(self, outcome, digest, entries, cached=False):
        """Write the PNGs; cache the entries unless they came from the cache."""
        folder = Path(self.config.figures) / outcome.experiment.name
        for e in entries:
            write_if_changed(folder / f"{e['slug']}.png", base64.b64decode(e["png"]))
        if not cached:
            cache.store(self.config.cache_dir, f"{outcome.experiment.name}.figures", digest, entries)

    @staticmethod
    def _failed(outcome, exc):
        from reportgen.pipeline import short_traceback

        outcome.error = short_traceback(exc)
        outcome.tables, outcome.figures = [], []
