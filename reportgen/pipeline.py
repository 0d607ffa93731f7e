"""config → run (or cache) → results → measures and verdicts → tables, figures → HTML → PDF.

Each stage takes what the previous one returned: the scheduler gives each `Run`, the
verdicts module the judgements of the family's claims on it, the sections module its
tables, the drawer its figures, and the report module writes them all. The runs, figures and
PDFs are jobs of one graph (reportgen.jobs) over one set of worker processes
(reportgen.workers), which ends with the build however it ends.
"""

import contextlib
import time
from pathlib import Path

from reportgen.errors import ReportgenError
from reportgen.publish import cache
from reportgen.publish.provenance import build_time


class BuildFailed(ReportgenError):
    """An experiment failed under --fail-fast."""


def selected(config, families, catalog=None):
    """The families this build runs (--only), in the registry's order; for a course's own
    claims (the `claims` setting) without `only`, the families its claims are measured by."""
    names = config.only or tuple(families)
    if not config.only and config.claims and catalog is not None:
        names = {f for c in catalog.claims for f in catalog.families_needed(c)}
    return [families[name] for name in families if name in names]


def open_cache(config, progress):
    """The cache folder of this build; its faults become warnings, never a failed build."""
    return cache.Cache(config.cache_dir, config.cache, progress.warn)


def raise_first_failure(sections):
    """--fail-fast: stop the build at the first failed experiment."""
    for section in sections:
        if section.error:
            reason = section.error.splitlines()[-1]
            raise BuildFailed(f"experiment '{section.experiment.name}' failed (--fail-fast): {reason}")


def run_all(config, progress, catalog, families, drawer=None, store=None, device=None, formats=(), quotes=None,
            graph=None):
    """Run (or load) every selected experiment and present it; failures are isolated.

    With a drawer, each section carries its figures (SVG and PNG). Each stage's time is
    kept in the cache as its next estimate. `quotes` says whether each claim's quote is in
    its document now ({claim id: state}; reportgen.judging.documents.quotes). `graph`: the build's
    jobs (reportgen.jobs), else the experiments start workers of their own.
    """
    from reportgen import timing
    from reportgen.claims import checks
    from reportgen.device import resolve_device
    from reportgen.judging.runs import documented_numbers, fill_in, mark_quotes, present, sum_up
    from reportgen.render.sections import lay_out_all, with_figures
    from reportgen.scheduler import look_up, runs, workers_for

    chosen = selected(config, families, catalog)
    checks.check(catalog, families, chosen, config.profile, config.claims or "claims")  # bad input, before any work
    device = device or resolve_device(config.device)
    store = store or open_cache(config, progress)
    ready, todo = look_up(chosen, config, device, store)
    if graph is not None and graph.pool is not None and "pdf" in config.format:
        from reportgen.render.pdf import warming  # a worker with nothing else to do readies itself for the PDFs

        graph.add(*warming(graph.pool.processes, after=[("run", e.name) for e, _ in todo]))
    cold, cached = timing.plan(config, device, store, progress, ready, todo, formats)
    done = {}
    expected, _ = progress.estimates.experiments(cold, cached, workers_for(todo, device))
    what = f"{len(cold)} to run ({', '.join(cold) or 'none'}), {len(cached)} from cache"
    with progress.stage("experiments", what, expected=expected) as stage, \
            contextlib.closing(runs(chosen, config, device, progress, store, (ready, todo), graph)) as finished:
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
    sections = fill_in(sum_up([done[e.name] for e in chosen], catalog))
    sections = lay_out_all(mark_quotes(sections, quotes or {}), set(catalog.documents))
    if drawer is not None:
        drawing, cached = drawer.drawing(), drawer.cached()
        kind = "cold" if drawing else "cached"
        what = (f"{drawing} famil{'y' if drawing == 1 else 'ies'} to draw, {len(drawer.jobs) - drawing - cached} "
                f"drawn beside the runs, {cached} from cache")
        with progress.stage("figures", what, kind=kind):
            drawn = drawer.finish()
        sections = [with_figures(s, drawn.get(s.experiment.name), set(catalog.documents)) for s in sections]
    timing.remember(config, device, store, progress.durations)
    if config.fail_fast:
        raise_first_failure(sections)  # a figure that failed to draw
    return device, sections


def remove_leftovers(config, store, families):
    """Temporary files of an earlier build that was killed: only in the folders reportgen writes."""
    from reportgen import atomic

    if store.writable:
        atomic.remove_leftovers(store.folder)
    for name in families:
        atomic.remove_leftovers(Path(config.figures) / name, (".*.tmp", ".*.staged"))  # staged: never published


def build(config, progress, catalog=None, families=None):
    """The whole build; returns (summary line, failed experiment names)."""
    from reportgen import jobs, liblog, timing, workers
    from reportgen.claims import checks
    from reportgen.device import resolve_device
    from reportgen.experiments import EXPERIMENTS
    from reportgen.judging import documents, vocabulary
    from reportgen.judging.assemble import assemble
    from reportgen.publish import aside, outputs, provenance
    from reportgen.render import report
    from reportgen.drawer import Drawer

    liblog.route(progress)
    catalog = catalog or vocabulary.catalog(config.claims or None)
    texts = documents.read(catalog, config.documents)  # a missing text is bad input, before any work
    families = families or EXPERIMENTS
    checks.check(catalog, families, selected(config, families, catalog), config.profile, config.claims or "claims")
    outputs.refuse_narrowing(config, [e.name for e in selected(config, families, catalog)], known=list(families))
    timings = {}
    start = time.perf_counter()
    device = resolve_device(config.device)  # bad input is refused before any folder is made
    store = open_cache(config, progress)
    remove_leftovers(config, store, families)
    timing.announce(config, device, store, progress)
    # the workers are ended at once if the build stops (an error, Ctrl-C, SIGTERM)
    with workers.Workers() as pool, jobs.Graph(pool) as graph:
        graph.listen(progress.job)
        drawer = Drawer(config, store, graph, lambda name: progress.expected(f"figures:{name}", "cold"))
        device, sections = run_all(config, progress, catalog, families, drawer, store, device, config.format,
                                   documents.looked_up(catalog, texts, config.claims, store), graph)
        timings["experiments"] = time.perf_counter() - start

        # The report is dated by its newest result (or SOURCE_DATE_EPOCH), so a rebuild with
        # nothing changed is byte-identical and its PDF can come from the render cache.
        computed = [s.run.computed_at for s in sections if s.run.computed_at]
        epoch = provenance.source_date_epoch()
        when = epoch.isoformat() if epoch else max(computed, default=build_time().isoformat())
        info = provenance.collect(config, device, when)
        info["documents"] = documents.provenance(texts)
        if any(s.error for s in sections):  # never published over a good set: beside it, named
            config = drawer.config = aside.config_of(config)
        files, build_id = report.render(assemble(sections, catalog), catalog, info, config, timings, store, progress,
                                        graph)
        scope = {"experiments": [s.experiment.name for s in sections], "formats": list(config.format)}
        with drawer.publishing():  # figure files staged first: a full folder stops the build before it publishes
            written = outputs.write(Path(config.output), files, build_id, progress, scope, config.replace, list(families))
    drawer.close()  # the staged figure files into place, now that the report is
    timing.remember(config, device, store, progress.durations)
    failed = [s.experiment.name for s in sections if s.error]
    return summary(sections, timings, written) + aside.last_line(config), failed


def summary(sections, timings, written):
    """The build's closing line: what ran, what failed, each stage's time and what was written.

    The reason a build failed goes here, which -q keeps: the report is written by now."""
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
    return "; ".join(parts)
