"""Where the CLI's errors become exit codes, in one place: the message on stderr, signals, faults."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from typing import NoReturn

import typer

from elo_batch.cli.logs import route_logs
from elo_batch.cli.options import (
    FLAGS,
    LogFormat,
)
from elo_batch.errors import EloBatchError, InternalError


class _Terminated(BaseException):
    """SIGTERM (a scheduler's timeout) turned into an exception, so that staged outputs are cleaned up."""


class Stop:
    """The SIGINT and SIGTERM handler while a command works: the first signal raises KeyboardInterrupt
    or :class:`_Terminated` where Python next runs; later ones are ignored, so that nothing interrupts
    the clean-up (putting old partitions back, removing the staging folder) that the first one starts.

    Installing it also takes SIGINT from polars, whose own handler aborts its engine mid-file (a
    writer thread then panics with a Rust backtrace on stderr) and raises a KeyboardInterrupt while
    Python's own is still pending, to land in the clean-up. So a polars call in progress (writing a
    file, say) runs to its end, then the run stops.
    """

    def __init__(self) -> None:
        self.signum: int | None = None

    def __call__(self, signum: int, frame: object) -> None:
        if self.signum is not None:
            return
        self.signum = signum
        raise KeyboardInterrupt if signum == signal.SIGINT else _Terminated


def guard(work: Callable[[], int | None], log_format: LogFormat = LogFormat.text) -> None:
    """Run ``work``; turn errors into a message on stderr and the contract's exit code. The library's log
    records and Python's warnings are printed in ``log_format`` (:func:`elo_batch.cli.logs.route_logs`)."""
    route_logs(log_format)
    previous: dict[int, object] = {}
    stop = Stop()
    if threading.current_thread() is threading.main_thread():
        previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        code = work()
    except EloBatchError as exc:
        fail(exc, log_format)
    except (KeyboardInterrupt, _Terminated) as exc:
        name = "interrupted" if isinstance(exc, KeyboardInterrupt) else "terminated"
        print(f"elo-batch: {name}; outputs of unfinished periods were not changed", file=sys.stderr)
        raise typer.Exit(130 if isinstance(exc, KeyboardInterrupt) else 143) from None
    except BrokenPipeError:  # stdout closed early (`elo-batch validate ... | head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(141) from None
    except BaseException as exc:  # a fault of elo-batch: an Exception, or a polars panic (a BaseException)
        if not isinstance(exc, Exception) and not _polars_panic(exc):
            raise
        if os.environ.get("ELO_BATCH_DEBUG"):
            traceback.print_exc()
        fail(
            InternalError(
                f"internal error: {type(exc).__name__}: {exc}",
                hint="this is a bug in elo-batch; set ELO_BATCH_DEBUG=1 for the traceback and report it.",
            ),
            log_format,
        )
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
    if code:
        raise typer.Exit(code)


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
