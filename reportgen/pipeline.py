"""config → run (or cache) → results → measures and verdicts → tables, figures → HTML → PDF.

Each stage takes what the previous one returned: `runs` gives each `Run`, `judge_run`
the verdicts of the family's claims on it, `lay_out` its tables, the drawer its
figures, and `Section` holds them for the report.
"""

import contextlib
import json
import math
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace

from reportgen import cache, prose
from reportgen.errors import ConfigError, ReportgenError, short_traceback
from reportgen.family import ClaimTable
from reportgen.judge import judge, summarize, unavailable
from reportgen.measure import MeasureUnavailable, level_of
from reportgen.provenance import build_time


class BuildFailed(ReportgenError):
    """An experiment failed under --fail-fast."""


@dataclass(frozen=True)
class Run:
    """What one experiment's run produced in this build."""

    experiment: object
    results: dict | None = None
    error: str | None = None  # last lines of the traceback
    from_cache: bool = False
    seconds: float = 0.0
    nonfinite: tuple = ()  # result paths holding NaN or inf
    computed_at: str | None = None  # UTC time the results were computed (now, or when cached)


@dataclass(frozen=True)
class Section:
    """One family as the report shows it: its run, verdicts, tables and figures."""

    run: Run
    judged: tuple = ()  # Judged, in claims-file order
    tables: tuple = ()  # Table, or (ClaimTable, tuple of Judged)
    figures: tuple = ()  # (Figure, {"svg": bytes, "png": bytes})
    error: str | None = None  # the run's error, or the one of its tables or figures

    @property
    def experiment(self):
        return self.run.experiment


def gpu_driver_present():
    """Whether an NVIDIA or ROCm kernel driver is loaded: without one torch can see no GPU."""
    from pathlib import Path

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


def selected(config, families):
    names = config.only or tuple(families)
    return [families[name] for name in families if name in names]


def nonfinite_paths(value, path="results"):
    """Paths of NaN and inf values inside nested results."""
    if isinstance(value, float):
        return [] if math.isfinite(value) else [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in nonfinite_paths(v, f"{path}.{k}")]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in nonfinite_paths(v, f"{path}[{i}]")]
    return []


def run_here(experiment, digest, config, device, progress, store):
    """A fresh seeded run in this process, cached under `digest`; a failure is the Run's error."""
    progress.echo(f"{experiment.name}: running on {device}")
    start = time.perf_counter()
    try:
        results = compute(experiment.run, experiment.params[config.profile], config, device, progress)
    except Exception as exc:  # one experiment's failure must not stop the others
        return Run(experiment, error=short_traceback(exc), seconds=time.perf_counter() - start)
    return fresh_run(experiment, digest, results, store, time.perf_counter() - start)


def cached_run(experiment, config, device, store):
    """(cache key, the Run from the cache or None)."""
    params = experiment.params[config.profile]
    # Thread count can change float reduction order, so it is part of the key.
    digest = cache.key(experiment, params, config.seed, f"{device}/{config.threads}")
    entry = store.load(experiment.name, digest, cache.check_run)
    if entry is None:
        return digest, None
    return digest, Run(experiment, results=entry["results"], from_cache=True,
                       nonfinite=tuple(nonfinite_paths(entry["results"])), computed_at=entry["computed_at"])


def compute(run, params, config, device, progress):
    """A fresh seeded run's results, after the JSON round trip that makes them identical to cached ones."""
    import torch

    torch.set_num_threads(config.threads)
    return json.loads(json.dumps(run(params, config.seed, device, progress)))


def fresh_run(experiment, digest, results, store, seconds):
    """The Run of freshly computed results, stored in the cache (a refusal is a warning).

    The entry keeps the real time: SOURCE_DATE_EPOCH dates this build, and stuck in the cache
    it dated later plain builds too ("built 1970-01-01")."""
    import datetime

    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    store.store(experiment.name, digest, {"computed_at": now.isoformat(), "results": results})
    return Run(experiment, results=results, seconds=seconds, nonfinite=tuple(nonfinite_paths(results)),
               computed_at=build_time().isoformat())


