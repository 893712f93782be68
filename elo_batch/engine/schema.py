"""The period engine's working columns: each internal column name once, with its type and meaning.

Working columns start with ``__`` (a contract column never does), so that the pass-through columns of a
rating list are told apart from them. The frames the kernels hand to each other are described here:

- the period table (:data:`TABLE`, pre-pass): one row per game row of the period, with the dense index
  of both players (:data:`WHITE`, :data:`BLACK`);
- a game side (:func:`elo_batch.engine.sides.side_view`): one player's view of a table row;
- the rated sides (:data:`RATED`, map): the rating used, why the side does or does not count, PD;
- the pending sides (:data:`PENDING_SIDES`, map): unrated players' games against rated opponents;
- the per-player sums (:data:`SUMS`, reduce) and the players' table (finalize).

Units: scores, PD and their sums in hundredths of a point (exact integers for FIDE table 8.1.2), ratings
in rating points. The two functions at the end say how these units are written in the outputs.
"""

from __future__ import annotations

from typing import Final

import polars as pl

from elo_batch import columns as c
from elo_batch.engine import expressions as engine

#: Every working column's name starts with this.
WORKING: Final = "__"

# --- the period table (pre-pass) --------------------------------------------------------------
ROW_KEY: Final = "row_key"  # Int64: global input order (files in order, rows in order)
ONE_SIDED: Final = "one_sided"  # Boolean: a one-sided result (player vs an opponent known by rating)
FORFEIT: Final = "forfeit"  # Boolean: an unplayed game (B.02 5.1: never rated)
DUPLICATE: Final = "duplicate"  # Boolean: a repeat of an earlier row of the same game (inputs/duplicates.py)
SCORE100: Final = "score100"  # Int16: white's (the player's) score in hundredths: 100, 50, 0
WHITE: Final = "__w"  # UInt32: dense index of white (the player of a one-sided row)
BLACK: Final = "__b"  # UInt32: dense index of black (the opponent; null when a one-sided row names none)
WHITE_UP: Final = "__w_up"  # Boolean: white's one 400-point upgrade of the event (2022 rule, kernels/upgrades.py)
BLACK_UP: Final = "__b_up"  # Boolean: black's, likewise
#: Columns of the period table besides the two indices: what the sums and the audit need of each row,
#: ids and names excluded.
TABLE: Final = (
    ROW_KEY, c.GAME_ID, c.SOURCE_ROW, c.DATE, c.EVENT_ID, c.ROUND, ONE_SIDED, FORFEIT, DUPLICATE, SCORE100,
    c.WHITE_RATING, c.BLACK_RATING,
)  # fmt: skip
INDEX_TYPE: Final = pl.UInt32()  # a dense player index
# event facts of a row (elo_batch.engine.eventrows), after the pre-pass
EVENT_RULE: Final = "__event_rule"  # UInt8: the event rule of the row (a RULE_* code below; 0: none)
WHITE_LATE: Final = "__w_late"  # Boolean: white had no rating at the event's start (B.02 8.2.4 signal)
BLACK_LATE: Final = "__b_late"  # Boolean: black had none
#: Columns the pre-pass adds to the period table for the events (besides TABLE and the indices).
EVENT_TABLE: Final = (EVENT_RULE, WHITE_LATE, BLACK_LATE)
#: The event rules a game side can be decided by (``__event_rule`` codes, the audit's ``event_rule``):
#: row rules 1..6, side rules 7..8 (the side's own view of B.02 8.2.4).
NO_RULE, RULE_MATCH_UNRATED, RULE_MATCH_DECIDED, RULE_MATCH_WAIVER = 0, 1, 2, 3
RULE_START_LIST, RULE_CLOSING_DATE, RULE_EVENT_PERIOD, RULE_OPPONENT_LATE, RULE_RATED_FOR_HIMSELF = 4, 5, 6, 7, 8
EVENT_RULES: Final = (
    None, c.RULE_MATCH_UNRATED, c.RULE_MATCH_DECIDED, c.RULE_MATCH_WAIVER, c.RULE_START_LIST, c.RULE_CLOSING_DATE,
    c.RULE_EVENT_PERIOD, c.RULE_OPPONENT_LATE, c.RULE_RATED_FOR_HIMSELF,
)  # fmt: skip

# pre-pass, while looking players up
ID_KEY: Final = "__id_key"  # a player id, or its 64-bit hash
WHITE_KEY: Final = "__wk"  # white's id key
BLACK_KEY: Final = "__bk"  # black's id key
UNLISTED: Final = "__unlisted"  # Boolean: a player of the row is not on the list in force
COLLISION: Final = "__collision"  # Boolean: a hash matched another id
RATINGS_SEEN: Final = "__ratings_seen"  # UInt32: different ratings of one player on the game rows

