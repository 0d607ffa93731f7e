"""The command line: help, version, list, run, and clean one-line errors for bad input."""

import re

import pytest

from conftest import describe, invoke, run_cli, snapshot, write_placeholder_output
from reportgen import __version__
from reportgen.experiments import EXPERIMENTS


@pytest.mark.parametrize(
    "command, expected",
    [
        ([], ["build", "list", "run"]),
        (["build"], ["--profile", "--device", "--seed", "--config", "--no-cache", "--only", "--format", "--output", "--fail-fast"]),
        (["list"], ["Usage:"]),
        (["run"], ["NAME", "--profile", "--seed", "--no-cache"]),
    ],
    ids=["main", "build", "list", "run"],
)
def test_help(command, expected, tmp_path):
    """Every command answers --help with exit 0 and names its options."""
    result = invoke([*command, "--help"], tmp_path)
    assert result.exit_code == 0, describe(result)
    assert result.stdout.startswith("Usage:")
    for word in expected:
        assert word in result.stdout


def test_short_help_flag(tmp_path):
    """-h is the same as --help."""
    assert invoke(["-h"], tmp_path).stdout == invoke(["--help"], tmp_path).stdout


def test_version(tmp_path):
    """--version prints the package version."""
    result = invoke(["--version"], tmp_path)
    assert result.exit_code == 0
    assert result.stdout.strip() == f"reportgen, version {__version__}"


def test_list_names_every_experiment(tmp_path):
    """`list` shows each registered experiment with its summary and covered sections."""
    result = invoke(["list"], tmp_path)
    assert result.exit_code == 0, describe(result)
    flat = " ".join(result.stdout.split())  # folded at the terminal's width, at word boundaries
    for name, experiment in EXPERIMENTS.items():
        assert f"{name}\n" in result.stdout
        assert " ".join(experiment.summary.split()) in flat
        for source in experiment.covers:
            assert " ".join(str(source).split()) in flat
    assert not (tmp_path / "output").exists()


# (id, pyproject.toml [tool.reportgen] body or None, extra files, arguments, words the error must contain)
BAD_INPUTS = [
    ("unknown-key", 'profil = "quick"\n', {}, [], ["profil", "did you mean 'profile'"]),
    ("unknown-key-dashed", "fail-fsat = true\n", {}, ["--profile", "quick"], ["fail-fsat", "did you mean 'fail_fast'"]),
    ("seed-wrong-type", 'seed = "abc"\n', {}, ["--profile", "quick"], ["seed", "abc"]),
    ("seed-bool", "seed = true\n", {}, ["--profile", "quick"], ["seed", "True"]),
    ("seed-out-of-range-file", "seed = -1\n", {}, ["--profile", "quick"], ["seed", "-1"]),
    ("seed-out-of-range-flag", None, {}, ["--profile", "quick", "--seed", "-1"], ["seed", "-1"]),
    ("seed-too-large", None, {}, ["--profile", "quick", "--seed", str(2**63)], ["seed", str(2**63)]),
    ("unknown-profile", None, {}, ["--profile", "fast"], ["profile", "fast"]),
    ("profile-typo-hint", None, {}, ["--profile", "quik"], ["quik", "did you mean 'quick'"]),
    ("profile-wrong-type", "profile = 3\n", {}, [], ["profile", "string"]),
    ("unknown-experiment", None, {}, ["--profile", "quick", "--only", "nope"], ["experiment", "nope"]),
    ("unknown-experiment-hint", None, {}, ["--profile", "quick", "--only", "varience"], ["varience", "did you mean 'variance'"]),
    ("unknown-format", None, {}, ["--profile", "quick", "--format", "docx"], ["format", "docx"]),
    ("empty-format", None, {}, ["--profile", "quick", "--format", ","], ["format"]),
    ("unknown-device", None, {}, ["--profile", "quick", "--device", "tpu"], ["device", "tpu"]),
    ("bad-toml", None, {"bad.toml": "seed = = 3\n[[[\n"}, ["--profile", "quick", "--config", "bad.toml"], ["bad.toml", "TOML"]),
    ("config-unknown-key", None, {"cfg.toml": "seeed = 3\n"}, ["--profile", "quick", "--config", "cfg.toml"], ["seeed", "did you mean 'seed'"]),
]


