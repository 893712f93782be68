"""Reading input tables: files, globs and folders; CSV (encoding, separator) or Parquet; no rating rules.

Every table comes back with its header names normalised (trimmed, lower case, spaces and dashes as
underscores) and two extra columns: ``source_file`` (the path as given) and ``source_row`` (1-based data
row, header not counted). CSV cells are read as text, so that ids keep leading zeros and every value can
be checked before it is used; Parquet columns keep their types.
"""

from __future__ import annotations

import codecs
import csv
import glob
import hashlib
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from elo_batch.columns import SOURCE_FILE, SOURCE_ROW
from elo_batch.errors import InputDataError, InputMissingError

CSV_SUFFIXES = (".csv", ".tsv", ".txt")
PARQUET_SUFFIXES = (".parquet", ".pq")
SEPARATORS = (",", ";", "\t", "|")


@dataclass(frozen=True)
class InputFile:
    """One input file as read: what the manifest records about it.

    Attributes:
        path: The path as given (or as found in a folder or glob).
        size: Bytes.
        sha256: Hex digest of the file's bytes.
        rows: Data rows read (header not counted).
        encoding: Text encoding used (CSV), or ``parquet``.
        separator: Field separator (CSV), or None.
    """

    path: str
    size: int
    sha256: str
    rows: int
    encoding: str
    separator: str | None


def expand_paths(paths: list[str] | tuple[str, ...]) -> list[str]:
    """Files named by paths, globs or folders, in a stable order.

    Args:
        paths: Files, glob patterns (``games/*.csv``) or folders (all CSV and Parquet files inside,
            recursively, sorted by path).

    Returns:
        File paths, folders and globs expanded in sorted order, duplicates removed.

    Raises:
        InputMissingError: a path does not exist, or a glob or folder holds no CSV or Parquet file.
    """
    found: list[str] = []
    for given in paths:
        if os.path.isdir(given):
            inside = sorted(
                str(p)
                for p in Path(given).rglob("*")
                if p.is_file() and p.suffix.lower() in CSV_SUFFIXES + PARQUET_SUFFIXES
            )
            if not inside:
                raise InputMissingError("folder holds no .csv or .parquet file", path=given)
            found.extend(inside)
        elif os.path.exists(given):
            found.append(given)
        elif glob.has_magic(given):
            matched = sorted(p for p in glob.glob(given, recursive=True) if os.path.isfile(p))
            if not matched:
                raise InputMissingError("no file matches this pattern", path=given)
            found.extend(matched)
        else:
            raise InputMissingError("no such file", path=given, hint="check the path; globs must be quoted.")
    return list(dict.fromkeys(found))


def read_table(path: str, *, encoding: str | None = None) -> tuple[pl.DataFrame, InputFile]:
    """Read one CSV or Parquet file.

    Args:
        path: A file ending in .csv/.tsv/.txt or .parquet/.pq (anything else is sniffed: Parquet
            files start with ``PAR1``).
        encoding: Force a text encoding for CSV (``utf-8``, ``cp1252``, ``latin-1``, ...); by default
            UTF-8 (with or without BOM) or UTF-16 with a BOM, else Windows-1252 when every byte is
            defined there, else the file is refused.

    Returns:
        The table (normalised header names, plus ``source_file`` and ``source_row``) and what the
        manifest records about the file.

    Raises:
        InputMissingError: the file cannot be opened or read.
        InputDataError: the file is empty (0 bytes), not decodable as text, or not a valid CSV or
            Parquet file, or two columns have the same normalised name.
    """
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise InputMissingError(f"cannot read the file ({exc.strerror or exc})", path=path) from exc
    digest = hashlib.sha256(data).hexdigest()
    if not data:
        raise InputDataError(
            "the file is empty (0 bytes)",
            path=path,
            hint="a file with no games still needs its header line; was the export interrupted?",
        )
    if data[:4] == b"PAR1" or path.lower().endswith(PARQUET_SUFFIXES):
        frame = _read_parquet(data, path)
        used_encoding, separator = "parquet", None
    else:
        text, used_encoding = _decode(data, path, encoding)
        separator = _sniff_separator(text)
        frame = _read_csv(text, separator, path)
    frame = _normalise_names(frame, path)
    frame = frame.with_columns(
        pl.lit(path, pl.String).alias(SOURCE_FILE),
        pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias(SOURCE_ROW),
    )
    return frame, InputFile(path, len(data), digest, frame.height, used_encoding, separator)


