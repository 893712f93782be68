"""The ``elo-batch`` command line: parse options into a config, call the runner, map errors to exit codes.

No rating arithmetic here. This is the one place where errors become exit codes and text on stderr.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from polars.exceptions import PanicException
from typer.exceptions import TyperException

from elo_batch import __version__
from elo_batch import columns as c
from elo_batch.cli.calcview import game_json, render_game, render_tournament, tournament_json
from elo_batch.cli.chart import write_chart
from elo_batch.cli.progress import ProgressBar
from elo_batch.config import CHUNK_ROWS, RunConfig, parse_periods
from elo_batch.engine.calculator import DEFAULT_K, parse_results, parse_score, rate_game, rate_tournament
from elo_batch.engine.period import Counts
from elo_batch.errors import EloBatchError, InternalError, UsageError
from elo_batch.formats.trf import read_trf
from elo_batch.inputs.gamesfile import write_games
from elo_batch.inputs.readers import check_encoding, decode_text, unreadable
from elo_batch.outputs.outlock import DEFAULT_TIMEOUT
from elo_batch.rules.sets import RuleSet
from elo_batch.runner import PeriodSummary, ValidationReport, run, validate
from elo_batch.sanity import mostly_rejected

if TYPE_CHECKING:
    from elo_batch.spark._backend import SparkEngine

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


class CsvFormulasChoice(StrEnum):
    escape = "escape"
    keep = "keep"


class TableFormatChoice(StrEnum):
    parquet = "parquet"
    delta = "delta"


class ListChoice(StrEnum):
    standard = "standard"
    rapid = "rapid"
    blitz = "blitz"


class PeriodByChoice(StrEnum):
    date = "date"
    event = "event"


class EngineChoice(StrEnum):
    local = "local"
    spark = "spark"


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
RatingsOpt = Annotated[
    str | None,
    typer.Option(
        help="The rating list in force (CSV or Parquet), or a ratings table elo-batch wrote (--ratings-period)."
    ),
]
RatingsPeriodOpt = Annotated[
    str | None,
    typer.Option(
        metavar="YYYY-MM",
        help="Take the list from this period of the ratings table --ratings (OUT/ratings: a Delta table, or hive "
        "folders); for a Delta table the default is the month before --period.",
    ),
]
RulesOpt = Annotated[Rules, typer.Option(help="fide: FIDE regulations in force for the period; elo: classic Elo.")]
RuleSetOpt = Annotated[
    str | None, typer.Option(help="Force a rule set: fide-2022-01, fide-2024-03, fide-2025-10 or elo.")
]
BandsOpt = Annotated[
    str | None,
    typer.Option(metavar="FILE", help="Band table (columns band, min_rating) for the new list's band column."),
]
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
EventsOpt = Annotated[
    str | None, typer.Option(help="Events file (CSV or Parquet): one row per event_id with its attributes.")
]
PeriodByOpt = Annotated[
    PeriodByChoice,
    typer.Option(
        help="date: a game's period, else its date, decides its month; event: an event is rated whole, in "
        "its period, else by the closing date (B.02 7.1.3), with the ratings of its start."
    ),
]
LogFormatOpt = Annotated[LogFormat, typer.Option(help="Summary on stderr as text or JSON lines.")]
CsvFormulasOpt = Annotated[
    CsvFormulasChoice,
    typer.Option(
        "--csv-formulas",
        help="CSV output: escape (a quote before text cells a spreadsheet would run as formulas: = + - @) "
        "or keep them as they are.",
    ),
]
ChunkRowsOpt = Annotated[
    int,
    typer.Option(
        min=1,
        help="Game inputs (Parquet) of more rows than this are streamed from their files in chunks of at most "
        "this many rows instead of being read into memory.",
    ),
]


@app.command("run")
def run_command(
    games: GamesArg,
    period: Annotated[str, typer.Option(help="Month of play YYYY-MM, or a range YYYY-MM..YYYY-MM.")],
    ratings: RatingsOpt = None,
    out: Annotated[str, typer.Option(help="Output folder (hive partitions per period).")] = "out",
    format: Annotated[FormatChoice, typer.Option("--format", help="Output file type.")] = FormatChoice.parquet,
    table_format: Annotated[
        TableFormatChoice,
        typer.Option(help="parquet: hive folders per period; delta: Delta Lake tables (needs elo-batch[delta])."),
    ] = TableFormatChoice.parquet,
    ratings_period: RatingsPeriodOpt = None,
    rules: RulesOpt = Rules.fide,
    rule_set: RuleSetOpt = None,
    list_kind: ListOpt = ListChoice.standard,
    expected: ExpectedOpt = None,
    cap_400: CapOpt = CapChoice.auto,
    k: KOpt = None,
    no_700_rule: No700Opt = False,
    rounding: RoundingOpt = None,
    events: EventsOpt = None,
    period_by: PeriodByOpt = PeriodByChoice.date,
    strict: Annotated[bool, typer.Option(help="Fail (exit 65) when any row is rejected; write nothing.")] = False,
    max_rejected: Annotated[
        str | None,
        typer.Option(
            metavar="N|P%",
            help="Fail (exit 65), writing nothing, when more than N rows, or more than P% of the rows of the "
            "periods rated, are rejected.",
        ),
    ] = None,
    encoding: EncodingOpt = None,
    log_format: LogFormatOpt = LogFormat.text,
    duckdb: Annotated[
        str | None,
        typer.Option(help="Also load each period into this DuckDB file (tables ratings, audit, rejected)."),
    ] = None,
    chunk_rows: ChunkRowsOpt = CHUNK_ROWS,
    csv_formulas: CsvFormulasOpt = CsvFormulasChoice.escape,
    bands: BandsOpt = None,
    lock_timeout: Annotated[
        float,
        typer.Option(
            min=0,
            help="Seconds to wait while another run holds the lock of --out (0: do not wait); then exit 73.",
        ),
    ] = DEFAULT_TIMEOUT,
    engine: Annotated[
        EngineChoice,
        typer.Option(help="local: rate here; spark: read and rate on Spark (pip install 'elo-batch[spark]')."),
    ] = EngineChoice.local,
    spark_master: Annotated[
        str | None,
        typer.Option(help="With --engine spark: the Spark master (local[2], spark://host:7077, yarn)."),
    ] = None,
) -> None:
    """Rate the games of one period (or a range of periods) and write the new rating list and audit."""

    def work() -> int:
        check_encoding(encoding)
        if spark_master is not None and engine is not EngineChoice.spark:
            raise UsageError("--spark-master is an option of the Spark engine", hint="add --engine spark.")
        if engine is EngineChoice.spark and chunk_rows != CHUNK_ROWS:
            raise UsageError(
                "--chunk-rows does not apply to the Spark engine: Spark's partitions are the chunks",
                hint="leave --chunk-rows out with --engine spark.",
            )
        config = _config(
            period, rules, rule_set, list_kind, expected, cap_400, k, no_700_rule, rounding, strict, chunk_rows,
            max_rejected=max_rejected, period_by=period_by, bands=bands,
        )  # fmt: skip
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
                duckdb_path=duckdb,
                csv_formulas=csv_formulas.value,  # type: ignore[arg-type]
                lock_timeout=lock_timeout,
                on_lock_wait=lambda holder: _log_lock_wait(out, holder, lock_timeout, log_format),
                events_path=events,
                table_format=table_format.value,
                ratings_period=ratings_period,
                engine=_spark_engine(spark_master) if engine is EngineChoice.spark else None,
            )
        return 0

    _guard(work, log_format)


def _spark_engine(master: str | None) -> SparkEngine:
    from elo_batch.spark import require_spark

    require_spark()  # before the lock and the inputs: a clear error when pyspark is missing
    from elo_batch.spark._backend import SparkEngine

    return SparkEngine(master)


@app.command("validate")
def validate_command(
    games: GamesArg,
    period: Annotated[
        str | None,
        typer.Option(help="Rate these months in memory too (YYYY-MM or a range); default: check every row."),
    ] = None,
    ratings: RatingsOpt = None,
    ratings_period: RatingsPeriodOpt = None,
    rules: RulesOpt = Rules.fide,
    rule_set: RuleSetOpt = None,
    list_kind: ListOpt = ListChoice.standard,
    expected: ExpectedOpt = None,
    cap_400: CapOpt = CapChoice.auto,
    k: KOpt = None,
    no_700_rule: No700Opt = False,
    rounding: RoundingOpt = None,
    events: EventsOpt = None,
    period_by: PeriodByOpt = PeriodByChoice.date,
    encoding: EncodingOpt = None,
    log_format: LogFormatOpt = LogFormat.text,
    chunk_rows: ChunkRowsOpt = CHUNK_ROWS,
    bands: BandsOpt = None,
) -> None:
    """Check the inputs as `run` would, write nothing; exit 65 when any row would be rejected.

    Rejected rows go to stdout (one line each), the reconciliation to stderr.
    """

    def work() -> int:
        check_encoding(encoding)
        config = _config(
            period, rules, rule_set, list_kind, expected, cap_400, k, no_700_rule, rounding, False, chunk_rows,
            period_by=period_by, bands=bands,
        )  # fmt: skip
        with ProgressBar(enabled=log_format is LogFormat.text) as bar:
            report = validate(
                games,
                config=config,
                ratings_path=ratings,
                encoding=encoding,
                on_progress=bar,
                ratings_period=ratings_period,
                events_path=events,
            )
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
    chunk_rows: int = CHUNK_ROWS,
    *,
    max_rejected: int | str | None = None,
    period_by: PeriodByChoice = PeriodByChoice.date,
    bands: str | None = None,
) -> RunConfig:
    return RunConfig.from_options(
        period,
        rules=rules.value,
        rule_set=rule_set,
        list_kind=list_kind.value,
        expected=expected.value if expected else None,
        cap_400=cap_400.value,
        k=k,
        rule_700=False if no_700_rule else None,
        rounding=rounding.value if rounding else None,
        strict=strict,
        chunk_rows=chunk_rows,
        max_rejected=max_rejected,
        period_by=period_by.value,
        bands=bands,
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
            "bands": summary.bands,
            "warnings": list(summary.warnings),
            "outputs": summary.outputs,
        }
        print(json.dumps(record), file=sys.stderr)
        return
    players = ", ".join(f"{n} {status}" for status, n in summary.players.items()) or "no players"
    bands = f"; bands: {summary.bands['up']} up, {summary.bands['down']} down" if summary.players else ""
    print(
        f"{summary.period} ({summary.rule_set}): {_reconciliation(counts, written)}; players: {players}{bands}",
        file=sys.stderr,
    )
    for warning in summary.warnings:
        print(f"  warning: {warning}", file=sys.stderr)
    if written:
        print(f"  written: {os.path.dirname(summary.outputs['ratings'])}", file=sys.stderr)
        _log_rejected(summary)


def _log_rejected(summary: PeriodSummary) -> None:
    """Where a period's rejected rows are; loudly when they are most of its rows."""
    counts = summary.counts
    if not counts.rejected:
        return
    where = summary.outputs.get("rejected", "the rejected table")
    if mostly_rejected(counts):
        rows = counts.counted + counts.not_counted + counts.rejected
        print(
            f"elo-batch: WARNING: {summary.period}: {counts.rejected} of {rows} rows were rejected; "
            f"the list is built from the rest. Rejected rows: {where}",
            file=sys.stderr,
        )
    else:
        print(f"  rejected: {counts.rejected} row(s), in {where}", file=sys.stderr)


