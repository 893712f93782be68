"""How a table becomes a CSV or Parquet file: the one place for file settings; no rating rules."""

from __future__ import annotations

import errno
import io
import os
import re
from pathlib import Path
from typing import IO, Any, Literal

import polars as pl

from elo_batch.outputs.formulas import CsvFormulas, neutralise

Format = Literal["parquet", "csv"]
#: Parquet settings: zstd at level 1 (files about 2 % larger than at the default level 3, written in
#: half the compression time), column statistics for warehouse pruning.
PARQUET: dict[str, Any] = {"compression": "zstd", "compression_level": 1, "statistics": True}
#: Rows per row group of a frame in memory: fixed, so that the file does not depend on how the frame
#: happens to be chunked (a streamed sort chunks differently from run to run).
ROW_GROUP_ROWS = 100_000


def csv_safe(frame: pl.DataFrame | pl.LazyFrame) -> Any:
    """The frame with the columns CSV cannot hold turned into text: nested ones (list, array, struct,
    e.g. pass-through columns of a Parquet rating list) as JSON, binary ones as hex; others unchanged."""
    converted = []
    for name, dtype in frame.collect_schema().items():
        if isinstance(dtype, pl.Struct):
            converted.append(pl.col(name).struct.json_encode())
        elif isinstance(dtype, pl.List | pl.Array):
            converted.append(
                pl.struct(pl.col(name).alias("v")).struct.json_encode().str.json_path_match("$.v").alias(name)
            )
        elif dtype == pl.Binary:
            converted.append(pl.col(name).bin.encode("hex"))
    return frame.with_columns(converted) if converted else frame


def write_table(
    frame: pl.DataFrame | pl.LazyFrame,
    target: str | Path | IO[bytes],
    fmt: Format,
    csv_formulas: CsvFormulas = "escape",
) -> int:
    """Write ``frame`` as CSV (UTF-8, comma, header; see :func:`csv_safe`) or Parquet (:data:`PARQUET`).

    A lazy frame written to a path is run by the streaming engine straight into the file, never whole
    in memory. The bytes depend only on the frame: the same frame gives the same file.

    Args:
        frame: The table.
        target: A path or a binary file object.
        fmt: ``csv`` or ``parquet``.
        csv_formulas: ``escape``: CSV text cells that a spreadsheet would run as a formula get a
            leading quote (see :mod:`elo_batch.outputs.formulas`); ``keep``: written as they are.

    Returns:
        The rows written.

    Raises:
        OSError: the file cannot be written (a full disk, no permission), with its ``errno``: polars'
            own errors that carry an operating-system error are raised as that error.
    """
    try:
        return _write_table(frame, target, fmt, csv_formulas)
    except (pl.exceptions.PolarsError, OSError) as exc:
        error = os_error(exc, target)
        if error is None:
            raise
        raise error from exc


_OS_ERROR = re.compile(r"\(os error (\d+)\)")


def os_error(exc: BaseException, target: object = None) -> OSError | None:
    """The operating-system error inside a polars error, or None when it holds none.

    polars raises a Parquet file's failed write as ``ComputeError('parquet: ... underlying IO error:
    No space left on device (os error 28)')`` and a CSV file's as an ``OSError`` without ``errno``; an
    OSError that already has its ``errno`` is returned as it is.

    >>> os_error(pl.exceptions.ComputeError("underlying IO error: No space left on device (os error 28)"), "a")
    OSError(28, 'No space left on device')
    >>> os_error(pl.exceptions.ComputeError("cannot compare string with numeric type")) is None
    True
    """
    if isinstance(exc, OSError) and exc.errno is not None:
        return exc
    match = _OS_ERROR.search(str(exc))
    if match is None:
        return None
    code = int(match.group(1))
    strerror = os.strerror(code) if code in errno.errorcode else str(exc)
    if isinstance(target, str | Path):
        return OSError(code, strerror, str(target))
    return OSError(code, strerror)


def _write_table(
    frame: pl.DataFrame | pl.LazyFrame, target: str | Path | IO[bytes], fmt: Format, csv_formulas: CsvFormulas
) -> int:
    if isinstance(frame, pl.LazyFrame):
        if not isinstance(target, str | Path):
            frame = frame.collect()
        else:
            if fmt == "csv":
                frame.pipe(_csv_cells, csv_formulas).sink_csv(target)
                return pl.scan_csv(target, infer_schema=False).select(pl.len()).collect().item()
            frame.sink_parquet(target, **PARQUET)
            return pl.scan_parquet(target).select(pl.len()).collect().item()
    if fmt == "csv":
        _csv_cells(frame, csv_formulas).write_csv(target)
    else:
        frame.write_parquet(target, row_group_size=ROW_GROUP_ROWS, **PARQUET)
    return frame.height


def _csv_cells(frame: pl.DataFrame | pl.LazyFrame, csv_formulas: CsvFormulas) -> Any:
    safe = csv_safe(frame)
    return neutralise(safe) if csv_formulas == "escape" else safe


def table_bytes(frame: pl.DataFrame | pl.LazyFrame, fmt: Format, *, csv_formulas: CsvFormulas = "escape") -> bytes:
    """The file :func:`write_table` would write, as bytes (for object stores)."""
    buffer = io.BytesIO()
    write_table(frame, buffer, fmt, csv_formulas=csv_formulas)
    return buffer.getvalue()
