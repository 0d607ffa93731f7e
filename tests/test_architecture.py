"""The package's shape: no import cycles, families with every role, stage folders importing downhill."""

from pathlib import Path

import pytest

import reportgen
from reportgen.experiments import EXPERIMENTS
from reportgen.experiments.family import ROLES
from reportgen.publish.keys import _imports, module_file, source_closure

ROOT = Path(reportgen.__file__).parent
MAX_LINES = 400  # a module over this holds more than one concept: split it by concern (STYLE.md, texture)
# Modules still over MAX_LINES while they are being split elsewhere; delete an entry once it is under.
ALLOWED_OVER = set()


def modules():
    """{dotted name: path} of every module of the package."""
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(["reportgen", *parts])] = path
    return out


def import_graph():
    """{module: modules of the package it imports}, module-level and function-level imports alike."""
    mods = modules()
    return {name: {m for m in _imports(path, name) if m in mods and m != name} for name, path in mods.items()}


def cycles(graph):
    """Every strongly connected component with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    assert cycles(import_graph()) == []


def test_no_module_over_max_lines():
    """Every module of the package is at most MAX_LINES long; ALLOWED_OVER only while one is still over."""
    lengths = {f"reportgen/{path.relative_to(ROOT).as_posix()}": len(path.read_text(encoding="utf-8").splitlines())
               for path in ROOT.rglob("*.py")}
    over = {name: n for name, n in lengths.items() if n > MAX_LINES and name not in ALLOWED_OVER}
    assert over == {}, f"modules over {MAX_LINES} lines: {over}"


def test_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_family_has_every_role(name):
    """Each family is a package with run, measures, tables and figures, each with its entry point."""
    family = EXPERIMENTS[name]
    entry = {"run": "run", "measures": "MEASURES", "tables": "tables", "figures": "figures"}
    for role in ROLES:
        assert module_file(f"{family.package}.{role}") is not None, (name, role)
        assert hasattr(family.role(role), entry[role]), (name, role)
    assert all(callable(f) for f in family.measures().values())


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_data_flows_one_way(name):
    """run imports none of its family's other roles; figures never read tables."""
    package = EXPERIMENTS[name].package
    graph = import_graph()
    run_closure = source_closure(f"{package}.run")
    for role in ("measures", "tables", "figures"):
        assert f"{package}.{role}" not in run_closure, (name, role)
    assert f"{package}.tables" not in graph[f"{package}.figures"], name
    assert not any(m.startswith(("reportgen.claims", "reportgen.judging")) for m in run_closure), name


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_run_key_follows_imports_into_the_stage_folders(name):
    """The results cache key follows a run's imports into reportgen.experiments' shared modules."""
    closure = source_closure(f"{EXPERIMENTS[name].package}.run")
    assert closure["reportgen.experiments.sampling"] == ROOT / "experiments" / "sampling.py", name


# The stage folders, in the order data flows. A stage imports its own folder and the stages
# before it, never a later one. claims/ is data: the documents and their claims as values, read
# and shape-checked; it imports no stage (judging checks the names it uses: judging/vocabulary.py).
# A family spans the stages (run and measures come before judging; tables and figures are laid
# out by render) and imports only experiments and the shared modules below every stage; its
# figures draw with reportgen.plotting.
STAGES = ("experiments", "claims", "judging", "render", "publish")
MAY_IMPORT = {
    "experiments": {"experiments"},
    "claims": {"claims"},
    "judging": {"experiments", "claims", "judging"},
    "render": {"experiments", "render"},  # the report model (reportgen.model) is shared: nothing of judging
    "publish": {"publish"},
}
# Top-level modules below every stage: any stage may use them, and they import no stage.
SHARED = {"reportgen._buildinfo", "reportgen._commit", "reportgen.artifacts", "reportgen.atomic", "reportgen.device",
          "reportgen.errors", "reportgen.formatting", "reportgen.gcpause", "reportgen.images", "reportgen.inputs",
          "reportgen.jobs", "reportgen.liblog", "reportgen.limits", "reportgen.model", "reportgen.plotting", "reportgen.safemarkup",
          "reportgen.signals", "reportgen.text"}
# Top-level modules beside the experiments: they may read the registry, and import no later stage
# (settings declares the options, workers runs jobs in processes for every stage).
BESIDE_EXPERIMENTS = {"reportgen.settings", "reportgen.workers"}
# The top level's entry points and orchestration: they call the stages, no stage calls them.
ORCHESTRATION = {"reportgen.cli", "reportgen.__main__", "reportgen.config", "reportgen.settings",
                 "reportgen.pipeline", "reportgen.scheduler", "reportgen.drawer", "reportgen.factcheck",
                 "reportgen.diff_command", "reportgen.scaffold"}


