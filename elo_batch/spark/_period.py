"""One period on Spark: pre-pass group-bys, the kernels in ``mapInArrow``, Spark's reduce, the driver's finalize.

The steps of :mod:`elo_batch.kernels`, each where it scales:

1. pre-pass (Spark group-bys, small results to the driver): each player's first game and first rating
   (base ratings without a list: the library's :func:`~elo_batch.kernels.prepass._period_list` then runs on
   these few rows per player, on the driver), the players absent from the list in order of first
   appearance; the driver makes the dense player index;
2. map (``mapInArrow``, one task per partition of the period's rows): the library's lookup of the players'
   indices, :func:`~elo_batch.kernels.sides.rate_chunk` and :func:`~elo_batch.kernels.sums.partial_sums` on
   the whole partition; out come per-player partial sums (exact integers where FIDE is exact), the pending
   sides of newcomers and, with ``rounding="game"``, the rated sides counted by score - PD;
3. reduce: Spark's ``groupBy().sum()`` (bigint: exact, and an overflow is an error under ANSI mode);
4. finalize: :func:`~elo_batch.kernels.finish.finalize` on the driver (one row per player: K, the 700 rule,
   the one rounding half away from zero, the floor, first ratings);
5. audit: a second ``mapInArrow`` over the same rows with the finalized K shipped in the closure: the
   library's :func:`~elo_batch.kernels.audit.audit` per partition, no shuffle.

Floating-point sums (the logistic formula, fractional ratings) are added per partition in the kernels'
order, then across partitions by Spark in no fixed order: equal to the local engine's to about 1e-12,
not bit for bit (the exact FIDE table sums are the same integers).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl
import pyarrow as pa

from elo_batch import columns as c
from elo_batch.config import RunConfig
from elo_batch.errors import InternalError
from elo_batch.kernels import prepass
from elo_batch.kernels import schema as s
from elo_batch.kernels import sums as sums_kernel
from elo_batch.kernels.audit import audit
from elo_batch.kernels.finish import Finished, Flags, finalize
from elo_batch.kernels.sides import Chunk, rate_chunk
from elo_batch.period import PeriodResult, accounting
from elo_batch.ratinglist import as_list_in_force
from elo_batch.rules.sets import RuleSet
from elo_batch.spark import _arrow
from elo_batch.spark._check import SparkGames

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

KIND, ORDER = "__kind", "__order"
SUMS, PENDING, BY_GAME, META = 0, 1, 2, 3
_META = ("m_rows", "m_two_sided", "m_rated_rows")
#: A key after every row's (base ratings: the row that only says a player had two ratings).
_LAST = 1 << 62


@dataclass(frozen=True)
class SparkPeriod:
    """A period rated on Spark: the local engine's result (ratings and rejected in the driver's memory, the
    audit a LazyFrame read from Spark batch by batch), and the audit as a Spark frame (input order)."""

    result: PeriodResult
    audit: DataFrame


@dataclass(frozen=True)
class _Context:
    """What every task of a period needs: the rules, the columns, the frames shipped from the driver."""

    shipped: _arrow.Shipped
    rules: RuleSet
    players: int
    absent: frozenset[str]
    canonical: dict[str, pl.DataType]
    period: str

    def table(self, rows: pl.DataFrame) -> pl.DataFrame:
        """The period table of a partition's rows (in input order), every player found in the index."""
        ids = self.shipped.series("ids")
        listed = pl.DataFrame({c.PLAYER_ID: ids})
        table, found = prepass._period_table(rows.lazy(), listed, self.absent, "in-memory")
        if found.len() != ids.len():
            raise InternalError(
                f"period {self.period}: {found.len() - ids.len()} player(s) of a partition are not in the index",
                hint="this is a bug in elo-batch's Spark engine; please report it.",
            )
        return table

    def rows(self, batches: Iterator[pa.RecordBatch]) -> pl.DataFrame | None:
        frame = _arrow.from_batches(batches)
        return None if frame is None else frame.cast(self.canonical).sort("row_key")  # type: ignore[arg-type]


