"""Math in every place the report shows text: MathML on screen, SVG and markup in the PDF.

Two notations reach the renderer. LaTeX, in `$…$` spans of prose and in display
formulas, and plain text in titles, labels, table cells and axis labels, where the
families write math as it is typed: `√d_k`, `d_model`, `‖J‖_F`, `QK^T`, `e^(7.9 − 8.5)`.
`inline` finds both and typesets them for one medium:

- screen (report.html): MathML, which browsers lay out and screen readers read;
- print (the PDFs): WeasyPrint has no MathML and runs no script, so display formulas and
  `$…$` spans become SVG images drawn by ziamath (with the LaTeX as alt text), and plain
  notation becomes HTML markup (italic letters, <sub>, a radical with its bar), which keeps
  the text searchable and the bookmarks readable.

`mathtext` rewrites plain notation for Matplotlib, `plain` for places that take only text
(the <title>, PDF metadata, alt text, bookmarks), and numbers get narrow no-break spaces
between digit groups, so "20 000" never breaks across lines.
"""

import base64
import re
from functools import lru_cache

from markupsafe import Markup, escape

from reportgen import safemarkup
from reportgen.formatting import MATH
from reportgen.render import formulas
from reportgen.render.formulas import PX_PER_EM
from reportgen.render.texmarkup import simple_markup

INLINE = MATH  # $…$; a \$ is a dollar sign, in text and in math
DOLLAR = "\\$"  # written in a claims text for a dollar sign that opens no math: "cost \$5 and \$10"
NNBSP = "\u202f"  # narrow no-break space: the thin space of digit groups that never breaks
GROUPS = re.compile(r"(?<![\d.])(\d{1,3})((?: \d{3})+)(?!\d)")

# Plain notation. A base is one letter (never the end of a longer word: `kaiming_uniform`,
# `in_proj` and `manual_seed` are code, not math) or a norm ‖x‖; a subscript is a run of
# letters and digits; a superscript is one such run or a parenthesised group.
_LETTER = "A-Za-zα-ωΑ-Ω"
_BASE = rf"(?:‖[^‖\s]{{1,6}}‖|(?<![{_LETTER}0-9_.])(?:[A-Za-z]{{2}}(?=\^)|[{_LETTER}]))"
_SCRIPT = r"(?:_(?P<sub>[A-Za-z0-9]+))?(?:\^(?P<sup>\([^()]{1,30}\)|[A-Za-z0-9⊤]+))?"
_GROUP = r"\((?P<radicand>[^()]{1,30})\)"
PLAIN = re.compile(
    rf"√(?:{_GROUP}|(?P<rbase>{_BASE}|\d+(?:\.\d+)?){_SCRIPT.replace('sub>', 'rsub>').replace('sup>', 'rsup>')})"
    rf"|(?P<base>{_BASE}){_SCRIPT}"
)


# --- plain notation -> a small tree -> LaTeX / HTML markup / plain text --------------------


def _node(match):
    """('sqrt', child) | ('script', base, sub, sup) from one match of PLAIN."""
    if match["radicand"] is not None:
        return ("sqrt", ("seq", _parse(match["radicand"])))
    if match["rbase"] is not None:
        inner = ("script", match["rbase"], match["rsub"], _strip(match["rsup"]))
        return ("sqrt", inner)
    return ("script", match["base"], match["sub"], _strip(match["sup"]))


def _parse(text):
    """Plain text as a list of ('text', s) and math nodes."""
    out, last = [], 0
    for match in PLAIN.finditer(text):
        if _is_math(match):
            out += [("text", text[last : match.start()]), _node(match)]
            last = match.end()
    return [n for n in out + [("text", text[last:])] if n != ("text", "")]


def _strip(sup):
    return sup[1:-1] if sup and sup.startswith("(") else sup


def _is_math(match):
    """Whether a PLAIN match is notation worth typesetting (a lone letter is not)."""
    return match.group(0).startswith("√") or bool(match["sub"] or match["sup"])


def _tex_text(text):
    """LaTeX for a run of plain text inside math: words upright, spaces kept."""
    out = re.sub(r"[A-Za-z]{2,}", lambda m: rf"\mathrm{{{m[0]}}}", text)
    out = out.replace(" ", r"\ ").replace("‖", r"\|").replace("⊤", r"\top{}")
    return out


def _tex(node):
    if node[0] == "sqrt":
        return rf"\sqrt{{{_tex(node[1])}}}"
    if node[0] == "seq":
        return "".join(_tex(n) for n in node[1])
    if node[0] == "text":
        return _tex_text(node[1])
    _, base, sub, sup = node
    tex = base.replace("‖", r"\|") if len(base) <= 2 else _tex_text(base)
    if sub:
        tex += "_{" + (sub if len(sub) == 1 else rf"\mathrm{{{sub}}}") + "}"
    if sup:
        tex += "^{" + _tex_text(sup) + "}"
    return tex


