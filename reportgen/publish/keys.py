"""What each cache entry is keyed on: everything that can change what it holds, and nothing else.

An experiment's results depend on its `run` module, the modules that one imports
(followed through the package, read as files, never imported: importing sampling
would import torch, which a cached build never needs), its parameters, the seed,
the device and the library versions. Its claims, captions and tables are not part
of the key, so editing a margin or a caption reruns no experiment. A family's figures
are keyed on its results, the documented numbers they mark, its drawing code and the style.
reportgen.publish.cache stores the entries under these keys.
"""

import ast
import functools
import hashlib
import importlib.resources
import importlib.util
import json
from importlib import metadata
from pathlib import Path

PACKAGE = "reportgen"


def _package_root(top):
    """Folder of a top-level package, found without importing it."""
    if top == PACKAGE:
        return Path(__file__).resolve().parents[1]  # reportgen/, above this stage folder
    spec = importlib.util.find_spec(top)
    return Path(spec.submodule_search_locations[0]) if spec and spec.submodule_search_locations else None


def module_file(name):
    """Path of a module inside a package, found without importing it; None when it is no module."""
    top, *parts = name.split(".")
    root = _package_root(top)
    if root is None:
        return None
    for path in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
        if path.is_file():
            return path
    return None


def _imports(path, module, packages=(PACKAGE,)):
    """Dotted names in `packages` that a file imports (module and function level)."""
    stat = path.stat()
    return _parsed_imports(path, stat.st_mtime_ns, stat.st_size, module, frozenset(packages))


@functools.lru_cache(maxsize=None)
def _parsed_imports(path, mtime_ns, size, module, packages):
    """_imports, parsed once per file version and process (a build keys 14 closures over the same files)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)  # `from pkg import module`
    return {n for n in names if n.split(".")[0] in packages}


def _statements(nodes):
    """Every statement in `nodes` and the blocks nested in them: an import is a statement, so
    the expressions, nine nodes in ten, need no visit (ast.walk visits them: a third of a
    build's time keying its caches)."""
    for node in nodes:
        if not isinstance(node, (ast.excepthandler, ast.match_case)):
            yield node
        for block in ("body", "orelse", "finalbody", "handlers", "cases"):
            yield from _statements(getattr(node, block, None) or ())


def source_closure(module):
    """{module name: path} of `module` and every module of ours it imports, transitively.

    "Ours": reportgen, and the package `module` belongs to (a family kept elsewhere).
    """
    packages = {PACKAGE, module.split(".")[0]}
    seen, todo = {}, [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = module_file(name)
        if path is None or name == PACKAGE or "." not in name:
            continue
        seen[name] = path
        todo.extend(_imports(path, name, packages) - seen.keys())
    return dict(sorted(seen.items()))


def digest_sources(module):
    """Hash of the source of a module and of everything of ours it imports."""
    digest = hashlib.sha256()
    for name, path in source_closure(module).items():
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def run_key(experiment, params, seed, device_kind):
    """Hash of the run code's sources, the parameters, the seed, the device and library versions."""
    material = {
        "experiment": experiment.name,
        "source": digest_sources(f"{experiment.package}.run"),
        "params": repr(params),
        "seed": seed,
        "device": device_kind,
        "torch": metadata.version("torch"),  # without importing torch: a cached build never needs it
        "numpy": metadata.version("numpy"),
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:32]


def figures_key(experiment, results, documented):
    """Hash of the results, the documented numbers marked, the drawing code and the style."""
    digest = hashlib.sha256(json.dumps([results, documented], sort_keys=True).encode())
    digest.update(digest_sources(f"{experiment.package}.figures").encode())
    style = Path(str(importlib.resources.files("reportgen.templates") / "report.mplstyle"))
    digest.update(style.read_bytes())
    digest.update(metadata.version("matplotlib").encode())
    return digest.hexdigest()[:32]
