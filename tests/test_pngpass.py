"""PNGs into the PDFs as they are: only those a PDF takes unchanged, and the same bytes as before."""

import io

import numpy as np
import pytest
from PIL import Image

from reportgen.render import pngpass


def _png(mode, size=(40, 30), **save):
    pixels = np.random.default_rng(0).integers(0, 256, (size[1], size[0], len(mode)), dtype=np.uint8)
    image = Image.fromarray(pixels[..., 0] if mode == "L" else pixels, mode)
    out = io.BytesIO()
    image.save(out, format="PNG", **save)
    return out.getvalue()


@pytest.mark.parametrize("mode", ["RGB", "L"])
def test_8_bit_rgb_and_grey_pass_as_their_idat(mode):
    import zlib

    png = _png(mode)
    data = pngpass.idat(png)
    width, height = 40, 30
    assert len(zlib.decompress(data)) == height * (1 + width * len(mode))  # a filter byte per row


@pytest.mark.parametrize("png", [
    _png("RGBA"),  # alpha: WeasyPrint splits it into a soft mask
    _png("RGB").replace(b"IEND", b"IENX"),  # no end: cut short
    _png("RGB")[:60],
    _png("RGB", transparency=(0, 0, 0)),  # tRNS
    b"GIF89a",
], ids=["rgba", "no-end", "truncated", "trns", "gif"])
def test_anything_else_takes_weasyprints_path(png):
    assert pngpass.idat(png) is None


def test_a_png_whose_data_falls_short_of_its_header_takes_weasyprints_path():
    """Cut in half, chunk length mended: Pillow pads it; passed as it is, no reader could decode it."""
    import struct
    import zlib

    png = _png("RGB")
    at = png.index(b"IDAT") - 4
    length = struct.unpack(">I", png[at:at + 4])[0]
    data = zlib.compress(zlib.decompress(png[at + 8:at + 8 + length])[: length // 2])
    chunk = struct.pack(">I", len(data)) + b"IDAT" + data + struct.pack(">I", zlib.crc32(b"IDAT" + data))
    cut = png[:at] + chunk + png[at + 12 + length:]
    assert pngpass.idat(png) is not None and pngpass.idat(cut) is None


def test_palette_16_bit_and_interlaced_headers_take_weasyprints_path():
    png = bytearray(_png("RGB"))
    for offset, value in ((24, 16), (25, 3), (28, 1)):  # bit depth 16, palette, Adam7
        changed = bytearray(png)
        changed[offset] = value
        assert pngpass.idat(bytes(changed)) is None


def test_a_pdf_is_the_same_bytes_with_the_png_passed(monkeypatch):
    """What the pass leaves out is an encode that gives back the same IDAT."""
    import base64

    import weasyprint
    from weasyprint.images import RasterImage

    images = "".join(f'<img alt="" src="data:image/png;base64,{base64.b64encode(_png(mode)).decode()}">'
                     for mode in ("RGB", "L", "RGBA"))
    html = f"<html><body><p>figures</p>{images}</body></html>"
    current = RasterImage.__dict__["_get_png_data"]  # installed already if a PDF was rendered here
    monkeypatch.setattr(RasterImage, "_get_png_data", getattr(current.__func__, "original", current))
    before = weasyprint.HTML(string=html).write_pdf()
    pngpass.install()
    pngpass.install()  # once is enough; twice changes nothing
    assert RasterImage.__dict__["_get_png_data"].__func__.reportgen_pass
    assert weasyprint.HTML(string=html).write_pdf() == before
