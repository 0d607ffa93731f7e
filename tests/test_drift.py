"""reportgen.judging.drift and the `diff` command: synthetic results.json documents, then the real one."""

import copy
import json
import math
import re

import pytest
from click.testing import CliRunner

from reportgen.diff_command import diff
from reportgen.judging import drift


def as_text(result, width=200):
    """What `reportgen diff` prints for `result` in a terminal `width` columns wide, without colour."""
    import io

    from reportgen.diff_command import drift_renderables
    from reportgen.terminal import console, print_renderables

    out = console(io.StringIO(), color=False, width=width)
    print_renderables(drift_renderables(result, out), out)
    return out.file.getvalue()


def row_of(text, *cells):
    """Whether one line of `text` holds `cells` in this order (a table row)."""
    return any(re.search(".*".join(map(re.escape, cells)), line) for line in text.splitlines())

def claim(claim_id, verdict="confirmed", value=1.0, lo=None, hi=None, label=None):
    """A claim row of results.json with a numeric measurement."""
    return {
        "id": claim_id,
        "label": label or claim_id,
        "doc": "000",
        "section": "A",
        "quote": "q",
        "documented": "1",
        "measurement": {"value": value, "lo": lo, "hi": hi, "n": 4000, "method": "m", "detail": []},
        "measured": str(value),
        "rule": "interval" if lo is not None else "exact",
        "verdict": verdict,
    }


def document(claims=None, results=..., provenance=None, status="ok"):
    """A results.json-shaped dict with one experiment, 'variance'."""
    claims = [
        claim("000.var-law-dk16", value=16.634, lo=15.590, hi=17.678, label="Var(q·k) at d_k = 16"),
        claim("000.verify-sqrt-dk16", value=4.0),
        claim("000.verify-ratio-dk512", verdict="contradicted", value=1.00328, lo=1.00322, hi=1.00334),
    ] if claims is None else claims
    results = {"sweep": [{"d_k": 16, "var": 16.634, "n": 4000}, {"d_k": 64, "var": 63.44, "n": 4000}],
               "label": "pairs"} if results is ... else results
    provenance = {
        "build_time": "2023-11-14T22:13:20+00:00", "profile": "quick", "seed": 0, "device": "cpu",
        "device_name": "CPU: test", "git_commit": "abc",
        "versions": {"python": "3.11.7", "torch": "2.13.0+cpu", "numpy": "2.4.6"},
    } if provenance is None else provenance
    verdicts = {v: sum(c["verdict"] == v for c in claims) for v in ("confirmed", "contradicted", "unverifiable")}
    return {
        "schema_version": 2,
        "title": "t",
        "provenance": provenance,
        "verdicts": verdicts,
        "claims": claims,
        "experiments": {
            "variance": {"title": "Variance", "status": status, "error": None, "nonfinite": [],
                         "results": results, "tables": []},
        },
    }


