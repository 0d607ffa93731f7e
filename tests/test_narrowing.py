"""A partial build (--only, --format) never silently replaces a fuller set: refused before any work."""

import json

import pytest
from conftest import describe, invoke

from reportgen.experiments import EXPERIMENTS
from reportgen.publish.outputs import MANIFEST, narrowing

FULL = {"build": "b1", "files": {"results.json": "x", "report.html": "x", "report.pdf": "x",
                                  "report-handout.pdf": "x", "errata-000.pdf": "x", "errata-000.html": "x"},
        "experiments": list(EXPERIMENTS), "formats": ["html", "pdf"]}


def plant(folder, manifest=FULL):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MANIFEST).write_text(json.dumps(manifest))
    return folder


def test_narrowing_names_what_would_go(tmp_path):
    out = plant(tmp_path / "output")
    assert narrowing(out, list(EXPERIMENTS), ("html", "pdf")) == ""
    line = narrowing(out, list(EXPERIMENTS), ("html",))
    assert "remove report.pdf, report-handout.pdf, errata-000.pdf" in line and "\n" not in line
    line = narrowing(out, ["variance"], ("html", "pdf"))
    assert "a build of variance only" in line and "remove" not in line
    assert narrowing(tmp_path / "nothing-here", ["variance"], ("html",)) == ""


def test_old_manifest_is_judged_by_its_files_and_results(tmp_path):
    """A set written before manifests named their scope: its formats from its files, its
    experiments from its results.json."""
    out = plant(tmp_path / "output", {"build": "b0", "files": {"results.json": "x", "report.html": "x"}})
    (out / "results.json").write_text(json.dumps({"experiments": {"variance": {}, "lm": {}}}))
    assert narrowing(out, ["variance", "lm"], ("html",)) == ""
    assert "a build of variance only" in narrowing(out, ["variance"], ("html", "pdf"))


@pytest.mark.parametrize("args", [["--only", "variance"], ["--format", "html"]])
def test_partial_build_is_refused_before_any_work(tmp_path, args):
    out = plant(tmp_path / "output")
    before = sorted(p.name for p in out.iterdir())
    result = invoke(["build", "--profile", "quick", *args], tmp_path)
    assert result.exit_code == 2, describe(result)
    (line,) = result.output.strip().splitlines()
    assert "--replace" in line and "fuller build" in line
    assert sorted(p.name for p in out.iterdir()) == before
    assert not (tmp_path / ".reportgen-cache").exists()  # no work began


def test_replace_goes_ahead(tmp_path, monkeypatch):
    """--replace passes the refusal (the build itself is not run here)."""
    from reportgen import pipeline
    from reportgen.publish import outputs

    plant(tmp_path / "output")
    seen = []

    def fake_build(config, progress, catalog=None, families=None):
        outputs.refuse_narrowing(config, list(config.only or EXPERIMENTS))
        seen.append(config.replace)
        return "built", []

    monkeypatch.setattr(pipeline, "build", fake_build)
    result = invoke(["build", "--profile", "quick", "--only", "variance", "--format", "html", "--replace"], tmp_path)
    assert result.exit_code == 0, describe(result)
    assert seen == [True]
