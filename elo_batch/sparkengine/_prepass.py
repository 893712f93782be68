"""The Spark engine's pre-pass of a period: Spark group-bys whose small results feed the engine's own pre-pass.

- the players of the period (one group-by, one row per player): each player's first side of any kind
  (what orders the players absent from the list), and, where the base ratings come from the games
  (:func:`needs_base`), the few sides that give them (:func:`first_sides`); the engine's
  :func:`~elo_batch.engine.prepass.period_list` then runs on those few rows per player on the driver,
  and the dense index is made there;
- the period's event facts (:func:`~elo_batch.engine.eventrows.period_events`, on the driver, from the
  run's facts and the lists of the events' start);
- under the once-per-event 400-point rule (2022), the candidate upgrades of every partition (the engine's
  :func:`~elo_batch.engine.upgrades.candidates` in ``mapInArrow``), chosen on the driver
  (:func:`~elo_batch.engine.upgrades.choose`);
- with floating-point sums in a period of more than one block, the row keys where the blocks of the fixed
  order start (two small jobs: a histogram of the row keys, then the rows of the buckets a block starts in).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.engine import eventrows, prepass, upgrades
from elo_batch.engine import schema as s
from elo_batch.sparkengine import _arrow
from elo_batch.sparkengine._check import SparkGames
from elo_batch.sparkengine._map import UNREAD, Candidates, Context

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

#: A key after every row's (base ratings: the row that only says a player had two ratings).
_LAST = 1 << 62
#: Row keys per bucket of the histogram that finds the blocks' first rows.
_BUCKET_BITS = 16


def prepare(
    players: pl.DataFrame,
    games: SparkGames,
    rating_list: pl.DataFrame | None,
    *,
    period: str,
    add_players_from_games: bool,
    start_lists: Mapping[str, pl.DataFrame | None],
) -> prepass.Prepared:
    """The pre-pass on the driver (``table`` empty: the rows stay in Spark), as
    :func:`elo_batch.engine.prepass.prepare` gives it: the list in force (base ratings from the games
    where there is none), the dense index, the period's event facts and their notes.

    Args:
        players: The period's players (:func:`period_players`).
        games: The run's games.
        rating_list: The list in force (after the floor and the seed), or None.
        period: Month of play.
        add_players_from_games: As :func:`elo_batch.engine.prepass.prepare`.
        start_lists: As :func:`elo_batch.engine.prepass.prepare`.
    """
    warnings: list[str] = []
    if rating_list is not None and not needs_base(rating_list, add_players_from_games=add_players_from_games):
        listed = rating_list
    else:  # the library's own rule, on each player's first sides (a few rows per player)
        first = first_sides(players, games.games.id_type)
        listed, warnings = prepass.period_list(rating_list, first, add_players_from_games)
    listed = prepass.in_id_order(listed)
    id_type = listed[c.PLAYER_ID].dtype
    unlisted = (
        players.select(pl.col(w.SIDE_PLAYER).cast(id_type).alias(c.PLAYER_ID), w.ANY_SIDE)
        .join(listed.select(c.PLAYER_ID), on=c.PLAYER_ID, how="anti")
        .sort(w.ANY_SIDE)
        .get_column(c.PLAYER_ID)
    )
    ids = pl.concat([listed[c.PLAYER_ID], unlisted])
    list_rating = pl.concat(
        [listed[c.RATING].cast(pl.Float64), pl.Series(c.RATING, [None] * unlisted.len(), pl.Float64)]
    )
    events = None
    if games.games.events is not None:
        events = eventrows.period_events(games.games.events, period, listed, ids=ids, start_lists=start_lists)
        warnings += events.notes
    return prepass.Prepared(listed, ids, pl.DataFrame(), list_rating, tuple(warnings), events)


def needs_base(rating_list: pl.DataFrame | None, *, add_players_from_games: bool) -> bool:
    """Whether the period's base ratings come from its games (no list, or players added from the games:
    :func:`elo_batch.engine.prepass.period_list`), so that :func:`period_players` gives each player's first
    sides."""
    return rating_list is None or add_players_from_games


def period_players(rows: DataFrame, *, base: bool = True) -> pl.DataFrame:
    """One row per player of the period's rows (one Spark group-by, collected): ``__p`` the id, ``__any``
    the first side of any kind (2 x row_key + side: what orders the players absent from the list), and,
    with ``base`` (the base ratings come from the games: :func:`first_sides`), over the sides that make
    a player (white, and black of two-sided rows; not a one-sided row's opponent) the first side ``k0``
    (date, then input order) and its rating, the first side with a rating ``k1``, and the highest and
    the lowest rating seen."""
    from pyspark.sql import functions as F

    def side(ids: str, ratings: str, number: int) -> DataFrame:
        return rows.select(
            c.DATE,
            (2 * F.col("row_key") + number).alias(w.KEY),
            F.col(ids).alias(w.SIDE_PLAYER),
            F.col(ratings).alias(w.RO_GAME),
            (F.lit(number == 0) | ~F.col("one_sided")).alias(w.MAKES_PLAYER),
        )

    sides = side(c.WHITE_ID, c.WHITE_RATING, 0).unionByName(
        side(c.BLACK_ID, c.BLACK_RATING, 1).where(F.col(w.SIDE_PLAYER).isNotNull())
    )
    if not base:
        return _arrow.from_spark(sides.groupBy(w.SIDE_PLAYER).agg(F.min(w.KEY).alias(w.ANY_SIDE)))
    makes = F.col(w.MAKES_PLAYER)
    key = F.when(
        makes, F.struct(F.col(c.DATE).isNull().alias("late"), F.col(c.DATE).alias("date"), F.col(w.KEY).alias("key"))
    )
    rated = F.when(F.col(w.RO_GAME).isNotNull(), key)
    ro = F.when(makes, F.col(w.RO_GAME))
    found = sides.groupBy(w.SIDE_PLAYER).agg(
        F.min(w.KEY).alias(w.ANY_SIDE), F.min(key).alias("k0"), F.min_by(w.RO_GAME, key).alias("ro0"),
        F.min(rated).alias("k1"), F.min_by(w.RO_GAME, rated).alias("ro1"), F.max(ro).alias("hi"),
        F.min(ro).alias("lo"),
    )  # fmt: skip
    keys = [F.col(f"{k}.{field}").alias(f"{k}_{field}") for k in ("k0", "k1") for field in ("date", "key")]
    return _arrow.from_spark(found.select(w.SIDE_PLAYER, w.ANY_SIDE, *keys, "ro0", "ro1", "hi", "lo"))


def first_sides(players: pl.DataFrame, id_type: pl.DataType) -> pl.LazyFrame:
    """Per player at most three game sides with which the engine's base ratings (first game's rating, by
    date then input order; a warning when a player's rows give two ratings) come out as from all of them:
    the first side, the first side with a rating, and, for a player with two ratings, one other rating."""
    players = players.filter(pl.col("k0_key").is_not_null())  # a one-sided row's opponent alone makes no player
    first = players.select(
        w.SIDE_PLAYER, pl.col("k0_date").alias("date"), pl.col("k0_key").alias("key"), pl.col("ro0").alias(w.RO_GAME)
    )
    first_rated = players.filter(pl.col("ro1").is_not_null()).select(
        w.SIDE_PLAYER, pl.col("k1_date").alias("date"), pl.col("k1_key").alias("key"), pl.col("ro1").alias(w.RO_GAME)
    )
    other = players.filter(pl.col("hi") != pl.col("lo")).select(  # two ratings or more
        w.SIDE_PLAYER, pl.lit(None, pl.Date).alias("date"), pl.lit(_LAST, pl.Int64).alias("key"),
        pl.when(pl.col("hi") != pl.col("ro1")).then("hi").otherwise("lo").alias(w.RO_GAME),
    )  # fmt: skip
    return (
        pl.concat([first, first_rated, other], how="vertical_relaxed")
        .select(
            pl.col("date").cast(pl.Date).alias(c.DATE),
            pl.col("key").cast(pl.Int64).alias(s.ROW_KEY),
            pl.lit(True).alias(s.ONE_SIDED),
            pl.col(w.SIDE_PLAYER).cast(id_type).alias(c.WHITE_ID),
            pl.lit(None, id_type).alias(c.BLACK_ID),
            pl.col(w.RO_GAME).cast(pl.Float64).alias(c.WHITE_RATING),
            pl.lit(None, pl.Float64).alias(c.BLACK_RATING),
        )
        .lazy()
    )


def chosen_upgrades(rows: DataFrame, context: Context) -> pl.Series:
    """Each player's one upgrade per event (once-per-event 400-point rule): the candidates of every
    partition (one ``mapInArrow`` job), chosen on the driver by the engine."""
    schema = upgrades.candidates(
        pl.DataFrame(schema=_table_schema(context)), pl.Series([], dtype=pl.Float64), context.rules
    )
    output = _arrow.spark_schema(schema.collect_schema())
    candidates = Candidates(context, _arrow.arrow_schema(output))
    found = _arrow.from_spark(rows.drop(*UNREAD).mapInArrow(candidates, output))
    return upgrades.choose(found.cast(dict(schema.collect_schema())))  # type: ignore[arg-type]


def _table_schema(context: Context) -> pl.Schema:
    """The columns of the period table the map makes (from no rows)."""
    return context.table(pl.DataFrame(schema=context.canonical)).schema


def block_starts(rows: DataFrame, count: int, block: int) -> pl.Series:
    """The row keys of the period's rows at positions ``block``, ``2 x block``, ... in input order: where
    the blocks of the engine's fixed order of floating-point sums start (empty for one block).

    Args:
        rows: The period's rows.
        count: Rows of the period.
        block: Rows per block (:data:`elo_batch.engine.sums.SUM_ROWS`).
    """
    if count <= block:
        return pl.Series("row_key", [], pl.Int64)
    from pyspark.sql import functions as F

    bucket = F.shiftright(F.col("row_key"), _BUCKET_BITS)
    histogram = _arrow.from_spark(rows.groupBy(bucket.alias(w.BUCKET)).count()).sort(w.BUCKET)
    ends = histogram["count"].cum_sum()
    positions = pl.Series(range(block, count, block), dtype=pl.Int64)
    at = ends.search_sorted(positions, side="right")
    wanted = histogram[w.BUCKET].gather(at).unique().to_list()
    keys = _arrow.from_spark(rows.where(bucket.isin(wanted)).select("row_key", bucket.alias(w.BUCKET)))
    by_bucket = {
        int(b): part.get_column("row_key").sort() for (b,), part in keys.partition_by(w.BUCKET, as_dict=True).items()
    }
    starts = []
    for position, where in zip(positions, at, strict=True):
        before = int(ends[where]) - int(histogram["count"][where])
        starts.append(int(by_bucket[int(histogram[w.BUCKET][where])][position - before]))
    return pl.Series("row_key", starts, pl.Int64)
