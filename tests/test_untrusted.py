"""Issue 42: a failed build never replaces a good one, and every input is checked before the work.

One test (or one parametrized test) per class of case: a damaged cache entry, a failed
experiment, each kind of bad claims, documents.toml or config value, a link out of a course's
folder, images limited by what they decode to, output made safe for where it goes. Each
asserts what a user relies on: one line and exit 2 for bad input, no traceback, and the set
published before as it was.
"""

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from conftest import describe, invoke, snapshot
from test_build import fake_experiment

from reportgen import claims, limits
from reportgen.errors import ConfigError
from reportgen.experiments import EXPERIMENTS
from reportgen.judging import vocabulary
from reportgen.publish import cache

RUN = ["build", "--profile", "quick", "--only", "worked", "--format", "html"]


def plain_config(tmp_path, extra=""):
    path = tmp_path / "plain.toml"
    path.write_text(f'output = "output"\nfigures = "figures"\ncache_dir = "cache"\n{extra}', encoding="utf-8")
    return path


def built(tmp_path, *args):
    result = invoke([*RUN, "--config", plain_config(tmp_path), *args], tmp_path)
    assert result.exit_code == 0 and "Traceback" not in result.output, describe(result)
    return result


def one_line(result, code=2):
    """The command failed with `code` and said why in one line, without a traceback."""
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == code and len(lines) == 1 and "Traceback" not in result.output, describe(result)
    return lines[0]


# --- a failed build never replaces a good one ------------------------------------------------


def _broken_run(params, seed, device, progress):
    raise RuntimeError("deliberate failure")


def test_a_failed_build_publishes_beside_the_good_set_and_names_the_folder(tmp_path, monkeypatch):
    built(tmp_path)
    before = snapshot(tmp_path / "output")
    figures_before = snapshot(tmp_path / "figures") if (tmp_path / "figures").exists() else {}
    monkeypatch.setitem(EXPERIMENTS, "broken", fake_experiment("broken", _broken_run))
    result = invoke([*RUN[:4], "worked,broken", *RUN[5:], "--config", plain_config(tmp_path), "--replace"], tmp_path)
    assert result.exit_code == 1 and "Traceback" not in result.output, describe(result)
    assert snapshot(tmp_path / "output") == before  # the good set, as it was
    assert (snapshot(tmp_path / "figures") if (tmp_path / "figures").exists() else {}) == figures_before
    failed = tmp_path / "output-failed"
    last = result.stdout.strip().splitlines()[-1]
    assert "its report is in output-failed;" in last and "last good" in last
    assert json.loads((failed / "results.json").read_text())["experiments"]["broken"]["status"] == "failed"
    assert "deliberate failure" in (failed / "report.html").read_text()
    built(tmp_path)  # the next good build publishes as ever


# --- cache entries: authenticated, then parsed; anything malformed is a miss ----------------


def _entry(tmp_path, digest="a" * 32):
    return tmp_path / f"exp-{digest}.json"


@pytest.mark.parametrize("mac", ["é".encode(), b"\xff" * 64, "é".encode() * 32, b"", b"0" * 64])
def test_a_mac_that_is_no_ascii_hex_is_a_miss(tmp_path, mac):
    warnings = []
    store = cache.Cache(tmp_path, warn=warnings.append)
    _entry(tmp_path).write_bytes(b"reportgen-cache 4 " + b"a" * 32 + b" " + mac + b"\n{}")
    assert store.load("exp", "a" * 32) is None
    assert len(warnings) == 1 and "ignored" in warnings[0]


def test_the_mac_is_checked_before_any_json_is_parsed(tmp_path, monkeypatch):
    """An unsigned entry is never parsed: its size is bounded by the read, its MAC over the bytes."""
    store = cache.Cache(tmp_path, warn=lambda m: None)
    unsigned = b"reportgen-cache 4 " + b"a" * 32 + b" " + b"0" * 64 + b"\n[" + b"1," * 100_000 + b"1]"
    _entry(tmp_path).write_bytes(unsigned)
    monkeypatch.setattr(cache.json, "loads", lambda *a, **k: pytest.fail("parsed before its MAC was checked"))
    assert store.load("exp", "a" * 32) is None


