"""Worker processes that start, and stop, without leaving tracebacks or orphans behind.

Drawing, the experiments a second process takes and the handout's PDF run in spawned
processes. Two things go wrong when a build is interrupted: a signal that lands while a worker is being spawned cuts its start-up data short
(the child prints "EOFError: Ran out of input"), and an executor shut down without waiting
leaves its wake-up pipe closed for the interpreter's exit hook ("Bad file descriptor").
"""

import multiprocessing
import os

from reportgen import signals


def pool(workers=2):
    """Spawned worker processes that end with the build, however it ends."""
    from concurrent.futures import ProcessPoolExecutor

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
    import ctypes
    import signal
    import threading
    import time

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


def submit(pool, fn, *args):
    """pool.submit, with Ctrl-C and SIGTERM held back while it may be spawning a process."""
    with signals.held():
        return pool.submit(fn, *args)


def stop_now(pool):
    """End a pool's processes and wait until the executor has wound down."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # CPython's executor keeps them here
    # A future cancelled while queued (Drawer._steal) stays among the executor's pending work;
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
    # nothing for the exit hook to wake up.
    pool.shutdown(wait=True, cancel_futures=True)
