"""The one way reportgen reads a file it did not just write: bounded, never blocking, regular only.

A FIFO given as --config, as a `diff` argument, at a cache entry's name or as the publish
journal used to hang the build; /dev/zero there ran it out of memory. `read` opens without
blocking (and, where asked, without following a symbolic link), refuses anything fstat does
not call a regular file, and reads no more than the stated limit (reportgen.limits).
"""

import errno
import os
import stat
from pathlib import Path

from reportgen import limits
from reportgen.errors import ReportgenError

KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device",
         stat.S_IFDIR: "a folder", stat.S_IFSOCK: "a socket"}


class InputRefused(ReportgenError):
    """A file reportgen will not read: its message names the file, the reason and the way out."""

    exit_code = 2

    def __init__(self, path, reason, way_out="give a regular file"):
        self.path, self.reason = str(path), reason
        super().__init__(f"{path}: {reason}; {way_out}")


def read(path, limit, follow=True, way_out="give a regular file"):
    """The bytes of the regular file at `path`, at most `limit` of them; InputRefused otherwise.

    FileNotFoundError passes through (a missing file is often a plain miss to the caller).
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise InputRefused(path, "is a symbolic link, which reportgen does not follow here", way_out) from None
        raise InputRefused(path, f"cannot be read ({exc.strerror or exc})", way_out) from None
    try:
        _check_regular(fd, path, limit, way_out)
        data = _read_fd(fd, path, limit, way_out)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InputRefused(path, f"is over the limit of {limit} bytes", way_out)
    return data


def _check_regular(fd, path, limit, way_out):
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        kind = KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
        raise InputRefused(path, f"is {kind}, not a regular file", way_out)
    if info.st_size > limit:
        raise InputRefused(path, f"is {info.st_size} bytes, over the limit of {limit}", way_out)


def _read_fd(fd, path, limit, way_out):
    """Up to limit + 1 bytes: a file that grows while it is read is still cut at the limit."""
    chunks, size = [], 0
    try:
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise InputRefused(path, f"cannot be read ({exc.strerror or exc})", way_out) from None
    return b"".join(chunks)


def read_text(path, limit, follow=True, way_out="give a UTF-8 text file"):
    """`read`, decoded as UTF-8; InputRefused when it is not UTF-8."""
    data = read(path, limit, follow, way_out)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputRefused(path, "is not UTF-8 text", way_out) from None


def inside(path, folder=None, way_out="copy the file into the folder instead of linking to it"):
    """`path` when it resolves inside `folder` (default: the folder it is named in); InputRefused
    when a symbolic link (the file's or a folder's on the way) leads out of it: a course's
    documents or claims folder is never a way to read /etc/passwd. A missing file passes."""
    path = Path(path)
    folder = Path(folder) if folder is not None else path.parent
    try:
        real, home = path.resolve(), folder.resolve()
    except (OSError, RuntimeError):  # a loop of links
        raise InputRefused(path, "is a symbolic link that cannot be resolved", way_out) from None
    if not real.is_relative_to(home):
        raise InputRefused(path, f"is a symbolic link out of {folder}", way_out)
    return path


def depth_checked(value, path, limit=None):
    """`value` (parsed TOML or JSON) when it nests no deeper than `limit`; RecursionError otherwise."""
    limit = limit or limits.MAX_TOML_DEPTH
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            raise RecursionError(f"{path} nests deeper than {limit}")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return value
