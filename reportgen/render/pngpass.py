"""PNG figures into the PDFs as they are, not decoded and encoded again.

WeasyPrint embeds a PNG as the PDF image `FlateDecode` with PNG predictors (ISO 32000-1
§7.4.4.4): that is what a PNG's IDAT chunks hold. To get them it decodes every PNG and has
Pillow encode it again, a tenth of report.pdf's rendering (30 figures). Where the PNG is already
what Pillow would hand back (8-bit grey or RGB, not interlaced, no transparency chunk), its IDAT
data goes in as it is; the encode WeasyPrint leaves out is the "lingering optimization" its
authors named when they chose PNG (Kozea/WeasyPrint#1481). Any other image takes WeasyPrint's
own path, as does every image if WeasyPrint no longer has the method replaced here.

The figures' PNGs come from Pillow (reportgen.render.figures), so the IDAT is byte for byte
what WeasyPrint's encode would give: the PDFs are the same bytes, sooner (tests/test_pngpass.py).
"""

import struct
import zlib

from reportgen.images import PNG_MAGIC

_GREY, _RGB = 0, 2  # PNG colour types with no palette and no alpha channel


def idat(png):
    """The concatenated IDAT data of a PNG that a PDF takes as it is; None for any other.

    The data must inflate to exactly the rows the header promises: a damaged PNG (a logo, a
    figure from a tampered cache) takes WeasyPrint's path, where Pillow pads what is missing,
    instead of going into the PDF as an image no reader can decode.
    """
    if len(png) < 33 or not png.startswith(PNG_MAGIC) or png[12:16] != b"IHDR":
        return None
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", png[16:29])
    if depth != 8 or colour not in (_GREY, _RGB) or interlace:
        return None
    parts, at = [], 8
    while at + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[at:at + 8])
        if kind == b"IDAT":
            parts.append(png[at + 8:at + 8 + length])
        elif kind == b"tRNS":
            return None  # a transparent colour: WeasyPrint's path decides what becomes of it
        elif kind == b"IEND":
            data = b"".join(parts)
            return data if _inflated_size(data) == height * (1 + width * (3 if colour == _RGB else 1)) else None
        at += 12 + length
    return None  # cut short: let Pillow say what is wrong


def _inflated_size(data):
    """Bytes a zlib stream inflates to; -1 when it is not one whole, valid stream."""
    inflate, size = zlib.decompressobj(), 0
    try:
        for start in range(0, len(data), 1 << 16):
            size += len(inflate.decompress(data[start:start + (1 << 16)]))
        size += len(inflate.flush())
    except zlib.error:
        return -1
    return size if inflate.eof and not inflate.unused_data else -1


def install():
    """Have WeasyPrint take eligible PNGs as they are; once per process, idempotent."""
    from weasyprint.images import RasterImage

    original = RasterImage.__dict__.get("_get_png_data")
    encode = getattr(original, "__func__", None)  # a staticmethod in WeasyPrint 70
    if encode is None or getattr(encode, "reportgen_pass", False):
        return

    def _get_png_data(pillow_image):
        source = getattr(pillow_image, "fp", None)
        data = idat(source.getvalue()) if pillow_image.format == "PNG" and hasattr(source, "getvalue") else None
        return encode(pillow_image) if data is None else data

    _get_png_data.reportgen_pass, _get_png_data.original = True, original
    RasterImage._get_png_data = staticmethod(_get_png_data)
