"""Writing an imported games table (``elo-batch import``) to one Parquet or CSV file; no rating rules."""

from __future__ import annotations

import os
import uuid

import polars as pl

from elo_batch.errors import OutputError, UsageError
from elo_batch.outputs import objectstore
from elo_batch.outputs.encode import table_bytes

#: Columns of an imported games table (``elo-batch import pgn|trf``), in order. ``plies`` is PGN only.
GAMES_SCHEMA: dict[str, pl.DataType] = {
    "game_id": pl.String(),
    "event_id": pl.String(),
    "round": pl.String(),
    "date": pl.Date(),
    "period": pl.String(),
    "white_id": pl.String(),
    "black_id": pl.String(),
    "white_rating": pl.Int64(),
    "black_rating": pl.Int64(),
    "result": pl.String(),
    "white_name": pl.String(),
    "black_name": pl.String(),
    "white_id_from_name": pl.Boolean(),
    "black_id_from_name": pl.Boolean(),
    "event_date": pl.Date(),
    "plies": pl.Int64(),
    "note": pl.String(),
}


def write_games(games: pl.DataFrame, out: str) -> str:
    """Write the games table whole or not at all: CSV when ``out`` ends in ``.csv``, else Parquet (zstd).

    A local file is written beside its target and renamed into place, so a reader never sees half a
    file; an object-store URI (``s3://bucket/key``) is one PUT, which an object store makes visible
    whole.

    Args:
        games: The imported games (one row per game).
        out: A file path (or ``file:`` URL) or an object-store URI.

    Returns:
        ``out`` (a ``file:`` URL as the path it names).

    Raises:
        UsageError: ``out`` ends in neither ``.csv`` nor ``.parquet`` / ``.pq``.
        OutputError: the file or object cannot be written.
    """
    suffix = os.path.splitext(out.rstrip("/"))[1].lower()
    if suffix not in (".csv", ".parquet", ".pq"):
        raise UsageError(
            f"cannot tell the file type of {out!r}", column="-o", hint="name the output games.parquet or games.csv."
        )
    data = table_bytes(games, "csv" if suffix == ".csv" else "parquet")
    if objectstore.is_object_store(out):
        objectstore.put_object(out, data)
        return out
    out = objectstore.local_path(out)
    folder = os.path.dirname(os.path.abspath(out))
    temporary = os.path.join(folder, f".{os.path.basename(out)}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        os.makedirs(folder, exist_ok=True)
        with open(temporary, "wb") as handle:
            handle.write(data)
        os.replace(temporary, out)
    except OSError as exc:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise OutputError(
            f"cannot write the games file ({exc.strerror or exc})",
            path=out,
            hint="check that the folder is writable and the disk has room.",
        ) from exc
    return out
