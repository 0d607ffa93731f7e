"""Matplotlib set-up and deterministic figure files."""

import io
from importlib import resources

TEXT_WIDTH_IN = 6.4  # A4 minus the report's 2 cm side margins, a little under 17 cm


def subplots(nrows=1, ncols=1, height=2.8, **kwargs):
    """A figure in the report's style, as wide as the text column."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    style = resources.files("reportgen.templates") / "report.mplstyle"
    with resources.as_file(style) as path:
        plt.style.use(str(path))
    return plt.subplots(nrows, ncols, figsize=(TEXT_WIDTH_IN, height), **kwargs)


def typeset_labels(figure):
    """Titles, axis labels, legends and notes with their plain math (√d_k, ‖J‖_F) as mathtext."""
    from matplotlib.mathtext import MathTextParser
    from matplotlib.text import Text

    from reportgen.mathtex import mathtext

    parser = MathTextParser("path")
    for text in figure.findobj(Text):
        old = text.get_text()
        new = mathtext(old)
        if new == old:
            continue
        try:
            parser.parse(new)
        except ValueError:  # notation mathtext cannot set stays as typed, never a failed figure
            continue
        text.set_text(new)


def render(figure, formats=("svg", "png")):
    """{format: bytes} of a figure, free of dates, then close it."""
    import matplotlib.pyplot as plt
    from matplotlib.layout_engine import PlaceHolderLayoutEngine  # left by a one-off tight_layout()

    typeset_labels(figure)

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
        figure.savefig(buffer, format=fmt, bbox_inches=bbox, metadata=metadata[fmt])
        files[fmt] = buffer.getvalue()
    plt.close(figure)
    return files
