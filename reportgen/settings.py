"""Every build setting, declared once: the config dataclass, validation, flags and docs follow.

A `Setting` names its type (through its default and its check), range or choices, help,
command-line flag (if any) and whether it is branding. `config` makes `BuildConfig` and
validates from `SETTINGS`, `cli` makes the options of build, run and check from them, and
docs/generate.py writes docs/configuration.md's tables from them (a test fails while it is stale).
"""

import difflib
from dataclasses import dataclass, field, make_dataclass
from pathlib import Path

from reportgen import limits, text
from reportgen.errors import ReportgenError
from reportgen.experiments.family import PROFILES

DEVICES = ("auto", "cpu", "cuda")
FORMATS = ("html", "pdf")
MAX_SEED = 2**63 - 1  # torch.Generator.manual_seed takes a 64-bit integer
MAX_THREADS = 256
TITLE = "Why divide by √d_k? The documents' claims, measured"
KEYWORDS = ("scaled dot-product attention", "softmax", "transformer", "fact-check", "teaching materials")
CONFIG_HELP = "TOML config file (default: ./reportgen.toml, else ./pyproject.toml's [tool.reportgen] table)."


def did_you_mean(value, choices):
    """"; did you mean 'x'?" naming the nearest of `choices`, or "" when none is near."""
    hint = difflib.get_close_matches(value, tuple(choices), n=1)
    return f"; did you mean '{hint[0]}'?" if hint else ""


def unknown(kind, value, choices):
    """The one line for a value not among `choices`."""
    return f"unknown {kind} '{value}', expected one of {', '.join(choices)}{did_you_mean(value, choices)}"


# --- checks: each returns the value coerced to its type, or raises ValueError with the reason ---


def _names_list(value):
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise TypeError
    return tuple(value)


@dataclass(frozen=True)
class OneOf:
    """One name of a fixed set."""

    choices: tuple
    kind: str

    def __call__(self, value, experiments):
        if not isinstance(value, str):
            raise ValueError(f"expected a string, one of {', '.join(self.choices)}")
        if value not in self.choices:
            raise ValueError(unknown(self.kind, value, self.choices))
        return value


@dataclass(frozen=True)
class Names:
    """A list (or "a,b") of names of a set; `choices` None: the registered experiments."""

    choices: tuple | None
    kind: str
    at_least_one: bool = False

    def of(self, experiments):
        return tuple(experiments) if self.choices is None else self.choices

    def __call__(self, value, experiments):
        choices = self.of(experiments)
        try:
            names = _names_list(value)
        except TypeError:
            raise ValueError("expected a list of names or a comma-separated string") from None
        for name in names:
            if name not in choices:
                raise ValueError(unknown(self.kind, name, choices))
        if self.at_least_one and not names:
            raise ValueError(f"expected at least one of {', '.join(choices)}")
        return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class Integer:
    """An integer in lo … hi."""

    lo: int
    hi: int

    def __call__(self, value, experiments):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected an integer, got {value!r}")
        if not self.lo <= value <= self.hi:
            raise ValueError(f"{value} is out of range {self.lo} … {self.hi}")
        return value


@dataclass(frozen=True)
class Flag:
    """true or false."""

    def __call__(self, value, experiments):
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, got {value!r}")
        return value


@dataclass(frozen=True)
class Folder:
    """A folder reportgen writes (it need not exist yet)."""

    def __call__(self, value, experiments):
        if not isinstance(value, str) or not value:
            raise ValueError(f"expected a non-empty path string, got {value!r}")
        return text.path(value)


@dataclass(frozen=True)
class Text:
    """One line of text, at most `limit` characters; `required`: not blank."""

    limit: int = limits.MAX_TEXT_CHARS
    required: str = ""  # the word for the error when blank, e.g. "title"

    def __call__(self, value, experiments):
        if not isinstance(value, str):
            raise ValueError(f"expected a string, got {value!r}")
        if self.required and not value.strip():
            raise ValueError(f"expected a non-empty {self.required}")
        return text.checked(value, self.limit)


