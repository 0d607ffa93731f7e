"""Terminal progress: a bar for long loops on a TTY, plain lines otherwise."""

import sys
import time

import click


class Progress:
    """Reports stages and loops to stderr; silent when quiet."""

    def __init__(self, quiet=False, stream=None):
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()

    def echo(self, message):
        if not self.quiet:
            click.echo(message, file=self.stream)

    def warn(self, message):
        """One line that something degraded (the build goes on); shown even when quiet."""
        click.echo(f"warning: {message}", file=self.stream)

    def __call__(self, items, label):
        """Iterate over items, showing a bar on a TTY and one line per loop otherwise."""
        items = list(items)
        if self.quiet:
            yield from items
            return
        if self.tty:
            with click.progressbar(items, label=f"  {label}", file=self.stream) as bar:
                yield from bar
            return
        start = time.perf_counter()
        yield from items
        self.echo(f"  {label}: {len(items)} steps in {time.perf_counter() - start:.1f} s")
