"""Command line: parse options, load the config, call the core, turn errors into one line."""

import functools
import os

import click

from reportgen import __version__, settings, signals
from reportgen.diff_command import diff
from reportgen.errors import ConfigError, ReportgenError, Terminated
from reportgen.settings import CONFIG_HELP, SETTINGS, unknown


def _experiment_names():
    from reportgen.experiments import EXPERIMENTS  # the registry only: no torch, no matplotlib

    return tuple(EXPERIMENTS)


class Choice(click.Choice):
    """click.Choice whose error names the nearest choice ("did you mean …?")."""

    def __init__(self, choices, kind):
        super().__init__(choices)
        self.kind = kind

    def convert(self, value, param, ctx):
        if value in self.choices:
            return value
        self.fail(unknown(self.kind, value, tuple(self.choices)), param, ctx)


class NameList(click.ParamType):
    """A comma-separated list of names from a fixed set (given lazily): "a,b"."""

    name = "names"

    def __init__(self, choices, kind):
        self._choices = choices  # a tuple, or a function returning one (read when needed)
        self.kind = kind

    @property
    def choices(self):
        return tuple(self._choices() if callable(self._choices) else self._choices)

    def get_metavar(self, param, ctx):
        return "[" + "|".join(self.choices) + "],..."

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        names = tuple(dict.fromkeys(v.strip() for v in str(value).split(",") if v.strip()))
        if not names:
            self.fail(f"expected at least one {self.kind}: {', '.join(self.choices)}", param, ctx)
        for name in names:
            if name not in self.choices:
                self.fail(unknown(self.kind, name, self.choices), param, ctx)
        return names

    def shell_complete(self, ctx, param, incomplete):
        done, _, last = incomplete.rpartition(",")
        prefix = f"{done}," if done else ""
        taken = set(done.split(","))
        return [click.shell_completion.CompletionItem(prefix + c) for c in self.choices
                if c.startswith(last) and c not in taken]


class LazyChoice(Choice):
    """A Choice whose choices (the registered experiments) are read only when needed."""

    def __init__(self, choices, kind):
        self._source = choices
        self.kind = kind
        self.case_sensitive = True

    @property
    def choices(self):
        return self._source()

    @choices.setter
    def choices(self, value):  # click.Choice.__init__ assigns it; never called here
        self._source = lambda: tuple(value)


class OneLineUsage(click.Group):
    """Usage errors of a subcommand as one line, like every other error of reportgen."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            if exc.ctx is None:
                raise
            where = exc.ctx.command_path
            from reportgen.text import printable_lines

            one = click.UsageError(printable_lines(f"{exc.format_message()} (see '{where} --help')"))
            one.exit_code = exc.exit_code
            raise one from None


class CleanError(click.ClickException):
    """One line on stderr, no traceback, the error's own exit status."""

    def __init__(self, error):
        super().__init__(str(error))
        self.exit_code = error.exit_code

    def format_message(self):
        from reportgen.text import printable_lines

        return printable_lines(self.message)  # a value quoted in it moves no cursor, starts no command


