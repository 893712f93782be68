"""The length limit of a games file's used text cells: the cells bounded, the check, the cut text of records.

A cell of a column the games file uses (player ids, ``game_id``, ``event_id``, ``round``, results,
dates, ... : :data:`~elo_batch.inputs.gamerules.GAME_COLUMNS`) holds at most :data:`MAX_CELL_CHARS`
characters, spaces around it counted. A longer cell rejects its row (reason :func:`long_reason`): no id,
event or round is that long, and a long text repeated on every row (a Parquet file stores it once)
would otherwise be copied per row and per side into gigabytes. The rows keep such a cell cut to
``MAX_CELL_CHARS + 1`` characters (:func:`bound_cells`), so that nothing after the read copies the
long text; the rejected row's ``value`` and ``raw`` show its first ``MAX_CELL_CHARS`` characters and
``…`` (:func:`cut`). No rating rules here.
"""

from __future__ import annotations

import polars as pl

#: Most characters a cell of a used column of a games file may hold.
MAX_CELL_CHARS = 100
#: Put after the characters kept of a cell that was cut.
CUT_MARK = "…"


def bound_cells(table: pl.DataFrame | pl.LazyFrame, names: list[str]) -> pl.DataFrame | pl.LazyFrame:
    """``table`` with each cell of the text columns ``names`` longer than :data:`MAX_CELL_CHARS` cut to
    ``MAX_CELL_CHARS + 1`` characters (so that it is still found too long). A frame in memory is
    scanned first and only the columns with such a cell are changed; a plan is changed lazily."""
    if isinstance(table, pl.DataFrame):
        lengths = table.select(pl.col(names).str.len_chars().max()).row(0) if names else ()
        names = [name for name, length in zip(names, lengths, strict=True) if (length or 0) > MAX_CELL_CHARS]
    return table.with_columns(
        pl.when(too_long(pl.col(name))).then(pl.col(name).str.slice(0, MAX_CELL_CHARS + 1)).otherwise(pl.col(name))
        for name in names
    )


def too_long(text: pl.Expr) -> pl.Expr:
    """True where a text cell holds more than :data:`MAX_CELL_CHARS` characters."""
    return text.str.len_chars() > MAX_CELL_CHARS


def long_reason(name: str) -> pl.Expr:
    """The reason of a row whose cell of column ``name`` is too long."""
    return pl.lit(
        f"{name} holds more than {MAX_CELL_CHARS} characters. Hint: a cell of a column the games file uses (an "
        f"id, event_id, round, ...) is at most {MAX_CELL_CHARS} characters long; keep long text (names, notes) "
        "in a column of its own."
    )


def cut(text: pl.Expr) -> pl.Expr:
    """A text cell for a record: its first :data:`MAX_CELL_CHARS` characters and ``…`` when it is longer."""
    return pl.when(too_long(text)).then(text.str.slice(0, MAX_CELL_CHARS) + CUT_MARK).otherwise(text)
