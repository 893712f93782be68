"""The run-level guards of a scheduled job: a run with no rating source, and the rejected rows' reasons.

A run that names no rating list (no ``--ratings``; the API's ``ratings`` not passed) and whose game rows
of the periods rated carry no rating would write a list marking every player unrated: chained, it wipes
the pool. It is refused (:class:`~elo_batch.errors.NoRatingSourceError`, exit 65) before anything is
written; ``--ratings none`` (``ratings=None``) says a new rating pool is meant. The rejected rows'
reasons are grouped without their values (``'...' is not a result``), so that a summary can say why
rows were rejected in a few lines. Library code: raises :mod:`elo_batch.errors`, never prints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.contract.tables import GamesInput
from elo_batch.errors import NoRatingSourceError, option

#: Reasons a summary shows (the most frequent first); the rest are counted.
TOP_REASONS = 5
#: What stands for a rejected cell's value in its grouped reason.
ELIDED = "..."
#: A reason that names the rows of one game entered twice (``rows F row 5, F row 6 are one game (...``,
#: :mod:`elo_batch.inputs.duplicates`), and what it is grouped as.
_ROWS_NAMED, _ROWS_ELIDED = r"^rows .+? are one game \(", f"rows {ELIDED} are one game ("
#: A rejected rows' reason group: (column or None, reason without its value, rows).
Reason = tuple[str | None, str, int]


def game_ratings_in(games: GamesInput, periods: tuple[str, ...]) -> bool:
    """Whether a game row of ``periods`` carries a rating (``white_rating``, ``black_rating``, or a one-sided
    row's ``player_rating``, ``opponent_rating``): one not empty and not 0 (the checked rows hold those
    as null). One pass over the rows at most (none when no input has a rating column); rows of other
    periods do not count.
    """
    if {c.WHITE_RATING, c.BLACK_RATING} <= games.absent:
        return False
    engine: Literal["in-memory", "streaming"] = "in-memory" if isinstance(games.rows, pl.DataFrame) else "streaming"
    found = (
        games.rows.lazy()
        .filter(
            pl.col(c.PERIOD).is_in(list(periods))
            & (pl.col(c.WHITE_RATING).is_not_null() | pl.col(c.BLACK_RATING).is_not_null())
        )
        .select(c.PERIOD)
        .head(1)
        .collect(engine=engine)
    )
    return found.height > 0


def check_rating_source(periods: tuple[str, ...], ratings_in_games: Callable[[], bool]) -> None:
    """Refuse a run that names no rating list when no game row of ``periods`` carries a rating.

    Called only when no list was named (neither a list nor ``--ratings none``).

    Args:
        periods: The periods rated (none: ``validate`` of every row; nothing to judge).
        ratings_in_games: Whether a game row of ``periods`` carries a rating (:func:`game_ratings_in`,
            or the engine's own); called once, when ``periods`` are given.

    Raises:
        NoRatingSourceError: no rating source (exit 65); the caller must write nothing.
    """
    if not periods or ratings_in_games():
        return
    months = periods[0] if len(periods) == 1 else f"{periods[0]}..{periods[-1]}"
    raise NoRatingSourceError(
        f"no rating source: no rating list was given ({option('ratings')}) and no game row of {months} carries "
        "a rating (white_rating, black_rating, player_rating or opponent_rating, not empty and not 0): every "
        "player would start unrated, and the list written (and every list chained from it) would hold no "
        "rating; nothing was written",
        option="ratings",
        hint=f"give the rating list in force with {option('ratings')} (last month's list: its "
        f"OUT/ratings/period=YYYY-MM), or {option('ratings', none=True)} to start a new rating pool (game-row "
        "ratings are still used; players without one start unrated).",
    )


def rejected_reasons(rejected: pl.DataFrame, top: int = TOP_REASONS) -> tuple[tuple[Reason, ...], int]:
    """The rejected rows' reasons grouped without their values, the most frequent first.

    A reason's value (the cell, as the ``value`` column holds it) becomes ``...`` where the reason
    first quotes it (``'2-0' is not a result`` and ``'x' is not a result`` are one reason), and so do
    the rows a game entered twice names; ties keep the order of their first row.

    Args:
        rejected: Rejected rows, ``REJECTED_SCHEMA`` (``column``, ``value``, ``reason``), in input order.
        top: Most groups returned.

    Returns:
        Up to ``top`` groups ``(column, reason, rows)``, and how many groups are left out.

    >>> reasons = ["'2-0' is not a result", "'x' is not a result", "missing result"]
    >>> rows = pl.DataFrame({"column": ["result"] * 3, "value": ["2-0", "x", None], "reason": reasons})
    >>> rejected_reasons(rows)
    ((('result', "'...' is not a result", 2), ('result', 'missing result', 1)), 0)
    """
    if rejected.height == 0:
        return (), 0
    groups = (
        rejected.lazy()
        .select(pl.col(c.COLUMN), _elided_reason().alias(w.ELIDED_REASON))
        .with_row_index(w.REASON_FIRST)
        .group_by(c.COLUMN, w.ELIDED_REASON)
        .agg(pl.len().alias(w.REASON_ROWS), pl.col(w.REASON_FIRST).min())
        .sort([w.REASON_ROWS, w.REASON_FIRST], descending=[True, False])
        .collect()
    )
    shown = tuple((column, text, int(rows)) for column, text, rows, _ in groups.head(top).iter_rows())
    return shown, groups.height - len(shown)


def _elided_reason() -> pl.Expr:
    """A rejected row's reason with its value, where it first quotes it, and the rows of a game entered
    twice as ``...`` (text, never null)."""
    value, reason = pl.col(c.VALUE), pl.col(c.REASON)
    parts = reason.str.split(value)  # polars replaces a pattern of a column's values only one character long
    elided = pl.concat_str(parts.list.first(), pl.lit(ELIDED), parts.list.slice(1).list.join(value))
    quotes = value.is_not_null() & (value != "") & reason.str.contains(value, literal=True)
    return pl.when(quotes).then(elided).otherwise(reason).str.replace(_ROWS_NAMED, _ROWS_ELIDED).fill_null("")


def reasons_text(reasons: tuple[Reason, ...], more: int, sep: str = "; ") -> str:
    """The grouped reasons as a summary line shows them: ``3 x result: '...' is not a result; ...``.

    >>> reasons_text((("result", "'...' is not a result", 3), (None, "too many cells", 1)), 2)
    "3 x result: '...' is not a result; 1 x too many cells; and 2 more reasons"
    """
    parts = [f"{rows} x {column}: {text}" if column else f"{rows} x {text}" for column, text, rows in reasons]
    if more:
        parts.append(f"and {more} more reason{'s' if more > 1 else ''}")
    return sep.join(parts)
