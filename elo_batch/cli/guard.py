"""Where the CLI's errors become exit codes, in one place: the message on stderr, signals, faults."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from types import FrameType
from typing import Any, NoReturn

import typer

from elo_batch.cli.logs import route_logs
from elo_batch.cli.options import (
    FLAGS,
    LogFormat,
)
from elo_batch.errors import EloBatchError, InternalError
from elo_batch.interrupts import Terminated, clear, record, stopping

#: Packages whose native code may run the signal handler (polars checks for signals while it waits for its
#: engine): an exception raised there aborts their work mid-file, so the raise waits until Python is back.
NATIVE = ("polars", "_polars_runtime_32", "_polars_runtime_64", "deltalake", "pyarrow")
MESSAGE = "outputs of unfinished periods were not changed"


class Stop:
    """The SIGINT and SIGTERM handler while a command works: the first signal is recorded
    (``elo_batch.interrupts``, which every commit checks first) and raised as KeyboardInterrupt or
    ``Terminated`` where Python next runs; later ones are ignored, so that nothing interrupts the
    clean-up (putting old partitions back, removing the staging folder) that the first one starts.

    Installing it also takes SIGINT from polars. Where the handler runs inside a native library's call
    (polars checks for signals while its engine works, and would abort mid-file, its writer threads
    panicking with Rust's text on stderr), the raise waits: a profile function raises it at the first
    event of Python code outside those libraries (:meth:`later`). A raise that lands where Python
    drops it (a weakref callback, a ``__del__``) is raised again in the same way (:meth:`dropped`);
    and the recorded signal stops any commit in between.
    """

    def __init__(self, unraisable_hook: Callable[[Any], object] = sys.unraisablehook) -> None:
        self.signum: int | None = None
        self.raised = False
        self._previous_hook = unraisable_hook
        self._previous_profile: Any = None

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.raised:
            return
        if self.signum is None:
            self.signum = signum
            record(signum)
        if _waits(frame):
            self.later()
            return
        self.raised = True
        raise stopping(self.signum or signum)

    def later(self) -> None:
        """Raise the signal at the next event of Python code that is not a native library's or this
        handler's (a profile function of the main thread, removed once it has raised)."""
        if sys.getprofile() != self._profile:
            self._previous_profile = sys.getprofile()
            sys.setprofile(self._profile)

    def _profile(self, frame: FrameType, event: str, arg: object) -> None:
        if self.raised or self.signum is None:
            sys.setprofile(self._previous_profile)
            return
        if _waits(frame):
            return
        sys.setprofile(self._previous_profile)
        self.raised = True
        raise stopping(self.signum)

    def unraisable_hook(self, unraisable: Any) -> None:
        """``sys.unraisablehook`` while a command works: this handler's dropped raise is raised again
        (:meth:`dropped`), silently; anything else goes to the previous hook."""
        if not self.dropped(unraisable):
            self._previous_hook(unraisable)

    def dropped(self, unraisable: Any) -> bool:
        """Whether ``unraisable`` (what ``sys.unraisablehook`` gets) is this handler's raise, dropped where
        Python cannot raise it; if so, it is raised again where Python next runs (:meth:`later`)."""
        if self.signum is None or not isinstance(unraisable.exc_value, KeyboardInterrupt | Terminated):
            return False
        self.raised = False
        self.later()
        return True

    def done(self) -> None:
        """Stop waiting to raise (the command is over)."""
        self.raised = True
        if sys.getprofile() == self._profile:
            sys.setprofile(self._previous_profile)


def _waits(frame: FrameType | None) -> bool:
    """Whether a raise in ``frame`` must wait: the handler's hook, or a frame of a native library's code
    anywhere on the stack (Python code that polars calls back from its engine, the signal handler itself
    run there: a raise would unwind through the library's native frames)."""
    if frame is None:
        return False
    if frame.f_code in _HOOK_CODE:
        return True
    folders = _native_folders()
    while frame is not None:
        if frame.f_code.co_filename.startswith(folders):
            return True
        frame = frame.f_back
    return False


_HOOK_CODE = (Stop.unraisable_hook.__code__, Stop.dropped.__code__, Stop.later.__code__)


def _native_folders() -> tuple[str, ...]:
    """The folders of the :data:`NATIVE` packages loaded (a package not imported runs no code)."""
    folders = []
    for name in NATIVE:
        module = sys.modules.get(name)
        folder = os.path.dirname(getattr(module, "__file__", None) or "") if module is not None else ""
        if folder:
            folders.append(folder + os.sep)
    return tuple(folders)


def guard(work: Callable[[], int | None], log_format: LogFormat = LogFormat.text) -> None:
    """Run ``work``; turn errors into a message on stderr and the contract's exit code. A signal (SIGINT,
    SIGTERM) that arrived while it worked always ends in its exit code (130, 143), even where its raise
    was dropped. The library's log records and Python's warnings are printed in ``log_format``
    (:func:`elo_batch.cli.logs.route_logs`)."""
    route_logs(log_format)
    previous: dict[int, object] = {}
    hook = sys.unraisablehook
    stop = Stop(hook)
    clear()
    if threading.current_thread() is threading.main_thread():
        previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}
        sys.unraisablehook = stop.unraisable_hook
    try:
        code = _guarded(work, log_format, stop)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        sys.unraisablehook = hook
        stop.done()
        clear()
    if code:
        raise typer.Exit(code)


