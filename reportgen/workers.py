"""Worker processes that start, and stop, without leaving tracebacks or orphans behind.

Drawing and the handout's PDF run in spawned processes. Two things go wrong when a build is
interrupted: a signal that lands while a worker is being spawned cuts its start-up data short
(the child prints "EOFError: Ran out of input"), and an executor shut down without waiting
leaves its wake-up pipe closed for the interpreter's exit hook ("Bad file descriptor").
"""

from reportgen.publish import signals_held


def submit(pool, fn, *args):
    """pool.submit, with Ctrl-C and SIGTERM held back while it may be spawning a process."""
    with signals_held():
        return pool.submit(fn, *args)


def stop_now(pool):
    """End a pool's processes and wait until the executor has wound down."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # CPython's executor keeps them here
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=5)
    # With its workers gone the executor's manager thread ends at once; waiting for it leaves
    # nothing for the exit hook to wake up.
    pool.shutdown(wait=True, cancel_futures=True)
