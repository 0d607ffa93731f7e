"""How long each stage of a build takes here: learned per stage, cold and cached apart.

A stage is one experiment, the figures, the HTML, the PDFs or writing the files. It is
"cold" when it computed and "cached" when the cache served it: a rebuild with nothing
changed takes seconds where a cold build takes a minute, so one number for both misleads
both ways. The last time of each (stage, kind) is kept in the cache, one entry per profile,
device and thread count, and is the next build's estimate; a stage never timed here gets
the typical time below.
"""

import hashlib
import json
import math
from dataclasses import dataclass, field, replace

KINDS = ("cold", "cached")
# A stage never timed on this machine: one cold build of each profile on the 2-core
# development machine (Xeon @ 2.80GHz, 24 GiB) with nothing else building, 2026-11-26, stage
# times as the build printed them (the cached HTML is a rebuild's). The table said 3× these
# when it was measured under load 6-9: a first build announced "about 6 min" and took 80 s.
# The first build here replaces these with its own times.
READ = 0.1  # seconds to read an experiment's results from the cache
TYPICAL = {
    "quick": {
        "variance": 6.4, "saturation": 0.1, "temperature": 0.3, "worked": 0.2, "gradients": 0.3,
        "training": 2.0, "lm": 3.0,
        "figures": {"cold": 10.1, "cached": 0.1}, "html": {"cold": 3.0, "cached": 0.5},
        "pdf": {"cold": 15.0, "cached": 0.1}, "write": {"cold": 0.1, "cached": 0.1},
    },
    "standard": {
        "variance": 7.6, "saturation": 2.0, "temperature": 5.5, "worked": 1.1, "gradients": 3.5,
        "training": 23.6, "lm": 183.0,  # 2026-11-28: the language model that decides (50 models, two threads)
        "figures": {"cold": 13.8, "cached": 0.1}, "html": {"cold": 4.1, "cached": 1.0},
        "pdf": {"cold": 18.5, "cached": 0.2}, "write": {"cold": 0.1, "cached": 0.1},
    },
}
# Drawing one family's figures (SVG), "figures:<family>": the quick profile's, drawn alone on the
# same machine, 2026-12-06; the standard profile draws the same figures from more points. The
# build's job graph draws the longest first (reportgen.drawer), so only their order matters much.
FIGURES = {"variance": 1.3, "saturation": 1.1, "temperature": 0.9, "worked": 0.0, "gradients": 1.2,
           "training": 1.7, "lm": 1.1}
TYPICAL = {profile: {stage: v if isinstance(v, dict) else {"cold": v, "cached": READ}
                     for stage, v in {**stages, **{f"figures:{f}": s for f, s in FIGURES.items()}}.items()}
           for profile, stages in TYPICAL.items()}  # an experiment's number is its cold time
UNKNOWN_STAGE = {"cold": 5.0, "cached": READ}  # a family added since the table was measured
# The full profile is 10-100× the standard one's work (docs/usage.md): a range, not a promise.
FULL_FACTOR = (10, 100)
NAME = "timings"


def duration(seconds):
    """A duration as people say it: "under 1 s", "12 s", "3 min", "1.5 h"."""
    if seconds < 1:
        return "under 1 s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def about(seconds):
    """An estimate as people say it: "about 12 s", "under 1 s"."""
    return duration(seconds) if seconds < 1 else f"about {duration(seconds)}"


def _key(profile, device, threads):
    what = {"profile": profile, "device": device, "threads": threads}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:32]


def _check(payload):
    """None when payload is {stage: {kind: seconds}} with sane seconds, else why not."""
    if not isinstance(payload, dict):
        return "not a table of stage timings"
    for kinds in payload.values():
        if not isinstance(kinds, dict) or not set(kinds) <= set(KINDS):
            return "not a table of stage timings"
        for s in kinds.values():
            if not isinstance(s, (int, float)) or isinstance(s, bool) or not 0 <= s < 10**7:
                return "a timing out of range"
    return None


def _reader(store):
    """The store to read timings from: --no-cache recomputes results, but the times still hold."""
    from reportgen.publish.cache import Cache

    if store.enabled or not store.writable:
        return store
    return Cache(store.folder, read=True, warn=store.warn)


