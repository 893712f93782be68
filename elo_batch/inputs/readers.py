"""Reading input tables: files, globs and folders; CSV (encoding, separator) or Parquet; no rating rules.

Every table comes back with its header names normalised (trimmed, lower case, spaces and dashes as
underscores) and two extra columns: ``source_file`` (the path as given) and ``source_row`` (1-based data
row, header not counted). A file's own column named like those, or like a working column (``__...``),
is held under an escaped name (``~source_row``, see :mod:`elo_batch.inputs.names`). CSV cells are read as
text, so that ids keep leading zeros and every value can be checked before it is used; Parquet columns
keep their types (text trimmed, unless the caller asks for it as written). A frame given in memory
(:class:`FrameInput`, the Python API) becomes the same table as a Parquet file of its columns would:
``source_file`` is the caller's name for it, or null.
"""

from __future__ import annotations

import codecs
import concurrent.futures
import contextlib
import glob
import hashlib
import io
import os
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl
import polars.selectors as cs

from elo_batch.columns import SOURCE_FILE, SOURCE_ROW
from elo_batch.errors import InputDataError, InputMissingError, UsageError, option
from elo_batch.inputs.names import escape, unescape

if TYPE_CHECKING:
    from elo_batch.inputs import textfile

CSV_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".txt.gz")
PARQUET_SUFFIXES = (".parquet", ".pq")
SEPARATORS = (",", ";", "\t", "|")


