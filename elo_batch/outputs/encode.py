"""How a table becomes a CSV or Parquet file: the one place for file settings; no rating rules."""

from __future__ import annotations

import errno
import io
import os
import re
import tempfile
from pathlib import Path
from typing import IO, Any

import polars as pl

from elo_batch import columns as c
from elo_batch.choices import CsvFormulas, Format
from elo_batch.storage.formulas import neutralise

try:
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

#: Parquet settings: zstd at level 1 (files about 2 % larger than at the default level 3, written in
#: half the compression time), column statistics for warehouse pruning.
PARQUET: dict[str, Any] = {"compression": "zstd", "compression_level": 1, "statistics": True}
#: Rows per row group of a frame in memory: fixed, so that the file does not depend on how the frame
#: happens to be chunked (a streamed sort chunks differently from run to run).
ROW_GROUP_ROWS = 100_000
_NO_ROOM = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC), errno.EFBIG)
_PROBE = 64 * 1024  # bytes of the write that tells a full disk (or quota) from another failure


#: The tables whose Parquet files leave out ``period``: their partition folder (``period=YYYY-MM``) holds it
#: (interface.md, "the audit's partition column"). The list and the rejected rows, a few rows a player or
#: an input row, keep it; a CSV file keeps it always (a CSV scan has no partitions).
PARTITION_ONLY = frozenset({"audit"})


def in_file(name: str, frame: pl.DataFrame | pl.LazyFrame, fmt: Format) -> pl.DataFrame | pl.LazyFrame:
    """The columns table ``name``'s file holds: ``frame`` without ``period`` for a Parquet file of a table of
    :data:`PARTITION_ONLY` (readers given the table see the column from the folder's name), else ``frame``.

    >>> audit = pl.DataFrame({"period": ["2025-10"], "player_id": ["A"]})
    >>> in_file("audit", audit, "parquet").columns, in_file("audit", audit, "csv").columns
    (['player_id'], ['period', 'player_id'])
    """
    if fmt == "parquet" and name in PARTITION_ONLY and c.PERIOD in frame.collect_schema().names():
        return frame.drop(c.PERIOD)
    return frame


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
    *,
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
            leading quote (see :mod:`elo_batch.storage.formulas`); ``keep``: written as they are.

    Returns:
        The rows written.

    Raises:
        OSError: the file cannot be written (a full disk, no permission), with its ``errno``: polars'
            own errors that carry an operating-system error are raised as that error, and one that
            lost it while the disk is full (or a quota or the file-size limit is reached) as that;
            a file written short without an error (:func:`incomplete`) too.
    """
    try:
        rows = _write_table(frame, target, fmt, csv_formulas=csv_formulas)
    except (pl.exceptions.PolarsError, OSError) as exc:
        error = os_error(exc, target)
        if error is None and isinstance(target, str | Path):  # an error that lost its errno ("Invalid thrift")
            error = no_room(Path(target))
        if error is None:
            raise
        raise error from exc
    if not isinstance(target, str | Path):
        assert rows is not None  # a frame written to a file object is collected first: its height
        return rows
    short = incomplete(Path(target), fmt)
    if short is not None:
        raise short
    return rows if rows is not None else _rows_in(Path(target), fmt)


def no_room(target: Path) -> OSError | None:
    """The reason a write of ``target`` failed when it is the disk, a quota or the file-size limit
    (``ENOSPC``, ``EDQUOT``, ``EFBIG``) but the writer's error does not say so (polars raises a
    Parquet footer's failed write as ``Invalid thrift: transport error``); None when there is room.

    Found out by a small write next to ``target`` (and the process's file-size limit), so an error
    of another kind (a failing plan) is never taken for a full disk.
    """
    try:
        size = target.stat().st_size
    except OSError:
        size = 0
    if resource is not None:
        soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
        if soft != resource.RLIM_INFINITY and size >= soft:
            return OSError(errno.EFBIG, os.strerror(errno.EFBIG), str(target))
    try:
        with tempfile.TemporaryFile(dir=target.parent) as probe:
            probe.write(b"\0" * _PROBE)
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        if exc.errno in _NO_ROOM:
            return OSError(exc.errno, exc.strerror, str(target))
    return None


def incomplete(target: Path, fmt: Format) -> OSError | None:
    """The error of a file its writer reported as written but that ends short (a write error the writer
    dropped): a Parquet file without its closing footer, a CSV file whose last row has no line end; None
    when it is whole. The error is the full disk (or quota, file-size limit) when that is the cause."""
    try:
        with open(target, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(size - 8, 0))
            tail = handle.read()
    except OSError as exc:
        return OSError(exc.errno, exc.strerror, str(target))
    if fmt == "parquet":
        whole = size >= 12 and tail[-4:] == b"PAR1" and int.from_bytes(tail[:4], "little") <= size - 12
    else:
        whole = tail.endswith(b"\n")
    if whole:
        return None
    return no_room(target) or OSError(
        errno.EIO, "the file was written short, and its writer reported no error", str(target)
    )


def _rows_in(target: Path, fmt: Format) -> int:
    if fmt == "csv":
        return int(pl.scan_csv(target, infer_schema=False).select(pl.len()).collect().item())
    return int(pl.scan_parquet(target).select(pl.len()).collect().item())


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
    frame: pl.DataFrame | pl.LazyFrame, target: str | Path | IO[bytes], fmt: Format, *, csv_formulas: CsvFormulas
) -> int | None:
    if isinstance(frame, pl.LazyFrame):
        if not isinstance(target, str | Path):
            frame = frame.collect()
        else:
            if fmt == "csv":
                frame.pipe(_csv_cells, csv_formulas).sink_csv(target)
            else:
                frame.sink_parquet(target, **PARQUET)
            return None  # counted once the file is known to be whole
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
