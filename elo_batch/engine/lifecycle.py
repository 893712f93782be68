"""First ratings of unrated players: pooling their games across periods (B.02 7.1.4, 8.2); no I/O.

An unrated player's games against rated opponents wait in a pool carried on the rating list in the
``pending`` column, one entry per period: ``YYYY-MM:n:w2:opponents_sum`` joined by ``;`` (games,
score in half points, sum of the opponents' ratings). Entries older than 26 months fall out of the
pool. The player's first event is ignored if it was scored zero (8.2.1); a later zero counts. Once a
first event has been seen, an entry ``YYYY-MM:0:0:0`` keeps that fact while the pool is empty. With at
least 5 pooled games, the initial rating Ru (8.2.3) is published if it is at least 1400; otherwise
the pool waits for more games. (The numbers are those of the rule set's ``first_rating`` and ``floor``.)
"""

from __future__ import annotations

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.engine import expressions as engine
from elo_batch.engine import schema as s
from elo_batch.rules.sets import RuleSet

#: One row per unrated player with pooled games (see :data:`elo_batch.engine.schema.POOLS_SCHEMA`).
POOLS_SCHEMA = s.POOLS_SCHEMA


def _month_index(period: pl.Expr) -> pl.Expr:
    return period.str.slice(0, 4).cast(pl.Int64) * 12 + period.str.slice(5, 2).cast(pl.Int64) - 1


def pool_first_ratings(sides: pl.LazyFrame, listed: pl.LazyFrame, rules: RuleSet, *, period: str) -> pl.LazyFrame:
    """The pool and the first rating, if any, of every unrated player with pooled games.

    Args:
        sides: Game sides of the period, with ``reason`` set to ``pending first rating`` where an
            unrated player met a rated opponent, and ``opponent_rating`` the opponent's rating used.
        listed: The list in force (its ``pending`` column holds earlier pools).
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
    now = int(period[:4]) * 12 + int(period[5:]) - 1
    entries = (
        listed.filter(pl.col(c.PENDING).is_not_null())
        .select(c.PLAYER_ID, pl.col(c.PENDING).str.split(";").alias(w.ENTRY))
        .explode(w.ENTRY)
        .with_columns(pl.col(w.ENTRY).str.split_exact(":", 3).alias(w.PARTS))
        .with_columns(
            pl.col(w.PARTS).struct.field("field_0").alias(w.ENTRY_PERIOD),
            pl.col(w.PARTS).struct.field("field_1").cast(pl.Int64).alias(w.ENTRY_N),
            pl.col(w.PARTS).struct.field("field_2").cast(pl.Int64).alias(w.ENTRY_W2),
            pl.col(w.PARTS).struct.field("field_3").cast(pl.Int64).alias(w.ENTRY_OPP),
        )
    )
    in_window = (pl.col(w.ENTRY_N) > 0) & (
        _month_index(pl.col(w.ENTRY_PERIOD)) > now - rules.first_rating.window_months
    )
    prior = entries.group_by(c.PLAYER_ID).agg(
        pl.col(w.ENTRY_N).filter(in_window).sum().alias(w.PRIOR_N),
        pl.col(w.ENTRY_W2).filter(in_window).sum().alias(w.PRIOR_W2),
        pl.col(w.ENTRY_OPP).filter(in_window).sum().alias(w.PRIOR_OPP),
        pl.col(w.ENTRY).filter(in_window).alias(w.PRIOR_ENTRIES),
        pl.col(w.ENTRY).filter(pl.col(w.ENTRY_N) == 0).first().alias(w.MARKER),
    )
    events = (
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
    kept = ~pl.col(w.IGNORED)
    this = events.group_by(c.PLAYER_ID).agg(
        pl.col(w.ENTRY_N).filter(kept).sum().alias(w.PERIOD_N),
        pl.col(w.ENTRY_W2).filter(kept).sum().alias(w.PERIOD_W2),
        pl.col(w.ENTRY_OPP).filter(kept).sum().alias(w.PERIOD_OPP),
        pl.col(w.EVENT).filter(pl.col(w.IGNORED)).alias(w.IGNORED_EVENTS),
    )
    pools = this.join(prior, on=c.PLAYER_ID, how="full", coalesce=True)
    period_n = pl.col(w.PERIOD_N).fill_null(0)
    pool_n = pl.col(w.PRIOR_N).fill_null(0) + period_n
    pool_w2 = pl.col(w.PRIOR_W2).fill_null(0) + pl.col(w.PERIOD_W2).fill_null(0)
    pool_opp = pl.col(w.PRIOR_OPP).fill_null(0) + pl.col(w.PERIOD_OPP).fill_null(0)
    ru = engine.initial_rating(pool_opp, pool_n, pool_w2, rule=rules.first_rating)
    published = (period_n > 0) & (pool_n >= rules.first_rating.min_games)
    if rules.floor is not None:
        published = published & (ru >= rules.floor)
    entry = pl.format("{}:{}:{}:{}", pl.lit(period), period_n, pl.col(w.PERIOD_W2), pl.col(w.PERIOD_OPP))
    pooled = pl.concat_list(
        pl.col(w.PRIOR_ENTRIES).fill_null(pl.lit([], pl.List(pl.String))),
        pl.when(period_n > 0).then(pl.concat_list(entry)).otherwise(pl.lit([], pl.List(pl.String))),
    )
    # the state kept for a player whose pool is empty but whose first event has been seen (8.2.1)
    marker = pl.coalesce(w.MARKER, pl.format("{}:0:0:0", pl.lit(period)))
    pending = pl.when(pooled.list.len() > 0).then(pooled.list.join(";")).otherwise(marker)
    return (
        pools.with_columns(pool_n.alias(w.POOL_N), published.alias(w.PUBLISHED))
        .select(
            c.PLAYER_ID,
            w.PUBLISHED,
            pl.when(w.PUBLISHED).then(ru).alias(w.RU),
            w.POOL_N,
            period_n.alias(w.PERIOD_N),
            pl.col(w.PERIOD_W2).fill_null(0).alias(w.PERIOD_W2),
            pl.when(~pl.col(w.PUBLISHED)).then(pending).alias(w.PENDING),
            pl.col(w.IGNORED_EVENTS).fill_null(pl.lit([], pl.List(pl.String))),
        )
        .cast(schema)  # type: ignore[arg-type]
    )
