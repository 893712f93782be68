"""A rated period as the API hands it out (:class:`PeriodResult`, the one public result: a period rated on
Spark holds one as its ``local``), what its manifest records about the run that rated it (:class:`RunInputs`),
and writing it as ``elo-batch run`` does (:func:`write`). No rating maths; prints nothing.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, get_args

import polars as pl

from elo_batch.choices import CsvFormulas, Format, TableFormat
from elo_batch.config import RunConfig
from elo_batch.contract.tables import InputFile
from elo_batch.errors import UsageError
from elo_batch.job import sanity
from elo_batch.job.sources import path_arg
from elo_batch.job.writing import Output, write_result
from elo_batch.outputs import delta
from elo_batch.outputs.writers import check_writable
from elo_batch.rules.sets import RuleSet
from elo_batch.storage import objectstore

if TYPE_CHECKING:  # the engine (numpy among its imports) is loaded once the inputs are read
    from elo_batch.engine.period import Counts


@dataclass(frozen=True, eq=False)
class PeriodResult:
    """One rated period: exactly the tables and counts ``elo-batch run`` writes for it.

    Attributes:
        period: Month of play, ``YYYY-MM``.
        rule_set: The rules applied (``rule_set.name``: ``fide-2025-10``, with overrides appended).
        ratings: The new rating list, one row per player, sorted by ``player_id``: the columns and
            values of ``ratings/period=.../part-0.parquet``; usable as ``ratings`` of the next period.
        audit: One row per game and side considered, in input order, as ``audit/`` holds it: a lazy plan
            (collect it, or sink it: it can be large).
        rejected: Input rows that could not be used, with ``source_file`` (a file, the games frame's
            ``source_name``, or null), ``source_row`` (1-based, in the file or frame), column and reason.
        counts: The reconciliation: ``rows_read == counted + not_counted + other_periods + rejected``.
        warnings: What the run warns about for this period (the inputs, then the rating).
        audit_rows: Rows of ``audit``.

    Types: ``player_id`` and ``opponent_id`` are Int64 when the games and the list all hold integer ids
    (Parquet files, frames), else String (a CSV file's text): join them to your own tables on that
    type. ``game_id`` is Int64 when every games input that has one holds integers. Ratings, changes
    and K are Int64 rating points (``rounding="none"``: Decimal with 2 places); ``score`` and
    ``expected_score`` Float64 points (a win 1.0); ``date`` a Date.
    """

    period: str
    rule_set: RuleSet
    ratings: pl.DataFrame
    audit: pl.LazyFrame
    rejected: pl.DataFrame
    counts: Counts
    warnings: tuple[str, ...]
    audit_rows: int
    _written: RunInputs = dataclasses.field(repr=False)


@dataclass(frozen=True)
class RunInputs:
    """What a period's manifest records about the run that rated it, beside the period's own tables and
    counts: the inputs read (games, list, events file), the run's config and encoding, when it started."""

    files: tuple[InputFile, ...]
    list_info: InputFile | None
    events_file: InputFile | None
    config: RunConfig
    encoding: str | None
    started: dt.datetime


def write(
    result: PeriodResult,
    out: str | os.PathLike[str],
    *,
    format: Format,
    csv_formulas: CsvFormulas,
    table_format: TableFormat,
) -> dict[str, str]:
    """Write ``result`` under ``out`` as :func:`elo_batch.write_period` describes (its options, checked here).

    Returns:
        Table name (and ``manifest``) -> written file (Delta: the table's folder).

    Raises:
        TypeError: ``out`` is not a path.
        UsageError: a bad ``format``, ``csv_formulas`` or ``table_format``; ``out`` is empty.
        OutputError: ``out`` cannot be written (the period's previous outputs are kept).
    """
    target = path_arg(out, "out")
    check_output(format, csv_formulas)
    delta.check_out(target, table_format, format)
    if objectstore.is_object_store(target):
        objectstore.check_available(target)
    check_writable(target)
    inputs = result._written
    return write_result(
        target,
        result,
        files=inputs.files,
        list_info=inputs.list_info,
        events_file=inputs.events_file,
        config=inputs.config,
        output=Output(format=format, table_format=table_format, csv_formulas=csv_formulas),
        encoding=inputs.encoding,
        started=inputs.started,
        warnings=result.warnings,
        stale_periods=sanity.later_periods(target, (result.period,)),
    )


def check_output(format: str, csv_formulas: str) -> None:
    """Refuse an output ``format`` other than parquet or csv, and ``csv_formulas`` other than escape or keep.

    Raises:
        UsageError: naming the option.
    """
    if format not in ("parquet", "csv"):
        raise UsageError(f"{format!r} is not an output format", option="format", hint="use parquet or csv.")
    if csv_formulas not in get_args(CsvFormulas):
        raise UsageError(
            f"{csv_formulas!r} is not a way to write formula-like cells",
            option="csv_formulas",
            hint="use escape or keep.",
        )
