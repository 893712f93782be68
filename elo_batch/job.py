"""The job of ``elo-batch run`` as one function: read, check, rate each period and write it, under OUT's lock."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Literal, Unpack

from elo_batch import runner
from elo_batch.apiargs import Options, callback_arg, engine_of, run_options, run_sources, seconds_arg
from elo_batch.options import NOT_GIVEN, NotGiven, RunOptions, given
from elo_batch.outputs.outlock import DEFAULT_TIMEOUT
from elo_batch.rated import check_output
from elo_batch.runner import PeriodSummary, Progress
from elo_batch.runoutputs import Output
from elo_batch.sources import Source, path_arg


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
    each period is rated from the list the previous one produced and written atomically.

    Args:
        games, ratings, options, keywords: As :func:`rate_periods` (``bands`` a path here): without
            ``ratings`` (not even None) and without a game-row rating in the periods, NoRatingSourceError
            before anything is written.
        period: A month ``YYYY-MM`` or a range ``YYYY-MM..YYYY-MM``.
        out: Output folder (created if missing), or an object-store URI (``s3://bucket/prefix``).
        format, table_format, csv_formulas: As :func:`write_period`.
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

    Returns:
        One summary per period, in order.

    Raises:
        As :func:`rate_periods` and :func:`write_period`; OutputError also when another writer held the
        lock of ``out`` for longer than ``lock_timeout``; UsageError when ``lock_timeout`` is not a number
        of seconds of at least 0, for an engine's option without that engine, or pyspark missing with
        ``engine="spark"``; TypeError when ``duckdb`` is not a path or a callback not callable (checked
        before anything is read or written).
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
