"""Reading input tables: files, globs and folders; CSV (encoding, separator) or Parquet; no rating rules.

Every table comes back with its header names normalised (trimmed, lower case, spaces and dashes as
underscores) and two extra columns: ``source_file`` (the path as given) and ``source_row`` (1-based data
row, header not counted). A file's own column named like those, or like a working column (``__...``),
is held under an escaped name (``~source_row``, see :mod:`elo_batch.contract.names`). CSV cells are read as
text, so that ids keep leading zeros and every value can be checked before it is used; Parquet columns
keep their types (text trimmed, unless the caller asks for it as written). A frame given in memory
(:class:`FrameInput`, the Python API) becomes the same table as a Parquet file of its columns would:
``source_file`` is the caller's name for it, or null.
"""

from __future__ import annotations

from collections.abc import Collection

import polars as pl

from elo_batch import working as w
from elo_batch.columns import SOURCE_FILE, SOURCE_ROW
from elo_batch.contract.tables import InputFile
from elo_batch.inputs.encoding import check_encoding as check_encoding
from elo_batch.inputs.encoding import decode_text as decode_text
from elo_batch.inputs.frames import FrameInput, frame_columns, frame_plan, running
from elo_batch.inputs.frames import frame_rows as frame_rows
from elo_batch.inputs.frames import read_frame as read_frame
from elo_batch.inputs.inputfile import DICTIONARY_AS_TEXT, held_names
from elo_batch.inputs.panics import quiet_panics
from elo_batch.inputs.parquetfile import PARQUET_ERRORS, file_digest, not_parquet, parquet_whole_rows, read_parquet_file
from elo_batch.inputs.parquetfile import reading as reading
from elo_batch.inputs.paths import CSV_SUFFIXES as CSV_SUFFIXES
from elo_batch.inputs.paths import PARQUET_SUFFIXES, unreadable
from elo_batch.inputs.paths import expand_paths as expand_paths
from elo_batch.inputs.raw import WholeRows
from elo_batch.inputs.textfile import EMPTY, no_header

#: The names above that live in the modules the readers are made of, kept importable from here.
__all__ = [
    "CSV_SUFFIXES", "PARQUET_ERRORS", "PARQUET_SUFFIXES",
    "FrameInput", "check_encoding", "decode_text", "expand_paths", "frame_rows",
    "held_names", "read_frame", "read_rows", "read_table", "reading", "scan_table", "unreadable",
]  # fmt: skip


def read_table(
    path: str, *, encoding: str | None = None, trim: bool = True, columns: Collection[str] | None = None
) -> tuple[pl.DataFrame, InputFile]:
    """Read one CSV or Parquet file.

    What is deliberate about awkward files:

    - a 0-byte file, or one with only blank lines, has no header: refused (exit 65), since a real
      export always writes its header line and an empty file usually means an interrupted export;
    - a header-only file is valid and has no rows (a month without games);
    - blank CSV lines (every cell empty, as spreadsheets write at the end) are not rows: they are
      skipped and counted in ``InputFile.blank_rows``; row numbers still count them, so ``row 12`` is
      line 13 of the file (the header is line 1);
    - a CSV row with more or fewer fields than the header is kept and marked in the ``__ragged__``
      column (its values are not trusted; the checks reject it with its row number);
    - an Excel ``sep=;`` first line names the separator; a blank first line (where the header should
      be) is refused (exit 65);
    - a gzip-compressed file (``games.csv.gz``) is read as the table it holds, inflated in a stream
      to a temporary file, up to :data:`~elo_batch.inputs.textfile.GZIP_RATIO` times its size;
    - a CSV file is never held whole as bytes or text (see :mod:`elo_batch.inputs.csvfile`).

    Args:
        path: A file ending in .csv/.tsv/.txt or .parquet/.pq (anything else is sniffed: Parquet
            files start with ``PAR1``).
        encoding: Force a text encoding for CSV (``utf-8``, ``cp1252``, ``latin-1``, ...); by default
            UTF-8 (with or without BOM) or UTF-16 with a BOM, else Windows-1252 (a superset of the
            printable latin-1) when every byte is defined there and the file is not part UTF-8,
            else the file is refused.
        trim: Trim the text of Parquet String columns. False leaves it as written, for a caller that
            trims only what it reads (CSV cells are always trimmed: an empty cell is null).
        columns: Held names (see :func:`held_names`) of the columns to read: the others are never
            held (a wide column nobody uses costs no memory); :func:`read_rows` reads whole rows later.
            None reads every column.

    Returns:
        The table (held header names, text cells trimmed (Parquet text: with ``trim``), plus
        ``source_file`` and ``source_row``) and what the manifest records about the file.

    Raises:
        InputMissingError: the file cannot be opened or read.
        InputDataError: the file has no header, is not decodable as text, is not a valid CSV or
            Parquet file, or two columns have the same normalised name.
        UsageError: ``encoding`` is not an encoding Python knows.
    """
    from elo_batch.inputs import (
        csvfile,
        textfile,  # which read with this module's helpers
    )

    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
        if head == b"PAR1":  # read by polars from the file, hashed meanwhile
            return read_parquet_file(path, trim, columns)
        with textfile.stored(path) as stored:  # a gzip file: what it holds, in a temporary file
            if path.lower().endswith(PARQUET_SUFFIXES) or stored.head == b"PAR1":
                if not stored.nonblank:
                    raise no_header(path, "the file holds only blank lines" if stored.content_size else EMPTY)
                return read_parquet_file(path, trim, columns, stored=stored)
            table = csvfile.read_csv_file(stored, encoding, columns)  # never whole in memory as bytes or text
    except OSError as exc:
        raise unreadable(exc, path) from exc
    frame = table.frame.with_columns(pl.lit(path, pl.String).alias(SOURCE_FILE))
    info = InputFile(
        path, stored.size, stored.sha256, frame.height, table.encoding, table.separator, table.blank_rows,
        header=table.header,
    )  # fmt: skip
    return frame, info


