"""The one interface every experiment family implements.

A family is a package under reportgen/experiments/ whose roles are fixed files:

  __init__.py   EXPERIMENT: name, title, what it covers, parameters per profile
  run.py        run(params, seed, device, progress) -> results: plain JSON-able numbers
  measures.py   MEASURES = Measures(), each f(results, **args) -> Measurement registered where it
                is defined (@MEASURES.register, reportgen/experiments/measure.py); numbers only
  tables.py     tables(results) -> its report layout: data Tables and ClaimTable slots
  figures.py    figures(results, documented) -> Figures, drawn from results and measures
                (never tables); `documented` maps claim ids to printed numbers it marks

Data flows one way: run -> results -> measures -> (claims judged elsewhere) -> tables
and figures. The role modules are imported only when used, so listing the families
imports neither torch nor matplotlib.
"""

import importlib
from dataclasses import dataclass, field
from typing import Any, Mapping

from reportgen.experiments.sources import Source

PROFILES = ("quick", "standard", "full")
ROLES = ("run", "measures", "tables", "figures")


@dataclass(frozen=True)
class Table:
    """A data table for the report: a title, a caption and rows of plain strings."""

    slug: str
    title: str
    caption: str
    columns: tuple = ()
    rows: tuple = ()  # tuples of strings, one per column
    part: str = ""  # sub-heading the table sits under in its section


@dataclass(frozen=True)
class ClaimTable:
    """A place in the layout where the claims naming `slug` are shown, documented beside measured."""

    slug: str
    title: str
    caption: str
    part: str = ""


@dataclass(frozen=True)
class Figure:
    """A matplotlib figure with what the report says about it."""

    slug: str
    caption: str
    alt: str
    figure: Any  # matplotlib.figure.Figure (None once drawn to files)
    part: str = ""  # sub-heading the figure sits under in its section


@dataclass(frozen=True)
class Experiment:
    """A family of experiments: parameters -> seeded run -> results -> measures, tables, figures."""

    name: str
    title: str
    summary: str  # what it measures, one sentence
    covers: tuple  # Source sections of the documents it checks
    params: Mapping[str, Any]  # profile name -> frozen dataclass of parameters
    package: str  # dotted name of the package holding the role modules
    intro: str = ""  # paragraph opening the report section (may hold $…$ math)
    formulas: tuple = field(default=())  # display LaTeX shown in the section
    key_figure: str = ""  # slug of the figure the handout shows for this family; empty: its first
    # The slugs of its tables.py's ClaimTable slots, in layout order: what a claim's `table` may
    # name, checked before any run (tests/test_extension.py checks the layout holds exactly these).
    claim_tables: tuple = ()
    # Sub-headings and claims tables written about particular documents (a document's own code
    # rerun, its worked example): {heading or claims-table slug: document ids}. A build whose
    # claims come from none of them (a course's) leaves them out.
    own: Mapping[str, tuple] = field(default_factory=dict)
    # Whether its run keeps its finished parts as it goes (run(..., parts=store): store.load(spec) and
    # store.store(spec, value), handed in by the scheduler from the build's cache), so a rerun resumes.
    resumable: bool = False

    def __post_init__(self):
        assert set(self.params) == set(PROFILES), f"{self.name}: params for every profile"
        assert all(isinstance(s, Source) for s in self.covers)
        assert not self.own or set(self.own) <= set(self.claim_tables) | set(self.parts()), \
            f"{self.name}: `own` names what is no part or claims table of it"

    def parts(self):
        """The sub-headings its role modules declare (the PART_* names of its package)."""
        module = importlib.import_module(self.package)
        return [v for k, v in vars(module).items() if k.startswith("PART_") and isinstance(v, str)]

    def shown(self, key, documents):
        """Whether a sub-heading or claims table is shown in a build checking `documents`."""
        return key not in self.own or bool(set(self.own[key]) & set(documents))

    def tables_for(self, documents):
        """The claims tables a claim of a build checking `documents` may name."""
        return tuple(t for t in self.claim_tables if self.shown(t, documents))

    def role(self, name):
        """The module of one role (run, measures, tables, figures)."""
        assert name in ROLES, name
        return importlib.import_module(f"{self.package}.{name}")

    def run(self, params, seed, device, progress, parts=None):
        """The run role's results; `parts` (a resumable family's) keeps what it finishes as it goes."""
        if parts is None:
            return self.role("run").run(params, seed, device, progress)
        return self.role("run").run(params, seed, device, progress, parts=parts)

    def measures(self):
        return self.role("measures").MEASURES

    def tables(self, results):
        return self.role("tables").tables(results)

    def figures(self, results, documented):
        """Figures from results; `documented` maps claim ids to the numbers the documents print."""
        return self.role("figures").figures(results, documented)
