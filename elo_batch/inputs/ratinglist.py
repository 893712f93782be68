"""Reading a rating list (the list in force), checked by :mod:`elo_batch.inputs.listchecks`; no rating rules.

A list problem stops the run (exit 65): the list is the base of every new rating, so a guessed value
would publish a wrong rating. Columns written by an earlier run that describe that run's period
(``change``, ``games``, ...) are dropped; the player state (``k``, ``games_total``, ...) is kept, and
any other column passes through to the new list unchanged. A ``rating`` of 0 is "no rating" (FIDE's own
list download and pairing programs write unrated so), as an empty cell is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import polars as pl

from elo_batch import columns as c
from elo_batch.contract import pending
from elo_batch.contract.mapping import ColumnMap
from elo_batch.contract.schemas import PERIOD_OUTPUT
from elo_batch.contract.tables import InputFile
from elo_batch.errors import InputDataError
from elo_batch.inputs import listchain
from elo_batch.inputs.listchecks import check_list
from elo_batch.inputs.readers import FrameInput, expand_paths, read_frame, read_table


def load_rating_list(
    path: str | Sequence[str] | FrameInput,
    *,
    fractional_ratings: bool = False,
    encoding: str | None = None,
    columns: ColumnMap | None = None,
) -> tuple[pl.DataFrame, InputFile]:
    """Read and check the list in force.

    Args:
        path: One CSV or Parquet file (or a folder or glob of them, or several, read as one list), or a frame in
            memory (read as :func:`elo_batch.inputs.readers.read_frame` reads it, then checked as a file is).
        fractional_ratings: Accept ratings with decimals (``--rounding none``).
        encoding: Force the CSV text encoding.
        columns: The list's column mapping (``--list-columns``), applied to each file as it is read.

    Returns:
        The list with ``LIST_SCHEMA`` columns first (absent ones null), then the pass-through
        columns; one row per player (exact repeats removed). ``player_id`` is Int64 when every list
        file has an integer id column, else text. And what the manifest records.

    Raises:
        InputMissingError: the file is missing or unreadable.
        InputDataError: a required column is missing (or a column ``columns`` maps), a value is not
            valid (the message names the file, row, column, value and what was expected), or a player
            appears twice with different data; a file of a ``period=P`` folder differs from what its
            period's manifest recorded (:func:`elo_batch.inputs.listchain.check_files`; without a manifest: a note).
    """
    frames, infos = [], []
    given = [path] if isinstance(path, str) else [] if isinstance(path, FrameInput) else list(path)
    sources = [path.where] if isinstance(path, FrameInput) else expand_paths(given)
    unchecked = () if isinstance(path, FrameInput) else listchain.check_files(sources)  # a list a period wrote
    for one in sources:
        if isinstance(path, FrameInput):
            whole, info = read_frame(path)
            frame = whole.lazy().with_columns(pl.lit(one).alias(c.SOURCE_FILE)).collect()  # named in messages
        else:
            frame, info = read_table(one, encoding=encoding)
        if columns is not None:  # the one place a list's held names become the canonical ones
            frame = columns.hold(frame, info.header, one)
        dropped = [name for name in PERIOD_OUTPUT if name in frame.columns]
        if dropped and c.RATING_BEFORE not in frame.columns:  # not a list written by elo-batch
            note = f"{one}: list column(s) {', '.join(dropped)} name outputs of a period and were not carried"
            info = dataclasses.replace(info, notes=(*info.notes, note))
        frames.append(check_list(frame, one, fractional_ratings, header=info.header))
        infos.append(info)
    table = pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]
    table = _one_row_per_player(table)
    info = (
        infos[0]
        if len(infos) == 1
        else InputFile(
            ", ".join(given),
            sum(i.size for i in infos),
            ",".join(i.sha256 for i in infos),
            sum(i.rows for i in infos),
            infos[0].encoding,
            infos[0].separator,
            notes=tuple(note for i in infos for note in i.notes),
        )
    )
    info = dataclasses.replace(info, notes=(*unchecked, *info.notes)) if unchecked else info
    return table.drop(c.SOURCE_FILE, c.SOURCE_ROW), info


def check_pending(table: pl.DataFrame, first_period: str | None, path: str) -> None:
    """Check the pooled games of unrated players against the first period to rate.

    Args:
        table: The list in force (``pending`` column: pools, :data:`elo_batch.contract.pending.POOL`).
        first_period: The first month the run rates (None: not known, as in ``validate`` without a period).
        path: The list's file, for the message.

    Raises:
        InputDataError: an entry for ``first_period`` or later (those games would be counted twice),
            or two entries for one month of one player.
    """
    entries = (
        table.filter(pl.col(c.PENDING).is_not_null())
        .select(c.PLAYER_ID, pl.col(c.PENDING).alias("entry"))
        .explode("entry")
        .select(
            c.PLAYER_ID,
            pending.entry_text(pl.col("entry")).alias("entry"),
            pl.col("entry").struct.field(pending.PERIOD).alias("month"),
        )
    )
    late = entries.filter(pl.col("month") >= first_period) if first_period else entries.clear()
    if late.height:
        player, entry = late.row(0)[:2]
        raise InputDataError(
            f"player {player!r} has pooled games of {entry[:7]} ({entry!r}), not before the first period "
            f"rated, {first_period}",
            path=path,
            column=c.PENDING,
            value=entry,
            hint="feed each period the list written by the period before it.",
        )
    repeated = entries.filter(pl.struct(c.PLAYER_ID, "month").is_duplicated())
    if repeated.height:
        player, entry = repeated.row(0)[:2]
        raise InputDataError(
            f"player {player!r} has two pooled-games entries for {entry[:7]}",
            path=path,
            column=c.PENDING,
            value=entry,
            hint="keep one entry per month, as elo-batch writes it.",
        )


#: Bad list rows shown in the message, when there are several.


def _one_row_per_player(table: pl.DataFrame) -> pl.DataFrame:
    if table.select(pl.col(c.PLAYER_ID).n_unique()).item() == table.height:  # the usual list: nothing to drop
        return table
    content = [n for n in table.columns if n not in (c.SOURCE_FILE, c.SOURCE_ROW)]
    unique = table.unique(subset=content, keep="first", maintain_order=True)
    clash = unique.filter(pl.col(c.PLAYER_ID).is_duplicated())
    if clash.height:
        player = clash[c.PLAYER_ID][0]
        rows = clash.filter(pl.col(c.PLAYER_ID) == player)
        where = ", ".join(f"{f} row {r}" for f, r in zip(rows[c.SOURCE_FILE], rows[c.SOURCE_ROW], strict=True))
        raise InputDataError(
            f"player {player!r} is listed twice with different data ({where})",
            path=str(rows[c.SOURCE_FILE][0]),
            column=c.PLAYER_ID,
            value=player,
            hint="keep one row per player in the rating list.",
        )
    return unique