@dataclass(frozen=True)
class _Mapper:
    """The map of a period: one partition's rows rated and summed by player."""

    context: _Context
    output: pa.Schema

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        rows = self.context.rows(batches)
        if rows is None:
            return
        ctx, rules = self.context, self.context.rules
        chunk = Chunk(0, ctx.table(rows))
        partial = sums_kernel.partial_sums(
            chunk, rate_chunk(chunk, ctx.shipped.series("list_rating"), rules), rules, ctx.players
        )
        index = np.flatnonzero(partial.exact[s.N])
        sums: dict[str, np.ndarray] = {"s" + s.IDX: index}
        sums |= {"s" + name: partial.exact[name][index] for name in sums_kernel.exact_sums(rules)}
        if partial.floats is not None:  # added in the kernels' order: white sides, then black, in table order
            for name in sums_kernel.float_sums(rules):
                total = np.zeros(ctx.players, np.float64)
                for side in (0, 1):
                    sums_kernel.add_at(total, partial.floats.index[side], partial.floats.values[name][side])
                sums["s" + name] = total[index]
        table = chunk.rows
        frames = [
            pl.DataFrame(sums).with_columns(pl.lit(SUMS, pl.Int8).alias(KIND)),
            partial.pending.select(pl.all().name.prefix("p"), pl.lit(PENDING, pl.Int8).alias(KIND)),
            pl.DataFrame(
                {
                    "m_rows": [table.height],
                    "m_two_sided": [int((~table[s.ONE_SIDED]).sum())],
                    "m_rated_rows": [partial.rated_rows],
                    KIND: pl.Series([META], dtype=pl.Int8),
                }
            ),
        ]
        if partial.by_game is not None:
            frames.append(partial.by_game.select(pl.all().name.prefix("g"), pl.lit(BY_GAME, pl.Int8).alias(KIND)))
        yield from _arrow.to_batches(pl.concat(frames, how="diagonal_relaxed"), self.output)


@dataclass(frozen=True)
class _Auditor:
    """The audit of a period: one partition's rows, with the finalized K shipped in."""

    context: _Context
    output: pa.Schema

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        rows = self.context.rows(batches)
        if rows is not None:
            yield from _arrow.to_batches(audit_of(rows, self.context), self.output)


def audit_of(rows: pl.DataFrame, ctx: _Context) -> pl.DataFrame:
    """The audit of rows of the period (in input order), with ``__order`` (2 x row_key + side) to sort by."""
    table = ctx.table(rows)
    shipped = ctx.shipped
    chunk = Chunk(0, table)
    sides = rate_chunk(chunk, shipped.series("list_rating"), ctx.rules)
    finished = Finished(
        shipped.frame("k_used"), pl.DataFrame(), Flags(shipped.series("ignored"), shipped.series("published")), 0
    )
    files = rows[c.SOURCE_FILE].cast(pl.Categorical)  # as the local engine's audit has it
    if files.n_unique() <= 1:
        source_file = pl.lit(files.head(1)) if files.len() else pl.lit(None, pl.Categorical)
    else:  # the rows are sorted by row_key: a row's file is found by its key
        source_file = pl.lit(files).gather(pl.lit(rows["row_key"]).search_sorted(pl.col(s.ROW_KEY)))
    audited = audit(
        chunk, sides, finished, ids=shipped.series("ids"), source_file=source_file, absent=ctx.absent,
        rules=ctx.rules, period=ctx.period,
    ).collect()  # fmt: skip
    key = 2 * pl.col(s.ROW_KEY)
    order = (
        table.select(pl.concat_list(key, pl.when(~pl.col(s.ONE_SIDED)).then(key + 1)).alias(ORDER))
        .explode(ORDER)
        .drop_nulls()
    )
    return audited.with_columns(order[ORDER])