@pytest.mark.parametrize("check, payload", [
    (cache.check_run, {"computed_at": 5, "results": {}}),
    (cache.check_run, {"computed_at": ["x"], "results": {}}),
    (cache.check_figures, [{"slug": "a", "caption": "c", "alt": "a", "part": "", "png": ["x"]}]),
    (cache.check_figures, [{"slug": {"x": 1}}]),
    (cache.check_figures, "x"),
    (lambda payload: payload["missing"]["deeper"], {}),  # a check that trips is a miss too
])
def test_a_signed_entry_with_a_malformed_field_is_a_miss(tmp_path, check, payload):
    warnings = []
    store = cache.Cache(tmp_path, warn=warnings.append)
    _entry(tmp_path).write_bytes(cache.entry_bytes("a" * 32, payload))
    assert store.load("exp", "a" * 32, check) is None
    assert len(warnings) == 1 and "ignored" in warnings[0]


@pytest.mark.parametrize("name", ["worked", "timings"])
def test_a_damaged_entry_in_a_build_is_a_miss_and_the_set_stays_whole(tmp_path, name):
    """The field edit of the audit ("é" as the MAC) on a run entry and on the timings entry:
    one warning, exit 0, the build publishes a whole set."""
    built(tmp_path)
    (path,) = (tmp_path / "cache").glob(f"{name}-*.json")
    head, body = path.read_bytes().split(b"\n", 1)
    path.write_bytes(head.rsplit(b" ", 1)[0] + " é".encode() + b"\n" + body)
    result = built(tmp_path)
    assert "FAILED" not in result.output and f"cache entry for {name} ignored" in result.output
    assert len(json.loads((tmp_path / "output" / ".reportgen-manifest.json").read_text())["files"]) >= 4


# --- every input checked before any experiment runs -----------------------------------------

BASE = {"id": "900.a", "section": "S", "quote": "q", "documented": "1", "kind": "statistical",
        "rule": "interval", "measure": "variance.var_qk", "justification": "j", "table": "t",
        "label": "L", "expected": "confirmed", "margin": 0.1}


def claims_folder(tmp_path, entry=None, documents='[[document]]\nid = "900"\ntitle = "T"\n', raw=None):
    folder = tmp_path / "claims"
    folder.mkdir(exist_ok=True)
    (folder / "documents.toml").write_text(documents, encoding="utf-8")
    lines = ["[[claim]]"] + [f"{k} = {toml(v)}" for k, v in {**BASE, **(entry or {})}.items()]
    (folder / "900.toml").write_text(raw if raw is not None else "\n".join(lines) + "\n", encoding="utf-8")
    return folder


