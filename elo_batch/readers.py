"""Reading input tables: files, globs and folders; CSV (encoding, separator) or Parquet; no rating rules.

Every table comes back with its header names normalised (trimmed, lower case, spaces and dashes as
underscores) and two extra columns: ``source_file`` (the path as given) and ``source_row`` (1-based data
row, header not counted). CSV cells are read as text, so that ids keep leading zeros and every value can
be checked before it is used; Parquet columns keep their types (text trimmed, unless the caller asks
for it as written).
"""

from __future__ import annotations

import codecs
import concurrent.futures
import dataclasses
import glob
import hashlib
import io
import os
import re
from collections.abc import Collection

import polars as pl
import polars.selectors as cs

from elo_batch.columns import SOURCE_FILE, SOURCE_ROW
from elo_batch.errors import InputDataError, InputMissingError, UsageError

CSV_SUFFIXES = (".csv", ".tsv", ".txt")
PARQUET_SUFFIXES = (".parquet", ".pq")
SEPARATORS = (",", ";", "\t", "|")


@dataclasses.dataclass(frozen=True)
class InputFile:
    """One input file as read: what the manifest records about it.

    Attributes:
        path: The path as given (or as found in a folder or glob).
        size: Bytes.
        sha256: Hex digest of the file's bytes.
        rows: Data rows read (header not counted).
        encoding: Text encoding used (CSV), or ``parquet``.
        separator: Field separator (CSV), or None.
        blank_rows: Blank CSV lines skipped (not counted in ``rows``).
        notes: What the user should know about how the file was read (shown as warnings).
        columns: Every column of the file (normalised names), read or not (see ``columns`` of
            :func:`read_table`).
    """

    path: str
    size: int
    sha256: str
    rows: int
    encoding: str
    separator: str | None
    blank_rows: int = 0
    notes: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()


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
            column="--encoding",
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
    - an Excel ``sep=;`` first line names the separator.

    Args:
        path: A file ending in .csv/.tsv/.txt or .parquet/.pq (anything else is sniffed: Parquet
            files start with ``PAR1``).
        encoding: Force a text encoding for CSV (``utf-8``, ``cp1252``, ``latin-1``, ...); by default
            UTF-8 (with or without BOM) or UTF-16 with a BOM, else Windows-1252 (a superset of the
            printable latin-1) when every byte is defined there and the file is not part UTF-8,
            else the file is refused.
        trim: Trim the text of Parquet String columns. False leaves it as written, for a caller that
            trims only what it reads (CSV cells are always trimmed: an empty cell is null).
        columns: Normalised names of the columns to read: the others are never held (a wide column
            nobody uses costs no memory); :func:`read_rows` reads whole rows later. None reads every
            column.

    Returns:
        The table (normalised header names, text cells trimmed (Parquet text: with ``trim``), plus
        ``source_file`` and ``source_row``) and what the manifest records about the file.

    Raises:
        InputMissingError: the file cannot be opened or read.
        InputDataError: the file has no header, is not decodable as text, is not a valid CSV or
            Parquet file, or two columns have the same normalised name.
        UsageError: ``encoding`` is not an encoding Python knows.
    """
    from elo_batch.csvfile import read_csv_file  # which reads with this module's helpers

    try:
        with open(path, "rb") as handle:
            if handle.read(4) == b"PAR1":  # read by polars from the file, hashed meanwhile
                return _read_parquet_file(path, trim, columns)
            handle.seek(0)
            if path.lower().endswith(PARQUET_SUFFIXES):  # not a Parquet file (it does not start with PAR1)
                data = handle.read()
                if not data.strip():
                    raise _no_header(
                        path, "the file is empty (0 bytes)" if not data else "the file holds only blank lines"
                    )
                _read_parquet(io.BytesIO(data), path)  # says what is wrong
        table = read_csv_file(path, encoding, columns)  # never whole in memory as bytes or text
    except OSError as exc:
        raise unreadable(exc, path) from exc
    frame = _normalise_names(table.frame, path)
    frame = frame.with_columns(pl.lit(path, pl.String).alias(SOURCE_FILE))
    names = tuple(_normalise(name) for name in table.header)
    info = InputFile(
        path, table.text.size, table.text.sha256, frame.height, table.encoding, table.separator, table.blank_rows
    )
    return frame, dataclasses.replace(info, columns=names)


def _read_parquet_file(path: str, trim: bool, columns: Collection[str] | None) -> tuple[pl.DataFrame, InputFile]:
    """A file that starts with ``PAR1``: read by polars from the path (no copy of its bytes; only the
    ``columns`` asked for) while another thread hashes it."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        digest = pool.submit(_digest, path)
        originals = _parquet_names(path)
        names = [_normalise(name) for name in originals]
        _check_unique(originals, names, path)
        wanted = None
        if columns is not None:  # at least one column, for the number of rows
            wanted = [o for o, n in zip(originals, names, strict=True) if n in columns] or originals[:1]
        frame = _normalise_names(_parquet_rows(_read_parquet(path, path, wanted), trim), path)
        size, sha256 = digest.result()
    frame = frame.with_columns(pl.lit(path, pl.String).alias(SOURCE_FILE))
    return frame, InputFile(path, size, sha256, frame.height, "parquet", None, columns=tuple(names))


