"""Tables as aligned plain text for the terminal."""

import click

COLOURS = {"confirmed": "green", "partly": "cyan", "contradicted": "red", "inconclusive": "magenta",
           "unverifiable": "yellow"}


def _aligned(header, rows):
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(header, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)) for row in rows]
    return lines


def table_lines(table):
    """Plain-text lines of one report table (the tolerance column stays in the report)."""
    if isinstance(table, tuple):  # a claims table and its verdicts
        table, judged = table
        header = ("quantity", "source", "documented", "measured", "verdict")
        rows = [(j.claim.label, f"{j.claim.doc} §{j.claim.section}", j.documented, j.measured, j.verdict)
                for j in judged]
    else:
        header, rows = table.columns, table.rows
    return [table.title, *_aligned(header, rows)]


def print_tables(sections):
    for section in sections:
        if section.error:
            click.echo(f"{section.experiment.name} FAILED:\n{section.error}", err=True)
            continue
        for table in section.tables:
            for line in table_lines(table):
                for verdict, colour in COLOURS.items():
                    if line.rstrip().endswith(verdict):
                        line = line.rstrip()[: -len(verdict)] + click.style(verdict, fg=colour)
                click.echo(line)
            click.echo()


def _short(text, limit=80):
    """A quote on one line, cut at `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


QUOTE_GONE = {"STALE": "quote no longer in the document",
              "FIXED": "error fixed in the document (its quote is no longer there)"}


def check_lines(rows, failed):
    """The fact-check as terminal lines: one per claim, then counts per document."""
    lines, counts = [], {}
    for r in rows:
        mark = {"same": " ", "CHANGED": "!", "NEW": "+", "MISSING": "-", "STALE": "?", "FIXED": "*"}[r.status]
        flag = ""
        if r.unstable:
            flag = " UNSTABLE across seeds " + "/".join(r.seed_verdicts)
            flag += f" (on a boundary: {r.boundary})" if r.boundary else " (unexplained)"
        verdict = click.style(r.verdict, fg=COLOURS.get(r.verdict)) if r.verdict in COLOURS else r.verdict
        if r.severity:
            verdict += f" ({r.severity})"
        if r.status in QUOTE_GONE:  # the verdict judged a sentence the document no longer holds
            lines.append(f"{mark} {r.doc} §{r.section} | claim {r.id} | {QUOTE_GONE[r.status]}: “{_short(r.quote)}” "
                         f"({r.status}; update or remove the claim in its claims file)")
            continue
        lines.append(
            f"{mark} {r.doc} §{r.section} | {r.statement} | documented {r.documented} | "
            f"measured {r.measured} | {verdict}"
            + ("" if r.status == "same" else f" ({r.status}, expected {r.expected})")
            + flag
        )
        if r.status != "MISSING":
            counts.setdefault(r.doc, {}).setdefault(r.verdict, 0)
            counts[r.doc][r.verdict] += 1
    lines.append("")
    for doc, c in sorted(counts.items()):
        lines.append(f"{doc}: " + ", ".join(f"{n} {v}" for v, n in sorted(c.items())))
    status = {}
    for r in rows:
        status[r.status] = status.get(r.status, 0) + 1
    unstable = sum(r.unstable for r in rows)
    unexplained = sum(r.unexplained for r in rows)
    lines.append(
        f"{len(rows)} checks of {sum(1 for r in rows if not r.part_of)} statements: " + ", ".join(f"{n} {s}" for s, n in sorted(status.items()))
        + f", {unstable} unstable across seeds ({unexplained} not explained as on a boundary)"
        + (f"; FAILED experiments: {', '.join(failed)}" if failed else "")
    )
    return lines
