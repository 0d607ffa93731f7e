"""Errors the CLI turns into one clean line and an exit status."""

import traceback


class ReportgenError(Exception):
    """A problem the user can fix; its message names the problem and the way out."""

    exit_code = 1


class ConfigError(ReportgenError):
    """Bad input: an unknown key, a wrong type, an out-of-range value."""

    exit_code = 2

    def __init__(self, problems):
        if isinstance(problems, str):
            problems = [problems]
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


class Terminated(BaseException):
    """SIGTERM: unwinds like Ctrl-C (cleanup runs), then exits 143."""


def short_traceback(exc):
    """The last lines of an exception's traceback: enough to see where it failed."""
    lines = traceback.format_exception(exc)
    return "".join(lines[-6:]).strip()
