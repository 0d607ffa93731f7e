"""The README's benchmark tables, written from the results file between marker comments."""

import re

MARKERS = "<!-- benchmark:{name}:start -->", "<!-- benchmark:{name}:end -->"


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


def update(text, blocks):
    """text with each {name: block} put between that benchmark's markers; names without markers are errors."""
    for name, body in blocks.items():
        start, end = (m.format(name=name) for m in MARKERS)
        pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
        if not pattern.search(text):
            raise ValueError(f"README has no {start} … {end} markers for benchmark {name!r}")
        text = pattern.sub(lambda _: f"{start}\n{body.rstrip()}\n{end}", text, count=1)
    return text


def missing_markers(text, names):
    """The benchmarks among names whose markers the text lacks."""
    return [n for n in names if MARKERS[0].format(name=n) not in text or MARKERS[1].format(name=n) not in text]
