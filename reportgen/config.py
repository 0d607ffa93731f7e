"""The build configuration: defaults < config file < command-line flags."""

import os
import tempfile
import tomllib
from dataclasses import replace
from pathlib import Path

from reportgen import inputs, limits, settings
from reportgen.errors import ConfigError
from reportgen.publish.provenance import source_date_epoch
from reportgen.settings import MAX_SEED  # noqa: F401 (read here by the tests)

BuildConfig = settings.dataclass_of(settings.SETTINGS, "BuildConfig", __name__)  # one field per setting
FIELDS = settings.BY_NAME


def read_file_table(path, explicit):
    """The [tool.reportgen] table of a TOML file (or the whole file when given by --config)."""
    try:
        data = tomllib.loads(inputs.read_text(path, limits.MAX_CONFIG_BYTES, way_out="give a TOML config file"))
        tool = data.get("tool", {})
        table = tool.get("reportgen") if isinstance(tool, dict) else None
        inputs.depth_checked(table if table is not None else data if explicit else {}, path)  # what is read
    except RecursionError:
        raise ConfigError(f"{path} is nested deeper than {limits.MAX_TOML_DEPTH} levels; a config is one table "
                          "of keys (see 'reportgen config')") from None
    except inputs.InputRefused as exc:
        raise ConfigError(f"config file {exc}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}; check the path") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix the file or pass another --config") from None
    if table is None:
        return data if explicit else {}
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.reportgen] must be a table of keys, got {table!r}; write it as a [tool.reportgen] section")
    return table


def load(config_file=None, cli=None, experiments=()):
    """Merge defaults, the config file and explicit CLI flags into a checked BuildConfig."""
    if config_file is not None:
        table, where = read_file_table(config_file, explicit=True), str(config_file)
    elif Path("reportgen.toml").is_file():  # a course repository's own (reportgen init writes it)
        table, where = read_file_table("reportgen.toml", explicit=True), "reportgen.toml"
    elif Path("pyproject.toml").is_file():
        table, where = read_file_table("pyproject.toml", explicit=False), "pyproject.toml [tool.reportgen]"
    else:
        table, where = {}, ""
    problems, values = [], {}
    for key, value in table.items():
        name = key.replace("-", "_")
        if name not in FIELDS:
            extra = settings.did_you_mean(name, FIELDS) or f"; known keys: {', '.join(FIELDS)}"
            problems.append(f"{where}: unknown key '{key}'{extra}")
            continue
        try:
            values[name] = settings.check(name, value, experiments)
        except ValueError as exc:
            problems.append(f"{where}: key '{key}': {exc}")
    for name, value in (cli or {}).items():
        if value is None:  # flag not given: never overrides the file
            continue
        try:
            values[name] = settings.check(name, value, experiments)
        except ValueError as exc:
            problems.append(f"--{name.replace('_', '-')}: {exc}")
    config = replace(BuildConfig(), **values)
    problems += overlapping_folders(config) + unusable_folder(config.output)
    problems += unusable_folder(config.figures, "figures", "set another 'figures' folder in the config")
    try:
        source_date_epoch()  # checked before any work, not when the first result is stamped
    except ConfigError as exc:
        problems += exc.problems
    if problems:
        raise ConfigError(problems)
    return config


def unusable_folder(folder, key="output", way_out="choose another --output"):
    """A problem when the output (or figures) folder cannot be made or written, found before any work.

    The nearest existing folder on the path is tried with a temporary file, which it keeps
    for no longer than the check: permission bits say nothing to root, and a read-only
    file system says nothing through them at all.
    """
    try:
        given = Path(folder)
        dangling = next((p for p in (given, *given.parents) if p.is_symlink() and not p.exists()), None)
        if dangling is not None:  # resolve() would follow it to a folder nobody can make there
            return [f"{key}: {dangling} is a link to {os.readlink(dangling)}, which does not exist; "
                    f"make that folder, or {way_out}"]
        path = given.resolve()
        existing = next((p for p in (path, *path.parents) if p.exists()), None)
        if existing is None:
            return []
        if not existing.is_dir():
            return [f"{key}: {folder} cannot be a folder: {existing} is a file; {way_out}"]
        with tempfile.TemporaryFile(dir=existing, prefix=".reportgen-probe-"):
            pass
    except OSError as exc:  # unwritable, read-only, a name too long, the current folder deleted
        where = exc.filename or folder
        return [f"{key}: cannot write in {where} ({exc.strerror or exc}); {way_out}"]
    return []


def overlapping_folders(config):
    """Problems for output, figures and cache_dir that are the same folder or nest in each other."""
    folders = {"output": config.output, "figures": config.figures, "cache_dir": config.cache_dir}
    try:
        resolved = {key: Path(value).resolve() for key, value in folders.items()}
    except OSError:
        return []  # unusable_folder names the folder that cannot be resolved
    problems = []
    keys = list(folders)
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            pa, pb = resolved[a], resolved[b]
            if pa == pb or pa in pb.parents or pb in pa.parents:
                problems.append(
                    f"'{a}' ({folders[a]}) and '{b}' ({folders[b]}) overlap; reportgen replaces and removes "
                    "files in each of them, so give each its own folder"
                )
    return problems
