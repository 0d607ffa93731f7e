"""The one interface every experiment family implements."""

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from reportgen.claims import Check
from reportgen.sources import Source

PROFILES = ("quick", "standard", "full")


@dataclass(frozen=True)
class Table:
    """A table for the report: plain strings, or a list of documented-vs-measured checks."""

    slug: str
    title: str
    caption: str
    columns: tuple = ()
    rows: tuple = ()  # tuples of strings, one per column
    checks: tuple = ()  # Check rows; when present the table is a claims table
    part: str = ""  # sub-heading the table sits under in its section

    def __post_init__(self):
        assert all(isinstance(c, Check) for c in self.checks)


@dataclass(frozen=True)
class Figure:
    """A matplotlib figure with what the report says about it."""

    slug: str
    caption: str
    alt: str
    figure: Any  # matplotlib.figure.Figure
    part: str = ""  # sub-heading the figure sits under in its section


@dataclass(frozen=True)
class Experiment:
    """A family of experiments: config -> seeded run -> results -> figures and tables.

    `run(params, seed, device, progress)` returns plain JSON-able numbers;
    `figures(results)` and `tables(results)` never compute anything new.
    """

    name: str
    title: str
    summary: str  # what it measures, one sentence
    covers: tuple  # Source sections of the documents it checks
    params: Mapping[str, Any]  # profile name -> frozen dataclass of parameters
    run: Callable
    figures: Callable
    tables: Callable
    intro: str = ""  # paragraph opening the report section (may hold $…$ math)
    formulas: tuple = field(default=())  # display LaTeX shown in the section

    def __post_init__(self):
        assert set(self.params) == set(PROFILES), f"{self.name}: params for every profile"
        assert all(isinstance(s, Source) for s in self.covers)


def deferred(module, attribute):
    """A function of reportgen.experiments.<module>, imported at its first call.

    Report modules import numpy and matplotlib helpers; deferring them keeps
    `reportgen list` and `--help` instant.
    """

    def call(*args, **kwargs):
        target = importlib.import_module(f"reportgen.experiments.{module}")
        return getattr(target, attribute)(*args, **kwargs)

    call.__name__ = f"{module}.{attribute}"
    return call