def read_rows(path: str, rows: pl.Series, *, trim: bool = True, encoding: str | None = None) -> pl.DataFrame:
    """Whole rows of a file, every column, as :func:`read_table` reads them.

    For the few rows (rejected ones) whose every value is wanted after the file was read for some
    columns only: the file is streamed, a chunk at a time, and only these rows are kept.

    Args:
        path: A file :func:`read_table` has read.
        rows: ``source_row`` numbers (1-based).
        trim: As for :func:`read_table` (Parquet; CSV cells are always trimmed).
        encoding: As for :func:`read_table` (CSV).

    Returns:
        Those rows in file order: the file's columns (normalised names), then ``source_row``.

    Raises:
        InputMissingError, InputDataError: as :func:`read_table`.
    """
    from elo_batch.csvfile import read_csv_rows

    try:
        with open(path, "rb") as handle:
            parquet = handle.read(4) == b"PAR1"
        if not parquet:
            whole = read_csv_rows(path, encoding, rows)
            return whole.rename({name: _normalise(name) for name in whole.columns if name != SOURCE_ROW})
    except OSError as exc:
        raise unreadable(exc, path) from exc
    originals = _parquet_names(path)
    try:
        frame = (
            pl.scan_parquet(path)
            .with_row_index("__source_row", offset=1)
            .filter(pl.col("__source_row").cast(pl.Int64).is_in(rows.cast(pl.Int64).implode()))
            .collect(engine="streaming")
        )
    except Exception as exc:  # polars raises several kinds for a corrupt file
        raise _not_parquet(exc, path) from exc
    frame = _parquet_rows(frame.drop("__source_row"), trim).with_columns(
        frame["__source_row"].cast(pl.Int64).alias(SOURCE_ROW)
    )
    return frame.rename({o: _normalise(o) for o in originals})


def _parquet_names(path: str) -> list[str]:
    """A Parquet file's column names, from its footer."""
    try:
        return list(pl.read_parquet_schema(path))
    except Exception as exc:  # polars raises several kinds for a corrupt file
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
    except Exception as exc:  # polars raises several kinds for a corrupt file
        raise _not_parquet(exc, path) from exc
    names = [_normalise(name) for name in columns]
    _check_unique(columns, names, path)
    frame = (
        scan.with_columns(_DICTIONARY_AS_TEXT)
        .with_columns(*([pl.col(pl.String).str.strip_chars()] if trim else []))
        .with_row_index("__source_row", offset=1)
        .rename(dict(zip(columns, names, strict=True)))
        .with_columns(
            pl.col("__source_row").cast(pl.Int64).alias(SOURCE_ROW), pl.lit(path, pl.String).alias(SOURCE_FILE)
        )
        .drop("__source_row")
    )
    return frame, InputFile(path, size, digest, rows, "parquet", None, columns=tuple(names))


def _no_header(path: str, what: str) -> InputDataError:
    return InputDataError(
        what,
        path=path,
        hint="a CSV file needs at least its header line (a month with no games, or a list with no players, "
        "is the header alone); was the export interrupted?",
    )


def _read_parquet(source: str | io.BytesIO, path: str, columns: list[str] | None = None) -> pl.DataFrame:
    try:
        return pl.read_parquet(source, columns=columns)
    except Exception as exc:  # polars raises several kinds for a corrupt file
        raise _not_parquet(exc, path) from exc


def _not_parquet(exc: Exception, path: str) -> InputDataError:
    return InputDataError(
        f"not a readable Parquet file ({exc})",
        path=path,
        hint="the file may be truncated (an interrupted copy?); write it again.",
    )


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
            raise UsageError(f"{encoding!r} is not a text encoding", column="--encoding") from exc
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
            hint="save it as UTF-8 CSV, or name its encoding with --encoding (for example utf-16-le).",
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
            "--encoding (for example cp1252).",
        ) from exc
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        raise InputDataError(
            f"the file is not UTF-8 or Windows-1252 text ({where})",
            path=path,
            hint="save it as UTF-8, or name its encoding with --encoding (for example latin-1).",
        ) from exc


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


#: Column set by the CSV reader on rows whose field count differs from the header's: the reason.
RAGGED = "__ragged__"


def _normalise_names(frame: pl.DataFrame, path: str) -> pl.DataFrame:
    keep = (RAGGED, SOURCE_ROW)
    names = [name if name in keep else _normalise(name) for name in frame.columns]
    _check_unique(frame.columns, names, path)
    return frame.rename(dict(zip(frame.columns, names, strict=True)))


def _check_unique(originals: list[str], names: list[str], path: str) -> None:
    seen: dict[str, str] = {}
    for original, name in zip(originals, names, strict=True):
        if name in seen:
            raise InputDataError(
                f"columns {seen[name]!r} and {original!r} both mean {name!r}",
                path=path,
                hint="remove or rename one of them.",
            )
        seen[name] = original


def _normalise(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lstrip("\ufeff").strip().lower())
