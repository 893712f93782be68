"""The pre-pass fact of the 2022 400-point rule: each player's one upgrade per event, marked on the period table.

Under B.02 (2022) 8.3.1 "a player may benefit from only one upgrade under this rule, for the game in
which the rating difference is greatest", in any tournament. The upgrade helps the higher-rated side
(D over 400 counted as 400 lowers its expected score); the lower-rated side keeps the plain cap on every
game. Which game of an event is a player's upgrade depends on all the event's games, so it is decided
here, over the whole period table, before it is cut into chunks: two Boolean columns, ``__w_up`` and
``__b_up``, say whether the row's white or black side is its player's upgrade. Each chunk then rates
its rows alone (:mod:`elo_batch.engine.sides`).

Which game: among the player's sides of the event that count (rated player, rated opponent, not a
forfeit or a duplicate) with D = Ro - Rc over the limit, the one with the largest D; of several with the
same largest D, the earliest (by date, then input order). Tied games have the same D, so which of them
is capped changes nothing but the audit's ``capped`` flag. Rows without ``event_id`` are one event per
player and period (as they are for first ratings, :mod:`elo_batch.engine.lifecycle`).
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.engine import schema as s
from elo_batch.engine.sides import rate, side_view
from elo_batch.rules.sets import RuleSet


def mark(table: pl.DataFrame, list_rating: pl.Series, rules: RuleSet) -> pl.DataFrame:
    """The period table with ``__w_up`` and ``__b_up`` (Boolean) under the once-per-event 400-point rule.

    Args:
        table: The period table (:attr:`elo_batch.engine.prepass.Prepared.table`), all of its rows.
        list_rating: The rating on the list in force by dense index (``Prepared.list_rating``).
        rules: The period's rule set; other rules than ``cap_400="once-per-event"`` leave ``table`` as it is.

    Returns:
        ``table``, with the two columns under the once-per-event rule.

    References:
        FIDE Rating Regulations (B.02, 2022) 8.3.1; ``fide-rules.md`` section 0.
    """
    if not rules.cap_once_per_event:
        return table
    return apply(table, choose(candidates(table, list_rating, rules).collect()))


def candidates(table: pl.DataFrame, list_rating: pl.Series, rules: RuleSet) -> pl.LazyFrame:
    """The sides of rows of the period table that may be their player's upgrade (any run of rows: the
    candidates of several runs, concatenated, are those of all of them); see :func:`mark`.

    Returns:
        ``__key``, ``__idx``, ``__event``, ``rating_diff``, ``date``, ``row_key`` of each counted side with
        D over the limit of ``rules.cap``.
    """
    coded = replace(rules, cap_400="always")  # whether a side counts does not depend on the cap
    row = [s.ONE_SIDED, s.FORFEIT, s.DUPLICATE, w.EVENT_RULE, s.ROW_KEY, c.DATE, c.EVENT_ID]
    found = []
    for is_white in (True, False):
        has_side = pl.lit(True) if is_white else ~pl.col(s.ONE_SIDED)
        sides = rate(table.lazy().select(*row, *side_view(is_white)), list_rating, coded)
        difference = pl.col(c.RATING) - pl.col(c.OPPONENT_RATING)
        found.append(
            sides.filter((pl.col(w.CODE) == s.COUNTED) & has_side & (difference > rules.cap.limit)).select(
                w.KEY,
                w.IDX,
                pl.coalesce(c.EVENT_ID, pl.lit("")).alias(w.EVENT),
                difference.cast(pl.Float64).alias(c.RATING_DIFF),
                c.DATE,
                s.ROW_KEY,
            )
        )
    return pl.concat(found)


def choose(found: pl.DataFrame) -> pl.Series:
    """The side (``__key``) of each player's one upgrade per event, from all the period's
    :func:`candidates`: the largest D, then the earliest (by date, then input order)."""
    return (
        found.sort(
            [w.IDX, w.EVENT, c.RATING_DIFF, c.DATE, s.ROW_KEY],
            descending=[False, False, True, False, False],
            nulls_last=True,
        )
        .unique([w.IDX, w.EVENT], keep="first", maintain_order=True)
        .get_column(w.KEY)
    )


def apply(table: pl.DataFrame, chosen: pl.Series) -> pl.DataFrame:
    """Rows of the period table (any run of them) with ``__w_up`` and ``__b_up``: whether the row's white
    or black side is one of the ``chosen`` upgrades (:func:`choose`)."""
    key = 2 * pl.col(s.ROW_KEY)
    return table.with_columns(
        key.is_in(chosen.implode()).alias(w.WHITE_UP), (key + 1).is_in(chosen.implode()).alias(w.BLACK_UP)
    )
