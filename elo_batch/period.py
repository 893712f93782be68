"""Rate one rating period as one lazy polars plan, and a range of periods (the only loop, over months).

Inside a period nothing is sequential: every game uses the ratings in force, so the games of the
period become game sides (one row per player and game), the sides are joined to the list, and the
per-player sums, K, change and new list follow as whole-column expressions.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import polars as pl

from elo_batch import columns as c
from elo_batch import engine
from elo_batch.config import RunConfig, next_period
from elo_batch.errors import InternalError
from elo_batch.lifecycle import pool_first_ratings
from elo_batch.ratinglist import LIST_SCHEMA, as_list_in_force
from elo_batch.rules.sets import RuleSet
from elo_batch.validate import GamesInput

#: Ratings and changes kept fractional (``--rounding none``): written with exactly 2 decimals.
RATING_2DP = pl.Decimal(12, 2)


@dataclass(frozen=True)
class Counts:
    """How the input rows of a run are accounted for in one period.

    ``rows_read == counted + not_counted + other_periods + rejected`` always holds (see
    :meth:`reconciles`): counted rows have at least one side counted, not-counted rows are in the audit
    with their reason, rejected rows are in ``rejected``.
    """

    rows_read: int
    counted: int
    not_counted: int
    other_periods: int
    rejected: int

    def reconciles(self) -> bool:
        """True when every row read is accounted for exactly once."""
        return self.rows_read == self.counted + self.not_counted + self.other_periods + self.rejected


@dataclass(frozen=True)
class PeriodResult:
    """Everything one rating period produces.

    Attributes:
        period: Month of play, ``YYYY-MM``.
        rule_set: The rules applied.
        ratings: The new rating list (one row per player, sorted by ``player_id``).
        audit: One row per game side considered, in input order.
        rejected: Rejected input rows attributed to this period, in input order.
        counts: Row accounting.
        warnings: Things the user should know that did not stop the run.
    """

    period: str
    rule_set: RuleSet
    ratings: pl.DataFrame
    audit: pl.DataFrame
    rejected: pl.DataFrame
    counts: Counts
    warnings: tuple[str, ...]


def rate_periods(games: GamesInput, rating_list: pl.DataFrame | None, config: RunConfig) -> Iterator[PeriodResult]:
    """Rate the periods of ``config`` in order, each starting from the list the previous one produced.

    Args:
        games: All checked game rows of the run.
        rating_list: The list in force before the first period (``LIST_SCHEMA`` columns first), or
            None to take ratings from the game rows.
        config: The run's settings.

    Yields:
        One :class:`PeriodResult` per period, in order.

    Raises:
        UsageError: a period has no supported rule set (see :meth:`RunConfig.rules_for`).
    """
    current = rating_list
    for period in config.periods:
        result = rate_period(
            games, current, config.rules_for(period), period, add_players_from_games=rating_list is None
        )
        yield result
        current = as_list_in_force(result.ratings)


def rate_period(
    games: GamesInput,
    rating_list: pl.DataFrame | None,
    rules: RuleSet,
    period: str,
    *,
    add_players_from_games: bool = False,
) -> PeriodResult:
    """Rate one period: expected scores, K, change, new list and audit.

    Args:
        games: All checked game rows (rows of other periods are counted, not rated).
        rating_list: The list in force (``LIST_SCHEMA`` columns, then pass-through columns), or None:
            then each player's rating is the one on their first game of the period (by date, then
            file order).
        rules: The rule set of the period.
        period: Month of play, ``YYYY-MM``.
        add_players_from_games: Add players met in the games but absent from ``rating_list``, rated
            from the game rows (a range run without ``--ratings``).

    Returns:
        The period's ratings, audit, rejected rows and counts.

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3 (rated players), 8.2 and 7.1.4 (unrated players),
        7.1.2 (1400 floor); ``fide-rules.md`` sections 3-7 and 12.
    """
    rows = games.rows.lazy().filter(pl.col(c.PERIOD) == period)
    sides = _sides(rows)
    listed, warnings = _period_list(rating_list, sides, add_players_from_games)
    sides = _rate_sides(sides, listed, rules)
    pools = pool_first_ratings(sides, listed, rules, period)
    players = _players(sides, listed, pools, rules, period)
    audit = _audit(sides, players, pools, rules, period)
    if rules.rounding == "game":
        per_game = audit.group_by(c.PLAYER_ID).agg(
            engine.round_half_away_100(pl.col("__kdev100")).sum().alias("__game_change")
        )
        players = (
            players.join(per_game, on=c.PLAYER_ID, how="left")
            .with_columns(
                pl.when(pl.col(c.CHANGE).is_not_null()).then(pl.col("__game_change").fill_null(0)).alias(c.CHANGE)
            )
            .drop("__game_change")
        )
    ratings_lf = _finish_list(players, rules, period)
    row_counted = audit.group_by("row_key").agg(pl.col(c.COUNTED).any()).select(pl.col(c.COUNTED).sum())
    ratings, audit_df, counted_df, period_rows = pl.collect_all(
        [
            ratings_lf.sort(c.PLAYER_ID),
            audit.sort("row_key", "__side").drop("row_key", "__side", "__kdev100"),
            row_counted,
            rows.select(pl.len()),
        ]
    )
    rejected = games.rejected.filter(pl.col(c.PERIOD).is_null() | (pl.col(c.PERIOD) == period)).with_columns(
        pl.lit(period).alias(c.PERIOD)
    )
    in_period = period_rows.item()
    counted = int(counted_df.item() or 0)
    other = (
        games.rows.filter(pl.col(c.PERIOD) != period).height
        + games.rejected.filter(pl.col(c.PERIOD).is_not_null() & (pl.col(c.PERIOD) != period)).height
    )
    counts = Counts(games.rows_read, counted, in_period - counted, other, rejected.height)
    if not counts.reconciles():
        raise InternalError(
            f"period {period}: rows do not reconcile ({counts}); nothing was written for this period",
            hint="this is a bug in elo-batch: every input row must be counted, audited or rejected; please report it.",
        )
    return PeriodResult(period, rules, ratings, audit_df, rejected, counts, tuple(warnings))


def _sides(rows: pl.LazyFrame) -> pl.LazyFrame:
    """One row per game side: both sides of a two-sided game, the player's side of a one-sided row."""
    common = [
        "row_key", c.GAME_ID, c.SOURCE_FILE, c.SOURCE_ROW, c.EVENT_ID, c.ROUND, c.DATE,
        "one_sided", "forfeit", "duplicate",
    ]  # fmt: skip
    white = rows.select(
        *common,
        pl.lit(0, pl.Int8).alias("__side"),
        pl.col(c.WHITE_ID).alias(c.PLAYER_ID),
        pl.col(c.BLACK_ID).alias(c.OPPONENT_ID),
        pl.when(~pl.col("one_sided")).then(pl.lit("white")).alias(c.COLOUR),
        pl.col("score100"),
        pl.col(c.WHITE_RATING).alias("__ro_game"),
        pl.col(c.BLACK_RATING).alias("__rc_game"),
    )
    black = rows.filter(~pl.col("one_sided")).select(
        *common,
        pl.lit(1, pl.Int8).alias("__side"),
        pl.col(c.BLACK_ID).alias(c.PLAYER_ID),
        pl.col(c.WHITE_ID).alias(c.OPPONENT_ID),
        pl.lit("black").alias(c.COLOUR),
        (100 - pl.col("score100")).cast(pl.Int16).alias("score100"),
        pl.col(c.BLACK_RATING).alias("__ro_game"),
        pl.col(c.WHITE_RATING).alias("__rc_game"),
    )
    return pl.concat([white, black])