def _read_parquet(data: bytes, path: str) -> pl.DataFrame:
    try:
        return pl.read_parquet(io.BytesIO(data))
    except Exception as exc:  # polars raises several kinds for a corrupt file
        raise InputDataError(f"not a readable Parquet file ({exc})", path=path) from exc


def _decode(data: bytes, path: str, encoding: str | None) -> tuple[str, str]:
    if encoding:
        try:
            return data.decode(encoding), encoding
        except (UnicodeDecodeError, LookupError) as exc:
            raise InputDataError(f"cannot decode the file as {encoding} ({exc})", path=path) from exc
    if data.startswith(codecs.BOM_UTF8):
        candidates = ["utf-8-sig"]
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        candidates = ["utf-16"]
    else:
        candidates = ["utf-8", "cp1252"]
    for name in candidates:
        try:
            text = data.decode(name)
        except UnicodeDecodeError:
            continue
        if "\x00" in text:
            break
        return text, name
    raise InputDataError(
        "the file is not UTF-8 or Windows-1252 text",
        path=path,
        hint="save it as UTF-8, or name its encoding with --encoding (for example latin-1).",
    )


def _sniff_separator(text: str) -> str:
    header = text.lstrip("\ufeff").splitlines()[0] if text.strip() else ""
    counts = {sep: _count_outside_quotes(header, sep) for sep in SEPARATORS}
    best = max(SEPARATORS, key=lambda sep: counts[sep])
    return best if counts[best] else ","


def _count_outside_quotes(line: str, sep: str) -> int:
    return len(re.sub(r'"[^"]*"', "", line).split(sep)) - 1


def _read_csv(text: str, separator: str, path: str) -> pl.DataFrame:
    try:
        frame = pl.read_csv(
            text.encode("utf-8"),
            separator=separator,
            infer_schema=False,
            raise_if_empty=False,
            missing_columns="insert",
        )
    except pl.exceptions.PolarsError:
        frame = _read_csv_ragged(text, separator)
    return frame.with_columns(pl.all().str.strip_chars())


def _read_csv_ragged(text: str, separator: str) -> pl.DataFrame:
    """Python's csv module for files polars refuses (rows with more fields than the header)."""
    rows = list(csv.reader(io.StringIO(text), delimiter=separator))
    header, body = rows[0], rows[1:]
    width = len(header)
    columns: dict[str, list[str | None]] = {name: [] for name in header}
    extra: list[str | None] = []
    for row in body:
        for index, name in enumerate(header):
            columns[name].append(row[index] if index < len(row) and row[index] != "" else None)
        extra.append(None if len(row) == width else f"{len(row)} fields where the header has {width}")
    frame = pl.DataFrame(columns, schema={name: pl.String for name in header})
    return frame.with_columns(pl.Series(RAGGED, extra, pl.String))


#: Column set by the CSV reader on rows whose field count differs from the header's.
RAGGED = "__ragged__"


def _normalise_names(frame: pl.DataFrame, path: str) -> pl.DataFrame:
    names = [_normalise(name) if name != RAGGED else name for name in frame.columns]
    seen: dict[str, str] = {}
    for original, name in zip(frame.columns, names, strict=True):
        if name in seen:
            raise InputDataError(
                f"columns {seen[name]!r} and {original!r} both mean {name!r}",
                path=path,
                hint="remove or rename one of them.",
            )
        seen[name] = original
    return frame.rename(dict(zip(frame.columns, names, strict=True)))


def _normalise(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lstrip("\ufeff").strip().lower())
