"""The rating list's ``pending`` column: an unrated player's pooled games, as held in memory and as written.

In memory (the list in force, a period's new list) the column is a list of structs, one entry per
rating period, of type :data:`POOL`:

=================  ======  ==================================================================
field              type    meaning
=================  ======  ==================================================================
``period``         String  the rating period of the games, ``YYYY-MM``
``games``          Int64   games pooled from that period (n); 0 in a marker entry (see below)
``score_halves``   Int64   their score in half points (W x 2: exact for draws)
``opponents_sum``  Int64   the sum of the opponents' ratings, in rating points
=================  ======  ==================================================================

On disk (CSV and Parquet files, Delta tables, DuckDB) it is text, as every list written by elo-batch
holds it: each entry ``YYYY-MM:games:score_halves:opponents_sum`` (plain decimal digits), the entries
joined by ``;`` in the order held, e.g. ``2025-10:3:3:5100;2025-11:2:4:3700``. An entry
``YYYY-MM:0:0:0`` is the marker that a first event has been seen while nothing is pooled (B.02 8.2.1;
see :mod:`elo_batch.engine.lifecycle`). No pool is null (an empty cell).

:func:`parse` reads the text form, :func:`to_text` writes it: ``to_text(parse(t)) == t`` for every
text ``t`` elo-batch writes (decimal numbers without leading zeros). Both are polars expressions.
"""

from __future__ import annotations

from typing import Final

import polars as pl

PERIOD: Final = "period"
GAMES: Final = "games"
SCORE_HALVES: Final = "score_halves"
OPPONENTS_SUM: Final = "opponents_sum"
#: One entry of a pool: one rating period's pooled games.
ENTRY: Final = pl.Struct({PERIOD: pl.String(), GAMES: pl.Int64(), SCORE_HALVES: pl.Int64(), OPPONENTS_SUM: pl.Int64()})
#: A pool: the ``pending`` column's type in memory.
POOL: Final = pl.List(ENTRY)
#: The numbers of an entry, in the order of the text form.
NUMBERS: Final = (GAMES, SCORE_HALVES, OPPONENTS_SUM)

_MONTH = r"[0-9]{4}-(0[1-9]|1[0-2])"
_ENTRY_TEXT = rf"{_MONTH}:[0-9]+:[0-9]+:[0-9]+"
#: The text form of a whole pool, as a regular expression.
TEXT_PATTERN: Final = rf"^{_ENTRY_TEXT}(;{_ENTRY_TEXT})*$"


def parse(text: pl.Expr) -> pl.Expr:
    """The pool of a text-form ``pending`` cell (String -> :data:`POOL`); null stays null.

    A number too large for Int64 becomes a null field (:func:`malformed` finds it); text not of the
    form gives entries with null fields too (check it first with :func:`malformed_text`).

    >>> frame = pl.DataFrame({"pending": ["2025-10:3:3:5100;2025-11:0:0:0", None]})
    >>> frame.select(parse(pl.col("pending"))).to_series().to_list()[0][0]
    {'period': '2025-10', 'games': 3, 'score_halves': 3, 'opponents_sum': 5100}
    """
    parts = pl.element().str.split_exact(":", 3).struct
    games, score_halves, opponents_sum = [parts.field(f"field_{i}").cast(pl.Int64, strict=False) for i in (1, 2, 3)]
    return text.str.split(";").list.eval(
        entry(parts.field("field_0"), games=games, score_halves=score_halves, opponents_sum=opponents_sum)
    )


def entry(period: pl.Expr, *, games: pl.Expr, score_halves: pl.Expr, opponents_sum: pl.Expr) -> pl.Expr:
    """One entry (an :data:`ENTRY` struct) of its parts: the period ``YYYY-MM`` and three integers."""
    numbers = (games.alias(GAMES), score_halves.alias(SCORE_HALVES), opponents_sum.alias(OPPONENTS_SUM))
    return pl.struct(period.alias(PERIOD), *numbers).cast(ENTRY)


def entry_text(entry: pl.Expr) -> pl.Expr:
    """The text form of one entry (an :data:`ENTRY` struct): ``YYYY-MM:games:score_halves:opponents_sum``."""
    return pl.format("{}:{}:{}:{}", *[entry.struct.field(name) for name in (PERIOD, *NUMBERS)])


def to_text(pool: pl.Expr) -> pl.Expr:
    """The text form of a pool (:data:`POOL` -> String): its entries' texts joined by ``;``; null stays null.

    >>> frame = pl.DataFrame({"pending": ["2025-10:3:3:5100;2025-11:0:0:0"]})
    >>> frame.select(to_text(parse(pl.col("pending")))).item()
    '2025-10:3:3:5100;2025-11:0:0:0'
    """
    return pool.list.eval(entry_text(pl.element())).list.join(";")


def malformed_text(text: pl.Expr) -> pl.Expr:
    """True where a text-form cell is not a pool as elo-batch writes it (:data:`TEXT_PATTERN`); null cells are not."""
    return text.is_not_null() & ~text.str.contains(TEXT_PATTERN)


def malformed(pool: pl.Expr) -> pl.Expr:
    """True where a pool has an entry that elo-batch does not write: a field missing (or a number that
    did not fit Int64), a period not ``YYYY-MM``, a negative number; null pools are not."""
    entry = pl.element().struct
    bad = ~entry.field(PERIOD).str.contains(rf"^{_MONTH}$")
    for name in NUMBERS:
        bad = bad | (entry.field(name) < 0)
    return pool.is_not_null() & pool.list.eval(bad.fill_null(True)).list.any()