@dataclass(frozen=True)
class Words:
    """Metadata keywords: a list (or "a,b") of short texts."""

    def __call__(self, value, experiments):
        try:
            words = _names_list(value)
        except TypeError:
            raise ValueError("expected a list of strings or a comma-separated string") from None
        if len(words) > limits.MAX_KEYWORDS:
            raise ValueError(f"{len(words)} keywords, over the limit of {limits.MAX_KEYWORDS}; keep the main ones")
        return tuple(text.checked(w, limits.MAX_TEXT_CHARS) for w in words)


@dataclass(frozen=True)
class Image:
    """A local image file reportgen can embed; "" for none."""

    def __call__(self, value, experiments):
        if not isinstance(value, str):
            raise ValueError(f"expected the path of an image file, got {value!r}")
        return check_logo(text.path(value)) if value else value


@dataclass(frozen=True)
class Address:
    """A web address to cite: one line, http or https, no spaces (it lands in BibTeX, CFF and HTML)."""

    def __call__(self, value, experiments):
        if not isinstance(value, str):
            raise ValueError(f"expected a web address, got {value!r}")
        value = text.checked(value, limits.MAX_TEXT_CHARS)
        if value and (not value.lower().startswith(("https://", "http://")) or any(c in value for c in ' {}\\"<>`')):
            raise ValueError(f"{value[:60]!r} is not an http(s) address; write it as https://…")
        return value


@dataclass(frozen=True)
class ExistingFolder:
    """A folder that must exist when given; "" for none. `holds` says what it should hold."""

    holds: str

    def __call__(self, value, experiments):
        if not isinstance(value, str):
            raise ValueError(f"expected the path of a folder, got {value!r}")
        if value and not Path(text.path(value)).is_dir():
            raise ValueError(f"{value} is not a folder; give the folder that holds the course's {self.holds}")
        return text.path(value) if value else value


def check_logo(path):
    """The logo path when it names an image reportgen can embed; ValueError otherwise."""
    from reportgen import images  # here: its SVG check loads markupsafe and XML, which `--help` never needs

    try:
        images.read(path)
    except FileNotFoundError:
        raise ValueError(f"cannot read {path} (it does not exist); {images.WAY_OUT}") from None
    except ReportgenError as exc:
        raise ValueError(str(exc)) from None
    return path


# --- the declaration ---

ALL = ("build", "run", "check")  # the commands that run experiments


@dataclass(frozen=True)
class Setting:
    """One setting: its name, default, check, help and flag."""

    name: str
    default: object
    check: object  # a callable (value, experiments) -> value, raising ValueError
    help: str  # `--help` and docs/configuration.md; {default} is filled in
    flag: tuple = ()  # option declarations, e.g. ("-q", "--quiet"); empty: config file only
    commands: tuple = ("build",)  # the commands that take the flag
    branding: bool = False  # what the report says of its issuer: never part of an experiment's cache key

    @property
    def negated(self):
        """The flag sets the setting to false (--no-cache)."""
        return any(f.startswith("--no-") for f in self.flag)