def _compute_registered(name, config, device):
    """Worker side: run a registered experiment with silent progress."""
    from reportgen.experiments import EXPERIMENTS

    experiment = EXPERIMENTS[name]
    return compute(experiment.run, experiment.params[config.profile], config, device, lambda items, label: items)


def look_up(experiments, config, device, store):
    """(Runs ready now: cached, or failed to look up; [(experiment, cache key)] to compute)."""
    ready, todo = [], []
    for experiment in experiments:
        start = time.perf_counter()
        try:
            digest, run = cached_run(experiment, config, device, store)
        except Exception as exc:
            ready.append(Run(experiment, error=short_traceback(exc), seconds=time.perf_counter() - start))
            continue
        if run is not None:
            ready.append(replace(run, seconds=time.perf_counter() - start))
        else:
            todo.append((experiment, digest))
    return ready, todo


def workers_for(todo, device):
    """How many processes compute: two on a CPU with a core to spare and more than one to run."""
    import os

    return 2 if len(todo) > 1 and device == "cpu" and (os.cpu_count() or 1) > 1 else 1


def runs(experiments, config, device, progress, store, looked_up=None):
    """Each experiment's Run, in the order they finish.

    On a CPU with a core to spare, a second process takes experiments from the end of the
    list while this one takes them from the front: each family runs seeded and single-
    threaded, so where it runs does not change its numbers, only when the build is done.
    """
    from collections import deque

    ready, todo = looked_up or look_up(experiments, config, device, store)
    yield from ready
    todo = deque(todo)
    if workers_for(todo, device) > 1:
        yield from _two_processes(todo, config, device, progress, store)
        return
    for experiment, digest in todo:
        yield run_here(experiment, digest, config, device, progress, store)


def _two_processes(todo, config, device, progress, store):
    """Run the experiments of `todo` (a deque of (experiment, cache key)) here from the front
    and in a second process from the back; yield each Run as it is done."""
    import queue
    import threading

    from reportgen import workers

    done = queue.Queue()  # (experiment, results or the exception it raised, seconds); None at the end
    pool = workers.pool(1)
    stopping = threading.Event()

    def feed():
        while not stopping.is_set():
            try:
                experiment, digest = todo.pop()
            except IndexError:
                break
            start = time.perf_counter()
            try:
                outcome = workers.submit(pool, _compute_registered, experiment.name, config, device).result()
            except BaseException as exc:  # noqa: BLE001 (the main thread reports it)
                outcome = exc
            done.put((experiment, digest, outcome, time.perf_counter() - start))
        done.put(None)

    ended = threading.Event()  # the feeder's last item (None) was taken

    def collected(block):
        while not ended.is_set():
            try:
                item = done.get(block=block)
            except queue.Empty:
                return
            if item is None:
                ended.set()
                return
            experiment, digest, outcome, seconds = item
            if isinstance(outcome, (KeyError, BrokenProcessPool)):
                # A family registered at run time (unknown over there), or a second process that
                # died (killed, out of memory): run it here.
                yield run_here(experiment, digest, config, device, progress, store)
            elif isinstance(outcome, BaseException):
                yield Run(experiment, error=short_traceback(outcome), seconds=seconds)
            else:
                progress.echo(f"{experiment.name}: computed in a second process")
                yield fresh_run(experiment, digest, outcome, store, seconds)

    feeder = threading.Thread(target=feed, name="experiments", daemon=True)
    feeder.start()
    try:
        while True:
            try:
                experiment, digest = todo.popleft()
            except IndexError:
                break
            yield run_here(experiment, digest, config, device, progress, store)
            yield from collected(block=False)
        yield from collected(block=True)
        feeder.join()
        pool.shutdown(wait=True)
    except BaseException:
        stopping.set()
        workers.stop_now(pool)
        raise


