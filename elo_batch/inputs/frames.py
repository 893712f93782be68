"""Tables given in memory (the Python API): a polars or pyarrow frame read as a Parquet file of its columns."""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

import polars as pl

from elo_batch import working as w
from elo_batch.columns import SOURCE_FILE, SOURCE_ROW
from elo_batch.contract.tables import InputFile
from elo_batch.errors import EloBatchError, InputDataError, InputMissingError
from elo_batch.inputs.inputfile import DICTIONARY_AS_TEXT, held_names


@dataclass(frozen=True)
class FrameInput:
    """A table given in memory instead of a file (the Python API): read as a Parquet file of its
    columns would be.

    Attributes:
        data: A polars DataFrame or LazyFrame, or a pyarrow Table (or RecordBatch).
        name: What its rows get in ``source_file`` (and messages call it), or None: null.
        label: How messages name it when it has no name (the parameter it was given as: ``games``).
    """

    data: Any
    name: str | None = None
    label: str = "frame"

    @property
    def where(self) -> str:
        """How messages name the frame: its name, else ``label``."""
        return self.name if self.name is not None else self.label


def frame_rows(source: FrameInput) -> int:
    """Rows of a frame (a LazyFrame's plan is run to count them).

    Raises:
        InputDataError: as :func:`read_frame`.
    """
    frame = _as_polars(source)
    if isinstance(frame, pl.DataFrame):
        return frame.height
    with running(source):
        return int(frame.select(pl.len()).collect().item())


def read_frame(
    source: FrameInput, *, trim: bool = True, lazy: bool = False, columns: Collection[str] | None = None
) -> tuple[pl.DataFrame | pl.LazyFrame, InputFile]:
    """A frame as the table :func:`read_table` gives for a file: names normalised, dictionary-encoded
    text as text, text trimmed with ``trim``, ``source_row`` its 1-based row, ``source_file`` its name
    (or null). The caller's frame is not changed.

    Args:
        source: The frame and its name.
        trim: As for :func:`read_table`.
        lazy: Give a LazyFrame (a LazyFrame's plan then runs whenever the table is read, as a scanned
            Parquet file is read again); else a DataFrame (a LazyFrame is collected once, here).
        columns: As for :func:`read_table`: the held names of the columns to take; the others are
            left out before anything is read or converted (:func:`read_rows` gives whole rows).

    Raises:
        InputDataError: not a polars or pyarrow table, its plan fails, or two columns have the same
            normalised name.
    """
    frame, header = frame_columns(source, columns)
    plan = frame_plan(frame, source, trim)
    table: pl.DataFrame | pl.LazyFrame = plan
    if lazy:
        rows = frame_rows(source)
    else:
        with running(source):
            table = plan.collect()
        rows = table.height
    info = InputFile(source.where, 0, "", rows, "frame", None, unnamed=source.name is None, header=header)
    return table, info


def frame_columns(
    source: FrameInput, columns: Collection[str] | None
) -> tuple[pl.DataFrame | pl.LazyFrame, tuple[str, ...]]:
    """(the frame as polars, only the ``columns`` asked for (held names; at least one, for the number of
    rows), every column's name as the frame spells it)."""
    data = source.data
    with running(source):
        header = tuple(_arrow_names(data) or _as_polars(source).collect_schema().names())
    names = held_names(header, source.where)
    wanted = None if columns is None else [o for o, n in zip(header, names, strict=True) if n in columns] or header[:1]
    if wanted is not None and list(wanted) != list(header):
        if _arrow_names(data):  # chosen before polars converts (and may copy) the arrow columns
            return _as_polars(FrameInput(data.select(list(wanted)), source.name, source.label)), header
        return _as_polars(source).select(wanted), header
    return _as_polars(source), header


@contextlib.contextmanager
def running(source: FrameInput) -> Iterator[None]:
    """Where the caller's plan runs (a LazyFrame is collected, or its schema resolved): whatever it
    raises becomes an error naming the frame, the caller's exception chained as its cause.

    Raises:
        InputMissingError: the plan reads a file that is missing or unreadable (``pl.scan_csv`` of a
            removed file).
        InputDataError: the plan fails otherwise (a failing cast, an exception in a Python function
            it maps, a polars panic).
    """
    try:
        yield
    except EloBatchError:
        raise
    except OSError as exc:
        raise InputMissingError(
            f"the frame cannot be read: its plan reads a file that cannot be read ({_first_line(exc)})",
            path=source.where,
            hint="check the files the LazyFrame scans.",
        ) from exc
    except (Exception, pl.exceptions.PanicException) as exc:  # the caller's own code runs in its plan
        raise InputDataError(
            f"the frame cannot be read: its plan fails ({type(exc).__name__}: {_first_line(exc)})",
            path=source.where,
            hint="collect() the frame to see where; the cause is chained to this error.",
        ) from exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else "no message"


def _arrow_names(data: Any) -> list[str] | None:
    """The column names of a pyarrow Table or RecordBatch, else None (pyarrow is never imported here:
    a caller that gives one imported it)."""
    arrow = type(data).__module__.startswith("pyarrow")
    return list(data.schema.names) if arrow and hasattr(data, "select") and hasattr(data, "schema") else None


def frame_plan(
    frame: pl.DataFrame | pl.LazyFrame, source: FrameInput, trim: bool, *, rows: pl.Series | None = None
) -> pl.LazyFrame:
    """The plan that makes a frame's table: names held, text as :func:`read_frame` says, ``source_row``
    and ``source_file``; only the rows numbered ``rows`` (``source_row``) when given."""
    columns = frame.collect_schema().names()
    names = held_names(columns, source.where)
    plan = (
        frame.lazy()
        .rename(dict(zip(columns, names, strict=True)))  # first: no user column is named like ours then
        .with_row_index(w.ROW_NUMBER, offset=1)
    )
    if rows is not None:  # before any cell is converted: only these rows are
        plan = plan.filter(pl.col(w.ROW_NUMBER).cast(pl.Int64).is_in(rows.cast(pl.Int64).implode()))
    return (
        plan.with_columns(DICTIONARY_AS_TEXT)
        .with_columns(*([pl.col(pl.String).str.strip_chars()] if trim else []))
        .with_columns(
            pl.col(w.ROW_NUMBER).cast(pl.Int64).alias(SOURCE_ROW), pl.lit(source.name, pl.String).alias(SOURCE_FILE)
        )
        .drop(w.ROW_NUMBER)
    )


def _as_polars(source: FrameInput) -> pl.DataFrame | pl.LazyFrame:
    data = source.data
    if isinstance(data, pl.DataFrame | pl.LazyFrame):
        return data
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        pa = None
    if pa is not None and isinstance(data, pa.Table | pa.RecordBatch):
        frame = pl.from_arrow(data)
        assert isinstance(frame, pl.DataFrame)
        return frame
    raise InputDataError(
        f"a {type(data).__module__}.{type(data).__qualname__} is not a table elo-batch reads",
        path=source.where,
        hint="give a polars DataFrame or LazyFrame, a pyarrow Table, or file paths.",
    )
