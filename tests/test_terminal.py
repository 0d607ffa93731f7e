"""Terminal output: no line wider than the terminal, nothing but text when piped, and
progress that says how long is left."""

import copy
import io
import json
import os
import re
import time

import pytest

from conftest import describe, run_cli

WIDTHS = (60, 100)
CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def widest(text):
    return max((len(line) for line in text.splitlines()), default=0)


# --- fast: the renderers on made-up rows ---------------------------------------------


def made_up_rows(n=12):
    from reportgen.factcheck import Row

    long = "a statement long enough to need wrapping in any terminal narrower than its own length " * 2
    return [Row(f"000.c{i}", "000", "The Problem: Variance Explosion", long, "q", "√d_k ≈ 1 for every d_k",
                "0.98 (99% CI [0.87, 1.09]); std of q·k = 0.9902", "±5%", "interval",
                "contradicted" if i % 3 else "confirmed", "confirmed", "CHANGED" if i % 3 else "same",
                ("confirmed", "contradicted") if i == 4 else (), severity="material" if i % 3 else "")
            for i in range(n)]


@pytest.mark.parametrize("columns", WIDTHS)
def test_check_table_fits(columns, capsys, monkeypatch):
    from reportgen.terminal import print_check

    monkeypatch.setenv("COLUMNS", str(columns))
    print_check(made_up_rows(), ["training"])
    out = capsys.readouterr().out
    assert widest(out) <= columns, out
    assert "CHANGED, expected confirmed" in out.replace("\n", " ") or "CHANGED" in out
    assert "\x1b" not in out  # captured, not a terminal: plain text


def results_pair():
    old = {"schema_version": 2, "title": "t", "verdicts": {"confirmed": 2, "contradicted": 1},
           "provenance": {"profile": "quick", "seed": 0, "versions": {"torch": "2.13.0+cpu"}},
           "experiments": {"variance": {"status": "ok", "nonfinite": [], "results": {"x": [1.0, 2.0]}}},
           "claims": [{"id": f"000.claim-with-a-long-identifier-{i}", "label": "Var(q·k) at d_k = 16 " * 3,
                       "verdict": "confirmed", "measured": "16.6 (99% CI [15.6, 17.7])",
                       "measurement": {"value": 16.6, "lo": 15.6, "hi": 17.7}} for i in range(3)]}
    new = copy.deepcopy(old)
    new["claims"][0]["verdict"] = "contradicted"
    new["claims"][1]["measurement"] = {"value": 19.0, "lo": 18.0, "hi": 20.0}
    new["provenance"]["versions"]["torch"] = "2.14.0+cpu"
    new["experiments"]["variance"]["results"]["x"][0] = 1.5
    new["verdicts"] = {"confirmed": 1, "contradicted": 2}
    return old, new


@pytest.mark.parametrize("columns", WIDTHS)
def test_diff_is_tables_that_fit(columns, tmp_path):
    from click.testing import CliRunner

    from reportgen.diff_command import diff

    paths = []
    for name, doc in zip(("old.json", "new.json"), results_pair()):
        (tmp_path / name).write_text(json.dumps(doc), encoding="utf-8")
        paths.append(str(tmp_path / name))
    result = CliRunner().invoke(diff, paths, env={"COLUMNS": str(columns)})
    assert result.exit_code == 1, result.output
    out = result.stdout
    assert out.splitlines()[0] == "1 verdict(s) changed"
    assert widest(out) <= columns, out
    assert "{" not in out and "'" not in out  # no Python dicts or reprs
    for word in ("verdict totals", "verdict changes", "provenance differences", "2.14.0+cpu"):
        assert word in out


