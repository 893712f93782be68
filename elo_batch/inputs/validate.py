"""Loading a run's games: every file or frame read, checked (:mod:`elo_batch.inputs.checkfile`), one set of rows.

Never drops a row silently: every row read is either a canonical row (possibly flagged as an exact
duplicate) or a rejected row with its file, row number, column, value and reason. No rating rules here.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.contract.names import READER_COLUMNS, escape
from elo_batch.contract.schemas import CANONICAL_SCHEMA, EVENT_ROWS_SCHEMA, REJECTED_SCHEMA
from elo_batch.contract.tables import GamesInput, InputFile
from elo_batch.inputs.cellbound import cut
from elo_batch.inputs.checkfile import check_file, raw_json
from elo_batch.inputs.duplicates import mark_duplicates
from elo_batch.inputs.frames import running
from elo_batch.inputs.gamerules import GAME_COLUMNS
from elo_batch.inputs.gamerules import RESULT_HINT as RESULT_HINT
from elo_batch.inputs.panics import quiet_panics
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

if TYPE_CHECKING:
    pass


def load_games(
    paths: Sequence[str | FrameInput],
    *,
    fractional_ratings: bool = False,
    encoding: str | None = None,
    exclude: tuple[str, ...] = (),
    chunk_rows: int | None = None,
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

    Returns:
        Canonical rows, rejected rows and the files read.

    Raises:
        InputMissingError: a file is missing or unreadable.
        InputDataError: a file lacks the columns of both shapes, or cannot be parsed at all.
    """
    found = _expand(paths, exclude)
    stream = chunk_rows is not None and sum(_rows_to_stream(source) for source in found) > chunk_rows
    plans: list[tuple[pl.LazyFrame, pl.LazyFrame]] = []  # canonical rows, rejected rows
    checked: list[tuple[pl.DataFrame, pl.DataFrame]] = []
    files: list[InputFile] = []
    absent: set[str] | None = None
    absent_by_file: list[set[str]] = []
    offset = 0
    streamed_bad: list[pl.DataFrame] = []
    event_rows: list[pl.DataFrame] = []
    for source in found:
        frame: pl.DataFrame | pl.LazyFrame
        if stream:  # the plans read what they use
            if isinstance(source, FrameInput):
                frame, info = read_frame(source, trim=False, lazy=True)
            else:
                frame, info = scan_table(source, encoding=encoding, trim=False)
        elif isinstance(source, FrameInput):  # the game columns only, chosen before the frame is converted
            frame, info = read_frame(source, trim=False, columns=GAME_COLUMNS)
        else:  # the game columns only: a column nobody uses is never read
            frame, info = read_table(source, encoding=encoding, trim=False, columns=GAME_COLUMNS)
        files.append(note_ignored_columns(info))  # text trimmed by the checks, where needed
        trimmed = info.encoding not in ("parquet", "frame")
        caller = running(source) if isinstance(source, FrameInput) else contextlib.nullcontext()
        with reading(info.path), caller:  # a panic, a damaged page, a LazyFrame's failing plan: an error naming it
            good, bad, missing = check_file(frame, info.path, fractional_ratings, trimmed=trimmed, header=info.header)
            good = good.with_columns((pl.col("row_key") + offset).alias("row_key"))
            good, attributes = split_event_rows(good)
            if stream:  # the rejected rows now, a pass over the file that decodes its rows
                plans.append((good, bad))
                streamed_bad.append(bad.collect(engine="streaming"))
                event_rows += [attributes.collect(engine="streaming")] if attributes is not None else []
            else:  # check the file now, and let its raw rows go
                good_rows, bad_rows, *attribute_rows = pl.collect_all(
                    [good, bad, *([] if attributes is None else [attributes])]
                )
                if bad_rows.height and not set(info.columns) <= set(frame.columns):  # columns not read: whole rows
                    bad_rows = _whole_raw(bad_rows, source, encoding)
                checked.append((good_rows, bad_rows))
                event_rows += attribute_rows
                del frame, good, bad, attributes  # the raw rows (the plans hold them): freed before the next file
        absent = missing if absent is None else absent & missing
        absent_by_file.append(missing)
        offset += info.rows
    # Integer ids stay integers only when every file has them; else all are text, as CSV gives them.
    # The same for game_ids, among the files that have them; without any game_id, they take the type
    # of the player ids (integer Parquet inputs give integer outputs, whatever the month's files).
    schemas = [good.collect_schema() for good, _ in plans] if stream else [good.schema for good, _ in checked]
    integer_ids = all(schema[c.WHITE_ID] == pl.Int64 for schema in schemas)
    has_game_ids = [c.GAME_ID not in missing for missing in absent_by_file]
    integer_games = all(
        schema[c.GAME_ID] == pl.Int64 for schema, has in zip(schemas, has_game_ids, strict=True) if has
    ) and (any(has_game_ids) or integer_ids)
    id_types = [
        pl.col(c.WHITE_ID, c.BLACK_ID).cast(pl.Int64 if integer_ids else pl.String),
        pl.col(c.GAME_ID).cast(pl.Int64 if integer_games else pl.String),
    ]
    rows: pl.DataFrame | pl.LazyFrame
    if stream:
        rows = pl.concat([good.with_columns(id_types) for good, _ in plans])
        bad_rows = pl.concat(streamed_bad)
    else:
        rows = (
            pl.concat([good.with_columns(id_types) for good, _ in checked])
            if checked
            else pl.DataFrame(schema=CANONICAL_SCHEMA)
        )
        bad_rows = pl.concat([bad for _, bad in checked]) if checked else pl.DataFrame(schema=REJECTED_SCHEMA)
    rows, reused, period_rows = mark_duplicates(rows, frozenset(absent or ()))
    return GamesInput(
        rows,
        pl.concat([bad_rows, reused]).sort(c.SOURCE_FILE, c.SOURCE_ROW, maintain_order=True)
        if reused.height
        else bad_rows,
        tuple(files),
        period_rows,
        frozenset(absent or ()),
        pl.concat(event_rows) if event_rows else None,
    )


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


def _whole_raw(rejected: pl.DataFrame, source: str | FrameInput, encoding: str | None) -> pl.DataFrame:
    """Rejected rows of a file (or frame) read for some columns only, with ``raw`` made from every column."""
    whole = read_rows(source, rejected[c.SOURCE_ROW], encoding=encoding, trim=False)
    texts = [name for name, dtype in whole.schema.items() if dtype == pl.String]  # trimmed, as the checks trim;
    whole = whole.with_columns(  # a long cell of a used column cut first (not copied whole)
        (cut(pl.col(name)) if name in GAME_COLUMNS else pl.col(name)).str.strip_chars() for name in texts
    )
    raw = whole.select(c.SOURCE_ROW, raw_json(whole.schema, [n for n in whole.columns if n != c.SOURCE_ROW]))
    return rejected.drop(c.RAW).join(raw, on=c.SOURCE_ROW, how="left", maintain_order="left").select(rejected.columns)
