"""Measure what teaching documents claim about scaled dot-product attention."""

__version__ = "0.1.0"
