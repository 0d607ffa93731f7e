"""Tables for the terminal through rich: as wide as the terminal (COLUMNS), never wider.

Colour only on a terminal (or where Click's colour is forced) and never under NO_COLOR;
piped, the output holds no control sequence at all. rich is imported here, and this
module only inside the commands that print, so `reportgen --help` stays instant.
"""

import inspect
import os
import sys
import textwrap

import click

from reportgen.claims.checks import arguments
from reportgen.experiments import EXPERIMENTS, describe
from reportgen.judging.documents import STATES, UNMATCHED
from reportgen.render.wording import words
from reportgen.text import not_a_command, printable

COLOURS = {"confirmed": "green", "partly": "cyan", "contradicted": "red", "inconclusive": "magenta",
           "unverifiable": "yellow"}
SHORT = 16  # characters: a column whose cells are all this short never wraps (numbers, verdicts)
MARKS = {"same": " ", "CHANGED": "!", "NEW": "+", "MISSING": "-", "STALE": "?", "FIXED": "*"}


def _colour_wanted(stream):
    """Colour for this stream: NO_COLOR unset, and a terminal or Click's colour forced on."""
    if os.environ.get("NO_COLOR"):
        return False
    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.color is not None:
        return ctx.color
    return stream.isatty()


def console(stream=None, color=None, width=None):
    """A rich Console on `stream` (stdout by default) that honours NO_COLOR and pipes; as wide
    as `width`, else COLUMNS, else the terminal (80 columns when there is none)."""
    from rich.console import Console

    stream = stream or sys.stdout
    color = _colour_wanted(stream) if color is None else color
    stream = Lines(stream)
    # force_terminal=False overrides FORCE_COLOR and TTY_COMPATIBLE: piped output stays plain.
    return Console(file=stream, color_system="auto" if color else None, force_terminal=color or stream.isatty(),
                   no_color=not color, highlight=False, markup=False, emoji=False, width=width)


class Lines:
    """A stream that passes whole lines on, none of which a CI log reads as a workflow command
    (a table cell folded so that data begins a line: reportgen.text.not_a_command)."""

    def __init__(self, stream):
        self._stream, self._partial = stream, ""

    def write(self, data):
        *lines, self._partial = (self._partial + data).split("\n")
        if lines:
            self._stream.write("".join(not_a_command(line) + "\n" for line in lines))
        return len(data)

    def flush(self):
        if self._partial:
            self._stream.write(not_a_command(self._partial))
            self._partial = ""
        self._stream.flush()

    def __getattr__(self, name):  # isatty, fileno, encoding: the stream's own
        return getattr(self._stream, name)


def verdict_text(text, severity=""):
    """A verdict in its colour, with its severity after it."""
    from rich.text import Text

    out = Text(text, style=COLOURS.get(text, ""))
    return out.append(f" ({severity})") if severity else out


def _cells(rows):
    from rich.text import Text

    return [[x if isinstance(x, Text) else Text(printable(str(x))) for x in row] for row in rows]


def _short(column):
    """Whether a column's cells are all short enough to stay on one line (numbers, verdicts)."""
    return all(len(cell) <= SHORT for cell in column)


def _table(title, header, cells, width=None):
    """A rich Table: headed, no outer frame, cells wrapped at word boundaries; with `width`, each
    column given its own width: its longest word at least, the room left shared by need."""
    from rich import box
    from rich.table import Table

    table = Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD,
                  show_edge=False, pad_edge=False, expand=False)
    widths = _widths(header, cells, width) if width else [None] * len(header)
    for i, name in enumerate(header):
        # Short columns stay on one line; the long ones wrap in the room left.
        table.add_column(name, overflow="fold", no_wrap=_short([row[i].plain for row in cells]), width=widths[i])
    for row in cells:
        table.add_row(*row)
    return table


GAP = 3  # between two columns: a space of padding either side of the (blank) column rule


