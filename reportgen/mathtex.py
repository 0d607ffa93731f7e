"""LaTeX to SVG on our side: WeasyPrint runs no JavaScript and has no MathML."""

import base64
import re
from functools import lru_cache

from markupsafe import Markup, escape

PX_PER_EM = 16.0  # ziamath draws at this font size; the SVG is then sized in em
INLINE = re.compile(r"\$([^$]+)\$")


@lru_cache(maxsize=None)
def _svg(tex):
    import ziamath

    return ziamath.Math.fromlatex(tex, size=PX_PER_EM).svg()


def math_img(tex, display=False):
    """An <img> holding the typeset formula, sized in em and sat on the text baseline."""
    svg = _svg(tex)
    head = re.search(r'width="([\d.]+)" height="([\d.]+)" viewBox="([-\d.]+) ([-\d.]+)', svg)
    width, height, top = float(head[1]), float(head[2]), float(head[4])
    depth = height + top  # the part below the baseline (viewBox starts at -ascent)
    data = base64.b64encode(svg.encode()).decode()
    cls = "math display" if display else "math"
    style = (
        f"width:{width / PX_PER_EM:.3f}em;height:{height / PX_PER_EM:.3f}em;"
        f"vertical-align:{-depth / PX_PER_EM:.3f}em"
    )
    return Markup(
        f'<img class="{cls}" style="{style}" alt="{escape(tex)}" '
        f'src="data:image/svg+xml;base64,{data}">'
    )


def prose(text):
    """Escape text and typeset each $…$ span in it as inline math."""
    out, last = [], 0
    for match in INLINE.finditer(text or ""):
        out.append(escape(text[last : match.start()]))
        out.append(math_img(match[1]))
        last = match.end()
    out.append(escape((text or "")[last:]))
    return Markup("").join(out)
