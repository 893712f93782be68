"""The audit: one row per game side of a chunk, from its rated sides and the finalized K and first ratings.

The audit of the whole period is that of one chunk holding every row; the audits of consecutive chunks,
one after the other, are the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.engine import schema as s
from elo_batch.engine.finish import Finished
from elo_batch.engine.sides import Chunk, RatedSides, complete
from elo_batch.rules.sets import RuleSet


def audit(
    chunk: Chunk,
    rated: RatedSides,
    finished: Finished,
    *,
    ids: pl.Series,
    source_file: pl.Expr,
    absent: frozenset[str],
    rules: RuleSet,
    period: str,
) -> pl.LazyFrame:
    """One row per game side of ``chunk``, in input order: the ratings, D, PD, K and K x (score - PD)
    used, or why it did not count.

    Args:
        chunk: Consecutive rows of the period table.
        rated: Their sides, rated (:func:`elo_batch.engine.sides.rate_chunk`).
        finished: The finalized period (K used by player, first ratings' flags).
        ids: The player id of each dense index (``Prepared.ids``).
        source_file: The ``source_file`` of a row from its ``row_key`` (see ``GamesInput.source_file``).
        absent: Columns no input has: they stay constants.
        rules: The period's rule set.
        period: Month of play, ``YYYY-MM``.

    Returns:
        A lazy plan over the chunk, ``AUDIT_OUTPUT`` columns; the writer runs it in chunks. The text
        columns of few values (period, source_file, colour, reason) are Categoricals gathered from their
        few values: written dictionary-encoded, without hashing 20 million texts, and read back as one
        column across partitions (an Enum would hold only its own period's values).

    Output row ``j`` is side ``j % 2`` (white, black) of row ``j // 2`` (the black side of a one-sided
    row is left out); every column is gathered from the chunk's columns, or from the white and black
    values laid end to end (as :meth:`RatedSides.both` lays them), then completed as the map completes
    them (:func:`elo_batch.engine.sides.complete`).
    """
    table = chunk.rows.with_columns((100 - pl.col(s.SCORE100)).cast(pl.Int16).alias(w.BLACK_SCORE))
    gathered = _Gathered(table, rated.both(), absent)
    sides = gathered.sides(_order(table), rules)
    k_used = pl.when(w.RATED).then(_by_player(finished.k_used)).alias(w.K_AUDIT)
    return (
        complete(sides, rules)
        .with_columns(k_used)
        .select(
            s.written_period(period),
            c.GAME_ID,
            source_file.alias(c.SOURCE_FILE),
            *(c.SOURCE_ROW, c.EVENT_ID, c.ROUND, c.DATE),
            pl.lit(ids).gather(pl.col(w.IDX)).alias(c.PLAYER_ID),
            pl.lit(ids).gather(pl.col(w.OPP)).alias(c.OPPONENT_ID),
            *_rating_columns(rules),
            *_outcome_columns(finished, rules),
        )
    )


@dataclass(frozen=True)
class _Gathered:
    """A chunk's columns as the audit gathers them (by ``__at``, ``__own_at``, ``__other_at``): its rows
    (``table``), its rated sides laid end to end (``both``); the columns no input has (``absent``) stay
    constants."""

    table: pl.DataFrame
    both: pl.DataFrame
    absent: frozenset[str]

    def row(self, name: str) -> pl.Expr:
        """The row's value of column ``name``."""
        if name in self.absent:
            return pl.lit(None, self.table.schema[name]).alias(name)
        return pl.lit(self.table[name]).gather(pl.col(w.AT)).alias(name)

    def side(self, name: str, white: str, black: str, *, at: str = w.OWN_AT) -> pl.Expr:
        """The side's value (``white``'s or ``black``'s column), or its opponent's (``at=__other_at``)."""
        if white in self.absent and black in self.absent:
            return pl.lit(None, self.table.schema[white]).alias(name)
        values = pl.concat([self.table[white], self.table[black]], rechunk=True)
        return pl.lit(values).gather(pl.col(at)).alias(name)

    def rated(self, name: str, *, opponent: bool = False) -> pl.Expr:
        """The rated side's value of ``name`` (or its opponent's), as the map rated it."""
        return pl.lit(self.both[name]).gather(pl.col(w.OTHER_AT if opponent else w.OWN_AT))

    def sides(self, order: pl.LazyFrame, rules: RuleSet) -> pl.LazyFrame:
        """Each audit row's game side (``order``: :func:`_order`): the row's columns, the side's key, player,
        opponent, score and rating."""
        return order.select(
            pl.col(w.SIDE),
            *(self.row(name) for name in (s.ROW_KEY, s.ONE_SIDED, s.FORFEIT, s.DUPLICATE, w.EVENT_RULE)),
            self.side(w.IDX, w.WHITE, w.BLACK),
            self.side(w.OWN_LATE, w.WHITE_LATE, w.BLACK_LATE),
            self.side(w.OPP, w.WHITE, w.BLACK, at=w.OTHER_AT),
            self.side(w.SIDE_SCORE, s.SCORE100, w.BLACK_SCORE),
            self.rated(c.RATING).alias(c.RATING),
            self.rated(c.RATING, opponent=True).alias(c.OPPONENT_RATING),
            self.rated(w.CODE).alias(w.CODE),
            self.rated(w.PD).alias(w.PD),
            *(self.row(name) for name in (c.GAME_ID, c.SOURCE_ROW, c.EVENT_ID, c.ROUND, c.DATE)),
            *([self.side(w.UPGRADE, w.WHITE_UP, w.BLACK_UP)] if rules.cap_once_per_event else []),
        ).with_columns((2 * pl.col(s.ROW_KEY) + pl.col(w.SIDE)).alias(w.KEY))


def _order(table: pl.DataFrame) -> pl.LazyFrame:
    """The audit's rows: row ``__at`` and side ``__side`` of each (a one-sided row's black side left out),
    and where the side's and its opponent's values lie among the white and black values laid end to end."""
    n = table.height
    index = pl.UInt32 if 2 * n < 2**32 else pl.Int64
    order = pl.LazyFrame({w.AUDIT_ROW: pl.int_range(0, 2 * n, dtype=index, eager=True)}).select(
        (pl.col(w.AUDIT_ROW) // 2).alias(w.AT), (pl.col(w.AUDIT_ROW) % 2).alias(w.SIDE)
    )
    if table[s.ONE_SIDED].any():
        order = order.filter(~(pl.lit(table[s.ONE_SIDED]).gather(pl.col(w.AT)) & (pl.col(w.SIDE) == 1)))
    return order.with_columns(  # where each audit row's side and its opponent's are, computed once
        (pl.col(w.AT) + pl.col(w.SIDE) * n).alias(w.OWN_AT), (pl.col(w.AT) + (1 - pl.col(w.SIDE)) * n).alias(w.OTHER_AT)
    )


def _rating_columns(rules: RuleSet) -> list[pl.Expr]:
    """The audit's columns ``colour`` .. ``k_change``: the ratings, D, PD, score and K x (score - PD) used."""
    colour = pl.when(pl.col(s.ONE_SIDED)).then(None).otherwise(pl.col(w.SIDE)).cast(pl.UInt32)
    kdev100 = pl.col(w.K_AUDIT) * pl.col(w.DEV)  # null when not rated
    return [
        pl.lit(pl.Series(c.COLOURS, dtype=pl.Categorical)).gather(colour).alias(c.COLOUR),
        s.written_rating(pl.col(c.RATING), rules),
        s.written_rating(pl.col(c.OPPONENT_RATING), rules),
        s.written_rating(pl.col(c.RATING_DIFF), rules),
        pl.col(c.CAPPED),
        s.written_points(pl.col(w.PD), rules).alias(c.EXPECTED_SCORE),
        s.written_points(pl.col(w.SIDE_SCORE), rules).alias(c.SCORE),
        pl.col(w.K_AUDIT).alias(c.K_USED),
        s.written_points(kdev100, rules).alias(c.K_CHANGE),
    ]


def _outcome_columns(finished: Finished, rules: RuleSet) -> list[pl.Expr]:
    """The audit's columns ``counted``, ``reason``, ``event_rule``: whether the side counted (rated, or for
    a published first rating), why not, and the event rule that decided it."""
    ignored = _is_in_keys(pl.col(w.KEY), finished.flags.ignored)
    published = _is_in_keys(pl.col(w.KEY), finished.flags.published)
    pending_reason = c.PENDING_FIRST_RATING if rules.initial_ratings else c.UNRATED_PLAYER
    named = [
        c.DUPLICATE_ROW, c.FORFEIT, c.UNRATED_OPPONENT, pending_reason, c.GAP_600, c.FIRST_EVENT_ZERO,
        c.MATCH_UNRATED_PLAYER, c.MATCH_DECIDED, c.UNRATED_AT_START,
    ]  # fmt: skip
    reasons = pl.Series([None, *named], dtype=pl.Categorical)  # by __code (FIRST_EVENT_ZERO among them)
    rules_named = pl.Series(s.EVENT_RULES, dtype=pl.Categorical)  # by __event_rule
    reason = pl.when(ignored).then(s.FIRST_EVENT_ZERO).when(published).then(s.COUNTED).otherwise(w.CODE)
    return [
        (pl.col(w.RATED) | published).alias(c.COUNTED),
        pl.lit(reasons).gather(reason.cast(pl.UInt32)).alias(c.REASON),
        pl.lit(rules_named).gather(_event_rule().cast(pl.UInt32)).alias(c.EVENT_RULE),
    ]


def _by_player(k_used: pl.Series) -> pl.Expr:
    """Each side's K used, gathered by its player's index: in a random order of players, so as Int16 (a K
    is a small whole number, at most :data:`elo_batch.config.MAX_K`) the table stays in the processor's
    cache for a list of a million players (10M games: 0.7 -> 0.2 s)."""
    if not k_used.dtype.is_integer():
        return pl.lit(k_used).gather(pl.col(w.IDX))
    return pl.lit(k_used.cast(pl.Int16)).gather(pl.col(w.IDX)).cast(k_used.dtype)


def _event_rule() -> pl.Expr:
    """The event rule that decided a side (``__event_rule`` codes): a match's rule (B.02 6.1, 6.2), else
    8.2.4 seen from this side (an opponent unrated at the event's start; a player unrated there who
    counts, rated for himself), else the row's rule (list at the event's start, period)."""
    row_rule = pl.col(w.EVENT_RULE)
    return (
        pl.when(row_rule.is_in([s.RULE_MATCH_UNRATED, s.RULE_MATCH_DECIDED, s.RULE_MATCH_WAIVER]))
        .then(row_rule)
        .when(pl.col(w.CODE) == s.UNRATED_AT_START)
        .then(s.RULE_OPPONENT_LATE)
        .when(pl.col(w.OWN_LATE) & pl.col(w.RATED))
        .then(s.RULE_RATED_FOR_HIMSELF)
        .otherwise(row_rule)
    )


def _is_in_keys(key: pl.Expr, keys: pl.Series) -> pl.Expr:
    return key.is_in(keys.implode()) if keys.len() else pl.lit(False)
