"""Each selected experiment's Run: from the cache, or computed here and in the workers.

Each run to compute is a job of the build's graph (reportgen.jobs): on a CPU with a core to
spare, the worker processes take experiments from the end of the list while this one takes
them from the front: each family runs seeded and single-threaded, so where it runs does not
change its numbers, only when the build is done. On a GPU they run here, one after another.
"""

import datetime
import json
import math
import os
import time
from dataclasses import dataclass, replace

from reportgen import jobs, workers
from reportgen.errors import short_traceback
from reportgen.publish import cache, keys, parts as kept_parts
from reportgen.publish.provenance import build_time


@dataclass(frozen=True)
class Run:
    """What one experiment's run produced in this build."""

    experiment: object
    results: dict | None = None
    error: str | None = None  # last lines of the traceback
    from_cache: bool = False
    seconds: float = 0.0
    nonfinite: tuple = ()  # result paths holding NaN or inf
    computed_at: str | None = None  # UTC time the results were computed (now, or when cached)


def nonfinite_paths(value, path="results"):
    """Paths of NaN and inf values inside nested results."""
    if isinstance(value, float):
        return [] if math.isfinite(value) else [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in nonfinite_paths(v, f"{path}.{k}")]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in nonfinite_paths(v, f"{path}[{i}]")]
    return []


def cached_run(experiment, config, device, store):
    """(cache key, the Run from the cache or None)."""
    params = experiment.params[config.profile]
    # Thread count can change float reduction order, so it is part of the key.
    digest = keys.run_key(experiment, params, config.seed, f"{device}/{config.threads}")
    entry = store.load(experiment.name, digest, cache.check_run)
    if entry is None:
        return digest, None
    return digest, Run(experiment, results=entry["results"], from_cache=True,
                       nonfinite=tuple(nonfinite_paths(entry["results"])), computed_at=entry["computed_at"])


def look_up(experiments, config, device, store):
    """(Runs ready now: cached, or failed to look up; [(experiment, cache key)] to compute)."""
    ready, todo = [], []
    for experiment in experiments:
        start = time.perf_counter()
        try:
            digest, run = cached_run(experiment, config, device, store)
        except Exception as exc:
            ready.append(Run(experiment, error=short_traceback(exc), seconds=time.perf_counter() - start))
            continue
        if run is not None:
            ready.append(replace(run, seconds=time.perf_counter() - start))
        else:
            todo.append((experiment, digest))
    return ready, todo


def compute(run, params, config, device, progress, parts=None):
    """A fresh seeded run's results, after the JSON round trip that makes them identical to cached ones.
    `parts`: where a resumable run keeps what it finishes (publish/parts.py), or None."""
    import torch

    torch.set_num_threads(config.threads)
    resume = {"parts": parts} if parts is not None else {}  # a family that does not resume: run's four arguments
    return json.loads(json.dumps(run(params, config.seed, device, progress, **resume)))


def _compute_registered(name, config, device, digest):
    """Worker side: run a registered experiment with silent progress; (results, seconds). A resumable one
    keeps its parts in the build's cache, opened here (a fault there: no parts kept, no warning twice)."""
    experiment = workers.registered(name)
    start = time.perf_counter()
    parts = kept_parts.of(experiment, digest, cache.Cache(config.cache_dir, config.cache))
    results = compute(experiment.run, experiment.params[config.profile], config, device, lambda items, label: items,
                      parts)
    return results, time.perf_counter() - start


def run_here(experiment, digest, config, device, progress, store):
    """A fresh seeded run in this process, cached under `digest`; a failure is the Run's error."""
    progress.echo(f"{experiment.name}: running on {device}")
    start = time.perf_counter()
    try:
        results = compute(experiment.run, experiment.params[config.profile], config, device, progress,
                          kept_parts.of(experiment, digest, store))
    except Exception as exc:  # one experiment's failure must not stop the others
        return Run(experiment, error=short_traceback(exc), seconds=time.perf_counter() - start)
    return fresh_run(experiment, digest, results, store, time.perf_counter() - start)


def fresh_run(experiment, digest, results, store, seconds):
    """The Run of freshly computed results, stored in the cache (a refusal is a warning).

    The entry keeps the real time: SOURCE_DATE_EPOCH dates this build, and stuck in the cache
    it dated later plain builds too ("built 1970-01-01"). The clock is read once: read twice,
    a second could tick between the entry's time and this build's, so the next build, dated
    by the entry, differed by that second and typeset every PDF again."""
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    if store.store(experiment.name, digest, {"computed_at": now.isoformat(), "results": results}):
        parts = kept_parts.of(experiment, digest, store)
        if parts is not None:
            parts.clear()  # the whole run is kept now
    return Run(experiment, results=results, seconds=seconds, nonfinite=tuple(nonfinite_paths(results)),
               computed_at=build_time(now).isoformat())


def workers_for(todo, device):
    """How many processes compute: on a CPU with a core to spare and more than one to run, this
    one and a worker per spare core (reportgen.workers.size), as many as there are experiments."""
    if len(todo) < 2 or device != "cpu" or (os.cpu_count() or 1) < 2:
        return 1
    return min(len(todo), workers.size() + 1)


def runs(experiments, config, device, progress, store, looked_up=None, graph=None):
    """Each experiment's Run, in the order they finish: those to compute as jobs of `graph`, the
    build's (reportgen.jobs; else one of its own), which does other jobs while it waits for them
    (the figures of the families done)."""
    ready, todo = looked_up or look_up(experiments, config, device, store)
    yield from ready
    if not todo:
        return
    with jobs.owned(graph, workers.Workers) as graph:
        yield from _computed(todo, config, device, progress, store, graph)


def run_job(experiment, digest, config, device, progress, store):
    """The job that computes one experiment: here, or on a CPU in a worker too."""

    def here():
        return run_here(experiment, digest, config, device, progress, store)

    there = (_compute_registered, experiment.name, config, device, digest) if device == "cpu" else None
    return jobs.Job(("run", experiment.name), here, there, rank=(jobs.RUN,))


def _computed(todo, config, device, progress, store, graph):
    """Run the experiments of `todo` ([(experiment, cache key)]) as jobs of `graph`; yield each
    Run as it is done."""
    graph.add(*(run_job(experiment, digest, config, device, progress, store) for experiment, digest in todo))
    digests = {experiment.name: (experiment, digest) for experiment, digest in todo}
    for job, done in graph.run([("run", name) for name in digests]):
        experiment, digest = digests[job.key[1]]
        try:
            value = done.result()
        except Exception as exc:  # the experiment's own failure, in the worker
            yield Run(experiment, error=short_traceback(exc))
            continue
        if isinstance(value, Run):  # run here (run_here keeps a failure in the Run)
            yield value
        else:
            results, seconds = value
            progress.echo(f"{experiment.name}: computed in a worker process")
            yield fresh_run(experiment, digest, results, store, seconds)
