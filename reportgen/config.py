"""The build configuration: defaults < config file < command-line flags."""

import difflib
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path

from reportgen import inputs, limits, text
from reportgen.errors import ConfigError, ReportgenError
from reportgen.family import PROFILES
from reportgen.provenance import source_date_epoch

DEVICES = ("auto", "cpu", "cuda")
FORMATS = ("html", "pdf")
MAX_SEED = 2**63 - 1  # torch.Generator.manual_seed takes a 64-bit integer
MAX_THREADS = 256
TITLE = "Why divide by √d_k? The documents' claims, measured"
KEYWORDS = ("scaled dot-product attention", "softmax", "transformer", "fact-check", "teaching materials")
TEXT_KEYS = ("title", "subtitle", "author", "course", "institution")


@dataclass(frozen=True)
class BuildConfig:
    profile: str = "standard"  # quick: tests and CI smoke; standard; full: 10-100x, for a GPU
    device: str = "auto"  # auto: CUDA when torch sees one, else CPU
    only: tuple = ()  # experiment names to run, in registry order; empty: all of them
    format: tuple = FORMATS  # outputs to render besides results.json
    output: str = "output"  # folder for report.html, report.pdf, results.json
    figures: str = "figures"  # folder for the figures, one sub-folder per experiment
    cache_dir: str = ".reportgen-cache"  # results cache, keyed on code, config, seed, device
    seed: int = 0  # the run seed; every sub-experiment derives its own stream from it
    threads: int = 1  # torch CPU threads; 1 avoids OpenMP spin contention on shared small machines
    cache: bool = True  # false: recompute everything (and refresh the cache)
    fail_fast: bool = False  # stop at the first failing experiment
    replace: bool = False  # let a partial build (only, format) replace a fuller set in the output folder
    quiet: bool = False  # no progress output, only errors and the summary line
    # What the title page, the PDF metadata and "how to cite" say (no flags: set them in the file).
    title: str = TITLE  # the report's title (may hold √d_k, d_k and other plain-text math)
    subtitle: str = ""  # a line under the title; empty: none
    author: str = ""  # who issues the report (a person, a course team); empty: none named
    course: str = ""  # the course it is attached to, e.g. "CS 224N, Winter 2026"
    institution: str = ""  # e.g. "Example University"
    logo: str = ""  # a local PNG, JPEG, GIF or SVG file for the title page; empty: none
    keywords: tuple = KEYWORDS  # PDF and HTML metadata keywords
    url: str = ""  # where the course or its documents live (http or https); cited in report.bib and CITATION.cff
    # A course's own documents (no flags): the texts, and the claim files written against them.
    documents: str = ""  # folder of the documents' texts (Markdown or plain text); empty: not looked up
    claims: str = ""  # folder of documents.toml and one <id>.toml per document; empty: the built-in five


FIELDS = {f.name: f for f in fields(BuildConfig)}


def _names_list(value):
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise TypeError
    return tuple(value)


