"""`reportgen diff OLD NEW`: what changed between two results.json files.

Registered in cli.py with `main.add_command(diff)`. Exit status: 0 when no verdict
changed, 1 when one did, 2 on bad input (not JSON, or not shaped like results.json).
"""

import json

import click


class DiffInputError(click.ClickException):
    """A file that cannot be compared: one line on stderr, exit status 2."""

    exit_code = 2

    def format_message(self):
        return " ".join(self.message.split())  # always one line


def _load(path):
    from reportgen.drift import ResultsShapeError, validate

    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except UnicodeDecodeError:
        raise DiffInputError(f"{path}: not JSON (not UTF-8 text)") from None
    except json.JSONDecodeError as exc:
        raise DiffInputError(f"{path}: not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise DiffInputError(f"{path}: nested too deeply to be a reportgen results.json") from None
    except OSError as exc:
        raise DiffInputError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        validate(doc, str(path))
    except RecursionError:
        raise DiffInputError(f"{path}: nested too deeply to be a reportgen results.json") from None
    except ResultsShapeError as exc:
        raise DiffInputError(f"not a reportgen results.json: {exc}") from None
    return doc


@click.command(name="diff")
@click.argument("old", type=click.Path(exists=True, dir_okay=False))
@click.argument("new", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.pass_context
def diff(ctx, old, new, as_json):
    """Compare two results.json files: changed verdicts, numbers and provenance.

    Exit status 0 when no verdict changed, 1 when one did, 2 on bad input.
    """
    from reportgen import drift

    result = drift.compare(_load(old), _load(new))
    if as_json:
        click.echo(json.dumps({"old": old, "new": new, **drift.to_json(result)}, indent=1, ensure_ascii=False))
    else:
        click.echo(drift.format_text(result))  # its first line: whether a verdict changed
        click.echo(f"compared: {old} -> {new}")
    ctx.exit(drift.exit_code(result))
