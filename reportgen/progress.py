"""Terminal progress: every line stamped with the elapsed time and the build's estimate.

A bar for long loops on a TTY, plain lines otherwise (a pipe, a CI log); colour only on a
TTY and never under NO_COLOR (https://no-color.org).
"""

import contextlib
import hashlib
import json
import os
import sys
import time

import click

# A first build's estimate, before this cache has timed one: the median cold build with
# both PDFs on the 2-core development machine (benchmarks/results.md, README's table).
TYPICAL_SECONDS = {"quick": 27.0, "standard": 45.0}
# The full profile is 10-100× the standard one's work (README): a range, not a promise.
FULL_FACTOR = (10, 100)


def color_allowed(stream):
    """Colour for this stream: a TTY, and NO_COLOR unset or empty."""
    return not os.environ.get("NO_COLOR") and stream.isatty()


def duration(seconds):
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Progress:
    """Reports stages and loops to stderr; silent when quiet (warnings still show)."""

    def __init__(self, quiet=False, stream=None):
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.color = color_allowed(self.stream)
        self.started = time.perf_counter()
        self.estimate = None  # seconds the whole build is expected to take

    def elapsed(self):
        return time.perf_counter() - self.started

    def _stamp(self):
        now = self.elapsed()
        if self.estimate and now <= self.estimate:
            return f"[{now:5.1f} s of about {duration(self.estimate)}]"
        if self.estimate:
            return f"[{now:5.1f} s; expected about {duration(self.estimate)}]"
        return f"[{now:5.1f} s]"

    def echo(self, message):
        if not self.quiet:
            click.echo(f"{self._stamp()} {message}", file=self.stream, color=self.color)

    def warn(self, message):
        """One line that something degraded (the build goes on); shown even when quiet."""
        label = click.style("warning:", fg="yellow", bold=True) if self.color else "warning:"
        click.echo(f"{label} {message}", file=self.stream, color=self.color)

    def plan(self, seconds, basis):
        """Announce the whole build's expected duration; later lines show it beside the clock."""
        self.estimate = seconds
        self.echo(f"expected build time: about {duration(seconds)} ({basis})")

    @contextlib.contextmanager
    def stage(self, name, what=""):
        """A timed stage: one line when it starts, one when it ends."""
        self.echo(f"{name}: {what or 'started'}")
        start = time.perf_counter()
        yield
        self.echo(f"{name}: done in {time.perf_counter() - start:.1f} s")

    def __call__(self, items, label):
        """Iterate over items, showing a bar on a TTY and one line per loop otherwise."""
        items = list(items)
        if self.quiet:
            yield from items
            return
        if self.tty:
            with click.progressbar(items, label=f"  {label}", file=self.stream, color=self.color) as bar:
                yield from bar
            return
        start = time.perf_counter()
        yield from items
        self.echo(f"  {label}: {len(items)} steps in {time.perf_counter() - start:.1f} s")


# --- the estimate: the last build of the same kind, kept in the cache ----------------------


def _key(config, device):
    what = {"profile": config.profile, "device": device, "only": list(config.only), "format": list(config.format)}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:32]


def _check_timing(payload):
    if not isinstance(payload, dict) or not isinstance(payload.get("seconds"), (int, float)):
        return "not a timing"
    return None if 0 <= payload["seconds"] < 10**7 else "a timing out of range"


def estimate(config, device, store):
    """(seconds, basis) of the expected build time: the last such build here, else a typical one."""
    last = store.load("timing", _key(config, device), _check_timing)
    if last is not None:
        return float(last["seconds"]), f"the last {config.profile} build on this {device} took that long"
    if config.profile == "full" and device == "cpu":
        low, high = full_on_cpu(config, store)
        return high, f"full on the CPU: {duration(low)} to {duration(high)}"
    if config.profile in TYPICAL_SECONDS:
        return TYPICAL_SECONDS[config.profile], "a typical cold build on 2 CPU cores"
    return None, ""


def full_on_cpu(config, store):
    """(low, high) seconds of a full build on the CPU: the standard build's time × 10 … 100."""
    from dataclasses import replace

    last = store.load("timing", _key(replace(config, profile="standard"), "cpu"), _check_timing)
    standard = float(last["seconds"]) if last else TYPICAL_SECONDS["standard"]
    return standard * FULL_FACTOR[0], standard * FULL_FACTOR[1]


def remember(config, device, store, seconds):
    """Keep this build's duration as the next estimate (a cache that refuses it is no error)."""
    store.store("timing", _key(config, device), {"seconds": round(seconds, 1)})