def _guarded(work: Callable[[], int | None], log_format: LogFormat, stop: Stop) -> int | None:
    try:
        code = work()
    except (KeyboardInterrupt, Terminated) as exc:
        _stopped(KeyboardInterrupt if isinstance(exc, KeyboardInterrupt) else Terminated, log_format)
    except EloBatchError as exc:
        if stop.signum is not None:  # the signal's raise turned into an error on its way (a library's own)
            _stopped(type(stopping(stop.signum)), log_format)
        fail(exc, log_format)
    except BrokenPipeError:  # stdout closed early (`elo-batch validate ... | head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(141) from None
    except BaseException as exc:  # a fault of elo-batch: an Exception, or a polars panic (a BaseException)
        if not isinstance(exc, Exception) and not _polars_panic(exc):
            raise
        _fault(exc, log_format, stop)
    if stop.signum is not None:  # a signal whose raise was dropped after the last commit
        _stopped(type(stopping(stop.signum)), log_format)
    return code


def _fault(exc: BaseException, log_format: LogFormat, stop: Stop) -> NoReturn:
    """Exit for a fault of elo-batch being handled: as stopped when a signal came first, else as an internal error."""
    if stop.signum is not None:
        _stopped(type(stopping(stop.signum)), log_format)
    if os.environ.get("ELO_BATCH_DEBUG"):
        traceback.print_exc()
    fail(
        InternalError(
            f"internal error: {type(exc).__name__}: {exc}",
            hint="this is a bug in elo-batch; set ELO_BATCH_DEBUG=1 for the traceback and report it.",
        ),
        log_format,
    )


def _stopped(kind: type[BaseException], log_format: LogFormat) -> NoReturn:
    interrupted = kind is KeyboardInterrupt
    code, message = (130 if interrupted else 143), f"{'interrupted' if interrupted else 'terminated'}; {MESSAGE}"
    if log_format is LogFormat.json:  # every stderr line one JSON object, a signal's too
        record = {"event": "error", "exit_code": code, "error": kind.__name__, "message": message}
        print(json.dumps(record), file=sys.stderr)
    else:
        print(f"elo-batch: {message}", file=sys.stderr)
    raise typer.Exit(code) from None


def fail(exc: EloBatchError, log_format: LogFormat) -> NoReturn:
    message = exc.render(FLAGS)
    if log_format is LogFormat.json:
        record = {
            "event": "error",
            "exit_code": exc.exit_code,
            "error": type(exc).__name__,
            "message": message,
            "path": exc.path,
            "row": exc.row,
            "column": exc.column
            or (FLAGS.get(exc.option, "--" + exc.option.replace("_", "-")) if exc.option else None),
            "value": exc.value,
        }
        print(json.dumps(record, default=str), file=sys.stderr)
    else:
        print(f"elo-batch: error: {message}", file=sys.stderr)
    raise typer.Exit(exc.exit_code)


def _polars_panic(exc: BaseException) -> bool:
    """Whether ``exc`` is a polars panic; polars is not imported for it (a command that never loaded
    polars cannot have panicked in it)."""
    exceptions = sys.modules.get("polars.exceptions")
    return exceptions is not None and isinstance(exc, exceptions.PanicException)