def _period_list(
    rating_list: pl.DataFrame | None, sides: pl.LazyFrame, add_players_from_games: bool
) -> tuple[pl.LazyFrame, list[str]]:
    """The list in force; without one, every player met in the games with their first game's rating."""
    warnings: list[str] = []
    if rating_list is not None and not add_players_from_games:
        return rating_list.lazy(), warnings
    ordered = sides.sort(c.DATE, "row_key", "__side", nulls_last=True)
    from_games = ordered.group_by(c.PLAYER_ID, maintain_order=True).agg(
        pl.col("__ro_game").drop_nulls().first().alias(c.RATING),
        pl.col("__ro_game").drop_nulls().n_unique().alias("__ratings_seen"),
    )
    differing = from_games.filter(pl.col("__ratings_seen") > 1).select(pl.len()).collect().item()
    if differing:
        warnings.append(
            f"{differing} player(s) have different ratings on different game rows; each player's rating "
            "is the one on their first game of the period (by date, then file order)"
        )
    synthetic = from_games.select(
        *[
            (pl.col(name) if name in (c.PLAYER_ID, c.RATING) else pl.lit(None)).cast(dtype).alias(name)
            for name, dtype in LIST_SCHEMA.items()
        ]
    )
    if rating_list is None:
        return synthetic, warnings
    known = rating_list.lazy()
    return pl.concat([known, synthetic.join(known, on=c.PLAYER_ID, how="anti")], how="diagonal_relaxed"), warnings


