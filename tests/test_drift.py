"""reportgen.drift and the `diff` command: synthetic results.json documents, then the real one."""

import copy
import json
import math

import pytest
from click.testing import CliRunner

from reportgen import drift
from reportgen.diff_command import diff

VARIANCE_CI = "99% CI of the measurement: [15.590, 17.678]"


def check(quantity, verdict="confirmed", measured="1.0", tolerance="exact arithmetic", source="000 §A", documented="1"):
    return {
        "quantity": quantity,
        "source": source,
        "documented": documented,
        "measured": measured,
        "verdict": verdict,
        "tolerance": tolerance,
    }


def document(checks=None, results=..., provenance=None, status="ok"):
    """A results.json-shaped dict with one experiment, 'variance'."""
    checks = [
        check("Var(q·k) at d_k = 16", measured="16.634", tolerance=VARIANCE_CI, documented="d_k = 16"),
        check("sqrt(d_k), d_k = 16", measured="4.0000", documented="4.00"),
        check("Scaled Var, d_k = 512", verdict="contradicted", measured="513.68 / 512 = 1.00328",
              tolerance="with both roundings: [1.00322, 1.00334]"),
    ] if checks is None else checks
    results = {"sweep": [{"d_k": 16, "var": 16.634, "n": 4000}, {"d_k": 64, "var": 63.44, "n": 4000}],
               "label": "pairs"} if results is ... else results
    provenance = {
        "build_time": "2023-11-14T22:13:20+00:00", "profile": "quick", "seed": 0, "device": "cpu",
        "device_name": "CPU: test", "git_commit": "abc",
        "versions": {"python": "3.11.7", "torch": "2.13.0+cpu", "numpy": "2.4.6"},
    } if provenance is None else provenance
    verdicts = {v: sum(c["verdict"] == v for c in checks) for v in ("confirmed", "contradicted", "unverifiable")}
    return {
        "title": "t",
        "provenance": provenance,
        "verdicts": verdicts,
        "experiments": {
            "variance": {"title": "Variance", "status": status, "error": None, "nonfinite": [],
                         "results": results, "tables": [], "checks": checks},
        },
    }


def write(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def run_diff(*args):
    return CliRunner().invoke(diff, [str(a) for a in args])


# --- intervals ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "measured, tolerance, expected",
    [
        ("16.634", VARIANCE_CI, [("", 16.634, 15.590, 17.678)]),
        ("3 962.161", "99% CI of the measurement: [3 733.839, 4 190.483]", [("", 3962.161, 3733.839, 4190.483)]),
        ("5.886 (6/d_k = 6.000)", "99% CI of the measurement: [4.007, 7.765]", [("", 5.886, 4.007, 7.765)]),
        ("0.99126", "measured value's 99% interval: [0.93284, 1.04968]", [("", 0.99126, 0.93284, 1.04968)]),
        ("−0.097", "99% CI of the measurement: [−0.229, 0.035]", [("", -0.097, -0.229, 0.035)]),
        ("‖J‖_F: 0.285 [0.182, 0.447]; ‖J‖_2: 0.327 [0.208, 0.513]", "99% intervals",
         [("‖J‖_F", 0.285, 0.182, 0.447), ("‖J‖_2", 0.327, 0.208, 0.513)]),
        ("mean largest weight 0.913 [0.882, 0.943]", "read as ≥ 0.9", [("mean largest weight", 0.913, 0.882, 0.943)]),
    ],
)
def test_intervals_read(measured, tolerance, expected):
    """Values with their confidence interval, from the measured text or a tolerance naming the measurement."""
    got = [(i.label, i.value, i.lo, i.hi) for i in drift.intervals(check("q", measured=measured, tolerance=tolerance))]
    assert got == [(label, pytest.approx(v), pytest.approx(lo), pytest.approx(hi)) for label, v, lo, hi in expected]


