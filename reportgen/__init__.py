"""Measure what teaching documents claim about scaled dot-product attention."""

__version__ = "0.1.0"
# The name on the package index (`pip install attention-reportgen`): `reportgen` there is an
# unrelated package. The import and the command stay `reportgen`.
DISTRIBUTION = "attention-reportgen"
