"""Rendering: the judged runs as the report shows them: sections, figures, HTML and PDF.

sections lays out each family's tables; drawing draws its figures in the worker processes
(figures sets matplotlib up); context numbers and groups what the templates show; report
renders results.json, the HTML and the PDFs (mathtex, safemarkup, headercells, citation,
logo, errata help it) and hands the finished files to reportgen.publish.
"""