@pytest.mark.parametrize(
    "measured, tolerance",
    [
        ("[-8.3, 6.5] in this run", "central 99% of max|q·k| over 60 repeats of 1000 pairs: [6.2, 13.6]"),
        ("16.20 (seed-42 rerun)", "99% interval of a 10 000-pair sample variance: [15.40, 17.87]"),
        ("513.68 / 512 = 1.00328", "the document's own unscaled value divided by d_k, with both roundings: [1.00322, 1.00334]"),
        ("4.0000", "exact arithmetic, compared at the printed 2 decimal place(s): 4.00"),
        ("25.0", VARIANCE_CI),  # an interval that does not hold its value is not its CI
        ("max |Δ| = 0 for c in [-100.0, -10.0, 10.0, 100.0]", "≤ 1e-12"),
        ("[[8, 5, 8], [3, 4, 8]]", "each entry"),
        ("—", "nothing to compute from"),
        ("nan (non-finite!)", VARIANCE_CI),
    ],
)
def test_intervals_conservative(measured, tolerance):
    """Ranges, intervals of the documented value and malformed pairs are not read as CIs."""
    assert drift.intervals(check("q", measured=measured, tolerance=tolerance)) == []


def test_parse_number():
    assert drift.parse_number("1 031.13") == pytest.approx(1031.13)
    assert drift.parse_number("6e-07") == pytest.approx(6e-7)
    assert drift.parse_number("−2.5") == -2.5
    assert drift.parse_number("12 34") is None
    assert drift.parse_number("inf") is None


# --- compare --------------------------------------------------------------------------


def test_identical_documents():
    d = document()
    result = drift.compare(d, copy.deepcopy(d))
    assert drift.exit_code(result) == 0
    assert result.verdict_changes == [] and result.beyond_ci == [] and result.provenance == []
    assert result.checks_compared == 3 and result.leaves_compared == 6 and result.leaves_changed == 0
    assert result.intervals_compared == 1
    assert drift.format_text(result).splitlines()[0] == "no verdict changed"


def test_flipped_verdict():
    old = document()
    new = copy.deepcopy(old)
    new["experiments"]["variance"]["checks"][1]["verdict"] = "contradicted"
    result = drift.compare(old, new)
    assert drift.exit_code(result) == 1
    (change,) = result.verdict_changes
    assert (change.experiment, change.quantity, change.old, change.new) == (
        "variance", "sqrt(d_k), d_k = 16", "confirmed", "contradicted")
    text = drift.format_text(result)
    assert text.splitlines()[0] == "1 verdict(s) changed"
    assert "sqrt(d_k), d_k = 16" in text and "confirmed -> contradicted" in text


def test_checks_matched_by_experiment_quantity_source():
    """Same quantity from another source is another check: one added, one removed, no verdict change."""
    old = document()
    new = copy.deepcopy(old)
    new["experiments"]["variance"]["checks"][1]["source"] = "001 §B"
    new["experiments"]["variance"]["checks"][1]["verdict"] = "contradicted"
    result = drift.compare(old, new)
    assert result.verdict_changes == []
    assert [(c.quantity, c.source) for c in result.checks_removed] == [("sqrt(d_k), d_k = 16", "000 §A")]
    assert [(c.quantity, c.source, c.verdict) for c in result.checks_added] == [
        ("sqrt(d_k), d_k = 16", "001 §B", "contradicted")]
    assert drift.exit_code(result) == 0
    assert "checks added:" in drift.format_text(result)


def test_moved_beyond_ci():
    old = document()
    new = copy.deepcopy(old)
    first = new["experiments"]["variance"]["checks"][0]
    first["measured"], first["tolerance"] = "18.200", "99% CI of the measurement: [17.100, 19.300]"
    result = drift.compare(old, new)
    (move,) = result.beyond_ci
    assert move.quantity == "Var(q·k) at d_k = 16"
    assert (move.old, move.new) == (pytest.approx(16.634), pytest.approx(18.2))
    assert move.new_outside_old and move.old_outside_new
    assert result.verdict_changes == [] and drift.exit_code(result) == 0
    assert result.measured_changed == 1
    assert "Var(q·k) at d_k = 16" in drift.format_text(result)