def _bounds(header, cells):
    """(narrowest, widest) readable width of each column: a short column whole; another from
    its longest word (never broken) to its longest cell."""
    out = []
    for i, name in enumerate(header):
        column = [name, *(row[i].plain for row in cells)]
        widest = max(len(c) for c in column)
        out.append((widest, widest) if _short(column[1:]) else
                   (max(len(w) for c in column for w in c.split() or [""]), widest))
    return out


def _widths(header, cells, width):
    bounds = _bounds(header, cells)
    room = width - GAP * (len(header) - 1) - sum(lo for lo, _ in bounds)
    want = sum(hi - lo for lo, hi in bounds)
    if want <= room:
        return [hi for _, hi in bounds]
    return [lo + (hi - lo) * room // want for lo, hi in bounds]


def _narrowest(header, cells):
    """The table's narrowest readable width: short columns whole, the others down to their
    longest word (a word is never broken: a table that cannot hold it becomes cards)."""
    return GAP * (len(header) - 1) + sum(lo for lo, _ in _bounds(header, cells))


def fitted(out, title, header, rows):
    """A table when its columns fit the terminal readably, else one card per row (as the HTML
    report does on a phone): a table squeezed further folds numbers mid-digit."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    cells = _cells(rows)
    if _narrowest(header, cells) <= out.width:
        return _table(title, header, cells, out.width)
    cards = [Text(title, style="bold")] if title else []
    for row in cells:
        card = Table.grid(padding=(0, 1))
        card.add_column(style="dim", overflow="fold")
        card.add_column(overflow="fold")
        for name, value in zip(header, row):
            if value.plain.strip():
                card.add_row(Text(name or "·"), value)
        cards += [card, Text("")]
    return Group(*cards)


def report_table(table):
    """One report table (the tolerance column stays in the report)."""
    if isinstance(table, tuple):  # a claims table and its verdicts
        table, judged = table
        header = ("quantity", "source", "documented", "measured", "verdict")
        rows = [(j.claim.label, f"{j.claim.doc} §{j.claim.section}", j.documented, words(j).measured,
                 verdict_text(j.verdict)) for j in judged]
    else:
        from reportgen.render.cells import texts

        header, rows = texts([table.columns])[0], texts(table.rows)
    return table.title, header, rows


def _wrapped(width):
    """A print function of lines folded at word boundaries to `width`, continued indented."""
    def say(text, indent=0, more=4):
        click.echo(textwrap.fill(text, width, initial_indent=" " * indent, subsequent_indent=" " * (indent + more),
                                 break_long_words=False, break_on_hyphens=False))
    return say


def print_experiments():
    """`reportgen list`: each experiment, what it measures and the sections it covers, wrapped."""
    say = _wrapped(console().width)
    for name, summary_, covers in describe():
        say(name)
        say(summary_, 2)
        say(f"covers: {'; '.join(str(s) for s in covers)}", 2)


def print_measures(profile):
    """`reportgen list --measures`: every measure a claim can name, from the declarations the
    build checks claims against: its arguments (with defaults), the grid of an argument that
    has one (on `profile`), what it returns, and the claims tables of its family."""
    say = _wrapped(console().width)
    for experiment in EXPERIMENTS.values():
        measures = experiment.measures()
        params = experiment.params[profile]
        say(f"{experiment.name}: {experiment.title}")
        say(f"claims tables: {', '.join(experiment.claim_tables)}", 2)
        say(f"for a course's documents: {', '.join(experiment.tables_for(())) or 'none'}", 2)
        for name, measure in measures.items():
            required, optional, _ = arguments(measure)
            defaults = _defaults(measure)
            shown = list(required) + [f"{a}={defaults[a]!r}" for a in optional]
            say(f"{experiment.name}.{name}({', '.join(shown)})", 2)
            doc = " ".join((measure.__doc__ or "").strip().split("\n\n")[0].split())
            if doc:
                say(doc, 6, 0)
            for (owner, argument), grid in measures.grids.items():
                if owner == name:
                    say(f"{argument} in ({profile}): {', '.join(str(v) for v in grid(params))}", 6, 2)


def _defaults(measure):
    return {p.name: p.default for p in inspect.signature(measure).parameters.values()
            if p.default is not inspect.Parameter.empty}


def print_tables(sections):
    """`reportgen run`: each table of each section; a failed section on stderr."""
    out = console()
    for section in sections:
        if section.error:
            console(sys.stderr).print(f"{section.experiment.name} FAILED:\n{section.error}", overflow="fold")
            continue
        for table in section.tables:
            out.print(fitted(out, *report_table(table)))
            out.print()


def print_check(rows, failed, every=False):
    """`reportgen check`: the checks that changed (every one with `every`), then counts per
    document and the summary."""
    out = console()
    shown = rows if every else [r for r in rows if r.status != "same" or r.unstable]
    if shown:
        _print_rows(out, shown)
    else:
        out.print(f"every verdict is the expected one ({len(rows)} checks); --all prints each")
    for r in rows:  # a quote that left its document: one line naming the claim, however narrow the table
        if r.status in QUOTE_GONE:
            out.print(f"{r.id}: {_quote_words(r)}; update or remove it in its claims file")
    out.print(fitted(out, *_per_document(rows)))
    out.print(summary(rows, failed))


def _print_rows(out, rows):
    notes = any(r.status != "same" or r.unstable for r in rows)
    header = ("", "document", "statement", "documented", "measured", "verdict") + (("note",) if notes else ())
    table_rows = []
    for r in rows:
        row = (MARKS[r.status], f"{r.doc} §{r.section}", r.statement, r.documented, r.measured,
               verdict_text(r.verdict, r.severity))
        table_rows.append(row + ((_note(r),) if notes else ()))
    out.print(fitted(out, None, header, table_rows))


QUOTE_GONE = {"STALE": "quote no longer in the document",
              "FIXED": "error fixed in the document (its quote is no longer there)"}


def _quote_words(r):
    return STATES[UNMATCHED] if r.quote_state == UNMATCHED else QUOTE_GONE[r.status]


def _note(r):
    if r.status in QUOTE_GONE:  # the verdict judged a sentence the document no longer holds
        return f"{_quote_words(r)}: claim {r.id}; update or remove it in its claims file"
    note = ("" if r.status == "same" else f"{r.status}, expected {r.expected}" if r.expected
            else "NEW: no expected verdict yet (check --record writes it)")
    if r.unstable:
        why = f"on a boundary: {r.boundary}" if r.boundary else "unexplained"
        note += ("; " if note else "") + f"UNSTABLE across seeds {'/'.join(r.seed_verdicts)} ({why})"
    return note


def _per_document(rows):
    counts = {}
    for r in rows:
        if r.status != "MISSING":
            counts.setdefault(r.doc, {}).setdefault(r.verdict, 0)
            counts[r.doc][r.verdict] += 1
    verdicts = [v for v in COLOURS if any(v in c for c in counts.values())]
    verdicts += sorted({v for c in counts.values() for v in c} - set(verdicts))
    body = [(doc, *(str(c.get(v, 0)) for v in verdicts)) for doc, c in sorted(counts.items())]
    return "verdicts per document", ("document", *verdicts), body


def summary(rows, failed):
    """The check's closing line: checks, statements, statuses, stability, failures."""
    status = {}
    for r in rows:
        status[r.status] = status.get(r.status, 0) + 1
    unstable = sum(r.unstable for r in rows)
    unexplained = sum(r.unexplained for r in rows)
    return (f"{len(rows)} checks of {sum(1 for r in rows if not r.part_of)} statements: "
            + ", ".join(f"{n} {s}" for s, n in sorted(status.items()))
            + f", {unstable} unstable across seeds ({unexplained} not explained as on a boundary)"
            + (f"; FAILED experiments: {', '.join(failed)}" if failed else ""))


def print_renderables(items, out):
    """Print lines and tables, each folded to the console's width."""
    for item in items:
        out.print(item, overflow="fold")
