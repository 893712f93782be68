"""First ratings of unrated players: pooling their games across periods (B.02 7.1.4, 8.2); no I/O.

An unrated player's games against rated opponents wait in a pool carried on the rating list in the
``pending`` column, one entry per period (games, score in half points, sum of the opponents' ratings:
a list of structs, :data:`elo_batch.contract.pending.POOL`, in memory; text on disk). Entries older
than 26 months fall out of the pool. The player's first event is ignored if it was scored zero (8.2.1);
a later zero counts. Once a first event has been seen, an entry of no games (``YYYY-MM:0:0:0``) keeps
that fact while the pool is empty. With at least 5 pooled games, the initial rating Ru (8.2.3) is
published if it is at least 1400; otherwise the pool waits for more games. (The numbers are those of
the rule set's ``first_rating`` and ``floor``.)
"""

from __future__ import annotations

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.contract import pending
from elo_batch.engine import expressions as engine
from elo_batch.engine import schema as s
from elo_batch.rules.sets import RuleSet

#: One row per unrated player with pooled games (see :data:`elo_batch.engine.schema.POOLS_SCHEMA`).
POOLS_SCHEMA = s.POOLS_SCHEMA


def _month_index(period: pl.Expr) -> pl.Expr:
    """The month's number (year x 12 + month - 1) of a ``YYYY-MM`` period."""
    return period.str.slice(0, 4).cast(pl.Int64) * 12 + period.str.slice(5, 2).cast(pl.Int64) - 1


def pool_first_ratings(sides: pl.LazyFrame, listed: pl.LazyFrame, rules: RuleSet, *, period: str) -> pl.LazyFrame:
    """The pool and the first rating, if any, of every unrated player with pooled games.

    Args:
        sides: Game sides of the period, with ``reason`` set to ``pending first rating`` where an
            unrated player met a rated opponent, and ``opponent_rating`` the opponent's rating used.
        listed: The list in force (its ``pending`` column holds earlier pools,
            :data:`elo_batch.contract.pending.POOL`).
        rules: The period's rule set (nothing is pooled when it has no initial ratings).
        period: Month of play, ``YYYY-MM``.

    Returns:
        One row per such player, columns ``POOLS_SCHEMA`` (``player_id`` of the list's type).

    References:
        FIDE Rating Regulations (B.02, 2024) 7.1.4 (5 games, 26 months, 1400), 8.2.1 (first event
        scored zero), 8.2.2-8.2.3 (Ru, 2200 maximum); ``fide-rules.md`` section 6, TV-16 to TV-20.
    """
    schema = {**POOLS_SCHEMA, c.PLAYER_ID: listed.collect_schema()[c.PLAYER_ID]}  # ids as the list has them
    if not rules.initial_ratings:
        return pl.LazyFrame(schema=schema)
    prior = _prior_pools(listed, rules, period=period)
    this = _this_period(_first_rating_events(sides, prior))
    pools = this.join(prior, on=c.PLAYER_ID, how="full", coalesce=True)
    return _decided(pools, rules, period=period).cast(schema)  # type: ignore[arg-type]


def _prior_pools(listed: pl.LazyFrame, rules: RuleSet, *, period: str) -> pl.LazyFrame:
    """Per player of the list with a pool: the games, score and opponents' sum of the entries still in
    the window (7.1.4: the last 26 months), those entries, and the first marker entry (no games)."""
    now = int(period[:4]) * 12 + int(period[5:]) - 1
    entry = pl.col(w.ENTRY).struct
    games = entry.field(pending.GAMES)
    in_window = (games > 0) & (_month_index(entry.field(pending.PERIOD)) > now - rules.first_rating.window_months)
    return (
        listed.filter(pl.col(c.PENDING).is_not_null())
        .select(c.PLAYER_ID, pl.col(c.PENDING).alias(w.ENTRY))
        .explode(w.ENTRY)
        .group_by(c.PLAYER_ID)
        .agg(
            games.filter(in_window).sum().alias(w.PRIOR_N),
            entry.field(pending.SCORE_HALVES).filter(in_window).sum().alias(w.PRIOR_W2),
            entry.field(pending.OPPONENTS_SUM).filter(in_window).sum().alias(w.PRIOR_OPP),
            pl.col(w.ENTRY).filter(in_window).alias(w.PRIOR_ENTRIES),
            pl.col(w.ENTRY).filter(games == 0).first().alias(w.MARKER),
        )
    )


