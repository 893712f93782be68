"""Writing an imported games table (``elo-batch import``) to one Parquet or CSV file; no rating rules."""

from __future__ import annotations

import os
import tempfile
import uuid

import polars as pl

from elo_batch.choices import CsvFormulas, Format
from elo_batch.errors import OutputError, UsageError
from elo_batch.outputs.encode import os_error, table_bytes, write_table
from elo_batch.storage import objectstore

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


def write_games(
    games: pl.DataFrame | pl.LazyFrame, out: str, *, csv_formulas: CsvFormulas = "escape", name: str = "games"
) -> str:
    """Write the games table (or another imported table: ``name``) whole or not at all: CSV when ``out``
    ends in ``.csv``, else Parquet (zstd).

    A local file is written beside its target and renamed into place, so a reader never sees half a
    file; an object-store URI (``s3://bucket/key``) is one PUT, which an object store makes visible
    whole.

    Args:
        games: The imported games (one row per game); a lazy frame is streamed into the file (an
            object is first streamed into a local temporary file), never whole in memory.
        out: A file path (or ``file:`` URL) or an object-store URI.
        csv_formulas: ``escape`` (CSV text cells a spreadsheet would run as formulas get a leading
            quote; ids and numbers never) or ``keep``; see :mod:`elo_batch.storage.formulas`.
        name: What the table is, in messages: ``games``, or ``list`` for a rating list.

    Returns:
        ``out`` (a ``file:`` URL as the path it names).

    Raises:
        UsageError: ``out`` ends in neither ``.csv`` nor ``.parquet`` / ``.pq``.
        OutputError: the file or object cannot be written.
    """
    suffix = os.path.splitext(out.rstrip("/"))[1].lower()
    fmt = _format_of(suffix, out, name=name)
    if objectstore.is_object_store(out):
        objectstore.put_object(out, _object_bytes(games, fmt, suffix=suffix, name=name, csv_formulas=csv_formulas))
        return out
    out = objectstore.local_path(out)
    folder = os.path.dirname(os.path.abspath(out))
    temporary = os.path.join(folder, f".{os.path.basename(out)}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        os.makedirs(folder, exist_ok=True)
        write_table(games, temporary, fmt, csv_formulas=csv_formulas)
        os.replace(temporary, out)
    except (OSError, pl.exceptions.ComputeError) as exc:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise write_error(
            exc, out, f"the {name} file", hint="check that the folder is writable and the disk has room."
        ) from exc
    return out


def _format_of(suffix: str, out: str, *, name: str) -> Format:
    """The file format of an output's suffix (``.csv``, else Parquet); refused unless CSV or Parquet."""
    if suffix not in (".csv", ".parquet", ".pq"):
        raise UsageError(
            f"cannot tell the file type of {out!r}", column="-o", hint=f"name the output {name}.parquet or {name}.csv."
        )
    return "csv" if suffix == ".csv" else "parquet"


def _object_bytes(
    games: pl.DataFrame | pl.LazyFrame, fmt: Format, *, suffix: str, name: str, csv_formulas: CsvFormulas
) -> bytes:
    """The table as an object's bytes; a lazy frame streamed into a local temporary file first."""
    if isinstance(games, pl.LazyFrame):
        with tempfile.TemporaryDirectory(prefix="elo-batch-") as folder:
            local = os.path.join(folder, f"{name}{suffix}")
            write_table(games, local, fmt, csv_formulas=csv_formulas)
            with open(local, "rb") as handle:
                data = handle.read()
    else:
        data = table_bytes(games, fmt, csv_formulas=csv_formulas)
    return data


def write_error(exc: OSError | pl.exceptions.ComputeError, path: str, what: str, *, hint: str) -> OutputError:
    """The error (exit 73) for a file that cannot be written: an OSError, or polars' error for one
    (a full disk while it writes Parquet).

    Raises:
        pl.exceptions.ComputeError: ``exc`` itself, when it is a fault of the plan, not of the disk.
    """
    error = os_error(exc, path)  # polars' error for a file it could not write: the OS error inside
    if error is None:
        if isinstance(exc, OSError):
            error = exc
        else:
            raise exc
    reason = error.strerror or str(error)
    return OutputError(f"cannot write {what} ({reason})", path=path, hint=hint)


def spill_part(frame: pl.DataFrame, folder: str, number: int, *, what: str, hint: str) -> str:
    """Write one batch of an import to ``folder/NNNNNN.parquet`` (lz4: read back once, soon) and return
    its path, so that an importer holds one batch at a time, not the whole file.

    Args:
        frame: The batch.
        folder: The import's temporary folder.
        number: The batch's number (its file's name, in order).
        what: What the batches' files are, for the message (``"the temporary games files"``).
        hint: What to do when the folder cannot take them.

    Raises:
        OutputError: the temporary folder cannot take it (exit 73).
    """
    path = os.path.join(folder, f"{number:06d}.parquet")
    try:
        frame.write_parquet(path, compression="lz4")
    except (OSError, pl.exceptions.ComputeError) as exc:
        raise write_error(exc, folder, what, hint=hint) from exc
    return path