def judge_run(run, claims):
    """The verdict of every claim measured by this run's family, in claims order."""
    if run.results is None:
        return ()
    measures = run.experiment.measures()
    judged = []
    for claim in claims:
        if claim.rule in ("unverifiable", "reference"):
            judged.append(judge(claim, None))
            continue
        name = claim.measure.split(".", 1)[1]
        if name not in measures:
            judged.append(unavailable(claim, f"the {run.experiment.name} family has no measure '{name}'"))
            continue
        try:
            measurement = measures[name](run.results, **claim.args)
        except MeasureUnavailable as exc:
            judged.append(unavailable(claim, str(exc)))
            continue
        if measurement.level is None and measurement.lo is not None:
            measurement = replace(measurement, level=level_of(measures[name], claim.args))
        judged.append(judge(claim, measurement))
    return tuple(judged)


def lay_out(run, judged):
    """The family's tables, each claims-table slot holding the verdicts that name it."""
    by_table = {}
    for j in judged:
        by_table.setdefault(j.claim.table, []).append(j)
    tables = []
    for table in run.experiment.tables(run.results):
        if isinstance(table, ClaimTable):
            rows = tuple(by_table.pop(table.slug, ()))
            if rows:
                tables.append((table, rows))
        else:
            tables.append(table)
    if by_table:
        raise LookupError(f"claims name tables the {run.experiment.name} layout lacks: {', '.join(sorted(by_table))}")
    return tuple(tables)


def documented_numbers(claims):
    """{claim id: the documented number} for figures that mark what a document prints."""
    from reportgen.judge import documented_value

    return {c.id: documented_value(c) for c in claims}


def present(run, claims):
    """The verdicts of a finished run's claims; a failure here fails only this section."""
    if run.error:
        return Section(run, error=run.error)
    try:
        return Section(run, judge_run(run, claims))
    except Exception as exc:
        return Section(run, error=short_traceback(exc))


def sum_up(sections, catalog):
    """Judge each statement checked in several setups from its setups' verdicts, and place it
    in the section of the family it names (beside its setups' tables)."""
    judged = {j.id: j for s in sections for j in s.judged}
    ran = {s.experiment.name for s in sections if not s.error}
    extra = {}
    for claim in catalog.summaries():
        if catalog.families_needed(claim) <= ran:  # else it is not judged at all
            setups = [judged[i] for i in claim.over if i in judged]
            extra.setdefault(claim.family, []).append(summarize(claim, setups))
    return [replace(s, judged=s.judged + tuple(extra.get(s.experiment.name, ()))) for s in sections]


def fill_in(sections):
    """Each verdict's sentence and correct statement with the numbers they name filled in
    from this build's measurements (reportgen.prose), once every statement is judged."""
    judged = {j.id: j for s in sections for j in s.judged}

    def filled(j):
        correct = j.claim.correct if j.verdict in ("contradicted", "partly") else ""
        return replace(j, sentence=prose.fill(j.sentence, judged), correct=prose.fill(correct, judged))

    return [replace(s, judged=tuple(filled(j) for j in s.judged)) for s in sections]


def mark_quotes(sections, quotes):
    """Each verdict with the state of its quote in the document's text now (reportgen.documents):
    found, gone, an error fixed in the document, or not looked up."""
    from reportgen.documents import UNREAD, state

    def marked(j):
        return replace(j, quote_state=state(quotes.get(j.id, UNREAD), j.verdict))

    return [replace(s, judged=tuple(marked(j) for j in s.judged)) for s in sections]


def lay_out_all(sections):
    """Each section with its tables, the claims-table slots filled with their verdicts."""
    out = []
    for s in sections:
        if s.error:
            out.append(s)
            continue
        try:
            out.append(replace(s, tables=lay_out(s.run, s.judged)))
        except Exception as exc:
            out.append(replace(s, judged=(), error=short_traceback(exc)))
    return out


