"""The ``elo-batch`` command line: parse options into a config, call the runner, map errors to exit codes.

No rating arithmetic here. This is the one place where errors become exit codes and text on stderr.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, NoReturn

import typer

from elo_batch import __version__
from elo_batch import columns as c
from elo_batch.config import RunConfig, parse_periods
from elo_batch.errors import EloBatchError, InternalError
from elo_batch.period import Counts
from elo_batch.progress import ProgressBar
from elo_batch.readers import check_encoding
from elo_batch.runner import PeriodSummary, ValidationReport, run, validate

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


# Options shared by `run` and `validate` (so that validate checks exactly what run would).
GamesArg = Annotated[list[str], typer.Argument(help="Game files (CSV or Parquet), globs or folders.")]
RatingsOpt = Annotated[str | None, typer.Option(help="The rating list in force (CSV or Parquet).")]
RulesOpt = Annotated[Rules, typer.Option(help="fide: FIDE regulations in force for the period; elo: classic Elo.")]
RuleSetOpt = Annotated[str | None, typer.Option(help="Force a rule set: fide-2024-03, fide-2025-10 or elo.")]
ListOpt = Annotated[ListChoice, typer.Option("--list", help="Which FIDE list: standard, rapid or blitz.")]
ExpectedOpt = Annotated[
    ExpectedChoice | None, typer.Option(help="Expected score: FIDE table 8.1.2 or the logistic formula.")
]
CapOpt = Annotated[CapChoice, typer.Option("--cap-400", help="400-point rule: auto (per rule set), always or never.")]
KOpt = Annotated[int | None, typer.Option("--k", min=1, max=100, help="One K for every player.")]
No700Opt = Annotated[bool, typer.Option("--no-700-rule", help="Do not reduce K when K x n > 700.")]
RoundingOpt = Annotated[
    RoundingChoice | None, typer.Option(help="period (round once), game (each game) or none (2 decimals).")
]
EncodingOpt = Annotated[str | None, typer.Option(help="Text encoding of CSV inputs (default: detect).")]
LogFormatOpt = Annotated[LogFormat, typer.Option(help="Summary on stderr as text or JSON lines.")]


@app.command("run")
def run_command(
    games: GamesArg,
    period: Annotated[str, typer.Option(help="Month of play YYYY-MM, or a range YYYY-MM..YYYY-MM.")],
    ratings: RatingsOpt = None,
    out: Annotated[str, typer.Option(help="Output folder (hive partitions per period).")] = "out",
    format: Annotated[FormatChoice, typer.Option("--format", help="Output file type.")] = FormatChoice.parquet,
    rules: RulesOpt = Rules.fide,
    rule_set: RuleSetOpt = None,
    list_kind: ListOpt = ListChoice.standard,
    expected: ExpectedOpt = None,
    cap_400: CapOpt = CapChoice.auto,
    k: KOpt = None,
    no_700_rule: No700Opt = False,
    rounding: RoundingOpt = None,
    strict: Annotated[bool, typer.Option(help="Fail (exit 65) when any row is rejected; write nothing.")] = False,
    encoding: EncodingOpt = None,
    log_format: LogFormatOpt = LogFormat.text,
) -> None:
    """Rate the games of one period (or a range of periods) and write the new rating list and audit."""

    def work() -> int:
        check_encoding(encoding)
        config = _config(period, rules, rule_set, list_kind, expected, cap_400, k, no_700_rule, rounding, strict)
        with ProgressBar(enabled=log_format is LogFormat.text) as bar:
            run(
                games,
                config=config,
                ratings_path=ratings,
                out=out,
                fmt=format.value,  # type: ignore[arg-type]
                encoding=encoding,
                on_period=lambda summary: _log_period(summary, log_format),
                on_progress=bar,
            )
        return 0

    _guard(work, log_format)


@app.command("validate")
def validate_command(
    games: GamesArg,
    period: Annotated[
        str | None,
        typer.Option(help="Rate these months in memory too (YYYY-MM or a range); default: check every row."),
    ] = None,
    ratings: RatingsOpt = None,
    rules: RulesOpt = Rules.fide,
    rule_set: RuleSetOpt = None,
    list_kind: ListOpt = ListChoice.standard,
    expected: ExpectedOpt = None,
    cap_400: CapOpt = CapChoice.auto,
    k: KOpt = None,
    no_700_rule: No700Opt = False,
    rounding: RoundingOpt = None,
    encoding: EncodingOpt = None,
    log_format: LogFormatOpt = LogFormat.text,
) -> None:
    """Check the inputs as `run` would, write nothing; exit 65 when any row would be rejected.

    Rejected rows go to stdout (one line each), the reconciliation to stderr.
    """

    def work() -> int:
        check_encoding(encoding)
        config = _config(period, rules, rule_set, list_kind, expected, cap_400, k, no_700_rule, rounding, False)
        with ProgressBar(enabled=log_format is LogFormat.text) as bar:
            report = validate(games, config=config, ratings_path=ratings, encoding=encoding, on_progress=bar)
        return _log_validation(report, log_format)

    _guard(work, log_format)


def _config(
    period: str | None,
    rules: Rules,
    rule_set: str | None,
    list_kind: ListChoice,
    expected: ExpectedChoice | None,
    cap_400: CapChoice,
    k: int | None,
    no_700_rule: bool,
    rounding: RoundingChoice | None,
    strict: bool,
) -> RunConfig:
    return RunConfig(
        periods=parse_periods(period) if period is not None else (),
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


def _reconciliation(counts: Counts, written: bool) -> str:
    where = "see audit" if written else "audited"
    return (
        f"{counts.rows_read} rows read = {counts.counted} counted + {counts.not_counted} not counted ({where})"
        f" + {counts.other_periods} other periods + {counts.rejected} rejected"
    )


def _log_period(summary: PeriodSummary, log_format: LogFormat) -> None:
    counts = summary.counts
    written = bool(summary.outputs)
    if log_format is LogFormat.json:
        record = {
            "event": "period_written" if written else "period_checked",
            "period": summary.period,
            "rule_set": summary.rule_set,
            "counts": counts.__dict__,
            "reconciles": counts.reconciles(),
            "players": summary.players,
            "warnings": list(summary.warnings),
            "outputs": summary.outputs,
        }
        print(json.dumps(record), file=sys.stderr)
        return
    players = ", ".join(f"{n} {status}" for status, n in summary.players.items()) or "no players"
    print(
        f"{summary.period} ({summary.rule_set}): {_reconciliation(counts, written)}; players: {players}",
        file=sys.stderr,
    )
    for warning in summary.warnings:
        print(f"  warning: {warning}", file=sys.stderr)
    if written:
        print(f"  written: {os.path.dirname(summary.outputs['ratings'])}", file=sys.stderr)


def _log_validation(report: ValidationReport, log_format: LogFormat) -> int:
    """Print a validation report (rejected rows on stdout, counts on stderr); the exit code."""
    rejected = report.rejected.height
    code = 65 if rejected else 0
    for row in report.rejected.iter_rows(named=True):
        if log_format is LogFormat.json:
            print(json.dumps({"event": "rejected", **{k: row[k] for k in REJECTED_FIELDS}}))
        else:
            where = ", ".join(
                part
                for part in (
                    str(row[c.SOURCE_FILE]),
                    f"row {row[c.SOURCE_ROW]}",
                    f"column {row[c.COLUMN]}" if row[c.COLUMN] else "",
                )
                if part
            )
            print(f"{where}: {row[c.REASON]}")
    for summary in report.periods:
        _log_period(summary, log_format)
    usable = sum(report.usable_by_period.values())
    if log_format is LogFormat.json:
        record = {
            "event": "validated",
            "rows_read": report.rows_read,
            "rejected": rejected,
            "usable_by_period": report.usable_by_period,
            "warnings": list(report.warnings),
            "exit_code": code,
        }
        print(json.dumps(record), file=sys.stderr)
        return code
    if not report.periods:
        by_period = ", ".join(f"{period}: {n}" for period, n in report.usable_by_period.items())
        print(
            f"{report.rows_read} rows read = {usable} usable ({by_period or 'none'}) + {rejected} rejected",
            file=sys.stderr,
        )
        for warning in report.warnings:
            print(f"  warning: {warning}", file=sys.stderr)
    verdict = f"{rejected} row(s) rejected (listed on stdout)" if rejected else "no row rejected"
    print(f"elo-batch: {verdict}; nothing was written", file=sys.stderr)
    return code


REJECTED_FIELDS = (c.PERIOD, c.SOURCE_FILE, c.SOURCE_ROW, c.COLUMN, c.VALUE, c.REASON)


class _Terminated(BaseException):
    """SIGTERM (a scheduler's timeout) turned into an exception, so that staged outputs are cleaned up."""


def _on_sigterm(signum: int, frame: object) -> NoReturn:
    raise _Terminated


def _guard(work: Callable[[], int], log_format: LogFormat = LogFormat.text) -> None:
    """Run ``work``; turn errors into a message on stderr and the contract's exit code."""
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        code = work()
    except EloBatchError as exc:
        _fail(exc, log_format)
    except (KeyboardInterrupt, _Terminated) as exc:
        name = "interrupted" if isinstance(exc, KeyboardInterrupt) else "terminated"
        print(f"elo-batch: {name}; outputs of unfinished periods were not changed", file=sys.stderr)
        raise typer.Exit(130 if isinstance(exc, KeyboardInterrupt) else 143) from None
    except BrokenPipeError:  # stdout closed early (`elo-batch validate ... | head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(141) from None
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
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if code:
        raise typer.Exit(code)


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
            "value": exc.value,
        }
        print(json.dumps(record, default=str), file=sys.stderr)
    else:
        print(f"elo-batch: error: {exc}", file=sys.stderr)
    raise typer.Exit(exc.exit_code)


if __name__ == "__main__":  # pragma: no cover
    app()
