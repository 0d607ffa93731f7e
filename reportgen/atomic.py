"""Writes that never leave a half-written file behind."""

import os
import tempfile
from pathlib import Path


def write_atomic(path, data):
    """Write bytes or text to path through a temporary file and an atomic rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; outputs are shared files
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_if_changed(path, data):
    """Write atomically only when the content differs; return True when written."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    if path.exists() and path.read_bytes() == data:
        return False
    write_atomic(path, data)
    return True


def remove_leftovers(folder, patterns=(".*.tmp",)):
    """Remove the temporary files write_atomic leaves when a build is killed mid-write (and the
    figure files staged by a build that never published)."""
    try:
        for leftover in (p for pattern in patterns for p in Path(folder).glob(pattern)):
            leftover.unlink(missing_ok=True)
    except OSError:
        pass  # a folder we cannot list holds nothing we can clean
