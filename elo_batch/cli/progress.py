"""A progress bar on stderr for long runs (rich); drawn only on a terminal, never into a log file or pipe.

No work here: :class:`ProgressBar` is the ``on_progress`` callback the CLI hands to the runner.
"""

from __future__ import annotations

import sys
import threading
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.progress import Progress


class ProgressBar:
    """Steps of a run as a transient bar, shown once the run has lasted ``delay`` seconds.

    A context manager and a ``(step, done, total)`` callback. Without a terminal on ``stream`` (a
    scheduler's log file, a pipe, a test runner) it draws nothing at all, whatever the environment
    says about colours.

    Args:
        stream: Where to draw (stderr).
        enabled: False never draws (``--log-format json``).
        delay: Seconds before the bar appears; short runs finish without one.
    """

    def __init__(self, stream: TextIO | None = None, *, enabled: bool = True, delay: float = 1.0) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled and _is_terminal(self.stream)
        self.delay = delay
        self._lock = threading.Lock()
        self._state = ("starting", 0, 1)
        self._bar: Progress | None = None
        self._task: int | None = None
        self._timer: threading.Timer | None = None
        self._closed = False

    def __enter__(self) -> ProgressBar:
        if self.enabled:
            if self.delay <= 0:
                self._show()
            else:
                self._timer = threading.Timer(self.delay, self._show)
                self._timer.daemon = True
                self._timer.start()
        return self

    def __call__(self, step: str, done: int, total: int) -> None:
        with self._lock:
            self._state = (step, done, total)
            if self._bar is not None and self._task is not None:
                self._bar.update(self._task, description=step, completed=done, total=total)  # type: ignore[arg-type]

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._bar is not None:
                self._bar.stop()
                self._bar = None

    def _show(self) -> None:
        with self._lock:
            if self._bar is not None or self._closed:
                return
            step, done, total = self._state
            from rich.console import Console  # only when a bar is drawn (a run longer than the delay, on a terminal)
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(
                TextColumn("elo-batch: {task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(file=self.stream, force_terminal=True),
                transient=True,
            )
            self._task = self._bar.add_task(step, completed=done, total=total)  # type: ignore[assignment]
            self._bar.start()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or file-less stream
        return False
