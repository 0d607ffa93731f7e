"""Jinja2 templates, the stylesheet and the Matplotlib style, shipped as reportgen.templates."""
