"""config → run (or cache) → results → checks → figures → HTML → PDF."""

import json
import math
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from reportgen import cache
from reportgen.claims import with_ids
from reportgen.errors import ConfigError, ReportgenError
from reportgen.experiments import EXPERIMENTS
from reportgen.provenance import build_time


class BuildFailed(ReportgenError):
    """An experiment failed under --fail-fast."""


@dataclass
class Outcome:
    """What one experiment produced in this build."""

    experiment: object
    results: dict = None
    error: str = None  # last lines of the traceback
    from_cache: bool = False
    seconds: float = 0.0
    tables: list = field(default_factory=list)
    figures: list = field(default_factory=list)  # (Figure, svg bytes)
    nonfinite: list = field(default_factory=list)  # result paths holding NaN or inf
    computed_at: str = None  # UTC time the results were computed (now, or when cached)

    @property
    def checks(self):
        return [c for t in self.tables for c in t.checks]


def gpu_driver_present():
    """Whether an NVIDIA or ROCm kernel driver is loaded: without one torch can see no GPU."""
    return any(Path(p).exists() for p in ("/proc/driver/nvidia", "/dev/nvidiactl", "/dev/kfd"))


def resolve_device(choice):
    """'cpu' or 'cuda' for the --device choice; cuda without a GPU is bad input."""
    if gpu_driver_present():
        import torch

        available = torch.cuda.is_available()
    else:
        available = False  # skips importing torch (a second) when every result is cached
    if choice == "cuda" and not available:
        raise ConfigError(
            "--device cuda: torch sees no CUDA device on this machine; use --device auto or --device cpu"
        )
    if choice == "auto":
        return "cuda" if available else "cpu"
    return choice


def selected(config):
    names = config.only or tuple(EXPERIMENTS)
    return [EXPERIMENTS[name] for name in EXPERIMENTS if name in names]


def nonfinite_paths(value, path="results"):
    """Paths of NaN and inf values inside nested results."""
    if isinstance(value, float):
        return [] if math.isfinite(value) else [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in nonfinite_paths(v, f"{path}.{k}")]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in nonfinite_paths(v, f"{path}[{i}]")]
    return []


def short_traceback(exc):
    lines = traceback.format_exception(exc)
    return "".join(lines[-6:]).strip()


def run_one(experiment, config, device, progress):
    """Results of one experiment from the cache or a fresh seeded run."""
    outcome = Outcome(experiment)
    params = experiment.params[config.profile]
    start = time.perf_counter()
    try:
        # Thread count can change float reduction order, so it is part of the key.
        digest = cache.key(experiment, params, config.seed, f"{device}/{config.threads}")
        entry = cache.load(config.cache_dir, experiment.name, digest) if config.cache else None
        if not (isinstance(entry, dict) and {"computed_at", "results"} <= entry.keys()):
            entry = None
        outcome.from_cache = entry is not None
        if entry is None:
            import torch

            torch.set_num_threads(config.threads)
            results = experiment.run(params, config.seed, device, progress)
            # A JSON round trip makes fresh results identical to cached ones.
            entry = {"computed_at": build_time().isoformat(), "results": json.loads(json.dumps(results))}
            cache.store(config.cache_dir, experiment.name, digest, entry)
        outcome.results = entry["results"]
        outcome.computed_at = entry["computed_at"]
        outcome.nonfinite = nonfinite_paths(outcome.results)
    except Exception as exc:  # one experiment's failure must not stop the others
        outcome.error = short_traceback(exc)
    outcome.seconds = time.perf_counter() - start
    return outcome


def present(outcome, drawer=None):
    """Tables of a finished experiment; its figures go to the drawer."""
    if outcome.results is None:
        return
    try:
        outcome.tables = with_ids(outcome.experiment.name, outcome.experiment.tables(outcome.results))
        if drawer is not None:
            drawer.submit(outcome)
    except Exception as exc:
        outcome.error = short_traceback(exc)
        outcome.tables, outcome.figures = [], []


def raise_first_failure(outcomes):
    """--fail-fast: stop the build at the first failed experiment."""
    for outcome in outcomes:
        if outcome.error:
            reason = outcome.error.splitlines()[-1]
            raise BuildFailed(f"experiment '{outcome.experiment.name}' failed (--fail-fast): {reason}")


def run_all(config, progress, drawer=None):
    """Run (or load) every selected experiment and present it; failures are isolated.

    With a drawer, returns once every figure's SVG is drawn (the PNGs may still be drawing).
    """
    device = resolve_device(config.device)
    outcomes = []
    try:
        for experiment in selected(config):
            progress.echo(f"{experiment.name}: running on {device}")
            outcome = run_one(experiment, config, device, progress)
            if outcome.error is None:
                present(outcome, drawer)
            state = "FAILED" if outcome.error else "from cache" if outcome.from_cache else "ran"
            progress.echo(f"{experiment.name}: {state} in {outcome.seconds:.1f} s")
            outcomes.append(outcome)
            if config.fail_fast:
                raise_first_failure([outcome])
    except BaseException:
        if drawer is not None:
            drawer.abandon()
        raise
    if drawer is not None:
        drawer.finish()
    if config.fail_fast:
        raise_first_failure(outcomes)  # a figure that failed to draw
    return device, outcomes


def build(config, progress):
    """The whole build; returns (summary line, failed experiment names)."""
    from reportgen import provenance, report
    from reportgen.drawing import Drawer

    timings = {}
    start = time.perf_counter()
    drawer = Drawer(config)
    try:
        device, outcomes = run_all(config, progress, drawer)
        timings["experiments"] = time.perf_counter() - start

        # The report is dated by its newest result (or SOURCE_DATE_EPOCH), so a rebuild with
        # nothing changed is byte-identical and its PDF can come from the render cache.
        computed = [o.computed_at for o in outcomes if o.computed_at]
        epoch = provenance.source_date_epoch()
        when = epoch.isoformat() if epoch else max(computed, default=build_time().isoformat())
        info = provenance.collect(config, device, when)
        written = report.write(outcomes, info, config, timings)
    except BaseException:
        drawer.abandon()
        raise
    stage = time.perf_counter()
    png_failed = drawer.close()  # PNGs were drawn while the report was rendered
    if drawer.pngs:
        timings["png wait"] = time.perf_counter() - stage
    # The reason goes in the summary line, which -q keeps: the report is written by now.
    failed = [o.experiment.name for o in outcomes if o.error]
    failed += [f"{name} (PNG figures: {reason})" for name, reason in png_failed.items()]
    ran = sum(1 for o in outcomes if not o.from_cache and not o.error)
    cached = sum(1 for o in outcomes if o.from_cache and not o.error)
    parts = [f"ran {ran} of {len(outcomes)}, {cached} from cache"]
    if failed:
        parts.append(f"FAILED: {', '.join(failed)}")
    nonfinite = [o.experiment.name for o in outcomes if o.nonfinite]
    if nonfinite:
        parts.append(f"NaN/inf in: {', '.join(nonfinite)}")
    parts.append(", ".join(f"{name} {sec:.1f} s" for name, sec in timings.items()))
    parts.append("wrote " + ", ".join(str(p) for p in written))
    return "; ".join(parts), failed
