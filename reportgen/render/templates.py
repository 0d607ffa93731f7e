"""The templates and their environments: one Jinja2 environment per medium, the stylesheets inline.

The templates lay the report model out; they compute nothing. Numbers reach them as numbers
or as the words reportgen.render.wording makes of them.
"""

import functools
import re
from importlib import resources

from reportgen.artifacts import OUTPUTS, by_name


LANG = "en"  # the report's own language (its sentences are English whatever the documents')


def templates():
    return resources.files("reportgen.templates")


@functools.lru_cache(maxsize=None)
def environment(medium):
    """The Jinja2 environment of one medium: 'screen' (MathML) or 'print' (SVG and markup).

    One per medium and process: an environment keeps its compiled templates, and a build
    renders a dozen pages (compiling them afresh each time was a second of every build)."""
    import jinja2

    from reportgen.render import cells, columns, mathtex, plainwords

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates())),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["m"] = lambda text: mathtex.inline(text, medium)
    env.filters["plain"] = mathtex.plain
    env.filters["quote"] = lambda text: mathtex.quote(text, medium)
    env.globals["tex"] = lambda tex, display=False: mathtex.formula(tex, display, medium)
    env.globals.update(medium=medium, plain_label=plainwords.plain_label)  # a row's label without document numbers
    env.globals["column_widths"] = columns.widths  # print tables: fixed layout, widths from their text
    env.filters["running"] = running_title
    env.filters["cell"] = cells.text  # a data table's cell as printed (its numbers kept until here)
    env.globals["file_of"] = lambda name, medium, doc="": by_name(name).file(medium, doc)  # reportgen.artifacts
    return env


CUSTOM_PROPERTY = re.compile(r"var\((--[\w-]+)\)")


RUNNING = 60  # characters of a title in the running header: it and the longest section share one line


def running_title(title):
    """A title as the running header prints it: cut to RUNNING characters with … (a 300-character
    title ran past the paper on every page and over the section beside it)."""
    return title if len(title) <= RUNNING else title[: RUNNING - 1].rstrip() + "…"


def without_custom_properties(css):
    """The stylesheet with each var(--name) replaced by its :root value, for the PDFs.

    WeasyPrint resolves a custom property through every ancestor of every box (a tenth of
    the PDF's layout time); print has one palette, so it gets the values themselves.
    """
    root = re.search(r":root\s*\{([^}]*)\}", css)
    if root is None:
        return css
    values = dict(re.findall(r"(--[\w-]+)\s*:\s*([^;]+);", root[1]))
    return CUSTOM_PROPERTY.sub(lambda m: values.get(m[1], m[0]), css[: root.start()] + css[root.end():])


FLAGS = {name: False for o in OUTPUTS for name in (*o.sets, *o.screen_sets)}  # each false unless an output sets it


def render_html(ctx, medium, output):
    """One output (reportgen.artifacts.Output) as HTML for one medium, from the parts of the context
    it reads; the stylesheets go inline, so the file stands alone. The variables an output's
    declaration sets (`handout`, `register`: Appendix A in full) are true, every other one false."""
    folder = templates()
    css = {name: (folder / f"{name}.css").read_text(encoding="utf-8") for name in ("report", "screen", "browser-print")}
    if medium == "print":
        css["report"] = without_custom_properties(css["report"])
    flags = {name: True for name in (*output.sets, *(output.screen_sets if medium == "screen" else ()))}
    return environment(medium).get_template(output.template).render(
        css=css, **{**FLAGS, **flags}, **ctx)
