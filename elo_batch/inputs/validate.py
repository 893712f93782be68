"""Loading a run's games: every file or frame read, checked (:mod:`elo_batch.inputs.checkfile`), one set of rows.

Never drops a row silently: every row read is either a canonical row (possibly flagged as an exact
duplicate) or a rejected row with its file, row number, column, value and reason. No rating rules here.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.contract.mapping import ColumnMap
from elo_batch.contract.names import READER_COLUMNS, escape
from elo_batch.contract.schemas import CANONICAL_SCHEMA, EVENT_ROWS_SCHEMA, REJECTED_SCHEMA
from elo_batch.contract.tables import GamesInput, InputFile
from elo_batch.inputs.cellbound import cut
from elo_batch.inputs.checkfile import check_file
from elo_batch.inputs.duplicates import mark_duplicates
from elo_batch.inputs.frames import running
from elo_batch.inputs.gamerules import GAME_COLUMNS
from elo_batch.inputs.gamerules import RESULT_HINT as RESULT_HINT
from elo_batch.inputs.panics import quiet_panics
from elo_batch.inputs.raw import raw_json
from elo_batch.inputs.readers import (
    PARQUET_ERRORS,
    PARQUET_SUFFIXES,
    FrameInput,
    expand_paths,
    frame_rows,
    read_frame,
    read_rows,
    read_table,
    reading,
    scan_table,
)


def load_games(
    paths: Sequence[str | FrameInput],
    *,
    fractional_ratings: bool = False,
    encoding: str | None = None,
    exclude: tuple[str, ...] = (),
    chunk_rows: int | None = None,
    columns: ColumnMap | None = None,
) -> GamesInput:
    """Read and check game files (or frames) of either shape of the contract.

    Args:
        paths: Files, globs or folders (see :func:`elo_batch.inputs.readers.expand_paths`), or frames in
            memory (read as :func:`elo_batch.inputs.readers.read_frame` reads them, then checked as files are).
        fractional_ratings: Accept ratings with decimals (only ``--rounding none`` keeps them).
        encoding: Force the CSV text encoding.
        exclude: Files and folders a folder or glob must not pick up (see ``expand_paths``).
        chunk_rows: When the Parquet inputs (and LazyFrames) hold more rows than this, they are not read into memory:
            ``rows`` is a plan that reads and checks them chunk by chunk each time it runs (the
            rejected rows and repeated game_ids are found here, in passes over the files). None:
            always in memory.
        columns: The games' column mapping (``--columns``), applied to every file and frame.

    Returns:
        Canonical rows, rejected rows and the files read.

    Raises:
        InputMissingError: a file is missing or unreadable.
        InputDataError: a file lacks the columns of both shapes (or a column ``columns`` maps), or cannot
            be parsed at all.
    """
    found = _expand(paths, exclude)
    stream = chunk_rows is not None and sum(_rows_to_stream(source) for source in found) > chunk_rows
    checked: list[_FileRows] = []
    reader = _Reader(stream=stream, encoding=encoding, fractional=fractional_ratings, columns=columns)
    for source in found:
        offset = sum(one.info.rows for one in checked)  # the row keys of the files before it
        checked.append(reader.check(source, offset=offset))
    return _games(checked, stream=stream)


@dataclass(frozen=True)
class _FileRows:
    """One file's rows as checked: canonical rows (a plan when streamed), rejected rows, the canonical
    columns it lacks, the event attributes its rows give."""

    info: InputFile
    good: pl.DataFrame | pl.LazyFrame
    bad: pl.DataFrame
    missing: set[str]
    events: list[pl.DataFrame]


@dataclass(frozen=True)
class _Reader:
    """How a run's game files are read and checked: streamed or not, the CSV encoding, fractional
    ratings, the column mapping."""

    stream: bool
    encoding: str | None
    fractional: bool
    columns: ColumnMap | None

    def read(self, source: str | FrameInput) -> tuple[pl.DataFrame | pl.LazyFrame, InputFile]:
        """A file's (or frame's) table: a plan when streamed (it reads what it uses), else the game
        columns (and the columns mapped to them) in memory."""
        if self.stream:  # the plans read what they use
            if isinstance(source, FrameInput):
                return read_frame(source, trim=False, lazy=True)
            return scan_table(source, encoding=self.encoding, trim=False)
        wanted = self.columns.reading(GAME_COLUMNS) if self.columns is not None else GAME_COLUMNS
        if isinstance(source, FrameInput):  # the game columns only, chosen before the frame is converted
            return read_frame(source, trim=False, columns=wanted)
        return read_table(source, encoding=self.encoding, trim=False, columns=wanted)  # the others never read

    def check(self, source: str | FrameInput, *, offset: int) -> _FileRows:
        """One file (or frame) read and checked, its row keys after ``offset``; streamed, its rejected rows
        found now (a pass over the file that decodes its rows), else all its rows (its raw rows let go)."""
        frame, info = self.read(source)
        trimmed = info.encoding not in ("parquet", "frame")  # text trimmed by the checks, where needed
        caller = running(source) if isinstance(source, FrameInput) else contextlib.nullcontext()
        with reading(info.path), caller:  # a panic, a damaged page, a LazyFrame's failing plan: an error naming it
            good, bad, missing = check_file(
                frame, info.path, self.fractional, trimmed=trimmed, header=info.header, columns=self.columns
            )
            good, attributes = split_event_rows(good.with_columns((pl.col("row_key") + offset).alias("row_key")))
            if self.stream:
                bad_rows = bad.collect(engine="streaming")
                events = [attributes.collect(engine="streaming")] if attributes is not None else []
                return _FileRows(info, good, bad_rows, missing, events)
            good_rows, bad_rows, *events = pl.collect_all([good, bad, *([] if attributes is None else [attributes])])
            bad_rows = whole_raw(bad_rows, source, self.encoding, frame=frame, info=info)
        return _FileRows(info, good_rows, bad_rows, missing, events)


def _games(checked: list[_FileRows], *, stream: bool) -> GamesInput:
    """The files' rows as one set: ids of one type, games entered twice marked, rejected rows in file order."""
    id_types = _id_types([one.good.collect_schema() for one in checked], [one.missing for one in checked])
    absent = frozenset(set.intersection(*[one.missing for one in checked]) if checked else ())
    good, bad = [one.good.with_columns(id_types) for one in checked], [one.bad for one in checked]
    rows: pl.DataFrame | pl.LazyFrame
    if stream:
        rows, bad_rows = pl.concat(cast(list[pl.LazyFrame], good)), pl.concat(bad)  # streamed: plans only
    else:
        rows = pl.concat(cast(list[pl.DataFrame], good)) if checked else pl.DataFrame(schema=CANONICAL_SCHEMA)
        bad_rows = pl.concat(bad) if checked else pl.DataFrame(schema=REJECTED_SCHEMA)
    rows, reused, period_rows = mark_duplicates(rows, absent)
    rejected = (
        pl.concat([bad_rows, reused]).sort(c.SOURCE_FILE, c.SOURCE_ROW, maintain_order=True)
        if reused.height
        else bad_rows
    )
    files = tuple(note_ignored_columns(one.info) for one in checked)
    events = [frame for one in checked for frame in one.events]
    return GamesInput(rows, rejected, files, period_rows, absent, pl.concat(events) if events else None)


