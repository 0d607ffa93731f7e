"""The finished parts of a run still going (the language model's stacks): kept, so a rerun resumes.

A run long enough to be interrupted (the full profile's language model: minutes on a GPU, hours on a
CPU) hands each finished part here as it ends; after Ctrl-C, a crash or a lost machine, the next build
with the same run key reads the parts back and computes only the rest. A part's key is the run's
cache key (the run's source closure, parameters, seed, device and thread count, library versions:
publish/cache.py) and the part's own description from the experiment (its configuration, its models,
the precision and compile mode it trained in), so a part is read back only by a run that would have
computed it the same way. The entries are the build cache's (signed and checked as every entry is),
named after the run's key, and removed once the whole run is stored.
"""

import hashlib
import json
import re

from reportgen.publish.cache import DIGEST


class Parts:
    """The parts of one run (`name`, its cache key `run_digest`) in a Cache; the experiment sees load/store."""

    def __init__(self, cache, name, run_digest):
        assert DIGEST.fullmatch(run_digest), run_digest
        self.cache = cache
        self.name = f"{name}.part.{run_digest}"

    def _digest(self, spec):
        return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:32]

    def load(self, spec):
        """The value stored for the part `spec` describes (plain JSON), or None."""
        payload = self.cache.load(self.name, self._digest(spec), lambda entry: check_part(entry, spec))
        return None if payload is None else payload["value"]

    def store(self, spec, value):
        """Keep a finished part; False (the cache warned once) when the folder refuses it."""
        return self.cache.store(self.name, self._digest(spec), {"spec": spec, "value": value})

    def clear(self):
        """Remove this run's parts (the whole run is stored): only files named as these entries are."""
        pattern = re.compile(rf"{re.escape(self.name)}-[0-9a-f]{{32}}\.json")
        try:
            for path in self.cache.folder.iterdir():
                if pattern.fullmatch(path.name):
                    path.unlink(missing_ok=True)
        except OSError:
            pass  # a part left behind is harmless: no other run has its key


def check_part(entry, spec):
    """Why a stored part is unfit for `spec`, or None."""
    if not isinstance(entry, dict) or set(entry) != {"spec", "value"}:
        return "not a part of a run"
    if entry["spec"] != json.loads(json.dumps(spec)):
        return "a part of something else"
    return None


def of(experiment, run_digest, cache):
    """The Parts store an experiment that resumes is handed, or None (it computes in one go)."""
    return Parts(cache, experiment.name, run_digest) if getattr(experiment, "resumable", False) else None
