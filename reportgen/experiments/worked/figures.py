"""Worked family, figures: none; its section is tables only."""


def figures(results, documented):
    """The worked section draws no figures."""
    return []