def raise_first_failure(sections):
    """--fail-fast: stop the build at the first failed experiment."""
    for section in sections:
        if section.error:
            reason = section.error.splitlines()[-1]
            raise BuildFailed(f"experiment '{section.experiment.name}' failed (--fail-fast): {reason}")


def open_cache(config, progress):
    """The cache folder of this build; its faults become warnings, never a failed build."""
    return cache.Cache(config.cache_dir, config.cache, progress.warn)


def plan(config, device, store, progress, ready, todo, formats=()):
    """Load this machine's stage timings into `progress` and announce the expected time."""
    from reportgen import timing

    progress.estimates = timing.load(config, device, store)
    progress.kind = "cold" if todo else "cached"
    cold = [e.name for e, _ in todo]
    cached = [r.experiment.name for r in ready if not r.error]
    seconds, basis = progress.estimates.build(cold, cached, workers_for(todo, device), formats)
    if seconds:
        progress.plan(seconds, basis)
    return cold, cached


def run_all(config, progress, catalog, families, drawer=None, store=None, device=None, formats=(), quotes=None):
    """Run (or load) every selected experiment and present it; failures are isolated.

    With a drawer, each section carries its figures (SVG and PNG). Each stage's time is
    kept in the cache as its next estimate. `quotes` says whether each claim's quote is in
    its document now ({claim id: state}; reportgen.documents.quotes).
    """
    from reportgen import timing

    device = device or resolve_device(config.device)
    store = store or open_cache(config, progress)
    chosen = selected(config, families)
    ready, todo = look_up(chosen, config, device, store)
    cold, cached = plan(config, device, store, progress, ready, todo, formats)
    try:
        done = {}
        expected, _ = progress.estimates.experiments(cold, cached, workers_for(todo, device))
        what = f"{len(cold)} to run ({', '.join(cold) or 'none'}), {len(cached)} from cache"
        with progress.stage("experiments", what, expected=expected) as stage, \
                contextlib.closing(runs(chosen, config, device, progress, store, (ready, todo))) as finished:
            stage.detail = f"0 of {len(chosen)} done"
            for run in finished:  # in the order they finish; the report keeps the registry's
                experiment = run.experiment
                claims = catalog.of_family(experiment.name)
                section = present(run, claims)
                if drawer is not None and section.error is None:
                    drawer.submit(run, documented_numbers(claims))
                state = "FAILED" if section.error else "from cache" if run.from_cache else "ran"
                progress.echo(f"{experiment.name}: {state} in {run.seconds:.1f} s")
                if not run.error:
                    progress.durations[experiment.name] = ("cached" if run.from_cache else "cold", run.seconds)
                done[experiment.name] = section
                to_go = [e.name for e in chosen if e.name not in done]
                stage.detail = f"{len(done)} of {len(chosen)} done" + (f", to go: {', '.join(to_go)}" if to_go else "")
                if config.fail_fast:
                    raise_first_failure([section])
    except BaseException:
        if drawer is not None:
            drawer.abandon()
        raise
    sections = fill_in(sum_up([done[e.name] for e in chosen], catalog))
    sections = lay_out_all(mark_quotes(sections, quotes or {}))
    if drawer is not None:
        drawing = drawer.drawing()
        kind = "cold" if drawing else "cached"
        what = f"{drawing} famil{'y' if drawing == 1 else 'ies'} to draw, {len(drawer.jobs) - drawing} from cache"
        with progress.stage("figures", what, kind=kind):
            drawn = drawer.finish()
        sections = [with_figures(s, drawn.get(s.experiment.name)) for s in sections]
    timing.remember(config, device, store, progress.durations)
    if config.fail_fast:
        raise_first_failure(sections)  # a figure that failed to draw
    return device, sections


def with_figures(section, drawn):
    """The section with its figures, or failed with the drawing's error."""
    if drawn is None:
        return section
    figures, error = drawn
    if error:
        return replace(section, tables=(), judged=(), error=error)
    return replace(section, figures=tuple(figures))


