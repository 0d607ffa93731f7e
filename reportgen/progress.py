"""Terminal progress: every stage announced with its estimate, every line stamped with the clock.

On a terminal the lines go through rich: colour (never under NO_COLOR, https://no-color.org),
a bar for long loops, lines wrapped at the terminal's width, and a heartbeat with the time
left after HEARTBEAT_TTY seconds of silence. Elsewhere (a pipe, a CI log) they are plain
lines, each stamped, one per event, with a heartbeat at most every HEARTBEAT_LOG seconds.
"""

import contextlib
import os
import sys
import textwrap
import threading
import time
from dataclasses import dataclass

import click

from reportgen.terminal import console
from reportgen.text import printable_lines
from reportgen.timing import about, duration

# The longest silence on a terminal: past a few seconds people take a quiet program for a hung one.
HEARTBEAT_TTY = 5.0
# A CI log is read afterwards: one line per 10 s of a long stage says it was alive without burying the rest.
HEARTBEAT_LOG = 10.0
TICK = 0.5  # how often the heartbeat looks at the clock


def color_allowed(stream):
    """Colour for this stream: a TTY, and NO_COLOR unset or empty."""
    return not os.environ.get("NO_COLOR") and stream.isatty()


def _folded(line):
    """A plain line as it is, or folded at word boundaries when COLUMNS sets a width (the
    continuation indented), so a log asked for 80 columns gets none wider."""
    try:
        width = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return [line]
    if width < 20 or len(line) <= width:
        return [line]
    return textwrap.wrap(line, width, subsequent_indent="    ", break_long_words=False, break_on_hyphens=False)


def memory_in_use():
    """What this process holds now, in a few words: on CUDA (once torch has used it) the device memory
    allocated, its peak and the card's size; otherwise the process's resident memory, said to be the CPU's."""
    torch = sys.modules.get("torch")  # never imported here: a build that has not loaded torch has no device
    try:
        if torch is not None and torch.cuda.is_initialized():
            total = torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory
            return (f"GPU memory {torch.cuda.memory_allocated() / 2**30:.1f} GiB in use, peak "
                    f"{torch.cuda.max_memory_allocated() / 2**30:.1f} of {total / 2**30:.0f} GiB")
    except Exception:  # noqa: BLE001 (a driver fault is no reason to stop a progress line)
        pass
    try:
        with open("/proc/self/statm") as handle:
            resident = int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        import resource

        resident = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # the peak, where /proc is not
    return f"CPU memory {resident / 2**30:.1f} GiB resident"


def job_name(key):
    """A job's key as the heartbeat says it: ("run", "lm") is "lm", ("figures", "lm") "lm's figures"."""
    kind, name = (key[0], key[1]) if isinstance(key, tuple) and len(key) > 1 else (key, "")
    return {"run": name, "figures": f"{name}'s figures", "pages": f"the {name} pages" if name == "screen" else str(name),
            "pdf": "a PDF", "warm": "readying for the PDFs"}.get(kind, f"{kind} {name}".strip())


@dataclass
class Loop:
    """A loop in progress: how many of its items are done, the time left at its rate so far."""

    label: str
    total: int
    started: float
    done: int = 0

    def line(self, now):
        spent = now - self.started
        left = f"{about(spent / self.done * (self.total - self.done))} left" if self.done else "no estimate yet"
        return f"{self.label}: {self.done} of {self.total} done, {left}; {memory_in_use()}"


@dataclass
class Stage:
    """A stage in progress: what the heartbeat says of it."""

    name: str
    started: float
    expected: float | None = None  # seconds
    detail: str = ""  # set by whoever runs the stage: "3 of 7 done; to go: lm"
    first: float | None = None  # the estimate it started with, once it has been revised

    def beat(self, now):
        """The heartbeat line: how long it has run and how long it has left. A stage past its
        estimate gets a new one, a quarter more than it has run (at least 5 s more), so the
        line says something new each time instead of repeating the first guess."""
        spent = now - self.started
        if self.expected is None:
            left = "no estimate yet"
        elif spent < self.expected:
            left = f"{about(self.expected - spent)} left"
            if self.first is not None:
                left += f" (revised; first expected {duration(self.first)})"
        else:
            self.first = self.first if self.first is not None else self.expected
            self.expected = max(1.25 * spent, spent + 5)
            left = f"over the {duration(self.first)} first expected; now {about(self.expected - spent)} left"
        return f"{self.name}: {self.detail + '; ' if self.detail else ''}{spent:.0f} s in, {left}"