@dataclass
class Estimates:
    """Expected seconds of each stage of one profile on one device."""

    profile: str
    learned: dict = field(default_factory=dict)  # {stage: {kind: seconds}} measured here

    def of(self, stage, kind):
        """(seconds, whether this machine measured it)."""
        if kind in self.learned.get(stage, {}):
            return float(self.learned[stage][kind]), True
        return TYPICAL.get(self.profile, {}).get(stage, UNKNOWN_STAGE)[kind], False

    def experiments(self, cold, cached, workers=1):
        """(seconds, all learned) of the experiment stage: `cold` computed by `workers`
        processes, each taking the next family; `cached` ones read from the cache."""
        ran = [self.of(name, "cold") for name in cold]
        read = [self.of(name, "cached") for name in cached]
        seconds = [s for s, _ in ran]
        # Two processes taking families from both ends: no sooner than half the work, nor than the longest.
        wall = max(sum(seconds) / workers, max(seconds, default=0.0)) + sum(s for s, _ in read)
        return wall, all(ok for _, ok in ran + read)

    def build(self, cold, cached, workers, formats):
        """(seconds, basis) of the whole build: a cold build renders its PDFs, a cached one reads them."""
        if self.profile not in TYPICAL and not self.learned:
            return None, ""
        kind = "cold" if cold else "cached"
        total, known = self.experiments(cold, cached, workers)
        stages = ["figures", "write"] + (["html"] if formats else []) + (["pdf"] if "pdf" in formats else [])
        for stage in stages:
            seconds, ok = self.of(stage, kind)
            total += seconds
            known = known and ok
        what = (f"{len(cold)} of {len(cold) + len(cached)} experiments to run" if cold
                else "everything cached, more if a PDF's pages changed" if "pdf" in formats else "everything cached")
        basis = "this machine's last builds" if known else "typical times on 2 CPU cores"
        return total, f"{what}; {basis}"


def load(config, device, store):
    """The estimates of this build's kind (profile, device, threads), as learned here so far."""
    learned = _reader(store).load(NAME, _key(config.profile, device, config.threads), _check)
    return Estimates(config.profile, learned or {})


def remember(config, device, store, measured):
    """Keep each stage's time, {stage: (kind, seconds)}, as its next estimate (a cache that
    refuses it is no error)."""
    if not measured or not store.writable:
        return
    key = _key(config.profile, device, config.threads)
    learned = _reader(store).load(NAME, key, _check) or {}
    for stage, (kind, seconds) in measured.items():
        if kind in KINDS and math.isfinite(seconds):
            learned.setdefault(stage, {})[kind] = round(seconds, 2)
    store.store(NAME, key, learned)


def full_on_cpu(config, store):
    """(low, high) seconds of a full build on the CPU: a standard cold build's × 10 … 100."""
    from reportgen.experiments import EXPERIMENTS

    standard = load(replace(config, profile="standard"), "cpu", store)
    seconds, _ = standard.build(list(EXPERIMENTS), [], 2, ("html", "pdf"))
    return seconds * FULL_FACTOR[0], seconds * FULL_FACTOR[1]


def plan(config, device, store, progress, ready, todo, formats=()):
    """Load this machine's stage timings into `progress` and announce the expected time;
    (names to compute, names from the cache)."""
    from reportgen.scheduler import workers_for

    progress.estimates = load(config, device, store)
    progress.kind = "cold" if todo else "cached"
    cold = [e.name for e, _ in todo]
    cached = [r.experiment.name for r in ready if not r.error]
    seconds, basis = progress.estimates.build(cold, cached, workers_for(todo, device), formats)
    if seconds:
        progress.plan(seconds, basis)
    return cold, cached


def announce(config, device, store, progress):
    """A full build on the CPU gets a warning with its time range before anything runs."""
    if config.profile == "full" and device == "cpu":
        low, high = full_on_cpu(config, store)
        progress.warn(
            f"--profile full on the CPU would take {duration(low)} to {duration(high)} (10-100x a standard "
            "build here); it is sized for a GPU: use --device cuda on one, or --profile standard; Ctrl-C stops it"
        )
