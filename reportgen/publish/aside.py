"""A build that failed never replaces a good one: its report goes beside it, in a folder it names.

A nightly whose experiment fails still shows what failed, and the set published in `output`
(the last good build's, which a course's Pages site and its readers use) stays as it was.
"""

from dataclasses import replace
from pathlib import Path

from reportgen.errors import ReportgenError
from reportgen.publish import outputs

SUFFIX = "-failed"  # <output>-failed, beside <output>


def folder_of(output):
    """Where a build that failed writes its report: beside the output folder, never over it."""
    path = Path(output)
    if path.name in ("", ".", ".."):
        path = path.resolve()
    return path.with_name(path.name + SUFFIX)


def config_of(config):
    """The config of a build that failed: its report and figures go to folder_of(output)."""
    folder = folder_of(config.output)
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise ReportgenError(f"this build failed; its report would go to {folder}, which is a link or a file, not a "
                             f"folder: remove it and build again ({config.output} is unchanged)")
    mine = outputs.foreign(folder)
    if mine:
        raise ReportgenError(f"this build failed; its report would go to {folder}, which holds {', '.join(mine[:4])} "
                             f"that no reportgen build wrote: move them and build again ({config.output} is unchanged)")
    return replace(config, output=str(folder), figures=str(folder / "figures"), replace=True)


def last_line(config):
    """The build's last line when it failed: where its report is, and that the good one is kept."""
    out = Path(config.output)
    if not out.name.endswith(SUFFIX):
        return ""
    kept = out.with_name(out.name[: -len(SUFFIX)])
    return (f"\nthis build failed: its report is in {out}; {kept} keeps the last good build's report, "
            "unchanged")
