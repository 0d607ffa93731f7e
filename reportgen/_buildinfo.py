"""Build hook: bake reportgen's own commit into the package it builds (`_build.json`).

setuptools runs these in place of `build_py` and `sdist` (pyproject.toml,
[tool.setuptools.cmdclass]). Provenance then names the code that made a report, whatever
folder it runs in. The sdist carries the file too, so a wheel built from it (what
`python -m build` does, and pip from an sdist) names the commit the sdist came from. An
editable install gets no file: it reads the commit of its own checkout at run time.
"""

import importlib.util
import json
from pathlib import Path

from setuptools.command.build_py import build_py as _build_py
from setuptools.command.sdist import sdist as _sdist

BUILD_JSON = Path("reportgen") / "_build.json"


def _source_commit(folder):
    """reportgen/_commit.py's source_commit, loaded by path: reportgen is not importable yet."""
    spec = importlib.util.spec_from_file_location("_reportgen_commit", Path(__file__).with_name("_commit.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.source_commit(folder)


class build_py(_build_py):  # noqa: N801 (setuptools' command name)
    """build_py that also writes reportgen/_build.json into the wheel."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        _write(Path(self.build_lib), _baked())


def _baked():
    """The _build.json text: of the git checkout built from, else the one an unpacked sdist carries."""
    commit = _source_commit(Path.cwd())
    if commit is not None:
        return json.dumps({"commit": commit}) + "\n"
    carried = Path.cwd() / BUILD_JSON
    return carried.read_text(encoding="utf-8") if carried.is_file() else None


def _write(root, text):
    if text is not None:
        target = root / BUILD_JSON
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


class sdist(_sdist):  # noqa: N801 (setuptools' command name)
    """sdist that also puts reportgen/_build.json into the source archive."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        _write(Path(base_dir), _baked())
