"""The finalize: from the period's per-player sums to the new rating list (K, 700 rule, rounding, floor, first ratings).

Everything here is per player: K of the period from the list in force (or fixed), the 700 rule, the
single rounding of K x sum(score - PD) (or each game's, with ``rounding="game"``), the floor, first
ratings from the pools of unrated players, and the state the next list carries (K, games, the 2400 and
2300 flags, pools). Whether a published rating reached 2400 or 2300 is worked out once, from the list in
force, and the K rules are wired once (:func:`k_of`), for this period's K and the next list's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.config import next_period
from elo_batch.contract import pending
from elo_batch.contract.names import unescape
from elo_batch.contract.schemas import LIST_SCHEMA, RATING_2DP
from elo_batch.engine import expressions as engine
from elo_batch.engine import schema as s
from elo_batch.engine.lifecycle import pool_first_ratings
from elo_batch.engine.listchanges import one_off, standard_after
from elo_batch.engine.prepass import ENGINE, Prepared
from elo_batch.engine.sums import Sums
from elo_batch.rules.bands import Bands, default_bands
from elo_batch.rules.sets import RuleSet


@dataclass(frozen=True)
class Flags:
    """Keys (``__key``) of the pending sides whose reason the first ratings decide.

    Attributes:
        ignored: Sides of a first event scored zero, ignored (B.02 8.2.1).
        published: Sides that count for a first rating published this period.
    """

    ignored: pl.Series
    published: pl.Series


@dataclass(frozen=True)
class Finished:
    """A finalized period.

    Attributes:
        k_used: K used by dense index, in order (null when the player has no rated game).
        ratings: The new rating list (``RATINGS_OUTPUT`` columns, then pass-through ones), by ``player_id``.
        flags: The pending sides counted for a published first rating, or ignored.
        counted_rows: Rows of the period with at least one side counted (rated, or pooled into a
            published first rating).
    """

    k_used: pl.Series
    ratings: pl.DataFrame
    flags: Flags
    counted_rows: int


def finalize(prepared: Prepared, sums: Sums, rules: RuleSet, *, period: str, bands: Bands | None = None) -> Finished:
    """The finalize of one period.

    Args:
        prepared: The period after the pre-pass (list in force, player index).
        sums: The reduced sums of all chunks (:func:`elo_batch.engine.sums.reduce_sums`).
        rules: The period's rule set.
        period: Month of play, ``YYYY-MM``.
        bands: The band table of the new list's ``band`` (default: :func:`elo_batch.rules.bands.default_bands`).

    Returns:
        K used by player, the new list, the first ratings' flags and the counted rows. The per-player
        columns between (the sums by player, K, the change) stay a plan, run once in morsels into the
        new list: they are never held for the whole list at once.

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3 (rated players), 8.2 and 7.1.4 (unrated players),
        7.1.2 (floor); ``fide-rules.md`` sections 3-7 and 12.
    """
    pending = sums.pending.with_columns(
        pl.lit(prepared.ids).gather(pl.col(w.IDX)).alias(c.PLAYER_ID), pl.lit(c.PENDING_FIRST_RATING).alias(c.REASON)
    )
    pools = pool_first_ratings(pending.lazy(), prepared.listed.lazy(), rules, period=period).collect()
    flags = _pending_flags(pending, pools)
    players = _players(sums.players, pending, prepared, pools=pools, rules=rules, period=period)
    if sums.by_game is not None:
        k_used = players.select(c.K_USED).collect(engine=ENGINE).to_series()
        players = _change_by_game(players, k_used, sums.by_game)
    new_list = _finish_list(players.filter(w.OUTPUT), rules, period, bands=bands or default_bands())
    # two plans over the same players, run side by side; K alone costs less than keeping every column
    separate = pl.QueryOptFlags(comm_subplan_elim=False)
    ratings, k_used_frame = pl.collect_all([new_list, players.select(c.K_USED)], engine=ENGINE, optimizations=separate)
    ratings = _by_player_id(ratings, prepared.listed.height)
    return Finished(k_used_frame.to_series(), ratings, flags, sums.rated_rows + flags.published.len())


def _by_player_id(new_list: pl.DataFrame, listed: int) -> pl.DataFrame:
    """The new list sorted by ``player_id``: its first ``listed`` rows (the list in force's players) are
    in that order already (:attr:`Prepared.listed`), so only the players added after them are sorted,
    then merged in; the list's own rows are never moved (a sort would copy every column)."""
    if new_list.height == listed:
        return new_list
    added = new_list.slice(listed).sort(c.PLAYER_ID)
    return new_list.slice(0, listed).merge_sorted(added, key=c.PLAYER_ID) if listed else added


def k_of(
    rules: RuleSet,
    year: int,
    *,
    k_list: pl.Expr,
    games_total: pl.Expr,
    reached_2400: pl.Expr,
    reached_2300: pl.Expr,
    junior_on_old_list: pl.Expr | None = None,
) -> pl.Expr:
    """K under ``rules`` (before the 700 rule): the fixed K, or FIDE's from the player's state.

    Args:
        rules: The period's rule set (``k_rule``, ``k_fixed``, ``k``).
        year: The list's calendar year.
        k_list: K printed on the list in force (null when not given).
        games_total: Rated games (null when unknown).
        reached_2400, reached_2300: Whether a published rating reached 2400 / 2300.
        junior_on_old_list: None: K of this period, from the list in force (:func:`engine.k_factor`);
            else the K to print on the new list (:func:`engine.k_for_next_list`), given whether the
            junior rule gave K 40 on the list in force.

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3.3; ``fide-rules.md`` section 3.3.
    """
    if rules.fixed_k:
        return pl.lit(rules.k_fixed, pl.Int64)
    state = {
        "year": year,
        "k_list": k_list,
        "birth_year": pl.col(c.BIRTH_YEAR),
        "games_total": games_total,
        "reached_2400": reached_2400,
        "reached_2300": reached_2300,
        "ladder": rules.k,
    }
    if junior_on_old_list is None:
        return engine.k_factor(rating=pl.col(c.RATING), **state)  # type: ignore[arg-type]
    return engine.k_for_next_list(junior_on_old_list=junior_on_old_list, **state)  # type: ignore[arg-type]


def _reached_on_list(rules: RuleSet) -> list[pl.Expr]:
    """Whether a published rating reached 2400 / 2300 by the list in force: the list's flags, else its
    rating (and a printed K 10); reaching 2400 counts as reaching 2300 (the junior rule's "under 2300")."""
    ladder = rules.k
    reached_2400 = engine.reached(
        pl.col(c.REACHED_2400), pl.col(c.RATING), ladder.top_from, k_list=pl.col(c.K), ladder=ladder
    )
    reached_2300 = reached_2400 | engine.reached(pl.col(c.REACHED_2300), pl.col(c.RATING), ladder.junior_below)
    return [reached_2400.alias(w.REACHED_2400_BEFORE), reached_2300.alias(w.REACHED_2300_BEFORE)]


def _pending_flags(pending: pl.DataFrame, pools: pl.DataFrame) -> Flags:
    """Keys of the pending sides that count for a published first rating, and of those ignored as a
    first event scored zero (B.02 8.2.1)."""
    first = pending.select(w.KEY, c.PLAYER_ID, c.EVENT_ID).join(
        pools.select(c.PLAYER_ID, w.PUBLISHED, w.IGNORED_EVENTS), on=c.PLAYER_ID, how="left"
    )
    ignored = pl.col(w.IGNORED_EVENTS).list.contains(pl.coalesce(c.EVENT_ID, pl.lit(""))).fill_null(False)
    published = pl.col(w.PUBLISHED).fill_null(False) & ~ignored
    return Flags(ignored=first.filter(ignored)[w.KEY], published=first.filter(published)[w.KEY])


def _players(
    rated: pl.DataFrame, pending: pl.DataFrame, prepared: Prepared, *, pools: pl.DataFrame, rules: RuleSet, period: str
) -> pl.LazyFrame:
    """Per-player K after the 700 rule and the rounded change, by player index, from the sums of the
    rated sides (``rated``, :attr:`Sums.players`) and of the pending ones: a plan over the list.

    One row per index (``__idx``, in order); ``__output`` marks the players of the new list: the list in
    force and the unrated players with pooled games.
    """
    listed = prepared.listed
    pooled = pools.with_columns(pl.lit(True).alias(w.POOLED))
    pool_index = pl.concat(  # the index of each pooled player: pending sides this period, or the list's pools
        [
            pending.select(w.IDX, c.PLAYER_ID),
            listed.select(pl.int_range(pl.len(), dtype=s.INDEX_TYPE).alias(w.IDX), c.PLAYER_ID, c.PENDING)
            .filter(pl.col(c.PENDING).is_not_null())
            .drop(c.PENDING),
        ]
    ).unique(w.IDX)
    by_player = [
        _at_index(_performance_sums(rated, pending), prepared.players, w.SUMS_ROW),
        _at_index(pooled.join(pool_index, on=c.PLAYER_ID).drop(c.PLAYER_ID), prepared.players, w.POOLS_ROW),
    ]
    players = _gathered(_universe(prepared), by_player, listed=listed.height).with_columns(_reached_on_list(rules))
    k_used = pl.when(_WAS_RATED & (_N > 0)).then(_k_used(rules, period)).alias(c.K_USED)
    players = players.with_columns(k_used).with_columns((pl.col(c.K_USED) * pl.col(w.DEV_SUM)).alias(w.X100))
    return players.with_columns(pl.when(_WAS_RATED).then(_rounded_change(rules)).alias(c.CHANGE))


#: A player rated on the list in force; his rated games of the period; a first rating published now.
_WAS_RATED: Final = pl.col(c.RATING).is_not_null()
_N: Final = pl.col(w.N).fill_null(0)
_PUBLISHED: Final = pl.col(w.PUBLISHED).fill_null(False)
#: The new rating (after the floor and the one-time change; null: unrated).
_AFTER: Final = pl.col(w.RATING_AFTER)


def _performance_sums(rated: pl.DataFrame, pending: pl.DataFrame) -> pl.DataFrame:
    """The rated sums by index, with the sums of the performance rating (B.01 1.4.8: games against rated
    opponents): the rated sums of a rated player, or the pending sums of an unrated one (rated sides and
    pending sides never belong to the same player: a player is rated or not)."""
    pending_sums = pending.group_by(w.IDX).agg(
        pl.len().cast(pl.Int64).alias(w.PENDING_N),
        pl.col(c.OPPONENT_RATING).sum().alias(w.PENDING_OPP),
        (pl.col(s.SCORE100) // 50).sum().cast(pl.Int64).alias(w.PENDING_W2),
    )
    return rated.join(pending_sums, on=w.IDX, how="full", coalesce=True).select(
        w.IDX,
        w.N,
        w.DEV_SUM,
        w.W100,
        w.PD_SUM,
        pl.coalesce(w.N, w.PENDING_N).alias(w.PERF_N),
        pl.coalesce(w.OPP_SUM, w.PENDING_OPP).cast(pl.Int64).alias(w.PERF_OPP),
        pl.coalesce(pl.col(w.W100) // 50, w.PENDING_W2).alias(w.PERF_W2),
    )


def _universe(prepared: Prepared) -> pl.LazyFrame:
    """Every player of the period by index: the list in force, then the players added from the games."""
    listed = prepared.listed
    if prepared.players == listed.height:
        return listed.lazy()
    unlisted = pl.LazyFrame({c.PLAYER_ID: prepared.ids.slice(listed.height)})
    return pl.concat([listed.lazy(), unlisted], how="diagonal_relaxed")


def _gathered(
    universe: pl.LazyFrame, by_player: list[tuple[pl.Series | None, list[pl.Expr]]], *, listed: int
) -> pl.LazyFrame:
    """The players with the columns of :func:`_at_index` gathered by index, and ``__output`` (the list's
    ``listed`` players and the pooled ones)."""
    return (
        universe.with_row_index(w.IDX)
        .with_columns(row for row, _ in by_player if row is not None)
        .with_columns(column for _, columns in by_player for column in columns)
        .drop(w.SUMS_ROW, w.POOLS_ROW, strict=False)
        .with_columns(((pl.col(w.IDX) < listed) | pl.col(w.POOLED).fill_null(False)).alias(w.OUTPUT))
        .drop(w.POOLED)
    )


def _k_used(rules: RuleSet, period: str) -> pl.Expr:
    """K of the period from the list in force (or fixed), after the 700 rule when on (B.02 8.3.3)."""
    k = k_of(
        rules,
        int(period[:4]),
        k_list=pl.col(c.K),
        games_total=pl.col(c.GAMES_TOTAL),
        reached_2400=pl.col(w.REACHED_2400_BEFORE),
        reached_2300=pl.col(w.REACHED_2300_BEFORE),
    )
    return engine.k_after_700_rule(k, _N, rules.k) if rules.rule_700 else k


def _rounded_change(rules: RuleSet) -> pl.Expr:
    """K x sum(score - PD) rounded once, 0.5 away from zero (B.02 8.3.4), or to 2 decimals (``none``)."""
    x100 = pl.col(w.X100).fill_null(0)
    if rules.whole_ratings:
        return engine.round_half_away_100(x100)
    return engine.divide(x100, 100.0).round(2, mode="half_away_from_zero").cast(RATING_2DP)


def _at_index(frame: pl.DataFrame, players: int, row_name: str) -> tuple[pl.Series | None, list[pl.Expr]]:
    """The columns of ``frame`` (at most one row per player index ``__idx``) by player index: ``players``
    values each, null where ``frame`` has no row.

    Returns the column ``row_name`` (each index's row of ``frame``) and the columns gathered from it as
    the plan runs: never joined, never held whole (few players of a large list play in a period); no
    row column and constant nulls when ``frame`` has no rows.
    """
    names = [name for name in frame.columns if name != w.IDX]
    if frame.height == 0:
        return None, [pl.lit(None, frame.schema[name]).alias(name) for name in names]
    row = pl.Series(row_name, [None], s.INDEX_TYPE).extend_constant(None, players - 1)
    row = row.scatter(frame[w.IDX], pl.int_range(frame.height, dtype=s.INDEX_TYPE, eager=True))
    return row, [pl.lit(frame[name]).gather(pl.col(row_name)).alias(name) for name in names]


def _change_by_game(players: pl.LazyFrame, k_used: pl.Series, by_game: pl.DataFrame) -> pl.LazyFrame:
    """``rounding="game"``: the change is the sum of each game's K x (score - PD), each rounded; the
    rated sides come counted by player and value of score - PD (``by_game``); ``k_used``: K by index."""
    k_of_row = pl.lit(k_used).gather(pl.col(w.IDX))  # gathered per row, never inside the group-by
    per_game = (
        by_game.lazy()
        .select(w.IDX, (engine.round_half_away_100(k_of_row * pl.col(w.DEV)) * pl.col(w.COUNT)).alias(w.GAME_CHANGE))
        .group_by(w.IDX)
        .agg(pl.col(w.GAME_CHANGE).sum())
    )
    return (
        players.join(per_game, on=w.IDX, how="left", maintain_order="left")
        .with_columns(pl.when(pl.col(c.CHANGE).is_not_null()).then(pl.col(w.GAME_CHANGE).fill_null(0)).alias(c.CHANGE))
        .drop(w.GAME_CHANGE)
    )


def _finish_list(players: pl.LazyFrame, rules: RuleSet, period: str, *, bands: Bands) -> pl.LazyFrame:
    """The new list: rating (after the floor, then the rule set's one-time change), status, band and the
    player state the next period needs."""
    players = players.with_columns(_floored(rules).alias(w.RATING_AFTER))
    changed = one_off(_AFTER, rules, players.collect_schema())
    if changed is not None:  # after the floor of the period's rules (kernels/listchanges.py)
        players = players.with_columns(changed.alias(w.ADJUSTMENT)).with_columns(
            (_AFTER + pl.col(w.ADJUSTMENT)).alias(w.RATING_AFTER)
        )
    players = players.with_columns(_next_state(rules))
    return players.select(
        *_rating_columns(rules, period, adjusted=changed is not None),
        *_period_columns(rules, bands),
        *_state_columns(rules, period),
        *_passed_through(players.collect_schema(), rules),
    )


def _floored(rules: RuleSet) -> pl.Expr:
    """The new rating before the one-time change: the old one plus the change, null under the floor
    (B.02 7.1.2); a first rating published now."""
    after = pl.col(c.RATING) + pl.col(c.CHANGE)
    if rules.floor is not None:
        after = pl.when(after >= rules.floor).then(after)
    return pl.when(_WAS_RATED).then(after).when(_PUBLISHED).then(pl.col(w.RU))


def _next_state(rules: RuleSet) -> list[pl.Expr]:
    """What the next list carries of the player: whether a published rating reached 2400 / 2300 (B.02
    8.3.3), rated games."""
    ladder = rules.k
    games_total = (
        pl.when(_WAS_RATED)
        .then(pl.col(c.GAMES_TOTAL) + _N)
        .when(_PUBLISHED)
        .then(pl.col(c.GAMES_TOTAL).fill_null(0) + pl.col(w.POOL_N))
        .otherwise(pl.col(c.GAMES_TOTAL))
    )
    return [
        (pl.col(w.REACHED_2400_BEFORE) | (_AFTER.fill_null(0) >= ladder.top_from)).alias(w.REACHED_2400_AFTER),
        (pl.col(w.REACHED_2300_BEFORE) | (_AFTER.fill_null(0) >= ladder.junior_below)).alias(w.REACHED_2300_AFTER),
        games_total.alias(w.GAMES_TOTAL),
    ]


def _rating_columns(rules: RuleSet, period: str, *, adjusted: bool) -> list[pl.Expr]:
    """The new list's columns ``player_id`` .. ``k_used``: the ratings after and before, the change."""
    adjustment = s.written_rating(pl.col(w.ADJUSTMENT), rules) if adjusted else pl.lit(None, pl.Int64)
    return [
        pl.col(c.PLAYER_ID),
        s.written_period(period),
        s.written_rating(_AFTER, rules).alias(c.RATING),
        s.written_rating(pl.col(c.RATING), rules).alias(c.RATING_BEFORE),
        (pl.col(c.CHANGE).cast(pl.Int64) if rules.whole_ratings else pl.col(c.CHANGE)).alias(c.CHANGE),
        adjustment.alias(c.ADJUSTMENT),
        pl.col(c.K_USED),
    ]


def _period_columns(rules: RuleSet, bands: Bands) -> list[pl.Expr]:
    """The new list's columns ``games`` .. ``opponents_average``: the period's games, score, expected
    score, status, band and performance (B.01 1.4.8)."""
    games = pl.when(_WAS_RATED).then(_N).when(_PUBLISHED).then(pl.col(w.PERIOD_N)).otherwise(0)
    score = (
        pl.when(_WAS_RATED)
        .then(s.written_points(pl.col(w.W100).fill_null(0), rules))
        .when(_PUBLISHED)
        .then(pl.col(w.PERIOD_W2) / 2.0)
        .otherwise(0.0)
    )
    expected = pl.when(_WAS_RATED).then(s.written_points(pl.col(w.PD_SUM).fill_null(0), rules))
    rp, ra = engine.performance_rating(pl.col(w.PERF_OPP), pl.col(w.PERF_N).fill_null(0), pl.col(w.PERF_W2))
    return [
        games.cast(pl.Int64).alias(c.GAMES),
        score.alias(c.SCORE),
        expected.alias(c.EXPECTED_SCORE),
        _status().alias(c.STATUS),
        bands.label(_AFTER).alias(c.BAND),
        rp.alias(c.PERFORMANCE_RATING),
        ra.alias(c.OPPONENTS_AVERAGE),
    ]


def _status() -> pl.Expr:
    """``rated``, ``new`` (a first rating published now) or ``unrated``: Categorical, as ``band``."""
    statuses = pl.Series(c.STATUSES, dtype=pl.Categorical)
    return pl.lit(statuses).gather(
        pl.when(_WAS_RATED & _AFTER.is_not_null()).then(0).when(_PUBLISHED).then(1).otherwise(2).cast(pl.UInt32)
    )


def _state_columns(rules: RuleSet, period: str) -> list[pl.Expr]:
    """The new list's columns ``k`` .. ``pending``: the state the next period reads."""
    return [
        pl.when(_AFTER.is_not_null()).then(_k_next(rules, period)).alias(c.K),
        pl.col(w.GAMES_TOTAL).alias(c.GAMES_TOTAL),
        pl.col(w.REACHED_2400_AFTER).alias(c.REACHED_2400),
        pl.col(w.REACHED_2300_AFTER).alias(c.REACHED_2300),
        pl.col(c.BIRTH_YEAR),
        pl.when(~_WAS_RATED & ~_PUBLISHED).then(pending.to_text(pl.col(w.PENDING))).alias(c.PENDING),  # as written
    ]


def _k_next(rules: RuleSet, period: str) -> pl.Expr:
    """The K printed on the new list: the next period's K rule (``k_next_rule``), from the state after the
    period (B.02 8.3.3)."""
    printed = rules if rules.k_next_rule is None else replace(rules, k_rule=rules.k_next_rule)
    return k_of(
        printed,
        int(next_period(period)[:4]),
        k_list=pl.col(c.K),
        games_total=pl.col(w.GAMES_TOTAL),
        reached_2400=pl.col(w.REACHED_2400_AFTER),
        reached_2300=pl.col(w.REACHED_2300_AFTER),
        junior_on_old_list=engine.is_junior(
            int(period[:4]), pl.col(c.BIRTH_YEAR), pl.col(w.REACHED_2300_BEFORE), ladder=rules.k
        ),
    )


def _passed_through(schema: pl.Schema, rules: RuleSet) -> list[pl.Expr]:
    """The list's own columns, under their own names (:mod:`elo_batch.contract.names`); the
    ``standard_rating`` of a rapid or blitz list compressed with the standard list (listchanges)."""
    standard = standard_after(rules, schema)
    extras = [
        name
        for name in schema.names()
        if name not in LIST_SCHEMA and not name.startswith(w.PREFIX) and name not in (c.K_USED, c.CHANGE)
    ]
    return [
        standard if standard is not None and name == c.STANDARD_RATING else pl.col(name).alias(unescape(name))
        for name in extras
    ]
