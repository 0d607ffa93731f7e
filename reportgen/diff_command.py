"""`reportgen diff OLD NEW`: what changed between two results.json files.

Registered in cli.py with `main.add_command(diff)`. Exit status: 0 when no verdict
changed, 1 when one did, 2 on bad input (not JSON, or not shaped like results.json).
"""

import json
import math

import click

from reportgen import inputs, limits


class DiffInputError(click.ClickException):
    """A file that cannot be compared: one line on stderr, exit status 2."""

    exit_code = 2

    def format_message(self):
        from reportgen.text import not_a_command, printable

        return not_a_command(printable(" ".join(self.message.split())))  # always one line, plain


class _NotMeasurement(ValueError):
    """A JSON number no results.json holds: NaN, an infinity, a float that overflows, a huge integer."""


def _no_constant(name):
    raise _NotMeasurement(f"holds {name}")


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise _NotMeasurement(f"holds the number {text[:20]}, which overflows a float")
    return value


def _bounded_int(text):
    digits = len(text.lstrip("-"))
    if digits > limits.MAX_DIFF_DIGITS:
        raise _NotMeasurement(f"holds a {digits}-digit integer (the limit is {limits.MAX_DIFF_DIGITS} digits)")
    return int(text)


def _parse(path):
    """The JSON document at path, read through inputs (bounded, regular files only)."""
    data = inputs.read(path, limits.MAX_RESULTS_BYTES, way_out="give a results.json file")
    return json.loads(data.decode("utf-8"), parse_constant=_no_constant, parse_float=_finite_float,
                      parse_int=_bounded_int)


def _load(path):
    from reportgen.judging.drift import ResultsShapeError, validate

    try:
        doc = _parse(path)
    except inputs.InputRefused as exc:
        raise DiffInputError(str(exc)) from None
    except _NotMeasurement as exc:
        raise DiffInputError(f"{path}: {exc}, which no reportgen results.json does; give a results.json "
                             "written by reportgen build") from None
    except UnicodeDecodeError:
        raise DiffInputError(f"{path}: not JSON (not UTF-8 text)") from None
    except json.JSONDecodeError as exc:
        raise DiffInputError(f"{path}: not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise DiffInputError(f"{path}: nested too deeply to be a reportgen results.json") from None
    except OSError as exc:
        raise DiffInputError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        doc = _printable(doc)  # every text in it, as shown on a terminal or in a log: control bytes escaped
        validate(doc, str(path))
    except RecursionError:
        raise DiffInputError(f"{path}: nested too deeply to be a reportgen results.json") from None
    except ResultsShapeError as exc:
        raise DiffInputError(f"not a reportgen results.json: {exc}") from None
    return doc


def _printable(value):
    """The document with every string (keys too) made printable (reportgen.text.printable)."""
    from reportgen.text import printable

    if isinstance(value, dict):
        return {printable(k): _printable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_printable(v) for v in value]
    return printable(value)


@click.command(name="diff")
@click.argument("old", type=click.Path(exists=True, dir_okay=False))
@click.argument("new", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.pass_context
def diff(ctx, old, new, as_json):
    """Compare two results.json files: changed verdicts, numbers and provenance.

    Exit status 0 when no verdict changed, 1 when one did, 2 on bad input.
    """
    from reportgen.judging import drift

    from reportgen.text import printable

    before, after = _load(old), _load(new)
    old, new = printable(old), printable(new)
    try:
        result = drift.compare(before, after)
        if as_json:
            text = json.dumps({"old": old, "new": new, **drift.to_json(result)}, indent=1, ensure_ascii=False)
        else:
            from reportgen.terminal import console, drift_renderables

            out = console()
            shown = drift_renderables(result, out)  # the first line: whether a verdict changed
    except (TypeError, AttributeError, KeyError, ValueError, OverflowError, RecursionError) as exc:
        # validate checks the shape diff relies on; a value of a shape it missed is still bad input
        raise DiffInputError(f"{old} or {new} is not shaped like a reportgen results.json "
                             f"({type(exc).__name__}: {str(exc)[:80]}); compare two files reportgen build wrote") from None
    if as_json:
        click.echo(text)
    else:
        from reportgen.terminal import print_renderables

        print_renderables([*shown, f"compared: {old} -> {new}"], out)
    ctx.exit(drift.exit_code(result))
