"""The tables a caller names, as the readers take them: a source is a frame in memory or paths (the API's
``games``, ``ratings`` and ``events``; a Spark DataFrame told from the others), and an output folder is a
path. Used by the public API and by the Spark engine alike; reads nothing.

A bad argument raises TypeError (a wrong kind) or :class:`~elo_batch.errors.UsageError` (a bad value).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeAlias, TypeGuard

import polars as pl

from elo_batch.errors import UsageError
from elo_batch.inputs.frames import FrameInput
from elo_batch.options import NotGiven

if TYPE_CHECKING:  # pyarrow and pyspark are imported by a caller that hands over one of their tables
    import pyarrow as pa
    from pyspark.sql import DataFrame as SparkFrame


#: A table in memory: polars DataFrame or LazyFrame, or pyarrow Table.
Frame: TypeAlias = "pl.DataFrame | pl.LazyFrame | pa.Table"


#: Games or a rating list: a table in memory, or files (a path, a glob, a folder, or a list of them).
Source: TypeAlias = "Frame | str | os.PathLike[str] | Sequence[str | os.PathLike[str]]"


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


def on_spark(value: object) -> TypeGuard[SparkFrame]:
    """``value`` is a Spark DataFrame (classic, or Connect: both subclass ``pyspark.sql.DataFrame``),
    looked for only where pyspark is already imported (a caller holding a Spark frame has): as narwhals
    tells a frame's library, without importing any."""
    frames = sys.modules.get("pyspark.sql.dataframe")
    return frames is not None and isinstance(value, frames.DataFrame)


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