def test_moved_within_ci_is_not_listed():
    """A value that moved, but stays inside both intervals, is sampling noise: not listed."""
    old = document()
    new = copy.deepcopy(old)
    first = new["experiments"]["variance"]["checks"][0]
    first["measured"], first["tolerance"] = "16.900", "99% CI of the measurement: [15.800, 18.000]"
    result = drift.compare(old, new)
    assert result.beyond_ci == [] and result.intervals_compared == 1 and result.measured_changed == 1


def test_one_sided_move():
    """Only the new value outside the old interval (the new interval is wide enough to hold the old value)."""
    old = document()
    new = copy.deepcopy(old)
    first = new["experiments"]["variance"]["checks"][0]
    first["measured"], first["tolerance"] = "17.900", "99% CI of the measurement: [15.000, 21.000]"
    (move,) = drift.compare(old, new).beyond_ci
    assert move.new_outside_old and not move.old_outside_new


def test_results_leaves():
    old = document(results={"a": [1.0, 2.0, 3.0], "b": {"c": 10, "d": 0.5}, "e": "nan", "f": 1.0, "text": "x"})
    new = document(results={"a": [1.0 + 1e-13, 2.0 * (1 + 1e-6), 3.0], "b": {"c": 11}, "e": 0.25, "f": 1.0,
                            "g": 7.0, "text": "y"})
    result = drift.compare(old, new)
    assert result.leaves_compared == 6  # a[0..2], b.c, e, f (text leaves are not numbers)
    assert result.leaves_changed == 3  # a[1] (1e-6), b.c (int), e (nan -> number); not a[0] (1e-13)
    assert result.leaves_removed == ["variance: results.b.d"]
    assert result.leaves_added == ["variance: results.g"]
    paths = [c.path for c in result.largest]
    assert paths == ["results.e", "results.b.c", "results.a[1]"]  # largest relative change first
    assert math.isinf(result.largest[0].rel)
    assert result.largest[2].rel == pytest.approx(1e-6 / (1 + 1e-6), rel=1e-3)


def test_provenance_differences_listed():
    old = document()
    new = copy.deepcopy(old)
    new["provenance"]["seed"] = 1
    new["provenance"]["versions"]["torch"] = "2.14.0+cpu"
    new["provenance"]["build_time"] = "2023-11-15T00:00:00+00:00"
    result = drift.compare(old, new)
    assert [p[0] for p in result.provenance] == ["seed", "build_time", "versions.torch"]
    text = drift.format_text(result)
    assert "versions.torch: '2.13.0+cpu' -> '2.14.0+cpu'" in text and "seed: 0 -> 1" in text


def test_failed_experiment():
    """An experiment that failed: its status change and its vanished checks are listed."""
    old = document()
    new = document(checks=[], results=None, status="failed")
    result = drift.compare(old, new)
    assert result.status_changes == [["variance", "ok", "failed"]]
    assert len(result.checks_removed) == 3
    assert len(result.leaves_removed) == 6 + 1  # every leaf of the tree (the text leaf too)
    assert "experiment variance: status ok -> failed" in drift.format_text(result)


def test_to_json_is_strict_json():
    old = document(results={"x": "inf"})
    new = document(results={"x": 1.0})
    out = drift.to_json(drift.compare(old, new))
    text = json.dumps(out, allow_nan=False)  # inf relative change written as text
    assert json.loads(text)["largest"][0]["rel"] == "inf"
    assert out["exit_code"] == 0 and out["verdict_changed"] is False


@pytest.mark.parametrize(
    "doc, message",
    [
        ([1, 2], "top level is list"),
        ({"title": "x"}, "no 'experiments' object"),
        ({"experiments": {"v": []}}, "experiments.v is not an object"),
        ({"experiments": {"v": {"checks": [{"quantity": "q", "source": "s"}]}}}, "has no string 'verdict'"),
    ],
)
def test_shape_errors(doc, message):
    with pytest.raises(drift.ResultsShapeError, match=message):
        drift.compare(doc, document())


# --- the command ----------------------------------------------------------------------