SETTINGS = (
    Setting("profile", "standard", OneOf(PROFILES, "profile"), flag=("--profile",), commands=ALL,
            help="Problem sizes: quick (tests, CI smoke), standard (default) or full (10-100x larger, for a GPU; "
                 "on a CPU the build first says how long it would take)."),
    Setting("device", "auto", OneOf(DEVICES, "device"), flag=("--device",), commands=ALL,
            help="auto (CUDA when present, else CPU; the default), cpu or cuda."),
    Setting("only", (), Names(None, "experiment"), flag=("--only",), commands=("build", "check"),
            help="Comma-separated experiment names (see 'reportgen list')."),
    Setting("format", FORMATS, Names(FORMATS, "format", at_least_one=True), flag=("--format",),
            help="Comma-separated outputs besides results.json: html (report.html and the errata sheets' HTML), "
                 "pdf (report.pdf, report-handout.pdf and the sheets' PDFs); default both."),
    Setting("output", "output", Folder(), flag=("--output",), help="Output folder (default output/); one that cannot be written "
            "is refused before any work."),
    Setting("figures", "figures", Folder(), help="Folder for the figures, one sub-folder per experiment."),
    Setting("cache_dir", ".reportgen-cache", Folder(),
            help="Results cache, keyed on code, config, seed and device."),
    Setting("seed", 0, Integer(0, MAX_SEED), flag=("--seed",), commands=ALL,
            help="Run seed (default {default}); same seed, profile and device give the same numbers."),
    Setting("threads", 1, Integer(1, MAX_THREADS), flag=("--threads",), commands=ALL,
            help="torch CPU threads (default {default}: no OpenMP spin contention on small shared machines)."),
    Setting("cache", True, Flag(), flag=("--no-cache",), commands=ALL,
            help="Recompute every experiment (refreshes the cache)."),
    Setting("fail_fast", False, Flag(), flag=("--fail-fast",), help="Stop at the first failing experiment."),
    Setting("replace", False, Flag(), flag=("--replace",),
            help="Let an --only or --format build replace a fuller one in the output folder, or a build replace "
                 "report files no build wrote there (refused otherwise)."),
    Setting("quiet", False, Flag(), flag=("-q", "--quiet"), commands=ALL, help="Only errors and the summary line."),
    # What the title page, the PDF metadata and "how to cite" say (no flags: set them in the file).
    Setting("title", TITLE, Text(limits.MAX_TITLE_CHARS, required="title"), branding=True,
            help="The report's title (may hold √d_k, d_k and other plain-text math)."),
    Setting("subtitle", "", Text(), branding=True, help="A line under the title; empty: none."),
    Setting("author", "", Text(), branding=True, help="Who issues the report (a person, a course team)."),
    Setting("course", "", Text(), branding=True, help='The course it is attached to, e.g. "CS 224N, Winter 2026".'),
    Setting("institution", "", Text(), branding=True, help='E.g. "Example University".'),
    Setting("logo", "", Image(), branding=True, help="A local PNG, JPEG, GIF or SVG file for the title page "
            "(its type read from its bytes), embedded; empty: none."),
    Setting("keywords", KEYWORDS, Words(), branding=True, help="PDF and HTML metadata keywords."),
    Setting("url", "", Address(), branding=True,
            help="Where the course or its documents live (http or https); cited in report.bib and CITATION.cff."),
    # A course's own documents (no flags): the texts, and the claim files written against them.
    Setting("documents", "", ExistingFolder("texts"),
            help="Folder of the documents' texts (Markdown or plain text); empty: not looked up."),
    Setting("claims", "", ExistingFolder("documents.toml and claim files"),
            help="Folder of documents.toml and one <id>.toml per document; empty: the built-in five."),
)
BY_NAME = {s.name: s for s in SETTINGS}
BRANDING = tuple(s.name for s in SETTINGS if s.branding)


def dataclass_of(settings, name, module):
    """A frozen dataclass with one field per setting, its default the setting's (picklable from `module`)."""
    cls = make_dataclass(name, [(s.name, type(s.default), field(default=s.default)) for s in settings],
                         frozen=True)
    cls.__module__ = module
    cls.__doc__ = "The build configuration; each field is a `reportgen.settings.Setting`."
    return cls


def check(name, value, experiments=()):
    """The value coerced to the setting's type, or ValueError with the reason."""
    return BY_NAME[name].check(value, experiments)


def help_text(setting):
    """The setting's help, its {default} filled in (`--help` and docs/configuration.md)."""
    return setting.help.format(default=setting.default)
