"""Where, when and with what a report was built."""

import datetime
import json
import os
import platform
from importlib import metadata, resources
from pathlib import Path

from reportgen import DISTRIBUTION, __version__
from reportgen._commit import source_commit
from reportgen.errors import ConfigError

PACKAGES = ("reportgen", "torch", "numpy", "matplotlib", "jinja2", "click", "weasyprint", "ziamath")
# reportgen's own version is that of its distribution, which has another name on the index
DISTRIBUTIONS = {"reportgen": DISTRIBUTION}


def source_date_epoch():
    """SOURCE_DATE_EPOCH as a UTC datetime, or None when unset (reproducible-builds.org)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not epoch:
        return None
    try:
        if not epoch.isdigit():
            raise ValueError
        return datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc)
    except (ValueError, OverflowError, OSError):
        raise ConfigError(
            f"SOURCE_DATE_EPOCH={epoch[:40]!r} is not a time reportgen can use: give whole seconds "
            "since 1970-01-01 before the year 9999, or unset it"
        ) from None


def build_time(now=None):
    """UTC time stamp for new results: SOURCE_DATE_EPOCH when set, else `now` (a clock read the
    caller also keeps), else the clock."""
    moment = source_date_epoch() or now or datetime.datetime.now(datetime.timezone.utc)
    return moment.replace(microsecond=0)


def reportgen_build():
    """reportgen's own version and commit: from the package, never from the working directory.

    An installed wheel carries the commit it was built from in `_build.json` (written by
    `reportgen._buildinfo` at build time). A source checkout (an editable install) has none:
    its commit is read from the git repository the package itself lives in, with '+dirty'
    when that checkout has local changes. Where neither is known, the commit is None.
    """
    try:
        baked = json.loads((resources.files("reportgen") / "_build.json").read_text(encoding="utf-8"))
        if isinstance(baked, dict) and isinstance(baked.get("commit"), str):
            return {"version": __version__, "commit": baked["commit"], "source": "package"}
    except (OSError, ValueError):
        pass
    package = Path(__file__).resolve().parents[1]  # reportgen/, above this stage folder
    return {"version": __version__, "commit": source_commit(package), "source": "checkout"}


def versions():
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(DISTRIBUTIONS.get(name, name))
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def device_name(device):
    """A human name for the torch device the experiments ran on."""
    if device == "cuda":
        import torch

        return f"CUDA: {torch.cuda.get_device_name(0)}"
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cores = os.cpu_count() or 1
    return f"CPU: {cpu}, {cores} core{'' if cores == 1 else 's'}"


def collect(config, device, when):
    """Provenance of a build whose newest result was computed at `when` (ISO 8601, UTC)."""
    return {
        "build_time": when,
        "profile": config.profile,
        "seed": config.seed,
        "device": device,
        "device_name": device_name(device),
        "reportgen": reportgen_build(),
        "versions": versions(),
    }
