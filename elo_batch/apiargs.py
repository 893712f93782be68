"""The public API's arguments: its options (:class:`Options`), the checks of its other arguments, and the
engine of a run (:func:`engine_of`); its sources are :mod:`elo_batch.job.sources`.

A bad argument raises TypeError (a wrong kind) or :class:`~elo_batch.errors.UsageError` (a bad value).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, TypedDict

import polars as pl

from elo_batch.choices import CapChoice, Expected, ListKind, PeriodBy, Rounding, RulesName
from elo_batch.config import CHUNK_ROWS
from elo_batch.errors import UsageError, option
from elo_batch.inputs.frames import FrameInput
from elo_batch.job.pipeline import Sources
from elo_batch.job.sources import Frame, Source, events_source, games_sources, list_source, ratings_none
from elo_batch.options import FIELDS, NotGiven, RunOptions

if TYPE_CHECKING:  # pyspark is imported by a caller that hands over a Spark frame (and has imported it)
    from pyspark.sql import DataFrame as SparkFrame

    from elo_batch.job.reading import Engine


class Options(TypedDict, total=False):
    """The options of a run as the API's keywords (the CLI's flags without dashes: ``--cap-400`` is
    ``cap_400``): the fields of :class:`elo_batch.options.RunOptions`, which the keywords build and which
    documents each one; here for the type checker of a caller's keywords (a test keeps the two the same).
    """

    rules: RulesName
    rule_set: str | None
    list_kind: ListKind
    expected: Expected | None
    cap_400: CapChoice
    k: int | None
    rule_700: bool | None
    rounding: Rounding | None
    strict: bool
    chunk_rows: int
    max_rejected: int | str | None
    encoding: str | None
    source_name: str | None
    events: Frame | str | os.PathLike[str] | None
    period_by: PeriodBy
    ratings_period: str | None
    bands: str | os.PathLike[str] | pl.DataFrame | None
    columns: Mapping[str, str] | None
    list_columns: Mapping[str, str] | None


#: The keywords of the API's functions that rate (``validate`` leaves ``strict`` out).
OPTIONS = FIELDS


def run_options(
    function: str, options: RunOptions | None, keywords: Mapping[str, object], *, leave_out: tuple[str, ...] = ()
) -> RunOptions:
    """The options of a call of ``function``: ``options`` (passed whole, or None) with the keywords
    given beside it replacing its fields (see :meth:`RunOptions.of`); ``leave_out``: fields that
    ``function`` does not take as keywords.

    Raises:
        TypeError: an unknown keyword (one of ``leave_out`` too), or ``options`` not a RunOptions.
        UsageError: a bad value.
    """
    allowed = tuple(name for name in OPTIONS if name not in leave_out)
    return RunOptions.of(function, options, keywords, allowed=allowed)


def run_sources(games: Source, ratings: Source | NotGiven | None, options: RunOptions) -> Sources:
    """Where a call's inputs are, as the pipeline reads them: ``games`` and ``ratings`` as frames or
    paths, with the options that say how they are read.

    Raises:
        TypeError: ``games``, ``ratings`` or ``options.events`` neither a table nor paths.
    """
    return _sources(games_sources(games, options.source_name), ratings, options, events=options.events)


def spark_sources(games: SparkFrame, ratings: object, options: RunOptions) -> Sources:
    """Where a call's inputs are when ``games`` is a Spark DataFrame: that frame, for the Spark engine to
    read (:class:`elo_batch.sparkengine.SparkEngine`); a list or events given as Spark frames collected to
    the driver (one row per player, per event); the rest as :func:`run_sources` has it.

    Raises:
        TypeError: ``ratings`` or ``options.events`` neither a table nor paths.
    """
    from elo_batch.sparkengine import on_driver

    given = [FrameInput(games, options.source_name, "games")]
    return _sources(given, on_driver(ratings), options, events=on_driver(options.events))  # type: ignore[arg-type]


def _sources(games: list[str | FrameInput], ratings: Source | NotGiven | None, options: RunOptions, *,
             events: object) -> Sources:  # fmt: skip
    """The pipeline's sources of a call whose games are ``games``."""
    return Sources(
        games=games,
        ratings=list_source(ratings),
        ratings_none=ratings_none(ratings),
        events=events_source(events),
        ratings_period=options.ratings_period,
        encoding=options.encoding,
        bands=options.bands_frame(),
        columns=options.column_map("columns"),
        list_columns=options.column_map("list_columns"),
    )


def callback_arg(value: object, parameter: str) -> None:
    """Refuse a callback that cannot be called, before anything is read or written.

    Raises:
        TypeError: ``value`` is neither None nor callable.
    """
    if value is not None and not callable(value):
        raise TypeError(f"{parameter} must be a function or None, not {type(value).__name__}")


def seconds_arg(value: object, parameter: str) -> float:
    """``value``, a number of seconds of at least 0 given as ``parameter``.

    Raises:
        UsageError: not a number (a bool is not one), negative or NaN.
    """
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise UsageError(
            f"{value!r} is not a number of seconds", option=parameter, hint="give a number of seconds of at least 0."
        )
    return float(value)


def engine_of(engine: str, spark_master: str | None, options: RunOptions) -> Engine | None:
    """The engine of :func:`elo_batch.run`: None for ``local`` (rate here), the Spark engine on
    ``spark_master`` for ``spark``; pyspark is looked for now, before the lock and the inputs.

    Raises:
        UsageError: an unknown engine; ``spark_master`` without the Spark engine; ``chunk_rows`` other
            than its default with it (Spark's partitions are the chunks); pyspark not installed.
    """
    if engine not in ("local", "spark"):
        raise UsageError(f"{engine!r} is not an engine", option="engine", hint="use local or spark.")
    if engine == "local":
        if spark_master is not None:
            raise UsageError(
                f"{option('spark_master')} is an option of the Spark engine",
                option="spark_master",
                hint=f"add {option('engine', 'spark')}, or leave {option('spark_master')} out.",
            )
        return None
    if options.chunk_rows != CHUNK_ROWS:
        raise UsageError(
            f"{option('chunk_rows')} does not apply to the Spark engine: Spark's partitions are the chunks",
            option="chunk_rows",
            hint=f"leave {option('chunk_rows')} out with {option('engine', 'spark')}.",
        )
    from elo_batch.sparkengine import SparkEngine, require_spark

    require_spark()
    return SparkEngine(spark_master)