def rate_periods(games: SparkGames, rating_list: pl.DataFrame | None, config: RunConfig) -> Iterator[SparkPeriod]:
    """The periods of ``config`` in order on Spark, each from the list the previous one produced (as
    :func:`elo_batch.period.rate_periods`)."""
    current = rating_list
    if current is not None and current[c.PLAYER_ID].dtype == pl.Int64 and games.games.id_type != pl.Int64:
        current = current.with_columns(pl.col(c.PLAYER_ID).cast(pl.String))  # ids as text, as the games give them
    for number, period in enumerate(config.periods):
        done = rate_period(
            games,
            current,
            config.rules_for(period),
            period,
            add_players_from_games=rating_list is None,
            reject_undated=number == 0,
        )
        yield done
        current = as_list_in_force(done.result.ratings)


def rate_period(
    games: SparkGames,
    rating_list: pl.DataFrame | None,
    rules: RuleSet,
    period: str,
    *,
    add_players_from_games: bool,
    reject_undated: bool,
) -> SparkPeriod:
    """One period on Spark (see the module's docstring); as :func:`elo_batch.period.rate_period`."""
    rows = games.rows.where(games.rows[c.PERIOD] == period)
    prepared = _prepare(rows, games, rating_list, add_players_from_games)
    absent, canonical = games.games.absent, dict(games.games.rows.schema)
    shipped = _arrow.Shipped.of(ids=prepared.ids, list_rating=prepared.list_rating)
    context = _Context(shipped, rules, prepared.players, absent, canonical, period)
    output = _arrow.spark_schema(_map_schema(rules))
    mapped = rows.mapInArrow(_Mapper(context, _arrow.arrow_schema(output)), output)
    sums, meta = _reduce(mapped, rules, prepared.players)
    finished = finalize(prepared, sums, rules, period)
    in_period, two_sided = meta
    if in_period != games.games.period_rows.get(period, 0):
        raise InternalError(
            f"period {period}: the map saw {in_period} rows of the {games.games.period_rows.get(period, 0)} counted",
            hint="this is a bug in elo-batch's Spark engine; please report it.",
        )
    rejected, counts = accounting(
        games.games, period, in_period=in_period, counted=finished.counted_rows, reject_undated=reject_undated
    )
    audited = _audit(rows, finished, context)
    local = PeriodResult(
        period, rules, finished.ratings, audited.local, in_period + two_sided, rejected, counts, prepared.warnings,
        prepared.ids.slice(prepared.listed.height),
    )  # fmt: skip
    return SparkPeriod(local, audited.spark)


@dataclass(frozen=True)
class _Audit:
    spark: DataFrame
    local: pl.LazyFrame


def _audit(rows: DataFrame, finished: Finished, context: _Context) -> _Audit:
    """The period's audit as a Spark frame in input order, and as a LazyFrame that streams it from Spark."""
    shipped = _arrow.Shipped.of(
        ids=context.shipped.series("ids"),
        list_rating=context.shipped.series("list_rating"),
        k_used=finished.players.select(c.K_USED),
        ignored=finished.flags.ignored,
        published=finished.flags.published,
    )
    auditing = _Context(shipped, context.rules, context.players, context.absent, context.canonical, context.period)
    schema = audit_of(pl.DataFrame(schema=context.canonical), auditing).schema
    output = _arrow.spark_schema(schema)
    spark = rows.mapInArrow(_Auditor(auditing, _arrow.arrow_schema(output)), output).orderBy(ORDER).drop(ORDER)
    local_schema = {name: dtype for name, dtype in schema.items() if name != ORDER}
    return _Audit(spark, _arrow.streamed(spark, local_schema))


def _map_schema(rules: RuleSet) -> dict[str, pl.DataType]:
    """Columns of the map's output: the kind of each row, then each kind's columns under its prefix."""
    exact, floating = sums_kernel.exact_sums(rules), sums_kernel.float_sums(rules)
    dev = pl.Float64() if rules.expected == "formula" else pl.Int64()
    return {
        KIND: pl.Int8(),
        "s" + s.IDX: pl.Int64(),
        **{"s" + name: pl.Int64() for name in exact},
        **{"s" + name: pl.Float64() for name in floating},
        **{"p" + name: dtype for name, dtype in sums_kernel.pending_schema(rules).items()},
        **({"g" + s.IDX: pl.Int64(), "g" + s.DEV: dev, "g" + s.COUNT: pl.Int64()} if rules.rounding == "game" else {}),
        **dict.fromkeys(_META, pl.Int64()),
    }


