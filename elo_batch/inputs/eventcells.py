"""Event attributes as cells: how an event column (of an events file or of game rows) is read and checked.

One function per attribute gives the typed value and, for a bad cell, the reason, so that the games'
checks (:mod:`elo_batch.validate`) and the events file (:mod:`elo_batch.inputs.eventsfile`) refuse the same
values. An empty cell is no value (the event's default). No rating rules here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import polars as pl

from elo_batch import columns as c
from elo_batch.contract.schemas import EVENT_ATTRIBUTE_TYPES
from elo_batch.inputs.cells import INPUT_DATES, in_date_range, is_date_type, out_of_range, text_column, usable_date

#: ``event_type`` values (written in any case).
EVENT_TYPES: Final = (c.TOURNAMENT, c.MATCH)
#: Most games a match may schedule (our bound, not FIDE's: world championship matches had at most 48).
MAX_MATCH_GAMES: Final = 1000
_TRUE: Final = ("true", "t", "yes", "y", "1")
_FALSE: Final = ("false", "f", "no", "n", "0")
#: An ISO date, a time may follow (as the games' ``date``).
_DATE: Final = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ].*)?$"


@dataclass(frozen=True)
class Cell:
    """An attribute column as read: ``value`` (typed, null when empty or bad) and ``problem`` (the reason
    a cell is bad, with a hint; null when it is good or empty)."""

    value: pl.Expr
    problem: pl.Expr


def attribute(schema: pl.Schema, name: str) -> Cell:
    """The column ``name`` (one of :data:`~elo_batch.columns.EVENT_COLUMNS`) of a table of ``schema``.

    Args:
        schema: The table's columns (a CSV's text, or Parquet's types).
        name: The attribute.

    Returns:
        Its value and problem expressions; a column the table lacks is null, with no problem.

    >>> frame = pl.DataFrame({"event_type": ["Match", "", "team"]})
    >>> frame.select(attribute(frame.schema, "event_type").value).to_series().to_list()
    ['match', None, None]
    """
    if name not in schema:
        return Cell(pl.lit(None, EVENT_ATTRIBUTE_TYPES[name]), pl.lit(None, pl.String))
    text = text_column(schema, name).str.strip_chars()
    value, good, reason = _READERS.get(name, _date)(schema, name, text)
    good = good.fill_null(False)
    return Cell(
        pl.when(good).then(value).cast(EVENT_ATTRIBUTE_TYPES[name]), pl.when(text.is_not_null() & ~good).then(reason)
    )


def _event_type(schema: pl.Schema, name: str, text: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(the event type, the cell is one, the reason it is not)."""
    value = text.str.to_lowercase()
    return (
        value,
        value.is_in(EVENT_TYPES),
        pl.format("{} is not an event type. Hint: use tournament or match.", _quoted(text)),
    )


def _match_games(schema: pl.Schema, name: str, text: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(the games a match schedules, the cell is such a number, the reason it is not)."""
    value = pl.when(text.str.contains(r"^[0-9]+$")).then(text.cast(pl.Int64, strict=False))
    reason = pl.format(
        f"{{}} is not a number of games. Hint: the games scheduled in the match, 1 to {MAX_MATCH_GAMES}.", _quoted(text)
    )
    return value, value.is_between(1, MAX_MATCH_GAMES), reason


def _rate_all_games(schema: pl.Schema, name: str, text: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(the flag, the cell is true or false, the reason it is not); a Boolean column as it is."""
    lower = text.str.to_lowercase()
    value: pl.Expr = pl.when(lower.is_in(_TRUE)).then(True).when(lower.is_in(_FALSE)).then(False)
    if schema[name] == pl.Boolean:
        value = pl.col(name)
    reason = pl.format("{} is not true or false. Hint: true asks for the B.02 6.2 waiver.", _quoted(text))
    return value, value.is_not_null(), reason


def _quoted(text: pl.Expr) -> pl.Expr:
    """The cell's text in single quotes, for a reason."""
    return pl.format("'{}'", text)


def ends_before_start(start: pl.Expr, end: pl.Expr) -> pl.Expr:
    """The reason where an event's end date is before its start date (null otherwise)."""
    return pl.when(end < start).then(
        pl.format("event_end {} is before event_start {}. Hint: an event ends on or after its start.", end, start)
    )


def _date(schema: pl.Schema, name: str, text: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(the date, the cell is a usable date, the reason it is not): a date outside
    :data:`~elo_batch.inputs.cells.INPUT_DATES` is out of range."""
    dtype = schema[name]
    not_a_date = pl.format("'{}' is not a date. Hint: use an ISO date YYYY-MM-DD.", text)
    if is_date_type(dtype):
        inside = in_date_range(pl.col(name), dtype, INPUT_DATES)
        kept = pl.when(inside).then(pl.col(name))
        return (kept if dtype == pl.Date else kept.dt.date()), inside, out_of_range(text)
    if dtype != pl.String:
        return pl.lit(None, pl.Date), pl.lit(False), not_a_date
    value = text.str.slice(0, 10).str.strptime(pl.Date, "%Y-%m-%d", strict=False)
    written = text.str.contains(_DATE) & value.is_not_null()
    return value, written & usable_date(value), pl.when(written).then(out_of_range(text)).otherwise(not_a_date)


#: How each attribute's cell is read (the others are dates, :func:`_date`): (value, good, reason).
_READERS: Final = {c.EVENT_TYPE: _event_type, c.MATCH_GAMES: _match_games, c.RATE_ALL_GAMES: _rate_all_games}