def _id_types(schemas: list[pl.Schema], absent: list[set[str]]) -> list[pl.Expr]:
    """The casts of the files' ids to one type, given each file's schema and the columns it lacks."""
    # Integer ids stay integers only when every file has them; else all are text, as CSV gives them.
    # The same for game_ids, among the files that have them; without any game_id, they take the type
    # of the player ids (integer Parquet inputs give integer outputs, whatever the month's files).
    integer_ids = all(schema[c.WHITE_ID] == pl.Int64 for schema in schemas)
    has_game_ids = [c.GAME_ID not in missing for missing in absent]
    integer_games = all(
        schema[c.GAME_ID] == pl.Int64 for schema, has in zip(schemas, has_game_ids, strict=True) if has
    ) and (any(has_game_ids) or integer_ids)
    return [
        pl.col(c.WHITE_ID, c.BLACK_ID).cast(pl.Int64 if integer_ids else pl.String),
        pl.col(c.GAME_ID).cast(pl.Int64 if integer_games else pl.String),
    ]


def split_event_rows(good: pl.LazyFrame) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:
    """A file's checked rows without their event columns, and those columns (``EVENT_ROWS_SCHEMA``) of
    the rows that give any (None when the file has none)."""
    extras = [name for name in good.collect_schema().names() if name.startswith(w.EVENT_ROW_PREFIX)]
    if not extras:
        return good, None
    attributes = (
        good.select("row_key", c.EVENT_ID, *extras)
        .rename({name: name.removeprefix(w.EVENT_ROW_PREFIX) for name in extras})
        .filter(pl.col(c.EVENT_ID).is_not_null() & pl.any_horizontal(pl.col(list(EVENT_ROWS_SCHEMA)[2:]).is_not_null()))
        .cast(EVENT_ROWS_SCHEMA)  # type: ignore[arg-type]
    )
    return good.drop(extras), attributes