def _reduce(mapped: DataFrame, rules: RuleSet, players: int) -> tuple[sums_kernel.Sums, tuple[int, int]]:
    """The reduce: the partitions' partial sums added by player with Spark's group-by (one job, with the
    pending sides, the by-game counts and the rows mapped), made into the kernels'
    :class:`~elo_batch.kernels.sums.Sums` on the driver; and the rows and two-sided rows mapped."""
    from pyspark.sql import functions as F

    exact, floating = sums_kernel.exact_sums(rules), sums_kernel.float_sums(rules)
    # One group-by for every kind: sums by player, by-game counts by player and score - PD, the pending
    # sides by their key (one each), the rows mapped in one group.
    keys = [KIND, "s" + s.IDX, "p" + s.KEY, *(["g" + s.IDX, "g" + s.DEV] if rules.rounding == "game" else [])]
    added = ["s" + n for n in (*exact, *floating)] + list(_META) + (["g" + s.COUNT] if rules.rounding == "game" else [])
    carried = ["p" + n for n in sums_kernel.pending_schema(rules) if n != s.KEY]
    whole = mapped.groupBy(*keys).agg(
        *[F.sum(name).alias(name) for name in added], *[F.first(name).alias(name) for name in carried]
    )
    reduced = _arrow.from_spark(whole)
    totals = reduced.filter(pl.col(KIND) == SUMS)
    index = totals["s" + s.IDX].to_numpy()
    exact_totals, float_totals = {}, {}
    for name in exact:
        dense = np.zeros(players, np.int64)
        dense[index] = totals["s" + name].to_numpy()
        exact_totals[name] = dense
    for name in floating:
        dense_float = np.zeros(players, np.float64)
        dense_float[index] = totals["s" + name].to_numpy()
        float_totals[name] = pl.Series(name, dense_float)
    pending_schema = sums_kernel.pending_schema(rules)
    pending = (
        reduced.filter(pl.col(KIND) == PENDING)
        .select(pl.col("p" + name).cast(dtype).alias(name) for name, dtype in pending_schema.items())
        .sort(pl.col(s.KEY) % 2, s.KEY)
    )
    by_game = [
        reduced.filter(pl.col(KIND) == BY_GAME).select(
            pl.col("g" + s.IDX).cast(s.INDEX_TYPE).alias(s.IDX),
            pl.col("g" + s.DEV).alias(s.DEV),
            pl.col("g" + s.COUNT).cast(pl.UInt32).alias(s.COUNT),
        )
    ] if rules.rounding == "game" else []  # fmt: skip
    meta = reduced.filter(pl.col(KIND) == META).select(pl.col(_META).fill_null(0))
    rows, two_sided, rated_rows = (int(value) for value in meta.row(0)) if meta.height else (0, 0, 0)
    sums = sums_kernel.sums_of(exact_totals, float_totals, [pending], by_game, rated_rows, rules, players=players)
    return sums, (rows, two_sided)


def _prepare(
    rows: DataFrame, games: SparkGames, rating_list: pl.DataFrame | None, add_players_from_games: bool
) -> prepass.Prepared:
    """The pre-pass: the list in force (base ratings from the games where there is none), the dense index.

    One Spark group-by gives, per player of the period, the sides the base ratings need (see
    :func:`_first_sides`) and the first side of any kind; the rest is the library's own code on the driver.
    """
    players = _players(rows)
    warnings: list[str] = []
    if rating_list is not None and not add_players_from_games:
        listed = rating_list
    else:  # the library's own rule, on each player's first sides (a few rows per player)
        first = _first_sides(players, games.games.id_type)
        listed, warnings = prepass._period_list(rating_list, first, add_players_from_games)
    id_type = listed[c.PLAYER_ID].dtype
    unlisted = (
        players.select(pl.col("__p").cast(id_type).alias(c.PLAYER_ID), "__any")
        .join(listed.select(c.PLAYER_ID), on=c.PLAYER_ID, how="anti")
        .sort("__any")
        .get_column(c.PLAYER_ID)
    )
    ids = pl.concat([listed[c.PLAYER_ID], unlisted])
    list_rating = pl.concat([listed[c.RATING], pl.Series(c.RATING, [None] * unlisted.len(), pl.Float64)])
    return prepass.Prepared(listed, ids, pl.DataFrame(), list_rating, tuple(warnings))


