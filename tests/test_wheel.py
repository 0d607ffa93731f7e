"""The wheel ships the templates, stylesheets and Matplotlib style inside reportgen.templates."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DATA = ("report.html.j2", "report.css", "screen.css", "report.mplstyle")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """A wheel built without isolation from a copy of the source tree (the checkout stays clean)."""
    pytest.importorskip("build")
    pytest.importorskip("setuptools")
    src = tmp_path_factory.mktemp("wheel-src")
    shutil.copy2(ROOT / "pyproject.toml", src)
    if (ROOT / "README.md").is_file():
        shutil.copy2(ROOT / "README.md", src)
    else:
        (src / "README.md").write_text("reportgen\n")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "reportgen", src / "reportgen", ignore=ignore)
    shutil.copytree(ROOT / "templates", src / "templates", ignore=ignore)
    dist = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (path,) = dist.glob("reportgen-*.whl")
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


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
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "reportgen = reportgen.cli:main" in wheel[entry_points].decode()
    assert not any("__pycache__" in n or n.startswith("tests/") for n in names)


@pytest.mark.slow
def test_wheel_holds_every_module_and_claims_file(wheel):
    """Every module and data file of reportgen/ (families, claims data) is in the wheel."""
    root = ROOT / "reportgen"
    files = [p for p in root.rglob("*") if p.suffix in (".py", ".toml") and "__pycache__" not in p.parts]
    missing = [str(p.relative_to(ROOT)) for p in files if str(p.relative_to(ROOT)) not in wheel]
    assert not missing, missing
