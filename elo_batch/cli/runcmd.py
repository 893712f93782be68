"""The ``run`` and ``validate`` commands: their flags as the API's options, then :func:`elo_batch.run` or
:func:`elo_batch.validate`; the summaries logged as they come."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

import elo_batch
from elo_batch.cli.guard import guard
from elo_batch.cli.logs import log_lock_wait, log_period, log_validation
from elo_batch.cli.options import (
    BandsOpt,
    CapChoice,
    CapOpt,
    ChunkRowsOpt,
    CsvFormulasChoice,
    CsvFormulasOpt,
    EncodingOpt,
    EventsOpt,
    ExpectedChoice,
    ExpectedOpt,
    FormatChoice,
    GamesArg,
    KOpt,
    ListChoice,
    ListOpt,
    LogFormat,
    LogFormatOpt,
    No700Opt,
    PeriodByChoice,
    PeriodByOpt,
    RatingsOpt,
    RatingsPeriodOpt,
    RoundingChoice,
    RoundingOpt,
    Rules,
    RuleSetOpt,
    RulesOpt,
    TableFormatChoice,
)
from elo_batch.cli.progress import ProgressBar
from elo_batch.config import CHUNK_ROWS
from elo_batch.outputs.outlock import DEFAULT_TIMEOUT


class EngineChoice(StrEnum):
    local = "local"
    spark = "spark"


def run_command(
    games: GamesArg,
    period: Annotated[str, typer.Option(help="Month of play YYYY-MM, or a range YYYY-MM..YYYY-MM.")],
    ratings: RatingsOpt = None,
    out: Annotated[str, typer.Option(help="Output folder (hive partitions per period).")] = "out",
    format: Annotated[FormatChoice, typer.Option("--format", help="Output file type.")] = FormatChoice.parquet,
    table_format: Annotated[
        TableFormatChoice,
        typer.Option(help="parquet: hive folders per period; delta: Delta Lake tables (needs elo-batch\\[delta])."),
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
        typer.Option(help="local: rate here; spark: read and rate the games on Spark (needs elo-batch[spark])."),
    ] = EngineChoice.local,
    spark_master: Annotated[
        str | None,
        typer.Option(help="With --engine spark: the Spark master (local[2], spark://host:7077, yarn)."),
    ] = None,
) -> None:
    """Rate the games of one period (or a range of periods) and write the new rating list and audit."""

    def work() -> int:
        options = api_options(
            rule_set, list_kind, expected, cap_400, k, no_700_rule, rounding, period_by, bands,
            encoding, events, ratings_period, chunk_rows,
        )  # fmt: skip
        options["strict"], options["max_rejected"] = strict, max_rejected
        with ProgressBar(enabled=log_format is LogFormat.text) as bar:
            elo_batch.run(
                games,
                period=period,
                out=out,
                **ratings_arg(ratings),
                rules=rules.value,
                format=format.value,  # type: ignore[arg-type]
                table_format=table_format.value,  # type: ignore[arg-type]
                csv_formulas=csv_formulas.value,  # type: ignore[arg-type]
                duckdb=duckdb,
                lock_timeout=lock_timeout,
                on_period=lambda summary: log_period(summary, log_format),
                on_progress=bar,
                on_lock_wait=lambda holder: log_lock_wait(out, holder, lock_timeout, log_format),
                engine=engine.value,  # type: ignore[arg-type]
                spark_master=spark_master,
                **options,
            )
        return 0

    guard(work, log_format)


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
        options = api_options(
            rule_set, list_kind, expected, cap_400, k, no_700_rule, rounding, period_by, bands,
            encoding, events, ratings_period, chunk_rows,
        )  # fmt: skip
        with ProgressBar(enabled=log_format is LogFormat.text) as bar:
            report = elo_batch.validate(
                games,
                **ratings_arg(ratings),
                period=period,
                rules=rules.value,
                on_progress=bar,
                **options,
            )
        return log_validation(report, log_format)

    guard(work, log_format)


def ratings_arg(ratings: str | None) -> dict[str, str | None]:
    """``--ratings`` as the API's ``ratings``: not passed without the flag (the run then needs a rating on a
    game row), None for ``--ratings none`` (no list: a new rating pool; ``./none`` names a file so called)."""
    if ratings is None:
        return {}
    return {"ratings": None if ratings == "none" else ratings}


def api_options(
    rule_set: str | None,
    list_kind: ListChoice,
    expected: ExpectedChoice | None,
    cap_400: CapChoice,
    k: int | None,
    no_700_rule: bool,
    rounding: RoundingChoice | None,
    period_by: PeriodByChoice,
    bands: str | None,
    encoding: str | None,
    events: str | None,
    ratings_period: str | None,
    chunk_rows: int,
) -> elo_batch.Options:
    """The flags that ``run`` and ``validate`` share, as the API's options (one mapping for both)."""
    return {
        "rule_set": rule_set,
        "list_kind": list_kind.value,  # type: ignore[typeddict-item]
        "expected": expected.value if expected else None,  # type: ignore[typeddict-item]
        "cap_400": cap_400.value,  # type: ignore[typeddict-item]
        "k": k,
        "rule_700": False if no_700_rule else None,
        "rounding": rounding.value if rounding else None,  # type: ignore[typeddict-item]
        "period_by": period_by.value,  # type: ignore[typeddict-item]
        "bands": bands,
        "encoding": encoding,
        "events": events,
        "ratings_period": ratings_period,
        "chunk_rows": chunk_rows,
    }
