"""The figure files: the pixels Matplotlib draws, in the PNG the PDFs embed most cheaply."""

import io

import numpy as np
from PIL import Image

from reportgen import plotting
from reportgen.render import figures


def _figure(transparent=False):
    fig, ax = plotting.subplots(height=1.4)  # the report's style: savefig.dpi 200, tight boxes
    for seed in range(3):
        ax.plot(np.random.default_rng(seed).standard_normal(50).cumsum(), label=str(seed))
    ax.legend()
    ax.set_title("a title")
    if transparent:
        fig.patch.set_alpha(0.0)
        ax.patch.set_alpha(0.0)
    return fig


def _matplotlibs_png(fig, monkeypatch):
    """The PNG Matplotlib writes itself (render's fallback), the figure prepared as render does."""
    with monkeypatch.context() as patch:
        patch.setattr(figures, "_png", lambda rgba, figure: None)
        return Image.open(io.BytesIO(figures.render(fig, ("png",))["png"]))


def test_an_opaque_figure_is_an_rgb_png_of_the_same_pixels(monkeypatch):
    """No alpha channel: WeasyPrint would split it into a soft mask of 255s in every PDF."""
    png = Image.open(io.BytesIO(figures.render(_figure(), ("png",))["png"]))
    expected = _matplotlibs_png(_figure(), monkeypatch)
    assert png.mode == "RGB" and expected.mode == "RGBA" and png.size == expected.size
    assert np.array_equal(np.asarray(png.convert("RGBA")), np.asarray(expected))
    assert [round(d) for d in png.info["dpi"]] == [round(d) for d in expected.info["dpi"]] == [200, 200]


def test_a_figure_with_transparency_keeps_its_alpha(monkeypatch):
    png = Image.open(io.BytesIO(figures.render(_figure(transparent=True), ("png",))["png"]))
    expected = _matplotlibs_png(_figure(transparent=True), monkeypatch)
    assert png.mode == "RGBA"
    assert np.array_equal(np.asarray(png), np.asarray(expected))


def test_the_same_figure_gives_the_same_bytes():
    assert figures.render(_figure(), ("png", "svg")) == figures.render(_figure(), ("png", "svg"))
