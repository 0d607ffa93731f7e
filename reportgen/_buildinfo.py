"""Build hook: bake reportgen's own commit into the package it builds (`_build.json`).

setuptools runs it in place of `build_py` (pyproject.toml, [tool.setuptools.cmdclass]).
Provenance then names the code that made a report, whatever folder it runs in. An
editable install gets no file: it reads the commit of its own checkout at run time.
"""

import json
from pathlib import Path

from setuptools.command.build_py import build_py as _build_py

from reportgen.provenance import source_commit


class build_py(_build_py):  # noqa: N801 (setuptools' command name)
    """build_py that also writes reportgen/_build.json into the wheel."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        commit = source_commit(Path.cwd())
        if commit is None:
            return
        target = Path(self.build_lib) / "reportgen" / "_build.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"commit": commit}) + "\n", encoding="utf-8")
