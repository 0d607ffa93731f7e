"""Replace the output files as one set: staged, committed by a journal, renamed, recoverable.

A build writes every new file beside its final name first (`.NAME.staged`), then the
journal (`.reportgen-swap.json`, written atomically: the commit point), then renames
each staged file over its final name and removes the files of the previous set that
this build does not replace (a report.pdf when only HTML was asked for). Signals are
held back during the renames. A build that dies before the journal leaves the old set
untouched (its staged files are removed by the next build); one that dies after it is
rolled forward by the next build, so the folder always ends up with one build's set.
`.reportgen-manifest.json`, renamed last, names the build each file belongs to.
"""

import hashlib
import json
import os
from pathlib import Path

from reportgen import artifacts, inputs, limits, signals
from reportgen.atomic import remove_leftovers, write_atomic
from reportgen.errors import ConfigError, ReportgenError
from reportgen.publish import lock

# the set reportgen owns: the files its outputs declare (reportgen.artifacts), and the
# per-document ones by their prefix (errata-<id>.html, errata-<id>.pdf)
OUTPUT_NAMES, SHEET_PREFIXES = artifacts.owned()
MANIFEST = ".reportgen-manifest.json"
JOURNAL = ".reportgen-swap.json"
STAGED = ".staged"


def _staged(folder, name):
    return folder / f".{name}{STAGED}"


def write(folder, files, build, progress, scope, replace=True, known=None):
    """publish() as a build's last stage: its progress line, and a failure said in one line that
    tells truly what the folder holds now."""
    try:
        with progress.stage("write", f"{len(files)} files into {folder}"):
            return publish(folder, files, build, progress.warn, scope, replace=replace, known=known)
    except OSError as exc:
        state = ("the new report is committed but not all in place; the next build there finishes it"
                 if committed(folder) else "the previous report there is unchanged")
        raise ReportgenError(f"cannot write the report into {folder}: {exc.strerror or exc}; {state}; "
                             "free space or choose another --output") from None


def publish(folder, files, build, say=None, scope=None, replace=True, known=None):
    """Replace the output set in `folder` by `files` ({name: bytes or str}) of one build,
    holding the folder's lock (another build's publishing is waited for; `say` tells).
    `scope` ({"experiments": [...], "formats": [...]}) goes in the manifest: what the set covers.
    Without `replace`, a set that covers more than `scope`, or files no build wrote, are refused
    once the lock is held: a build that began beside this one may have published meanwhile."""
    signals.raise_if_taken()  # a signal taken is never a build that publishes
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with lock.held(folder, say):
        signals.raise_if_taken()  # the last gate before the output folder changes
        recover(folder)
        scope = scope or {}
        why = "" if replace else refusal(folder, scope.get("experiments", ()), scope.get("formats", ()), known)
        if why:
            raise ConfigError(f"while this build ran, {why}, or build into another --output")
        return _replace_set(folder, files, build, scope)


def committed(folder):
    """Whether a publish into `folder` got past its commit point without finishing."""
    return (Path(folder) / JOURNAL).exists()


def _replace_set(folder, files, build, scope):
    """Stage, commit and rename one build's set (publish has finished any publish cut short)."""
    previous = set(manifest_of(folder).get("files", {}))
    data = {name: d.encode("utf-8") if isinstance(d, str) else d for name, d in files.items()}
    manifest = {
        "build": build,
        "files": {name: hashlib.sha256(d).hexdigest() for name, d in data.items()},
        **{key: list(value) for key, value in scope.items()},
    }
    data[MANIFEST] = json.dumps(manifest, indent=1).encode()
    renames = []
    try:
        for name, payload in data.items():
            write_atomic(_staged(folder, name), payload)
            renames.append(name)
        owned = [*OUTPUT_NAMES, *sorted(n for n in previous if _safe_name(n) and n != MANIFEST)]
        stale = [n for n in dict.fromkeys(owned) if n not in data and (folder / n).exists()]
        write_atomic(folder / JOURNAL, json.dumps({"rename": renames, "remove": stale}))
    except BaseException:
        for name in renames:
            _staged(folder, name).unlink(missing_ok=True)
        raise
    with signals.held():
        _apply(folder)
    return [folder / name for name in files]


def _apply(folder):
    """Carry out the journal: staged files over their names (manifest last), stale ones removed."""
    journal = json.loads(inputs.read(folder / JOURNAL, limits.MAX_JOURNAL_BYTES, follow=False))
    names = [n for n in journal["rename"] if n != MANIFEST] + [n for n in journal["rename"] if n == MANIFEST]
    for name in names:
        if _safe_name(name) and _staged(folder, name).exists():
            os.replace(_staged(folder, name), folder / name)
    for name in journal.get("remove", []):
        if _safe_name(name) and name != MANIFEST:
            (folder / name).unlink(missing_ok=True)
    (folder / JOURNAL).unlink()