def toml(value):
    if isinstance(value, float) and value != value:
        return "nan"
    if isinstance(value, float) and abs(value) == float("inf"):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(toml(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("entry, words", [
    ({"margin": float("inf")}, "margin must be a positive finite number"),
    ({"margin": float("nan")}, "margin must be a positive finite number"),
    ({"value": float("-inf")}, "'value' must be a finite number"),
    ({"rule": "at_least", "threshold": float("inf")}, "threshold must be a number"),
    ({"label": "two\nlines"}, r"'label' holds a line break \(U\+000A\)"),
    ({"section": "x\u2028y"}, "'section' holds a line break"),
    ({"table": "t\rx"}, "'table' holds a line break"),
    ({"label": "::error title=x::y"}, None),  # one line: it never begins a line (see the sink tests)
    ({"id": "900." + "a" * 241}, "'id' is 245 characters, over the limit of 64"),
    ({"quote": "q" * 8192}, "'quote' is 8192 characters, over the limit"),
    ({"label": "\u202eevil"}, r"'label' holds a control character \(U\+202E\)"),
    ({"documented": ["1"] * 500}, "'documented' is over its limit"),
    ({"documented": "1\n2"}, "'documented' holds a control character or a line break"),
    ({"args": {"d_k": 64, "level": 1}}, "args 'level' is a confidence level from 0.5 to 0.999"),
    ({"args": {"level": "high"}}, "args 'level' is a confidence level"),
    ({"args": {"d_k": float("inf")}}, "args 'd_k' must be a finite number"),
    ({"args": {"d_k": {"x": 1}}}, "args 'd_k' must be a finite number"),
    ({"args": {"d_k": [[1]]}}, "args 'd_k' must be a list of at most"),
    ({"colour": "red"}, "unknown key 'colour'"),
])
def test_bad_claims_values_are_one_line_before_any_work(tmp_path, entry, words):
    folder = claims_folder(tmp_path, entry)
    if words is None:
        claims.load(folder)
        return
    with pytest.raises(ConfigError, match=words):
        claims.load(folder)


@pytest.mark.parametrize("documents, words", [
    ("document = 5\n", "'document' must be"),
    ('document = ["x"]\n', "'document' must be"),
    ('[[document]]\nid = "900"\ntitle = "a\\u001b[31mred"\n', r"'title' holds a control character \(U\+001B\)"),
    ('[[document]]\nid = "900"\ntitle = "a\\u202eb"\n', r"'title' holds a control character \(U\+202E\)"),
    ('[[document]]\nid = "900"\ntitle = "a\\nb"\n', "'title' holds a line break"),
    ('[[document]]\nid = "900"\ntitle = "' + "T" * 1024 + '"\n', "'title' is 1024 characters, over the limit"),
    ('[[document]]\nid = "900"\ntitle = "T"\nkind = 5\n', "'kind' must be a string"),
    ('[[document]]\nid = "900"\ntitle = "T"\ntitel = "T"\n', "unknown key 'titel' \\(did you mean 'title'\\?\\)"),
])
def test_bad_documents_toml_is_one_line(tmp_path, documents, words):
    with pytest.raises(ConfigError, match=words):
        claims.load(claims_folder(tmp_path, documents=documents))


@pytest.mark.parametrize("where", ["claims", "documents", "config"])
def test_toml_nested_500_deep_is_bad_input(tmp_path, where):
    deep = "x = " + "[" * 500 + "]" * 500 + "\n"
    if where == "config":
        path = tmp_path / "deep.toml"
        path.write_text(deep)
        line = one_line(invoke([*RUN, "--config", path], tmp_path))
    else:
        folder = claims_folder(tmp_path, raw=deep if where == "claims" else None)
        if where == "documents":
            (folder / "documents.toml").write_text(deep)
        line = one_line(invoke([*RUN, "--config", plain_config(tmp_path, 'claims = "claims"\n')], tmp_path))
    assert "nested deeper than" in line
    assert not (tmp_path / "output").exists()


def test_a_link_out_of_the_claims_or_documents_folder_is_refused(tmp_path):
    secret = tmp_path / "secret.toml"
    secret.write_text("")
    folder = claims_folder(tmp_path)
    (folder / "900.toml").unlink()
    (folder / "900.toml").symlink_to(secret)
    with pytest.raises(ConfigError, match="is a symbolic link out of"):
        claims.load(folder)
    (folder / "900.toml").unlink()
    (folder / "900.toml").symlink_to(folder / "documents.toml")  # a link inside the folder is fine
    assert claims.load(folder) == []  # (documents.toml holds no [[claim]])

    from reportgen.judging import documents

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "900.md").symlink_to("/etc/passwd")
    catalog = claims.Catalog({"900": claims.Document("900", "T")}, ())
    with pytest.raises(ConfigError, match="symbolic link out of"):
        documents.read(catalog, notes)


@pytest.mark.parametrize("key", ["output", "figures", "cache_dir", "documents", "claims", "logo"])
@pytest.mark.parametrize("char", ["\n", "\r", "\u2028"])
def test_a_line_break_in_a_path_setting_is_bad_input(tmp_path, key, char):
    path = tmp_path / "c.toml"
    path.write_text(f'{key} = {json.dumps("a" + char + "output=/")}\n')
    line = one_line(invoke([*RUN, "--config", path], tmp_path))
    assert key in line and "line break" in line


# --- check --record: valid TOML it cannot follow is refused in one line, before the run --------


@pytest.mark.parametrize("raw, handled", [
    ("[[claim]]\n{body}expected = 'confirmed'\n", True),  # single-quoted
    ('[[claim]]\n{body}expected = "confirmed"  # reviewed in May\n', True),  # a trailing comment
    ('[[claim]]  # the first\n{body}expected = "confirmed"', True),  # a header's comment, no final newline
    ('[[claim]]\n{body}expected = "confirmed"\nnote = """see\n[[claim]]\nbelow"""\n', False),  # inside a string
    ('[[claim]]\n{body}expected = "confirmed"\nexpected_quick = "confirmed"\n', True),
    ('claim = [{{ id = "900.a", section = "S", quote = "q", documented = "1", kind = "statistical", '
     'rule = "interval", measure = "variance.var_qk", justification = "j", table = "t", label = "L", '
     'expected = "confirmed", margin = 0.1 }}]\n{none}', False),  # inline: no line to edit
])
def test_record_rewrites_valid_toml_or_refuses_it_in_one_line(tmp_path, raw, handled):
    from reportgen.claims import expected

    body = "".join(f"{k} = {toml(v)}\n" for k, v in BASE.items() if k != "expected")
    folder = claims_folder(tmp_path, raw=raw.format(body=body, none=""))
    before = (folder / "900.toml").read_text()
    assert claims.load(folder)  # valid claims data
    if not handled:
        with pytest.raises(ConfigError, match="--record edits each claim's lines in place"):
            expected.rewritable("quick", folder)
        with pytest.raises(ConfigError):
            expected.record({"900.a": "contradicted"}, "standard", folder)
        assert (folder / "900.toml").read_text() == before
        return
    expected.rewritable("quick", folder)
    expected.rewritable("standard", folder)
    assert [change[1:] for change in expected.record({"900.a": "contradicted"}, "standard", folder)] == [
        ("900.a", "confirmed", "contradicted")]
    expected.record({"900.a": "confirmed"}, "quick", folder)
    (claim,) = claims.load(folder)
    assert claim.expected == {"standard": "contradicted", "quick": "confirmed"}
    assert (folder / "900.toml").read_text().count("\n") >= before.count("\n")  # nothing else went


def test_check_record_refuses_a_file_it_cannot_follow_before_the_run(tmp_path):
    raw = '[[claim]]\n{body}expected = "confirmed"\nnote = """see\n[[claim]]\nbelow"""\n'
    body = "".join(f"{k} = {toml(v)}\n" for k, v in BASE.items() if k != "expected")
    claims_folder(tmp_path, raw=raw.format(body=body))
    config = plain_config(tmp_path, 'claims = "claims"\n')
    line = one_line(invoke(["check", "--profile", "quick", "--only", "variance", "--record", "--device", "cpu",
                            "--config", config], tmp_path))
    assert "900.toml" in line and "--record" in line


# --- images limited by what they decode to ---------------------------------------------------


def _gif(screen, frame, offset=(0, 0)):
    import struct

    head = b"GIF89a" + struct.pack("<HHBBB", *screen, 0x80, 0, 0) + b"\0\0\0\xff\xff\xff"
    return (head + b"\x2c" + struct.pack("<HHHHB", *offset, *frame, 0) + b"\x02\x02\x4c\x01\x00" + b"\x3b")


@pytest.mark.parametrize("data, words", [
    (_gif((1, 1), (12000, 12000)), "holds a frame of 12000×12000 pixels"),
    (_gif((1, 1), (10, 10), offset=(60000, 60000)), "holds a frame of 60010×60010 pixels"),
    (_gif((1, 1), (1, 1))[:-12], "damaged"),
])
def test_a_logo_is_limited_by_every_frame_it_decodes_to(tmp_path, data, words):
    (tmp_path / "logo.gif").write_bytes(data)
    line = one_line(invoke([*RUN, "--config", plain_config(tmp_path, 'logo = "logo.gif"\n')], tmp_path))
    assert "logo" in line and words in line
    assert not (tmp_path / "output").exists()


def test_an_animated_png_frame_past_its_header_is_refused(tmp_path):
    import struct
    import zlib

    def chunk(tag, body):
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
           + chunk(b"acTL", struct.pack(">II", 1, 0))
           + chunk(b"fcTL", struct.pack(">IIIIIHHBB", 0, 9000, 9000, 0, 0, 1, 1, 0, 0))
           + chunk(b"IDAT", zlib.compress(b"\0\0")) + chunk(b"IEND", b""))
    (tmp_path / "logo.png").write_bytes(png)
    line = one_line(invoke([*RUN, "--config", plain_config(tmp_path, 'logo = "logo.png"\n')], tmp_path))
    assert "9000×9000" in line


