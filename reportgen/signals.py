"""The Ctrl-C and SIGTERM a command took: handlers installed, each signal recorded, raised again.

The exception a handler raises can be swallowed on its way up (one landing inside numpy's
import left the import half done and came back as the families' ImportErrors). So each
signal taken is also recorded here, and a build checks the record before it publishes: a
signal taken is never a build that publishes. This module is the record's one home.
"""

import contextlib
import signal
import threading

from reportgen.errors import Terminated

CAUGHT = (signal.SIGINT, signal.SIGTERM)
_taken = set()  # the signals taken since `installed` was entered
_holding = [0]  # how deep the main thread is in held() sections
_deferred = set()  # signals taken inside them, raised when the outermost one ends


def record(signum, frame):
    """The handler: Ctrl-C raises KeyboardInterrupt, SIGTERM Terminated; both are recorded.
    Inside held() (Python runs handlers on the main thread) the raise waits for its end."""
    _taken.add(signum)
    if _holding[0]:
        _deferred.add(signum)
        return
    _raise(signum)


def _raise(signum):
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt


def taken():
    """The signals taken since the handlers were installed."""
    return frozenset(_taken)


def raise_if_taken():
    """Raise again a Ctrl-C or SIGTERM taken earlier whose exception did not reach the command."""
    if signal.SIGTERM in _taken:
        raise Terminated()
    if signal.SIGINT in _taken:
        raise KeyboardInterrupt


@contextlib.contextmanager
def installed():
    """`record` as the handler of SIGINT and SIGTERM, with a clean record; the old handlers after,
    and the record cleared again (a process that runs commands in turn, a test run, starts each clean)."""
    _taken.clear()
    _deferred.clear()
    previous = {sig: signal.getsignal(sig) for sig in CAUGHT}
    try:
        for sig in previous:
            signal.signal(sig, record)
    except ValueError:  # not the main thread (embedded use): leave signals alone
        previous = {}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _taken.clear()
        _deferred.clear()


@contextlib.contextmanager
def held():
    """Hold SIGINT and SIGTERM back for a few renames or a worker's start; they are delivered
    right after.

    The signal mask holds them from this thread only: the kernel gives a process's signal to
    any thread that does not block it (a feeding thread, the executor's), and Python then runs
    `record` on the main thread, which may be inside the section. There `record` notes the
    signal and the section raises it as it ends; a worker being spawned meanwhile gets its
    start-up data instead of a closed pipe (and a traceback on the terminal)."""
    main = threading.current_thread() is threading.main_thread()
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, set(CAUGHT))
    except (AttributeError, ValueError, OSError):  # no signal masks here (or not the main thread)
        old = None
    _holding[0] += main
    try:
        yield
    finally:
        _holding[0] -= main
        if old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        if main and not _holding[0] and _deferred:
            signum = signal.SIGTERM if signal.SIGTERM in _deferred else signal.SIGINT
            _deferred.clear()
            _raise(signum)
