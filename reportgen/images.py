"""An image file from outside (the title page's logo): its type sniffed from its bytes, its pixels
counted, an SVG rebuilt safely.

A text file named .svg holding "<svg" was embedded whole, and a 40000² PNG of 1.5 MB was
accepted; the logo is embedded in the HTML and both PDFs, so it is checked as an image.
An input of the build, below every stage: settings checks the logo when the config loads,
render embeds what `read` returns, and the figures' cache and the PDFs' PNG pass know a PNG
by PNG_MAGIC.
"""

import io
import struct
import warnings

from reportgen import inputs, limits, safemarkup

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"  # a PNG file's first eight bytes (PNG specification, §5.2)
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
    sizes = frames(kind, data)
    if not sizes:
        raise inputs.InputRefused(path, f"is a damaged {kind.upper()} image (no size in its header)", WAY_OUT)
    if len(sizes) > MAX_FRAMES:
        raise inputs.InputRefused(path, f"has {len(sizes)} frames, over the limit of {MAX_FRAMES}", WAY_OUT)
    for width, height in sizes:  # every frame, as a decoder draws it: not the header's word alone
        if width * height > limits.MAX_LOGO_PIXELS:
            raise inputs.InputRefused(path, f"holds a frame of {width}×{height} pixels, over the limit of "
                                            f"{limits.MAX_LOGO_PIXELS} pixels", WAY_OUT + " (scale it down)")
    why = _decodes(data, len(sizes))
    if why:
        raise inputs.InputRefused(path, f"is a damaged {kind.upper()} image ({why})", WAY_OUT)
    return kind, data


MAX_FRAMES = 16  # a title page shows the first; an animated logo has a few


def frames(kind, data):
    """[(width, height)] of every frame, each as far as it reaches on the canvas (a GIF frame
    may lie outside the size its header states); [] when the image is damaged."""
    try:
        if kind == "gif":
            return _gif_frames(data)
        if kind == "png":
            return _png_frames(data)
        size = _jpeg_size(data)
        return [size] if size else []
    except (struct.error, IndexError, ValueError):
        return []


def _gif_frames(data):
    """The canvas and every image descriptor's extent (left + width, top + height)."""
    width, height = struct.unpack("<HH", data[6:10])
    out = [(width, height)]
    if width * height > limits.MAX_LOGO_PIXELS:
        return out  # refused for its canvas, whatever follows
    flags = data[10]
    i = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
    while i < len(data) and len(out) <= MAX_FRAMES:
        block = data[i]
        if block == 0x3B:  # the trailer
            break
        if block == 0x21:  # an extension: its label, then sub-blocks
            i = _sub_blocks(data, i + 2)
        elif block == 0x2C:  # an image: its descriptor, its colour table, then its data
            left, top, w, h, flags = struct.unpack("<HHHHB", data[i + 1 : i + 10])
            out.append((left + w, top + h))
            i += 10 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
            i = _sub_blocks(data, i + 1)  # past the LZW code size
        else:
            raise ValueError("not a GIF block")
    return out


def _sub_blocks(data, i):
    while data[i]:
        i += data[i] + 1
    return i + 1


def _png_frames(data):
    """IHDR's size, and each APNG frame control's extent."""
    out, i = [], 8
    while i + 8 <= len(data) and len(out) <= MAX_FRAMES:
        length, tag = struct.unpack(">I4s", data[i : i + 8])
        body = data[i + 8 : i + 8 + length]
        if tag == b"IHDR":
            out.append(struct.unpack(">II", body[:8]))
            if out[0][0] * out[0][1] > limits.MAX_LOGO_PIXELS:
                break  # refused for its size, whatever follows
        elif tag == b"fcTL":
            w, h, x, y = struct.unpack(">IIII", body[4:20])
            out.append((x + w, y + h))
        elif tag == b"IEND":
            break
        i += 12 + length
    return out if out and data[12:16] == b"IHDR" else []


def _decodes(data, count):
    """Why the image does not decode (every frame, its pixels bounded by now), or None."""
    from PIL import Image

    try:
        with warnings.catch_warnings(), Image.open(io.BytesIO(data)) as image:
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            for index in range(min(getattr(image, "n_frames", 1), count)):
                image.seek(index)
                if image.size[0] * image.size[1] > limits.MAX_LOGO_PIXELS:
                    return f"a frame of {image.size[0]}×{image.size[1]} pixels"
                image.load()
    except Exception as exc:  # noqa: BLE001 (Pillow fails in many ways on a damaged image)
        return str(exc)[:80] or type(exc).__name__
    return None


def sniff(data):
    """'png', 'jpeg', 'gif' or 'svg+xml' from the first bytes; None for anything else."""
    if data.startswith(PNG_MAGIC):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "gif"
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith((b"<svg", b"<?xml", b"<!--")) and b"<svg" in data[:4096]:
        return "svg+xml"
    return None


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