def _remove_leftovers(config, store, families):
    """Temporary files of an earlier build that was killed: only in the folders reportgen writes."""
    from pathlib import Path

    from reportgen.atomic import remove_leftovers

    if store.writable:
        remove_leftovers(store.folder)
    for name in families:
        remove_leftovers(Path(config.figures) / name)


def announce(config, device, store, progress):
    """A full build on the CPU gets a warning with its time range before anything runs."""
    from reportgen.timing import duration, full_on_cpu

    if config.profile == "full" and device == "cpu":
        low, high = full_on_cpu(config, store)
        progress.warn(
            f"--profile full on the CPU would take {duration(low)} to {duration(high)} (10-100x a standard "
            "build here); it is sized for a GPU: use --device cuda on one, or --profile standard; Ctrl-C stops it"
        )


def refuse_narrowing(config, families):
    """A partial build (--only, --format) never silently replaces a fuller set: refused before any work."""
    from reportgen.publish import narrowing

    if config.replace:
        return
    why = narrowing(config.output, [e.name for e in selected(config, families)], config.format)
    if why:
        raise ConfigError(f"{why}; add --replace to go ahead, or choose another --output")


def build(config, progress, catalog=None, families=None):
    """The whole build; returns (summary line, failed experiment names)."""
    from reportgen import claims, documents, provenance, report, timing
    from reportgen.drawing import Drawer
    from reportgen.experiments import EXPERIMENTS

    from reportgen import liblog

    liblog.route(progress)
    catalog = catalog or claims.catalog(config.claims or None)
    texts = documents.read(catalog, config.documents)  # a missing text is bad input, before any work
    families = families or EXPERIMENTS
    refuse_narrowing(config, families)
    timings = {}
    start = time.perf_counter()
    device = resolve_device(config.device)  # bad input is refused before any folder is made
    store = open_cache(config, progress)
    _remove_leftovers(config, store, families)
    announce(config, device, store, progress)
    drawer = Drawer(config, store)
    try:
        device, sections = run_all(config, progress, catalog, families, drawer, store, device, config.format,
                                   documents.quotes(catalog, texts))
        timings["experiments"] = time.perf_counter() - start

        # The report is dated by its newest result (or SOURCE_DATE_EPOCH), so a rebuild with
        # nothing changed is byte-identical and its PDF can come from the render cache.
        computed = [s.run.computed_at for s in sections if s.run.computed_at]
        epoch = provenance.source_date_epoch()
        when = epoch.isoformat() if epoch else max(computed, default=build_time().isoformat())
        info = provenance.collect(config, device, when)
        info["documents"] = documents.provenance(texts)
        written = report.write(sections, catalog, info, config, timings, store, progress)
    except BaseException:
        drawer.abandon()
        raise
    try:
        drawer.close()  # the figure files, written once the report is
    except OSError as exc:  # a disk that filled up, a folder that went read-only meanwhile
        raise ReportgenError(
            f"the report is written, but not the figure files: cannot write in {exc.filename or config.figures} "
            f"({exc.strerror or exc}); free space or set another 'figures' folder, then build again"
        ) from None
    timing.remember(config, device, store, progress.durations)
    # The reason goes in the summary line, which -q keeps: the report is written by now.
    failed = [s.experiment.name for s in sections if s.error]
    ran = sum(1 for s in sections if not s.run.from_cache and not s.run.error)
    cached = sum(1 for s in sections if s.run.from_cache and not s.run.error)
    parts = [f"ran {ran} of {len(sections)}, {cached} from cache"]
    if failed:
        parts.append(f"FAILED: {', '.join(failed)}")
    nonfinite = [s.experiment.name for s in sections if s.run.nonfinite]
    if nonfinite:
        parts.append(f"NaN/inf in: {', '.join(nonfinite)}")
    parts.append(", ".join(f"{name} {sec:.1f} s" for name, sec in timings.items()))
    parts.append("wrote " + ", ".join(str(p) for p in written))
    return "; ".join(parts), failed
