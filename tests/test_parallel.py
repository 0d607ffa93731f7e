"""Experiments in two processes: the same numbers as one after the other, every Run accounted for."""

import dataclasses
import time

from conftest import quick_results

from reportgen.config import BuildConfig
from reportgen.experiments import EXPERIMENTS
from reportgen.progress import Progress
from reportgen.publish.cache import Cache
from reportgen.scheduler import runs


def all_runs(tmp_path, experiments):
    config = BuildConfig(profile="quick", cache_dir=str(tmp_path / "cache"), threads=1)
    store = Cache(config.cache_dir)
    return {run.experiment.name: run for run in runs(experiments, config, "cpu", Progress(quiet=True), store)}, store


def test_two_processes_give_the_numbers_of_one(tmp_path, monkeypatch):
    """Three uncached families: this process takes them from the front, a second one from the
    back; each result equals the family's run in this process, and is cached."""
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    names = ("worked", "temperature", "gradients")
    done, _ = all_runs(tmp_path, [EXPERIMENTS[n] for n in names])
    assert set(done) == set(names)
    for name in names:
        assert done[name].error is None and not done[name].from_cache
        assert done[name].results == quick_results(name), name
    again, _ = all_runs(tmp_path, [EXPERIMENTS[n] for n in names])
    assert all(run.from_cache for run in again.values())


def test_a_family_the_second_process_does_not_know_runs_here(tmp_path, monkeypatch):
    """A family registered at run time (an extension) is not in the second process's registry:
    it comes back as a KeyError there and runs in this process instead, with the same numbers."""
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    extension = dataclasses.replace(EXPERIMENTS["worked"], name="worked-extension")
    done, _ = all_runs(tmp_path, [EXPERIMENTS["temperature"], extension])
    assert done["worked-extension"].error is None
    assert done["worked-extension"].results == quick_results("worked")
    assert done["temperature"].results == quick_results("temperature")


def test_failures_come_back_from_the_second_process(tmp_path, monkeypatch):
    """A run that raises, here or over there, becomes a Run with the error, not a stopped build:
    torch refuses 0 threads in both processes."""
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    config = BuildConfig(profile="quick", cache_dir=str(tmp_path / "cache"), threads=0)
    names = ("worked", "temperature")
    done = list(runs([EXPERIMENTS[n] for n in names], config, "cpu", Progress(quiet=True), Cache(config.cache_dir)))
    assert sorted(run.experiment.name for run in done) == sorted(names)
    for run in done:
        assert run.results is None and "thread" in run.error.lower(), run.error


def test_stopping_a_pool_with_a_cancelled_job_neither_hangs_nor_complains():
    """Ctrl-C while figures are drawn: the drawer has taken a queued job back (cancelled it);
    ending the pool must not trip CPython 3.11 over that future (a traceback, then a hang)."""
    import subprocess
    import sys

    script = (
        "import time\n"
        "from reportgen import workers\n"
        "pool = workers.pool(1)\n"
        "jobs = [workers.submit(pool, time.sleep, 30) for _ in range(3)]\n"  # one runs, one is queued
        "time.sleep(1.5)\n"
        "assert jobs[2].cancel()\n"
        "workers.stop_now(pool)\n"
        "print('stopped')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "stopped", done.stderr
    assert "InvalidStateError" not in done.stderr and "Traceback" not in done.stderr, done.stderr


class Late:
    """An executor whose one worker (a thread of this process) is up at once but begins each job
    `delay` seconds late: slower, for sure, than this process's own quick run, however loaded the
    machine (a worker not yet up leaves every run to this process, with nothing to wait for)."""

    def __init__(self, delay=2.0):
        from concurrent.futures import ThreadPoolExecutor

        self.pool, self.delay, self._processes = ThreadPoolExecutor(max_workers=1), delay, {}

    def submit(self, fn, *args):
        from reportgen import workers

        return self.pool.submit(fn, *args) if fn is workers._started else self.pool.submit(self._late, fn, *args)

    def _late(self, fn, *args):
        time.sleep(self.delay)
        return fn(*args)

    def shutdown(self, wait=True, cancel_futures=False):
        self.pool.shutdown(wait=wait, cancel_futures=cancel_futures)


def test_this_process_does_other_jobs_while_it_waits_for_the_worker(tmp_path, monkeypatch):
    """With no run left to begin here, this process does the graph's other jobs (the figures of
    the families done) instead of waiting idle for the worker's run; every Run still comes back."""
    from reportgen.jobs import FIGURES, Graph, Job
    from reportgen.workers import Workers

    monkeypatch.setattr("os.cpu_count", lambda: 2)
    drawn = []
    config = BuildConfig(profile="quick", cache_dir=str(tmp_path / "cache"), threads=1)
    names = ("worked", "temperature")  # worked here (front), temperature in the worker (back)
    with Workers(processes=1, start=lambda processes: Late()) as pool, Graph(pool) as graph:
        graph.add(*(Job(("figures", i), lambda i=i: drawn.append(i), rank=(FIGURES,)) for i in range(2)))
        done = list(runs([EXPERIMENTS[n] for n in names], config, "cpu", Progress(quiet=True),
                         Cache(config.cache_dir), graph=graph))
    assert sorted(run.experiment.name for run in done) == sorted(names)
    assert all(run.error is None for run in done)
    assert drawn == [0, 1]  # both done here while the worker ran (it begins late: Late)