def stage_of(module):
    """The stage folder a module of the package lives in; None for the top level."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in STAGES else None


def may_import(module):
    """The stages `module` may import; None where no rule applies (the orchestration)."""
    if stage_of(module):
        return MAY_IMPORT[stage_of(module)]
    if module in SHARED:
        return set()
    if module in BESIDE_EXPERIMENTS:
        return {"experiments"}
    return None


def uphill(graph):
    """(importer, imported) pairs where a module imports a stage it may not."""
    found = []
    for source, targets in graph.items():
        allowed = may_import(source)
        for target in targets:
            there = stage_of(target)
            if allowed is not None and there is not None and there not in allowed:
                found.append((source, target))
    return sorted(found)


def test_stages_import_downhill():
    """experiments → claims → judging → render → publish: no stage reaches into a later one;
    claims and the shared top-level modules import no stage; settings and workers no later one."""
    assert uphill(import_graph()) == []


def test_every_top_level_module_has_a_place():
    """Each top-level module is shared, beside the experiments, orchestration, or one the
    render stage reports its progress through (progress, timing, terminal)."""
    mods = {name for name in modules() if name.count(".") == 1 and stage_of(name) is None}
    reporting = {"reportgen.progress", "reportgen.timing", "reportgen.terminal"}
    assert mods - SHARED - BESIDE_EXPERIMENTS - ORCHESTRATION - reporting == set()


def test_uphill_finder_finds_a_stage_reaching_forward():
    graph = {"reportgen.judging.judge": {"reportgen.render.context", "reportgen.experiments.measure"},
             "reportgen.experiments.lm.figures": {"reportgen.render.figures", "reportgen.plotting"},
             "reportgen.claims.findings": {"reportgen.judging.prose", "reportgen.text"},
             "reportgen.settings": {"reportgen.render.logo", "reportgen.experiments.family"},
             "reportgen.plotting": {"reportgen.experiments"},
             "reportgen.render.report": {"reportgen.publish.outputs"},
             "reportgen.drawer": {"reportgen.publish.cache"}}  # pending: the job graph
    assert uphill(graph) == [("reportgen.claims.findings", "reportgen.judging.prose"),
                             ("reportgen.experiments.lm.figures", "reportgen.render.figures"),
                             ("reportgen.judging.judge", "reportgen.render.context"),
                             ("reportgen.plotting", "reportgen.experiments"),
                             ("reportgen.render.report", "reportgen.publish.outputs"),
                             ("reportgen.settings", "reportgen.render.logo")]


def test_stages_never_import_the_orchestration():
    """The stages are called by the top level's commands and pipeline; none of them imports those."""
    graph = import_graph()
    found = {name: sorted(graph[name] & ORCHESTRATION) for name in graph if stage_of(name)}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_listing_families_imports_nothing_heavy():
    """The registry and each family's __init__ import neither torch, numpy nor matplotlib."""
    import subprocess
    import sys

    code = ("import sys, reportgen.experiments; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'numpy', 'matplotlib'}))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_pipeline_reads_as_its_stages():
    """pipeline.py orchestrates and nothing more: each concern lives in a module named for it."""
    lines = (ROOT / "pipeline.py").read_text().splitlines()
    assert len(lines) <= 200, f"pipeline.py has {len(lines)} lines; move a concern into its own module"


POOL_NAMES = {"multiprocessing", "ProcessPoolExecutor", "BrokenProcessPool", "concurrent.futures.process",
              "os.fork", "fork", "ThreadPoolExecutor"}


def pool_uses(path):
    """The names in `path` that start worker processes, or catch their crashes."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "multiprocessing"}
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            found |= {module} & POOL_NAMES
            found |= {a.name for a in node.names if a.name in POOL_NAMES}
            if module.split(".")[0] == "multiprocessing":
                found.add(module)
        elif isinstance(node, ast.Attribute) and node.attr in POOL_NAMES:
            found.add(node.attr)
        elif isinstance(node, ast.Name) and node.id in POOL_NAMES:
            found.add(node.id)
    return found


def test_worker_processes_have_one_home():
    """Experiments, figures and PDFs share reportgen.workers: no other module starts a process
    pool or decides what a worker's crash means (one policy for crashes and signals)."""
    elsewhere = {name: sorted(pool_uses(path)) for name, path in modules().items() if name != "reportgen.workers"}
    assert {name: found for name, found in elsewhere.items() if found} == {}
    assert {"ProcessPoolExecutor", "BrokenProcessPool"} <= pool_uses(ROOT / "workers.py")


def test_pool_finder_sees_a_pool(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("from concurrent.futures import ProcessPoolExecutor\nimport multiprocessing.pool\n")
    assert pool_uses(source) == {"ProcessPoolExecutor", "multiprocessing.pool"}


def test_contributing_names_only_files_that_exist_and_every_stage_folder():
    """The architecture page cannot drift: each `reportgen/…` path it names exists, and each
    folder of the package is named in it."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = (root / "CONTRIBUTING.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(reportgen/[\w/.]+?)`", text)) | set(re.findall(r"\b(reportgen/[\w/]+\.(?:py|toml))", text))
    missing = sorted(p for p in named if "<" not in p and "NNN" not in p and not (root / p.rstrip("/")).exists())
    assert not missing, f"CONTRIBUTING.md names files that do not exist: {missing}"
    folders = sorted(p.name for p in (root / "reportgen").iterdir() if (p / "__init__.py").exists())
    architecture = text.split("## Architecture", 1)[1].split("\n## ", 1)[0]
    assert all(f"{name}/" in architecture or f"reportgen/{name}" in text for name in folders), folders