def _rate_sides(sides: pl.LazyFrame, listed: pl.LazyFrame, rules: RuleSet) -> pl.LazyFrame:
    """Join each side to the list, decide whether it counts and compute D, PD and score - PD."""
    ratings = listed.select(c.PLAYER_ID, c.RATING)
    sides = sides.join(ratings.rename({c.RATING: "__ro_list"}), on=c.PLAYER_ID, how="left", maintain_order="left").join(
        ratings.rename({c.PLAYER_ID: c.OPPONENT_ID, c.RATING: "__rc_list"}),
        on=c.OPPONENT_ID,
        how="left",
        maintain_order="left",
    )
    ro = pl.coalesce("__ro_game", "__ro_list")
    rc = pl.coalesce("__rc_game", "__rc_list")
    opponent_rated = pl.when(pl.col("one_sided")).then(rc.is_not_null()).otherwise(pl.col("__rc_list").is_not_null())
    player_rated = pl.col("__ro_list").is_not_null()
    gap = (
        (rules.gap_600_rule & ((ro - rc).abs() >= 600) & ((ro > 2600) | (rc > 2600)))
        if rules.gap_600_rule
        else pl.lit(False)
    )
    reason = (
        pl.when(pl.col("duplicate"))
        .then(pl.lit(c.DUPLICATE_ROW))
        .when(pl.col("forfeit"))
        .then(pl.lit(c.FORFEIT))
        .when(~opponent_rated)
        .then(pl.lit(c.UNRATED_OPPONENT))
        .when(~player_rated)
        .then(pl.lit(c.PENDING_FIRST_RATING if rules.initial_ratings else c.UNRATED_PLAYER))
        .when(gap.fill_null(False))
        .then(pl.lit(c.GAP_600))
    )
    sides = sides.with_columns(
        ro.alias(c.RATING),
        rc.alias(c.OPPONENT_RATING),
        player_rated.alias("__player_rated"),
        reason.alias(c.REASON),
    ).with_columns(pl.col(c.REASON).is_null().alias("__rated"))
    diff = engine.capped_difference(pl.col(c.RATING), pl.col(c.OPPONENT_RATING), rules.cap_400)
    sides = sides.with_columns(
        pl.when("__rated").then(diff).alias(c.RATING_DIFF),
        pl.when("__rated")
        .then(engine.is_capped(pl.col(c.RATING), pl.col(c.OPPONENT_RATING), rules.cap_400))
        .alias(c.CAPPED),
    )
    pd100 = engine.expected_score_100(pl.col(c.RATING_DIFF), rules.expected)
    return sides.with_columns(pl.when("__rated").then(pd100).alias("__pd100")).with_columns(
        pl.when("__rated").then(pl.col("score100") - pl.col("__pd100")).alias("__dev100")
    )


