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
import csv
import glob
import gzip
import hashlib
import io
import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import polars as pl
import polars.selectors as cs

from elo_batch.columns import SOURCE_FILE, SOURCE_ROW
from elo_batch.errors import InputDataError, InputMissingError, UsageError, option
from elo_batch.inputs.names import escape, unescape

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
    source: FrameInput, *, trim: bool = True, lazy: bool = False
) -> tuple[pl.DataFrame | pl.LazyFrame, InputFile]:
    """A frame as the table :func:`read_table` gives for a file: names normalised, dictionary-encoded
    text as text, text trimmed with ``trim``, ``source_row`` its 1-based row, ``source_file`` its name
    (or null). The caller's frame is not changed.

    Args:
        source: The frame and its name.
        trim: As for :func:`read_table`.
        lazy: Give a LazyFrame (a LazyFrame's plan then runs whenever the table is read, as a scanned
            Parquet file is read again); else a DataFrame (a LazyFrame is collected once, here).

    Raises:
        InputDataError: not a polars or pyarrow table, its plan fails, or two columns have the same
            normalised name.
    """
    frame = _as_polars(source)
    where = source.where
    try:
        columns = frame.collect_schema().names()
    except pl.exceptions.PolarsError as exc:
        raise InputDataError(f"the frame cannot be read ({exc})", path=where) from exc
    names = _held_names(columns, where)
    plan = (
        frame.lazy()
        .with_columns(_DICTIONARY_AS_TEXT)
        .with_columns(*([pl.col(pl.String).str.strip_chars()] if trim else []))
        .rename(dict(zip(columns, names, strict=True)))
        .with_row_index("__source_row", offset=1)
        .with_columns(
            pl.col("__source_row").cast(pl.Int64).alias(SOURCE_ROW), pl.lit(source.name, pl.String).alias(SOURCE_FILE)
        )
        .drop("__source_row")
    )
    table: pl.DataFrame | pl.LazyFrame = plan
    if lazy:
        rows = frame_rows(source)
    else:
        try:
            table = plan.collect()
        except pl.exceptions.PolarsError as exc:
            raise InputDataError(f"the frame cannot be read ({exc})", path=where) from exc
        rows = table.height
    return table, InputFile(where, 0, "", rows, "frame", None, unnamed=source.name is None, header=tuple(columns))


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