def test_help_imports_no_rich():
    """rich is imported inside the commands that print: `reportgen --help` stays instant."""
    import subprocess
    import sys

    code = ("import sys; from reportgen.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'rich', 'torch', 'weasyprint'}), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stderr.strip() == "[]", proc.stderr


# --- fast: progress --------------------------------------------------------------------


def test_heartbeat_says_what_is_left(monkeypatch):
    """A stage silent for longer than the interval gets a heartbeat line with the time left."""
    from reportgen import progress

    monkeypatch.setattr(progress, "TICK", 0.02)
    stream = io.StringIO()
    p = progress.Progress(stream=stream, heartbeat=0.1)
    with p.stage("pdf", "typesetting", kind="cold", expected=30.0) as stage:
        stage.detail = "report.pdf"
        time.sleep(0.45)
    lines = stream.getvalue().splitlines()
    assert lines[0].endswith("pdf: typesetting (about 30 s)")
    beats = [line for line in lines if "s in, about" in line]
    assert 2 <= len(beats) <= 5, lines  # one per 0.1 s of silence, never more
    assert all(line.startswith("[") and "pdf: report.pdf; 0 s in, about 30 s left" in line for line in beats)
    assert lines[-1].split("] ")[1].startswith("pdf: done in")
    assert p.durations["pdf"][0] == "cold"


def test_a_stage_past_its_estimate_is_estimated_again():
    """Past its estimate a stage gets a new one each time, never the first guess repeated."""
    from reportgen.progress import Stage

    stage = Stage("pdf", started=0.0, expected=44.0)
    lines = [stage.beat(now) for now in (40.0, 50.0, 60.0, 70.0, 80.0)]
    assert lines[0] == "pdf: 40 s in, about 4 s left"
    assert lines[1].startswith("pdf: 50 s in, over the 44 s first expected; now about")
    assert len(set(lines)) == len(lines) and stage.first == 44.0 and stage.expected > 70.0
    assert all("44 s" in line for line in lines[1:])  # the first estimate stays named, not repeated as the promise


def test_plain_heartbeat_is_sparse():
    """Piped (a CI log) the heartbeat comes at most every 10 s; on a terminal every 5 s."""
    from reportgen.progress import HEARTBEAT_LOG, HEARTBEAT_TTY, Progress

    assert Progress(stream=io.StringIO()).interval == HEARTBEAT_LOG >= 10
    assert HEARTBEAT_TTY <= 5


def test_cold_and_cached_learned_apart(tmp_path):
    """A cached rebuild is estimated from cached stages, a cold build from cold ones."""
    from reportgen import timing
    from reportgen.config import BuildConfig
    from reportgen.publish.cache import Cache

    config = BuildConfig(profile="quick")
    store = Cache(tmp_path / "cache")
    timing.remember(config, "cpu", store, {"variance": ("cold", 40.0), "pdf": ("cold", 30.0),
                                           "html": ("cold", 3.0), "figures": ("cold", 5.0),
                                           "write": ("cold", 0.1)})
    timing.remember(config, "cpu", store, {"variance": ("cached", 0.1), "pdf": ("cached", 0.2),
                                           "html": ("cached", 2.0), "figures": ("cached", 0.1),
                                           "write": ("cached", 0.1)})
    est = timing.load(config, "cpu", store)
    cold, basis = est.build(["variance"], [], 1, ("html", "pdf"))
    cached, cached_basis = est.build([], ["variance"], 1, ("html", "pdf"))
    assert cold == pytest.approx(78.1) and "this machine's last builds" in basis
    assert cached == pytest.approx(2.5) and "everything cached" in cached_basis
    assert timing.load(BuildConfig(profile="standard"), "cpu", store).learned == {}  # per profile


def test_progress_listens_to_the_job_graph():
    """The heartbeat names the jobs running and where; a family's figures drawn keep their time
    as the next build's estimate, which ranks that family's drawing (the longest first)."""
    from reportgen import progress, timing
    from reportgen.jobs import HERE, WORKER, Event, Job

    p = progress.Progress(stream=io.StringIO())
    run, figures = Job(("run", "lm"), lambda: None), Job(("figures", "training"), lambda: None)
    p.job(Event("started", run, WORKER))
    p.job(Event("started", figures, HERE))
    assert p._jobs == {("run", "lm"): WORKER, ("figures", "training"): HERE}
    p.job(Event("done", figures, HERE, 1.5))
    assert p._jobs == {("run", "lm"): WORKER} and p.durations["figures:training"] == ("cold", 1.5)
    assert progress.job_name(("figures", "training")) == "training's figures"
    typical = timing.Estimates("quick")
    assert typical.of("figures:training", "cold")[0] > typical.of("figures:temperature", "cold")[0]


def test_two_processes_halve_the_estimate():
    from reportgen.timing import Estimates

    est = Estimates("quick", {"a": {"cold": 10.0}, "b": {"cold": 10.0}, "c": {"cold": 30.0}})
    assert est.experiments(["a", "b"], [], 2)[0] == 10.0
    assert est.experiments(["a", "b", "c"], [], 2)[0] == 30.0  # never sooner than the longest


# --- slow: the real commands -------------------------------------------------------------


def flipped(quick_build, folder):
    """A copy of the session build's results.json with one verdict flipped and torch's version changed."""
    doc = json.loads((quick_build.root / "output" / "results.json").read_text(encoding="utf-8"))
    doc["claims"][0]["verdict"] = "inconclusive" if doc["claims"][0]["verdict"] != "inconclusive" else "confirmed"
    doc["provenance"]["versions"] = {**doc["provenance"].get("versions", {}), "torch": "9.9.9"}
    path = folder / "new.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def commands(quick_build, folder):
    return {"run": ["run", "variance", "--profile", "quick"], "check": ["check", "--profile", "quick"],
            "diff": ["diff", quick_build.root / "output" / "results.json", flipped(quick_build, folder)]}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["run", "check", "diff"])
def test_no_line_wider_than_the_terminal_and_piped_is_plain(name, warm_dir, quick_build):
    """At COLUMNS=60 and 100 no line of stdout is wider; piped, even with FORCE_COLOR set, the
    output holds no escape sequence at all."""
    args = commands(quick_build, warm_dir)[name]
    for columns in WIDTHS:
        proc = run_cli(args, warm_dir, env={"COLUMNS": str(columns), "FORCE_COLOR": "1", "NO_COLOR": ""})
        assert proc.returncode in (0, 1), describe(proc)
        assert widest(proc.stdout) <= columns, (columns, describe(proc))
        assert "\x1b" not in proc.stdout + proc.stderr


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_on_a_terminal_every_line_fits(warm_dir):
    """On a real (pseudo) terminal 60 columns wide, stdout and stderr together (tables, progress,
    bars) never draw a line wider than it; NO_COLOR leaves no colour sequence."""
    import fcntl
    import struct
    import subprocess
    import sys
    import termios

    from conftest import EPOCH

    main, child = os.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 60, 0, 0))
    env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH, "COLUMNS": "60", "NO_COLOR": "1", "TERM": "xterm"}
    proc = subprocess.Popen([sys.executable, "-m", "reportgen", "run", "variance", "--profile", "quick", "--no-cache"],
                            cwd=warm_dir, env=env, stdin=child, stdout=child, stderr=child)
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:  # the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(timeout=300) == 0
    os.close(main)
    raw = b"".join(chunks).decode("utf-8", "replace")
    assert not re.search(r"\x1b\[[0-9;]*m", raw)  # no colour under NO_COLOR
    visible = CONTROL.sub("", raw)
    lines = [seg for line in visible.split("\n") for seg in line.split("\r")]
    assert "variance: ran in" in visible and "Dot-product statistics" in visible
    assert max(len(seg) for seg in lines) <= 60, [seg for seg in lines if len(seg) > 60]
