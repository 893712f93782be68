"""The public API's arguments: its options (:class:`Options`) and its sources, as the runner takes them.

A source is a frame or paths. A bad argument raises TypeError (a wrong kind) or
:class:`~elo_batch.errors.UsageError` (a bad value).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias, TypedDict, get_args

import polars as pl

from elo_batch.choices import CapChoice, CsvFormulas, Expected, ListKind, PeriodBy, Rounding, RulesName
from elo_batch.config import CHUNK_ROWS
from elo_batch.errors import UsageError, option
from elo_batch.inputs.readers import FrameInput
from elo_batch.options import FIELDS, NotGiven, RunOptions

if TYPE_CHECKING:  # pyarrow is imported when a caller hands over one of its tables (and has imported it)
    import pyarrow as pa

    from elo_batch.runinputs import Engine


#: A table in memory: polars DataFrame or LazyFrame, or pyarrow Table.
Frame: TypeAlias = "pl.DataFrame | pl.LazyFrame | pa.Table"
#: Games or a rating list: a table in memory, or files (a path, a glob, a folder, or a list of them).
Source: TypeAlias = "Frame | str | os.PathLike[str] | Sequence[str | os.PathLike[str]]"


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
    return RunOptions.of(function, options, keywords, allowed)


def path_arg(value: object, parameter: str) -> str:
    """``value``, a path given as ``parameter``, as text.

    Raises:
        TypeError: not a str or os.PathLike (None, a number: ``open()`` would take an int for a file
            descriptor).
        UsageError: an empty path (it would name the current folder).
    """
    path = os.fspath(value) if isinstance(value, str | os.PathLike) else None
    if not isinstance(path, str):
        raise TypeError(f"{parameter} must be a path (a str or Path), not {type(value).__name__}")
    if not path.strip():
        raise UsageError("an empty path", option=parameter, hint="give a file or folder path.")
    return path


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


def choice_arg(value: object, parameter: str, choices: tuple[str, ...]) -> None:
    """Refuse a value of ``parameter`` that is not one of ``choices``.

    Raises:
        UsageError: ``value`` is not one of ``choices``.
    """
    if not isinstance(value, str) or value not in choices:
        raise UsageError(
            f"{value!r} is not one of {', '.join(map(repr, choices))}",
            option=parameter,
            hint=f"use one of {', '.join(choices)}.",
        )


def given(periods: str, name: str) -> str:
    """``periods``, which must be given (None means "every period" to ``validate`` only)."""
    if periods is None:
        raise UsageError("no period given", option=name, hint="give a month of play, 'YYYY-MM'.")
    return periods


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
    from elo_batch.spark import SparkEngine, require_spark

    require_spark()
    return SparkEngine(spark_master)


def games_sources(games: Source, name: str | None) -> list[str | FrameInput]:
    """``games`` as the runner reads them: a frame, or paths."""
    if name is not None and not isinstance(name, str):
        raise TypeError(f"source_name must be text or None, not {type(name).__name__}")
    source = source_of(games, "games", name)
    return list(source) if isinstance(source, list) else [source]


def list_source(ratings: Source | NotGiven | None) -> str | list[str] | FrameInput | None:
    """The list as the runner reads it: a frame, paths, or None (``ratings`` None or not passed)."""
    return None if ratings is None or isinstance(ratings, NotGiven) else source_of(ratings, "ratings", None)


def ratings_none(ratings: Source | NotGiven | None) -> bool:
    """``ratings=None`` was passed: no list is meant (the runner's ``ratings_none``)."""
    return ratings is None


def events_source(events: object) -> str | FrameInput | None:
    if events is None:
        return None
    source = source_of(events, "events", None)  # type: ignore[arg-type]
    if isinstance(source, list):
        raise TypeError("events must be one table or one file path, not a list")
    return source


def source_of(value: Source, parameter: str, name: str | None) -> str | list[str] | FrameInput:
    arrow = sys.modules.get("pyarrow")  # a pyarrow table exists only once pyarrow is imported
    if isinstance(value, pl.DataFrame | pl.LazyFrame) or (arrow and isinstance(value, arrow.Table | arrow.RecordBatch)):
        return FrameInput(value, name, parameter)
    if isinstance(value, str | os.PathLike):
        return os.fspath(value)
    if isinstance(value, list | tuple) and value and all(isinstance(item, str | os.PathLike) for item in value):
        return [os.fspath(item) for item in value]
    raise TypeError(
        f"{parameter} must be a polars DataFrame or LazyFrame, a pyarrow Table, or paths (a str or Path, "
        f"or a list of them), not {type(value).__name__}"
        + (" (an empty list)" if isinstance(value, list | tuple) and not value else "")
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