def _use_bomb(levels=8, fan=10):
    defs = ['<path id="l0" d="M0 0h1"/>'] + [
        f'<g id="l{i}">' + f'<use href="#l{i - 1}"/>' * fan + "</g>" for i in range(1, levels + 1)]
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><defs>' + "".join(defs)
            + f'</defs><use href="#l{levels}"/></svg>')


@pytest.mark.parametrize("svg, words", [
    (_use_bomb(), "once its <use> references are expanded"),
    (_use_bomb(4, 40).replace("href", "xlink:href").replace(
        'xmlns="http://www.w3.org/2000/svg"',
        'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'),
     "once its <use> references are expanded"),
    ('<svg xmlns="http://www.w3.org/2000/svg"><pattern id="p"><rect fill="url(#p)"/></pattern></svg>',
     "refers to itself"),
    ('<svg xmlns="http://www.w3.org/2000/svg">' + "<g>" * 3000 + "</g>" * 3000 + "</svg>", "nested deeper"),
])
def test_an_svg_logo_is_limited_by_what_it_expands_to(tmp_path, svg, words):
    import time

    (tmp_path / "logo.svg").write_text(svg)
    start = time.perf_counter()
    line = one_line(invoke([*RUN, "--config", plain_config(tmp_path, 'logo = "logo.svg"\n')], tmp_path))
    assert words in line and time.perf_counter() - start < 5


