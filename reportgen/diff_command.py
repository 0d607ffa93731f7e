"""`reportgen diff OLD NEW`: what changed between two results.json files, as JSON or as
lines and tables for the terminal.

Registered in cli.py with `main.add_command(diff)`. Exit status: 0 when no verdict
changed, 1 when one did, 2 on bad input (not JSON, or not shaped like results.json).
"""

import json
import math

import click

from reportgen import inputs, limits
from reportgen.text import not_a_command, printable


class DiffInputError(click.ClickException):
    """A file that cannot be compared: one line on stderr, exit status 2."""

    exit_code = 2

    def format_message(self):
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

    before, after = _load(old), _load(new)
    old, new = printable(old), printable(new)
    try:
        result = drift.compare(before, after)
        if as_json:
            text = json.dumps({"old": old, "new": new, **drift.to_json(result)}, indent=1, ensure_ascii=False)
        else:
            from reportgen.terminal import console

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


# --- the drift as lines and tables for the terminal --------------------------------------


def _value(x):
    """A provenance or results value as plain text: numbers to 6 digits, absent as a dash."""
    if x is None:
        return "—"
    if isinstance(x, float):
        return f"{x:.6g}"
    if isinstance(x, (list, dict)):
        return json.dumps(x, ensure_ascii=False)
    return str(x)


def _limited(items, limit):
    """The first `limit` items, and a line saying how many more the JSON has."""
    more = len(items) - limit
    return items[:limit], ([f"… and {more} more (see --json)"] if more > 0 else [])


def drift_renderables(drift, out):
    """`reportgen diff` as rich renderables for the console `out`; the first is the line
    saying whether a verdict changed."""
    from reportgen.judging.drift import QUOTE_WORDS, TEXT_LIMIT
    from reportgen.terminal import COLOURS, fitted, verdict_text

    n = len(drift.verdict_changes)
    first = f"{n} verdict(s) changed" if n else "no verdict changed"
    if drift.quote_changes:
        first += f"; {len(drift.quote_changes)} quote(s) no longer in their documents"
    parts = [first,
             f"claims: {drift.checks_compared} matched, {len(drift.checks_added)} added, "
             f"{len(drift.checks_removed)} removed, measured value changed in {drift.measured_changed}"]

    def table(title, header, items, row):
        shown, more = _limited(items, TEXT_LIMIT)
        parts.append(fitted(out, title, header, [row(x) for x in shown]))
        parts.extend(more)

    old, new = drift.verdict_totals.get("old") or {}, drift.verdict_totals.get("new") or {}
    if old != new:
        verdicts = [v for v in COLOURS if v in old or v in new] + sorted((old.keys() | new.keys()) - COLOURS.keys())
        table("verdict totals", ("verdict", "old", "new"), verdicts,
              lambda v: (verdict_text(v), _value(old.get(v)), _value(new.get(v))))
    if drift.verdict_changes:
        table("verdict changes", ("claim", "statement", "verdict", "measured"), drift.verdict_changes,
              lambda c: (c.id, c.label, f"{c.old} -> {c.new}", f"{c.old_measured or '—'} -> {c.new_measured or '—'}"))
    if drift.quote_changes:
        table("quotes that left their documents (update or remove these claims)", ("claim", "statement", "now"),
              drift.quote_changes, lambda q: (q.id, q.label, QUOTE_WORDS[q.new]))
    if drift.checks_added:
        table("claims added", ("claim", "statement", "verdict"), drift.checks_added,
              lambda c: (c.id, c.label, verdict_text(c.verdict)))
    if drift.checks_removed:
        table("claims removed (a verdict went missing)", ("claim", "statement", "was"), drift.checks_removed,
              lambda c: (c.id, c.label, verdict_text(c.verdict)))
    changes = ([(name, "added") for name in drift.experiments_added]
               + [(name, "removed") for name in drift.experiments_removed]
               + [(name, f"status {a} -> {b}") for name, a, b in drift.status_changes]
               + [(name, f"NaN/inf paths {len(a)} -> {len(b)}") for name, a, b in drift.nonfinite_changes])
    if changes:
        table("experiments", ("experiment", "change"), changes, lambda c: c)

    parts.append(f"moved beyond their intervals: {len(drift.beyond_ci)} of {drift.intervals_compared} "
                 "measured values with an interval")
    if drift.beyond_ci:
        def moved(m):
            which = " and ".join(s for s, flag in (("new outside old CI", m.new_outside_old),
                                                   ("old outside new CI", m.old_outside_new)) if flag)
            return (m.id, m.label, f"{_value(m.old)} [{_value(m.old_interval[0])}, {_value(m.old_interval[1])}]",
                    f"{_value(m.new)} [{_value(m.new_interval[0])}, {_value(m.new_interval[1])}]", which)
        table(None, ("claim", "statement", "old [interval]", "new [interval]", "which"), drift.beyond_ci, moved)

    parts.append(f"results numbers: {drift.leaves_changed} of {drift.leaves_compared} changed (relative change > "
                 f"{drift.rel_tol:g}), {len(drift.leaves_added)} added, {len(drift.leaves_removed)} removed")
    if drift.largest:
        table("largest relative changes", ("experiment", "path", "old", "new", "relative change"), drift.largest,
              lambda c: (c.experiment, c.path, _value(c.old), _value(c.new),
                         "non-finite / type change" if math.isinf(c.rel) else f"{c.rel:.3g}"))
    if drift.provenance:
        table("provenance differences (they may explain the drift)", ("key", "old", "new"), drift.provenance,
              lambda p: (p[0], _value(p[1]), _value(p[2])))
    else:
        parts.append("provenance: identical")
    return parts
