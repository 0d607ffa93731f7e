"""Reproducibility: a second cold build in a fresh folder and a fresh interpreter is byte-identical.

In a file of its own: the second build runs in the background from the session's start
(conftest.BUILDS), and this file is the last that pytest-xdist hands out, so no worker waits for
it while other tests are left.
"""

from conftest import describe
from test_build import figure_files

from reportgen.experiments import EXPERIMENTS


def test_same_seed_gives_identical_bytes(fresh_build, quick_build):
    """A second --no-cache build in a fresh folder and a fresh interpreter is byte-identical.

    SOURCE_DATE_EPOCH is set for the session, so the PDF's dates and identifier are fixed too.
    """
    proc, tmp_path = fresh_build.proc, fresh_build.root
    assert proc.returncode == 0, describe(proc)
    assert f"ran {len(EXPERIMENTS)} of {len(EXPERIMENTS)}, 0 from cache" in proc.stdout
    assert (tmp_path / "output" / "results.json").read_bytes() == quick_build.results_bytes
    assert (tmp_path / "output" / "report.html").read_bytes() == quick_build.html_bytes
    if quick_build.pdf:
        assert (tmp_path / "output" / "report.pdf").read_bytes() == quick_build.pdf.read_bytes()
    assert figure_files(tmp_path / "figures") == figure_files(quick_build.root / "figures")
