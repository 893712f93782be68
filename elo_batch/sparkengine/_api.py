"""What the API's calls on a Spark frame of games need of Spark: its refusals, its frames, its result.

The public API (:func:`elo_batch.rate_period`, :func:`elo_batch.rate_periods`) runs the one pipeline
(:mod:`elo_batch.job.pipeline`: the same options, checks, warnings and guards) over
:class:`~elo_batch.sparkengine.SparkEngine` for a Spark frame of games. What is Spark's own is here:
``chunk_rows`` refused (Spark's partitions are the chunks), pyspark (and pandas) required, a list or events
given as Spark frames collected to the driver, and each rated period handed out with its tables as Spark
frames (:class:`SparkPeriodResult`). Library code: raises :mod:`elo_batch.errors`, never prints or exits.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import polars as pl

from elo_batch.config import CHUNK_ROWS
from elo_batch.engine.period import Counts
from elo_batch.errors import UsageError, option
from elo_batch.job import rated
from elo_batch.job.sources import on_spark
from elo_batch.options import FIELDS, RunOptions
from elo_batch.rules.sets import RuleSet
from elo_batch.sparkengine import _arrow
from elo_batch.sparkengine._check import SparkGames

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@dataclass(frozen=True, eq=False)
class SparkPeriodResult:
    """One period rated on Spark: the tables ``elo-batch run`` writes for it, as Spark frames.

    Attributes:
        period: Month of play, ``YYYY-MM``.
        rule_set: The rules applied.
        ratings: The new rating list, one row per player (made on the driver: one row per player).
        audit: One row per game and side considered, sorted in input order (a lazy plan: Spark sorts
            when it is written or collected).
        rejected: Input rows that could not be used (``source_file``, ``source_row``, column, reason).
        counts: The reconciliation: ``rows_read == counted + not_counted + other_periods + rejected``.
        warnings: What the run warns about for this period.
        audit_rows: Rows of ``audit``.
        local: The same period as :func:`elo_batch.rate_period` returns it (``ratings`` and ``rejected``
            as polars frames, ``audit`` a LazyFrame read from Spark batch by batch): what
            :func:`elo_batch.spark.write_period` and ``elo_batch.write_period`` write.
    """

    period: str
    rule_set: RuleSet
    ratings: DataFrame
    audit: DataFrame
    rejected: DataFrame
    counts: Counts
    warnings: tuple[str, ...]
    audit_rows: int
    local: rated.PeriodResult
    _games: SparkGames = field(repr=False)

    def unpersist(self) -> None:
        """Release the games' checked rows that Spark keeps cached for the run (``MEMORY_AND_DISK``):
        every period of a run shares them, and ``audit`` reads them (afterwards it reads the games again)."""
        self._games.unpersist()


def spark_options(function: str, options: RunOptions | None, keywords: Mapping[str, object]) -> RunOptions:
    """The options of a call (see :meth:`elo_batch.options.RunOptions.of`), refusing first what the Spark
    engine cannot do, naming the option.

    Raises:
        UsageError: ``chunk_rows`` (Spark's partitions are the chunks).
        TypeError: an unknown option.
    """
    if "chunk_rows" in keywords or (options is not None and options.chunk_rows != CHUNK_ROWS):
        raise UsageError(
            f"{option('chunk_rows')} does not apply to the Spark engine: Spark's partitions are the chunks",
            option="chunk_rows",
            hint="leave it out; repartition the games frame to change the chunks.",
        )
    return RunOptions.of(function, options, keywords, allowed=tuple(name for name in FIELDS if name != "chunk_rows"))


def require_spark() -> None:
    """Refuse to go on when pyspark (or the pandas its Arrow functions need) is not installed.

    Raises:
        UsageError: what is missing, and how to install it.
    """
    missing = [name for name in ("pyspark", "pandas") if importlib.util.find_spec(name) is None]
    if missing:
        raise UsageError(
            f"the Spark engine needs {' and '.join(missing)}, not installed here",
            hint="pip install 'elo-batch[spark]' (pyspark 4 and Java 17 or newer).",
        )


def on_driver(value: object) -> object:
    """``value`` as the driver reads it: a Spark frame (a rating list, an events table: one row per player
    or event) collected into a polars frame; anything else as it is."""
    return _arrow.from_spark(value) if on_spark(value) else value


def spark_result(local: rated.PeriodResult, games: SparkGames, audit: DataFrame) -> SparkPeriodResult:
    """``local``, a period the pipeline rated on Spark, with its tables as Spark frames: the new list and
    the rejected rows made from the driver's, ``audit`` the period's audit as a Spark plan."""
    spark = games.rows.sparkSession
    return SparkPeriodResult(
        local.period, local.rule_set, _to_spark(spark, local.ratings), audit, _to_spark(spark, local.rejected),
        local.counts, local.warnings, local.audit_rows, local, games,
    )  # fmt: skip


def _to_spark(spark: SparkSession, frame: pl.DataFrame) -> DataFrame:
    """A frame of the driver as a Spark frame of the same columns (categorical text as text)."""
    schema = _arrow.spark_schema(frame.schema)
    return spark.createDataFrame(_arrow.to_arrow(frame, _arrow.arrow_schema(schema)), schema=schema)