class Progress:
    """Reports stages and loops to stderr; silent when quiet (warnings still show)."""

    def __init__(self, quiet=False, stream=None, heartbeat=None):
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.color = color_allowed(self.stream)
        self.started = time.perf_counter()
        self.estimate = None  # seconds the whole build is expected to take
        self.estimates = None  # timing.Estimates of this build's stages, once known
        self.kind = "cold"  # of this build: "cold" when an experiment runs, else "cached"
        self.durations = {}  # {stage: (kind, seconds)} measured in this build
        self.interval = heartbeat or (HEARTBEAT_TTY if self.tty else HEARTBEAT_LOG)
        self._lock = threading.RLock()  # the heartbeat writes from its own thread
        self._open = []  # Stage, innermost last
        self._loops = []  # Loop, innermost last: the heartbeat says how far the innermost is
        self._jobs = {}  # {key: where} of the build's jobs running now (reportgen.jobs): the heartbeat names them
        self._last = time.perf_counter()  # when the last line was written
        self._console = None

    def elapsed(self):
        return time.perf_counter() - self.started

    def _stamp(self):
        now = self.elapsed()
        if self.estimate and now <= self.estimate:
            return f"[{now:5.1f} s of {about(self.estimate)}]"
        if self.estimate:
            return f"[{now:5.1f} s; expected {about(self.estimate)}]"
        return f"[{now:5.1f} s]"

    def console(self):
        """The rich console on this terminal (imported only when there is one)."""
        if self._console is None:
            self._console = console(self.stream, color=self.color)
        return self._console

    def _write(self, text, style=None, label=""):
        text = printable_lines(text)  # a library's log line or a cache's text: no control bytes, no command
        with self._lock:
            self._last = time.perf_counter()
            if self.tty:
                from rich.text import Text

                self.console().print(Text.assemble((label, style or ""), text), overflow="fold")
            else:
                for line in _folded(label + text):
                    click.echo(line, file=self.stream, color=False)

    def echo(self, message):
        if not self.quiet:
            self._write(f"{self._stamp()} {message}")

    def warn(self, message):
        """One line that something degraded (the build goes on); shown even when quiet."""
        self._write(message, "bold yellow", "warning: ")

    def plan(self, seconds, basis):
        """Announce the whole build's expected duration; later lines show it beside the clock."""
        self.estimate = seconds
        self.echo(f"expected time: {about(seconds)} ({basis})")

    def expected(self, name, kind=None):
        """Seconds stage `name` should take, or None before the build's estimates are known."""
        return self.estimates.of(name, kind or self.kind)[0] if self.estimates else None

    @contextlib.contextmanager
    def stage(self, name, what="", kind=None, expected=None):
        """A timed stage: a line when it starts (with its estimate), a heartbeat while it runs,
        a line when it ends; its time is kept under `kind` (default: the build's)."""
        kind = kind or self.kind
        expected = expected if expected is not None else self.expected(name, kind)
        guess = f" ({about(expected)})" if expected is not None else ""
        self.echo(f"{name}: {what or 'started'}{guess}")
        stage = Stage(name, time.perf_counter(), expected)
        with self._heartbeat(stage):
            yield stage
        seconds = time.perf_counter() - stage.started
        self.durations[name] = (kind, seconds)
        self.echo(f"{name}: done in {seconds:.1f} s")

    @contextlib.contextmanager
    def _heartbeat(self, stage):
        """While the stage runs, a line after each `interval` seconds without one."""
        with self._lock:
            self._open.append(stage)
            outermost = len(self._open) == 1
        stop = threading.Event()
        beat = None
        if outermost and not self.quiet:
            beat = threading.Thread(target=self._beat, args=(stop,), name="heartbeat", daemon=True)
            beat.start()
        try:
            yield
        finally:
            with self._lock:
                self._open.remove(stage)
            if beat is not None:
                stop.set()
                beat.join()

    def _beat(self, stop):
        while not stop.wait(TICK):
            with self._lock:
                now = time.perf_counter()
                if self._open and now - self._last >= self.interval:
                    stage = self._open[-1]
                    before = stage.expected
                    line = stage.beat(now)
                    if self._loops:
                        line += f"; {self._loops[-1].line(now)}"
                    if self._jobs:
                        line += "; running: " + ", ".join(f"{job_name(key)} ({where})" for key, where in self._jobs.items())
                    if self.estimate and before is not None and stage.expected != before:
                        self.estimate += stage.expected - before  # the build's total, revised with it
                    self._write(f"{self._stamp()} {line}")

    def job(self, event):
        """A job of the build's graph started or ended (a reportgen.jobs.Event, from any thread);
        a family's figures drawn keep their time, "figures:<family>", as the next estimate."""
        with self._lock:
            if event.what == "started":
                self._jobs[event.job.key] = event.where
                return
            self._jobs.pop(event.job.key, None)
            kind, name = event.job.key if isinstance(event.job.key, tuple) and len(event.job.key) == 2 else (None, None)
            if kind == "figures" and event.seconds is not None:
                self.durations[f"figures:{name}"] = ("cold", event.seconds)

    def __call__(self, items, label):
        """Iterate over items, showing a bar on a TTY and one line per loop otherwise; the heartbeat says
        how many are done, the time left and the memory in use."""
        items = list(items)
        if self.quiet:
            yield from items
            return
        start = time.perf_counter()
        loop = Loop(label, len(items), start)
        with self._lock:
            self._loops.append(loop)
        try:
            for item in self._bar(items, label) if self.tty else items:
                yield item
                loop.done += 1
        finally:
            with self._lock:
                self._loops.remove(loop)
        self.echo(f"  {label}: {len(items)} steps in {time.perf_counter() - start:.1f} s")

    def _bar(self, items, label):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, TimeRemainingColumn

        columns = (TextColumn(f"  {label}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                   TextColumn("{task.fields[memory]}"))
        with Bar(*columns, console=self.console(), transient=True, refresh_per_second=2) as bar:
            task = bar.add_task(label, total=len(items), memory=memory_in_use())
            for item in items:
                yield item
                bar.update(task, advance=1, memory=memory_in_use())
