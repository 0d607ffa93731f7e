"""Figures as deterministic files: labels typeset, log ticks as text, SVG and PNG bytes free of dates.

The Matplotlib set-up the families draw with is reportgen.plotting.
"""

import functools
import io
import re

from reportgen.render.mathtex import mathtext


@functools.lru_cache(maxsize=None)
def _settable(label):
    """Whether mathtext can set a label (parsed once per label, not once per figure)."""
    from matplotlib.mathtext import MathTextParser

    try:
        MathTextParser("path").parse(label)
    except ValueError:
        return False
    return True


def _texts(figure):
    """The texts a figure shows besides its tick labels: titles, axis labels, legends, notes.

    Walked by hand: figure.findobj(Text) asks each axis for its children, which builds every
    tick, a fifth of the drawing time, for labels the next draw sets again from the formatter.
    """
    from matplotlib.text import Text

    texts = list(figure.texts)  # suptitle and the other figure-level labels among them
    legends = list(figure.legends)
    for axes in figure.axes:
        # an Axes' own children hold its titles and notes; its axis labels sit under the axes
        texts += [child for child in axes.get_children() if isinstance(child, Text)]
        texts += [axes.xaxis.label, axes.yaxis.label]
        if axes.get_legend() is not None:
            legends.append(axes.get_legend())
    for legend in legends:
        texts += [*legend.get_texts(), legend.get_title()]
    return texts


def typeset_labels(figure):
    """Titles, axis and tick labels, legends and notes with their plain math (√d_k, ‖J‖_F) as mathtext."""
    from matplotlib.ticker import FixedFormatter, FuncFormatter

    def typeset(label):
        new = mathtext(label)
        return new if new != label and _settable(new) else label  # what mathtext cannot set stays as typed

    for text in _texts(figure):
        text.set_text(typeset(text.get_text()))
    # Tick labels a family wrote (ax.set_yticks(pos, labels)) come from the axis's formatter at
    # every draw: typeset what it gives. (Numeric formatters keep state per draw; they are left.)
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            labels = axis.get_major_formatter()
            if isinstance(labels, (FixedFormatter, FuncFormatter)):
                axis.set_major_formatter(FuncFormatter(lambda x, pos, labels=labels: typeset(labels(x, pos))))


SUPERSCRIPTS = str.maketrans("-−0123456789", "⁻⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_MATHTEXT_POWER = re.compile(r"^\$\\mathdefault\{(?:(?P<mantissa>[\d.]+)\\times\s*)?(?P<base>\d+)(?:\^\{(?P<exp>[-−\d]+)\})?\}\$$")


def _plain_power(label):
    """'$\\mathdefault{2\\times10^{-3}}$' -> '2×10⁻³': a log axis's tick label as text."""
    match = _MATHTEXT_POWER.match(label)
    if match is None:
        return label
    text = (match["mantissa"] + "×" if match["mantissa"] else "") + match["base"]
    return text + (match["exp"].translate(SUPERSCRIPTS) if match["exp"] else "")


def plain_log_ticks(figure):
    """Log axes label their ticks with text (10⁻², with Unicode superscripts), not mathtext.

    Matplotlib writes each log tick label as mathtext, which it parses once per label, per
    layout, per format: on the report's 30 figures a third of the drawing time went into it.
    """
    from matplotlib.ticker import LogFormatterMathtext

    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            for formatter in (axis.get_major_formatter(), axis.get_minor_formatter()):
                if isinstance(formatter, LogFormatterMathtext) and not isinstance(formatter, _PlainPowers):
                    formatter.__class__ = _plain_powers(type(formatter))


@functools.lru_cache(maxsize=None)
def _plain_powers(cls):
    """The formatter class `cls` with its labels as plain text (keeps the instance's settings)."""
    return type(f"Plain{cls.__name__}", (_PlainPowers, cls), {})


class _PlainPowers:
    def __call__(self, x, pos=None):
        return _plain_power(super().__call__(x, pos))


def render(figure, formats=("svg", "png")):
    """{format: bytes} of a figure, free of dates, then close it."""
    import matplotlib.pyplot as plt
    from matplotlib.layout_engine import PlaceHolderLayoutEngine  # left by a one-off tight_layout()

    typeset_labels(figure)
    plain_log_ticks(figure)

    # savefig's bbox_inches="tight" lays the figure out once more per format just to
    # measure it; measuring once for both saves a quarter of the drawing time.
    pad = plt.rcParams["savefig.pad_inches"]
    engine = figure.get_layout_engine()
    if engine is not None and not isinstance(engine, PlaceHolderLayoutEngine):
        figure.draw_without_rendering()  # a layout engine runs at draw time: measure after it
    bbox = figure.get_tightbbox(figure.canvas.get_renderer()).padded(pad)
    metadata = {"svg": {"Date": None, "Creator": None}, "png": {"Software": None}}
    files = {}
    for fmt in formats:
        buffer = io.BytesIO()
        if fmt == "png":
            figure.savefig(buffer, format="rgba", bbox_inches=bbox)
            files[fmt] = _png(buffer.getvalue(), figure) or _saved_png(figure, bbox, metadata[fmt])
        else:
            figure.savefig(buffer, format=fmt, bbox_inches=bbox, metadata=metadata[fmt])
            files[fmt] = buffer.getvalue()
    plt.close(figure)
    return files


def _png(rgba, figure):
    """The pixels Matplotlib just drew, as a PNG: RGB where every pixel is opaque; None when
    the drawing's size cannot be told for sure.

    Matplotlib writes RGBA even on a white figure; WeasyPrint splits the alpha channel into a
    soft mask and encodes both once more, in every PDF the figure is in (a seventh of
    report.pdf's writing went to its 30 masks of 255s). Encoding the pixels here costs what
    Matplotlib's own PNG would.
    """
    import matplotlib.pyplot as plt
    from PIL import Image

    renderer = getattr(figure.canvas, "renderer", None)  # the one savefig drew with, cropped
    size = (int(getattr(renderer, "width", 0)), int(getattr(renderer, "height", 0)))
    if size[0] * size[1] * 4 != len(rgba) or not size[0]:
        return None
    image = Image.frombuffer("RGBA", size, rgba, "raw", "RGBA", 0, 1)
    if image.getchannel("A").getextrema() == (255, 255):
        image = image.convert("RGB")
    dpi = plt.rcParams["savefig.dpi"]
    dpi = getattr(figure, "_original_dpi", figure.dpi) if dpi == "figure" else dpi  # as Matplotlib's own PNG
    out = io.BytesIO()
    image.save(out, format="PNG", dpi=(dpi, dpi))
    return out.getvalue()


def _saved_png(figure, bbox, metadata):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches=bbox, metadata=metadata)
    return buffer.getvalue()
