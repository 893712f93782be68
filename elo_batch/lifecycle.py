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
from elo_batch import engine
from elo_batch.rules.sets import RuleSet

POOLS_SCHEMA: dict[str, pl.DataType] = {
    c.PLAYER_ID: pl.String(),
    "__published": pl.Boolean(),  # a first rating is published this period
    "__ru": pl.Int64(),  # Ru, rating points (null when not published)
    "__pool_n": pl.Int64(),  # games in the pool, all periods
    "__period_n": pl.Int64(),  # pooled games of this period
    "__period_w2": pl.Int64(),  # their score in half points
    "__pending": pl.String(),  # the pool carried to the next list (null when empty or published)
    "__ignored_events": pl.List(pl.String()),  # events of this period ignored as a first event scored zero
}


def _month_index(period: pl.Expr) -> pl.Expr:
    return period.str.slice(0, 4).cast(pl.Int64) * 12 + period.str.slice(5, 2).cast(pl.Int64) - 1


def pool_first_ratings(sides: pl.LazyFrame, listed: pl.LazyFrame, rules: RuleSet, period: str) -> pl.LazyFrame:
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
        .select(c.PLAYER_ID, pl.col(c.PENDING).str.split(";").alias("__entry"))
        .explode("__entry")
        .with_columns(pl.col("__entry").str.split_exact(":", 3).alias("__parts"))
        .with_columns(
            pl.col("__parts").struct.field("field_0").alias("__period"),
            pl.col("__parts").struct.field("field_1").cast(pl.Int64).alias("__n"),
            pl.col("__parts").struct.field("field_2").cast(pl.Int64).alias("__w2"),
            pl.col("__parts").struct.field("field_3").cast(pl.Int64).alias("__opp"),
        )
    )
    in_window = (pl.col("__n") > 0) & (_month_index(pl.col("__period")) > now - rules.first_rating.window_months)
    prior = entries.group_by(c.PLAYER_ID).agg(
        pl.col("__n").filter(in_window).sum().alias("__prior_n"),
        pl.col("__w2").filter(in_window).sum().alias("__prior_w2"),
        pl.col("__opp").filter(in_window).sum().alias("__prior_opp"),
        pl.col("__entry").filter(in_window).alias("__prior_entries"),
        pl.col("__entry").filter(pl.col("__n") == 0).first().alias("__marker"),
    )
    events = (
        sides.filter(pl.col(c.REASON) == c.PENDING_FIRST_RATING)
        .group_by(c.PLAYER_ID, pl.coalesce(c.EVENT_ID, pl.lit("")).alias("__event"))
        .agg(
            pl.len().cast(pl.Int64).alias("__n"),
            (pl.col("score100") // 50).sum().cast(pl.Int64).alias("__w2"),
            pl.col(c.OPPONENT_RATING).sum().cast(pl.Int64).alias("__opp"),
            pl.col(c.DATE).min().alias("__start"),
            pl.col("row_key").min().alias("__first_row"),
        )
        .join(prior.select(c.PLAYER_ID, pl.lit(True).alias("__seen_before")), on=c.PLAYER_ID, how="left")
        .sort(c.PLAYER_ID, "__start", "__first_row", nulls_last=True)
        .with_columns(pl.int_range(pl.len()).over(c.PLAYER_ID).alias("__event_rank"))
        .with_columns(
            (pl.col("__seen_before").is_null() & (pl.col("__event_rank") == 0) & (pl.col("__w2") == 0)).alias(
                "__ignored"
            )
        )
    )
    kept = ~pl.col("__ignored")
    this = events.group_by(c.PLAYER_ID).agg(
        pl.col("__n").filter(kept).sum().alias("__period_n"),
        pl.col("__w2").filter(kept).sum().alias("__period_w2"),
        pl.col("__opp").filter(kept).sum().alias("__period_opp"),
        pl.col("__event").filter(pl.col("__ignored")).alias("__ignored_events"),
    )
    pools = this.join(prior, on=c.PLAYER_ID, how="full", coalesce=True)
    period_n = pl.col("__period_n").fill_null(0)
    pool_n = pl.col("__prior_n").fill_null(0) + period_n
    pool_w2 = pl.col("__prior_w2").fill_null(0) + pl.col("__period_w2").fill_null(0)
    pool_opp = pl.col("__prior_opp").fill_null(0) + pl.col("__period_opp").fill_null(0)
    ru = engine.initial_rating(pool_opp, pool_n, pool_w2, rules.first_rating)
    published = (period_n > 0) & (pool_n >= rules.first_rating.min_games)
    if rules.floor is not None:
        published = published & (ru >= rules.floor)
    entry = pl.format("{}:{}:{}:{}", pl.lit(period), period_n, pl.col("__period_w2"), pl.col("__period_opp"))
    pooled = pl.concat_list(
        pl.col("__prior_entries").fill_null(pl.lit([], pl.List(pl.String))),
        pl.when(period_n > 0).then(pl.concat_list(entry)).otherwise(pl.lit([], pl.List(pl.String))),
    )
    # the state kept for a player whose pool is empty but whose first event has been seen (8.2.1)
    marker = pl.coalesce("__marker", pl.format("{}:0:0:0", pl.lit(period)))
    pending = pl.when(pooled.list.len() > 0).then(pooled.list.join(";")).otherwise(marker)
    return (
        pools.with_columns(pool_n.alias("__pool_n"), published.alias("__published"))
        .select(
            c.PLAYER_ID,
            "__published",
            pl.when("__published").then(ru).alias("__ru"),
            "__pool_n",
            period_n.alias("__period_n"),
            pl.col("__period_w2").fill_null(0).alias("__period_w2"),
            pl.when(~pl.col("__published")).then(pending).alias("__pending"),
            pl.col("__ignored_events").fill_null(pl.lit([], pl.List(pl.String))),
        )
        .cast(schema)  # type: ignore[arg-type]
    )