def test_cli_identical(tmp_path):
    path = write(tmp_path, "a.json", document())
    result = run_diff(path, path)
    assert result.exit_code == 0, result.output
    assert "no verdict changed" in result.stdout


def test_cli_flipped_verdict(tmp_path):
    old = document()
    new = copy.deepcopy(old)
    new["experiments"]["variance"]["checks"][2]["verdict"] = "confirmed"
    result = run_diff(write(tmp_path, "old.json", old), write(tmp_path, "new.json", new))
    assert result.exit_code == 1, result.output
    assert "1 verdict(s) changed" in result.stdout
    assert "Scaled Var, d_k = 512" in result.stdout and "contradicted -> confirmed" in result.stdout


def test_cli_moved_outside_ci(tmp_path):
    old = document()
    new = copy.deepcopy(old)
    new["experiments"]["variance"]["checks"][0]["measured"] = "15.100"  # old CI [15.590, 17.678]
    new["experiments"]["variance"]["checks"][0]["tolerance"] = "99% CI of the measurement: [14.000, 16.200]"
    result = run_diff(write(tmp_path, "old.json", old), write(tmp_path, "new.json", new))
    assert result.exit_code == 0, result.output
    assert "moved beyond their confidence intervals: 1 of 1" in result.stdout
    assert "Var(q·k) at d_k = 16" in result.stdout and "new outside old CI" in result.stdout


def test_cli_json(tmp_path):
    old = document()
    new = copy.deepcopy(old)
    new["experiments"]["variance"]["checks"][1]["verdict"] = "unverifiable"
    new["provenance"]["device"] = "cuda"
    result = run_diff("--json", write(tmp_path, "old.json", old), write(tmp_path, "new.json", new))
    assert result.exit_code == 1, result.output
    out = json.loads(result.stdout)
    assert out["verdict_changes"][0]["new"] == "unverifiable"
    assert {"key": "device", "old": "cpu", "new": "cuda"} in out["provenance"]


@pytest.mark.parametrize(
    "content, needle",
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not JSON"),
        (b"{\"experiments\": {", "not JSON"),
        (b"", "not JSON"),
        (b"[1, 2, 3]", "not a reportgen results.json"),
        (b"{\"previous\": \"build\"}\n", "not a reportgen results.json"),
    ],
)
def test_cli_bad_input(tmp_path, content, needle):
    """Not JSON, or not a results.json: exit status 2 and one line on stderr, no traceback."""
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    good = write(tmp_path, "good.json", document())
    for args in ((bad, good), (good, bad)):
        result = run_diff(*args)
        assert result.exit_code == 2, result.output
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("Error: ") and needle in lines[0] and "bad.json" in lines[0]
        assert "Traceback" not in result.output


def test_cli_missing_file(tmp_path):
    result = run_diff(tmp_path / "absent.json", tmp_path / "absent.json")
    assert result.exit_code == 2
    assert "does not exist" in result.stderr


# --- the real document ----------------------------------------------------------------


def test_real_results_against_itself_and_a_flip(quick_build):
    """The session build's results.json: no drift against itself; one flipped verdict is found."""
    doc = quick_build.results
    same = drift.compare(doc, copy.deepcopy(doc))
    assert drift.exit_code(same) == 0 and same.leaves_changed == 0
    assert same.checks_compared == sum(quick_build.results["verdicts"].values())
    assert same.intervals_compared > 0  # the real measured/tolerance texts give intervals
    assert same.leaves_compared > 100

    flipped = copy.deepcopy(doc)
    name, exp = next((n, e) for n, e in flipped["experiments"].items() if e["checks"])
    target = exp["checks"][0]
    target["verdict"] = "contradicted" if target["verdict"] == "confirmed" else "confirmed"
    result = drift.compare(doc, flipped)
    assert drift.exit_code(result) == 1
    assert [(c.experiment, c.quantity) for c in result.verdict_changes] == [(name, target["quantity"])]


def test_no_torch_import():
    """drift and the diff command stay pure Python: comparing two files never loads torch."""
    import subprocess
    import sys

    code = ("import sys, reportgen.drift, reportgen.diff_command; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'numpy')))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
