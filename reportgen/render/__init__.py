"""Rendering: the judged runs as the report shows them: sections, figures, HTML and PDF.

sections lays out each family's tables; drawing draws its figures in the worker processes
(figures turns them into files; reportgen.plotting sets Matplotlib up); context numbers and
groups what the templates show; report renders results.json, the HTML and the PDFs (mathtex,
headercells, citation, errata help it, with reportgen.safemarkup and reportgen.images from
the top level) and hands the finished files to reportgen.publish.
"""
