"""Reading Parquet inputs: whole, some columns or some rows, hashed; damage and panics as errors naming it."""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import io
import os
import re
from collections.abc import Collection, Iterator
from typing import TYPE_CHECKING

import polars as pl

from elo_batch import working as w
from elo_batch.columns import SOURCE_FILE, SOURCE_ROW
from elo_batch.contract.tables import InputFile
from elo_batch.errors import InputDataError
from elo_batch.inputs.inputfile import DICTIONARY_AS_TEXT, held_names, normalise_names
from elo_batch.inputs.panics import quiet_panics
from elo_batch.inputs.paths import unreadable

if TYPE_CHECKING:
    from elo_batch.inputs import textfile


def read_parquet_file(
    path: str, trim: bool, columns: Collection[str] | None, *, stored: textfile.Stored | None = None
) -> tuple[pl.DataFrame, InputFile]:
    """A Parquet file: read by polars from the file (no copy of its bytes; only the ``columns`` asked
    for) while another thread hashes it; with ``stored``, from its content (what a gzip file holds),
    already hashed."""
    source = path if stored is None else stored.source
    with concurrent.futures.ThreadPoolExecutor(1) as pool, quiet_panics():
        digest = pool.submit(file_digest, path) if stored is None else None
        originals = parquet_names(source, path)
        names = held_names(originals, path)
        wanted = None
        if columns is not None:  # at least one column, for the number of rows
            wanted = [o for o, n in zip(originals, names, strict=True) if n in columns] or originals[:1]
        frame = parquet_rows(normalise_names(_read_parquet(source, path, wanted), path), trim)
        size, sha256 = digest.result() if digest is not None else (stored.size, stored.sha256)  # type: ignore[union-attr]
    frame = frame.with_columns(pl.lit(path, pl.String).alias(SOURCE_FILE))
    return frame, InputFile(path, size, sha256, frame.height, "parquet", None, header=tuple(originals))


def parquet_whole_rows(source: str, path: str, rows: pl.Series, *, trim: bool) -> pl.DataFrame:
    """Rows ``rows`` of a Parquet file, every column (held names), streamed; then ``source_row``."""
    originals = parquet_names(source, path)
    names = held_names(originals, path)
    try:
        with quiet_panics():
            frame = (
                pl.scan_parquet(source)
                .rename(dict(zip(originals, names, strict=True)))  # first: no user column is named like ours then
                .with_row_index(w.ROW_NUMBER, offset=1)
                .filter(pl.col(w.ROW_NUMBER).cast(pl.Int64).is_in(rows.cast(pl.Int64).implode()))
                .collect(engine="streaming")
            )
    except PARQUET_ERRORS as exc:  # polars raises several kinds for a corrupt file, a panic among them
        raise not_parquet(exc, path) from exc
    return parquet_rows(frame.drop(w.ROW_NUMBER), trim).with_columns(
        frame[w.ROW_NUMBER].cast(pl.Int64).alias(SOURCE_ROW)
    )


def parquet_names(source: str, path: str) -> list[str]:
    """A Parquet file's column names, from its footer.

    Raises:
        InputDataError: the footer cannot be read (it names ``path``), or two columns have one name.
    """
    try:
        with quiet_panics():
            return list(pl.read_parquet_schema(source))
    except PARQUET_ERRORS as exc:  # polars raises several kinds for a corrupt file, a panic among them
        held_names(_footer_names(source), path)  # a valid file that polars refuses: two columns of one name
        raise not_parquet(exc, path) from exc


def _footer_names(source: str) -> list[str]:
    """The column names in a Parquet file's footer as pyarrow reads them (duplicates kept), or none."""
    import pyarrow.parquet as pq

    try:
        return list(pq.read_schema(source).names)
    except Exception:  # damaged: the caller reports it
        return []


def parquet_rows(frame: pl.DataFrame, trim: bool) -> pl.DataFrame:
    """Rows read from Parquet, with their ``source_row``; dictionary-encoded text (Categorical, Enum)
    as plain text; text trimmed with ``trim``."""
    return frame.with_columns(DICTIONARY_AS_TEXT).with_columns(
        *([pl.col(pl.String).str.strip_chars()] if trim else []),
        pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias(SOURCE_ROW),
    )


def file_digest(path: str) -> tuple[int, str]:
    """(bytes, SHA-256 hex digest) of a file, read a block at a time.

    Raises:
        InputMissingError: the file cannot be read.
    """
    try:
        with open(path, "rb") as handle:
            return os.fstat(handle.fileno()).st_size, hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as exc:
        raise unreadable(exc, path) from exc


#: What polars raises on a damaged Parquet file: an error of several kinds, or a Rust panic (a
#: ``BaseException``, not an ``Exception``).
PARQUET_ERRORS = (Exception, pl.exceptions.PanicException)
#: Polars errors that come from decoding a file's bytes (damage), not from a plan.
_DECODING = re.compile(r"parquet|out.of.spec|ARROW:schema|thrift|zstd|snappy|lz4|gzip|decompress", re.IGNORECASE)


def _read_parquet(source: str | io.BytesIO, path: str, columns: list[str] | None = None) -> pl.DataFrame:
    try:
        with quiet_panics():
            return pl.read_parquet(source, columns=columns)
    except PARQUET_ERRORS as exc:  # polars raises several kinds for a corrupt file, a panic among them
        raise not_parquet(exc, path) from exc


def not_parquet(exc: BaseException, path: str) -> InputDataError:
    return InputDataError(
        f"not a readable Parquet file ({first_line(exc)})",
        path=path,
        hint="the file may be truncated or damaged (an interrupted copy?); write it again.",
    )


def first_line(exc: BaseException) -> str:
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
        with quiet_panics():
            yield
    except pl.exceptions.PanicException as exc:
        raise InputDataError(
            f"cannot read the values of this file (polars stopped: {first_line(exc)})",
            path=path,
            hint="the file may be damaged, or hold values outside any usable range; write it again.",
        ) from exc
    except pl.exceptions.PolarsError as exc:
        if not _DECODING.search(str(exc)):
            raise
        raise not_parquet(exc, path) from exc