def _players(
    sides: pl.LazyFrame, listed: pl.LazyFrame, pools: pl.LazyFrame, rules: RuleSet, period: str
) -> pl.LazyFrame:
    """Per-player sums over the period, K after the 700 rule, and the rounded change."""
    rated = pl.col("__rated")
    versus_rated = rated | pl.col(c.REASON).is_in([c.PENDING_FIRST_RATING])
    sums = sides.group_by(c.PLAYER_ID).agg(
        rated.sum().cast(pl.Int64).alias("__n"),
        pl.col("__dev100").filter(rated).sum().alias("__dev100"),
        pl.col("score100").filter(rated).sum().cast(pl.Int64).alias("__w100"),
        pl.col("__pd100").filter(rated).sum().alias("__pd100"),
        versus_rated.sum().cast(pl.Int64).alias("__perf_n"),
        pl.col(c.OPPONENT_RATING).filter(versus_rated).sum().cast(pl.Int64).alias("__perf_opp"),
        (pl.col("score100").filter(versus_rated) // 50).sum().cast(pl.Int64).alias("__perf_w2"),
    )
    newcomers = pools.select(c.PLAYER_ID).join(listed, on=c.PLAYER_ID, how="anti")
    universe = pl.concat([listed, newcomers], how="diagonal_relaxed")
    players = universe.join(sums, on=c.PLAYER_ID, how="left").join(pools, on=c.PLAYER_ID, how="left")
    n = pl.col("__n").fill_null(0)
    year = int(period[:4])
    if rules.k_rule == "fixed":
        k = pl.lit(rules.k_fixed, pl.Int64)
    else:
        reached_2400 = engine.reached(pl.col(c.REACHED_2400), pl.col(c.RATING), 2400, pl.col(c.K))
        k = engine.k_factor(
            year=year,
            rating=pl.col(c.RATING),
            k_list=pl.col(c.K),
            birth_year=pl.col(c.BIRTH_YEAR),
            games_total=pl.col(c.GAMES_TOTAL),
            reached_2400=reached_2400,
            reached_2300=reached_2400 | engine.reached(pl.col(c.REACHED_2300), pl.col(c.RATING), 2300),
        )
    k_used = engine.k_after_700_rule(k, n) if rules.rule_700 else k
    was_rated = pl.col(c.RATING).is_not_null()
    players = players.with_columns(
        pl.when(was_rated & (n > 0)).then(k_used).alias(c.K_USED),
    ).with_columns((pl.col(c.K_USED) * pl.col("__dev100")).alias("__x100"))
    x100 = pl.col("__x100").fill_null(0)
    change = (
        (x100 / 100.0).round(2, mode="half_away_from_zero").cast(RATING_2DP)
        if rules.rounding == "none"
        else engine.round_half_away_100(x100)
    )
    return players.with_columns(pl.when(was_rated).then(change).alias(c.CHANGE))


def _audit(
    sides: pl.LazyFrame, players: pl.LazyFrame, pools: pl.LazyFrame, rules: RuleSet, period: str
) -> pl.LazyFrame:
    """One row per game side: the ratings, D, PD, K and K x (score - PD) used, or why it did not count."""
    k_used = players.select(c.PLAYER_ID, c.K_USED)
    first = pools.select(c.PLAYER_ID, "__published", "__ignored_events")
    sides = sides.join(k_used, on=c.PLAYER_ID, how="left", maintain_order="left").join(
        first, on=c.PLAYER_ID, how="left", maintain_order="left"
    )
    pending = pl.col(c.REASON) == c.PENDING_FIRST_RATING
    ignored = pending & pl.col("__ignored_events").list.contains(pl.coalesce(c.EVENT_ID, pl.lit(""))).fill_null(False)
    published = pending & pl.col("__published").fill_null(False) & ~ignored
    reason = pl.when(ignored).then(pl.lit(c.FIRST_EVENT_ZERO)).when(published).then(None).otherwise(pl.col(c.REASON))
    kdev100 = pl.when("__rated").then(pl.col(c.K_USED) * pl.col("__dev100"))
    return sides.select(
        "row_key",
        "__side",
        pl.lit(period).alias(c.PERIOD),
        c.GAME_ID,
        c.SOURCE_FILE,
        c.SOURCE_ROW,
        c.EVENT_ID,
        c.ROUND,
        c.DATE,
        c.PLAYER_ID,
        c.OPPONENT_ID,
        c.COLOUR,
        _rating(pl.col(c.RATING), rules),
        _rating(pl.col(c.OPPONENT_RATING), rules),
        _rating(pl.col(c.RATING_DIFF), rules),
        c.CAPPED,
        _points(pl.col("__pd100"), rules).alias(c.EXPECTED_SCORE),
        _points(pl.col("score100"), rules).alias(c.SCORE),
        pl.when("__rated").then(pl.col(c.K_USED)).alias(c.K_USED),
        _points(kdev100, rules).alias(c.K_CHANGE),
        (pl.col("__rated") | published).alias(c.COUNTED),
        reason.alias(c.REASON),
        kdev100.alias("__kdev100"),
    )


def _rating(expr: pl.Expr, rules: RuleSet) -> pl.Expr:
    """Ratings as written: whole points (Int64), or Decimal with 2 decimals with ``--rounding none``."""
    if rules.rounding == "none":
        return expr.cast(pl.Float64).round(2, mode="half_away_from_zero").cast(RATING_2DP)
    return expr.round(0, mode="half_away_from_zero").cast(pl.Int64)


def _points(hundredths: pl.Expr, rules: RuleSet) -> pl.Expr:
    """Hundredths of a point as points (Float64): exact to 2 decimals for the FIDE table (no
    representation noise such as 0.7000000000000001), unrounded for the logistic formula."""
    points = hundredths / 100.0
    return points if rules.expected == "formula" else points.round(2)


def _finish_list(players: pl.LazyFrame, rules: RuleSet, period: str) -> pl.LazyFrame:
    """The new list: rating, status and the player state the next period needs."""
    was_rated = pl.col(c.RATING).is_not_null()
    n = pl.col("__n").fill_null(0)
    published = pl.col("__published").fill_null(False)
    after = pl.col(c.RATING) + pl.col(c.CHANGE)
    if rules.floor is not None:
        after = pl.when(after >= rules.floor).then(after)
    rating = pl.when(was_rated).then(after).when(published).then(pl.col("__ru"))
    players = players.with_columns(rating.alias("__rating_after"))
    after_col = pl.col("__rating_after")
    status = (
        pl.when(was_rated & after_col.is_not_null())
        .then(pl.lit("rated"))
        .when(published)
        .then(pl.lit("new"))
        .otherwise(pl.lit("unrated"))
    )
    reached_2400 = engine.reached(pl.col(c.REACHED_2400), pl.col(c.RATING), 2400, pl.col(c.K)) | (
        after_col.fill_null(0) >= 2400
    )
    reached_2300 = (
        engine.reached(pl.col(c.REACHED_2300), pl.col(c.RATING), 2300) | reached_2400 | (after_col.fill_null(0) >= 2300)
    )
    games_total = (
        pl.when(was_rated)
        .then(pl.col(c.GAMES_TOTAL) + n)
        .when(published)
        .then(pl.col(c.GAMES_TOTAL).fill_null(0) + pl.col("__pool_n"))
        .otherwise(pl.col(c.GAMES_TOTAL))
    )
    next_year = int(next_period(period)[:4])
    if rules.k_rule == "fixed":
        k_next = pl.lit(rules.k_fixed, pl.Int64)
    else:
        old_2300 = engine.reached(pl.col(c.REACHED_2300), pl.col(c.RATING), 2300) | engine.reached(
            pl.col(c.REACHED_2400), pl.col(c.RATING), 2400, pl.col(c.K)
        )
        k_next = engine.k_for_next_list(
            year=next_year,
            k_list=pl.col(c.K),
            junior_on_old_list=engine.is_junior(int(period[:4]), pl.col(c.BIRTH_YEAR), old_2300),
            birth_year=pl.col(c.BIRTH_YEAR),
            games_total=pl.col("__games_total"),
            reached_2400=pl.col("__reached_2400"),
            reached_2300=pl.col("__reached_2300"),
        )
    rp, ra = engine.performance_rating(pl.col("__perf_opp"), pl.col("__perf_n").fill_null(0), pl.col("__perf_w2"))
    players = players.with_columns(
        reached_2400.alias("__reached_2400"),
        reached_2300.alias("__reached_2300"),
        games_total.alias("__games_total"),
    )
    games = pl.when(was_rated).then(n).when(published).then(pl.col("__period_n")).otherwise(0)
    score = (
        pl.when(was_rated)
        .then(_points(pl.col("__w100").fill_null(0), rules))
        .when(published)
        .then(pl.col("__period_w2") / 2.0)
        .otherwise(0.0)
    )
    expected = pl.when(was_rated).then(_points(pl.col("__pd100").fill_null(0), rules))
    extras = [
        name
        for name in players.collect_schema().names()
        if name not in LIST_SCHEMA and not name.startswith("__") and name not in (c.K_USED, c.CHANGE)
    ]
    return players.select(
        pl.col(c.PLAYER_ID),
        pl.lit(period).alias(c.PERIOD),
        _rating(after_col, rules).alias(c.RATING),
        _rating(pl.col(c.RATING), rules).alias(c.RATING_BEFORE),
        (pl.col(c.CHANGE) if rules.rounding == "none" else pl.col(c.CHANGE).cast(pl.Int64)).alias(c.CHANGE),
        pl.col(c.K_USED),
        games.cast(pl.Int64).alias(c.GAMES),
        score.alias(c.SCORE),
        expected.alias(c.EXPECTED_SCORE),
        status.alias(c.STATUS),
        rp.alias(c.PERFORMANCE_RATING),
        ra.alias(c.OPPONENTS_AVERAGE),
        pl.when(after_col.is_not_null()).then(k_next).alias(c.K),
        pl.col("__games_total").alias(c.GAMES_TOTAL),
        pl.col("__reached_2400").alias(c.REACHED_2400),
        pl.col("__reached_2300").alias(c.REACHED_2300),
        pl.col(c.BIRTH_YEAR),
        pl.when(~was_rated & ~published).then(pl.col("__pending")).alias(c.PENDING),
        *extras,
    )
