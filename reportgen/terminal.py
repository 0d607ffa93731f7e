"""Tables as aligned plain text for the terminal."""

import click

COLOURS = {"confirmed": "green", "contradicted": "red", "unverifiable": "yellow"}


def _aligned(header, rows):
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(header, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)) for row in rows]
    return lines


def table_lines(table):
    """Plain-text lines of one report table (the tolerance column stays in the report)."""
    if table.checks:
        header = ("quantity", "source", "documented", "measured", "verdict")
        rows = [(c.quantity, str(c.source), c.documented, c.measured, c.verdict) for c in table.checks]
    else:
        header, rows = table.columns, table.rows
    return [table.title, *_aligned(header, rows)]


def print_tables(outcomes):
    for outcome in outcomes:
        if outcome.error:
            click.echo(f"{outcome.experiment.name} FAILED:\n{outcome.error}", err=True)
            continue
        for table in outcome.tables:
            for line in table_lines(table):
                for verdict, colour in COLOURS.items():
                    if line.rstrip().endswith(verdict):
                        line = line.rstrip()[: -len(verdict)] + click.style(verdict, fg=colour)
                click.echo(line)
            click.echo()
