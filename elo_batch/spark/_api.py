"""The Spark engine's public functions: Spark frames in, rated periods out as Spark frames (and as polars).

The same options, rule sets, checks and kernels as :mod:`elo_batch.api`; only where the rows live and
who adds them up differ (see :mod:`elo_batch.spark._period`). Library code: raises
:mod:`elo_batch.errors`, never prints or exits.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Unpack

import polars as pl

from elo_batch import guards, rated, sanity, sources
from elo_batch.config import CHUNK_ROWS, RunConfig
from elo_batch.contract.tables import InputFile
from elo_batch.engine.period import Counts
from elo_batch.errors import UsageError, option
from elo_batch.inputs import tablelist
from elo_batch.inputs.bandsfile import load_bands
from elo_batch.inputs.eventsfile import load_events
from elo_batch.inputs.ratinglist import check_pending, load_rating_list
from elo_batch.inputs.readers import FrameInput
from elo_batch.options import FIELDS, NOT_GIVEN, NotGiven, RunOptions, given
from elo_batch.rules.bands import Bands
from elo_batch.rules.sets import RuleSet
from elo_batch.runinputs import check_strict, input_warnings, run_bands
from elo_batch.spark import _arrow, _events
from elo_batch.spark._check import SparkGames, alike_rows, check_games
from elo_batch.spark._period import rate_periods as rate_spark_periods

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from elo_batch.apiargs import Options
    from elo_batch.sources import Source


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
            :func:`write_period` and ``elo_batch.write_period`` write.
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
        options, keywords: As for :func:`elo_batch.rate_period`, but ``chunk_rows`` (Spark's partitions
            are the chunks); ``encoding`` applies to a rating list given as a CSV file; ``events`` may be
            a Spark DataFrame too (collected: one row per event).

    Returns:
        The period's new list, audit and rejected rows as Spark frames, its counts and warnings.

    Raises:
        TypeError: an unknown option, or ``games`` is not a Spark DataFrame.
        UsageError: a bad option value, ``period`` is not one month, or pyspark is not installed.
        InputMissingError: the rating list's file is missing.
        InputDataError: an input cannot be rated as given (as :func:`elo_batch.rate_period`).
    """
    chosen = _options("elo_batch.spark.rate_period", options, keywords)
    config = chosen.config(given(period, "period"))
    if len(config.periods) != 1:
        raise UsageError(
            f"{period!r} is a range of periods", option="period", hint="give one month YYYY-MM, or use rate_periods()."
        )
    return next(_rate(games, ratings, config, options=chosen))


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
        games, ratings, options, keywords: As :func:`rate_period`.
        periods: ``YYYY-MM..YYYY-MM`` (both ends included), or one month.

    Returns:
        One :class:`SparkPeriodResult` per month, in order.

    Raises:
        As :func:`rate_period`.
    """
    chosen = _options("elo_batch.spark.rate_periods", options, keywords)
    return _rate(games, ratings, chosen.config(given(periods, "periods"), name="periods"), options=chosen)


def write_period(
    result: SparkPeriodResult,
    out: str | os.PathLike[str],
    *,
    format: Literal["parquet", "csv"] = "parquet",
    csv_formulas: Literal["escape", "keep"] = "escape",
    table_format: Literal["parquet", "delta"] = "parquet",
) -> dict[str, str]:
    """Write a period rated on Spark as ``elo-batch run`` does (:func:`elo_batch.write_period`, the same
    options): the ratings and rejected rows from the driver, the audit streamed from Spark partition by
    partition, in input order, into the one atomic commit of the period (or the Delta tables' commits).

    Raises:
        As :func:`elo_batch.write_period`.
    """
    return rated.write(result.local, out, format=format, csv_formulas=csv_formulas, table_format=table_format)


def _options(function: str, options: RunOptions | None, keywords: Mapping[str, object]) -> RunOptions:
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


def _rate(
    games: DataFrame, ratings: DataFrame | Source | NotGiven | None, config: RunConfig, *, options: RunOptions
) -> Iterator[SparkPeriodResult]:
    """Check the list, the rule sets and the games now; rate the periods as the iterator is advanced."""
    require_spark()
    from pyspark.sql import DataFrame as SparkFrame

    if not isinstance(games, SparkFrame):
        raise TypeError(f"games must be a Spark DataFrame, not {type(games).__name__} (use elo_batch.rate_period)")
    started = dt.datetime.now(dt.UTC)
    encoding, source_name = options.encoding, options.source_name
    rule_sets = [config.rules_for(period) for period in config.periods]
    fractional = config.rounding == "none" or any(rules.rounding == "none" for rules in rule_sets)
    ratings_period = options.ratings_period
    tablelist.check(ratings, ratings_period, config.periods)
    rating_list, list_info = _load_list(ratings, fractional, encoding, config=config, ratings_period=ratings_period)
    events, events_info = _load_events(options.events, encoding)
    frame = options.bands_frame()
    bands = load_bands(frame if frame is not None else run_bands(config), encoding=encoding)
    checked = check_games(games, source_name=source_name, fractional=fractional)
    checked = _events.settle(checked, events, config.period_by, source=events_info)
    loaded = checked.games
    notes = input_warnings(loaded, rating_list, list_info) + sanity.input_notes(
        loaded, rating_list, list_info, config=config, alike=lambda periods: alike_rows(checked, periods)
    )
    check_strict(loaded, config)
    if rating_list is None and not sources.ratings_none(ratings):
        guards.check_rating_source(config.periods, lambda: checked.game_ratings_in(config.periods))
    inputs = rated.RunInputs(loaded.files, list_info, config, encoding, started)
    return _periods(games.sparkSession, checked, rating_list, config=config, notes=notes, inputs=inputs, bands=bands)


def _periods(
    spark: SparkSession,
    checked: SparkGames,
    rating_list: pl.DataFrame | None,
    *,
    config: RunConfig,
    notes: tuple[str, ...],
    inputs: rated.RunInputs,
    bands: Bands,
) -> Iterator[SparkPeriodResult]:
    for done in rate_spark_periods(checked, rating_list, config, bands=bands):
        result = done.result
        warnings = notes + result.warnings + sanity.period_notes(result, list_given=rating_list is not None)
        local = rated.PeriodResult(
            result.period, result.rule_set, result.ratings, result.audit, result.rejected, result.counts, warnings,
            result.audit_rows, inputs, result,
        )  # fmt: skip
        yield SparkPeriodResult(
            result.period,
            result.rule_set,
            _to_spark(spark, result.ratings),
            done.audit,
            _to_spark(spark, result.rejected),
            result.counts,
            warnings,
            result.audit_rows,
            local,
            checked,
        )


def _load_list(
    ratings: DataFrame | Source | NotGiven | None,
    fractional: bool,
    encoding: str | None,
    *,
    config: RunConfig,
    ratings_period: str | None,
) -> tuple[pl.DataFrame | None, InputFile | None]:
    """The list in force, read and checked on the driver as :func:`elo_batch.runinputs.load_inputs` reads it
    (a Spark frame is collected: one row per player; a ratings table's period with ``ratings_period``)."""
    if ratings is None or isinstance(ratings, NotGiven):
        return None, None
    source: Any
    if _is_spark(ratings):
        source = FrameInput(_arrow.from_spark(ratings), None, "ratings")  # type: ignore[arg-type]
    else:
        source = sources.list_source(ratings)  # type: ignore[arg-type]
    if isinstance(source, str) and tablelist.applies(source, ratings_period):
        rating_list, list_info = tablelist.load(
            source, ratings_period, config.periods, fractional_ratings=fractional, encoding=encoding
        )
    else:
        rating_list, list_info = load_rating_list(source, fractional_ratings=fractional, encoding=encoding)
    if list_info is not None:
        check_pending(rating_list, config.periods[0], list_info.path)
    return rating_list, list_info


def _load_events(events: object, encoding: str | None) -> tuple[pl.DataFrame | None, InputFile | None]:
    """The events file (or frame; a Spark frame is collected), read and checked on the driver."""
    if events is None:
        return None, None
    source: str | FrameInput | None
    if _is_spark(events):
        source = FrameInput(_arrow.from_spark(events), None, "events")  # type: ignore[arg-type]
    else:
        source = sources.events_source(events)
    assert source is not None
    return load_events(source, encoding=encoding)


def _is_spark(frame: object) -> bool:
    from pyspark.sql import DataFrame as SparkFrame

    return isinstance(frame, SparkFrame)


def _to_spark(spark: SparkSession, frame: pl.DataFrame) -> DataFrame:
    """A frame of the driver as a Spark frame of the same columns (categorical text as text)."""
    schema = _arrow.spark_schema(frame.schema)
    return spark.createDataFrame(_arrow.to_arrow(frame, _arrow.arrow_schema(schema)), schema=schema)
