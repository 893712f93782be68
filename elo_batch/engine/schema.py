"""The period engine's frames: which working columns each holds, the codes they carry, how they are written.

The working columns' names (with their types and meanings) are :mod:`elo_batch.working`'s; this module
says which of them the frames the kernels hand to each other hold:

- the period table (:data:`TABLE`, pre-pass): one row per game row of the period, with the dense index
  of both players (:data:`~elo_batch.working.WHITE`, :data:`~elo_batch.working.BLACK`) and the event
  columns (:data:`EVENT_TABLE`);
- a game side (:func:`elo_batch.engine.sides.side_view`): one player's view of a table row;
- the rated sides (:data:`RATED_SIDE`, map): the rating used, why the side does or does not count, PD;
- the pending sides (:data:`PENDING_SIDES`, map): unrated players' games against rated opponents;
- the per-player sums (:data:`SUMS`, reduce), the pools (:data:`POOLS_SCHEMA`) and the players' table
  (finalize).

Units: scores, PD and their sums in hundredths of a point (exact integers for FIDE table 8.1.2), ratings
in rating points. The three functions at the end say how these units are written in the outputs.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.contract.pending import POOL
from elo_batch.contract.schemas import RATING_2DP
from elo_batch.engine import expressions as engine
from elo_batch.rules.sets import RuleSet

# --- the period table (pre-pass) --------------------------------------------------------------
ROW_KEY: Final = "row_key"  # Int64: global input order (files in order, rows in order)
ONE_SIDED: Final = "one_sided"  # Boolean: a one-sided result (player vs an opponent known by rating)
FORFEIT: Final = "forfeit"  # Boolean: an unplayed game (B.02 5.1: never rated)
DUPLICATE: Final = "duplicate"  # Boolean: a repeat of an earlier row of the same game (inputs/duplicates.py)
SCORE100: Final = "score100"  # Int16: white's (the player's) score in hundredths: 100, 50, 0
#: Columns of the period table besides the two indices: what the sums and the audit need of each row,
#: ids and names excluded.
TABLE: Final = (
    ROW_KEY, c.GAME_ID, c.SOURCE_ROW, c.DATE, c.EVENT_ID, c.ROUND, ONE_SIDED, FORFEIT, DUPLICATE, SCORE100,
    c.WHITE_RATING, c.BLACK_RATING,
)  # fmt: skip
INDEX_TYPE: Final = pl.UInt32()  # a dense player index
#: Columns the pre-pass adds to the period table for the events (besides TABLE and the indices; see
#: elo_batch.engine.eventrows).
EVENT_TABLE: Final = (w.EVENT_RULE, w.WHITE_LATE, w.BLACK_LATE)
#: The event rules a game side can be decided by (``__event_rule`` codes, the audit's ``event_rule``):
#: row rules 1..6, side rules 7..8 (the side's own view of B.02 8.2.4).
NO_RULE, RULE_MATCH_UNRATED, RULE_MATCH_DECIDED, RULE_MATCH_WAIVER = 0, 1, 2, 3
RULE_START_LIST, RULE_CLOSING_DATE, RULE_EVENT_PERIOD, RULE_OPPONENT_LATE, RULE_RATED_FOR_HIMSELF = 4, 5, 6, 7, 8
EVENT_RULES: Final = (None, *c.EVENT_RULES)

# --- a game side: one player's view of a table row (map) ------------------------------------------
#: What the map keeps of each rated side for the audit: the rating used, CODE and PD (the opponent's
#: rating used is the other side's rating).
RATED_SIDE: Final = (c.RATING, w.CODE, w.PD)

#: Why a game side is not counted (CODE 1..5, 7..9; 0 = counted). Code 4 is the pending first rating
#: under rule sets with initial ratings, else "unrated player". Precedence (see sides.rate): duplicate,
#: forfeit, match with an unrated player (B.02 6.1), after the match was decided (6.2), opponent
#: unrated at the event's start (8.2.4), unrated opponent, unrated player, the 600/2600 gap.
COUNTED, DUPLICATE_ROW, FORFEITED, UNRATED_OPPONENT, UNRATED_PLAYER, GAP = 0, 1, 2, 3, 4, 5
#: The audit's reason code of a pending side whose event is the player's first, scored zero (B.02 8.2.1).
FIRST_EVENT_ZERO: Final = 6
MATCH_UNRATED, MATCH_DECIDED, UNRATED_AT_START = 7, 8, 9

#: A pending side: an unrated player's game against a rated opponent (what first ratings need).
PENDING_SIDES: Final = (w.KEY, w.IDX, ROW_KEY, c.DATE, c.EVENT_ID, SCORE100, c.OPPONENT_RATING)

# --- per-player sums (reduce) ---------------------------------------------------------------------
#: Columns of the per-player sums, one row per player with a rated side (besides IDX).
SUMS: Final = (w.N, w.W100, w.PD_SUM, w.OPP_SUM, w.DEV_SUM)

# --- first ratings (see elo_batch.engine.lifecycle): one row per unrated player with pooled games ----
POOLS_SCHEMA: Final[dict[str, pl.DataType]] = {
    c.PLAYER_ID: pl.String(),
    w.PUBLISHED: pl.Boolean(),
    w.RU: pl.Int64(),
    w.POOL_N: pl.Int64(),
    w.PERIOD_N: pl.Int64(),
    w.PERIOD_W2: pl.Int64(),
    w.PENDING: POOL,
    w.IGNORED_EVENTS: pl.List(pl.String()),
}


def written_period(period: str) -> pl.Expr:
    """The ``period`` column as written (``YYYY-MM``): one Categorical value, broadcast, so that the
    table's files hold it dictionary-encoded and readers see one column across partitions."""
    return pl.lit(pl.Series([period], dtype=pl.Categorical)).first().alias(c.PERIOD)


def written_rating(expr: pl.Expr, rules: RuleSet) -> pl.Expr:
    """Ratings as written: whole points (Int64), or Decimal with 2 decimals with ``rounding="none"``."""
    if not rules.whole_ratings:
        return expr.cast(pl.Float64).round(2, mode="half_away_from_zero").cast(RATING_2DP)
    return expr.round(0, mode="half_away_from_zero").cast(pl.Int64)


def written_points(hundredths: pl.Expr, rules: RuleSet) -> pl.Expr:
    """Hundredths of a point as points (Float64): exact to 2 decimals for the FIDE table (no
    representation noise such as 0.7000000000000001), unrounded for the logistic formula."""
    points = engine.divide(hundredths, 100.0)
    return points.round(2) if rules.table_expected else points
