"""Python's cyclic garbage collector, paused around allocation-heavy work."""

import contextlib
import gc


@contextlib.contextmanager
def paused_gc():
    """Run the block with no cyclic collections.

    WeasyPrint's layout and Matplotlib's drawing allocate millions of objects that
    live until the block ends; each full collection walks them all again, which cost
    a fifth of the PDF's time. Reference counting still frees everything acyclic, and
    the cycles go in the first collection after the block.
    """
    enabled = gc.isenabled()
    try:
        gc.disable()
        yield
    finally:
        if enabled:
            gc.enable()
