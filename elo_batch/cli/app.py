"""The ``elo-batch`` command line: the typer app, its commands and the console entry point.

A thin driver of the public API: each command (:mod:`~elo_batch.cli.runcmd`, :mod:`~elo_batch.cli.calccmd`,
:mod:`~elo_batch.cli.importcmd`, :mod:`~elo_batch.cli.chart`,
:mod:`~elo_batch.cli.reportcmd`) turns its flags into the API's arguments, calls
one function of ``elo_batch`` and renders what it returns (:mod:`~elo_batch.cli.logs`); errors become exit
codes in one place, :func:`elo_batch.cli.guard.guard`. No rating arithmetic here.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Annotated

import typer
from typer.exceptions import TyperException

from elo_batch import __version__
from elo_batch.cli import STARTING, calccmd, chart, importcmd, reportcmd, runcmd
from elo_batch.errors import UsageError

app = typer.Typer(
    name="elo-batch",
    help="FIDE rating changes for whole populations of players, exactly as FIDE computes them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"elo-batch {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """FIDE rating changes for whole populations of players, exactly as FIDE computes them."""


app.command("run")(runcmd.run_command)
app.command("validate")(runcmd.validate_command)
app.command("game")(calccmd.game_command)
app.command("tournament")(calccmd.tournament_command)
app.add_typer(importcmd.import_app)
app.command("chart")(chart.chart_command)
app.command("report")(reportcmd.report_command)


#: Options of jemalloc, polars' allocator on Linux and macOS (elsewhere mimalloc, which ignores them),
#: for a run of the command line: freed pages are kept for reuse for 30 s (jemalloc's default returns
#: them to the system over 10 s, so a run that frees and allocates gigabytes faults the same pages in
#: again). 10M games: 8.75 -> 7.53 s (medians of 5; system time 2.2 -> 1.6 s), peak memory +8 %; 100M
#: games: peak 10.5 GB either way. Requests over 64 KiB come from jemalloc's oversize arena, which returns
#: freed pages at once (the default threshold is 8 MiB): the pages a phase frees (reading a CSV, the
#: sums) are not kept beside those the next phase takes anew. Peaks, 3 alternating runs each: a 75 MB
#: CSV of 1.6M games 764-830 -> 616-680 MB (with the audit written in parts), 200k games / 1.6M list
#: 580-615 -> 516-520 MB, 10M games 2.06-2.14 -> 1.67-1.81 GB; time within the runs' noise (10M: 6.8-9.6
#: s against 8.1-9.5 s). Read when polars is first imported, which the command line does after this is
#: set; a value the user sets in the environment is kept.
ALLOCATOR_OPTIONS = "dirty_decay_ms:30000,muzzy_decay_ms:30000,oversize_threshold:65536"
#: The same for ``elo-batch report``, which frees its tables while it writes thousands of small files:
#: freed pages go back to the system at once. 1.6M players (a 20-character name, a federation), 200k games:
#: peak 1,277 MB with the options above, 998 MB with these, in the same time (18-19 s on a loaded machine).
REPORT_ALLOCATOR_OPTIONS = "dirty_decay_ms:0,muzzy_decay_ms:0"


def console(argv: list[str] | None = None) -> int:
    """The ``elo-batch`` console entry point: the typer app, with its usage errors (an unknown option,
    a bad choice, a missing ``--period``) reported as a JSON ``error`` event under ``--log-format json``.

    Returns:
        The exit status (2 for a usage error).
    """
    args = sys.argv[1:] if argv is None else argv
    if not os.environ.get("ELO_BATCH_DEBUG"):  # a polars panic is reported as an error, without Rust's backtrace
        os.environ["RUST_BACKTRACE"] = "0"
    os.environ.setdefault(
        "_RJEM_MALLOC_CONF", REPORT_ALLOCATOR_OPTIONS if args[:1] == ["report"] else ALLOCATOR_OPTIONS
    )
    try:
        status = app(args, standalone_mode=False)
    except KeyboardInterrupt:  # a Ctrl-C before the command's guard: nothing was written
        print(STARTING, file=sys.stderr)
        return 130
    except typer.Abort as exc:
        return _aborted(exc)
    except TyperException as exc:  # typer's usage errors (its own click's UsageError and kin)
        return _usage_error(exc, args)
    return status if isinstance(status, int) else 0


def _aborted(exc: typer.Abort) -> int:
    """Say why click aborted (a Ctrl-C while it parses, or its own abort); the exit status."""
    if isinstance(exc.__context__, KeyboardInterrupt):  # click's word for a Ctrl-C while it parses
        print(STARTING, file=sys.stderr)
        return 130
    print("Aborted!", file=sys.stderr)
    return 1


def _usage_error(exc: TyperException, args: list[str]) -> int:
    """Report a usage error of typer (a JSON ``error`` event under ``--log-format json``); the exit status."""
    code = int(getattr(exc, "exit_code", 2))
    if type(exc).__name__ == "NoArgsIsHelpError":  # the help was shown: nothing more to say
        return code
    message = _usage_message(exc)
    if _json_logs_requested(args):
        record = {"event": "error", "exit_code": code, "error": "UsageError", "message": message}
        print(json.dumps(record), file=sys.stderr)
    else:
        print(f"elo-batch: error: {message}", file=sys.stderr)
    return code


def _usage_message(exc: TyperException) -> str:
    """A usage error of typer as elo-batch words its own: the option, what is wrong with it (without
    the framework's "Invalid value for" and "Value error," wording) and a hint to the command's help."""
    param = getattr(exc, "param", None)
    options = [opt for opt in getattr(param, "opts", ()) if opt.startswith("--")]
    text = str(getattr(exc, "message", "") or "")
    if options and text and type(exc).__name__ == "BadParameter":
        text = re.sub(r"^Value error, ", "", text).rstrip(".")
        error = UsageError(text, column=options[0])
    else:
        error = UsageError(exc.format_message() if hasattr(exc, "format_message") else str(exc))
    ctx = getattr(exc, "ctx", None)
    command = getattr(ctx, "command_path", None) or "elo-batch"
    return f"{error}\nHint: run '{command} --help' to see the options and their values."


def _json_logs_requested(args: list[str]) -> bool:
    joined = " ".join(args)
    return "--log-format json" in joined or "--log-format=json" in joined


if __name__ == "__main__":  # pragma: no cover
    sys.exit(console())