def read_rows(
    source: str | FrameInput, rows: pl.Series, *, trim: bool = True, encoding: str | None = None
) -> WholeRows:
    """Whole rows of a file (or frame), every column, as :func:`read_table` (:func:`read_frame`) reads them.

    For the few rows (rejected ones) whose every value is wanted after the file was read for some
    columns only: the file is streamed, a chunk at a time, and only these rows are kept.

    Args:
        source: A file :func:`read_table` has read, or a frame :func:`read_frame` has read.
        rows: ``source_row`` numbers (1-based).
        trim: As for :func:`read_table` (Parquet and frames; CSV cells are always trimmed).
        encoding: As for :func:`read_table` (CSV).

    Returns:
        Those rows in file order: the file's columns (held names), then ``source_row``; the rows of a CSV
        file with more or fewer fields than its header apart, as ``raw`` from their own fields
        (:class:`elo_batch.inputs.raw.WholeRows`).

    Raises:
        InputMissingError, InputDataError: as :func:`read_table`.
    """
    from elo_batch.inputs import csvfile, textfile

    if isinstance(source, FrameInput):
        frame, _ = frame_columns(source, None)
        with running(source):
            return WholeRows(frame_plan(frame, source, trim, rows=rows).drop(SOURCE_FILE).collect())
    path = source
    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
        if head == b"PAR1":
            return WholeRows(parquet_whole_rows(path, path, rows, trim=trim))
        with textfile.stored(path) as stored:
            if path.lower().endswith(PARQUET_SUFFIXES) or stored.head == b"PAR1":
                return WholeRows(parquet_whole_rows(stored.source, path, rows, trim=trim))
            return csvfile.read_csv_rows(stored, encoding, rows)
    except OSError as exc:
        raise unreadable(exc, path) from exc


def scan_table(path: str, *, encoding: str | None = None, trim: bool = True) -> tuple[pl.LazyFrame, InputFile]:
    """Like :func:`read_table`, but a Parquet file is scanned, not read: its rows are read each time
    the plan runs, a chunk at a time by the streaming engine, so that a file larger than memory can be
    checked and rated. Other files are read whole by :func:`read_table`.

    Raises:
        As :func:`read_table`; a Parquet file whose footer cannot be read is refused here, damage
        further in is found when the rows are read.
    """
    size, digest = file_digest(path)
    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
    except OSError as exc:
        raise unreadable(exc, path) from exc
    if size == 0 or not (head == b"PAR1" or path.lower().endswith(PARQUET_SUFFIXES)):
        whole, info = read_table(path, encoding=encoding, trim=trim)
        return whole.lazy(), info
    try:
        with quiet_panics():
            scan = pl.scan_parquet(path)
            columns = scan.collect_schema().names()
            rows = scan.select(pl.len()).collect().item()
    except PARQUET_ERRORS as exc:  # polars raises several kinds for a corrupt file, a panic among them
        raise not_parquet(exc, path) from exc
    names = held_names(columns, path)
    frame = (
        scan.with_columns(DICTIONARY_AS_TEXT)
        .with_columns(*([pl.col(pl.String).str.strip_chars()] if trim else []))
        .rename(dict(zip(columns, names, strict=True)))  # first: no user column is named like ours then
        .with_row_index(w.ROW_NUMBER, offset=1)
        .with_columns(pl.col(w.ROW_NUMBER).cast(pl.Int64).alias(SOURCE_ROW), pl.lit(path, pl.String).alias(SOURCE_FILE))
        .drop(w.ROW_NUMBER)
    )
    return frame, InputFile(path, size, digest, rows, "parquet", None, header=tuple(columns))