def _letters(text):
    """HTML for a base or script: single letters in italic, words and digits upright."""
    return Markup("").join(Markup("<i>{}</i>").format(part) if len(part) == 1 and part.isalpha() else escape(part)
                           for part in re.split(r"([A-Za-zα-ωΑ-Ω]+)", text) if part)


def _markup(node):
    if node[0] == "sqrt":
        return Markup('<span class="sqrt">√<span class="radicand">{}</span></span>').format(_markup(node[1]))
    if node[0] == "seq":
        return Markup("").join(_markup(n) for n in node[1])
    if node[0] == "text":
        return _letters(node[1])
    _, base, sub, sup = node
    out = _letters(base)
    if sub:
        out += Markup("<sub>{}</sub>").format(_letters(sub))
    if sup:
        out += Markup("<sup>{}</sup>").format(_letters(sup))
    return out


SUBSCRIPTS = dict(zip("0123456789aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))


def plain(text):
    """Text with plain notation made readable as text only: d_k -> dₖ, $…$ spans unwrapped."""
    text = INLINE.sub(lambda m: m[1], text or "").replace(DOLLAR, "$")

    def one(match):
        sub = match["sub"] or match["rsub"]
        if sub and all(c in SUBSCRIPTS for c in sub):
            whole = match.group(0)
            return whole[: whole.index("_")] + "".join(SUBSCRIPTS[c] for c in sub) + whole[whole.index("_") + 1 + len(sub):]
        return match.group(0)

    return GROUPS.sub(lambda m: m[1] + m[2].replace(" ", NNBSP), PLAIN.sub(one, text))


def _mpl(node):
    """Mathtext for one node. A radical stays the text sign √: with the SVGs' text kept as
    text (svg.fonttype none), a browser's √ glyph and mathtext's bar over it do not meet."""
    if node[0] == "sqrt":
        child = node[1]
        if child[0] == "seq":
            return "√(" + "".join(_mpl(n) for n in child[1]) + ")"
        return "√" + _mpl(child)
    if node[0] == "text":
        return node[1]
    _, base, sub, sup = node
    return f"${_tex(node)}$" if sub or sup else base


def mathtext(label):
    """A Matplotlib label with its plain notation as mathtext ($\\sqrt{d_k}$); unchanged when none."""
    if not label or "$" in label:
        return label
    out, last, found = [], 0, False
    for match in PLAIN.finditer(label):
        if not _is_math(match):
            continue
        out.append(label[last : match.start()])
        out.append(_mpl(_node(match)))
        last, found = match.end(), True
    if not found:
        return label
    return "".join(out) + label[last:]


# --- formulas ---------------------------------------------------------------------------


def math_img(tex, display=False):
    """An <img> holding the typeset formula, sized in em and sat on the text baseline;
    the formula's source as text when ziamath cannot set it."""
    try:
        svg = formulas.svg(tex)
    except Exception:  # noqa: BLE001 (ziamath fails in many ways on LaTeX it does not know)
        return as_typed(tex)
    size = _svg_size(svg)
    if size is None:
        return as_typed(tex)
    width, height, top = size
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


def _svg_size(svg):
    """(width, height, top of the viewBox) of the outer <svg>, or None."""
    head = svg[: svg.find(">")]
    width, height = re.search(r' width="([\d.]+)"', head), re.search(r' height="([\d.]+)"', head)
    box = re.search(r' viewBox="[-\d.]+ ([-\d.]+)', head)
    if not (width and height and box):
        return None
    return float(width[1]), float(height[1]), float(box[1])


def as_typed(tex):
    """A formula no typesetter could set safely, shown as its source text."""
    return Markup('<code class="tex">{}</code>').format(tex)


@lru_cache(maxsize=None)
def mathml(tex, display=False):
    """MathML for a LaTeX formula (latex2mathml), rebuilt from the MathML allow-list: raw
    markup inside \\text{…}, links and event handlers never reach the page."""
    from latex2mathml.converter import convert

    mode = "block" if display else "inline"
    try:
        return safemarkup.mathml(convert(tex, display=mode))
    except Exception:  # noqa: BLE001 (not well-formed, or latex2mathml gave up): the source as text
        return Markup('<math display="{}"><mtext>{}</mtext></math>').format(mode, tex)


MAX_NESTING = 24  # braces inside braces: a formula of a document needs a handful; 600 overran the stack


def _nesting(tex):
    """How deep the braces of a formula nest."""
    deepest = depth = 0
    for char in tex:
        depth += (char == "{") - (char == "}")
        deepest = max(deepest, depth)
    return deepest


def formula(tex, display=False, medium="screen"):
    """One formula for the medium: MathML on screen; in print, HTML markup when the formula is
    simple enough (letters, scripts, roots, operators) and an SVG image when it is not. One
    nested deeper than any typesetter should recurse is shown as typed."""
    if _nesting(tex) > MAX_NESTING:
        return as_typed(tex)
    if medium == "screen":
        return mathml(tex, display)
    if not display:
        markup = simple_markup(tex)
        if markup is not None:
            return markup
    return math_img(tex, display)


def inline(text, medium="screen"):
    """Escaped text with every $…$ span and plain-notation math typeset, numbers grouped."""
    return _inline("" if text is None else str(text), medium)


@lru_cache(maxsize=16384)  # a build sets the same quotes and labels in the report, its sheets and both media
def _inline(text, medium, quoted=False):
    """`quoted`: the text between the formulas is a document's, its Markdown shown (_markdown);
    a formula is never touched by it."""
    out, last = [], 0

    def between(part):
        part = _plain_math(part.replace(DOLLAR, "$"), medium)
        return Markup(_markdown(str(part))) if quoted else part

    for match in INLINE.finditer(text):
        out.append(between(text[last : match.start()]))
        out.append(formula(match[1], medium=medium))
        last = match.end()
    out.append(between(text[last:]))
    return _glued(out)


def _plain_math(text, medium):
    out, last = [], 0
    for match in PLAIN.finditer(text):
        if not _is_math(match):
            continue
        out.append(_grouped(text[last : match.start()]))
        node = _node(match)
        if medium == "screen":
            out.append(mathml(_tex(node)))
        else:
            out.append(Markup('<span class="m">{}</span>').format(_markup(node)))
        last = match.end()
    out.append(_grouped(text[last:]))
    return _glued(out)


PUNCTUATION = re.compile(r"^[,.;:!?)\]’”%]+")


def _glued(pieces):
    """Join pieces, keeping a <math> and the punctuation right after it on one line."""
    out = []
    for piece in pieces:
        mark = PUNCTUATION.match(str(piece)) if out and str(out[-1]).endswith("</math>") else None
        if mark:
            out[-1] = Markup('<span class="nowrap">{}{}</span>').format(out[-1], Markup(mark[0]))
            piece = Markup(str(piece)[mark.end():])
        out.append(piece)
    return Markup("").join(out)


LINE_BREAK_TAG = re.compile(r"&lt;br\s*/?&gt;", re.I)  # <br>, <br/>, <br /> once escaped
STRONG = re.compile(r"\*\*(?=\S)([^<>*]+?)(?<=\S)\*\*")  # Markdown's **bold**, within one run of text
FENCE = re.compile(r"\s*```[A-Za-z]*\s*")  # a code block's fence, where a quote runs into one


def quote(text, medium="screen"):
    """A verbatim quote: its $…$ spans typeset (their source kept as alt text), other text as
    is. A quote is never typeset whole: `q \\cdot k` outside `$…$` is shown as typed, never
    as one formula run together ("thevariancegrowswith…") and wider than its column.

    A document's own line-break tag (002 writes its matrices' rows in a table cell as
    "[8, 5, 8],<br/> [3, 4, 8]") breaks the line, as it does for the document's reader,
    instead of showing as markup; so does a code block's fence (```), and Markdown's **bold**
    is bold: the reader sees what the document's reader saw, not its asterisks. The quote's
    words, and every other tag in it, stay as typed.
    """
    return _quote("" if text is None else str(text), medium)


@lru_cache(maxsize=16384)
def _quote(text, medium):
    if "$" in text:
        return _inline(text, medium, quoted=True)
    return Markup(_markdown(str(escape(text))))


def _markdown(escaped):
    """Escaped quote text (no formula in it) with its line-break tags, fences and **bold** as
    markup; a bold run holds no tag."""
    escaped = FENCE.sub("<br>", escaped).removeprefix("<br>").removesuffix("<br>")
    return STRONG.sub(r"<b>\1</b>", LINE_BREAK_TAG.sub("<br>", escaped))


def _grouped(text):
    """Escaped text whose digit groups are joined by narrow no-break spaces."""
    return escape(GROUPS.sub(lambda m: m[1] + m[2].replace(" ", NNBSP), text))


def prose(text, medium="print"):
    """Escape text and typeset each $…$ span in it (kept for callers of 0.1)."""
    return inline(text, medium)
