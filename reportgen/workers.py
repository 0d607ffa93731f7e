"""The build's worker processes: one pool, shared by the experiments, the figures and the PDFs.

The build owns one `Workers` (`with Workers() as workers:`) and one job graph over it
(reportgen.jobs.Graph), which hands the workers its jobs one at a time. One policy for all:

- A worker that died (killed, out of memory: BrokenProcessPool), a pool that cannot start,
  or a job whose family the worker does not know (registered at run time in this process:
  `Unknown`): the job is done here, with the same numbers (`lost`). A broken pool is not used again.
- Any other exception the job raised is the job's own failure: its Future raises it as if the
  job had run here, and the stage reports it as it would its own.
- However the `with` is left (done, Ctrl-C, SIGTERM, any error): the workers are ended at
  once and waited for. Workers never write files; they hand values back, and the build process writes
  (atomically, after the report), so nothing written is lost and nothing is half written.

Two things go wrong when a build is interrupted: a signal that lands while a worker is being
spawned cuts its start-up data short (the child prints "EOFError: Ran out of input"), and an
executor shut down without waiting leaves its wake-up pipe closed for the interpreter's exit
hook ("Bad file descriptor"). `submit` and `stop_now` prevent them.
"""

import ctypes
import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from reportgen import signals
from reportgen.experiments import EXPERIMENTS
from reportgen.plotting import shared_config_dir


class Unknown(KeyError):
    """Worker side: the job names a family this worker's registry lacks."""


def registered(name):
    """Worker side: the registered experiment `name`; `Unknown` when this process lacks it."""
    try:
        return EXPERIMENTS[name]
    except KeyError:
        raise Unknown(name) from None


def size():
    """How many worker processes the build may start: one per core but this process's (none on
    one core, where a worker would only take turns with this process)."""
    return max(0, (os.cpu_count() or 1) - 1)


class Workers:
    """Worker processes started when the first job is offloaded, ended with the `with` block."""

    def __init__(self, processes=None, start=None):
        self.processes = size() if processes is None else processes
        self.start = start or pool  # start(processes) -> an executor (tests pass their own)
        self.executor = None
        self.broken = self.processes < 1  # no worker to start: everything is done here
        self.up = []  # Futures of the no-op each worker ran first (ready)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        self.close()

    def ready(self):
        """Start every worker now, from this thread; [a Future per worker, done once it is up]
        ([] when none can start). Linux ends a worker when the *thread* that spawned it ends
        (PR_SET_PDEATHSIG, see _worker_start), and the executor spawns on submit: the job graph
        calls this from the build's thread before its feeding threads offload, or the workers
        would die with those threads and the pool break."""
        if self.broken:
            return []
        if self.executor is not None:
            return self.up
        try:
            self.executor = self.start(self.processes)
            self.up = [submit(self.executor, _started) for _ in range(self.processes)]
        except (BrokenProcessPool, OSError):
            self.broken = True
            return []
        return self.up

    def offload(self, fn, *args):
        """A Future of fn(*args) in a worker; None when no worker can take it (do it here)."""
        if self.broken:
            return None
        try:
            if self.executor is None:
                self.ready()
                if self.broken:
                    return None
            return submit(self.executor, fn, *args)
        except (BrokenProcessPool, OSError):
            self.broken = True
            return None

    def lost(self, future):
        """Whether a done job was lost with its worker, or met a worker without its family:
        then it is to be done here (the policy above)."""
        error = future.exception()
        if isinstance(error, BrokenProcessPool):
            self.broken = True
        return isinstance(error, (BrokenProcessPool, Unknown))

    def close(self):
        """End the workers now and wait until they are gone, whether the build is done or is
        stopping. A worker holds nothing to save (every value it made is handed back by then);
        letting a done one wind its interpreter down (torch and Matplotlib freed object by
        object) kept a finished build waiting 0.6-0.8 s. The worker's exit handlers do not run:
        the one that mattered was Matplotlib's, which removes the temporary config folder it
        makes where its own is not writable; the build gives the workers one of its own first
        (reportgen.plotting.shared_config_dir)."""
        if self.executor is not None:
            stop_now(self.executor)


def _started():
    """The no-op that makes the executor spawn a worker (Workers.ready)."""


def pool(workers=2):
    """Spawned worker processes that end with the build, however it ends."""
    shared_config_dir()  # set in the environment the workers inherit, removed when this process exits
    context = multiprocessing.get_context("spawn")  # no fork after torch's threads start
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_start,
                               initargs=(os.getpid(),))


def _worker_start(parent):
    """Worker start: signals as a worker needs them, and an end with the build process.

    The worker was spawned with SIGINT and SIGTERM held (see submit): it ignores SIGINT (a
    Ctrl-C reaches the whole process group; the build process handles it and ends its
    workers) and takes SIGTERM again, so that ending it is immediate. Linux delivers SIGTERM
    when the parent dies (prctl PR_SET_PDEATHSIG); elsewhere, and as a fallback, a thread
    notices the worker was re-parented and exits.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    except (AttributeError, OSError):
        pass
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


MANAGER_WAIT = 3.0  # seconds stop_now waits for the executor's manager thread to wind down
_SUBMITTING = threading.RLock()  # held while a submit may be spawning a worker; stop_now waits for it


def submit(pool, fn, *args):
    """pool.submit, with Ctrl-C and SIGTERM held back while it may be spawning a process."""
    with _SUBMITTING, signals.held():
        return pool.submit(fn, *args)


def stop_now(pool):
    """End a pool's processes and wait until the executor has wound down; a worker another
    thread is spawning gets its start-up data first (a closed pipe makes it print a traceback)."""
    with _SUBMITTING:
        _stop_now(pool)


def _stop_now(pool):
    processes = list((getattr(pool, "_processes", None) or {}).values())  # CPython's executor keeps them here
    # A future cancelled while queued stays among the executor's pending work;
    # once its workers are gone, CPython 3.11 sets an exception on every pending future,
    # cancelled ones too: InvalidStateError kills the manager thread, and shutdown hangs.
    pending = getattr(pool, "_pending_work_items", None)
    if isinstance(pending, dict):
        for work_id, item in list(pending.items()):
            if item.future.cancelled():
                pending.pop(work_id, None)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=5)
    # With its workers gone the executor's manager thread ends at once; waiting for it leaves
    # nothing for the exit hook to wake up. But a worker ended while it was sending a result (a
    # PDF is megabytes) leaves half a message in the result pipe, whose writing end this process
    # holds too: the manager thread then waits in recv() for the rest, for ever, and an
    # unbounded wait hung a Ctrl-C'd build until a second Ctrl-C. The command leaves with
    # os._exit (cli.command), which waits for no thread.
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown() forgets it, wait or not
    pool.shutdown(wait=False, cancel_futures=True)
    if manager is not None:
        manager.join(timeout=MANAGER_WAIT)
