"""Provenance names reportgen's own version and commit, never the folder the build runs in."""

import json
import subprocess
import sys

import pytest

from reportgen import __version__
from reportgen.publish import provenance


def test_identity_ignores_the_working_directory(tmp_path, monkeypatch):
    """Run from inside another git repository: the commit is reportgen's, not that repository's."""
    if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
        pytest.skip("no git")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "f").write_text("x")
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.email=a@b", "-c", "user.name=a", "add", "f"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "x"],
                   check=True)
    other = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    monkeypatch.chdir(tmp_path)
    own = provenance.reportgen_build()
    assert own["version"] == __version__
    assert own["commit"] is None or not own["commit"].startswith(other)


def test_baked_commit_wins(tmp_path, monkeypatch):
    """An installed package's _build.json (written at build time) is what provenance reports."""
    from importlib import resources

    fake = tmp_path / "reportgen"
    fake.mkdir()
    (fake / "_build.json").write_text(json.dumps({"commit": "0123456789abcdef"}))
    real = resources.files
    monkeypatch.setattr(resources, "files", lambda name: fake if name == "reportgen" else real(name))
    assert provenance.reportgen_build() == {"version": __version__, "commit": "0123456789abcdef", "source": "package"}


def test_build_hook_writes_the_commit(tmp_path):
    """The setuptools hook bakes the checkout's commit into the built package."""
    from reportgen.publish.provenance import source_commit

    pytest.importorskip("setuptools")
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    commit = source_commit(root)
    if commit is None:
        pytest.skip("not a git checkout of reportgen")
    code = (
        "import sys; from setuptools.dist import Distribution; from reportgen._buildinfo import build_py;"
        f"cmd = build_py(Distribution({{'packages': []}})); cmd.build_lib = {str(tmp_path)!r};"
        "cmd.editable_mode = False; cmd.ensure_finalized(); cmd.build_lib = " + repr(str(tmp_path)) + "; cmd.run()"
    )
    subprocess.run([sys.executable, "-c", code], cwd=root, check=True, capture_output=True)
    assert json.loads((tmp_path / "reportgen" / "_build.json").read_text())["commit"] == commit


@pytest.mark.parametrize("cores, said", [(1, ", 1 core"), (2, ", 2 cores"), (None, ", 1 core")])
def test_the_cpu_is_named_with_its_cores_counted_in_english(monkeypatch, cores, said):
    monkeypatch.setattr(provenance.os, "cpu_count", lambda: cores)
    assert provenance.device_name("cpu").endswith(said)
