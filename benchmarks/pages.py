"""The generated parts of a docs/ page, between marker comments: the benchmarks' tables in docs/performance.md
(written from the results file), the settings' in docs/configuration.md (docs/generate.py)."""

import re

MARKERS = "<!-- {kind}:{name}:start -->", "<!-- {kind}:{name}:end -->"


def header(name, entry):
    """One line saying where, when and how a result was measured."""
    env, m = entry["environment"], entry["environment"]["machine"]
    v = env["versions"]
    memory = f", {m['memory_gib']} GiB RAM" if m.get("memory_gib") else ""

    def load(values):
        return f"{values[0]:.2f}" if values else "?"

    return (f"Measured {env['date']} on {m['cores']} cores ({m['cpu']}){memory}, {m['system']}; reportgen at "
            f"commit {env['commit']}; Python {v['python']}, torch {v.get('torch')}; 1-minute load "
            f"{load(env['load_before'])} before, {load(entry.get('load_after'))} after; "
            f"`python -m benchmarks {name} --size {entry['size']}`.")


def block(name, entry, module):
    """The text between a benchmark's markers: its header line, then its table."""
    return f"{header(name, entry)}\n\n{module.table(entry['result'])}"


def update(text, blocks, kind="benchmark"):
    """text with each {name: block} put between its markers; names without markers are errors."""
    for name, body in blocks.items():
        start, end = (m.format(kind=kind, name=name) for m in MARKERS)
        pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
        if not pattern.search(text):
            raise ValueError(f"the page has no {start} … {end} markers for {kind} {name!r}")
        text = pattern.sub(lambda _: f"{start}\n{body.rstrip()}\n{end}", text, count=1)
    return text


def missing_markers(text, names, kind="benchmark"):
    """The names whose markers the text lacks."""
    return [n for n in names if any(m.format(kind=kind, name=n) not in text for m in MARKERS)]
