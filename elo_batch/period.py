"""Rate one rating period with whole-column polars plans, and a range of periods (the only loop, over months).

Inside a period nothing is sequential: every game uses the ratings in force. Each player gets a dense
index (players of the list in force first, in list order, then players absent from it), looked up once
per game row, so that everything per player afterwards is a gather or a sum by index:

1. the period table: the period's rows with the two players' indices (a dense table for integer ids;
   text ids through 64-bit hashes checked against the ids), without names or ids;
2. both sides of every table row rated once (rating used, whether and why it counts, PD), in slices;
3. each player's sums of games, score and expected score (exact integer hundredths), added by index,
   hence K and the change;
4. the audit is a lazy plan that gathers both sides of every table row in input order; the writer runs
   it in chunks, so it never has to fit in memory at once.

The rows may be in memory or a plan that reads the input files again (``--chunk-rows``); the queries
over them run on polars' streaming engine, chunk by chunk, and the per-player sums are exact, so the
result does not depend on the chunking.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final, Literal

import numpy as np
import polars as pl

from elo_batch import columns as c
from elo_batch import engine
from elo_batch.config import RunConfig, next_period
from elo_batch.errors import InternalError
from elo_batch.lifecycle import pool_first_ratings
from elo_batch.names import unescape
from elo_batch.ratinglist import LIST_SCHEMA, as_list_in_force, list_schema, unrate_below_floor
from elo_batch.rules.sets import RuleSet
from elo_batch.validate import GamesInput

#: Ratings and changes kept fractional (``--rounding none``): written with exactly 2 decimals.
RATING_2DP = pl.Decimal(12, 2)
#: Polars engine of the heavy queries: the streaming engine works through the rows in morsels, so
#: memory stays bounded by the players, not the games.
ENGINE: Final = "streaming"
Engine = Literal["in-memory", "streaming"]

#: Table rows rated and summed at a time (see _rate_table, _rated_sums): a constant, so that float sums
#: (logistic formula) add in the same order whatever the input's chunks.
_SUM_ROWS: Final = 4_000_000
#: Most slots of the dense id -> index table of integer player ids (UInt32: 1 GB; see _look_up_integers).
_DENSE_SLOTS: Final = 1 << 28
#: Columns of the period table (plus ``__w``, ``__b``: the players' dense indices): what the sums and
#: the audit need of each row, ids and names excluded.
_TABLE = (
    "row_key", c.GAME_ID, c.SOURCE_ROW, c.DATE, c.EVENT_ID, c.ROUND, "one_sided", "forfeit", "duplicate",
    "score100", c.WHITE_RATING, c.BLACK_RATING,
)  # fmt: skip
#: Why a game side is not counted, by precedence (``__code`` 1..5; 0 = counted). Code 4 is the
#: pending-first-rating reason under rule sets with initial ratings, else "unrated player".
_DUPLICATE, _FORFEIT, _UNRATED_OPPONENT, _UNRATED_PLAYER, _GAP = 1, 2, 3, 4, 5


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
        audit: One row per game side considered, in input order: a lazy plan, run when it is written.
        audit_rows: Rows of ``audit``.
        rejected: Rejected input rows attributed to this period, in input order.
        counts: Row accounting.
        warnings: Things the user should know that did not stop the run.
        unlisted: Ids of the period's players absent from the list in force, in order of first
            appearance (empty without a list: every player is taken from the games).
    """

    period: str
    rule_set: RuleSet
    ratings: pl.DataFrame
    audit: pl.LazyFrame
    audit_rows: int
    rejected: pl.DataFrame
    counts: Counts
    warnings: tuple[str, ...]
    unlisted: pl.Series = field(default_factory=lambda: pl.Series(c.PLAYER_ID, [], pl.String))


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
    if current is not None and current[c.PLAYER_ID].dtype == pl.Int64 and games.id_type != pl.Int64:
        current = current.with_columns(pl.col(c.PLAYER_ID).cast(pl.String))  # ids as text, as the games give them
    for number, period in enumerate(config.periods):
        result = rate_period(
            games,
            current,
            config.rules_for(period),
            period,
            add_players_from_games=rating_list is None,
            reject_undated=number == 0,
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
    reject_undated: bool = True,
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
        reject_undated: Write the rejected rows whose period cannot be read (no usable date or period)
            into this period's ``rejected``; False for the later periods of a range, so that a warehouse
            counts each bad row once (they count there as rows of other periods).

    Returns:
        The period's ratings, audit (a lazy plan), rejected rows and counts.

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3 (rated players), 8.2 and 7.1.4 (unrated players),
        7.1.2 (1400 floor); ``fide-rules.md`` sections 3-7 and 12.
    """
    rows = games.rows.lazy().filter(pl.col(c.PERIOD) == period)
    rating_list, floor_warnings = unrate_below_floor(rating_list, rules.floor, period)  # B.02 7.1.2
    listed, warnings = _period_list(rating_list, rows, add_players_from_games)
    warnings = floor_warnings + warnings
    in_memory = isinstance(games.rows, pl.DataFrame)
    table, ids = _period_table(rows, listed, games.absent, "in-memory" if in_memory else ENGINE)
    list_rating = pl.concat([listed[c.RATING], pl.Series(c.RATING, [None] * (ids.len() - listed.height), pl.Float64)])
    both = _rate_table(table, list_rating, rules)
    sides = _sides(table, both, rules)
    pending = _pending_sides(sides, ids, rules)
    pools = pool_first_ratings(pending.lazy(), listed.lazy(), rules, period).collect()
    flags = _pending_flags(pending, pools)
    rated, uncounted = _rated_sums(table, both, rules, ids.len(), flags["published"])
    players = _players(rated, pending, listed, ids, pools, rules, period)
    if rules.rounding == "game":
        players = _change_by_game(players, sides, rules)
    ratings = _finish_list(players.lazy().filter("__output"), rules, period).sort(c.PLAYER_ID).collect(engine=ENGINE)
    source_file = games.source_file(pl.col("row_key"))
    audit = _audit(table, both, ids, players, flags, source_file, games.absent, rules, period)
    undated = pl.col(c.PERIOD).is_null()
    rejected = games.rejected.filter((undated & reject_undated) | (pl.col(c.PERIOD) == period)).with_columns(
        pl.lit(period).alias(c.PERIOD)
    )
    in_period = table.height
    counted = in_period - uncounted
    other = (
        sum(rows for month, rows in games.period_rows.items() if month != period)
        + games.rejected.filter(
            (pl.col(c.PERIOD).is_not_null() & (pl.col(c.PERIOD) != period)) | (undated & (not reject_undated))
        ).height
    )
    counts = Counts(games.rows_read, counted, in_period - counted, other, rejected.height)
    if not counts.reconciles():
        raise InternalError(
            f"period {period}: rows do not reconcile ({counts}); nothing was written for this period",
            hint="this is a bug in elo-batch: every input row must be counted, audited or rejected; please report it.",
        )
    audit_rows = in_period + table.select((~pl.col("one_sided")).sum()).item()
    unlisted = ids.slice(listed.height)
    return PeriodResult(period, rules, ratings, audit, audit_rows, rejected, counts, tuple(warnings), unlisted)


def _period_list(
    rating_list: pl.DataFrame | None, rows: pl.LazyFrame, add_players_from_games: bool
) -> tuple[pl.DataFrame, list[str]]:
    """The list in force; without one, every player met in the games with their first game's rating."""
    warnings: list[str] = []
    if rating_list is not None and not add_players_from_games:
        return rating_list, warnings
    id_type = rows.collect_schema()[c.WHITE_ID] if rating_list is None else rating_list[c.PLAYER_ID].dtype
    white = rows.select(
        c.DATE, "row_key", pl.lit(0, pl.Int8).alias("__side"), pl.col(c.WHITE_ID).cast(id_type).alias(c.PLAYER_ID),
        pl.col(c.WHITE_RATING).alias("__ro_game"),
    )  # fmt: skip
    black = rows.filter(~pl.col("one_sided")).select(
        c.DATE, "row_key", pl.lit(1, pl.Int8).alias("__side"), pl.col(c.BLACK_ID).cast(id_type).alias(c.PLAYER_ID),
        pl.col(c.BLACK_RATING).alias("__ro_game"),
    )  # fmt: skip
    ordered = pl.concat([white, black]).sort(c.DATE, "row_key", "__side", nulls_last=True)
    from_games = (
        ordered.group_by(c.PLAYER_ID, maintain_order=True)
        .agg(
            pl.col("__ro_game").drop_nulls().first().alias(c.RATING),
            pl.col("__ro_game").drop_nulls().n_unique().alias("__ratings_seen"),
        )
        .collect()
    )
    differing = from_games.filter(pl.col("__ratings_seen") > 1)[c.PLAYER_ID].cast(pl.String)
    if differing.len():
        named = ", ".join(differing.head(5).to_list()) + (", ..." if differing.len() > 5 else "")
        warnings.append(
            f"{differing.len()} player(s) have different ratings on different game rows ({named}); each "
            "player's rating is the one on their first game of the period (by date, then file order)"
        )
    synthetic = from_games.select(
        *[
            (pl.col(name) if name in (c.PLAYER_ID, c.RATING) else pl.lit(None)).cast(dtype).alias(name)
            for name, dtype in list_schema(id_type).items()
        ]
    )
    if rating_list is None:
        return synthetic, warnings
    added = synthetic.join(rating_list, on=c.PLAYER_ID, how="anti", maintain_order="left")
    return pl.concat([rating_list, added], how="diagonal_relaxed"), warnings


def _period_table(
    rows: pl.LazyFrame, listed: pl.DataFrame, absent: frozenset[str], engine: Engine
) -> tuple[pl.DataFrame, pl.Series]:
    """The period's rows, compact, with the dense index of each player (``__w``, ``__b``, UInt32).

    Players of ``listed`` get its row numbers; players absent from it get the next numbers, in order of
    first appearance. Columns no input has (``absent``) are constants, not stored. Returns the table and
    the player ids by index.
    """
    ids = listed[c.PLAYER_ID]
    kept = [name for name in _TABLE if name not in absent]
    # Rows in memory: look up the indices alone and put them beside the rows' own columns (no copy).
    carried = [] if engine == "in-memory" else kept
    if rows.collect_schema()[c.WHITE_ID] == pl.Int64:  # integer ids in every game file
        table = _look_up_integers(rows, ids, carried, engine)
    else:
        table = _look_up_players(rows, ids, carried, engine, hashed=True)
    if table["__collision"].any():  # two ids with the same 64-bit hash: look up by the ids themselves
        table = _look_up_players(rows, ids, carried, engine, hashed=False)
    if not carried:
        table = pl.concat([rows.select(kept).collect(engine=engine), table], how="horizontal")
    table = table.drop("__collision").with_columns(
        pl.lit(None, rows.collect_schema()[name]).alias(name) for name in _TABLE if name in absent
    )
    positions = table.select(pl.arg_where(pl.col("__unlisted"))).to_series()
    if positions.len() == 0:
        return table.drop("__unlisted"), ids
    keys = table["row_key"].gather(positions)
    found = (
        rows.filter(pl.col("row_key").is_in(keys.implode()))
        .select("row_key", pl.col(c.WHITE_ID, c.BLACK_ID).cast(ids.dtype))
        .collect(engine=engine)
        .sort("row_key")
    )
    seen = pl.concat(
        [
            found.select("row_key", pl.lit(0, pl.Int8).alias("__side"), pl.col(c.WHITE_ID).alias(c.PLAYER_ID)),
            found.select("row_key", pl.lit(1, pl.Int8).alias("__side"), pl.col(c.BLACK_ID).alias(c.PLAYER_ID)),
        ]
    ).sort("row_key", "__side")
    unlisted = (
        seen.drop_nulls(c.PLAYER_ID)
        .join(listed.select(c.PLAYER_ID), on=c.PLAYER_ID, how="anti", maintain_order="left")
        .select(c.PLAYER_ID)
        .unique(maintain_order=True)
        .with_row_index("__idx", offset=ids.len())
    )
    every = pl.concat([listed.select(c.PLAYER_ID).with_row_index("__idx"), unlisted])
    filled = found.join(
        every.rename({c.PLAYER_ID: c.WHITE_ID, "__idx": "__w"}), on=c.WHITE_ID, how="left", maintain_order="left"
    ).join(every.rename({c.PLAYER_ID: c.BLACK_ID, "__idx": "__b"}), on=c.BLACK_ID, how="left", maintain_order="left")
    table = table.drop("__unlisted").with_columns(
        table["__w"].scatter(positions, filled["__w"]),
        table["__b"].scatter(positions, filled["__b"]),
    )
    return table, pl.concat([ids, unlisted[c.PLAYER_ID]])


def _look_up_players(
    rows: pl.LazyFrame, ids: pl.Series, columns: list[str], engine: Engine, *, hashed: bool
) -> pl.DataFrame:
    """The period table with each player's index in ``ids`` (``__w``, ``__b``; null when absent).

    With ``hashed``, the ids are joined through their 64-bit hashes (integer keys: a faster join) and
    every match is checked against the id itself: ``__collision`` marks a row where a hash matched a
    different id (then the caller looks up by the ids themselves).
    """

    def key(ids: pl.Expr) -> pl.Expr:
        return ids.hash() if hashed else ids

    index = pl.DataFrame({"__key": ids}).select(key(pl.col("__key"))).with_row_index("__idx")
    if hashed and index["__key"].n_unique() < index.height:  # two listed ids with the same hash
        return _look_up_players(rows, ids, columns, engine, hashed=False)
    listed = pl.lit(ids)
    collision = (listed.gather("__w") != pl.col(c.WHITE_ID)) | (listed.gather("__b") != pl.col(c.BLACK_ID))
    return (
        rows.with_columns(key(pl.col(c.WHITE_ID)).alias("__wk"), key(pl.col(c.BLACK_ID)).alias("__bk"))
        .join(index.lazy().rename({"__key": "__wk", "__idx": "__w"}), on="__wk", how="left", maintain_order="left")
        .join(index.lazy().rename({"__key": "__bk", "__idx": "__b"}), on="__bk", how="left", maintain_order="left")
        .select(
            *columns,
            "__w",
            "__b",
            (pl.col("__w").is_null() | (pl.col(c.BLACK_ID).is_not_null() & pl.col("__b").is_null())).alias(
                "__unlisted"
            ),
            (collision.fill_null(False) if hashed else pl.lit(False)).alias("__collision"),
        )
        .collect(engine=engine)
    )


def _look_up_integers(rows: pl.LazyFrame, ids: pl.Series, columns: list[str], engine: Engine) -> pl.DataFrame:
    """:func:`_look_up_players` for game rows with integer ids (Int64): a listed id matches the integer
    whose decimal text it is exactly (``'123'``, never ``'0123'``), so the result is that of the ids as
    text. Looked up in a dense table (slot = id - smallest id) when the listed ids span at most
    :data:`_DENSE_SLOTS` values, else by an integer join.
    """
    number = ids
    if ids.dtype != pl.Int64:  # text ids: those that are the decimal text of an integer
        number = ids.cast(pl.Int64, strict=False)
        number = pl.select(pl.when(number.cast(pl.String) == ids).then(number)).to_series()
    index = pl.DataFrame({"__key": number}).with_row_index("__idx").drop_nulls("__key")
    low, high = index["__key"].min(), index["__key"].max()
    slots = 0 if low is None else int(high) - int(low) + 1  # type: ignore[arg-type]
    if 0 < slots <= min(_DENSE_SLOTS, 64 * index.height + (1 << 20)):
        # slot -> index, and one more slot for ids out of range; no index: a sentinel (no null mask to
        # build or read: faster)
        unlisted = np.iinfo(np.uint32).max
        slot_index = np.full(slots + 1, unlisted, np.uint32)
        slot_index[(index["__key"] - low).to_numpy()] = index["__idx"].to_numpy()
        table = pl.Series("__idx", slot_index)

        def dense(name: str) -> pl.Expr:
            slot = pl.col(name) - low
            found = pl.lit(table).gather(pl.when((slot >= 0) & (slot < slots)).then(slot).otherwise(slots))
            return pl.when(found != unlisted).then(found)

        found = rows.with_columns(dense(c.WHITE_ID).alias("__w"), dense(c.BLACK_ID).alias("__b"))
    else:
        keys = index.lazy()
        found = rows.join(
            keys.rename({"__key": c.WHITE_ID, "__idx": "__w"}), on=c.WHITE_ID, how="left", maintain_order="left"
        ).join(keys.rename({"__key": c.BLACK_ID, "__idx": "__b"}), on=c.BLACK_ID, how="left", maintain_order="left")
    return found.select(
        *columns,
        "__w",
        "__b",
        (pl.col("__w").is_null() | (pl.col(c.BLACK_ID).is_not_null() & pl.col("__b").is_null())).alias("__unlisted"),
        pl.lit(False).alias("__collision"),
    ).collect(engine=engine)


def _rate_sides(sides: pl.LazyFrame, list_rating: pl.Series, rules: RuleSet) -> pl.LazyFrame:
    """The rating used for each game side, whether it counts (``__code``) and PD.

    ``sides`` has, per side, the player's and the opponent's index (``__idx``, ``__opp``), the ratings
    on the game row (``__ro_game``, ``__rc_game``) and the row's ``one_sided``, ``forfeit`` and
    ``duplicate``. Adds ``rating`` (Ro; Int32, or Float64 when ratings stay fractional), ``__code``
    (UInt8, 0 = counted; see the constants above) and ``__pd100`` (PD in hundredths, Int8 for table
    8.1.2, Float64 for the formula; null when not counted).

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3.1-8.3.2 (D after the 400-point rule, PD), 5.1
        (forfeits), 7.1 (unrated players); ``fide-rules.md`` sections 1-3.
    """
    # Whole ratings (a fractional one is refused on reading unless ratings stay fractional) as integers:
    # cheaper to compute with, to keep and to write.
    rating_type = pl.Float64 if rules.rounding == "none" else pl.Int32
    ratings = pl.lit(list_rating.cast(rating_type))
    ro_list, rc_list = ratings.gather(pl.col("__idx")), ratings.gather(pl.col("__opp"))
    sides = sides.with_columns(ro_list.alias("__ro_list"), rc_list.alias("__rc_list")).with_columns(
        pl.coalesce(pl.col("__ro_game").cast(rating_type), "__ro_list").alias(c.RATING),
        pl.coalesce(pl.col("__rc_game").cast(rating_type), "__rc_list").alias(c.OPPONENT_RATING),
    )
    ro, rc = pl.col(c.RATING), pl.col(c.OPPONENT_RATING)
    opponent_rated = pl.when(pl.col("one_sided")).then(rc.is_not_null()).otherwise(pl.col("__rc_list").is_not_null())
    gap = (
        (rules.gap_600_rule & ((ro - rc).abs() >= 600) & ((ro > 2600) | (rc > 2600)))
        if rules.gap_600_rule
        else pl.lit(False)
    )
    code = (
        pl.when(pl.col("duplicate"))
        .then(_DUPLICATE)
        .when(pl.col("forfeit"))
        .then(_FORFEIT)
        .when(~opponent_rated)
        .then(_UNRATED_OPPONENT)
        .when(pl.col("__ro_list").is_null())
        .then(_UNRATED_PLAYER)
        .when(gap.fill_null(False))
        .then(_GAP)
        .otherwise(0)
        .cast(pl.UInt8)
    )
    pd100 = engine.expected_score_100(engine.capped_difference(ro, rc, rules.cap_400), rules.expected)
    return sides.with_columns(code.alias("__code")).with_columns(
        pl.when(pl.col("__code") == 0).then(pd100).cast(_pd_type(rules)).alias("__pd100")
    )


def _pd_type(rules: RuleSet) -> pl.DataType:
    """PD in hundredths as kept: 0..100 from table 8.1.2, a fraction from the formula."""
    return pl.Int8() if rules.expected == "table" else pl.Float64()


def _results(sides: pl.LazyFrame, rules: RuleSet) -> pl.LazyFrame:
    """Game sides with ``rating``, ``opponent_rating``, ``__code``, ``__pd100`` and ``__score100`` (see
    :func:`_rate_sides`) completed: ``__rated``, ``rating_diff`` (D after the 400-point rule),
    ``capped`` and ``__dev100`` (score - PD, hundredths), each null when the side does not count."""
    ro, rc = pl.col(c.RATING), pl.col(c.OPPONENT_RATING)
    sides = sides.with_columns((pl.col("__code") == 0).alias("__rated"))
    return sides.with_columns(
        pl.when("__rated").then(engine.capped_difference(ro, rc, rules.cap_400)).alias(c.RATING_DIFF),
        pl.when("__rated").then(engine.is_capped(ro, rc, rules.cap_400)).alias(c.CAPPED),
        (pl.col("__score100") - pl.col("__pd100")).alias("__dev100"),
    )


#: What :func:`_rate_table` keeps of each game side.
_RATED = (c.RATING, "__code", "__pd100")


def _rate_table(table: pl.DataFrame, list_rating: pl.Series, rules: RuleSet) -> pl.DataFrame:
    """Both sides of every table row rated once (:func:`_rate_sides`), for the sums and the audit: the
    white sides of the rows in table order, then the black sides (``2 x height`` rows; the black side
    of a one-sided row is there too, but never used). Columns ``_RATED``. Worked out
    :data:`_SUM_ROWS` rows at a time, so that the intermediate columns stay small."""
    row = ["one_sided", "forfeit", "duplicate"]
    parts: dict[bool, list[pl.DataFrame]] = {True: [], False: []}
    for part in list(table.iter_slices(_SUM_ROWS)) or [table]:
        white, black = pl.collect_all(
            [
                _rate_sides(part.lazy().select(*row, *_side(is_white)), list_rating, rules).select(_RATED)
                for is_white in (True, False)
            ],
            engine="in-memory",
        )
        parts[True].append(white)
        parts[False].append(black)
    return pl.concat([*parts[True], *parts[False]], rechunk=True)


def _rated_side(both: pl.DataFrame, white: bool) -> pl.DataFrame:
    """The rated white (or black) sides of the table rows, from :func:`_rate_table`'s frame, with the
    opponent's rating (the other side's)."""
    half = both.height // 2
    me, other = (both.head(half), both.tail(half)) if white else (both.tail(half), both.head(half))
    return me.with_columns(other[c.RATING].alias(c.OPPONENT_RATING))


def _side(white: bool) -> list[pl.Expr]:
    """A row of the period table as its white (or black) side, from that player's point of view."""
    me, other = ("__w", "__b") if white else ("__b", "__w")
    game_ro, game_rc = (c.WHITE_RATING, c.BLACK_RATING) if white else (c.BLACK_RATING, c.WHITE_RATING)
    return [
        (2 * pl.col("row_key") + (0 if white else 1)).alias("__key"),
        pl.col(me).alias("__idx"),
        pl.col(other).alias("__opp"),
        (pl.col("score100") if white else (100 - pl.col("score100")).cast(pl.Int16)).alias("__score100"),
        pl.col(game_ro).alias("__ro_game"),
        pl.col(game_rc).alias("__rc_game"),
    ]


def _sides(table: pl.DataFrame, both: pl.DataFrame, rules: RuleSet) -> pl.LazyFrame:
    """Both sides of two-sided games and the player's side of one-sided rows, rated (``both``: see
    :func:`_rate_table`; white sides first, :func:`_audit` puts them in input order)."""
    row = ["row_key", c.DATE, c.EVENT_ID, "one_sided", "forfeit", "duplicate"]
    white, black = (
        pl.concat([table.lazy().select(*row, *_side(is_white)), _rated_side(both, is_white).lazy()], how="horizontal")
        for is_white in (True, False)
    )
    return _results(pl.concat([white, black.filter(~pl.col("one_sided"))]), rules)


def _pending_sides(sides: pl.LazyFrame, ids: pl.Series, rules: RuleSet) -> pl.DataFrame:
    """Sides of unrated players against rated opponents, as :func:`pool_first_ratings` reads them
    (none under rule sets without initial ratings)."""
    return (
        sides.filter((pl.col("__code") == _UNRATED_PLAYER) & rules.initial_ratings)
        .select(
            "__key",
            "__idx",
            "row_key",
            c.DATE,
            c.EVENT_ID,
            pl.lit(ids).gather(pl.col("__idx")).alias(c.PLAYER_ID),
            pl.col("__score100").alias("score100"),
            pl.col(c.OPPONENT_RATING).cast(pl.Float64 if rules.rounding == "none" else pl.Int64),  # summed
            pl.lit(c.PENDING_FIRST_RATING).alias(c.REASON),
        )
        .collect(engine=ENGINE)
    )


def _pending_flags(pending: pl.DataFrame, pools: pl.DataFrame) -> dict[str, pl.Series]:
    """Keys (``__key``) of the pending sides that count for a published first rating, and of those ignored
    as a first event scored zero (B.02 8.2.1)."""
    first = pending.select("__key", c.PLAYER_ID, c.EVENT_ID).join(
        pools.select(c.PLAYER_ID, "__published", "__ignored_events"), on=c.PLAYER_ID, how="left"
    )
    ignored = pl.col("__ignored_events").list.contains(pl.coalesce(c.EVENT_ID, pl.lit(""))).fill_null(False)
    published = pl.col("__published").fill_null(False) & ~ignored
    return {
        "ignored": first.filter(ignored)["__key"],
        "published": first.filter(published)["__key"],
    }


def _is_in_keys(key: pl.Expr, keys: pl.Series) -> pl.Expr:
    return key.is_in(keys.implode()) if keys.len() else pl.lit(False)


def _rated_sums(
    table: pl.DataFrame, both: pl.DataFrame, rules: RuleSet, players: int, published: pl.Series
) -> tuple[pl.DataFrame, int]:
    """Each player's sums over their rated game sides, and the number of table rows none of whose sides
    counts (neither rated nor pooled into a published first rating: ``published`` keys).

    The sides rated by :func:`_rate_table` (``both``) are taken :data:`_SUM_ROWS` table rows at a
    time, and their values added into per-player arrays by dense index (numpy's unbuffered
    ``add.at``: polars has no scatter-add, and its group-by hashes the indices; this is several times
    faster). The sums are exact integers for table 8.1.2 and whole ratings (PD in hundredths); with
    the logistic formula or fractional ratings, floats added in row order, the same order every run.

    Returns:
        One row per player with at least one rated side: ``__idx`` (UInt32), ``__n`` (rated games),
        ``__w100`` (score, hundredths), ``__pd100`` (sum of PD, hundredths), ``__dev100`` (sum of
        score - PD, hundredths), ``__opp`` (sum of the opponents' ratings, rating points); and the count.

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3.3-8.3.4: the change is K x sum(score - PD) over the
        period, rounded once (``fide-rules.md`` section 4).
    """
    exact = rules.expected == "table"  # PD in whole hundredths: sum(score - PD) = sum(score) - sum(PD)
    whole = rules.rounding != "none"  # whole ratings: the opponents' ratings add as integers
    values = {  # name: (value of a rated side, dtype of its sum)
        "__n": (pl.lit(1), pl.Int64),
        "__w100": (pl.col("__score100"), pl.Int64),
        "__pd100": (pl.col("__pd100"), pl.Int64 if exact else pl.Float64),
        "__opp": (pl.col(c.OPPONENT_RATING), pl.Int64 if whole else pl.Float64),
        **({} if exact else {"__dev100": (pl.col("__score100") - pl.col("__pd100"), pl.Float64)}),
    }
    sums = {
        name: np.zeros(players, np.int64 if dtype == pl.Int64 else np.float64) for name, (_, dtype) in values.items()
    }
    uncounted = 0
    sides = {is_white: _rated_side(both, is_white) for is_white in (True, False)}
    rated = pl.col("__rated")
    for start in range(0, table.height, _SUM_ROWS):
        part = table.slice(start, _SUM_ROWS)
        white, black = pl.collect_all(
            [
                pl.concat(
                    [part.lazy().select("one_sided", *_side(is_white)), sides[is_white].slice(start, _SUM_ROWS).lazy()],
                    how="horizontal",
                )
                .with_columns(has_side.alias("__has_side"))  # one-sided rows have no black side
                .with_columns(((pl.col("__code") == 0) & pl.col("__has_side")).alias("__rated"))
                .select(
                    pl.col("__idx").fill_null(0),
                    *(
                        pl.when(rated).then(value).otherwise(0).cast(dtype).alias(name)
                        for name, (value, dtype) in values.items()
                    ),
                    ((rated | _is_in_keys(pl.col("__key"), published)) & pl.col("__has_side")).alias("__counted"),
                )
                for is_white, has_side in ((True, pl.lit(True)), (False, ~pl.col("one_sided")))
            ],
            engine="in-memory",
        )
        uncounted += int((~white["__counted"] & ~black["__counted"]).sum())
        for side in (white, black):
            index = side["__idx"].to_numpy()
            for name, total in sums.items():
                np.add.at(total, index, side[name].to_numpy())
    frame = pl.DataFrame({"__idx": np.arange(players, dtype=np.uint32), **sums})
    if exact:
        frame = frame.with_columns((pl.col("__w100") - pl.col("__pd100")).alias("__dev100"))
    return frame.filter(pl.col("__n") > 0), uncounted


def _sum_engine(rules: RuleSet) -> Engine:
    """The engine for per-player sums: streaming where they are exact integers (table 8.1.2, whole
    ratings), else in-memory, which adds floating-point values in row order, so that a run gives the same
    last digits every time."""
    return ENGINE if rules.expected == "table" and rules.rounding != "none" else "in-memory"


def _players(
    rated: pl.DataFrame,
    pending: pl.DataFrame,
    listed: pl.DataFrame,
    ids: pl.Series,
    pools: pl.DataFrame,
    rules: RuleSet,
    period: str,
) -> pl.DataFrame:
    """Per-player K after the 700 rule and the rounded change, by player index, from the sums of the
    rated sides (``rated``, see :func:`_rated_sums`) and of the pending ones.

    One row per index (``__idx``, in order); ``__output`` marks the players of the new list: the list in
    force and the unrated players with pooled games.
    """
    # Rated sides and pending sides never belong to the same player (a player is rated or not), so the
    # sums for the performance rating (B.01 1.4.8: games against rated opponents) are the rated sums of
    # a rated player, or the pending sums of an unrated one.
    pending_sums = pending.group_by("__idx").agg(
        pl.len().cast(pl.Int64).alias("__pending_n"),
        pl.col(c.OPPONENT_RATING).sum().alias("__pending_opp"),
        (pl.col("score100") // 50).sum().cast(pl.Int64).alias("__pending_w2"),
    )
    sums = rated.join(pending_sums, on="__idx", how="full", coalesce=True).select(
        "__idx",
        "__n",
        "__dev100",
        "__w100",
        "__pd100",
        pl.coalesce("__n", "__pending_n").alias("__perf_n"),
        pl.coalesce("__opp", "__pending_opp").cast(pl.Int64).alias("__perf_opp"),
        pl.coalesce(pl.col("__w100") // 50, "__pending_w2").alias("__perf_w2"),
    )
    unlisted = pl.DataFrame({c.PLAYER_ID: ids.slice(listed.height)})
    universe = pl.concat([listed, unlisted], how="diagonal_relaxed").with_row_index("__idx")
    pooled = pools.select(c.PLAYER_ID).with_columns(pl.lit(True).alias("__pooled"))
    players = (
        universe.join(sums, on="__idx", how="left", maintain_order="left")
        .join(pools, on=c.PLAYER_ID, how="left", maintain_order="left")
        .join(pooled, on=c.PLAYER_ID, how="left", maintain_order="left")
        .with_columns(((pl.col("__idx") < listed.height) | pl.col("__pooled").fill_null(False)).alias("__output"))
        .drop("__pooled")
    )
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


def _change_by_game(players: pl.DataFrame, sides: pl.LazyFrame, rules: RuleSet) -> pl.DataFrame:
    """``--rounding game``: the change is the sum of each game's K x (score - PD), each rounded."""
    k_used = pl.lit(players[c.K_USED]).gather(pl.col("__idx"))
    per_game = (
        sides.filter("__rated")
        .group_by("__idx")
        .agg(engine.round_half_away_100(k_used * pl.col("__dev100")).sum().alias("__game_change"))
        .collect(engine=_sum_engine(rules))
    )
    return (
        players.join(per_game, on="__idx", how="left", maintain_order="left")
        .with_columns(
            pl.when(pl.col(c.CHANGE).is_not_null()).then(pl.col("__game_change").fill_null(0)).alias(c.CHANGE)
        )
        .drop("__game_change")
    )


def _audit(
    table: pl.DataFrame,
    both: pl.DataFrame,
    ids: pl.Series,
    players: pl.DataFrame,
    flags: dict[str, pl.Series],
    source_file: pl.Expr,
    absent: frozenset[str],
    rules: RuleSet,
    period: str,
) -> pl.LazyFrame:
    """One row per game side, in input order: the ratings, D, PD, K and K x (score - PD) used, or why it
    did not count. A lazy plan over the period table, run in chunks when it is written. The text
    columns of few values (period, source_file, colour, reason) are Categoricals gathered from their
    few values: written dictionary-encoded, without hashing 20 million texts, and read back as one
    column across partitions (an Enum would hold only its own period's values).

    Output row ``j`` is side ``j % 2`` (white, black) of table row ``j // 2`` (the black side of a
    one-sided row is left out); every column is gathered from the table's columns, or from the white
    and black values laid end to end (as in ``both``, the sides rated by :func:`_rate_table`), then
    completed as :func:`_sides` completes them. Columns no input has (``absent``) stay constants.
    """
    table = table.with_columns((100 - pl.col("score100")).cast(pl.Int16).alias("__black_score100"))
    n = table.height

    def row(name: str) -> pl.Expr:
        if name in absent:
            return pl.lit(None, table.schema[name]).alias(name)
        return pl.lit(table[name]).gather(pl.col("__at")).alias(name)

    def side(name: str, white: str, black: str) -> pl.Expr:
        if white in absent and black in absent:
            return pl.lit(None, table.schema[white]).alias(name)
        values = pl.concat([table[white], table[black]], rechunk=True)
        return pl.lit(values).gather(pl.col("__at") + pl.col("__side") * n).alias(name)

    def rated(name: str, *, opponent: bool = False) -> pl.Expr:
        other_side = (1 - pl.col("__side")) if opponent else pl.col("__side")
        return pl.lit(both[name]).gather(pl.col("__at") + other_side * n)

    index = pl.UInt32 if 2 * n < 2**32 else pl.Int64
    order = pl.LazyFrame({"__j": pl.int_range(0, 2 * n, dtype=index, eager=True)}).select(
        (pl.col("__j") // 2).alias("__at"), (pl.col("__j") % 2).alias("__side")
    )
    if table["one_sided"].any():
        order = order.filter(~(pl.lit(table["one_sided"]).gather(pl.col("__at")) & (pl.col("__side") == 1)))
    sides = order.select(
        "__side",
        *(row(name) for name in ("row_key", "one_sided", "forfeit", "duplicate")),
        side("__idx", "__w", "__b"),
        side("__opp", "__b", "__w"),
        side("__score100", "score100", "__black_score100"),
        rated(c.RATING).alias(c.RATING),
        rated(c.RATING, opponent=True).alias(c.OPPONENT_RATING),
        rated("__code").alias("__code"),
        rated("__pd100").alias("__pd100"),
        *(row(name) for name in (c.GAME_ID, c.SOURCE_ROW, c.EVENT_ID, c.ROUND, c.DATE)),
    ).with_columns((2 * pl.col("row_key") + pl.col("__side")).alias("__key"))
    k_used = pl.lit(players[c.K_USED]).gather(pl.col("__idx"))
    ignored = _is_in_keys(pl.col("__key"), flags["ignored"])
    published = _is_in_keys(pl.col("__key"), flags["published"])
    kdev100 = pl.col("__k") * pl.col("__dev100")  # null when not rated
    pending_reason = c.PENDING_FIRST_RATING if rules.initial_ratings else c.UNRATED_PLAYER
    named = [c.DUPLICATE_ROW, c.FORFEIT, c.UNRATED_OPPONENT, pending_reason, c.GAP_600, c.FIRST_EVENT_ZERO]
    reasons = pl.Series([None, *named], dtype=pl.Categorical)  # by __code; 6: first event scored zero (B.02 8.2.1)
    reason = pl.when(ignored).then(6).when(published).then(0).otherwise("__code").cast(pl.UInt32)
    colour = pl.when(pl.col("one_sided")).then(None).otherwise(pl.col("__side")).cast(pl.UInt32)
    completed = _results(sides, rules).with_columns(pl.when("__rated").then(k_used).alias("__k"))
    return completed.select(
        pl.lit(pl.Series([period], dtype=pl.Categorical)).first().alias(c.PERIOD),
        c.GAME_ID,
        source_file.alias(c.SOURCE_FILE),
        *(c.SOURCE_ROW, c.EVENT_ID, c.ROUND, c.DATE),
        pl.lit(ids).gather(pl.col("__idx")).alias(c.PLAYER_ID),
        pl.lit(ids).gather(pl.col("__opp")).alias(c.OPPONENT_ID),
        pl.lit(pl.Series(["white", "black"], dtype=pl.Categorical)).gather(colour).alias(c.COLOUR),
        _rating(pl.col(c.RATING), rules),
        _rating(pl.col(c.OPPONENT_RATING), rules),
        _rating(pl.col(c.RATING_DIFF), rules),
        c.CAPPED,
        _points(pl.col("__pd100"), rules).alias(c.EXPECTED_SCORE),
        _points(pl.col("__score100"), rules).alias(c.SCORE),
        pl.col("__k").alias(c.K_USED),
        _points(kdev100, rules).alias(c.K_CHANGE),
        (pl.col("__rated") | published).alias(c.COUNTED),
        pl.lit(reasons).gather(reason).alias(c.REASON),
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
        *[pl.col(name).alias(unescape(name)) for name in extras],  # the list's own names (elo_batch.names)
    )
