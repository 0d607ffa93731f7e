"""The build's job graph: every run, figure and PDF is a job, done once, by one executor.

A `Job` is done in this process (`here`) or by one of the build's worker processes (`there`,
handed to the pool: reportgen.workers.Workers) once the jobs it waits for (`after`) are done.
The stages add their jobs to the build's one `Graph` (a finished run adds its figures' job)
and take each outcome as a done Future; nothing runs that no stage added, so a build draws,
typesets and warms only for the outputs it was asked for. Listeners hear each job start and
end, and where (`Event`): the build's progress.

The policy is the workers' (reportgen.workers):

- This process takes the highest-ranked ready job it can do whenever it would otherwise wait,
  the first added among equals; a feeding thread per worker hands that worker the highest-ranked
  ready job it can do, the last added among equals, once the worker is up, and waits for it
  before taking another. An executor that has queued a job can no longer give it back, so none
  is queued: a job no worker has begun stays this process's to take. Two processes working
  through equal jobs from both ends of their list (the experiments, in the registry's order)
  meet in the middle, each job done once.
- A job lost with its worker, or met by a worker without its family (`pool.lost`), is done here
  with the same numbers; a broken pool is not used again. A job's own exception is in its
  Future wherever it ran. A job only a worker may do (`here` None: readying the workers for a
  later job) is dropped where no worker can take it.
- The graph never starts a process from a thread of its own: the workers start from the
  build's thread (Workers.ready), when two jobs could go to them or one only they can do.
"""

import contextlib
import threading
import time
from concurrent.futures import Future, wait
from dataclasses import dataclass, replace
from typing import Callable, Hashable

HERE, WORKER = "here", "worker"  # where a job ran (Event.where)
# Ranks of the build's kinds of job, larger first: a run unblocks its family's figures, the
# figures the report; once the pages are laid out the screen pages come before the PDFs (the
# workers begin those meanwhile); readying a worker for the PDFs only when nothing else is ready.
RUN, FIGURES, PAGES, PDF, WARM = 4, 3, 2, 1, 0


@dataclass(frozen=True, eq=False)
class Job:
    """One piece of a build's work: `here()` does it in this process (None: a worker's only);
    `there` is (function, *arguments) a worker does it with, all picklable (None: here only)."""

    key: Hashable  # unique in its graph: ("run", "lm"), ("figures", "lm"), ("pdf", cache key)
    here: Callable | None
    there: tuple | None = None
    after: tuple = ()  # keys of the jobs it waits for
    rank: tuple = ()  # larger first (RUN, FIGURES, ...), then a weight: (PDF, its HTML's length)


@dataclass(frozen=True)
class Event:
    """A job started or done (`what`), `where` (HERE or WORKER); a done one's `seconds`. A job's
    "done" is heard before its outcome can be seen, so a listener's record of it is complete
    when the stage that waited for the job goes on."""

    what: str
    job: Job
    where: str
    seconds: float | None = None


