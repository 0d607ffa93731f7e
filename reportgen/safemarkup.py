"""Markup rebuilt from an allow-list: what a library typesets from user text is never trusted.

latex2mathml copies `\\text{…}` into its output as raw markup and turns `\\href{…}` into a
link; ziamath's SVG and a logo's SVG are XML from outside reportgen too. Each is parsed as
XML and written again here: only the elements and attributes listed below, every text node
and attribute value escaped, no link leaving the document, no event handler, no style that
fetches. Anything else (an unknown element, a `<script>`, text that is not well-formed XML)
is dropped with its content; in strict mode (the typeset math) anything dropped refuses the
whole fragment instead, and the caller shows the formula's source as text.
"""

import re
import xml.etree.ElementTree as ET

from markupsafe import Markup, escape

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"

# Presentation MathML (MathML Core, https://www.w3.org/TR/mathml-core/ §3), less the link attributes.
MATHML_ELEMENTS = frozenset("""
    math mrow mi mn mo ms mtext mspace msub msup msubsup mfrac msqrt mroot mstyle merror mpadded
    mphantom munder mover munderover mtable mtr mtd mlabeledtr menclose mfenced mmultiscripts
    mprescripts none semantics annotation
""".split())
MATHML_ATTRIBUTES = frozenset("""
    display mathvariant mathsize stretchy fence separator lspace rspace minsize maxsize symmetric
    largeop movablelimits accent accentunder linethickness columnalign rowalign columnspacing
    rowspacing columnlines rowlines frame width height depth voffset notation displaystyle
    scriptlevel open close separators form columnspan rowspan align encoding mathcolor
    mathbackground
""".split())
# Static SVG drawing (SVG 1.1 shapes, text, paint servers); no script, foreignObject, image,
# animation or a (which would carry links).
SVG_ELEMENTS = frozenset("""
    svg g defs symbol use path rect circle ellipse line polyline polygon text tspan title desc
    linearGradient radialGradient stop clipPath mask pattern
""".split())
SVG_ATTRIBUTES = frozenset("""
    id class viewBox width height x y x1 y1 x2 y2 cx cy r rx ry d points transform fill stroke
    stroke-width stroke-linecap stroke-linejoin stroke-miterlimit stroke-dasharray stroke-dashoffset
    stroke-opacity fill-opacity fill-rule clip-rule opacity font-family font-size font-weight
    font-style text-anchor dominant-baseline dx dy gradientUnits gradientTransform offset stop-color
    stop-opacity clip-path clipPathUnits mask maskUnits patternUnits preserveAspectRatio
    version xml:space href
""".split())
# A value is words, numbers, colours, lengths and path data: nothing that ends an attribute,
# calls a function (url(), expression()) or names a scheme (javascript:).
SAFE_VALUE = re.compile(r"[\w\s#.,%+\-*/()'\"]*")
LOCAL_REF = re.compile(r"#[A-Za-z_][\w.-]*")
URL_CALL = re.compile(r"url\(\s*(?!#)", re.I)  # url(#id) refers inside the SVG; any other fetches
FUNCTION = re.compile(r"([A-Za-z-]+)\s*\(")
SAFE_FUNCTIONS = {"translate", "matrix", "scale", "rotate", "skewx", "skewy", "url", "rgb", "rgba"}


# What an SVG may grow to once every <use> (and url(#id) paint, clip or mask) is expanded: 8
# levels of 10 <use> in 2.7 KB were 10⁸ elements, and the PDF stage ran past 217 s.
MAX_SVG_ELEMENTS = 10_000  # at the limit a logo adds about 2 s to each PDF on one core
MAX_SVG_DEPTH = 64  # elements and references nested inside each other
URL_REF = re.compile(r"url\(\s*['\"]?#([^)'\"\s]+)")


class Unsafe(ValueError):
    """Markup that cannot be rebuilt safely (not XML, or not the kind expected)."""


def _local(name):
    """An element or attribute name without its namespace; xlink:href is plain href."""
    return name.rsplit("}", 1)[-1] if name.startswith("{") else name