# --- a game side: one player's view of a table row (map) ------------------------------------------
SIDE: Final = "__side"  # Int8 or UInt32: 0 white (the player of a one-sided row), 1 black
KEY: Final = "__key"  # Int64: 2 x row_key + side, a game side's identity across the whole run
IDX: Final = "__idx"  # UInt32: the side's player
OPP: Final = "__opp"  # UInt32: the opponent
SIDE_SCORE: Final = "__score100"  # Int16: the side's score in hundredths
RO_GAME: Final = "__ro_game"  # Float64: the player's rating written on the game row (null: none)
RC_GAME: Final = "__rc_game"  # Float64: the opponent's rating written on the game row
RO_LIST: Final = "__ro_list"  # the player's rating on the list in force (null: unrated)
RC_LIST: Final = "__rc_list"  # the opponent's rating on the list in force
CODE: Final = "__code"  # UInt8: why the side does not count (0: it counts; see the codes below)
PD: Final = "__pd100"  # PD in hundredths: Int8 (table 8.1.2) or Float64 (formula); null when not rated
RATED: Final = "__rated"  # Boolean: the side counts for a rated player (CODE == 0)
UPGRADE: Final = "__upgrade"  # Boolean: the side's one 400-point upgrade of the event (WHITE_UP / BLACK_UP)
HAS_SIDE: Final = "__has_side"  # Boolean: the row has this side (a one-sided row has no black side)
OWN_LATE: Final = "__late"  # Boolean: the side's player had no rating at the event's start (8.2.4)
OPP_LATE: Final = "__opp_late"  # Boolean: the opponent had none
DEV: Final = "__dev100"  # score - PD in hundredths (Int or Float64)
#: What the map keeps of each rated side for the audit: the rating used, CODE and PD (the opponent's
#: rating used is the other side's rating).
RATED_SIDE: Final = (c.RATING, CODE, PD)

#: Why a game side is not counted (CODE 1..5, 7..9; 0 = counted). Code 4 is the pending first rating
#: under rule sets with initial ratings, else "unrated player". Precedence (see sides.rate): duplicate,
#: forfeit, match with an unrated player (B.02 6.1), after the match was decided (6.2), opponent
#: unrated at the event's start (8.2.4), unrated opponent, unrated player, the 600/2600 gap.
COUNTED, DUPLICATE_ROW, FORFEITED, UNRATED_OPPONENT, UNRATED_PLAYER, GAP = 0, 1, 2, 3, 4, 5
#: The audit's reason code of a pending side whose event is the player's first, scored zero (B.02 8.2.1).
FIRST_EVENT_ZERO: Final = 6
MATCH_UNRATED, MATCH_DECIDED, UNRATED_AT_START = 7, 8, 9

#: A pending side: an unrated player's game against a rated opponent (what first ratings need).
PENDING_SIDES: Final = (KEY, IDX, ROW_KEY, c.DATE, c.EVENT_ID, SCORE100, c.OPPONENT_RATING)

# --- per-player sums (reduce) ---------------------------------------------------------------------
N: Final = "__n"  # Int64: rated games of the period
W2: Final = "__w2"  # Int64: score over them, half points (in the partial sums of a chunk)
W100: Final = "__w100"  # Int64: score over them, hundredths
PD_SUM: Final = PD  # sum of PD over them, hundredths (Int64 exact; Float64 for the formula)
OPP_SUM: Final = OPP  # sum of the opponents' ratings used (Int64; Float64 for fractional ratings)
DEV_SUM: Final = DEV  # sum of score - PD, hundredths (Int64 exact; Float64 for the formula)
#: Columns of the per-player sums, one row per player with a rated side (besides IDX).
SUMS: Final = (N, W100, PD_SUM, OPP_SUM, DEV_SUM)
COUNT: Final = "__count"  # UInt32: rated sides of one player with one value of score - PD (rounding by game)

# --- finalize -------------------------------------------------------------------------------------
PERF_N: Final = "__perf_n"  # games of the performance rating: rated, or pending for an unrated player
PERF_OPP: Final = "__perf_opp"  # their opponents' rating sum
PERF_W2: Final = "__perf_w2"  # their score in half points
PENDING_N: Final = "__pending_n"  # pending sides of a player this period
PENDING_OPP: Final = "__pending_opp"
PENDING_W2: Final = "__pending_w2"
POOLED: Final = "__pooled"  # Boolean: the player has a pool (a row of the pools)
OUTPUT: Final = "__output"  # Boolean: the player is on the new list
X100: Final = "__x100"  # K x sum(score - PD), hundredths
GAME_CHANGE: Final = "__game_change"  # Int64: sum over games of each game's rounded K x (score - PD)
RATING_AFTER: Final = "__rating_after"  # the new rating (null: unrated on the new list)
REACHED_2400_BEFORE: Final = "__reached_2400_before"  # a published rating reached 2400 (list in force)
REACHED_2300_BEFORE: Final = "__reached_2300_before"  # ... 2300, or 2400 (the junior rule's "under 2300")
REACHED_2400_AFTER: Final = "__reached_2400"  # ... the new rating included
REACHED_2300_AFTER: Final = "__reached_2300"
GAMES_TOTAL: Final = "__games_total"  # rated games including this period's
SEEDED: Final = "__seeded"  # Boolean: rated at the standard rating this period (R&B 7.2.1, kernels/listchanges.py)
ADJUSTMENT: Final = "__adjustment"  # points the one-time list change added (kernels/listchanges.py)