def _check(key, value, experiments):
    """Return the value coerced to its field's type, or raise ValueError with the reason."""
    if key in ("profile", "device"):
        choices = PROFILES if key == "profile" else DEVICES
        if not isinstance(value, str):
            raise ValueError(f"expected a string, one of {', '.join(choices)}")
        if value not in choices:
            hint = difflib.get_close_matches(value, choices, n=1)
            extra = f"; did you mean '{hint[0]}'?" if hint else ""
            raise ValueError(f"unknown {key} '{value}', expected one of {', '.join(choices)}{extra}")
        return value
    if key in ("only", "format"):
        choices = tuple(experiments) if key == "only" else FORMATS
        try:
            names = _names_list(value)
        except TypeError:
            raise ValueError("expected a list of names or a comma-separated string") from None
        for name in names:
            if name not in choices:
                hint = difflib.get_close_matches(name, choices, n=1)
                extra = f"; did you mean '{hint[0]}'?" if hint else ""
                kind = "experiment" if key == "only" else "format"
                raise ValueError(f"unknown {kind} '{name}', expected one of {', '.join(choices)}{extra}")
        if key == "format" and not names:
            raise ValueError("expected at least one of html, pdf")
        return tuple(dict.fromkeys(names))
    if key == "threads":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected an integer, got {value!r}")
        if not 1 <= value <= MAX_THREADS:
            raise ValueError(f"{value} is out of range 1 … {MAX_THREADS}")
        return value
    if key == "seed":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected an integer, got {value!r}")
        if not 0 <= value <= MAX_SEED:
            raise ValueError(f"{value} is out of range 0 … {MAX_SEED}")
        return value
    if key in TEXT_KEYS:
        if not isinstance(value, str):
            raise ValueError(f"expected a string, got {value!r}")
        if key == "title" and not value.strip():
            raise ValueError("expected a non-empty title")
        return text.checked(value, limits.MAX_TITLE_CHARS if key == "title" else limits.MAX_TEXT_CHARS)
    if key == "keywords":
        try:
            words = _names_list(value)
        except TypeError:
            raise ValueError("expected a list of strings or a comma-separated string") from None
        if len(words) > limits.MAX_KEYWORDS:
            raise ValueError(f"{len(words)} keywords, over the limit of {limits.MAX_KEYWORDS}; keep the main ones")
        return tuple(text.checked(w, limits.MAX_TEXT_CHARS) for w in words)
    if key == "logo":
        if not isinstance(value, str):
            raise ValueError(f"expected the path of an image file, got {value!r}")
        return check_logo(text.path(value)) if value else value
    if key == "url":
        return _url(value)
    if key in ("documents", "claims"):
        if not isinstance(value, str):
            raise ValueError(f"expected the path of a folder, got {value!r}")
        if value and not Path(text.path(value)).is_dir():
            raise ValueError(f"{value} is not a folder; give the folder that holds the course's "
                             + ("texts" if key == "documents" else "documents.toml and claim files"))
        return text.path(value) if value else value
    if key in ("cache", "fail_fast", "quiet", "replace"):
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, got {value!r}")
        return value
    if not isinstance(value, str) or not value:
        raise ValueError(f"expected a non-empty path string, got {value!r}")
    return text.path(value)


def _url(value):
    """A web address to cite: one line, http or https, no spaces (it lands in BibTeX, CFF and HTML)."""
    if not isinstance(value, str):
        raise ValueError(f"expected a web address, got {value!r}")
    value = text.checked(value, limits.MAX_TEXT_CHARS)
    if value and (not value.lower().startswith(("https://", "http://")) or any(c in value for c in ' {}\\"<>`')):
        raise ValueError(f"{value[:60]!r} is not an http(s) address; write it as https://…")
    return value


def check_logo(path):
    """The logo path when it names an image reportgen can embed; ValueError otherwise."""
    from reportgen import logo

    try:
        logo.read(path)
    except FileNotFoundError:
        raise ValueError(f"cannot read {path} (it does not exist); {logo.WAY_OUT}") from None
    except ReportgenError as exc:
        raise ValueError(str(exc)) from None
    return path


def read_file_table(path, explicit):
    """The [tool.reportgen] table of a TOML file (or the whole file when given by --config)."""
    try:
        data = tomllib.loads(inputs.read_text(path, limits.MAX_CONFIG_BYTES, way_out="give a TOML config file"))
    except inputs.InputRefused as exc:
        raise ConfigError(f"config file {exc}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}; check the path") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix the file or pass another --config") from None
    tool = data.get("tool", {})
    table = tool.get("reportgen") if isinstance(tool, dict) else None
    if table is None:
        return data if explicit else {}
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.reportgen] must be a table of keys, got {table!r}; write it as a [tool.reportgen] section")
    return table


def load(config_file=None, cli=None, experiments=()):
    """Merge defaults, the config file and explicit CLI flags into a checked BuildConfig."""
    if config_file is not None:
        table, where = read_file_table(config_file, explicit=True), str(config_file)
    elif Path("pyproject.toml").is_file():
        table, where = read_file_table("pyproject.toml", explicit=False), "pyproject.toml [tool.reportgen]"
    else:
        table, where = {}, ""
    problems, values = [], {}
    for key, value in table.items():
        name = key.replace("-", "_")
        if name not in FIELDS:
            hint = difflib.get_close_matches(name, FIELDS, n=1)
            extra = f"; did you mean '{hint[0]}'?" if hint else f"; known keys: {', '.join(FIELDS)}"
            problems.append(f"{where}: unknown key '{key}'{extra}")
            continue
        try:
            values[name] = _check(name, value, experiments)
        except ValueError as exc:
            problems.append(f"{where}: key '{key}': {exc}")
    for name, value in (cli or {}).items():
        if value is None:  # flag not given: never overrides the file
            continue
        try:
            values[name] = _check(name, value, experiments)
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
    import tempfile

    try:
        path = Path(folder).resolve()
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