def _safe_name(name):
    if not isinstance(name, str) or "/" in name or "\\" in name or name.startswith("."):
        return name == MANIFEST
    return name in OUTPUT_NAMES or name.startswith(SHEET_PREFIXES)


def manifest_of(folder):
    """The manifest of the set in `folder` ({} when there is none or it cannot be read)."""
    try:
        data = json.loads(inputs.read(Path(folder) / MANIFEST, limits.MAX_JOURNAL_BYTES, follow=False))
    except (OSError, ValueError, inputs.InputRefused):
        return {}
    return data if isinstance(data, dict) and isinstance(data.get("files"), dict) else {}


def _experiments_of(folder, files):
    """The experiments of a set whose manifest predates its scope, read from its results.json."""
    if "results.json" not in files:
        return []
    try:
        data = json.loads(inputs.read(Path(folder) / "results.json", limits.MAX_RESULTS_BYTES, follow=False))
        return list(data.get("experiments", {}))
    except (OSError, ValueError, AttributeError, inputs.InputRefused):
        return []


def format_of(name):
    """The --format that writes an output file ("" for results.json, which every build writes)."""
    return {".html": "html", ".pdf": "pdf"}.get(Path(name).suffix, "")


def narrowing(folder, experiments, formats, known=None):
    """One line saying what a build of `experiments` in `formats` would take from the set in
    `folder` that covers more, or "" when it takes nothing (or the folder holds no manifest).
    `known`: the experiments this version has (one the set names and this version lacks is no
    loss: a build of everything is never refused).

    A set written before manifests named their scope is judged by its files alone; only the
    files still there count.
    """
    folder = Path(folder)
    manifest = manifest_of(folder)
    files = [n for n in manifest.get("files", {}) if _safe_name(n) and n != MANIFEST and (folder / n).is_file()]
    held = [e for e in manifest.get("experiments") or _experiments_of(folder, files) if isinstance(e, str)]
    lost = [e for e in held if e not in experiments and (known is None or e in known)]
    removed = [n for n in files if format_of(n) and format_of(n) not in formats]
    if not lost and not removed:
        return ""
    what = []
    if removed:
        what.append(f"remove {', '.join(removed)}")
    if lost:
        kept = [n for n in files if n not in removed and format_of(n)]
        mine = [e for e in held if e in experiments] or list(experiments)
        what.append(f"replace {', '.join(kept) or 'results.json'} (a build of {_experiments(held)}) "
                    f"with a build of {', '.join(mine)} only")
    return f"{folder} holds a build this one does not cover: it would {' and '.join(what)}"


def _experiments(names):
    return f"{len(names)} experiments" if len(names) > 1 else names[0]


def foreign(folder):
    """The files in `folder` a build would write over or remove though no reportgen build there
    wrote them: none when its manifest or journal says a build did (the files are its)."""
    folder = Path(folder)
    if manifest_of(folder) or (folder / MANIFEST).exists() or committed(folder) or not folder.is_dir():
        return []
    try:
        names = sorted(p.name for p in folder.iterdir())
    except OSError:
        return []
    return [n for n in names if n in OUTPUT_NAMES or (_safe_name(n) and n != MANIFEST and format_of(n) != "")]


def refusal(folder, experiments, formats, known=None):
    """Why a build without --replace may not publish into `folder` ("" when it may): it would
    narrow a set that covers more, or replace files no reportgen build wrote."""
    mine = foreign(folder)
    if mine:
        return (f"{folder} holds {', '.join(mine[:6])}{' …' if len(mine) > 6 else ''} but no {MANIFEST} of a "
                "reportgen build: they may be yours; move them, add --replace to let this build replace them")
    why = narrowing(folder, experiments, formats, known)
    return f"{why}; add --replace to go ahead" if why else ""


def recover(folder):
    """Finish an interrupted swap, or drop the staged files of a build that never committed."""
    folder = Path(folder)
    journal = folder / JOURNAL
    if journal.exists() or journal.is_symlink():
        try:
            _apply(folder)
        except inputs.InputRefused as exc:
            raise inputs.InputRefused(exc.path, f"{exc.reason}, so reportgen did not write it",
                                      "remove it and build again (the report files beside it are untouched)") from None
        except (ValueError, KeyError, TypeError, AttributeError):
            journal.unlink(missing_ok=True)  # a torn journal: the commit never happened
    for leftover in folder.glob(f".*{STAGED}"):
        leftover.unlink(missing_ok=True)
    remove_leftovers(folder)



def refuse_narrowing(config, experiments, known=None):
    """A partial build (--only, --format) never silently replaces a fuller set, and no build
    replaces files it did not write: refused before any work (publish asks again, holding the
    folder's lock, for a build that began beside this one)."""
    if config.replace:
        return
    if committed(config.output):  # a publish cut short: the set it committed is the one to judge
        with lock.held(config.output):
            recover(config.output)
    why = refusal(config.output, experiments, config.format, known)
    if why:
        raise ConfigError(f"{why}, or choose another --output")
