"""How a table becomes a CSV or Parquet file: the one place for file settings; no rating rules."""

from __future__ import annotations

import io
from pathlib import Path
from typing import IO, Literal

import polars as pl

Format = Literal["parquet", "csv"]


def csv_safe(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with the columns CSV cannot hold turned into text: nested ones (list, array, struct,
    e.g. pass-through columns of a Parquet rating list) as JSON, binary ones as hex; others unchanged."""
    converted = []
    for name, dtype in frame.schema.items():
        if isinstance(dtype, pl.Struct):
            converted.append(pl.col(name).struct.json_encode())
        elif isinstance(dtype, pl.List | pl.Array):
            converted.append(
                pl.struct(pl.col(name).alias("v")).struct.json_encode().str.json_path_match("$.v").alias(name)
            )
        elif dtype == pl.Binary:
            converted.append(pl.col(name).bin.encode("hex"))
    return frame.with_columns(converted) if converted else frame


def write_table(frame: pl.DataFrame, target: str | Path | IO[bytes], fmt: Format) -> None:
    """Write ``frame`` as CSV (UTF-8, comma, header; see :func:`csv_safe`) or Parquet (zstd, statistics).

    The bytes depend only on the frame: the same frame gives the same file.
    """
    if fmt == "csv":
        csv_safe(frame).write_csv(target)
    else:
        frame.write_parquet(target, compression="zstd", statistics=True)


def table_bytes(frame: pl.DataFrame, fmt: Format) -> bytes:
    """The file :func:`write_table` would write, as bytes (for object stores)."""
    buffer = io.BytesIO()
    write_table(frame, buffer, fmt)
    return buffer.getvalue()
