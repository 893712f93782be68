"""The ``run`` and ``validate`` commands: their flags as the API's options, then :func:`elo_batch.run` or
:func:`elo_batch.validate`; the summaries logged as they come."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import typer

import elo_batch
from elo_batch.choices import EngineName, Format, TableFormat
from elo_batch.cli.guard import guard
from elo_batch.cli.logs import log_lock_wait, log_period, log_validation
from elo_batch.cli.options import (
    BandsOpt,
    CapOpt,
    ChunkRowsOpt,
    ColumnsOpt,
    CsvFormulasOpt,
    EncodingOpt,
    EventsOpt,
    ExpectedOpt,
    GamesArg,
    KOpt,
    ListColumnsOpt,
    ListOpt,
    LogFormat,
    LogFormatOpt,
    No700Opt,
    PeriodByOpt,
    RatingsOpt,
    RatingsPeriodOpt,
    RoundingOpt,
    RuleSetOpt,
    RulesOpt,
)
from elo_batch.cli.progress import ProgressBar
from elo_batch.config import CHUNK_ROWS
from elo_batch.errors import UsageError, option
from elo_batch.options import FIELDS, NOT_GIVEN, NotGiven, RunOptions
from elo_batch.outputs.outlock import DEFAULT_TIMEOUT


def run_command(
    ctx: typer.Context,
    games: GamesArg,
    period: Annotated[str, typer.Option(help="Month of play YYYY-MM, or a range YYYY-MM..YYYY-MM.")],
    ratings: RatingsOpt = None,
    out: Annotated[str, typer.Option(help="Output folder (hive partitions per period).")] = "out",
    format: Annotated[Format, typer.Option("--format", help="Output file type.")] = "parquet",
    table_format: Annotated[
        TableFormat,
        typer.Option(help="parquet: hive folders per period; delta: Delta Lake tables (needs elo-batch\\[delta])."),
    ] = "parquet",
    ratings_period: RatingsPeriodOpt = None,
    rules: RulesOpt = "fide",
    rule_set: RuleSetOpt = None,
    list_kind: ListOpt = "standard",
    expected: ExpectedOpt = None,
    cap_400: CapOpt = "auto",
    k: KOpt = None,
    no_700_rule: No700Opt = False,
    rounding: RoundingOpt = None,
    events: EventsOpt = None,
    period_by: PeriodByOpt = "date",
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
    columns: ColumnsOpt = None,
    list_columns: ListColumnsOpt = None,
    log_format: LogFormatOpt = LogFormat.text,
    duckdb: Annotated[
        str | None,
        typer.Option(help="Also load each period into this DuckDB file (tables ratings, audit, rejected)."),
    ] = None,
    chunk_rows: ChunkRowsOpt = CHUNK_ROWS,
    csv_formulas: CsvFormulasOpt = "escape",
    bands: BandsOpt = None,
    lock_timeout: Annotated[
        float,
        typer.Option(
            min=0,
            help="Seconds to wait while another run holds the lock of --out (0: do not wait); then exit 73.",
        ),
    ] = DEFAULT_TIMEOUT,
    engine: Annotated[
        EngineName,
        typer.Option(help="local: rate here; spark: read and rate the games on Spark (needs elo-batch[spark])."),
    ] = "local",
    spark_master: Annotated[
        str | None,
        typer.Option(help="With --engine spark: the Spark master (local[2], spark://host:7077, yarn)."),
    ] = None,
) -> None:
    """Rate the games of one period (or a range of periods) and write the new rating list and audit."""

    def work() -> int:
        options = run_options(ctx.params)
        with ProgressBar(enabled=log_format is LogFormat.text) as bar:
            elo_batch.run(
                games,
                period=period,
                out=out,
                ratings=ratings_arg(ratings),
                format=format,
                table_format=table_format,
                csv_formulas=csv_formulas,
                duckdb=duckdb,
                lock_timeout=lock_timeout,
                on_period=lambda summary: log_period(summary, log_format),
                on_progress=bar,
                on_lock_wait=lambda holder: log_lock_wait(out, holder, lock_timeout, log_format=log_format),
                engine=engine,
                spark_master=spark_master,
                options=options,
            )
        return 0

    guard(work, log_format)


def validate_command(
    ctx: typer.Context,
    games: GamesArg,
    period: Annotated[
        str | None,
        typer.Option(help="Rate these months in memory too (YYYY-MM or a range); default: check every row."),
    ] = None,
    ratings: RatingsOpt = None,
    ratings_period: RatingsPeriodOpt = None,
    rules: RulesOpt = "fide",
    rule_set: RuleSetOpt = None,
    list_kind: ListOpt = "standard",
    expected: ExpectedOpt = None,
    cap_400: CapOpt = "auto",
    k: KOpt = None,
    no_700_rule: No700Opt = False,
    rounding: RoundingOpt = None,
    events: EventsOpt = None,
    period_by: PeriodByOpt = "date",
    encoding: EncodingOpt = None,
    columns: ColumnsOpt = None,
    list_columns: ListColumnsOpt = None,
    log_format: LogFormatOpt = LogFormat.text,
    chunk_rows: ChunkRowsOpt = CHUNK_ROWS,
    bands: BandsOpt = None,
) -> None:
    """Check the inputs as `run` would, write nothing; exit 65 when any row would be rejected.

    Rejected rows go to stdout (one line each), the reconciliation to stderr.
    """

    def work() -> int:
        with ProgressBar(enabled=log_format is LogFormat.text) as bar:
            report = elo_batch.validate(
                games, ratings=ratings_arg(ratings), period=period, on_progress=bar, options=run_options(ctx.params)
            )
        return log_validation(report, log_format)

    guard(work, log_format)


def ratings_arg(ratings: str | None) -> str | NotGiven | None:
    """``--ratings`` as the API's ``ratings``: not passed without the flag (the run then needs a rating on a
    game row), None for ``--ratings none`` (no list: a new rating pool; ``./none`` names a file so called)."""
    if ratings is None:
        return NOT_GIVEN
    return None if ratings == "none" else ratings


def run_options(flags: Mapping[str, Any]) -> RunOptions:
    """The options of a run from the flags of ``run`` or ``validate`` (the one mapping of both): each
    flag that is an option of :class:`~elo_batch.options.RunOptions` under its name, ``--columns`` and
    ``--list-columns`` parsed (:func:`parse_columns`), and ``--no-700-rule`` as ``rule_700=False``
    (without it, the rule set decides).

    Raises:
        UsageError: a bad value (as :class:`~elo_batch.options.RunOptions`, :func:`parse_columns`).
    """
    chosen = {name: value for name, value in flags.items() if name in FIELDS}
    for name in ("columns", "list_columns"):
        if chosen.get(name) is not None:
            chosen[name] = parse_columns(chosen[name], name)
    return RunOptions(**chosen, rule_700=False if flags.get("no_700_rule") else None)


def parse_columns(text: str, name: str) -> dict[str, str]:
    """``--columns`` (or ``--list-columns``, ``name``) as the API's mapping: ``CANONICAL=THEIRS`` pairs,
    separated by commas, each name trimmed.

    Raises:
        UsageError: a pair without ``=`` or with an empty side, or one canonical name given twice.

    >>> parse_columns("white_id=WhitePlayer, date = Date", "columns")
    {'white_id': 'WhitePlayer', 'date': 'Date'}
    """
    pairs = [part.partition("=") for part in text.split(",")]
    if any(not sep or not key.strip() or not value.strip() for key, sep, value in pairs):
        raise UsageError(
            f"{text!r} is not a list of CANONICAL=THEIRS pairs",
            option=name,
            hint=f"write {option(name)} white_id=WhitePlayer,black_id=BlackPlayer (one pair per column).",
        )
    keys = [key.strip() for key, _, _ in pairs]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    if twice:
        raise UsageError(f"{', '.join(twice)} mapped twice", option=name, hint="map each column once.")
    return {key.strip(): value.strip() for key, _, value in pairs}