def guarded(func):
    """Our errors as one clean line; Ctrl-C (130) and SIGTERM (143) stop cleanly, files intact."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with signals.installed():
            return _cleanly(func, *args, **kwargs)

    return wrapper


def _cleanly(func, *args, **kwargs):
    """Call `func`, our errors and the signals it took turned into one line and an exit status."""
    try:
        result = func(*args, **kwargs)
        signals.raise_if_taken()  # one swallowed on the way (a command that publishes nothing)
        return result
    except ReportgenError as error:
        raise CleanError(error) from None
    except KeyboardInterrupt:
        click.echo("interrupted: files written before the interrupt are as they were", err=True)
        raise click.exceptions.Exit(130) from None
    except Terminated:
        click.echo("terminated: files written before the signal are as they were", err=True)
        raise click.exceptions.Exit(143) from None
    except BrokenPipeError:  # `reportgen check | head`: the reader has gone, say nothing
        raise click.exceptions.Exit(1) from None
    except OSError as exc:  # last resort: a folder deleted under us, a full terminal log
        where = f" ({exc.filename})" if exc.filename else ""
        raise CleanError(ReportgenError(f"{exc.strerror or exc}{where}; check that this folder exists "
                                        "and has space, then run again")) from None


def _click_type(setting):
    """The Click type of a setting's flag: its choices or range, checked as the config file's are."""
    check = setting.check
    if isinstance(check, settings.OneOf):
        return Choice(check.choices, check.kind)
    if isinstance(check, settings.Names):
        return NameList(check.choices or _experiment_names, check.kind)
    if isinstance(check, settings.Integer):
        return click.IntRange(check.lo, check.hi)
    return click.Path(file_okay=False)


def _option(setting):
    if isinstance(setting.check, settings.Flag):
        name = f"no_{setting.name}" if setting.negated else setting.name
        return click.option(*setting.flag, name, is_flag=True, default=None, help=settings.help_text(setting))
    return click.option(*setting.flag, setting.name, type=_click_type(setting), help=settings.help_text(setting))


def setting_options(command):
    """The options of `command`: --config and the flag of every setting it takes."""

    def decorate(func):
        options = [_option(s) for s in SETTINGS if s.flag and command in s.commands]
        options.append(click.option("--config", "config_file", type=click.Path(exists=True, dir_okay=False),
                                    help=CONFIG_HELP))
        for option in reversed(options):
            func = option(func)
        return func

    return decorate


def load_config(config_file, **flags):
    from reportgen import config
    from reportgen.experiments import EXPERIMENTS

    for setting in SETTINGS:
        if setting.negated and flags.pop(f"no_{setting.name}", None):
            flags[setting.name] = False
    return config.load(config_file, flags, EXPERIMENTS)


@click.group(cls=OneLineUsage, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reportgen")
@click.pass_context
def main(ctx):
    """Measure what teaching documents claim about scaled dot-product attention."""
    if os.environ.get("NO_COLOR"):  # https://no-color.org: any non-empty value
        ctx.color = False


@main.command()
@setting_options("build")
@guarded
def build(config_file, **flags):
    """Run the experiments and write report.html, report.pdf, report-handout.pdf and results.json."""
    from reportgen.pipeline import build as run_build
    from reportgen.progress import Progress

    config = load_config(config_file, **flags)
    summary, failed = run_build(config, Progress(config.quiet))
    click.echo(summary)
    if failed:
        raise click.exceptions.Exit(1)


@main.command(name="list")
@click.option("--measures", is_flag=True, help="Every measure a claim can name: its arguments, grid and tables.")
@click.option("--profile", type=click.Choice(("quick", "standard", "full")), default="standard", show_default=True,
              help="The profile whose grid --measures prints.")
def list_experiments(measures, profile):
    """Each experiment, what it measures and the document sections it covers."""
    from reportgen.terminal import print_experiments, print_measures

    print_measures(profile) if measures else print_experiments()


@main.command()
@click.argument("folder", type=click.Path(file_okay=False), default=".")
@guarded
def init(folder):
    """Start a course repository in FOLDER: a config, a note, its claims and a workflow."""
    from reportgen import scaffold

    for name in scaffold.init(folder):
        click.echo(f"wrote {name}")
    click.echo("next: reportgen check --profile quick, then reportgen check --record, then reportgen build")


@main.command()
@click.argument("name", type=LazyChoice(_experiment_names, "experiment"), metavar="NAME")
@setting_options("run")
@guarded
def run(name, config_file, **flags):
    """Run one experiment and print its tables in the terminal."""
    from reportgen.pipeline import run_all
    from reportgen.progress import Progress
    from reportgen.terminal import print_tables

    from reportgen.experiments import EXPERIMENTS
    from reportgen.judging.vocabulary import catalog

    config = load_config(config_file, only=name, **flags)
    _, sections = run_all(config, Progress(config.quiet), catalog(config.claims or None), EXPERIMENTS)
    print_tables(sections)
    if any(s.error for s in sections):
        raise click.exceptions.Exit(1)


@main.command()
@setting_options("check")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON instead of a table.")
@click.option("--seeds", type=click.IntRange(1, 100), default=1, show_default=True,
              help="Repeat the run under this many consecutive seeds; verdicts that flip are 'unstable'.")
@click.option("--all", "every", is_flag=True, help="Print every check, not only those whose verdict changed.")
@click.option("--record", is_flag=True, help="Write this run's verdicts as the expected ones into the claims files "
              "(the `claims` folder's, else reportgen's own) and say what changed.")
@guarded
def check(config_file, as_json, seeds, every, record, **flags):
    """Run the claim checks (no rendering) and compare each verdict with the expected one.

    Exit 0 when every verdict equals the one recorded as expected, 1 when any changed
    or is missing, so a nightly run catches a library or code change that flips a result.
    """
    import json

    from reportgen import factcheck
    from reportgen.device import resolve_device
    from reportgen.progress import Progress
    from reportgen.terminal import print_check

    config = load_config(config_file, **flags)
    device = resolve_device(config.device)
    if record and device != factcheck.RECORDED_ON:
        raise ConfigError(f"--record: the expected verdicts are the {factcheck.RECORDED_ON}'s (this run is on "
                          f"{device}); record them with --device {factcheck.RECORDED_ON}")
    if record:  # a claims file --record cannot rewrite is refused before the run, not after it
        from reportgen.claims import expected

        expected.rewritable(config.profile, config.claims or None)
    rows, failed = factcheck.compare(config, Progress(config.quiet or as_json), seeds)
    if record:
        written = factcheck.record(rows, config.profile, config.claims or None)
        for name, claim, before, now in written:
            click.echo(f"{name}: {claim}: expected {before or '(none)'} -> {now}")
        click.echo(f"recorded the verdicts of {len(rows)} checks for profile {config.profile}: "
                   f"{len(written)} expectations written in {config.claims or 'reportgen/claims'}/")
        return
    note = factcheck.device_note(device, rows)
    if as_json:
        payload = {"rows": [r.to_json() for r in rows], "failed": failed, "profile": config.profile,
                   "seeds": [config.seed + i for i in range(seeds)], "device": device,
                   "expected_recorded_on": factcheck.RECORDED_ON}
        click.echo(json.dumps(payload, indent=1, ensure_ascii=False))
    else:
        print_check(rows, failed, every)
    if note:
        click.echo(note, err=True)
    raise click.exceptions.Exit(factcheck.exit_status(rows, failed))


def _setting_names():
    return tuple(s.name for s in SETTINGS)


@main.command(name="config")
@click.option("--config", "config_file", type=click.Path(exists=True, dir_okay=False), help=CONFIG_HELP)
@click.option("--get", "key", type=LazyChoice(_setting_names, "setting"),
              help="Print this one setting's value alone (lists comma-separated), e.g. --get output.")
@guarded
def show_config(config_file, key):
    """Print the settings a build here would use: defaults < config file.

    A workflow reads the configured folders with it (`reportgen config --get output`).
    """
    import json
    import shutil
    from dataclasses import asdict

    settings = asdict(load_config(config_file))
    if key:
        value = settings[key]
        click.echo(",".join(value) if isinstance(value, (list, tuple)) else str(value).lower()
                   if isinstance(value, bool) else value)
        return
    width = shutil.get_terminal_size().columns
    for name, value in settings.items():
        value = list(value) if isinstance(value, tuple) else value
        line = f"{name} = {json.dumps(value, ensure_ascii=False)}"
        if isinstance(value, list) and value and len(line) > width:  # a TOML array, one item a line
            line = f"{name} = [\n" + "".join(f"    {json.dumps(v, ensure_ascii=False)},\n" for v in value) + "]"
        click.echo(line)


main.add_command(diff)


def command():
    """The `reportgen` command: main(), then out of the process at once.

    A build leaves this process full of torch, Matplotlib and WeasyPrint objects, and the
    interpreter's tidy exit frees them one by one: 0.7 s after a cold quick build, for memory
    the system takes back at once anyway. By the time main() returns, every file reportgen
    writes is closed and in place (written atomically) and its workers are ended; what is left
    is run here: the libraries' exit handlers (Matplotlib removes the temporary config folder it
    makes where its own is not writable), logging's, and the standard streams' flush.
    """
    import atexit
    import logging
    import sys

    try:
        main()
        code = 0
    except SystemExit as exit:
        code = exit.code
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)  # what sys.exit("message") does
        code = 1
    atexit._run_exitfuncs()  # noqa: SLF001 (what a normal exit runs first; os._exit runs none)
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away (`reportgen … | head`), a closed stream
            pass
    os._exit(code)