def read_table(path: str, *, encoding: str | None = None, trim: bool = True) -> tuple[pl.DataFrame, InputFile]:
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
    - a gzip-compressed file (``games.csv.gz``) is read as the table it holds, up to
      :data:`GZIP_RATIO` times its size.

    Args:
        path: A file ending in .csv/.tsv/.txt or .parquet/.pq (anything else is sniffed: Parquet
            files start with ``PAR1``).
        encoding: Force a text encoding for CSV (``utf-8``, ``cp1252``, ``latin-1``, ...); by default
            UTF-8 (with or without BOM) or UTF-16 with a BOM, else Windows-1252 (a superset of the
            printable latin-1) when every byte is defined there and the file is not part UTF-8,
            else the file is refused.
        trim: Trim the text of Parquet String columns. False leaves it as written, for a caller that
            trims only what it reads (CSV cells are always trimmed: an empty cell is null).

    Returns:
        The table (normalised header names, text cells trimmed (Parquet text: with ``trim``), plus
        ``source_file`` and ``source_row``) and what the manifest records about the file.

    Raises:
        InputMissingError: the file cannot be opened or read.
        InputDataError: the file has no header, is not decodable as text, is not a valid CSV or
            Parquet file, or two columns have the same normalised name.
        UsageError: ``encoding`` is not an encoding Python knows.
    """
    try:
        with open(path, "rb") as handle:
            if handle.read(4) == b"PAR1":  # read by polars from the file, hashed meanwhile
                return _read_parquet_file(path, trim)
            handle.seek(0)
            data = handle.read()
    except OSError as exc:
        raise unreadable(exc, path) from exc
    digest, size = hashlib.sha256(data).hexdigest(), len(data)
    if data.startswith(GZIP_MAGIC):  # a .csv.gz (or any gzip-compressed table): read what it holds
        data = _gunzip(data, path)
    if not data.strip():
        raise _no_header(path, "the file is empty (0 bytes)" if not data else "the file holds only blank lines")
    blank = 0
    if path.lower().endswith(PARQUET_SUFFIXES) or data.startswith(b"PAR1"):  # bytes that are not a file's
        raw = _read_parquet(io.BytesIO(data), path)
        header, frame = tuple(raw.columns), _parquet_rows(_normalise_names(raw, path), trim)
        used_encoding, separator = "parquet", None
    else:
        text, used_encoding = _decode(data, path, encoding)
        if not text.strip():
            raise _no_header(path, "the file holds only blank lines")
        named = text
        text, separator = _separator(text)
        _check_header_line(text, path, line=1 if text is named else 2)
        frame, blank, header = _read_csv(text, separator, path)
    frame = frame.with_columns(pl.lit(path, pl.String).alias(SOURCE_FILE))
    return frame, InputFile(path, size, digest, frame.height, used_encoding, separator, blank, header=header)


#: First bytes of a gzip stream.
GZIP_MAGIC = b"\x1f\x8b"
#: A gzip-compressed input may inflate to this many times its size (past :data:`GZIP_FLOOR`); more is
#: refused as a likely decompression bomb (a CSV export compresses 5 to 20 times).
GZIP_RATIO = 100
#: Inflated bytes any gzip-compressed input may reach, whatever its ratio.
GZIP_FLOOR = 64 * 2**20


def _gunzip(data: bytes, path: str) -> bytes:
    """The bytes a gzip file holds (every member of it), up to the limits above.

    Raises:
        InputDataError: the file is not a readable gzip stream, or inflates past the limit.
    """
    limit = max(GZIP_FLOOR, GZIP_RATIO * len(data))
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            inflated = stream.read(limit + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputDataError(
            f"not a readable gzip file ({exc})",
            path=path,
            hint="the file may be truncated (an interrupted copy?); compress it again, or give it uncompressed.",
        ) from exc
    if len(inflated) > limit:
        raise InputDataError(
            f"the gzip file inflates to more than {limit:,} bytes (the limit: {GZIP_RATIO} times its size, at "
            f"least {GZIP_FLOOR // 2**20} MiB); refused as a likely decompression bomb",
            path=path,
            hint="give the file uncompressed if it really is this large.",
        )
    return inflated


def _check_header_line(text: str, path: str, *, line: int) -> None:
    """Refuse a CSV text whose header line (``line`` of the file) is blank: the names would be read from
    nowhere and every row would shift by one."""
    if not re.split(r"\r\n|\r|\n", text, maxsplit=1)[0].strip():
        raise InputDataError(
            f"line {line} is blank: the header (the column names) must be the first line",
            path=path,
            hint="remove the blank line(s) above the header.",
        )


def _read_parquet_file(path: str, trim: bool) -> tuple[pl.DataFrame, InputFile]:
    """A file that starts with ``PAR1``: read by polars from the path (no copy of its bytes) while
    another thread hashes it."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        digest = pool.submit(_digest, path)
        raw = _read_parquet(path, path)
        frame = _parquet_rows(_normalise_names(raw, path), trim)
        size, sha256 = digest.result()
    frame = frame.with_columns(pl.lit(path, pl.String).alias(SOURCE_FILE))
    return frame, InputFile(path, size, sha256, frame.height, "parquet", None, header=tuple(raw.columns))


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
    names = _held_names(columns, path)
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


def _read_parquet(source: str | io.BytesIO, path: str) -> pl.DataFrame:
    try:
        return pl.read_parquet(source)
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


def _separator(text: str) -> tuple[str, str]:
    """(text without an Excel ``sep=`` line, separator): that line's, else the header's most frequent."""
    end = text.find("\n")  # the first line alone: a partition would copy the whole file
    first = text if end < 0 else text[:end]
    named = re.fullmatch(r"\s*sep=(.)\s*", first, flags=re.IGNORECASE)
    if named:
        return "" if end < 0 else text[end + 1 :], named.group(1)
    counts = {sep: _count_outside_quotes(first, sep) for sep in SEPARATORS}
    best = max(SEPARATORS, key=lambda sep: counts[sep])
    return text, best if counts[best] else ","


def _count_outside_quotes(line: str, sep: str) -> int:
    return len(re.sub(r'"[^"]*"', "", line).split(sep)) - 1


