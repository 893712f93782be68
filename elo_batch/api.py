"""The public Python API: frames or paths in, rated periods out, written as the CLI writes them.

Everything here goes through the same reading, checking, rating and writing code as ``elo-batch run``
(:mod:`elo_batch.job.runner`); a frame is read as a file of its columns would be. Library code: raises
:mod:`elo_batch.errors`, never prints or exits.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Unpack, overload

from elo_batch.apiargs import (
    Options,
    callback_arg,
    engine_of,
    run_options,
    run_sources,
    seconds_arg,
    spark_sources,
)
from elo_batch.config import RunConfig
from elo_batch.errors import UsageError
from elo_batch.job import pipeline, rated, runner
from elo_batch.job.rated import PeriodResult, RunInputs, check_output
from elo_batch.job.reading import Engine
from elo_batch.job.runner import PeriodSummary, Progress, ValidationReport
from elo_batch.job.sources import Frame, Source, on_spark, path_arg
from elo_batch.job.writing import Output
from elo_batch.options import NOT_GIVEN, NotGiven, RunOptions, given
from elo_batch.outputs import atomic, delta
from elo_batch.outputs.outlock import DEFAULT_TIMEOUT
from elo_batch.storage import objectstore

if TYPE_CHECKING:  # pyspark is imported only by a caller that holds a Spark frame (never here)
    from pyspark.sql import DataFrame as SparkFrame

    from elo_batch.sparkengine import SparkPeriodResult


def run(
    games: Source,
    *,
    period: str,
    out: str | os.PathLike[str],
    ratings: Source | NotGiven | None = NOT_GIVEN,
    format: Literal["parquet", "csv"] = "parquet",
    table_format: Literal["parquet", "delta"] = "parquet",
    csv_formulas: Literal["escape", "keep"] = "escape",
    duckdb: str | os.PathLike[str] | None = None,
    lock_timeout: float = DEFAULT_TIMEOUT,
    on_period: Callable[[PeriodSummary], None] | None = None,
    on_progress: Progress | None = None,
    on_lock_wait: Callable[[str], None] | None = None,
    engine: Literal["local", "spark"] = "local",
    spark_master: str | None = None,
    options: RunOptions | None = None,
    **keywords: Unpack[Options],
) -> list[PeriodSummary]:
    """The whole job of ``elo-batch run``: read, check, rate each period and write it, under ``out``'s lock.

    For a scheduler's task (Airflow, Dagster) as for the CLI, which calls it: ``out``'s lock is taken
    (waiting up to ``lock_timeout`` seconds for another writer) and a killed run's leftovers recovered
    before any input is read, so a list read from ``out`` (last month's) is a committed one; every
    input is read and checked, and the strict checks run, before anything is rated or written; then
    each period is rated from the list the previous one produced and written atomically. Where
    OpenLineage is configured (``OPENLINEAGE_CONFIG``, ``openlineage.yml``; ``elo-batch[lineage]``), the
    run emits its START and COMPLETE or FAIL events (docs/guides/lineage.md).

    Args:
        games: As :func:`rate_periods`.
        ratings: As :func:`rate_periods`: without ``ratings`` (not even None) and without a game-row
            rating in the periods, NoRatingSourceError before anything is written.
        period: A month ``YYYY-MM`` or a range ``YYYY-MM..YYYY-MM``.
        out: Output folder (created if missing), or an object-store URI (``s3://bucket/prefix``).
        format: As :func:`write_period`.
        table_format: As :func:`write_period`.
        csv_formulas: As :func:`write_period`.
        duckdb: Also load each period into this DuckDB file (tables ratings, audit, rejected),
            committed together with the partitions.
        lock_timeout: Seconds to wait while another writer holds the lock of ``out`` (0: do not wait).
        on_period: Called with each period's summary once it is written (for logs).
        on_progress: Called before each step with (what is being done, steps done, steps in all).
        on_lock_wait: Called with the holder's description when the lock of ``out`` is found held.
        engine: ``local`` (rate here) or ``spark``: read the game files and rate them on Spark
            (``pip install 'elo-batch[spark]'``; ``games`` as paths Spark can read, ``chunk_rows`` left
            out); the list, the events, the checks and the writing are the same either way, and so are
            the tables written.
        spark_master: With ``engine="spark"``, when no Spark session is active in this process: the
            master of the one started (``local[2]``, ``spark://host:7077``, ``yarn``); None: the
            environment's (``spark-submit``), else ``local[*]``.
        options: As :func:`rate_periods`.
        **keywords: As :func:`rate_periods` (``bands`` a path here).

    Returns:
        One summary per period, in order.

    Raises:
        EloBatchError: As :func:`rate_periods` and :func:`write_period`.
        OutputError: Also when another writer held the lock of ``out`` for longer than ``lock_timeout``.
        UsageError: Also when ``lock_timeout`` is not a number of seconds of at least 0, for an engine's
            option without that engine, or pyspark missing with ``engine="spark"``.
        TypeError: ``duckdb`` is not a path or a callback not callable (checked before anything is read
            or written).
    """
    chosen = run_options("run", options, keywords)
    target = path_arg(out, "out")
    database = path_arg(duckdb, "duckdb") if duckdb is not None else None
    for callback, name in ((on_period, "on_period"), (on_progress, "on_progress"), (on_lock_wait, "on_lock_wait")):
        callback_arg(callback, name)
    timeout = seconds_arg(lock_timeout, "lock_timeout")
    check_output(format, csv_formulas)
    if chosen.bands_frame() is not None:
        raise TypeError("bands must be a path for run(); with a frame, rate with rate_periods() and write_period()")
    config = chosen.config(given(period, "period"))
    where = engine_of(engine, spark_master, chosen)
    return runner.run(
        run_sources(games, ratings, chosen),
        config=config,
        out=target,
        output=Output(format=format, table_format=table_format, csv_formulas=csv_formulas, duckdb=database),
        on_period=on_period,
        on_progress=on_progress,
        lock_timeout=timeout,
        on_lock_wait=on_lock_wait,
        engine=where,
    )


@overload
def rate_period(
    games: SparkFrame,
    *,
    period: str,
    ratings: SparkFrame | Source | NotGiven | None = NOT_GIVEN,
    options: RunOptions | None = None,
    **keywords: Unpack[Options],
) -> SparkPeriodResult: ...


@overload
def rate_period(
    games: Source,
    *,
    period: str,
    ratings: Source | NotGiven | None = NOT_GIVEN,
    options: RunOptions | None = None,
    **keywords: Unpack[Options],
) -> PeriodResult: ...


def rate_period(
    games: Source | SparkFrame,
    *,
    period: str,
    ratings: SparkFrame | Source | NotGiven | None = NOT_GIVEN,
    options: RunOptions | None = None,
    **keywords: Unpack[Options],
) -> PeriodResult | SparkPeriodResult:
    """Rate one month of play, as ``elo-batch run GAMES --period PERIOD [--ratings LIST]`` does.

    Args:
        games: The games, in either shape of the contract (``white_id, black_id, result, date`` or the
            one-sided ``player_id, opponent_rating, result``): a polars DataFrame or LazyFrame, a pyarrow
            Table, or CSV/Parquet paths (a path, glob or folder, or a list of them); or a Spark
            DataFrame (classic or Connect), rated by the Spark engine, which gives Spark frames back
            (:class:`~elo_batch.sparkengine.SparkPeriodResult`; ``chunk_rows`` refused: Spark's
            partitions are the chunks). pyspark is never imported for the others.
        period: The month, ``YYYY-MM``.
        ratings: The list in force, of the same kinds. None: no list (a new rating pool): ratings from
            the game rows, players without one unrated. Not passed: as None, but a run whose game rows
            of the period carry no rating is refused (NoRatingSourceError): a forgotten list.
        options: The options whole (:class:`~elo_batch.options.RunOptions`); None: the defaults.
        **keywords: Options one by one (``rules="elo"``, ``rounding="game"``: the fields of
            :class:`~elo_batch.options.RunOptions`), replacing those of ``options``.

    Returns:
        The period's new list, audit, rejected rows and counts.

    Raises:
        TypeError: an unknown option, ``options`` not a RunOptions, or ``games``/``ratings`` of a type
            that is not a table or paths.
        UsageError: a bad option value, or ``period`` is not one month.
        InputMissingError: an input file is missing or unreadable.
        InputDataError: an input cannot be rated as given: StrictRejectError with ``strict``, over
            ``max_rejected``, or (neither given) every row of the period rejected; NoRatingSourceError
            without ``ratings`` and without a game-row rating (both exit 65).

    Example:
        >>> import polars as pl, elo_batch
        >>> games = pl.DataFrame({"white_id": ["A"], "black_id": ["B"], "result": ["1-0"], "date": ["2025-11-03"]})
        >>> ratings = pl.DataFrame({"player_id": ["A", "B"], "rating": [2000, 2000], "k": [20, 20]})
        >>> result = elo_batch.rate_period(games, period="2025-11", ratings=ratings)
        >>> result.ratings.select("player_id", "rating", "change").rows()
        [('A', 2010, 10), ('B', 1990, -10)]
    """
    chosen = _options("rate_period", games, options=options, keywords=keywords)
    config = chosen.config(given(period, "period"))
    if len(config.periods) != 1:
        raise UsageError(
            f"{period!r} is a range of periods",
            option="period",
            hint="give one month YYYY-MM, or rate a range with rate_periods().",
        )
    results: Iterator[PeriodResult | SparkPeriodResult] = _rate(games, ratings, config, options=chosen)
    return next(results)


@overload
def rate_periods(
    games: SparkFrame,
    *,
    periods: str,
    ratings: SparkFrame | Source | NotGiven | None = NOT_GIVEN,
    options: RunOptions | None = None,
    **keywords: Unpack[Options],
) -> Iterator[SparkPeriodResult]: ...


@overload
def rate_periods(
    games: Source,
    *,
    periods: str,
    ratings: Source | NotGiven | None = NOT_GIVEN,
    options: RunOptions | None = None,
    **keywords: Unpack[Options],
) -> Iterator[PeriodResult]: ...


def rate_periods(
    games: Source | SparkFrame,
    *,
    periods: str,
    ratings: SparkFrame | Source | NotGiven | None = NOT_GIVEN,
    options: RunOptions | None = None,
    **keywords: Unpack[Options],
) -> Iterator[PeriodResult] | Iterator[SparkPeriodResult]:
    """Rate a range of months in order, each from the list the previous month produced, as
    ``elo-batch run --period FIRST..LAST`` does.

    The inputs are read and checked by this call (errors are raised here); each month is rated when
    the iterator reaches it.

    Args:
        games: As :func:`rate_period` (a Spark DataFrame of games is rated by the Spark engine, each
            month with Spark frames).
        periods: ``YYYY-MM..YYYY-MM`` (both ends included), or one month.
        ratings: As :func:`rate_period`: the list in force before the first month.
        options: As :func:`rate_period`.
        **keywords: As :func:`rate_period`.

    Returns:
        One :class:`PeriodResult` per month, in order.

    Raises:
        EloBatchError: As :func:`rate_period`.
        TypeError: As :func:`rate_period`.
    """
    chosen = _options("rate_periods", games, options=options, keywords=keywords)
    return _rate(games, ratings, chosen.config(given(periods, "periods"), name="periods"), options=chosen)


def write_period(
    result: PeriodResult,
    out: str | os.PathLike[str],
    *,
    format: Literal["parquet", "csv"] = "parquet",
    csv_formulas: Literal["escape", "keep"] = "escape",
    table_format: Literal["parquet", "delta"] = "parquet",
) -> dict[str, str]:
    """Write a rated period as ``elo-batch run`` does: ``OUT/ratings|audit|rejected/period=YYYY-MM/``
    and its manifest, atomically, replacing only that period's partitions.

    Args:
        result: A period from :func:`rate_period` or :func:`rate_periods`.
        out: Output folder, or an object-store URI (``s3://bucket/prefix``).
        format: ``parquet`` or ``csv``.
        csv_formulas: With ``csv``: ``escape`` (text cells a spreadsheet would run as formulas get a
            leading quote; ids and numbers never, see :mod:`elo_batch.storage.formulas`) or ``keep``.
        table_format: ``parquet`` (hive folders) or ``delta``: ``OUT/ratings``, ``OUT/audit`` and
            ``OUT/rejected`` as Delta Lake tables partitioned by ``period``, the period replaced by one
            commit per table, then its manifest (a local folder; ``pip install 'elo-batch[delta]'``).

    Returns:
        Table name (and ``manifest``) -> written file (Delta: the table's folder).

    Raises:
        TypeError: ``result`` is not a :class:`PeriodResult`, or ``out`` not a path.
        UsageError: ``format`` is not parquet or csv, ``csv_formulas`` not escape or keep, ``table_format``
            not parquet or delta (delta needs parquet, a local folder and the deltalake package); ``out``
            is empty.
        OutputError: ``out`` cannot be written (the period's previous outputs are kept), or holds tables of
            the other ``table_format``.
    """
    if not isinstance(result, PeriodResult):
        raise TypeError(
            f"result must be a PeriodResult of rate_period() or rate_periods(), not {type(result).__name__}"
        )
    return rated.write(result, out, format=format, csv_formulas=csv_formulas, table_format=table_format)


@contextlib.contextmanager
def locked_output(out: str | os.PathLike[str]) -> Iterator[Path]:
    """Hold the lock of the output folder ``out`` around reading from it and writing to it.

    A caller that reads its rating list from the folder it writes (last month's
    ``out/ratings/period=YYYY-MM``) enters this before it reads: it waits for any other writer of
    ``out`` and puts back what a run killed in the middle of its commit left half swapped (Delta
    tables: rolled back to the versions their manifests name), so only committed periods are read;
    :func:`write_period` inside the block uses the lock already held. The CLI does the same for every
    run.

    Args:
        out: A local output folder (created if missing). Object stores have no lock.

    Yields:
        ``out`` as a Path.

    Raises:
        TypeError: ``out`` is not a path.
        UsageError: ``out`` is an object-store URI, or empty.
        OutputError: ``out`` cannot be created, locked or recovered.
    """
    target = path_arg(out, "out")
    if objectstore.is_object_store(target):
        raise UsageError(f"{target!r} is an object store: it has no lock", option="out", hint="give a local folder.")
    with atomic.locked_output(Path(target)) as root:
        if any(delta.is_table(root / name) for name in delta.ORDER):
            delta.recover(str(root))
        yield root


def validate(
    games: Source,
    *,
    ratings: Source | NotGiven | None = NOT_GIVEN,
    period: str | None = None,
    on_progress: Progress | None = None,
    options: RunOptions | None = None,
    **keywords: Unpack[Options],
) -> ValidationReport:
    """Check the inputs as ``elo-batch validate`` does, writing nothing.

    Args:
        games: As :func:`rate_period`.
        ratings: As :func:`rate_period` (without ``ratings``, the rows of ``period`` must carry a
            rating, as for :func:`rate_period`).
        period: A month or a range: those months are also rated in memory, and the report holds the
            counts ``run`` would write. None: every row of every period is checked.
        on_progress: Called before each step with (what is being done, steps done, steps in all).
        options: As :func:`rate_period`.
        **keywords: As :func:`rate_period` (``strict`` and ``max_rejected`` aside: rejected rows are
            reported, not raised).

    Returns:
        The report: rejected rows, rows read, per-period summaries or usable rows per period, warnings.

    Raises:
        EloBatchError: As :func:`rate_period`, except StrictRejectError.
        TypeError: As :func:`rate_period`.
    """
    chosen = run_options("validate", options, keywords, leave_out=("strict",))
    callback_arg(on_progress, "on_progress")
    return runner.validate(run_sources(games, ratings, chosen), config=chosen.config(period), on_progress=on_progress)


def _options(function: str, games: object, *, options: RunOptions | None, keywords: Mapping[str, object]) -> RunOptions:
    """The options of a call of ``function``; for a Spark frame of games, the Spark engine's refusals first
    (:func:`elo_batch.sparkengine.spark_options`)."""
    if on_spark(games):
        from elo_batch.sparkengine import spark_options

        return spark_options(function, options, keywords)
    return run_options(function, options, keywords)


def _rate(
    games: Source | SparkFrame,
    ratings: SparkFrame | Source | NotGiven | None,
    config: RunConfig,
    *,
    options: RunOptions,
) -> Iterator[PeriodResult] | Iterator[SparkPeriodResult]:
    """Read and check the inputs now, over the engine ``games`` call for (a Spark frame: the Spark engine,
    whose periods come with Spark frames); rate the periods as the iterator is advanced."""
    if on_spark(games):
        from elo_batch.sparkengine import SparkEngine

        engine = SparkEngine()
        rated = _periods(spark_sources(games, ratings, options), config, engine=engine, options=options)
        return map(engine.spark_result, rated)
    sources = run_sources(games, ratings, options)  # type: ignore[arg-type]
    return _periods(sources, config, engine=pipeline.LocalEngine(), options=options)


def _periods(
    sources: pipeline.Sources, config: RunConfig, *, engine: Engine, options: RunOptions
) -> Iterator[PeriodResult]:
    """The pipeline's periods of ``sources`` over ``engine`` as the API hands them out (the inputs read and
    checked now)."""
    started = dt.datetime.now(dt.UTC)
    with runner.in_chunks(config):
        checked = pipeline.check_inputs(sources, config, engine)
    events = checked.games.events
    inputs = RunInputs(
        checked.games.files, checked.list_info, events.source if events is not None else None, config,
        options.encoding, started,
    )  # fmt: skip
    results = pipeline.rate(checked, config, engine)

    def periods() -> Iterator[PeriodResult]:
        for _ in config.periods:
            with runner.in_chunks(config):
                result = next(results)
            yield PeriodResult(
                result.period, result.rule_set, result.ratings, result.audit, result.rejected, result.counts,
                checked.warnings(result), result.audit_rows, inputs,
            )  # fmt: skip

    return periods()


__all__ = [
    "Frame", "Options", "PeriodResult", "RunOptions", "Source", "locked_output", "rate_period", "rate_periods", "run",
    "validate", "write_period",
]  # fmt: skip
