"""The ``elo-batch`` command line: parse options into a config, call the runner, map errors to exit codes.

No rating arithmetic here. This is the one place where errors become exit codes and text on stderr.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any, NoReturn

import typer

from elo_batch import __version__
from elo_batch.config import RunConfig, parse_periods
from elo_batch.errors import EloBatchError, InternalError
from elo_batch.runner import PeriodSummary, run

app = typer.Typer(
    name="elo-batch",
    help="FIDE rating changes for whole populations of players, exactly as FIDE computes them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class Rules(StrEnum):
    fide = "fide"
    elo = "elo"


class ExpectedChoice(StrEnum):
    table = "table"
    formula = "formula"


class CapChoice(StrEnum):
    auto = "auto"
    always = "always"
    never = "never"


class RoundingChoice(StrEnum):
    period = "period"
    game = "game"
    none = "none"


class FormatChoice(StrEnum):
    parquet = "parquet"
    csv = "csv"


class ListChoice(StrEnum):
    standard = "standard"
    rapid = "rapid"
    blitz = "blitz"


class LogFormat(StrEnum):
    text = "text"
    json = "json"


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


@app.command("run")
def run_command(
    games: Annotated[list[str], typer.Argument(help="Game files (CSV or Parquet), globs or folders.")],
    period: Annotated[str, typer.Option(help="Month of play YYYY-MM, or a range YYYY-MM..YYYY-MM.")],
    ratings: Annotated[str | None, typer.Option(help="The rating list in force (CSV or Parquet).")] = None,
    out: Annotated[str, typer.Option(help="Output folder (hive partitions per period).")] = "out",
    format: Annotated[FormatChoice, typer.Option("--format", help="Output file type.")] = FormatChoice.parquet,
    rules: Annotated[
        Rules, typer.Option(help="fide: FIDE regulations in force for the period; elo: classic Elo.")
    ] = Rules.fide,
    rule_set: Annotated[str | None, typer.Option(help="Force a rule set: fide-2024-03, fide-2025-10 or elo.")] = None,
    list_kind: Annotated[
        ListChoice, typer.Option("--list", help="Which FIDE list: standard, rapid or blitz.")
    ] = ListChoice.standard,
    expected: Annotated[
        ExpectedChoice | None, typer.Option(help="Expected score: FIDE table 8.1.2 or the logistic formula.")
    ] = None,
    cap_400: Annotated[
        CapChoice, typer.Option("--cap-400", help="400-point rule: auto (per rule set), always or never.")
    ] = CapChoice.auto,
    k: Annotated[int | None, typer.Option("--k", min=1, max=100, help="One K for every player.")] = None,
    no_700_rule: Annotated[bool, typer.Option("--no-700-rule", help="Do not reduce K when K x n > 700.")] = False,
    rounding: Annotated[
        RoundingChoice | None, typer.Option(help="period (round once), game (each game) or none (2 decimals).")
    ] = None,
    strict: Annotated[bool, typer.Option(help="Fail (exit 65) when any row is rejected; write nothing.")] = False,
    encoding: Annotated[str | None, typer.Option(help="Text encoding of CSV inputs (default: detect).")] = None,
    log_format: Annotated[LogFormat, typer.Option(help="Summary on stderr as text or JSON lines.")] = LogFormat.text,
) -> None:
    """Rate the games of one period (or a range of periods) and write the new rating list and audit."""

    def work() -> None:
        config = RunConfig(
            periods=parse_periods(period),
            rules=rules.value,  # type: ignore[arg-type]
            rule_set=rule_set,
            list_kind=list_kind.value,  # type: ignore[arg-type]
            expected=expected.value if expected else None,  # type: ignore[arg-type]
            cap_400=cap_400.value,  # type: ignore[arg-type]
            k=k,
            rule_700=False if no_700_rule else None,
            rounding=rounding.value if rounding else None,  # type: ignore[arg-type]
            strict=strict,
        )
        run(
            games,
            config=config,
            ratings_path=ratings,
            out=out,
            fmt=format.value,  # type: ignore[arg-type]
            encoding=encoding,
            on_period=lambda summary: _log_period(summary, log_format),
        )

    _guard(work, log_format)


def _log_period(summary: PeriodSummary, log_format: LogFormat) -> None:
    counts = summary.counts
    if log_format is LogFormat.json:
        record = {
            "event": "period_written",
            "period": summary.period,
            "rule_set": summary.rule_set,
            "counts": counts.__dict__,
            "players": summary.players,
            "warnings": list(summary.warnings),
            "outputs": summary.outputs,
        }
        print(json.dumps(record), file=sys.stderr)
        return
    players = ", ".join(f"{n} {status}" for status, n in summary.players.items()) or "no players"
    print(
        f"{summary.period} ({summary.rule_set}): {counts.rows_read} rows read = {counts.counted} counted"
        f" + {counts.not_counted} not counted (see audit) + {counts.other_periods} other periods"
        f" + {counts.rejected} rejected; players: {players}",
        file=sys.stderr,
    )
    for warning in summary.warnings:
        print(f"  warning: {warning}", file=sys.stderr)
    print(f"  written: {os.path.dirname(summary.outputs['ratings'])}", file=sys.stderr)


def _guard(work: Callable[[], Any], log_format: LogFormat = LogFormat.text) -> None:
    """Run ``work``; turn errors into a message on stderr and the contract's exit code."""
    try:
        work()
    except EloBatchError as exc:
        _fail(exc, log_format)
    except KeyboardInterrupt:
        print("elo-batch: interrupted; outputs of unfinished periods were not changed", file=sys.stderr)
        raise typer.Exit(130) from None
    except Exception as exc:  # a fault of elo-batch itself, not of the input
        if os.environ.get("ELO_BATCH_DEBUG"):
            traceback.print_exc()
        _fail(
            InternalError(
                f"internal error: {type(exc).__name__}: {exc}",
                hint="this is a bug in elo-batch; set ELO_BATCH_DEBUG=1 for the traceback and report it.",
            ),
            log_format,
        )


def _fail(exc: EloBatchError, log_format: LogFormat) -> NoReturn:
    if log_format is LogFormat.json:
        record = {
            "event": "error",
            "exit_code": exc.exit_code,
            "error": type(exc).__name__,
            "message": str(exc),
            "path": exc.path,
            "row": exc.row,
            "column": exc.column,
        }
        print(json.dumps(record, default=str), file=sys.stderr)
    else:
        print(f"elo-batch: error: {exc}", file=sys.stderr)
    raise typer.Exit(exc.exit_code)


if __name__ == "__main__":  # pragma: no cover
    app()
