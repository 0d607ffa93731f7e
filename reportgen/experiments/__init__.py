"""The registry of experiment families, in report order."""

from reportgen.experiments import gradients, saturation, temperature, training, variance, worked

EXPERIMENTS = {
    experiment.name: experiment
    for experiment in (
        variance.EXPERIMENT,
        saturation.EXPERIMENT,
        temperature.EXPERIMENT,
        worked.EXPERIMENT,
        gradients.EXPERIMENT,
        training.EXPERIMENT,
    )
}


def describe():
    """(name, summary, covered sections) for each registered experiment."""
    return [(e.name, e.summary, e.covers) for e in EXPERIMENTS.values()]
