"""Write the generated parts of docs/: the settings' tables and the benchmarks'.

    .venv/bin/python docs/generate.py           # rewrite what is stale
    .venv/bin/python docs/generate.py --check   # write nothing; exit 1 naming the stale pages

docs/configuration.md: the table of every setting and the default config file, from SETTINGS in
reportgen/settings.py. docs/performance.md: every benchmark's table, from benchmarks/results.json
(its full-size entries), and the GPU section, from the newest session folder under benchmarks/gpu/.
Each generated part sits between marker comments (`<!-- settings:table:start -->` …); the text
around them is written by hand. tests/test_docs.py fails while a page is stale.
"""

import argparse
import importlib.util
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
if str(REPO) not in sys.path:  # run as a file: the benchmarks package lives here
    sys.path.append(str(REPO))


def _toml(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False)


def _argument(check, settings):
    """What a flag takes, as `--help` shows it: its choices, N or DIR; nothing for a flag."""
    if isinstance(check, settings.Flag):
        return ""
    if isinstance(check, settings.OneOf):
        return " " + "\\|".join(check.choices)
    if isinstance(check, settings.Names):
        return " " + (",".join(check.choices) if check.choices else "NAME,...")
    return " N" if isinstance(check, settings.Integer) else " DIR"


def _values(setting, settings):
    """The values a key takes, derived from its check and flag (the config file's comment)."""
    check = setting.check
    if isinstance(check, settings.OneOf):
        return " | ".join(check.choices)
    if isinstance(check, settings.Names):
        names = "experiment names (reportgen list)" if check.choices is None else ", ".join(check.choices)
        return f'list of {names}, or "a,b"' + ("" if check.at_least_one else "; empty: all")
    if isinstance(check, settings.Integer):
        hi = "2^63-1" if check.hi == 2**63 - 1 else check.hi
        return f"{check.lo} … {hi}"
    if isinstance(check, settings.Flag):
        return f"true | false; {setting.flag[-1]} sets {'false' if setting.negated else 'true'}" if setting.flag \
            else "true | false"
    if isinstance(check, settings.Text):
        return f"one line, at most {check.limit} characters"
    if isinstance(check, settings.Words):
        return 'list of short texts, or "a,b"'
    if isinstance(check, settings.Folder):
        return "a folder; ~ is home"
    if isinstance(check, settings.ExistingFolder):
        return f"an existing folder of the course's {check.holds}; empty: none"
    if isinstance(check, settings.Image):
        return "a PNG, JPEG, GIF or SVG file; empty: none"
    if isinstance(check, settings.Address):
        return "an http:// or https:// address; empty: none"
    return ""


def settings_table(settings):
    """One row per setting: its key, flag (and the commands that take it), default and help."""
    rows = ["| key | flag | default | meaning |", "|---|---|---|---|"]
    for s in settings.SETTINGS:
        flag = "file only"
        if s.flag:
            names = ", ".join(f"`{f}`" for f in s.flag[:-1]) + (", " if len(s.flag) > 1 else "")
            flag = f"{names}`{s.flag[-1]}{_argument(s.check, settings)}` ({', '.join(s.commands)})"
        meaning = settings.help_text(s).replace("|", "\\|").replace("<", "&lt;")
        rows.append(f"| `{s.name}` | {flag} | `{_toml(s.default)}` | {meaning} |")
    rows.append(f"| | `--config FILE` (every command) | | {settings.CONFIG_HELP} |")
    return "\n".join(rows)


def default_config(settings):
    """The config file that changes nothing: every key at its default, the values it takes beside it."""
    lines = ["```toml", "[tool.reportgen]"]
    for s in settings.SETTINGS:
        line = f"{s.name} = {_toml(s.default)}"
        values = _values(s, settings)
        lines.append(f"{line.ljust(31)}# {values}" if values and len(line) < 31 else
                     f"{line}   # {values}" if values else line)
    lines.append("```")
    return "\n".join(lines)


def configuration_blocks():
    from reportgen import settings

    return {"table": settings_table(settings), "file": default_config(settings)}


def _gpu():
    spec = importlib.util.spec_from_file_location("gpu_benchmark", REPO / "benchmarks" / "gpu.py")
    gpu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gpu)
    return gpu


def gpu_session():
    """The newest GPU session folder, the one docs/performance.md shows."""
    return sorted(p for p in (REPO / "benchmarks" / "gpu").iterdir() if (p / "gpu-slice.json").is_file())[-1]


def performance_blocks():
    from benchmarks import BENCHMARKS, load
    from benchmarks.pages import block

    results = json.loads((REPO / "benchmarks" / "results.json").read_text(encoding="utf-8"))
    blocks = {n: block(n, e, load(n)) for n, e in results.items() if n in BENCHMARKS and e["size"] == "full"}
    blocks["gpu"] = _gpu().table(gpu_session())
    return blocks


def pages():
    """{path: (text on disk, text as generated)} for each page with generated parts."""
    from benchmarks.pages import update

    out = {}
    for name, kind, blocks in (("configuration.md", "settings", configuration_blocks),
                               ("performance.md", "benchmark", performance_blocks)):
        path = DOCS / name
        text = path.read_text(encoding="utf-8")
        out[path] = text, update(text, blocks(), kind)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python docs/generate.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a page is stale")
    args = parser.parse_args(argv)
    stale = []
    for path, (now, generated) in pages().items():
        if now != generated:
            stale.append(path.relative_to(REPO))
            if not args.check:
                path.write_text(generated, encoding="utf-8")
    verb = "stale" if args.check else "rewritten"
    print(f"docs: {verb}: {', '.join(map(str, stale)) or 'none'}", file=sys.stderr)
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
