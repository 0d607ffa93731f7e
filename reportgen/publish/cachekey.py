"""The cache's secret: a key kept outside the cache folder, so an entry cannot be forged there.

An unkeyed SHA-256 let anyone who could write the cache (in CI, the runner's shared cache)
edit an experiment's numbers and fix up the hash. Entries now carry an HMAC-SHA256 under
this key: `REPORTGEN_CACHE_KEY` when set (CI keeps it as a secret), else a random key in
the user's state folder ($XDG_STATE_HOME/reportgen/cache-key, ~/.local/state by default),
made on first use, readable by its owner only.
"""

import functools
import os
import secrets
from pathlib import Path

from reportgen import inputs

ENV = "REPORTGEN_CACHE_KEY"
MAX_KEY_BYTES = 4096


class NoKey(Exception):
    """No key could be read or made: the build goes on without the cache."""


def key_file():
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "reportgen" / "cache-key"


@functools.cache
def _cached(env_value, path):
    if env_value:
        return env_value.encode()
    try:
        return inputs.read(path, MAX_KEY_BYTES, follow=False).strip() or _make(path)
    except FileNotFoundError:
        return _make(path)
    except (inputs.InputRefused, OSError) as exc:
        raise NoKey(f"cannot read the cache key {path} ({getattr(exc, 'reason', exc)})") from None


def _make(path):
    """A new random key, written 0600 (O_EXCL: a build that races this one keeps its own)."""
    key = secrets.token_hex(32).encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return inputs.read(path, MAX_KEY_BYTES, follow=False).strip()
    except OSError as exc:
        raise NoKey(f"cannot make the cache key {path} ({exc.strerror or exc})") from None
    with os.fdopen(fd, "wb") as file:
        file.write(key + b"\n")
    return key


def current():
    """The key's bytes; NoKey when there is none to be had."""
    return _cached(os.environ.get(ENV, ""), key_file())