def _first_rating_events(sides: pl.LazyFrame, prior: pl.LazyFrame) -> pl.LazyFrame:
    """Per player and event of the period: the pending sides' games, score (half points) and opponents'
    sum, and whether the event is ignored as the player's first, scored zero (8.2.1)."""
    return (
        sides.filter(pl.col(c.REASON) == c.PENDING_FIRST_RATING)
        .group_by(c.PLAYER_ID, pl.coalesce(c.EVENT_ID, pl.lit("")).alias(w.EVENT))
        .agg(
            pl.len().cast(pl.Int64).alias(w.ENTRY_N),
            (pl.col(s.SCORE100) // 50).sum().cast(pl.Int64).alias(w.ENTRY_W2),
            pl.col(c.OPPONENT_RATING).sum().cast(pl.Int64).alias(w.ENTRY_OPP),
            pl.col(c.DATE).min().alias(w.START),
            pl.col(s.ROW_KEY).min().alias(w.FIRST_ROW),
        )
        .join(prior.select(c.PLAYER_ID, pl.lit(True).alias(w.SEEN_BEFORE)), on=c.PLAYER_ID, how="left")
        .sort(c.PLAYER_ID, w.START, w.FIRST_ROW, nulls_last=True)
        .with_columns(pl.int_range(pl.len()).over(c.PLAYER_ID).alias(w.EVENT_RANK))
        .with_columns(
            (pl.col(w.SEEN_BEFORE).is_null() & (pl.col(w.EVENT_RANK) == 0) & (pl.col(w.ENTRY_W2) == 0)).alias(w.IGNORED)
        )
    )


def _this_period(events: pl.LazyFrame) -> pl.LazyFrame:
    """Per player: the games, score and opponents' sum pooled this period, and the events ignored."""
    kept = ~pl.col(w.IGNORED)
    return events.group_by(c.PLAYER_ID).agg(
        pl.col(w.ENTRY_N).filter(kept).sum().alias(w.PERIOD_N),
        pl.col(w.ENTRY_W2).filter(kept).sum().alias(w.PERIOD_W2),
        pl.col(w.ENTRY_OPP).filter(kept).sum().alias(w.PERIOD_OPP),
        pl.col(w.EVENT).filter(pl.col(w.IGNORED)).alias(w.IGNORED_EVENTS),
    )


def _decided(pools: pl.LazyFrame, rules: RuleSet, *, period: str) -> pl.LazyFrame:
    """Per player: whether a first rating Ru is published (8.2.3, 7.1.4), Ru, the pool's games, and the
    pool the next list carries when none is."""
    period_n = pl.col(w.PERIOD_N).fill_null(0)
    pool_n = pl.col(w.PRIOR_N).fill_null(0) + period_n
    pool_w2 = pl.col(w.PRIOR_W2).fill_null(0) + pl.col(w.PERIOD_W2).fill_null(0)
    pool_opp = pl.col(w.PRIOR_OPP).fill_null(0) + pl.col(w.PERIOD_OPP).fill_null(0)
    ru = engine.initial_rating(pool_opp, pool_n, pool_w2, rule=rules.first_rating)
    published = (period_n > 0) & (pool_n >= rules.first_rating.min_games)
    if rules.floor is not None:
        published = published & (ru >= rules.floor)
    return pools.with_columns(pool_n.alias(w.POOL_N), published.alias(w.PUBLISHED)).select(
        c.PLAYER_ID,
        w.PUBLISHED,
        pl.when(w.PUBLISHED).then(ru).alias(w.RU),
        w.POOL_N,
        period_n.alias(w.PERIOD_N),
        pl.col(w.PERIOD_W2).fill_null(0).alias(w.PERIOD_W2),
        pl.when(~pl.col(w.PUBLISHED)).then(_carried(period, period_n)).alias(w.PENDING),
        pl.col(w.IGNORED_EVENTS).fill_null(pl.lit([], pl.List(pl.String))),
    )


def _carried(period: str, period_n: pl.Expr) -> pl.Expr:
    """The pool the next list carries: the entries in the window, then this period's (if it pooled
    games); with none, the first event's marker (the list's, else one of this period: 8.2.1)."""
    none = pl.lit([], pending.POOL)
    this = pending.entry(
        pl.lit(period), games=period_n, score_halves=pl.col(w.PERIOD_W2), opponents_sum=pl.col(w.PERIOD_OPP)
    )
    pooled = pl.concat_list(
        pl.col(w.PRIOR_ENTRIES).fill_null(none), pl.when(period_n > 0).then(pl.concat_list(this)).otherwise(none)
    )
    marker = pl.coalesce(
        w.MARKER, pending.entry(pl.lit(period), games=pl.lit(0), score_halves=pl.lit(0), opponents_sum=pl.lit(0))
    )
    return pl.when(pooled.list.len() > 0).then(pooled).otherwise(pl.concat_list(marker))