def _expand(paths: Sequence[str | FrameInput], exclude: tuple[str, ...]) -> list[str | FrameInput]:
    """Files named by paths, globs or folders (see ``expand_paths``), frames in their places."""
    if all(isinstance(path, str) for path in paths):
        return list(expand_paths([path for path in paths if isinstance(path, str)], exclude=exclude))
    found: list[str | FrameInput] = []
    for path in paths:
        found.extend([path] if isinstance(path, FrameInput) else expand_paths([path], exclude=exclude))
    return found


def _rows_to_stream(source: str | FrameInput) -> int:
    """Rows that count towards streaming: a Parquet file's or a LazyFrame's (frames and CSV files in
    memory count 0)."""
    if isinstance(source, FrameInput):
        return frame_rows(source) if isinstance(source.data, pl.LazyFrame) else 0
    return _parquet_rows(source)


def note_ignored_columns(info: InputFile) -> InputFile:
    """``info`` with a note for each column of the file named like a column elo-batch itself writes
    from every games row (``source_file``, ``source_row``): ignored, as every column the contract does
    not name, but said, since the outputs hold elo-batch's own values under that name."""
    held = info.columns
    notes = [
        f"{info.path}: column {name} is ignored: the audit and rejected rows hold elo-batch's own {name} "
        + ("(the file's path)" if name == c.SOURCE_FILE else "(the row's number in the file)")
        for name in READER_COLUMNS
        if escape(name) in held
    ]
    return dataclasses.replace(info, notes=(*info.notes, *notes)) if notes else info


def _parquet_rows(path: str) -> int:
    """Rows of a Parquet file from its footer (0 for anything else; errors are reported when it is read)."""
    if not path.lower().endswith(PARQUET_SUFFIXES):
        return 0
    try:
        with quiet_panics():
            return int(pl.scan_parquet(path).select(pl.len()).collect().item())
    except PARQUET_ERRORS:  # not Parquet after all, or damaged (a panic too): read_table says what is wrong
        return 0


def whole_raw(
    rejected: pl.DataFrame,
    source: str | FrameInput,
    encoding: str | None,
    *,
    frame: pl.DataFrame | pl.LazyFrame,
    info: InputFile,
) -> pl.DataFrame:
    """A file's rejected rows (``REJECTED_SCHEMA``) with the ``raw`` of its whole rows where ``frame``, the
    table read of it, does not hold them (columns not read, or ragged rows of a CSV file: their ``raw``
    holds the fields they have, :func:`elo_batch.inputs.raw.fields_raw`); else as they are. For both
    engines (the Spark engine's check of a file on an executor).

    Raises:
        InputMissingError, InputDataError: as :func:`elo_batch.inputs.readers.read_rows`.
    """
    if rejected.height and _partial(frame, info):
        return _whole_raw(rejected, source, encoding)
    return rejected


def _partial(frame: pl.DataFrame | pl.LazyFrame, info: InputFile) -> bool:
    """Whether the rows read are not whole rows: columns not read, or a CSV file's ragged rows (read to
    the header's width; their ``raw`` holds the fields they have)."""
    names = frame.collect_schema().names()
    return not set(info.columns) <= set(names) or w.RAGGED in names


def _whole_raw(rejected: pl.DataFrame, source: str | FrameInput, encoding: str | None) -> pl.DataFrame:
    """Rejected rows of a file (or frame) read for some columns only, with ``raw`` made from every column
    (from its own fields, a ragged row's: :func:`elo_batch.inputs.raw.fields_raw`)."""
    rows = read_rows(source, rejected[c.SOURCE_ROW], encoding=encoding, trim=False)
    if rows.frame.is_empty():  # every row a ragged one: no object of the header's width is built
        return _with_raw(rejected, rows.ragged)
    whole = rows.frame
    texts = [name for name, dtype in whole.schema.items() if dtype == pl.String]  # trimmed, as the checks trim;
    whole = whole.with_columns(  # a long cell of a used column cut first (not copied whole)
        (cut(pl.col(name)) if name in GAME_COLUMNS else pl.col(name)).str.strip_chars() for name in texts
    )
    raw = whole.select(c.SOURCE_ROW, raw_json(whole.schema, [n for n in whole.columns if n != c.SOURCE_ROW]))
    return _with_raw(rejected, pl.concat([raw, rows.ragged]))


def _with_raw(rejected: pl.DataFrame, raw: pl.DataFrame) -> pl.DataFrame:
    """``rejected`` with its ``raw`` from ``raw`` (``source_row``, ``raw``)."""
    return rejected.drop(c.RAW).join(raw, on=c.SOURCE_ROW, how="left", maintain_order="left").select(rejected.columns)
