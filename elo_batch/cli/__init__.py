"""The command line: a typer app over the Python API, and its log rendering; no rating maths.

A Ctrl-C before a command's guard is installed (while the command line is still being imported)
ends with one line on stderr, not a traceback: nothing has been written yet.
"""

import sys
from types import TracebackType

STARTING = "elo-batch: interrupted; nothing was written"


def _interrupted_at_start(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    if issubclass(kind, KeyboardInterrupt):
        print(STARTING, file=sys.stderr)
        return
    sys.__excepthook__(kind, value, tb)


if sys.excepthook is sys.__excepthook__:
    sys.excepthook = _interrupted_at_start
