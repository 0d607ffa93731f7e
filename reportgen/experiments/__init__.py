"""The registry of experiment families, in report order.

Each family is a package of this folder with the roles of reportgen.experiments.family; its
__init__ defines EXPERIMENT and imports nothing heavy. Beside the families, what they share:
seeded sampling, streaming moments and softmax row statistics for the runs; measurements,
intervals, paired comparisons and the thresholds that turn the documents' words into numbers
for the measures. This stage imports nothing of judging, rendering or publishing: a family's
figures role draws with reportgen.plotting, the Matplotlib set-up below every stage.
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
