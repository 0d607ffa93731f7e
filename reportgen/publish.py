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

import contextlib
import hashlib
import json
import os
import signal
from pathlib import Path

from reportgen import inputs, limits, lock
from reportgen.atomic import remove_leftovers, write_atomic
from reportgen.errors import Terminated

# The Ctrl-C and SIGTERM this command's handlers took (cli.guarded records them). The exception
# a handler raises can be swallowed on its way up (one landing inside numpy's import left the
# import half done and came back as the families' ImportErrors); a signal taken is never a build
# that publishes.
received = set()


def stop_if_signalled():
    """Raise again a Ctrl-C or SIGTERM taken earlier whose exception did not reach the command."""
    if signal.SIGTERM in received:
        raise Terminated()
    if signal.SIGINT in received:
        raise KeyboardInterrupt

# the set reportgen owns
OUTPUT_NAMES = ("results.json", "report.html", "report.pdf", "report-handout.pdf", "report.bib", "CITATION.cff")
MANIFEST = ".reportgen-manifest.json"
JOURNAL = ".reportgen-swap.json"
STAGED = ".staged"


def _staged(folder, name):
    return folder / f".{name}{STAGED}"


def publish(folder, files, build, say=None):
    """Replace the output set in `folder` by `files` ({name: bytes or str}) of one build,
    holding the folder's lock (another build's publishing is waited for; `say` tells)."""
    stop_if_signalled()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with lock.held(folder, say):
        stop_if_signalled()  # the last gate before the output folder changes
        return _replace_set(folder, files, build)


def committed(folder):
    """Whether a publish into `folder` got past its commit point without finishing."""
    return (Path(folder) / JOURNAL).exists()


def _replace_set(folder, files, build):
    recover(folder)
    data = {name: d.encode("utf-8") if isinstance(d, str) else d for name, d in files.items()}
    manifest = {
        "build": build,
        "files": {name: hashlib.sha256(d).hexdigest() for name, d in data.items()},
    }
    data[MANIFEST] = json.dumps(manifest, indent=1).encode()
    renames = []
    try:
        for name, payload in data.items():
            write_atomic(_staged(folder, name), payload)
            renames.append(name)
        stale = [n for n in OUTPUT_NAMES if n not in data and (folder / n).exists()]
        write_atomic(folder / JOURNAL, json.dumps({"rename": renames, "remove": stale}))
    except BaseException:
        for name in renames:
            _staged(folder, name).unlink(missing_ok=True)
        raise
    with signals_held():
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
        if name in OUTPUT_NAMES:
            (folder / name).unlink(missing_ok=True)
    (folder / JOURNAL).unlink()


def _safe_name(name):
    return name in OUTPUT_NAMES or name == MANIFEST or name.startswith("report-") and "/" not in name


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


@contextlib.contextmanager
def signals_held():
    """Hold SIGINT and SIGTERM back for a few renames; they are delivered right after."""
    held = {signal.SIGINT, signal.SIGTERM}
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, ValueError, OSError):  # no signal masks here (or not the main thread)
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
