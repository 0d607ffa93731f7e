"""The registry of experiment families, in report order.

Each family is a package of this folder with the roles of reportgen.family; its
__init__ defines EXPERIMENT and imports nothing heavy.
"""

from reportgen.experiments import gradients, lm, saturation, temperature, training, variance, worked

FAMILIES = (
    variance.EXPERIMENT,
    saturation.EXPERIMENT,
    temperature.EXPERIMENT,
    worked.EXPERIMENT,
    gradients.EXPERIMENT,
    training.EXPERIMENT,
    lm.EXPERIMENT,
)
EXPERIMENTS = {family.name: family for family in FAMILIES}


def describe():
    """(name, summary, covered sections) for each registered experiment."""
    return [(e.name, e.summary, e.covers) for e in EXPERIMENTS.values()]