def _value_ok(name, value):
    if name == "href":
        return bool(LOCAL_REF.fullmatch(value))  # a <use> of a glyph defined in the same SVG
    calls = {c.lower() for c in FUNCTION.findall(value)}
    if URL_CALL.search(value) or not calls <= SAFE_FUNCTIONS:
        return False
    return ":" not in value and bool(SAFE_VALUE.fullmatch(value))


def _attributes(element, allowed, strict):
    out = []
    for raw, value in sorted(element.attrib.items()):
        name = _local(raw)
        if raw == "{http://www.w3.org/XML/1998/namespace}space":
            name = "xml:space"
        if name in allowed and not name.lower().startswith("on") and _value_ok(name, value):
            out.append(f' {name}="{escape(value)}"')  # the name is one of the allow-list's
        elif strict:
            raise Unsafe(f"attribute {name}={value!r} is not allowed")
    return "".join(out)


def _rebuild(element, elements, attributes, strict, root_xmlns=None):
    """The element again from the allow-lists; an element not listed is dropped whole (strict: Unsafe)."""
    parts = []
    _write(element, elements, attributes, strict, parts, root_xmlns)
    return Markup("".join(parts))


def _write(element, elements, attributes, strict, parts, root_xmlns=None):
    """Append the element's markup to `parts`: names from the allow-lists, text and values escaped
    (as plain strings joined once: Markup.format per node took a third of a second a build)."""
    name = _local(element.tag)
    if name not in elements:
        if strict:
            raise Unsafe(f"element <{name}> is not allowed")
        return
    xmlns = f' xmlns="{escape(root_xmlns)}"' if root_xmlns else ""
    parts.append(f"<{name}{xmlns}{_attributes(element, attributes, strict)}>")
    parts.append(escape(element.text or ""))
    for child in element:
        _write(child, elements, attributes, strict, parts)
        parts.append(escape(child.tail or ""))
    parts.append(f"</{name}>")


def _parse(text, root):
    try:
        element = ET.fromstring(text)
    except (ET.ParseError, ValueError) as exc:
        raise Unsafe(f"not well-formed XML ({exc})") from None
    if _local(element.tag) != root:
        raise Unsafe(f"the outer element is <{_local(element.tag)}>, not <{root}>")
    return element


def mathml(text):
    """MathML markup rebuilt from the allow-list; Unsafe when anything falls outside it."""
    return _rebuild(_parse(text, "math"), MATHML_ELEMENTS, MATHML_ATTRIBUTES, True, MATHML_NS)


def svg(text, strict=True):
    """SVG markup rebuilt from the allow-list (links only to its own ids); Unsafe when it is not
    SVG, or (strict) when anything falls outside the allow-list, which is otherwise dropped."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise Unsafe("not UTF-8 text") from None
    element = _parse(re.sub(r"^\s*<\?xml[^>]*\?>", "", text), "svg")
    _expanded(element)
    return str(_rebuild(element, SVG_ELEMENTS, SVG_ATTRIBUTES, strict, SVG_NS))


def _expanded(root):
    """How many elements the SVG draws with every reference expanded; Unsafe past the budget
    (MAX_SVG_ELEMENTS), nested past MAX_SVG_DEPTH, or for a reference to itself."""
    ids = {el.get("id"): el for el in root.iter() if el.get("id")}
    sizes, open_ = {}, set()

    def refs(el):
        for name, value in el.attrib.items():
            if _local(name) == "href" and value.startswith("#"):
                yield value[1:]
            yield from URL_REF.findall(value)

    def size(el, depth):
        if depth > MAX_SVG_DEPTH:
            raise Unsafe(f"elements and references nested deeper than {MAX_SVG_DEPTH}")
        if id(el) in sizes:
            return sizes[id(el)]
        if id(el) in open_:
            raise Unsafe("an element refers to itself")
        open_.add(id(el))
        total = 1 + sum(size(child, depth + 1) for child in el)
        total += sum(size(ids[ref], depth + 1) for ref in refs(el) if ref in ids)
        if total > MAX_SVG_ELEMENTS:
            raise Unsafe(f"it draws over {MAX_SVG_ELEMENTS} elements once its <use> references are expanded")
        open_.discard(id(el))
        sizes[id(el)] = total
        return total

    return size(root, 1)
