"""The Ctrl-C and SIGTERM a command took: handlers installed, each signal recorded, raised again.

The exception a handler raises can be swallowed on its way up (one landing inside numpy's
import left the import half done and came back as the families' ImportErrors). So each
signal taken is also recorded here, and a build checks the record before it publishes: a
signal taken is never a build that publishes. This module is the record's one home.
"""

import contextlib
import signal

from reportgen.errors import Terminated

CAUGHT = (signal.SIGINT, signal.SIGTERM)
_taken = set()  # the signals taken since `installed` was entered


def record(signum, frame):
    """The handler: Ctrl-C raises KeyboardInterrupt, SIGTERM Terminated; both are recorded."""
    _taken.add(signum)
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
    """`record` as the handler of SIGINT and SIGTERM, with a clean record; the old handlers after."""
    _taken.clear()
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


@contextlib.contextmanager
def held():
    """Hold SIGINT and SIGTERM back for a few renames; they are delivered right after."""
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, set(CAUGHT))
    except (AttributeError, ValueError, OSError):  # no signal masks here (or not the main thread)
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