def test_a_small_animated_logo_still_passes(tmp_path):
    import io

    from PIL import Image

    from reportgen import images

    frames = [Image.new("RGB", (64, 32), colour) for colour in ("red", "green", "blue")]
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:])
    (tmp_path / "logo.gif").write_bytes(buffer.getvalue())
    assert images.read(tmp_path / "logo.gif")[0] == "gif"
    assert images.frames("gif", buffer.getvalue()) == [(64, 32)] * 4


# --- output safe for where it goes ----------------------------------------------------------


def _hostile_results(tmp_path):
    """Two results.json files whose texts carry ESC/OSC sequences and log commands."""
    import copy

    from reportgen.judging import drift

    evil = "\x1b]0;pwned\x07\x1b[2J\u202e::error title=x::y\n::warning::z\r##[group]g\x9b31m\ud800"  # + a lone surrogate
    doc = {"schema_version": drift.SCHEMA_VERSION if hasattr(drift, "SCHEMA_VERSION") else 2,
           "title": evil, "experiments": {evil: {"status": "ok", "results": {evil: 1.0}}},
           "claims": [{"id": "900.a" + evil, "label": evil, "verdict": "confirmed", "status": "ok",
                       "measured": {"value": 1.0}, "documented": evil}],
           "provenance": {"build_time": evil}}
    new = copy.deepcopy(doc)
    new["claims"][0]["verdict"] = "contradicted"
    new["provenance"]["build_time"] = evil + "2"
    new["experiments"][evil]["results"][evil] = 2.0
    (tmp_path / "old.json").write_text(json.dumps(doc))
    (tmp_path / "new.json").write_text(json.dumps(new))


@pytest.mark.parametrize("args", [[], ["--json"]])
def test_diff_prints_no_control_bytes_and_no_log_command(tmp_path, args):
    _hostile_results(tmp_path)
    result = invoke(["diff", "old.json", "new.json", *args], tmp_path)
    assert result.exit_code in (0, 1, 2), describe(result)
    out = result.output
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]", out), repr(out[:400])
    assert not [line for line in out.splitlines() if re.match(r"\s*(::|##\[)", line)], out


