"""The registry of experiment families, in report order."""

from reportgen.experiments import variance

EXPERIMENTS = {experiment.name: experiment for experiment in (variance.EXPERIMENT,)}


def describe():
    """(name, summary, covered sections) for each registered experiment."""
    return [(e.name, e.summary, e.covers) for e in EXPERIMENTS.values()]
