"""One build at a time per folder: an advisory lock on a file beside what it guards.

Two builds publishing into one output folder at once mixed their sets (one's report.html
beside the other's results.json) and misreported the previous set. A build takes
`.reportgen-lock` in the folder (fcntl.flock: released by the kernel when the process dies,
so a killed build never leaves a stale lock) before it touches the set, and a second build
waits for it with one line, or gives up with exit 2 after `limits.LOCK_WAIT_S`.
"""

import contextlib
import fcntl
import os
import time

from reportgen import limits
from reportgen.errors import ReportgenError

LOCK_NAME = ".reportgen-lock"
POLL_S = 0.05


class LockTimeout(ReportgenError):
    """Another build held the folder past the wait."""

    exit_code = 2


def wait_limit():
    """Seconds to wait: REPORTGEN_LOCK_WAIT when set (CI, tests), else limits.LOCK_WAIT_S."""
    try:
        return max(0.0, float(os.environ.get("REPORTGEN_LOCK_WAIT", limits.LOCK_WAIT_S)))
    except ValueError:
        return limits.LOCK_WAIT_S


@contextlib.contextmanager
def held(folder, say=None, what="output folder"):
    """Hold the folder's lock for the block; wait for another build's (saying so once)."""
    path = os.path.join(folder, LOCK_NAME)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o666)
    try:
        _acquire(fd, folder, say, what)
        yield
    finally:
        os.close(fd)  # closing releases the flock


def _acquire(fd, folder, say, what):
    deadline, said = time.monotonic() + wait_limit(), False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        if time.monotonic() >= deadline:
            raise LockTimeout(f"another reportgen build is still writing into the {what} {folder}; "
                              "wait for it to finish, or build into another folder")
        if not said and say is not None:
            say(f"another reportgen build is writing into the {what} {folder}; waiting for it "
                f"(up to {wait_limit():.0f} s)")
            said = True
        time.sleep(POLL_S)