class Graph:
    """The build's jobs and their outcomes; `run(keys)` does them until those keys are done.

    Jobs are added and run from the build's thread; the workers' feeding threads only take
    jobs and report their outcomes. `close()` (the `with` block's end) stops the feeding; the
    pool itself is ended by its own `with` (reportgen.workers)."""

    def __init__(self, pool=None):
        self.pool = pool  # reportgen.workers.Workers (ready, offload, lost, broken, processes), or None
        self.pending = {}  # key -> Job not yet taken
        self.order = {}  # key -> when it was added
        self.running = {}  # key -> HERE or WORKER
        self.outcomes = {}  # key -> a done Future
        self.finished = []  # (Job, done Future) in the order they finished
        self.listeners = []
        self.cond = threading.Condition()
        self.feeding = False  # whether the workers' feeding threads are started
        self.closed = False

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        self.close()

    def listen(self, listener):
        """Call listener(Event) as each job starts and ends (from a feeding thread too)."""
        self.listeners.append(listener)

    def add(self, *jobs):
        """Add jobs; a worker that is up may begin one at once."""
        with self.cond:
            for job in jobs:
                if job.key in self.order:
                    raise ValueError(f"a job {job.key!r} is in the graph already")
                if job.here is None and job.there is None:
                    raise ValueError(f"job {job.key!r} has nothing to run")
                self.order[job.key] = len(self.order)
                self.pending[job.key] = job
            if not self._usable():
                self._drop_workers_only()
            self.cond.notify_all()
        self._start_workers()

    def has(self, key):
        """Whether a job of this key was added."""
        return key in self.order

    def outcome(self, key):
        """The done Future of a job, or None while it is not done."""
        return self.outcomes.get(key)

    def run(self, keys=None):
        """Do jobs, here and in the workers, until each job of `keys` (default: every job, those
        added meanwhile too) is done; yield (Job, done Future) of each of them as it finishes
        (one already done first). While it would wait for a worker, this process does any job
        it can, not only those of `keys`."""
        wanted = None if keys is None else set(keys)
        yielded, seen = set(), 0
        self._start_workers()
        while True:
            with self.cond:
                new, seen = self.finished[seen:], len(self.finished)
            for job, future in new:
                if wanted is None or job.key in wanted:
                    yielded.add(job.key)
                    yield job, future
            with self.cond:
                if len(self.finished) > seen:
                    continue
                if (not self.pending and not self.running) if wanted is None else wanted <= yielded:
                    return
                job = self._take(HERE)
                if job is None:
                    if not self.running and not self._feeders_can_take():
                        raise RuntimeError(f"jobs wait for keys never added: {sorted(map(repr, self.pending))}")
                    self.cond.wait(1.0)
                    continue
            self._do_here(job)

    def close(self):
        """Stop handing jobs to the workers (a job a worker has begun is the pool's to end)."""
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    # --- taking jobs (the caller holds self.cond) -------------------------------------------

    def _take(self, where):
        """The best job `where` can do now, marked running there; or None."""
        if where == WORKER and not self._usable():
            return None
        ready = [job for job in self.pending.values()
                 if (job.here if where == HERE else job.there) is not None and self._ready(job)]
        if not ready:
            return None
        sign = -1 if where == HERE else 1  # among equals: this process the first added, a worker the last
        job = max(ready, key=lambda j: (j.rank, sign * self.order[j.key]))
        del self.pending[job.key]
        self.running[job.key] = where
        return job

    def _feeders_can_take(self):
        """Whether a ready job waits for a worker's feeding thread to take it."""
        return self.feeding and self._usable() and any(job.there is not None and self._ready(job)
                                                       for job in self.pending.values())

    def _ready(self, job):
        return all(key in self.outcomes for key in job.after)

    def _usable(self):
        return self.pool is not None and not self.pool.broken and not self.closed

    def _drop_workers_only(self):
        """Jobs only a worker may do, with none to do them: dropped."""
        for key in [key for key, job in self.pending.items() if job.here is None]:
            self._drop(key)

    def _drop(self, key):
        """A pending job dropped undone: its Future is cancelled."""
        future = Future()
        future.cancel()
        self._record(self.pending.pop(key), future)

    def _record(self, job, future):
        self.running.pop(job.key, None)
        self.outcomes[job.key] = future
        self.finished.append((job, future))
        self.cond.notify_all()

    # --- doing jobs ---------------------------------------------------------------------

    def _do_here(self, job):
        self._emit(Event("started", job, HERE))
        start = time.perf_counter()
        future = Future()
        try:
            future.set_result(job.here())
        except Exception as exc:  # the job's own failure: its Future's
            future.set_exception(exc)
        self._emit(Event("done", job, HERE, time.perf_counter() - start))  # heard before its outcome is seen
        with self.cond:
            self._record(job, future)

    def _start_workers(self):
        """Start the workers and their feeding threads (from the build's thread: Workers.ready)
        once two jobs could go to them, or one only they can do, or one when they are up already
        (a worker starts slower than one job is done here)."""
        with self.cond:
            if self.feeding or not self._usable():
                return
            for_workers = [job for job in self.pending.values() if job.there is not None]
            started = bool(getattr(self.pool, "up", None))  # by an earlier graph: no start-up to pay
            if not for_workers or (len(for_workers) < 2 and not started and all(job.here for job in for_workers)):
                return
            self.feeding = True
        up = self.pool.ready()
        with self.cond:
            if not self._usable():
                self._drop_workers_only()
                return
        for index in range(self.pool.processes):
            first = up[index] if index < len(up) else None
            threading.Thread(target=self._feed, args=(first,), name="jobs-feeder", daemon=True).start()

    def _feed(self, up):
        """A feeding thread: once its worker is up, hand it one job at a time."""
        if up is not None:
            wait([up])
            if up.cancelled() or self.pool.lost(up):
                self._lost()
                return
        while True:
            with self.cond:
                while (job := self._take(WORKER)) is None:
                    if not self._usable():
                        return
                    self.cond.wait()
            try:
                if not self._offload(job):
                    return
            except BaseException:  # a fault of the feeding itself (a listener's): the job is this process's
                with self.cond:
                    if job.key in self.running:
                        self._give_back(job)
                raise

    def _offload(self, job):
        """Hand one job to a worker and wait for it; False once the pool is ending."""
        self._emit(Event("started", job, WORKER))
        start = time.perf_counter()
        try:
            future = self.pool.offload(*job.there)
        except Exception:  # noqa: BLE001 (a job no worker can take is done here)
            future = None
        if future is not None:
            wait([future])
        ending = future is not None and future.cancelled()  # the pool is ending (Workers.close)
        if future is None or ending or self.pool.lost(future):
            with self.cond:
                self._give_back(job)
                self._lost()
            return not ending
        self._emit(Event("done", job, WORKER, time.perf_counter() - start))  # heard before its outcome is seen
        with self.cond:
            self._record(job, future)
        return True

    def _give_back(self, job):
        """A job taken for a worker that no worker did: this process's to do (one only a worker may do goes)."""
        del self.running[job.key]
        self.pending[job.key] = replace(job, there=None) if job.here is not None else job
        if job.here is None:
            self._drop(job.key)
        self.cond.notify_all()

    def _lost(self):
        """A worker could not do a job: with a broken pool, the jobs only it could do go."""
        with self.cond:
            if not self._usable():
                self._drop_workers_only()
            self.cond.notify_all()

    def _emit(self, event):
        for listener in self.listeners:
            listener(event)


@contextlib.contextmanager
def owned(graph, make):
    """`graph`, or a fresh one over `make()`'s pool, ended (the pool too) when the block ends."""
    if graph is not None:
        yield graph
        return
    with make() as pool, Graph(pool) as graph:
        yield graph
