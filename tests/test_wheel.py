"""The distributions: the sdist, and the wheel built from it, with the templates, the claims data and the commit."""

import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DATA = ("report.html.j2", "report.css", "screen.css", "report.mplstyle")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The sdist and the wheel built from it (`python -m build`, without isolation) of a copy of
    the source tree made a git repository of its own (the checkout stays clean)."""
    pytest.importorskip("build")
    pytest.importorskip("setuptools")
    src = tmp_path_factory.mktemp("wheel-src")
    shutil.copy2(ROOT / "pyproject.toml", src)
    if (ROOT / "README.md").is_file():
        shutil.copy2(ROOT / "README.md", src)
    else:
        (src / "README.md").write_text("reportgen\n")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "_build.json")
    shutil.copytree(ROOT / "reportgen", src / "reportgen", ignore=ignore)
    shutil.copytree(ROOT / "templates", src / "templates", ignore=ignore)
    git = ["git", "-C", str(src), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "copy"], check=True)
    commit = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    dist = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (wheel_path,) = dist.glob("attention_reportgen-*.whl")  # the distribution's name, normalized
    (sdist_path,) = dist.glob("attention_reportgen-*.tar.gz")
    with zipfile.ZipFile(wheel_path) as archive:
        wheel = {name: archive.read(name) for name in archive.namelist()}
    with tarfile.open(sdist_path) as archive:
        sdist = {name.split("/", 1)[1]: name for name in archive.getnames() if "/" in name}
    return SimpleNamespace(wheel=wheel, sdist=sdist, commit=commit)


@pytest.fixture(scope="module")
def wheel(built):
    return built.wheel


@pytest.mark.slow
def test_distribution_is_attention_reportgen_with_the_reportgen_command(wheel):
    """`reportgen` on the package index is another project: the distribution has its own name."""
    (metadata,) = [n for n in wheel if n.endswith(".dist-info/METADATA")]
    assert "\nName: attention-reportgen\n" in wheel[metadata].decode()


@pytest.mark.slow
def test_sdist_holds_what_the_wheel_is_built_from(built):
    """The wheel is built from the sdist: templates, claims data and the build's commit are in it."""
    for name in ("pyproject.toml", "README.md", "templates/report.html.j2", "templates/references.toml",
                 "reportgen/claims/documents.toml", "reportgen/_buildinfo.py"):
        assert name in built.sdist, name
    assert json.loads(built.wheel["reportgen/_build.json"]) == {"commit": built.commit}


@pytest.mark.slow
@pytest.mark.parametrize("name", PACKAGE_DATA)
def test_wheel_contains_template_file(wheel, name):
    """reportgen/templates/<name> is in the wheel, byte for byte as in templates/."""
    assert wheel[f"reportgen/templates/{name}"] == (ROOT / "templates" / name).read_bytes()


@pytest.mark.slow
def test_wheel_contains_code_and_entry_point(wheel):
    """The wheel has the package, the experiments, the templates package and the console script."""
    names = set(wheel)
    for module in ("reportgen/__init__.py", "reportgen/cli.py", "reportgen/experiments/__init__.py", "reportgen/templates/__init__.py"):
        assert module in names, module
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]  # the command stays reportgen
    assert "reportgen = reportgen.cli:command" in wheel[entry_points].decode()
    assert not any("__pycache__" in n or n.startswith("tests/") for n in names)


@pytest.mark.slow
def test_wheel_holds_every_module_and_claims_file(wheel):
    """Every module and data file of reportgen/ (families, claims data) is in the wheel."""
    root = ROOT / "reportgen"
    files = [p for p in root.rglob("*") if p.suffix in (".py", ".toml") and "__pycache__" not in p.parts]
    missing = [str(p.relative_to(ROOT)) for p in files if str(p.relative_to(ROOT)) not in wheel]
    assert not missing, missing
