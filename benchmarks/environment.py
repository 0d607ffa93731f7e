"""Where a benchmark ran: the machine, the commit, the load and the library versions."""

import datetime
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VERSIONED = ("torch", "numpy", "weasyprint", "matplotlib", "reportgen")


def load_average():
    """The 1-, 5- and 15-minute load averages, or None where the system has none."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def machine():
    """CPU model, cores, memory and system of this machine."""
    cpu, memory = platform.machine(), None
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                memory = round(int(line.split()[1]) / 1024**2)
                break
    except (OSError, ValueError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": memory,
            "system": f"{platform.system()} {platform.release()}"}


def git_commit():
    """The checkout's short commit, marked when it has uncommitted changes; "unknown" outside git."""
    try:
        def git(*args):
            return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True,
                                  check=True, timeout=10).stdout.strip()
        head = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("+changes" if dirty else "")


def versions():
    """{package: version} of Python and the libraries the timings depend on."""
    out = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            out[name] = metadata.version("attention-reportgen" if name == "reportgen" else name)  # its index name
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def environment():
    """Everything a result needs beside its numbers to be read later."""
    return {"date": datetime.date.today().isoformat(), "machine": machine(), "commit": git_commit(),
            "versions": versions(), "load_before": load_average()}