def _read_csv(text: str, separator: str, path: str) -> tuple[pl.DataFrame, int, tuple[str, ...]]:
    """All cells as trimmed text, empty = null; (rows with ``source_row``, blank rows skipped, the
    header names as written)."""
    if "\r" in text and "\n" not in text:  # classic Mac line ends
        text = text.replace("\r", "\n")
    written, header = _header(text, separator, path)
    data = text.encode("utf-8")
    try:
        frame = pl.read_csv(
            data,
            separator=separator,
            new_columns=header,
            infer_schema=False,
            raise_if_empty=False,
            truncate_ragged_lines=True,
        )
        fields = _field_counts(text, data, separator, frame.height)
    except pl.exceptions.PolarsError:  # a stray quote: Python's csv reads on, the row is then ragged
        fields = None
    if fields is None:  # polars and Python's csv disagree on where rows end: trust the csv module
        frame, fields = _read_csv_python(text, separator, header, path)
    trimmed = [pl.col(name).str.strip_chars() for name in header]
    frame = frame.with_columns(
        *[pl.when(cell.str.len_bytes() > 0).then(cell).alias(name) for cell, name in zip(trimmed, header, strict=True)],
        pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias(SOURCE_ROW),
        fields.alias(RAGGED),
    )
    is_blank = pl.all_horizontal(pl.col(header).is_null())
    blank = frame.filter(is_blank).height
    if blank:
        frame = frame.filter(~is_blank)
    width = len(header)
    if frame.filter(pl.col(RAGGED) != width).height:
        reason = pl.format(
            f"the row has {{}} field{{}} where the header has {width}. Hint: a value that holds the separator "
            f"{separator!r} must be in double quotes.",
            pl.col(RAGGED),
            pl.when(pl.col(RAGGED) == 1).then(pl.lit("")).otherwise(pl.lit("s")),
        )
        spans_lines = pl.any_horizontal(pl.col(header).str.contains("\n", literal=True))
        reason = (
            pl.when(spans_lines)
            .then(
                pl.format(
                    "{} A quoted value in it runs over {} lines: is a closing quote missing?",
                    reason,
                    pl.max_horizontal(pl.col(header).str.count_matches("\n", literal=True)) + 1,
                )
            )
            .otherwise(reason)
        )
        return frame.with_columns(pl.when(pl.col(RAGGED) != width).then(reason).alias(RAGGED)), blank, written
    return frame.drop(RAGGED), blank, written


def _header(text: str, separator: str, path: str) -> tuple[tuple[str, ...], list[str]]:
    """Header names as written and as held (:func:`_held_names`); unnamed columns (a trailing
    separator) are called ``column_<n>``."""
    first = text[: text.find("\n") + 1] if "\n" in text else text
    if first.count('"') % 2:  # a quoted name with a line break in it
        first = text
    try:
        names = next(csv.reader(io.StringIO(first, newline=""), delimiter=separator))
    except (csv.Error, StopIteration) as exc:
        raise InputDataError(f"cannot read the header line ({exc})", path=path) from exc
    names = [name if name.strip() else f"column_{i}" for i, name in enumerate(names, 1)]
    return tuple(names), _held_names(names, path)


#: A character no text file holds, used as the separator to read whole lines.
_UNIT_SEPARATOR = "\x1f"


def _field_counts(text: str, data: bytes, separator: str, rows: int) -> pl.Series | None:
    """Fields per data row (0 for a blank line), or None when the counts do not line up with ``rows``."""
    if '"' not in text and _UNIT_SEPARATOR not in text:  # no quoting: a line is a row, fields = separators + 1
        lines = pl.read_csv(
            data,
            has_header=False,
            separator=_UNIT_SEPARATOR,
            quote_char=None,
            new_columns=["line"],
            infer_schema=False,
            raise_if_empty=False,
        )["line"].slice(1)
        counts = pl.select(
            pl.when(lines.is_not_null()).then(lines.str.count_matches(separator, literal=True) + 1).otherwise(0)
        ).to_series()
    else:
        try:
            counts = pl.Series([len(row) for row in csv.reader(io.StringIO(text, newline=""), delimiter=separator)])
        except csv.Error:
            return None
        counts = counts.slice(1)
    return counts.cast(pl.Int64) if counts.len() == rows else None


def _read_csv_python(text: str, separator: str, header: list[str], path: str) -> tuple[pl.DataFrame, pl.Series]:
    """Python's csv module for files whose rows polars splits differently or refuses."""
    try:
        body = list(csv.reader(io.StringIO(text, newline=""), delimiter=separator))[1:]
    except csv.Error as exc:
        raise InputDataError(f"not a readable CSV file ({exc})", path=path) from exc
    columns = {
        name: [row[i] if i < len(row) and row[i] != "" else None for row in body] for i, name in enumerate(header)
    }
    return pl.DataFrame(columns, schema=dict.fromkeys(header, pl.String)), pl.Series([len(row) for row in body])


#: Column set by the CSV reader on rows whose field count differs from the header's: the reason.
RAGGED = "__ragged__"


def _normalise_names(frame: pl.DataFrame, path: str) -> pl.DataFrame:
    return frame.rename(dict(zip(frame.columns, _held_names(frame.columns, path), strict=True)))


def _held_names(written: list[str] | tuple[str, ...], path: str) -> list[str]:
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
