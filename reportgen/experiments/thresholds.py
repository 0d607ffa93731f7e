"""Thresholds that turn the documents' words into numbers: one home each, with why.

A claim names one of these in its `threshold` (e.g. threshold = "saturated_max_weight")
instead of repeating the number, so changing what 'saturated' means is one edit here.
Run code may import them too (a run that counts saturated rows uses the same cut).
"""

THRESHOLDS = {
    # 'saturated', 'near one-hot', 'extremely peaked', 'peaked': the mean largest softmax
    # weight is at least 0.9 (nine tenths of the mass on one key).
    "saturated_max_weight": 0.9,
    # 'near-uniform', 'distributed': mean entropy at least 0.9 ln n (ln n is uniform's entropy).
    "near_uniform_entropy": 0.9,
    # A query row counts as saturated when its largest probability exceeds 0.99: the other
    # n-1 keys share under 1% of the mass, so their gradients are at most ~1e-2 of a uniform row's.
    "saturated_row": 0.99,
    # 'hard attention (argmax)': largest weight ≥ 0.99; 'uniform': entropy ≥ 0.99 ln n.
    "limit_share": 0.99,
    # 'vanish', 'tiny', 'near zero' for a gradient: below a tenth of its scaled counterpart.
    "vanish_ratio": 0.1,
    # '~0', 'vanished', 'essentially zero' for a softmax Jacobian entry: below 0.001. 000 calls
    # its largest entry 0.000045 at scale 20 "essentially zero" but not 0.0067 at scale 10.
    "vanished_jacobian": 1e-3,
    # 'vanishing gradients' for random attention rows: most rows (over half) have a softmax
    # Jacobian whose every entry is below vanished_jacobian.
    "vanishing_rows_share": 0.5,
    # 'healthy', 'robust', 'smooth', 'learnable' gradients for random attention rows: fewer
    # than 1 row in 100 has a softmax Jacobian whose every entry is below vanished_jacobian.
    "healthy_rows_share": 0.01,
}

# Where a reasonable reader's cut for the word could fall. A statement measured inside its
# word's band overshoots the word near its cut: an overstatement (minor), not a false idea;
# material is kept for a statement on the wrong side of every cut in the band. A band holds
# the threshold itself. (low, high, why)
BANDS = {
    "saturated_max_weight": (0.85, 0.95, "readers who call a row 'extremely peaked' or 'saturated' put the "
                             "cut anywhere from 85% to 95% of the mass on one key; none would call 0.8 saturated"),
    "near_uniform_entropy": (0.85, 0.95, "'near-uniform' reads as an entropy of 85% to 95% of uniform's ln n"),
    "vanish_ratio": (0.07, 0.15, "'vanishes' reads as a shrinkage by a factor of about 7 to 15; a fifth or more "
                     "is 'reduced', which no reader calls vanished"),
    "vanished_jacobian": (5e-4, 2e-3, "'essentially zero' for a Jacobian entry: from 5e-4 to 2e-3; the documents "
                          "themselves do not call 0.0067 zero"),
    "vanishing_rows_share": (0.4, 0.6, "'most rows' reads as 40% to 60% of them"),
}


def band(name):
    """(low, high, why) of a named threshold's band of reasonable cuts, or None."""
    return BANDS.get(name) if isinstance(name, str) else None


def value(name_or_number):
    """The number a claim's threshold stands for: itself, or the named threshold."""
    if isinstance(name_or_number, str):
        return THRESHOLDS[name_or_number]
    return float(name_or_number)
