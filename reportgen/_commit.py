"""The commit of reportgen's own source checkout: standard library only.

The build hook (reportgen/_buildinfo.py) runs before reportgen is importable and loads this
file by its path; provenance imports it as a module. One home for both.
"""

import subprocess
from pathlib import Path


def source_commit(folder):
    """HEAD of the git repository holding `folder`, '+dirty' with local changes; None when not one."""
    try:
        top = subprocess.run(["git", "-C", str(folder), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, timeout=5, check=True).stdout.strip()
        # Only when the package is that repository's own code, not a folder vendored into another.
        if not (Path(top) / "pyproject.toml").is_file() or not (Path(top) / "reportgen").is_dir():
            return None
        head = subprocess.run(["git", "-C", top, "rev-parse", "HEAD"],
                              capture_output=True, text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", top, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+dirty" if dirty else "")
