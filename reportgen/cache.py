"""Results cache keyed on everything that can change a number."""

import hashlib
import importlib
import inspect
import json
import sys
from importlib import metadata
from pathlib import Path

from reportgen.atomic import write_atomic

# Modules whose code shapes every experiment's numbers besides the experiment's own
# (read as files: importing sampling would import torch, which a cached build never needs).
SHARED_MODULES = ("sampling.py", "stats.py")


def key(experiment, params, seed, device_kind):
    """Hash of the experiment's source, its parameters, the seed, the device and library versions."""
    module = sys.modules[experiment.run.__module__]
    root = Path(__file__).parent
    sources = [inspect.getsource(module)] + [(root / name).read_text() for name in SHARED_MODULES]
    material = {
        "experiment": experiment.name,
        "source": hashlib.sha256("\n".join(sources).encode()).hexdigest(),
        "params": repr(params),
        "seed": seed,
        "device": device_kind,
        "torch": metadata.version("torch"),  # without importing torch: a cached build never needs it
        "numpy": metadata.version("numpy"),
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:32]


def figures_key(experiment, results):
    """Hash of the results and of the code and style that draw the experiment's figures."""
    root = Path(__file__).parent
    module = Path(sys.modules[experiment.run.__module__].__file__)
    family = sorted(module.parent.glob(f"{module.stem}*.py"))  # variance.py, variance_report.py, …
    # stats.py too: figures draw confidence intervals with it.
    files = family + [root / "experiments" / "base.py", root / "figures.py", root / "stats.py"]
    style = Path(importlib.import_module("reportgen.templates").__file__).parent / "report.mplstyle"
    digest = hashlib.sha256(json.dumps(results, sort_keys=True).encode())
    for path in files + [style]:
        digest.update(path.read_bytes())
    digest.update(metadata.version("matplotlib").encode())
    return digest.hexdigest()[:32]


def _path(cache_dir, name, digest):
    return Path(cache_dir) / f"{name}-{digest}.json"


def load(cache_dir, name, digest):
    """Cached results, or None when missing or unreadable (a corrupt entry is recomputed)."""
    path = _path(cache_dir, name, digest)
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != digest or "results" not in entry:
        return None
    return entry["results"]


def store(cache_dir, name, digest, results):
    """Save results atomically under their key."""
    write_atomic(_path(cache_dir, name, digest), json.dumps({"key": digest, "results": results}, allow_nan=True))
