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


def value(name_or_number):
    """The number a claim's threshold stands for: itself, or the named threshold."""
    if isinstance(name_or_number, str):
        return THRESHOLDS[name_or_number]
    return float(name_or_number)
