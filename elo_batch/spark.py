"""The public API for Spark frames of games (interface.md): :func:`elo_batch.rate_period`,
:func:`elo_batch.rate_periods` and :func:`elo_batch.write_period` under the names of ``elo_batch.spark``.

``elo_batch.spark.rate_period(games, period=..., ratings=...)`` takes a Spark DataFrame of games (either
shape of the contract) and gives the period's ``ratings``, ``audit`` and ``rejected`` as Spark frames,
with the same columns and values as :func:`elo_batch.rate_period`: it is that call (the one pipeline,
over the Spark engine of :mod:`elo_batch.sparkengine`), which refuses any other ``games``. Here only the
names; what the Spark engine does is :mod:`elo_batch.sparkengine`'s.

Needs ``pip install 'elo-batch[spark]'`` (pyspark 4, Java 17 or newer) on the driver, and elo-batch
installed on every executor: Python workers import it, they do not see the driver's ``sys.path``.
:class:`SparkEngine` is the engine of ``elo_batch.run(..., engine="spark")`` (``elo-batch run --engine
spark``): the games read and rated on Spark, the rest of the run as the local engine does it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Literal, Unpack

from elo_batch import api
from elo_batch.job.sources import Source, on_spark
from elo_batch.options import NOT_GIVEN, NotGiven, RunOptions
from elo_batch.sparkengine import SparkEngine, SparkPeriodResult, require_spark, spark_options

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from elo_batch.apiargs import Options


def rate_period(
    games: DataFrame,
    *,
    period: str,
    ratings: DataFrame | Source | NotGiven | None = NOT_GIVEN,
    options: RunOptions | None = None,
    **keywords: Unpack[Options],
) -> SparkPeriodResult:
    """Rate one month of play on Spark: :func:`elo_batch.rate_period` for a Spark frame of games.

    Args:
        games: The games, a Spark DataFrame in either shape of the contract (two-sided ``white_id,
            black_id, result, date`` or one-sided ``player_id, opponent_rating, result``). Its rows'
            ``source_file`` is the file Spark read each from (``input_file_name()``), else null, or
            ``source_name``; ``source_row`` the row's 1-based number in that file (or in the frame, in
            partition order).
        period: The month, ``YYYY-MM``.
        ratings: The list in force: a Spark DataFrame (collected to the driver: one row per player), a
            polars DataFrame or LazyFrame, a pyarrow Table, or paths; None: no list (ratings from the game
            rows); not passed: as None, but refused when no game row of the period carries a rating
            (:class:`~elo_batch.errors.NoRatingSourceError`), as :func:`elo_batch.rate_period` does.
        options: As for :func:`elo_batch.rate_period`.
        **keywords: As for :func:`elo_batch.rate_period`, but ``chunk_rows`` (Spark's partitions are the
            chunks); ``encoding`` applies to a rating list given as a CSV file; ``events`` may be a Spark
            DataFrame too (collected: one row per event).

    Returns:
        The period's new list, audit and rejected rows as Spark frames, its counts and warnings.

    Raises:
        TypeError: an unknown option, or ``games`` is not a Spark DataFrame.
        UsageError: a bad option value, ``period`` is not one month, or pyspark is not installed.
        InputMissingError: the rating list's file is missing.
        InputDataError: an input cannot be rated as given (as :func:`elo_batch.rate_period`).
    """
    chosen = _options("elo_batch.spark.rate_period", games, options=options, keywords=keywords)
    return api.rate_period(games, period=period, ratings=ratings, options=chosen)


def rate_periods(
    games: DataFrame,
    *,
    periods: str,
    ratings: DataFrame | Source | NotGiven | None = NOT_GIVEN,
    options: RunOptions | None = None,
    **keywords: Unpack[Options],
) -> Iterator[SparkPeriodResult]:
    """Rate a range of months on Spark, each from the list the previous month produced
    (:func:`elo_batch.rate_periods` for a Spark frame of games).

    The games are checked by this call (Spark jobs run here; errors are raised here); each month is
    rated when the iterator reaches it.

    Args:
        games: As :func:`rate_period`.
        periods: ``YYYY-MM..YYYY-MM`` (both ends included), or one month.
        ratings: As :func:`rate_period`: the list in force before the first month.
        options: As :func:`rate_period`.
        **keywords: As :func:`rate_period`.

    Returns:
        One :class:`SparkPeriodResult` per month, in order.

    Raises:
        EloBatchError: As :func:`rate_period`.
        TypeError: As :func:`rate_period`.
    """
    chosen = _options("elo_batch.spark.rate_periods", games, options=options, keywords=keywords)
    return api.rate_periods(games, periods=periods, ratings=ratings, options=chosen)


def write_period(
    result: SparkPeriodResult,
    out: str | os.PathLike[str],
    *,
    format: Literal["parquet", "csv"] = "parquet",
    csv_formulas: Literal["escape", "keep"] = "escape",
    table_format: Literal["parquet", "delta"] = "parquet",
) -> dict[str, str]:
    """Write a period rated on Spark as ``elo-batch run`` does (:func:`elo_batch.write_period` of its
    ``local``, the same options): the ratings and rejected rows from the driver, the audit streamed from
    Spark partition by partition, in input order, into the one atomic commit of the period (or the Delta
    tables' commits).

    Raises:
        As :func:`elo_batch.write_period`.
    """
    return api.write_period(result.local, out, format=format, csv_formulas=csv_formulas, table_format=table_format)


def _options(function: str, games: object, *, options: RunOptions | None, keywords: Mapping[str, object]) -> RunOptions:
    """The options of a call of ``function`` (see :func:`elo_batch.sparkengine.spark_options`), then
    ``games`` checked to be a Spark DataFrame.

    Raises:
        UsageError: as :func:`~elo_batch.sparkengine.spark_options`; pyspark or pandas not installed.
        TypeError: an unknown option; ``games`` not a Spark DataFrame.
    """
    chosen = spark_options(function, options, keywords)
    if not on_spark(games):
        require_spark()
        raise TypeError(f"games must be a Spark DataFrame, not {type(games).__name__} (use elo_batch.rate_period)")
    return chosen


__all__ = ["SparkEngine", "SparkPeriodResult", "rate_period", "rate_periods", "require_spark", "write_period"]