@dataclass(frozen=True)
class InputFile:
    """One input file as read: what the manifest records about it.

    Attributes:
        path: The path as given (or as found in a folder or glob); for a frame, the name messages give
            it (see :class:`FrameInput`).
        size: Bytes (0 for a frame: nothing was read from a file).
        sha256: Hex digest of the file's bytes (empty for a frame).
        rows: Data rows read (header not counted).
        encoding: Text encoding used (CSV), ``parquet``, or ``frame``.
        separator: Field separator (CSV), or None.
        blank_rows: Blank CSV lines skipped (not counted in ``rows``).
        notes: What the user should know about how the file was read (shown as warnings).
        unnamed: A frame given without a name: its rows' ``source_file`` is null (see :attr:`source_file`).
        header: The column names as the file spells them (for messages).
    """

    path: str
    size: int
    sha256: str
    rows: int
    encoding: str
    separator: str | None
    blank_rows: int = 0
    notes: tuple[str, ...] = ()
    unnamed: bool = False
    header: tuple[str, ...] = ()

    @property
    def source_file(self) -> str | None:
        """What the rows read have in ``source_file``: ``path``, or null for a frame without a name."""
        return None if self.unnamed else self.path

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column of the file as the tables hold it (normalised and escaped, see
        :func:`held_names`), read or not (see ``columns`` of :func:`read_table`)."""
        return tuple(escape(_normalise(name)) for name in self.header)


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
    try:
        return int(frame.select(pl.len()).collect().item())
    except pl.exceptions.PolarsError as exc:
        raise InputDataError(f"the frame cannot be read ({exc})", path=source.where) from exc


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
    frame, header = _frame_columns(source, columns)
    plan = _frame_plan(frame, source, trim)
    table: pl.DataFrame | pl.LazyFrame = plan
    if lazy:
        rows = frame_rows(source)
    else:
        try:
            table = plan.collect()
        except pl.exceptions.PolarsError as exc:
            raise InputDataError(f"the frame cannot be read ({exc})", path=source.where) from exc
        rows = table.height
    info = InputFile(source.where, 0, "", rows, "frame", None, unnamed=source.name is None, header=header)
    return table, info


def _frame_columns(
    source: FrameInput, columns: Collection[str] | None
) -> tuple[pl.DataFrame | pl.LazyFrame, tuple[str, ...]]:
    """(the frame as polars, only the ``columns`` asked for (held names; at least one, for the number of
    rows), every column's name as the frame spells it)."""
    data = source.data
    try:
        header = tuple(_arrow_names(data) or _as_polars(source).collect_schema().names())
    except pl.exceptions.PolarsError as exc:
        raise InputDataError(f"the frame cannot be read ({exc})", path=source.where) from exc
    names = held_names(header, source.where)
    wanted = None if columns is None else [o for o, n in zip(header, names, strict=True) if n in columns] or header[:1]
    if wanted is not None and list(wanted) != list(header):
        if _arrow_names(data):  # chosen before polars converts (and may copy) the arrow columns
            return _as_polars(FrameInput(data.select(list(wanted)), source.name, source.label)), header
        return _as_polars(source).select(wanted), header
    return _as_polars(source), header


def _arrow_names(data: Any) -> list[str] | None:
    """The column names of a pyarrow Table or RecordBatch, else None (pyarrow is never imported here:
    a caller that gives one imported it)."""
    arrow = type(data).__module__.startswith("pyarrow")
    return list(data.schema.names) if arrow and hasattr(data, "select") and hasattr(data, "schema") else None


def _frame_plan(
    frame: pl.DataFrame | pl.LazyFrame, source: FrameInput, trim: bool, rows: pl.Series | None = None
) -> pl.LazyFrame:
    """The plan that makes a frame's table: names held, text as :func:`read_frame` says, ``source_row``
    and ``source_file``; only the rows numbered ``rows`` (``source_row``) when given."""
    columns = frame.collect_schema().names()
    names = held_names(columns, source.where)
    plan = (
        frame.lazy()
        .rename(dict(zip(columns, names, strict=True)))  # first: no user column is named like ours then
        .with_row_index("__source_row", offset=1)
    )
    if rows is not None:  # before any cell is converted: only these rows are
        plan = plan.filter(pl.col("__source_row").cast(pl.Int64).is_in(rows.cast(pl.Int64).implode()))
    return (
        plan.with_columns(_DICTIONARY_AS_TEXT)
        .with_columns(*([pl.col(pl.String).str.strip_chars()] if trim else []))
        .with_columns(
            pl.col("__source_row").cast(pl.Int64).alias(SOURCE_ROW), pl.lit(source.name, pl.String).alias(SOURCE_FILE)
        )
        .drop("__source_row")
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


def unreadable(exc: OSError, path: str) -> InputMissingError:
    """The error (exit 66) for an input file that exists in the listing but cannot be read."""
    return InputMissingError(
        f"cannot read the file ({exc.strerror or exc})",
        path=path,
        hint="check that the file exists and that this user may read it.",
    )


def expand_paths(paths: list[str] | tuple[str, ...], *, exclude: tuple[str, ...] = ()) -> list[str]:
    """Files named by paths, globs or folders, in a stable order.

    Args:
        paths: Files, glob patterns (``games/*.csv``) or folders (all CSV and Parquet files inside,
            recursively, sorted by path; hidden files and folders, whose names start with ``.``, are
            skipped, like a warehouse does).
        exclude: Files or folders that a folder or a glob must not pick up (the run's own rating list
            and output folder when they sit inside the games folder). Files named one by one are kept.

    Returns:
        File paths, folders and globs expanded in sorted order; a file named more than once (by
        another spelling, a link, or a glob) is kept once, in its first place.

    Raises:
        InputMissingError: a path does not exist, a folder cannot be listed, or a glob or folder holds
            no CSV or Parquet file.
    """
    found: list[str] = []
    skip = [os.path.abspath(path) for path in exclude]

    def wanted(path: str) -> bool:
        full = os.path.abspath(path)
        return not any(full == other or full.startswith(other + os.sep) for other in skip)

    for given in paths:
        if os.path.isdir(given):
            inside = [path for path in _data_files(given) if wanted(path)]
            if not inside:
                raise InputMissingError(
                    "folder holds no .csv or .parquet file",
                    path=given,
                    hint="name the files, or point at the folder that holds them.",
                )
            found.extend(inside)
        elif os.path.exists(given):
            found.append(given)
        elif glob.has_magic(given):
            matched = sorted(p for p in glob.glob(given, recursive=True) if os.path.isfile(p) and wanted(p))
            if not matched:
                raise InputMissingError("no file matches this pattern", path=given)
            found.extend(matched)
        else:
            raise InputMissingError("no such file", path=given, hint="check the path; globs must be quoted.")
    unique: dict[str, str] = {}
    for path in found:  # one file named twice (./g.csv and g.csv, a path and a glob) is read once
        unique.setdefault(os.path.realpath(path), path)
    return list(unique.values())


def _data_files(folder: str) -> list[str]:
    def refuse(exc: OSError) -> None:
        raise InputMissingError(f"cannot list the folder ({exc.strerror or exc})", path=exc.filename or folder)

    files: list[str] = []
    for top, dirs, names in os.walk(folder, onerror=refuse):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        files.extend(
            os.path.join(top, name)
            for name in names
            if not name.startswith(".") and name.lower().endswith(CSV_SUFFIXES + PARQUET_SUFFIXES)
        )
    return sorted(files)


def check_encoding(name: str | None) -> None:
    """Refuse an ``--encoding`` that Python does not know, before anything is read.

    Raises:
        UsageError: ``name`` is not a text encoding.

    >>> check_encoding("latin-1")
    """
    if name is None:
        return
    try:
        codecs.lookup(name)
    except LookupError:
        raise UsageError(
            f"{name!r} is not a text encoding",
            option="encoding",
            hint="use a Python codec name such as utf-8, cp1252, latin-1 or utf-16.",
        ) from None


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
      to a temporary file, up to :data:`GZIP_RATIO` times its size;
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
            return _read_parquet_file(path, trim, columns)
        with textfile.stored(path) as stored:  # a gzip file: what it holds, in a temporary file
            if path.lower().endswith(PARQUET_SUFFIXES) or stored.head == b"PAR1":
                if not stored.nonblank:
                    raise _no_header(path, "the file holds only blank lines" if stored.content_size else EMPTY)
                return _read_parquet_file(path, trim, columns, stored)
            table = csvfile.read_csv_file(stored, encoding, columns)  # never whole in memory as bytes or text
    except OSError as exc:
        raise unreadable(exc, path) from exc
    frame = table.frame.with_columns(pl.lit(path, pl.String).alias(SOURCE_FILE))
    info = InputFile(
        path, stored.size, stored.sha256, frame.height, table.encoding, table.separator, table.blank_rows,
        header=table.header,
    )  # fmt: skip
    return frame, info


#: What a file of no bytes is told.
EMPTY = "the file is empty (0 bytes)"


#: First bytes of a gzip stream.
GZIP_MAGIC = b"\x1f\x8b"
#: A gzip-compressed input may inflate to this many times its size (past :data:`GZIP_FLOOR`); more is
#: refused as a likely decompression bomb (a CSV export compresses 5 to 20 times).
GZIP_RATIO = 100
#: Inflated bytes any gzip-compressed input may reach, whatever its ratio.
GZIP_FLOOR = 64 * 2**20


def _check_header_line(text: str, path: str, *, line: int) -> None:
    """Refuse a CSV text whose header line (``line`` of the file) is blank: the names would be read from
    nowhere and every row would shift by one."""
    if not re.split(r"\r\n|\r|\n", text, maxsplit=1)[0].strip():
        raise InputDataError(
            f"line {line} is blank: the header (the column names) must be the first line",
            path=path,
            hint="remove the blank line(s) above the header.",
        )


def _read_parquet_file(
    path: str, trim: bool, columns: Collection[str] | None, stored: textfile.Stored | None = None
) -> tuple[pl.DataFrame, InputFile]:
    """A Parquet file: read by polars from the file (no copy of its bytes; only the ``columns`` asked
    for) while another thread hashes it; with ``stored``, from its content (what a gzip file holds),
    already hashed."""
    source = path if stored is None else stored.source
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        digest = pool.submit(_digest, path) if stored is None else None
        originals = _parquet_names(source, path)
        names = held_names(originals, path)
        wanted = None
        if columns is not None:  # at least one column, for the number of rows
            wanted = [o for o, n in zip(originals, names, strict=True) if n in columns] or originals[:1]
        frame = _parquet_rows(_normalise_names(_read_parquet(source, path, wanted), path), trim)
        size, sha256 = digest.result() if digest is not None else (stored.size, stored.sha256)  # type: ignore[union-attr]
    frame = frame.with_columns(pl.lit(path, pl.String).alias(SOURCE_FILE))
    return frame, InputFile(path, size, sha256, frame.height, "parquet", None, header=tuple(originals))


def read_rows(
    source: str | FrameInput, rows: pl.Series, *, trim: bool = True, encoding: str | None = None
) -> pl.DataFrame:
    """Whole rows of a file (or frame), every column, as :func:`read_table` (:func:`read_frame`) reads them.

    For the few rows (rejected ones) whose every value is wanted after the file was read for some
    columns only: the file is streamed, a chunk at a time, and only these rows are kept.

    Args:
        source: A file :func:`read_table` has read, or a frame :func:`read_frame` has read.
        rows: ``source_row`` numbers (1-based).
        trim: As for :func:`read_table` (Parquet and frames; CSV cells are always trimmed).
        encoding: As for :func:`read_table` (CSV).

    Returns:
        Those rows in file order: the file's columns (held names), then ``source_row``.

    Raises:
        InputMissingError, InputDataError: as :func:`read_table`.
    """
    from elo_batch.inputs import csvfile, textfile

    if isinstance(source, FrameInput):
        frame, _ = _frame_columns(source, None)
        try:
            return _frame_plan(frame, source, trim, rows).drop(SOURCE_FILE).collect()
        except pl.exceptions.PolarsError as exc:
            raise InputDataError(f"the frame cannot be read ({exc})", path=source.where) from exc
    path = source
    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
        if head == b"PAR1":
            return _parquet_whole_rows(path, path, rows, trim)
        with textfile.stored(path) as stored:
            if path.lower().endswith(PARQUET_SUFFIXES) or stored.head == b"PAR1":
                return _parquet_whole_rows(stored.source, path, rows, trim)
            return csvfile.read_csv_rows(stored, encoding, rows)
    except OSError as exc:
        raise unreadable(exc, path) from exc


def _parquet_whole_rows(source: str, path: str, rows: pl.Series, trim: bool) -> pl.DataFrame:
    """Rows ``rows`` of a Parquet file, every column (held names), streamed; then ``source_row``."""
    originals = _parquet_names(source, path)
    names = held_names(originals, path)
    try:
        frame = (
            pl.scan_parquet(source)
            .rename(dict(zip(originals, names, strict=True)))  # first: no user column is named like ours then
            .with_row_index("__source_row", offset=1)
            .filter(pl.col("__source_row").cast(pl.Int64).is_in(rows.cast(pl.Int64).implode()))
            .collect(engine="streaming")
        )
    except PARQUET_ERRORS as exc:  # polars raises several kinds for a corrupt file, a panic among them
        raise _not_parquet(exc, path) from exc
    return _parquet_rows(frame.drop("__source_row"), trim).with_columns(
        frame["__source_row"].cast(pl.Int64).alias(SOURCE_ROW)
    )


def _parquet_names(source: str, path: str) -> list[str]:
    """A Parquet file's column names, from its footer.

    Raises:
        InputDataError: the footer cannot be read (it names ``path``).
    """
    try:
        return list(pl.read_parquet_schema(source))
    except PARQUET_ERRORS as exc:  # polars raises several kinds for a corrupt file, a panic among them
        raise _not_parquet(exc, path) from exc


def _parquet_rows(frame: pl.DataFrame, trim: bool) -> pl.DataFrame:
    """Rows read from Parquet, with their ``source_row``; dictionary-encoded text (Categorical, Enum)
    as plain text; text trimmed with ``trim``."""
    return frame.with_columns(_DICTIONARY_AS_TEXT).with_columns(
        *([pl.col(pl.String).str.strip_chars()] if trim else []),
        pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias(SOURCE_ROW),
    )


#: Categorical and Enum columns (text a writer dictionary-encoded) read as the text they hold, so that
#: they are checked, trimmed and compared as every other text is.
_DICTIONARY_AS_TEXT = (cs.categorical() | cs.enum()).cast(pl.String)


def _digest(path: str) -> tuple[int, str]:
    """(bytes, SHA-256 hex digest) of a file, read a block at a time.

    Raises:
        InputMissingError: the file cannot be read.
    """
    try:
        with open(path, "rb") as handle:
            return os.fstat(handle.fileno()).st_size, hashlib.file_digest(handle, "sha256").hexdigest()
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
    size, digest = _digest(path)
    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
    except OSError as exc:
        raise unreadable(exc, path) from exc
    if size == 0 or not (head == b"PAR1" or path.lower().endswith(PARQUET_SUFFIXES)):
        whole, info = read_table(path, encoding=encoding, trim=trim)
        return whole.lazy(), info
    try:
        scan = pl.scan_parquet(path)
        columns = scan.collect_schema().names()
        rows = scan.select(pl.len()).collect().item()
    except PARQUET_ERRORS as exc:  # polars raises several kinds for a corrupt file, a panic among them
        raise _not_parquet(exc, path) from exc
    names = held_names(columns, path)
    frame = (
        scan.with_columns(_DICTIONARY_AS_TEXT)
        .with_columns(*([pl.col(pl.String).str.strip_chars()] if trim else []))
        .rename(dict(zip(columns, names, strict=True)))  # first: no user column is named like ours then
        .with_row_index("__source_row", offset=1)
        .with_columns(
            pl.col("__source_row").cast(pl.Int64).alias(SOURCE_ROW), pl.lit(path, pl.String).alias(SOURCE_FILE)
        )
        .drop("__source_row")
    )
    return frame, InputFile(path, size, digest, rows, "parquet", None, header=tuple(columns))


def _no_header(path: str, what: str) -> InputDataError:
    return InputDataError(
        what,
        path=path,
        hint="a CSV file needs at least its header line (a month with no games, or a list with no players, "
        "is the header alone); was the export interrupted?",
    )


#: What polars raises on a damaged Parquet file: an error of several kinds, or a Rust panic (a
#: ``BaseException``, not an ``Exception``).
PARQUET_ERRORS = (Exception, pl.exceptions.PanicException)
#: Polars errors that come from decoding a file's bytes (damage), not from a plan.
_DECODING = re.compile(r"parquet|out.of.spec|ARROW:schema|thrift|zstd|snappy|lz4|gzip|decompress", re.IGNORECASE)


def _read_parquet(source: str | io.BytesIO, path: str, columns: list[str] | None = None) -> pl.DataFrame:
    try:
        return pl.read_parquet(source, columns=columns)
    except PARQUET_ERRORS as exc:  # polars raises several kinds for a corrupt file, a panic among them
        raise _not_parquet(exc, path) from exc


def _not_parquet(exc: BaseException, path: str) -> InputDataError:
    return InputDataError(
        f"not a readable Parquet file ({_first_line(exc)})",
        path=path,
        hint="the file may be truncated or damaged (an interrupted copy?); write it again.",
    )


def _first_line(exc: BaseException) -> str:
    """The first line of an error's text; of a panic inside a polars worker, the worker's own message
    (``JoinError::Panic(Id(9), "index out of bounds...", ...)`` gives ``index out of bounds...``)."""
    text = str(exc).strip()
    inner = re.search(r'Panic\(Id\(\d+\), \\*"((?:(?!Panic\(Id).)*?)\\*", \.\.\.\)', text)
    if inner:
        return inner.group(1)
    return text.splitlines()[0] if text else type(exc).__name__


@contextlib.contextmanager
def reading(path: str) -> Iterator[None]:
    """Where a file's rows are read and checked (a scanned Parquet file is decoded only then): a panic
    of polars, or an error decoding the file's bytes, becomes an :class:`InputDataError` naming it.

    Raises:
        InputDataError: polars panicked on the file's values, or could not decode them.
    """
    try:
        yield
    except pl.exceptions.PanicException as exc:
        raise InputDataError(
            f"cannot read the values of this file (polars stopped: {_first_line(exc)})",
            path=path,
            hint="the file may be damaged, or hold values outside any usable range; write it again.",
        ) from exc
    except pl.exceptions.PolarsError as exc:
        if not _DECODING.search(str(exc)):
            raise
        raise _not_parquet(exc, path) from exc


#: Two or more bytes that form a UTF-8 character: their presence means the file is (partly) UTF-8.
_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
#: First bytes of files that are not text at all.
_BINARY = {b"PK\x03\x04": "a zip archive or an Excel workbook", b"\x1f\x8b": "gzip-compressed"}


def decode_text(data: bytes, path: str, encoding: str | None = None) -> tuple[str, str]:
    """Bytes of a text input file as text, as every reader of elo-batch decodes them.

    UTF-8 (with or without BOM) or UTF-16 with a BOM; else Windows-1252 when every byte is defined
    there and nothing in the file is UTF-8; ``encoding`` forces one.

    Returns:
        The text and the encoding used.

    Raises:
        UsageError: ``encoding`` is not a known encoding.
        InputDataError: the bytes are binary (zip, Excel, gzip, NUL characters), mix encodings, or are
            not text in any of these encodings; the message names the line of the first bad byte.
    """
    return _decode(data, path, encoding)


def _decode(data: bytes, path: str, encoding: str | None) -> tuple[str, str]:
    if encoding:
        try:
            return data.decode(encoding), encoding
        except LookupError as exc:
            raise UsageError(f"{encoding!r} is not a text encoding", option="encoding") from exc
        except UnicodeDecodeError as exc:
            raise InputDataError(
                f"byte 0x{data[exc.start]:02X} on line {_line_of(data, exc.start)} is not {encoding}",
                path=path,
                hint="name the encoding the file was saved in (utf-8, cp1252, latin-1, ...).",
            ) from exc
    for magic, kind in _BINARY.items():
        if data.startswith(magic):
            raise InputDataError(f"the file is {kind}, not CSV text", path=path, hint="export it as CSV text.")
    if data.startswith(codecs.BOM_UTF8):
        name = "utf-8-sig"
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        name = "utf-16"
    else:
        name = "utf-8"
    try:
        text = data.decode(name)
    except UnicodeDecodeError as exc:
        text, name = _decode_legacy(data, path, exc, name)
    if "\x00" in text:
        raise InputDataError(
            f"the file holds NUL characters (line {text.count(chr(10), 0, text.index(chr(0))) + 1}): "
            "it is binary, or UTF-16 text without a byte-order mark",
            path=path,
            hint=f"save it as UTF-8 CSV, or name its encoding with {option('encoding')} (for example utf-16-le).",
        )
    return text, name


def _decode_legacy(data: bytes, path: str, exc: UnicodeDecodeError, tried: str) -> tuple[str, str]:
    """A file that is not UTF-8: Windows-1252 when that reads every byte and nothing in it is UTF-8."""
    where = f"byte 0x{data[exc.start]:02X} on line {_line_of(data, exc.start)}"
    if tried == "utf-8" and _UTF8_SEQUENCE.search(data):
        raise InputDataError(
            f"the file mixes encodings: {where} is not UTF-8, while other characters are UTF-8",
            path=path,
            hint="fix or re-save the file as UTF-8; if it really is one legacy encoding, name it with "
            f"{option('encoding')} (for example cp1252).",
        ) from exc
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        raise InputDataError(
            f"the file is not UTF-8 or Windows-1252 text ({where})",
            path=path,
            hint=f"save it as UTF-8, or name its encoding with {option('encoding')} (for example latin-1).",
        ) from exc


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


#: Column set by the CSV reader on rows whose field count differs from the header's: the reason.
RAGGED = "__ragged__"


def _normalise_names(frame: pl.DataFrame, path: str) -> pl.DataFrame:
    return frame.rename(dict(zip(frame.columns, held_names(frame.columns, path), strict=True)))


def held_names(written: list[str] | tuple[str, ...], path: str) -> list[str]:
    """The names a file's columns are held under: normalised (trimmed, lower case, spaces and dashes as
    underscores), then escaped out of elo-batch's reserved names (:mod:`elo_batch.inputs.names`).

    Raises:
        InputDataError: two columns have the same normalised name.
    """
    names = [escape(_normalise(name)) for name in written]
    _check_unique(list(written), names, path)
    return names


def _check_unique(originals: list[str], names: list[str], path: str) -> None:
    seen: dict[str, str] = {}
    for original, name in zip(originals, names, strict=True):
        if name in seen:
            raise InputDataError(
                f"columns {seen[name]!r} and {original!r} both mean {unescape(name)!r}",
                path=path,
                hint="remove or rename one of them.",
            )
        seen[name] = original


def _normalise(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lstrip("\ufeff").strip().lower())
