"""Figures drawn beside the experiments: a second process draws while the first computes."""

import base64
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from reportgen import cache
from reportgen.atomic import write_if_changed
from reportgen.experiments.base import Figure
from reportgen.gcpause import paused_gc


def figure_entries(experiment, results):
    """Caption, alt text, part, SVG and PNG (base64) of each figure of an experiment."""
    from reportgen.figures import render

    entries = []
    with paused_gc():  # Matplotlib's artists are cyclic garbage: one collection, not dozens
        for fig in experiment.figures(results):
            svg, png = render(fig.figure)
            meta = {"slug": fig.slug, "caption": fig.caption, "alt": fig.alt, "part": fig.part}
            entries.append({**meta, "svg": svg.decode(), "png": base64.b64encode(png).decode()})
    return entries


def _draw_registered(name, results):
    """Worker side: look the experiment up in the registry and draw it."""
    from reportgen.experiments import EXPERIMENTS

    return figure_entries(EXPERIMENTS[name], results)


class Drawer:
    """Draws each finished experiment's figures, in a worker process when one is worth it.

    Drawing takes longer than the quick profile's experiments, so on two cores the
    experiments compute while workers draw. Cached figures are never redrawn.
    """

    def __init__(self, config, parallel=True):
        self.config = config
        self.parallel = parallel
        self.pool = None
        self.jobs = []  # (outcome, digest, future or entries)

    def submit(self, outcome):
        experiment, results = outcome.experiment, outcome.results
        digest = cache.figures_key(experiment, results)
        name = f"{experiment.name}.figures"
        entries = cache.load(self.config.cache_dir, name, digest) if self.config.cache else None
        if entries is None and self.parallel:
            if self.pool is None:
                context = multiprocessing.get_context("spawn")  # no fork after torch's threads start
                # Two workers: once the experiments are done (in quick, after 3 s) both cores draw.
                self.pool = ProcessPoolExecutor(max_workers=2, mp_context=context)
            entries = self.pool.submit(_draw_registered, experiment.name, results)
        self.jobs.append((outcome, digest, entries))

    def finish(self):
        """Wait for the drawings, cache them, write the files and attach them to the outcomes."""
        try:
            for outcome, digest, entries in self.jobs:
                try:
                    entries = self._entries(outcome, digest, entries)
                    folder = Path(self.config.figures) / outcome.experiment.name
                    for e in entries:
                        svg, png = e["svg"].encode(), base64.b64decode(e["png"])
                        write_if_changed(folder / f"{e['slug']}.svg", svg)
                        write_if_changed(folder / f"{e['slug']}.png", png)
                        fig = Figure(e["slug"], e["caption"], e["alt"], None, e["part"])
                        outcome.figures.append((fig, svg))
                except Exception as exc:
                    from reportgen.pipeline import short_traceback

                    outcome.error = short_traceback(exc)
                    outcome.tables, outcome.figures = [], []
        finally:
            if self.pool is not None:
                self.pool.shutdown(cancel_futures=True)

    def abandon(self):
        """Stop drawing without waiting (the build is stopping)."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)

    def _entries(self, outcome, digest, entries):
        if entries is None or not isinstance(entries, list):
            try:
                entries = entries.result() if entries is not None else None
            except KeyError:
                entries = None  # not in the worker's registry (registered at run time): draw here
            if entries is None:
                entries = figure_entries(outcome.experiment, outcome.results)
            cache.store(self.config.cache_dir, f"{outcome.experiment.name}.figures", digest, entries)
        return entries
