"""Library log lines (WeasyPrint, fontTools) through reportgen's own output, obeying -q.

WeasyPrint logged a logo's external reference with 2 MB of base64 as raw ERROR lines past
-q. Each record becomes one line of at most LINE_CHARS printable characters: errors as
warnings (shown even when quiet, each text once), the rest as progress (hidden by -q).
"""

import logging
import re

LOGGERS = ("weasyprint", "fontTools")
LINE_CHARS = 200
UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class _ToProgress(logging.Handler):
    def __init__(self, progress):
        super().__init__(logging.INFO)
        self.progress, self.seen = progress, set()

    def emit(self, record):
        text = UNPRINTABLE.sub(" ", record.getMessage() if record.args else str(record.msg))
        line = f"{record.name}: {' '.join(text.split())}"[:LINE_CHARS]
        if record.levelno >= logging.ERROR:
            if line not in self.seen:
                self.seen.add(line)
                self.progress.warn(line)
        else:
            self.progress.echo(line)


def route(progress):
    """Send the libraries' records to `progress` from now on (replacing an earlier route)."""
    handler = _ToProgress(progress)
    for name in LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers = [h for h in logger.handlers if not isinstance(h, _ToProgress)] + [handler]
        logger.propagate = False
        logger.setLevel(logging.WARNING)