def _log_lock_wait(out: str, holder: str, timeout: float, log_format: LogFormat) -> None:
    if log_format is LogFormat.json:
        print(json.dumps({"event": "lock_wait", "out": out, "holder": holder, "timeout_s": timeout}), file=sys.stderr)
        return
    print(f"elo-batch: waiting up to {timeout:g} s for the lock of {out}: held by {holder}", file=sys.stderr)


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


class _Stop:
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


def _guard(work: Callable[[], int | None], log_format: LogFormat = LogFormat.text) -> None:
    """Run ``work``; turn errors into a message on stderr and the contract's exit code."""
    previous: dict[int, object] = {}
    stop = _Stop()
    if threading.current_thread() is threading.main_thread():
        previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}
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
    except (Exception, PanicException) as exc:  # a fault of elo-batch (a polars panic is a BaseException)
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
        for signum, handler in previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
    if code:
        raise typer.Exit(code)


#: Options whose flag is not ``--`` plus the keyword with dashes (library messages name keywords).
FLAGS = {"list_kind": "--list"}


def _fail(exc: EloBatchError, log_format: LogFormat) -> NoReturn:
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


# --- calculators: one game, one player's tournament ---------------------------------------------

CalcPeriodOption = Annotated[
    str | None, typer.Option(help="Month of play YYYY-MM whose rules apply (default: this month).", show_default=False)
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")]


def _calculator_rules(
    period: str | None,
    rules: Rules,
    rule_set: str | None,
    expected: ExpectedChoice | None,
    cap_400: CapChoice,
    rounding: RoundingChoice | None,
    rule_700: bool | None = None,
) -> RuleSet:
    """The rule set of a calculator: the rules in force for ``period`` (default: this month), with overrides."""
    month = period if period is not None else dt.date.today().strftime("%Y-%m")
    config = RunConfig.from_options(
        month,
        rules=rules.value,
        rule_set=rule_set,
        expected=expected.value if expected else None,
        cap_400=cap_400.value,
        rule_700=rule_700,
        rounding=rounding.value if rounding else None,
    )
    if len(config.periods) != 1:
        raise UsageError(f"{month!r} is a range of periods", column="--period", hint="give one month, YYYY-MM.")
    return config.rules_for(config.periods[0])


def _calculator_k(k: int | None, rules: RuleSet) -> int:
    if k is not None:
        return k
    return rules.k_fixed if rules.k_rule == "fixed" and rules.k_fixed else DEFAULT_K


@app.command("game")
def game_command(
    rating_a: Annotated[int, typer.Argument(help="Player A's rating (the list in force).", show_default=False)],
    rating_b: Annotated[int, typer.Argument(help="Player B's rating.", show_default=False)],
    result: Annotated[
        str | None, typer.Option(help="A's score: 1, 0.5 or 0 (omit to see only A's win/draw/loss table).")
    ] = None,
    k: Annotated[
        int | None, typer.Option("--k", min=1, max=100, help="A's K (also B's unless --k-b); default 20.")
    ] = None,
    k_b: Annotated[int | None, typer.Option("--k-b", min=1, max=100, help="B's K (default: A's).")] = None,
    rules: RulesOpt = Rules.fide,
    rule_set: RuleSetOpt = None,
    period: CalcPeriodOption = None,
    expected: ExpectedOpt = None,
    cap_400: CapOpt = CapChoice.auto,
    rounding: RoundingOpt = None,
    as_json: JsonOption = False,
) -> None:
    """One game: both players' expected score, change and new rating, and A's change for a win, draw or loss."""

    def work() -> None:
        rule_set_used = _calculator_rules(period, rules, rule_set, expected, cap_400, rounding)
        score = None
        if result is not None:
            try:
                score = parse_score(result)
            except ValueError:
                raise UsageError(
                    f"{result!r} is not a result for player A", column="--result", hint="use 1, 0.5 or 0."
                ) from None
            if score is None:
                raise UsageError("a forfeit is not rated (FIDE B.02 5.1)", column="--result", hint="use 1, 0.5 or 0.")
        k_a = _calculator_k(k, rule_set_used)
        answer = rate_game(rating_a, rating_b, score, rules=rule_set_used, k_a=k_a, k_b=k_b or k_a)
        typer.echo(json.dumps(game_json(answer), indent=2) if as_json else render_game(answer))

    _guard(work)


@app.command("tournament")
def tournament_command(
    rating: Annotated[int, typer.Option(help="The player's rating before the event.", show_default=False)],
    k: Annotated[int | None, typer.Option("--k", min=1, max=100, help="The player's K (default 20).")] = None,
    results: Annotated[
        str | None,
        typer.Option(help="File of lines 'opponent_rating | result' (default: read them from standard input)."),
    ] = None,
    rules: RulesOpt = Rules.fide,
    rule_set: RuleSetOpt = None,
    period: CalcPeriodOption = None,
    expected: ExpectedOpt = None,
    cap_400: CapOpt = CapChoice.auto,
    no_700_rule: Annotated[bool, typer.Option("--no-700-rule", help="Do not reduce K when K x n > 700.")] = False,
    rounding: RoundingOpt = None,
    as_json: JsonOption = False,
) -> None:
    """One player's event: each game's K x (score - expected), their sum rounded once, performance rating."""

    def work() -> None:
        rule_set_used = _calculator_rules(
            period, rules, rule_set, expected, cap_400, rounding, False if no_700_rule else None
        )
        if results is None:
            if sys.stdin.isatty():
                raise UsageError(
                    "no games given",
                    hint="pipe lines 'opponent_rating | result' into the command, or name a file with --results.",
                )
            source, data = "<stdin>", sys.stdin.buffer.read()
        else:
            try:
                with open(results, "rb") as handle:
                    source, data = results, handle.read()
            except OSError as exc:
                raise unreadable(exc, results) from exc
        text, _ = decode_text(data, source)
        games = parse_results(text, source)
        answer = rate_tournament(rating, games, rules=rule_set_used, k=_calculator_k(k, rule_set_used))
        typer.echo(json.dumps(tournament_json(answer), indent=2) if as_json else render_tournament(answer))

    _guard(work)


# --- import: PGN and TRF files into a games table ---------------------------------------------

import_app = typer.Typer(
    name="import",
    help="Convert PGN or TRF files into a games file, or FIDE's list download into a rating list, for `elo-batch run`.",
    no_args_is_help=True,
)
app.add_typer(import_app)
ImportOut = Annotated[
    str,
    typer.Option(
        "-o", "--out", help="Games file to write: .parquet (default) or .csv, or an s3:// URI.", show_default=False
    ),
]


def _report(lines: list[str], out: str, rows: int) -> None:
    for line in lines:
        print(line, file=sys.stderr)
    print(f"  written: {out} ({rows} rows)", file=sys.stderr)


@import_app.command("pgn")
def import_pgn_command(
    files: Annotated[list[str], typer.Argument(help="PGN files or zip archives of PGN files.", show_default=False)],
    out: ImportOut,
    csv_formulas: CsvFormulasOpt = CsvFormulasChoice.escape,
) -> None:
    """PGN games: FideId tags as ids (names only without one, flagged), Elo tags as game ratings; forfeits marked."""

    def work() -> None:
        from elo_batch.formats.pgn import import_pgn  # python-chess: imported by this command only (0.05 s per start)

        report = import_pgn(files, out, csv_formulas=csv_formulas.value)  # type: ignore[arg-type]
        _report(report.lines(), out, report.games)

    _guard(work)


@import_app.command("trf")
def import_trf_command(
    file: Annotated[str, typer.Argument(help="A FIDE Tournament Report File (TRF-16).", show_default=False)],
    out: ImportOut,
    period: Annotated[
        str | None, typer.Option(help="YYYY-MM for games whose round has no date on line 132.", show_default=False)
    ] = None,
    csv_formulas: CsvFormulasOpt = CsvFormulasChoice.escape,
) -> None:
    """TRF player lines (001) as games, each once; forfeits marked, byes counted (they are not games)."""

    def work() -> None:
        month = None
        if period is not None:
            months = parse_periods(period)
            if len(months) != 1:
                raise UsageError(f"{period!r} is a range of periods", column="--period", hint="give one month.")
            month = months[0]
        games, report = read_trf(file, period=month)
        _report(report.lines(), write_games(games, out, csv_formulas=csv_formulas.value), games.height)  # type: ignore[arg-type]

    _guard(work)


@import_app.command("fide-list")
def import_fide_list_command(
    file: Annotated[str, typer.Argument(help="FIDE's list download: TXT or XML, or its zip.", show_default=False)],
    out: Annotated[
        str,
        typer.Option("-o", "--out", help="Rating list to write: .parquet or .csv (or s3://).", show_default=False),
    ],
    list_kind: Annotated[
        ListChoice | None,
        typer.Option("--list", help="Which rating of a combined list (default standard); a single list's own."),
    ] = None,
) -> None:
    """FIDE's rating list (TXT or XML, zipped or not) as a --ratings list; FIDE's flag (i: inactive) passes through."""

    def work() -> None:
        from elo_batch.formats.fidelist import read_fide_list

        table, report = read_fide_list(file, list_kind=list_kind.value if list_kind else None)
        print("\n".join(report.lines()), file=sys.stderr)
        print(f"  written: {write_games(table, out, name='list')} ({table.height} players)", file=sys.stderr)

    _guard(work)


# --- chart: a player's rating over the periods of an output folder ------------------------------


@app.command("chart")
def chart_command(
    out_dir: Annotated[str, typer.Argument(help="Output folder (or s3:// prefix) of `elo-batch run`.")],
    player: Annotated[str, typer.Option(help="The player_id to draw.", show_default=False)],
    output: Annotated[
        str | None, typer.Option("-o", "--output", help="PNG to write (default: rating-PLAYER.png).")
    ] = None,
) -> None:
    """A player's rating list by list, as a PNG, with each period's change annotated."""

    def work() -> None:
        png = output or f"rating-{re.sub(r'[^A-Za-z0-9_.-]+', '_', player)}.png"
        history, _ = write_chart(out_dir, player, png)
        shown = [f"{d:%Y-%m}: {r:g}" if r is not None else f"{d:%Y-%m}: unrated" for d, r in
                 zip(history.lists, history.ratings, strict=True)]  # fmt: skip
        print(f"{player}: " + ", ".join(shown), file=sys.stderr)
        print(f"  written: {png}", file=sys.stderr)

    _guard(work)


def console(argv: list[str] | None = None) -> int:
    """The ``elo-batch`` console entry point: the typer app, with its usage errors (an unknown option,
    a bad choice, a missing ``--period``) reported as a JSON ``error`` event under ``--log-format json``.

    Returns:
        The exit status (2 for a usage error).
    """
    args = sys.argv[1:] if argv is None else argv
    if not os.environ.get("ELO_BATCH_DEBUG"):  # a polars panic is reported as an error, without Rust's backtrace
        os.environ["RUST_BACKTRACE"] = "0"
    try:
        status = app(args, standalone_mode=False)
    except typer.Abort:
        print("Aborted!", file=sys.stderr)
        return 1
    except TyperException as exc:  # typer's usage errors (its own click's UsageError and kin)
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
    return status if isinstance(status, int) else 0


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