def test_a_folded_table_line_never_begins_with_a_log_command():
    import io

    from reportgen.terminal import console

    buffer = io.StringIO()
    out = console(buffer, color=False, width=20)
    out.print("x" * 20 + "::error title=a::b", overflow="fold")
    out.print("::warning::c")
    lines = buffer.getvalue().splitlines()
    assert lines and not [line for line in lines if re.match(r"\s*(::|##\[)", line)], lines


def test_an_error_quoting_data_is_plain_and_starts_no_command(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('"x\\n::error title=a::b\\u001b]0;t\\u0007" = 1\n')
    result = invoke([*RUN, "--config", path], tmp_path)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", result.output)
    assert not [line for line in result.output.splitlines() if re.match(r"\s*(::|##\[)", line)]


# --- a full figures folder publishes nothing --------------------------------------------------


def _plain_run(params, seed, device, progress):
    return {"value": float(seed)}


def _one_figure(results, documented):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    from reportgen.experiments.family import Figure

    figure = MplFigure(figsize=(2, 1))
    FigureCanvasAgg(figure)
    figure.add_subplot().plot([0, 1], [0, results["value"]])
    return [Figure("line", "A line.", "A line rising with the seed.", figure)]


def test_a_full_figures_folder_publishes_nothing(tmp_path, monkeypatch):
    """The figure files are written (staged) before the report is published: a folder that fills
    up stops the build in one line, with the previous report and its figures as they were."""
    import dataclasses
    import errno

    from reportgen import atomic
    from reportgen import drawer as drawing

    from test_build import FakeExperiment

    @dataclasses.dataclass(frozen=True)
    class Drawn(FakeExperiment):
        def figures(self, results, documented):
            return _one_figure(results, documented)

    base = fake_experiment("drawn", _plain_run)
    drawn = Drawn(**{f.name: getattr(base, f.name) for f in dataclasses.fields(base)})
    monkeypatch.setitem(EXPERIMENTS, "drawn", drawn)
    args = ["build", "--profile", "quick", "--only", "drawn", "--format", "html", "--config", plain_config(tmp_path)]
    result = invoke(args, tmp_path)
    assert result.exit_code == 0, describe(result)
    report, figures = snapshot(tmp_path / "output"), snapshot(tmp_path / "figures")
    assert any(name.endswith("line.svg") for name in figures)

    def full(path, data):
        if "figures" in str(path):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return atomic.write_atomic(path, data)

    monkeypatch.setattr(drawing, "write_atomic", full)
    result = invoke([*args, "--seed", "1", "-q"], tmp_path)  # another seed: another figure
    line = one_line(result, 1)
    assert "figure files" in line and "unchanged" in line
    assert snapshot(tmp_path / "output") == report and snapshot(tmp_path / "figures") == figures
    assert not list((tmp_path / "figures").rglob(".*.staged"))


# --- every field up to its limit lays out ------------------------------------------------------


def _words(n, word):
    return " ".join([word] * (n // (len(word) + 1) + 1))[:n]


@pytest.mark.skipif(not __import__("conftest").pdf_supported(), reason="WeasyPrint cannot load here")
def test_every_field_at_its_limit_lays_out_in_html_and_pdf(warm_dir):
    """The longest title, document title, section, label, quote and prose the validation lets
    through render in report.html, the errata sheet and both PDFs (their tagging checked as
    they are written), where a 1 KB title or an 8 KB quote failed after all the work."""
    from reportgen.claims.fields import LONGEST, LONGEST_TEXT

    from reportgen.claims import DOC_LONGEST

    course = Path(__file__).resolve().parent / "course"
    for name in ("claims", "notes"):
        shutil.copytree(course / name, warm_dir / name)
    documents = (warm_dir / "claims" / "documents.toml").read_text()
    documents = re.sub(r'title = ".*"', "title = " + json.dumps(_words(DOC_LONGEST["title"], "Titleword")), documents)
    (warm_dir / "claims" / "documents.toml").write_text(documents)
    claims_file = warm_dir / "claims" / "week3.toml"
    first, rest = claims_file.read_text().split("[[claim]]", 2)[1:]
    quote = _words(LONGEST["quote"], "quoted")
    for key, value in (("quote", quote), ("label", _words(LONGEST["label"], "Labelword")),
                       ("section", _words(LONGEST["section"], "Section")),
                       ("justification", _words(LONGEST_TEXT, "justify"))):
        first = re.sub(rf'^{key} = ".*"$', f"{key} = {json.dumps(value)}", first, count=1, flags=re.M)
    first += f"note = {json.dumps(_words(LONGEST_TEXT, 'noting'))}\n"
    claims_file.write_text(f"[[claim]]{first}[[claim]]{rest}")
    notes = warm_dir / "notes" / "week3.md"
    notes.write_text(notes.read_text() + "\n\n" + quote + "\n")
    config = (course / "reportgen.toml").read_text().replace(
        'title = "Week 3 notes, checked"', f"title = {json.dumps(_words(limits.MAX_TITLE_CHARS, 'Reporttitle'))}")
    (warm_dir / "reportgen.toml").write_text(config)
    result = invoke(["build", "--config", "reportgen.toml", "--profile", "quick", "-q"], warm_dir)
    assert result.exit_code == 0 and "Traceback" not in result.output, describe(result)
    for name in ("report.html", "errata-week3.html", "report.pdf", "report-handout.pdf", "errata-week3.pdf"):
        assert (warm_dir / "output" / name).stat().st_size > 1000, name
    assert quote[:200] in (warm_dir / "output" / "errata-week3.html").read_text()


@pytest.mark.parametrize("findings, words", [
    ("beat = 5\n", "'beat' must be"),
    ("beat = [1]\n", "'beat' must be"),
    ('[[beat]]\nquestion = 5\nclaims = ["900.a"]\nholds = "h"\nfails = "f"\n', "'question' must be text"),
    ('[[beat]]\nquestion = "q"\nclaims = "900.a"\nholds = "h"\nfails = "f"\n', "'claims' must be a list"),
    ('[[beat]]\nquestion = "q\\u001b"\nclaims = ["900.a"]\nholds = "h"\nfails = "f"\n', "control character"),
    ('[[unsaid]]\nclaims = ["900.a"]\nwhen = [1]\ntext = "t"\n', "'when' must be a list"),
])
def test_bad_findings_toml_is_one_line(tmp_path, findings, words):
    folder = claims_folder(tmp_path)
    (folder / "findings.toml").write_text(findings)
    with pytest.raises(ConfigError, match=words):
        vocabulary.catalog(folder)


@pytest.mark.parametrize("kind", ["link", "file", "foreign"])
def test_a_failed_build_never_writes_through_a_link_or_over_files_it_did_not_write(tmp_path, monkeypatch, kind):
    built(tmp_path)
    before = snapshot(tmp_path / "output")
    failed = tmp_path / "output-failed"
    if kind == "link":
        failed.symlink_to(tmp_path / "output")
    elif kind == "file":
        failed.write_text("mine")
    else:
        failed.mkdir()
        (failed / "report.html").write_text("mine")
    monkeypatch.setitem(EXPERIMENTS, "broken", fake_experiment("broken", _broken_run))
    result = invoke([*RUN[:4], "worked,broken", *RUN[5:], "--config", plain_config(tmp_path), "--replace", "-q"],
                    tmp_path)
    line = one_line(result, 1)
    assert "output-failed" in line and "unchanged" in line
    assert snapshot(tmp_path / "output") == before
    if kind == "foreign":
        assert (failed / "report.html").read_text() == "mine"


def test_a_cached_payload_keeps_its_key_order(tmp_path):
    """results.json of a build from the cache is byte-identical to a cold build's: the entry keeps
    the order of the payload's keys (the MAC covers the bytes as stored, not a sorted copy)."""
    store = cache.Cache(tmp_path, warn=pytest.fail)
    payload = {"computed_at": "2024-01-01T00:00:00+00:00", "results": {"zeta": 1, "alpha": [2, {"b": 1, "a": 2}]}}
    store.store("exp", "a" * 32, payload)
    assert json.dumps(store.load("exp", "a" * 32, cache.check_run)) == json.dumps(payload)