def write(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def run_diff(*args, columns=200):
    """`reportgen diff ARGS` in a terminal `columns` wide (wide enough for a table row per line)."""
    return CliRunner().invoke(diff, [str(a) for a in args], env={"COLUMNS": str(columns)})


# --- compare --------------------------------------------------------------------------


def test_identical_documents():
    d = document()
    result = drift.compare(d, copy.deepcopy(d))
    assert drift.exit_code(result) == 0
    assert result.verdict_changes == [] and result.beyond_ci == [] and result.provenance == []
    assert result.checks_compared == 3 and result.leaves_compared == 6 and result.leaves_changed == 0
    assert result.intervals_compared == 2
    assert as_text(result).splitlines()[0] == "no verdict changed"


def test_flipped_verdict():
    old = document()
    new = copy.deepcopy(old)
    new["claims"][1]["verdict"] = "contradicted"
    result = drift.compare(old, new)
    assert drift.exit_code(result) == 1
    (change,) = result.verdict_changes
    assert (change.id, change.old, change.new) == ("000.verify-sqrt-dk16", "confirmed", "contradicted")
    text = as_text(result)
    assert text.splitlines()[0] == "1 verdict(s) changed"
    assert row_of(text, "000.verify-sqrt-dk16", "confirmed -> contradicted")


def test_claims_matched_by_id():
    """A claim matched by id whatever its label; a new id is added, a vanished one removed (exit 1)."""
    old = document()
    new = copy.deepcopy(old)
    new["claims"][1]["label"] = "renamed"
    new["claims"][2]["id"] = "000.other"
    result = drift.compare(old, new)
    assert result.verdict_changes == []
    assert [c.id for c in result.checks_removed] == ["000.verify-ratio-dk512"]
    assert [(c.id, c.verdict) for c in result.checks_added] == [("000.other", "contradicted")]
    assert drift.exit_code(result) == 1
    text = as_text(result)
    assert "claims added" in text and "claims removed" in text
    assert row_of(text, "000.other", "contradicted") and row_of(text, "000.verify-ratio-dk512", "contradicted")


def test_added_claim_alone_exits_zero():
    old = document()
    new = copy.deepcopy(old)
    new["claims"].append(claim("000.new"))
    result = drift.compare(old, new)
    assert drift.exit_code(result) == 0 and [c.id for c in result.checks_added] == ["000.new"]


def test_every_claim_gone_is_a_change():
    result = drift.compare(document(), document(claims=[]))
    assert drift.exit_code(result) == 1 and len(result.checks_removed) == 3


def test_moved_beyond_ci():
    old = document()
    new = copy.deepcopy(old)
    new["claims"][0]["measurement"].update(value=18.2, lo=17.1, hi=19.3)
    result = drift.compare(old, new)
    (move,) = result.beyond_ci
    assert move.id == "000.var-law-dk16" and move.label == "Var(q·k) at d_k = 16"
    assert (move.old, move.new) == (pytest.approx(16.634), pytest.approx(18.2))
    assert move.new_outside_old and move.old_outside_new
    assert result.verdict_changes == [] and drift.exit_code(result) == 0
    assert result.measured_changed == 1
    assert "Var(q·k) at d_k = 16" in as_text(result)


def test_moved_within_ci_is_not_listed():
    """A value that moved, but stays inside both intervals, is sampling noise: not listed."""
    old = document()
    new = copy.deepcopy(old)
    new["claims"][0]["measurement"].update(value=16.9, lo=15.8, hi=18.0)
    result = drift.compare(old, new)
    assert result.beyond_ci == [] and result.intervals_compared == 2 and result.measured_changed == 1


def test_one_sided_move():
    """Only the new value outside the old interval (the new interval is wide enough to hold the old value)."""
    old = document()
    new = copy.deepcopy(old)
    new["claims"][0]["measurement"].update(value=17.9, lo=15.0, hi=21.0)
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
    text = as_text(result)
    assert row_of(text, "versions.torch", "2.13.0+cpu", "2.14.0+cpu") and row_of(text, "seed", "0", "1")
    assert "'" not in text and "{" not in text  # values as text, not Python reprs


def test_failed_experiment():
    """An experiment that failed: its status change and its vanished checks are listed."""
    old = document()
    new = document(claims=[], results=None, status="failed")
    result = drift.compare(old, new)
    assert result.status_changes == [["variance", "ok", "failed"]]
    assert len(result.checks_removed) == 3
    assert len(result.leaves_removed) == 6 + 1  # every leaf of the tree (the text leaf too)
    assert row_of(as_text(result), "variance", "status ok -> failed")


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
        ({"title": "x"}, "schema version 1"),
        ({"schema_version": 2, "title": "x"}, "no 'experiments' object"),
        ({"schema_version": 2, "experiments": {"v": []}}, "experiments.v is not an object"),
        ({"schema_version": 2, "experiments": {}}, "no 'claims' list"),
        ({"schema_version": 2, "experiments": {}, "claims": [{"id": "a"}]}, "has no string 'verdict'"),
        ({"schema_version": 2, "experiments": {}, "claims": [{"id": "a", "verdict": "maybe"}]}, "unknown verdict"),
        ({"schema_version": 2, "experiments": {}, "claims": [{"id": "a", "verdict": "confirmed"}] * 2},
         "appears twice"),
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
    new["claims"][2]["verdict"] = "confirmed"
    result = run_diff(write(tmp_path, "old.json", old), write(tmp_path, "new.json", new))
    assert result.exit_code == 1, result.output
    assert "1 verdict(s) changed" in result.stdout
    assert row_of(result.stdout, "000.verify-ratio-dk512", "contradicted -> confirmed")


def test_cli_moved_outside_ci(tmp_path):
    old = document()
    new = copy.deepcopy(old)
    new["claims"][0]["measurement"].update(value=15.1, lo=14.0, hi=16.2)  # old interval [15.590, 17.678]
    result = run_diff(write(tmp_path, "old.json", old), write(tmp_path, "new.json", new))
    assert result.exit_code == 0, result.output
    assert "moved beyond their intervals: 1 of 2" in result.stdout
    assert "Var(q·k) at d_k = 16" in result.stdout and "new outside old CI" in result.stdout


def test_cli_json(tmp_path):
    old = document()
    new = copy.deepcopy(old)
    new["claims"][1]["verdict"] = "unverifiable"
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
    assert same.checks_compared == len(doc["claims"])
    assert same.intervals_compared > 0  # measurements with intervals, read as numbers
    assert same.leaves_compared > 100

    flipped = copy.deepcopy(doc)
    target = flipped["claims"][0]
    target["verdict"] = "contradicted" if target["verdict"] == "confirmed" else "confirmed"
    result = drift.compare(doc, flipped)
    assert drift.exit_code(result) == 1
    assert [c.id for c in result.verdict_changes] == [target["id"]]


def test_no_torch_import():
    """drift and the diff command stay pure Python: comparing two files never loads torch."""
    import subprocess
    import sys

    code = ("import sys, reportgen.judging.drift, reportgen.diff_command; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'numpy')))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
