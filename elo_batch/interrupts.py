"""The signals that stop a run (SIGINT, SIGTERM), recorded so that none is lost before a commit; no CLI,
no outputs.

A signal handler that raises where Python next runs can land where nobody sees the exception: in a
weakref callback (a thread pool being collected), a ``__del__``, the garbage collector ("Exception
ignored in ..."), or inside a native library that turns it into its own error (polars aborts its query
and its writer threads panic). So the handler the command line installs records the signal here, and
every commit of an output folder calls :func:`check` right before it commits: a run that was signalled
never commits after the signal, whatever frame the handler's own raise landed in.

Library callers that install no handler never record anything: :func:`check` then does nothing.
"""

from __future__ import annotations

import signal


class Terminated(BaseException):
    """SIGTERM (a scheduler's timeout) raised as an exception, so that staged outputs are cleaned up."""


_recorded: list[int] = []


def record(signum: int) -> BaseException:
    """Record the signal ``signum`` (the first one counts); the exception that stops the run for it."""
    if not _recorded:
        _recorded.append(signum)
    return stopping(_recorded[0])


def stopping(signum: int) -> BaseException:
    """The exception a signal stops a run with: KeyboardInterrupt for SIGINT, :class:`Terminated` else."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated()


def pending() -> int | None:
    """The signal recorded since the last :func:`clear`, or None."""
    return _recorded[0] if _recorded else None


def check() -> None:
    """Raise the recorded signal's exception, if a signal was recorded; call it right before a commit.

    Raises:
        KeyboardInterrupt: SIGINT was recorded.
        Terminated: SIGTERM was recorded.
    """
    if _recorded:
        raise stopping(_recorded[0])


def clear() -> None:
    """Forget the recorded signal (a command is done, and the next one starts afresh)."""
    _recorded.clear()
