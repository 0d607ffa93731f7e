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
    for name in manifest["files"]:
        (folder / name).write_text("x")
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
    assert "--replace" in line and "holds a build this one does not cover" in line
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


def test_only_files_still_there_and_experiments_this_version_has_count(tmp_path):
    out = plant(tmp_path / "output")
    for name in ("report.pdf", "report-handout.pdf", "errata-000.pdf"):
        (out / name).unlink()
    assert narrowing(out, list(EXPERIMENTS), ("html",)) == ""  # nothing left to remove
    old = dict(FULL, experiments=[*EXPERIMENTS, "attention_old"])  # a set from another version
    out = plant(tmp_path / "other", old)
    assert narrowing(out, list(EXPERIMENTS), ("html", "pdf"), known=list(EXPERIMENTS)) == ""
    one = plant(tmp_path / "one", dict(FULL, experiments=["variance"]))
    assert "(a build of variance) with a build of saturation only" in narrowing(one, ["saturation"], ("html", "pdf"))


def test_files_no_build_wrote_are_not_replaced_without_replace(tmp_path):
    """A folder without a manifest holding report.pdf or CITATION.cff (a course repository's own):
    a build would write over or remove them. Refused, naming them; --replace goes ahead."""
    from reportgen.publish.outputs import refusal

    out = tmp_path / "output"
    out.mkdir()
    (out / "CITATION.cff").write_text("title: mine\n")
    (out / "report.pdf").write_text("mine")
    (out / "notes.txt").write_text("mine")  # never a build's: not named, never touched
    (out / "report-notes.txt").write_text("mine")
    line = refusal(out, list(EXPERIMENTS), ("html",))
    assert line.startswith(f"{out} holds CITATION.cff, report.pdf but no .reportgen-manifest.json") and "--replace" in line
    result = invoke(["build", "--profile", "quick", "--format", "html"], tmp_path)
    assert result.exit_code == 2 and "CITATION.cff, report.pdf" in result.stderr, describe(result)
    assert (out / "report.pdf").read_text() == "mine" and not (tmp_path / ".reportgen-cache").exists()


def test_a_build_that_began_beside_this_one_is_asked_about_again_under_the_lock(tmp_path):
    """Two builds into one folder: the full one published while the html-only one ran. The
    html-only one's early check had passed; holding the lock it is refused, and the full set stays."""
    from reportgen.errors import ConfigError
    from reportgen.publish.outputs import publish

    out = plant(tmp_path / "output")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    scope = {"experiments": list(EXPERIMENTS), "formats": ["html"]}
    with pytest.raises(ConfigError, match="while this build ran, .* would remove report.pdf"):
        publish(out, {"results.json": "{}", "report.html": "<p>"}, "b2", scope=scope, replace=False)
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name != ".reportgen-lock"} == before
    publish(out, {"results.json": "{}", "report.html": "<p>"}, "b2", scope=scope, replace=True)
    assert not (out / "report.pdf").exists()  # --replace: the set is this build's


def test_a_publish_cut_short_is_finished_before_the_set_is_judged(tmp_path):
    """A full build committed its set (the journal) but was killed before the renames: the folder's
    manifest is still the older one's. An --only build is judged against the committed set, before
    any work, not after it."""
    from dataclasses import replace

    from reportgen.config import BuildConfig
    from reportgen.errors import ConfigError
    from reportgen.publish import outputs

    out = tmp_path / "output"
    out.mkdir()
    full = {"results.json": "{}", "report.html": "<p>", "report.pdf": "%PDF"}
    data = {**full, MANIFEST: json.dumps(FULL | {"files": {n: "x" for n in full}})}
    for name, payload in data.items():
        (out / f".{name}.staged").write_text(payload)
    (out / ".reportgen-swap.json").write_text(json.dumps({"rename": list(data), "remove": []}))
    config = replace(BuildConfig(), output=str(out), format=("html", "pdf"), only=("variance",))
    with pytest.raises(ConfigError, match="holds a build this one does not cover"):
        outputs.refuse_narrowing(config, ["variance"], known=list(EXPERIMENTS))
    assert (out / "report.pdf").read_text() == "%PDF" and not (out / ".reportgen-swap.json").exists()
