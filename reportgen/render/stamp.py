"""The build id in report.pdf and the handout, set after rendering, so their pages stay cached.

The build id is the hash of results.json: any change to any claim changes it, and report.pdf
prints it (title page, how to cite, BibTeX, provenance). Rendered with the id, report.pdf would
be typeset again after every edit, even to a claim only an errata sheet shows. So the print
pages are rendered with PLACEHOLDER, sixteen distinct hex digits in a monospaced font (every
glyph the same width: the id's value cannot move anything on the page), and cached on that
HTML; `stamp` then swaps the placeholder's glyphs for the id's in the content streams — the
same glyphs of the same embedded font, so text extraction and screen readers read the id.

Where anything is not as expected (a count that differs from the HTML's, a font without one
of the digits), `stamp` returns None and the caller renders the PDF with the id itself; where
the placeholder is in the content itself (a title that quotes it), no placeholder is used.
"""

import io
import re

PLACEHOLDER = "0123456789abcdef"  # each hex digit once: the font subset holds every glyph an id needs
_CODE = f'<code class="build-id">{PLACEHOLDER}</code>'
_BFCHAR = re.compile(rb"<([0-9a-fA-F]{4})>\s*<([0-9a-fA-F]{4})>")


def usable(*texts):
    """Whether the placeholder can stand for the id: it occurs in none of the texts the pages
    are made of (results.json, the config), so every occurrence on the pages is the id's."""
    return not any(PLACEHOLDER in text for text in texts)


def mark(html):
    """(print HTML with each placeholder set in the id's monospaced style, how many there are),
    or (html, 0) when one stands where it cannot be stamped (inside a tag: an attribute)."""
    if re.search(f"<[^>]*{PLACEHOLDER}", html):
        return html, 0
    return html.replace(PLACEHOLDER, _CODE), html.count(PLACEHOLDER)


def _glyphs(font):
    """{character: its 2-byte glyph code} of a Type 0 font, from its ToUnicode map (bfchar)."""
    to_unicode = font.get("/ToUnicode")
    if to_unicode is None or font.get("/Subtype") != "/Type0":
        return {}
    pairs = _BFCHAR.findall(to_unicode.read_bytes())
    return {chr(int(code, 16)): bytes.fromhex(glyph.decode()) for glyph, code in pairs}


def stamp(pdf_bytes, build, expected):
    """The PDF with each of the `expected` placeholders showing `build` instead; None when that
    cannot be done exactly (the caller then renders with the id)."""
    import pikepdf

    if expected == 0 or not re.fullmatch(r"[0-9a-f]{16}", build):
        return None
    try:
        return _stamped(pdf_bytes, build, expected)
    except (pikepdf.PdfError, ValueError, TypeError, KeyError, AttributeError):
        return None  # not a PDF laid out as WeasyPrint lays one out: rendered with the id instead


def _stamped(pdf_bytes, build, expected):
    import pikepdf

    found = 0
    with pikepdf.open(io.BytesIO(pdf_bytes)) as pdf:
        for page in pdf.pages:
            fonts = page.resources.get("/Font", {})
            codes = {}  # font name -> (placeholder's glyph bytes, the id's)
            for name, font in fonts.items():
                glyphs = _glyphs(font)
                if all(c in glyphs for c in PLACEHOLDER):
                    codes[name] = (b"".join(glyphs[c] for c in PLACEHOLDER), b"".join(glyphs[c] for c in build))
            if not codes or not _may_hold(page, codes.values()):
                continue
            ops, font, changed = pikepdf.parse_content_stream(page), None, 0
            for index, (operands, operator) in enumerate(ops):
                if str(operator) == "Tf":
                    font = str(operands[0])
                elif str(operator) in ("TJ", "Tj") and font in codes:
                    new, count = _swap(operands, operator, *codes[font])
                    if count:
                        ops[index], changed = new, changed + count
            if changed:
                page.Contents = pdf.make_stream(pikepdf.unparse_content_stream(ops))
                found += changed
        if found != expected:
            return None
        out = io.BytesIO()
        pdf.save(out, deterministic_id=True)
        return out.getvalue()


def _may_hold(page, codes):
    """Whether the page's content may show a placeholder: its glyphs in order in hex strings
    (as WeasyPrint writes text), anything but a string between them. Only such pages are parsed
    (a tenth of a second each); a placeholder written otherwise is not found, and the count
    that then differs sends the PDF to be rendered with the id."""
    import pikepdf

    contents = page.obj.Contents
    raw = b"".join(part.read_bytes() for part in (contents if isinstance(contents, pikepdf.Array) else [contents]))
    for old, _ in codes:
        glyphs = [old[i:i + 2].hex().encode() for i in range(0, len(old), 2)]
        if re.search(rb"[^<]*".join(b"<(?i:" + g + b")>" for g in glyphs), raw):
            return True
    return False


def _swap(operands, operator, old, new):
    """(the text operator with `old` glyph runs replaced by `new`, how many), within one operator.

    The strings of a TJ array are joined (glyph runs may be split across them, between zero
    adjustments) and split again at the same places, so every adjustment stays where it was."""
    import pikepdf

    if str(operator) == "Tj":
        parts = [bytes(operands[0])]
    else:
        parts = [bytes(item) for item in operands[0] if isinstance(item, pikepdf.String)]
    joined = b"".join(parts)
    count, at = 0, joined.find(old)
    while at != -1:
        if at % 2 == 0:  # on a glyph boundary (2-byte codes)
            joined = joined[:at] + new + joined[at + len(old):]
            count += 1
        at = joined.find(old, at + 1)
    if not count:
        return (operands, operator), 0
    pieces, start = [], 0
    for part in parts:
        pieces.append(pikepdf.String(joined[start:start + len(part)]))
        start += len(part)
    if str(operator) == "Tj":
        return pikepdf.ContentStreamInstruction([pieces[0]], operator), count
    items, strings = [], iter(pieces)
    for item in operands[0]:
        items.append(next(strings) if isinstance(item, pikepdf.String) else item)
    return pikepdf.ContentStreamInstruction([pikepdf.Array(items)], operator), count