def _players(rows: DataFrame) -> pl.DataFrame:
    """One row per player of the period's rows (one Spark group-by, collected): ``__any`` the first side
    of any kind (2 x row_key + side: what orders the players absent from the list), and over the sides
    that make a player (white, and black of two-sided rows; not a one-sided row's opponent) the first side
    ``k0`` (date, then input order) and its rating, the first side with a rating ``k1``, and the number of
    ratings seen and the highest and lowest."""
    from pyspark.sql import functions as F

    def side(ids: str, ratings: str, number: int) -> DataFrame:
        return rows.select(
            c.DATE,
            (2 * F.col("row_key") + number).alias("__key"),
            F.col(ids).alias("__p"),
            F.col(ratings).alias("__ro"),
            (F.lit(number == 0) | ~F.col("one_sided")).alias("__makes"),
        )

    sides = side(c.WHITE_ID, c.WHITE_RATING, 0).unionByName(
        side(c.BLACK_ID, c.BLACK_RATING, 1).where(F.col("__p").isNotNull())
    )
    makes = F.col("__makes")
    key = F.when(
        makes, F.struct(F.col(c.DATE).isNull().alias("late"), F.col(c.DATE).alias("date"), F.col("__key").alias("key"))
    )
    rated = F.when(F.col("__ro").isNotNull(), key)
    ro = F.when(makes, F.col("__ro"))
    found = sides.groupBy("__p").agg(
        F.min("__key").alias("__any"), F.min(key).alias("k0"), F.min_by("__ro", key).alias("ro0"),
        F.min(rated).alias("k1"), F.min_by("__ro", rated).alias("ro1"), F.countDistinct(ro).alias("nd"),
        F.max(ro).alias("hi"), F.min(ro).alias("lo"),
    )  # fmt: skip
    keys = [F.col(f"{k}.{field}").alias(f"{k}_{field}") for k in ("k0", "k1") for field in ("date", "key")]
    return _arrow.from_spark(found.select("__p", "__any", *keys, "ro0", "ro1", "nd", "hi", "lo"))


def _first_sides(players: pl.DataFrame, id_type: pl.DataType) -> pl.LazyFrame:
    """Per player at most three game sides with which the library's base ratings (first game's rating, by
    date then input order; a warning when a player's rows give two ratings) come out as from all of them:
    the first side, the first side with a rating, and, for a player with two ratings, one other rating."""
    players = players.filter(pl.col("k0_key").is_not_null())  # a one-sided row's opponent alone makes no player
    first = players.select(
        "__p", pl.col("k0_date").alias("date"), pl.col("k0_key").alias("key"), pl.col("ro0").alias("__ro")
    )
    first_rated = players.filter(pl.col("ro1").is_not_null()).select(
        "__p", pl.col("k1_date").alias("date"), pl.col("k1_key").alias("key"), pl.col("ro1").alias("__ro")
    )
    other = players.filter(pl.col("nd") > 1).select(
        "__p", pl.lit(None, pl.Date).alias("date"), pl.lit(_LAST, pl.Int64).alias("key"),
        pl.when(pl.col("hi") != pl.col("ro1")).then("hi").otherwise("lo").alias("__ro"),
    )  # fmt: skip
    return (
        pl.concat([first, first_rated, other], how="vertical_relaxed")
        .select(
            pl.col("date").cast(pl.Date).alias(c.DATE),
            pl.col("key").cast(pl.Int64).alias(s.ROW_KEY),
            pl.lit(True).alias(s.ONE_SIDED),
            pl.col("__p").cast(id_type).alias(c.WHITE_ID),
            pl.lit(None, id_type).alias(c.BLACK_ID),
            pl.col("__ro").cast(pl.Float64).alias(c.WHITE_RATING),
            pl.lit(None, pl.Float64).alias(c.BLACK_RATING),
        )
        .lazy()
    )