# first ratings (see elo_batch.engine.lifecycle): one row per unrated player with pooled games
PUBLISHED: Final = "__published"  # Boolean: a first rating is published this period
RU: Final = "__ru"  # Int64: Ru, rating points (null when not published)
POOL_N: Final = "__pool_n"  # Int64: games in the pool, all periods
PERIOD_N: Final = "__period_n"  # Int64: pooled games of this period
PERIOD_W2: Final = "__period_w2"  # Int64: their score in half points
PENDING: Final = "__pending"  # String: the pool carried to the next list (null when empty or published)
IGNORED_EVENTS: Final = "__ignored_events"  # List(String): events ignored as a first event scored zero
# ... and while pooling
ENTRY: Final = "__entry"  # one entry of a list's pending column
PARTS: Final = "__parts"  # its fields
ENTRY_PERIOD: Final = "__period"  # its month
ENTRY_N: Final = "__entry_n"  # its games, score (half points), opponents' rating sum
ENTRY_W2: Final = "__entry_w2"
ENTRY_OPP: Final = "__entry_opp"
PRIOR_N: Final = "__prior_n"  # the earlier pool within the window: games, score, opponents' sum, entries
PRIOR_W2: Final = "__prior_w2"
PRIOR_OPP: Final = "__prior_opp"
PRIOR_ENTRIES: Final = "__prior_entries"
MARKER: Final = "__marker"  # the entry that keeps "a first event was seen" while the pool is empty
EVENT: Final = "__event"  # an event of this period (the empty text for rows without event_id)
START: Final = "__start"  # its first date
FIRST_ROW: Final = "__first_row"  # its first row_key
SEEN_BEFORE: Final = "__seen_before"  # Boolean: the player had an event before this period
EVENT_RANK: Final = "__event_rank"  # the event's rank among the player's events of the period
IGNORED: Final = "__ignored"  # Boolean: the event is ignored (first event scored zero)
PERIOD_OPP: Final = "__period_opp"  # pooled games of this period: opponents' rating sum

SUMS_ROW: Final = "__sums_row"  # UInt32: a player index's row of the period's sums (null: no rated side)
POOLS_ROW: Final = "__pools_row"  # UInt32: a player index's row of the pools (null: no pool)

POOLS_SCHEMA: Final[dict[str, pl.DataType]] = {
    c.PLAYER_ID: pl.String(),
    PUBLISHED: pl.Boolean(),
    RU: pl.Int64(),
    POOL_N: pl.Int64(),
    PERIOD_N: pl.Int64(),
    PERIOD_W2: pl.Int64(),
    PENDING: pl.String(),
    IGNORED_EVENTS: pl.List(pl.String()),
}

# --- the audit ------------------------------------------------------------------------------------
AUDIT_ROW: Final = "__j"  # the audit row: side j % 2 of table row j // 2
AT: Final = "__at"  # the table row of an audit row
OWN_AT: Final = "__own_at"  # the audit row's side among the white sides then the black sides: AT + SIDE x rows
OTHER_AT: Final = "__other_at"  # its opponent's side there: AT + (1 - SIDE) x rows
BLACK_SCORE: Final = "__black_score100"  # Int16: black's score, hundredths
K_AUDIT: Final = "__k"  # K used for a rated side

#: Ratings and changes kept fractional (``rounding="none"``): written with exactly 2 decimals.
RATING_2DP: Final = pl.Decimal(12, 2)


def written_period(period: str) -> pl.Expr:
    """The ``period`` column as written (``YYYY-MM``): one Categorical value, broadcast, so that the
    table's files hold it dictionary-encoded and readers see one column across partitions."""
    return pl.lit(pl.Series([period], dtype=pl.Categorical)).first().alias(c.PERIOD)


def written_rating(expr: pl.Expr, rounding: str) -> pl.Expr:
    """Ratings as written: whole points (Int64), or Decimal with 2 decimals with ``rounding="none"``."""
    if rounding == "none":
        return expr.cast(pl.Float64).round(2, mode="half_away_from_zero").cast(RATING_2DP)
    return expr.round(0, mode="half_away_from_zero").cast(pl.Int64)


def written_points(hundredths: pl.Expr, expected: str) -> pl.Expr:
    """Hundredths of a point as points (Float64): exact to 2 decimals for the FIDE table (no
    representation noise such as 0.7000000000000001), unrounded for the logistic formula."""
    points = engine.divide(hundredths, 100.0)
    return points if expected == "formula" else points.round(2)
