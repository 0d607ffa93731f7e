"""Build hook: bake reportgen's own commit into the package it builds (`_build.json`).

setuptools runs it in place of `build_py` (pyproject.toml, [tool.setuptools.cmdclass]).
Provenance then names the code that made a report, whatever folder it runs in. An
editable install gets no file: it reads the commit of its own checkout at run time.
"""

import importlib.util
import json
from pathlib import Path

from setuptools.command.build_py import build_py as _build_py


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
        commit = _source_commit(Path.cwd())
        if commit is None:
            return
        target = Path(self.build_lib) / "reportgen" / "_build.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"commit": commit}) + "\n", encoding="utf-8")
