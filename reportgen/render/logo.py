"""The title page's logo: its type sniffed from its bytes, its pixels counted, SVG rebuilt safely.

A text file named .svg holding "<svg" was embedded whole, and a 40000² PNG of 1.5 MB was
accepted; the logo is embedded in the HTML and both PDFs, so it is checked as an image.
"""

import struct

from reportgen import inputs, limits
from reportgen.render import safemarkup

WAY_OUT = "give a local PNG, JPEG, GIF or SVG image, or set logo = \"\""


def read(path):
    """(MIME type, bytes to embed) of the logo at `path`; InputRefused when it is no usable image."""
    data = inputs.read(path, limits.MAX_LOGO_BYTES, way_out=WAY_OUT)
    kind = sniff(data)
    if kind is None:
        raise inputs.InputRefused(path, "is not a PNG, JPEG, GIF or SVG image (judged by its bytes)", WAY_OUT)
    if kind == "svg+xml":
        try:
            return kind, safemarkup.svg(data, strict=False).encode()
        except safemarkup.Unsafe as exc:
            raise inputs.InputRefused(path, f"is not a usable SVG image ({exc})", WAY_OUT) from None
    size = pixels(kind, data)
    if size is None:
        raise inputs.InputRefused(path, f"is a damaged {kind.upper()} image (no size in its header)", WAY_OUT)
    if size[0] * size[1] > limits.MAX_LOGO_PIXELS:
        raise inputs.InputRefused(path, f"is {size[0]}×{size[1]} pixels, over the limit of "
                                        f"{limits.MAX_LOGO_PIXELS} pixels", WAY_OUT + " (scale it down)")
    return kind, data


def sniff(data):
    """'png', 'jpeg', 'gif' or 'svg+xml' from the first bytes; None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "gif"
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith((b"<svg", b"<?xml", b"<!--")) and b"<svg" in data[:4096]:
        return "svg+xml"
    return None


def pixels(kind, data):
    """(width, height) from the image's header, or None."""
    if kind == "png":
        return struct.unpack(">II", data[16:24]) if data[12:16] == b"IHDR" else None
    if kind == "gif":
        return struct.unpack("<HH", data[6:10]) if len(data) >= 10 else None
    return _jpeg_size(data)


def _jpeg_size(data):
    """Width and height from a JPEG's first start-of-frame marker."""
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker, length = data[i + 1], int.from_bytes(data[i + 2 : i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return width, height
        i += 2 + length
    return None
