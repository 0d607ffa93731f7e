"""Display formulas typeset as SVG by ziamath, for the PDFs, and kept between builds.

ziamath sets a formula in tens of milliseconds, a second for a build's thirty-odd; the SVGs
are kept in the build's cache (`typeset_into`) and read back by the next build
(`typeset_from`), each rebuilt from the SVG allow-list again, as all cached input is.
"""

import hashlib
from importlib import metadata
from pathlib import Path

from reportgen import safemarkup

PX_PER_EM = 16.0  # ziamath draws at this font size; the SVG is then sized in em (reportgen.render.mathtex)

TYPESET = {}  # LaTeX -> the SVG ziamath set for it: this process's, and earlier builds' (`typeset_from`)


def svg(tex):
    """ziamath's SVG of a formula, rebuilt from the SVG allow-list (safemarkup)."""
    if tex in TYPESET:  # before ziamath is imported (a fifth of a second)
        return TYPESET[tex]
    import ziamath
    from latex2mathml.converter import convert

    # ziamath parses through latex2mathml too: raw markup from \\text{<…>} made it fail halfway
    # and leave state behind that changed every later formula's width. Such LaTeX never gets there.
    safemarkup.mathml(convert(tex))
    # Each glyph as a path of its own, not a <symbol> drawn by <use>: WeasyPrint draws a <use>
    # through a nested viewport, which made a formula take half as long again to draw.
    ziamath.config.svg2 = False
    TYPESET[tex] = safemarkup.svg(ziamath.Math.fromlatex(tex, size=PX_PER_EM).svg())
    return TYPESET[tex]


def _typeset_key():
    """What a formula's SVG depends on besides its LaTeX: ziamath and latex2mathml, this module,
    mathtex (which hands it the LaTeX) and the allow-list that rebuilds the SVG."""
    digest = hashlib.sha256()
    for package in ("ziamath", "ziafont", "latex2mathml"):
        digest.update(metadata.version(package).encode() + b"\0")
    for module in (__file__, Path(__file__).with_name("mathtex.py"), safemarkup.__file__):
        digest.update(Path(module).read_bytes())
    return digest.hexdigest()[:32]


def typeset_from(store):
    """The formulas earlier builds set (the build's cache), each SVG rebuilt from the allow-list
    again (the cache is input this build did not write): ziamath takes a second a build."""
    kept = set()
    for tex, svg in (store.load("formulas", _typeset_key(), _check_typeset) or {}).items():
        try:
            TYPESET.setdefault(tex, safemarkup.svg(svg))
        except safemarkup.Unsafe:  # set again by ziamath when needed, and the entry rewritten
            continue
        kept.add(tex)
    return kept


def typeset_into(store, known=()):
    """Keep this process's formulas in the build's cache for the next build (when it set any
    the cache did not hold: `known`, what typeset_from returned)."""
    if set(TYPESET) - set(known):
        store.store("formulas", _typeset_key(), dict(sorted(TYPESET.items())))


def _check_typeset(payload):
    if not isinstance(payload, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in payload.items()):
        return "not a table of formulas"
    return None
