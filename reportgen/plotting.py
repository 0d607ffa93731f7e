"""How the families draw: Matplotlib's Agg backend, the report's style sheet and column width,
and one writable config folder shared with the worker processes.

Below every stage: a family's figures role draws with `subplots`, the worker pool sets up
`shared_config_dir` before it spawns, and reportgen.render.figures turns the drawn figures
into files.
"""

import atexit
import os
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

TEXT_WIDTH_IN = 6.4  # A4 minus the report's 2 cm side margins, a little under 17 cm


def shared_config_dir():
    """Give Matplotlib one writable config folder for this process and the workers it spawns,
    where its own is not writable (a read-only home in a CI container); nothing otherwise.

    Matplotlib then makes a temporary folder in each process, with a font cache built afresh
    in each, and removes it at exit; a worker is ended without its exit handlers
    (reportgen.workers), so each build left one folder per worker behind. The folder made here
    is set in the environment before the workers are spawned, and removed at this process's exit.
    """
    def writable(variable, default):  # Matplotlib's own test, for its config and its cache folder
        try:
            folder = Path(os.environ.get(variable) or default).expanduser().resolve() / "matplotlib"
            folder.mkdir(parents=True, exist_ok=True)
            return os.access(folder, os.W_OK) and folder.is_dir()
        except (OSError, RuntimeError):
            return False

    if os.environ.get("MPLCONFIGDIR") or not sys.platform.startswith(("linux", "freebsd")):
        return None
    if writable("XDG_CONFIG_HOME", "~/.config") and writable("XDG_CACHE_HOME", "~/.cache"):
        return None
    try:
        folder = tempfile.mkdtemp(prefix="reportgen-matplotlib-")
    except OSError:
        return None  # Matplotlib says so itself, in each process
    os.environ["MPLCONFIGDIR"] = folder
    atexit.register(shutil.rmtree, folder, True)
    return folder


def subplots(nrows=1, ncols=1, height=2.8, **kwargs):
    """A figure in the report's style, as wide as the text column."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    style = resources.files("reportgen.templates") / "report.mplstyle"
    with resources.as_file(style) as path:
        plt.style.use(str(path))
    return plt.subplots(nrows, ncols, figsize=(TEXT_WIDTH_IN, height), **kwargs)