def _bad_input_case(tmp_path, table, files):
    if table is not None:
        (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n[tool.reportgen]\n{table}", encoding="utf-8")
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return write_placeholder_output(tmp_path)


@pytest.mark.parametrize("case_id, table, files, args, words", BAD_INPUTS, ids=[c[0] for c in BAD_INPUTS])
def test_bad_input_is_one_line_exit_2(case_id, table, files, args, words, tmp_path):
    """Bad input: exit 2, one line on stderr naming the problem, output/ untouched, nothing run."""
    before = _bad_input_case(tmp_path, table, files)
    result = invoke(["build", *args], tmp_path)
    assert result.exit_code == 2, describe(result)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, describe(result)
    for word in words:
        assert word in lines[0], describe(result)
    assert "Traceback" not in result.output
    assert snapshot(tmp_path / "output") == before
    assert not (tmp_path / ".reportgen-cache").exists()
    assert not (tmp_path / "figures").exists()


def test_several_problems_are_all_reported(tmp_path):
    """Two bad keys in the file: both named, one line each, still exit 2."""
    before = _bad_input_case(tmp_path, 'profil = "quick"\nseed = "abc"\n', {})
    result = invoke(["build"], tmp_path)
    assert result.exit_code == 2, describe(result)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2
    assert "profil" in lines[0] and "seed" in lines[1]
    assert snapshot(tmp_path / "output") == before


def test_device_cuda_without_gpu(tmp_path):
    """--device cuda on a machine without CUDA: exit 2, one line, output/ untouched."""
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    before = write_placeholder_output(tmp_path)
    result = invoke(["build", "--profile", "quick", "--device", "cuda"], tmp_path)
    assert result.exit_code == 2, describe(result)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cuda" in lines[0].lower(), describe(result)
    assert snapshot(tmp_path / "output") == before
    assert not (tmp_path / ".reportgen-cache").exists()


def test_run_unknown_experiment(tmp_path):
    """`run nope` is bad input too: exit 2, one line naming it."""
    result = invoke(["run", "nope", "--profile", "quick"], tmp_path)
    assert result.exit_code == 2, describe(result)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "nope" in lines[0]


def test_config_file_must_exist(tmp_path):
    """--config with a missing file is a usage error (exit 2) naming the path."""
    result = invoke(["build", "--profile", "quick", "--config", "missing.toml"], tmp_path)
    assert result.exit_code == 2
    assert "missing.toml" in result.stderr


def test_non_integer_seed_flag(tmp_path):
    """--seed abc is rejected by the option parser with exit 2."""
    result = invoke(["build", "--profile", "quick", "--seed", "abc"], tmp_path)
    assert result.exit_code == 2
    assert "--seed" in result.stderr
    assert not (tmp_path / "output").exists()


def test_bad_input_in_a_real_process(tmp_path):
    """In a real interpreter: exit status 2, a single 'Error:' line, no traceback."""
    before = write_placeholder_output(tmp_path)
    proc = run_cli(["build", "--profile", "fast"], tmp_path)
    assert proc.returncode == 2, describe(proc)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:") and "fast" in lines[0], describe(proc)
    assert proc.stdout == ""
    assert snapshot(tmp_path / "output") == before


def test_run_prints_tables(warm_dir):
    """`run variance` prints its tables (with verdicts) and writes no report."""
    result = invoke(["run", "variance", "--profile", "quick", "-q"], warm_dir)
    assert result.exit_code == 0, describe(result)
    assert "confirmed" in result.stdout
    assert "contradicted" in result.stdout
    assert not (warm_dir / "output").exists()


def test_tool_reportgen_not_a_table(tmp_path):
    """pyproject.toml whose tool.reportgen is a string: exit 2 with one line, not a traceback."""
    (tmp_path / "pyproject.toml").write_text('[tool]\nreportgen = "quick"\n', encoding="utf-8")
    before = write_placeholder_output(tmp_path)
    result = invoke(["build", "--profile", "quick"], tmp_path)
    assert snapshot(tmp_path / "output") == before
    assert result.exit_code == 2, describe(result)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "reportgen" in lines[0], describe(result)


def test_config_file_with_scalar_tool_key(tmp_path):
    """A --config file whose top-level `tool` is not a table: exit 2 with one line, not a traceback."""
    (tmp_path / "cfg.toml").write_text("tool = 3\n", encoding="utf-8")
    before = write_placeholder_output(tmp_path)
    result = invoke(["build", "--profile", "quick", "--config", "cfg.toml"], tmp_path)
    assert snapshot(tmp_path / "output") == before
    assert result.exit_code == 2, describe(result)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "tool" in lines[0], describe(result)


# --- Click types: choices and ranges in --help, completion, one-line errors ------------------


def test_help_lists_choices_and_ranges(tmp_path):
    out = invoke(["build", "--help"], tmp_path).stdout
    for text in ("[quick|standard|full]", "[auto|cpu|cuda]", "[html|pdf],...", "1<=x<=256", "0<=x<="):
        assert text in out, text
    assert "[variance|" in out  # --only lists the registered experiments


@pytest.mark.parametrize(
    "words, expected",
    [
        ("reportgen build --profile ", ["quick", "standard", "full"]),
        ("reportgen build --format html,", ["html,pdf"]),
        ("reportgen run gr", ["gradients"]),
        ("reportgen build --only variance,sat", ["variance,saturation"]),
    ],
)
def test_shell_completion(words, expected, tmp_path):
    """Bash completion (Click's protocol) offers the declared choices."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).with_name("reportgen")  # completion is keyed on the program's name
    if not script.is_file():
        pytest.skip("no reportgen console script beside this Python")
    env = {**os.environ, "_REPORTGEN_COMPLETE": "bash_complete", "COMP_WORDS": words,
           "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1))}
    proc = subprocess.run([str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    offered = [line.split(",", 1)[1] for line in proc.stdout.splitlines() if line.startswith("plain,")]
    assert offered == expected, proc.stdout + proc.stderr


def test_choice_error_is_one_line_with_a_hint(tmp_path):
    result = invoke(["build", "--device", "cdua"], tmp_path)
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert "--device" in line and "did you mean 'cuda'" in line and "build --help" in line


def test_unwritable_output_refused_before_any_work(tmp_path):
    """--output under a file: exit 2, one line, nothing made (no cache, no figures)."""
    (tmp_path / "afile").write_text("x")
    result = invoke(["build", "--profile", "quick", "--output", "afile/report"], tmp_path)
    assert result.exit_code == 2, describe(result)
    assert len(result.stderr.strip().splitlines()) == 1 and "afile" in result.stderr
    assert not (tmp_path / ".reportgen-cache").exists() and not (tmp_path / "figures").exists()


def test_no_color_and_pipes_give_plain_text(warm_dir):
    """Piped output has no ANSI colour, and NO_COLOR keeps it off even where colour is forced."""
    proc = run_cli(["run", "variance", "--profile", "quick"], warm_dir, env={"NO_COLOR": "1"})
    assert proc.returncode == 0, describe(proc)
    assert "\x1b[" not in proc.stdout + proc.stderr
    from click.testing import CliRunner

    from reportgen.cli import main

    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(warm_dir)
        mp.setenv("NO_COLOR", "1")
        forced = CliRunner().invoke(main, ["run", "variance", "--profile", "quick", "-q"], color=True)
    assert forced.exit_code == 0 and "\x1b[" not in forced.stdout


def test_progress_lines_show_elapsed_and_estimate(quick_build):
    """Every stage, the figures, HTML and PDF included, is announced with its estimate on a line
    stamped with the clock, and ends with its time; piped, every line is stamped."""
    err = quick_build.result.stderr
    stages = ["experiments", "figures", "html", "write"] + (["pdf"] if quick_build.pdf else [])
    for stage in stages:
        assert re.search(rf"\] {stage}: .*\((about \d+ (s|min)|under 1 s)\)$", err, re.M), stage
        assert re.search(rf"\] {stage}: done in \d+\.\d s$", err, re.M), stage
    assert "variance: ran in" in err
    lines = [line for line in err.splitlines() if not line.startswith("warning:")]
    assert lines and all(line.startswith("[") and " s" in line.split("]")[0] for line in lines), err
    n = len(EXPERIMENTS)
    assert "expected time: about" in err and f"{n} of {n} experiments to run" in err


def test_full_profile_on_cpu_says_how_long(tmp_path):
    """A full build on the CPU warns with a time range before it starts (shown even with -q)."""
    import io

    from reportgen.config import BuildConfig
    from reportgen.progress import Progress
    from reportgen.publish.cache import Cache
    from reportgen.timing import announce

    stream = io.StringIO()
    announce(BuildConfig(profile="full"), "cpu", Cache(tmp_path / "c"), Progress(quiet=True, stream=stream))
    line = stream.getvalue()
    assert "--profile full on the CPU would take" in line and "min" in line and "--device cuda" in line


@pytest.mark.parametrize("raised, code", [(SystemExit(0), 0), (SystemExit(None), 0), (SystemExit(2), 2),
                                          (SystemExit("a message"), 1), (None, 0)])
def test_the_command_leaves_with_mains_status_its_streams_flushed(monkeypatch, capsys, raised, code):
    """`reportgen` (cli.command) skips the interpreter's tidy exit but keeps main()'s exit status
    and what it printed, as sys.exit would, and runs the exit handlers libraries registered."""
    import atexit
    from reportgen import cli

    def main():
        print("printed", end="")
        if raised is not None:
            raise raised

    left, handled = [], []
    monkeypatch.setattr(cli, "main", main)
    monkeypatch.setattr(cli.os, "_exit", left.append)
    monkeypatch.setattr(atexit, "_run_exitfuncs", lambda: handled.append("cleaned up"))  # not this pytest's own
    cli.command()
    out, err = capsys.readouterr()
    assert left == [code] and out == "printed" and handled == ["cleaned up"]
    assert err == ("a message\n" if code == 1 else "")
