"""Command line: parse options, load the config, call the core, turn errors into one line."""

import functools

import click

from reportgen import __version__
from reportgen.errors import ReportgenError


class CleanError(click.ClickException):
    """One line on stderr, no traceback, the error's own exit status."""

    def __init__(self, error):
        super().__init__(str(error))
        self.exit_code = error.exit_code

    def format_message(self):
        return self.message


def guarded(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except ReportgenError as error:
            raise CleanError(error) from None

    return wrapper


def selection_options(func):
    """Options shared by every command that runs experiments."""
    options = [
        click.option("--profile", type=str, help="quick (tests, CI smoke), standard (default) or full (10-100x larger, for a GPU)."),
        click.option("--device", type=str, help="auto (CUDA when present, else CPU), cpu or cuda."),
        click.option("--seed", type=int, help="Run seed (default 0); same seed, profile and device give the same numbers."),
        click.option("--config", "config_file", type=click.Path(exists=True, dir_okay=False),
                     help="TOML file with a [tool.reportgen] table (default: ./pyproject.toml)."),
        click.option("--no-cache", "no_cache", is_flag=True, default=None, help="Recompute every experiment (refreshes the cache)."),
        click.option("-q", "--quiet", is_flag=True, default=None, help="Only errors and the summary line."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def load_config(config_file, **flags):
    from reportgen import config
    from reportgen.experiments import EXPERIMENTS

    if flags.pop("no_cache", None):
        flags["cache"] = False
    return config.load(config_file, flags, EXPERIMENTS)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reportgen")
def main():
    """Measure what teaching documents claim about scaled dot-product attention."""


@main.command()
@selection_options
@click.option("--only", type=str, help="Comma-separated experiment names (see 'reportgen list').")
@click.option("--format", "format_", type=str, help="Comma-separated outputs: html, pdf (default both).")
@click.option("--output", type=str, help="Output folder (default output/).")
@click.option("--fail-fast", is_flag=True, default=None, help="Stop at the first failing experiment.")
@guarded
def build(config_file, format_, **flags):
    """Run the experiments and write report.html, report.pdf and results.json."""
    from reportgen.pipeline import build as run_build
    from reportgen.progress import Progress

    config = load_config(config_file, format=format_, **flags)
    summary, failed = run_build(config, Progress(config.quiet))
    click.echo(summary)
    if failed:
        raise click.exceptions.Exit(1)


@main.command(name="list")
def list_experiments():
    """Each experiment, what it measures and the document sections it covers."""
    from reportgen.experiments import describe

    for name, summary, covers in describe():
        click.echo(f"{name}\n  {summary}\n  covers: {'; '.join(str(s) for s in covers)}")


@main.command()
@click.argument("name")
@selection_options
@guarded
def run(name, config_file, **flags):
    """Run one experiment and print its tables in the terminal."""
    from reportgen.pipeline import run_all
    from reportgen.progress import Progress
    from reportgen.terminal import print_tables

    config = load_config(config_file, only=name, **flags)
    _, outcomes = run_all(config, Progress(config.quiet), draw=False)
    print_tables(outcomes)
    if any(o.error for o in outcomes):
        raise click.exceptions.Exit(1)
