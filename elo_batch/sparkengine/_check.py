"""The Spark engine's reading: a games frame checked partition by partition, numbered, repeated game_ids marked.

Every row of the games frame goes through the library's own checks (:func:`elo_batch.inputs.checkfile.check_file`,
as a file's rows do) inside ``mapInArrow``, one partition at a time; the result is one frame of checked
rows (kind 0) and, per partition, one row (kind 7) holding its rejected rows and counts as Arrow IPC
(so the cache holds only the checked rows' columns), cached (``MEMORY_AND_DISK``) so that every later
pass reads the same rows even where the games frame itself would not give them again identically.

Numbering and input order. ``source_file`` is the file Spark read the row from (``input_file_name()``),
or null (a frame made in memory or by a query), or the caller's ``source_name``; ``source_row`` the row's
1-based number in that file (or in the frame), counted in the map within each partition and completed on
the driver with the rows of the same file in earlier partitions. Input order (``row_key``: which copy of
a repeated game is the first, the order of the audit) is that of the files' paths, then of the rows in
each file: as the local engine reads a folder, whatever order Spark reads the splits in (largest files
first); without files, the order of the partitions, then of the rows in each. One small group-by, one
broadcast join, no shuffle of the games.

Repeated game_ids (a ``game_id`` used again, in any partition): Spark's own group-by finds the ids used
more than once; rows of an id used with different content are collected to the driver and rejected by
the library's function (:func:`elo_batch.inputs.duplicates.compare_repeats`: its messages name every row), and
the exact repeats after the first are flagged ``duplicate`` by a join, in Spark. A game entered twice (the
same event, round, players and board, :mod:`elo_batch.inputs.duplicates`) likewise: Spark's group-by finds
the games named by more than one row, those rows are judged on the driver by the library's
:func:`~elo_batch.inputs.duplicates.compare_games`, and its verdict joined back.
"""

from __future__ import annotations

import collections
import functools
import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl
import pyarrow as pa

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.contract.mapping import ColumnMap
from elo_batch.contract.schemas import CANONICAL_SCHEMA, EVENT_ROWS_SCHEMA, REJECTED_SCHEMA
from elo_batch.contract.tables import GamesInput, InputFile
from elo_batch.inputs.checkfile import check_file
from elo_batch.inputs.duplicates import GAME_KEY, compare_games, compare_repeats
from elo_batch.inputs.readers import FrameInput, read_frame
from elo_batch.inputs.validate import split_event_rows
from elo_batch.job.sanity import GAME_CONTENT, Alike
from elo_batch.sparkengine import _arrow

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

#: Kinds of rows the check's map makes: checked rows, rejected rows, rows read per file (``__unit_rows``),
#: checked rows per period, and the event attributes of rows (``e`` columns, ``GamesInput.event_rows``).
#: Its output holds the checked rows, and per unit one ``SIDE`` row: the unit's other rows as one Arrow
#: IPC blob (``__side_rows``), so that the cached rows have only the checked rows' columns.
GOOD, BAD, READ, BY_PERIOD, EVENT, SIDE = 0, 1, 2, 3, 6, 7
#: The event attributes of a row as the check's map returns them (``row_key`` is made from the row's
#: file and number on the driver).
EVENT_COLUMNS = {"e" + name: dtype for name, dtype in EVENT_ROWS_SCHEMA.items() if name != "row_key"}
#: Rows of one partition are numbered below this (the partition's index fills the bits above).
PART_ROWS = 1 << 32
_CONTENT = [name for name in CANONICAL_SCHEMA if name not in ("row_key", c.SOURCE_FILE, c.SOURCE_ROW, "duplicate")]


@dataclass(frozen=True)
class SparkGames:
    """A run's games after the check: the rows in Spark (cached), what the driver knows of them.

    Attributes:
        rows: The checked rows (``CANONICAL_SCHEMA``, ids typed as ``games.id_type``), cached.
        games: The run's games as the local engine's code sees them: rejected rows, rows by period,
            the input, absent columns; its ``rows`` is empty (the rows are in Spark).
        cached: The cached frames, to release with :meth:`unpersist`.
    """

    rows: DataFrame
    games: GamesInput
    cached: tuple[DataFrame, ...]

    def unpersist(self) -> None:
        """Release the cached rows (later passes over ``rows`` read the games frame again)."""
        for frame in self.cached:
            frame.unpersist()

    def game_ratings_in(self, periods: tuple[str, ...]) -> bool:
        """Whether a row of ``periods`` carries a rating, as :func:`elo_batch.job.guards.game_ratings_in`: a Spark
        job that stops at the first such row (none when no input has a rating column)."""
        if {c.WHITE_RATING, c.BLACK_RATING} <= self.games.absent:
            return False
        from pyspark.sql import functions as F

        rated = F.col(c.WHITE_RATING).isNotNull() | F.col(c.BLACK_RATING).isNotNull()
        return bool(self.rows.where(F.col(c.PERIOD).isin(list(periods)) & rated).limit(1).count())


@dataclass(frozen=True)
class _Checker:
    """The map of the check: one partition of the games frame through the library's checks."""

    where: str
    source_name: str | None
    fractional: bool
    header: tuple[str, ...]
    output: pa.Schema
    canonical: dict[str, pl.DataType]
    columns: ColumnMap | None = None

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import TaskContext

        frame = _arrow.from_batches(batches)
        if frame is None:
            return
        context = TaskContext.get()
        part = context.partitionId() if context is not None else 0
        files = frame.get_column(w.SPARK_FILE)
        files = pl.select(pl.when(files != "").then(files)).to_series() if files.dtype == pl.String else files
        read_rows, _ = read_frame(FrameInput(frame.drop(w.SPARK_FILE), self.source_name, "games"), trim=False)
        assert isinstance(read_rows, pl.DataFrame)
        table = read_rows.with_columns(files.cast(pl.String).alias(c.SOURCE_FILE)).with_columns(
            pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(c.SOURCE_FILE).alias(c.SOURCE_ROW)
        )
        yield from _arrow.to_batches(
            check_unit(
                part,
                table,
                self.where,
                fractional=self.fractional,
                header=self.header,
                canonical=self.canonical,
                trimmed=False,
                columns=self.columns,
            ),
            self.output,
        )


def check_unit(
    part: int,
    table: pl.DataFrame,
    where: str,
    *,
    fractional: bool,
    header: tuple[str, ...],
    canonical: dict[str, pl.DataType],
    trimmed: bool,
    columns: ColumnMap | None = None,
    whole: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
) -> pl.DataFrame:
    """One unit of the games (a partition, or a file) through the library's checks: its checked rows and
    rejected rows, the rows read per file and the checked rows per period, as rows of the check's output
    (``row_key`` numbered from ``part``); ``columns``: the games' column mapping; ``whole``: the rejected
    rows with the ``raw`` of their whole rows (a file's, :func:`elo_batch.inputs.validate.whole_raw`)."""
    good, bad, _ = check_file(table, where, fractional, trimmed=trimmed, header=header, columns=columns)
    good, attributes = split_event_rows(good)
    good_rows, bad_rows, *given = pl.collect_all(
        [good, bad, *([] if attributes is None else [attributes])], engine="in-memory"
    )
    bad_rows = whole(bad_rows) if whole is not None else bad_rows
    events = [
        given[0]
        .join(good_rows.select("row_key", c.SOURCE_FILE, c.SOURCE_ROW), on="row_key", how="left")
        .select(c.SOURCE_FILE, c.SOURCE_ROW, *[pl.col(name[1:]).alias(name) for name in EVENT_COLUMNS])
        .with_columns(pl.lit(EVENT, pl.Int8).alias(w.MAP_KIND))
    ] if given else []  # fmt: skip
    base = part * PART_ROWS
    good_rows = good_rows.cast(canonical).with_columns(  # type: ignore[arg-type]
        (pl.col("row_key") + base).alias("row_key"), pl.lit(GOOD, pl.Int8).alias(w.MAP_KIND)
    )
    bad_rows = bad_rows.with_columns(
        pl.int_range(base, base + pl.len(), dtype=pl.Int64).alias("row_key"), pl.lit(BAD, pl.Int8).alias(w.MAP_KIND)
    )
    read = table.group_by(c.SOURCE_FILE).agg(pl.len().cast(pl.Int64).alias(w.UNIT_ROWS))
    by_period = good_rows.group_by(c.PERIOD).agg(pl.len().cast(pl.Int64).alias(w.UNIT_ROWS))
    side = pl.concat(
        [
            pl.DataFrame(schema=SIDE_SCHEMA),
            bad_rows,
            read.with_columns(pl.lit(READ, pl.Int8).alias(w.MAP_KIND)),
            by_period.with_columns(pl.lit(BY_PERIOD, pl.Int8).alias(w.MAP_KIND)),
            *events,
        ],
        how="diagonal_relaxed",
    ).select(list(SIDE_SCHEMA))
    data = _arrow.ipc_bytes(side.with_columns(pl.lit(part, pl.Int32).alias(w.PART)).cast(SIDE_SCHEMA))  # type: ignore[arg-type]
    blob = pl.DataFrame({w.MAP_KIND: [SIDE], w.SIDE_ROWS: [data]}, schema={w.MAP_KIND: pl.Int8, w.SIDE_ROWS: pl.Binary})
    return pl.concat([good_rows, blob], how="diagonal_relaxed").with_columns(pl.lit(part, pl.Int32).alias(w.PART))


#: The check's rows other than the checked rows (rejected rows, counts, event attributes), as the driver
#: reads them from the units' ``SIDE`` rows.
SIDE_SCHEMA: dict[str, pl.DataType] = {
    w.MAP_KIND: pl.Int8(), w.PART: pl.Int32(), w.UNIT_ROWS: pl.Int64(), "row_key": pl.Int64(), **REJECTED_SCHEMA,
    **EVENT_COLUMNS,
}  # fmt: skip


def output_schema(canonical: dict[str, pl.DataType], **more: pl.DataType) -> dict[str, pl.DataType]:
    """Columns of the check's output: the checked rows', the kind, the unit, a unit's other rows
    (``__side_rows``: see :data:`SIDE`)."""
    return {**canonical, w.MAP_KIND: pl.Int8(), w.PART: pl.Int32(), w.SIDE_ROWS: pl.Binary(), **more}


def side_rows(checked: DataFrame, *more: str) -> pl.DataFrame:
    """The check's rows other than the checked rows (:data:`SIDE_SCHEMA`, and the columns ``more`` of
    other rows the map made), collected to the driver (one job: the check runs and is cached)."""
    from pyspark.sql import functions as F

    collected = _arrow.from_spark(
        checked.where(F.col(w.MAP_KIND) != GOOD).select(w.MAP_KIND, w.PART, w.SIDE_ROWS, *more)
    )
    units = collected.filter(pl.col(w.MAP_KIND) == SIDE)
    parts = [_arrow.from_ipc(blob) for blob in units[w.SIDE_ROWS]]
    others = collected.filter(pl.col(w.MAP_KIND) != SIDE).drop(w.SIDE_ROWS)
    return pl.concat([pl.DataFrame(schema=SIDE_SCHEMA), *parts, others], how="diagonal_relaxed").cast(SIDE_SCHEMA)  # type: ignore[arg-type]


def check_games(
    games: DataFrame, *, source_name: str | None, fractional: bool, columns: ColumnMap | None = None
) -> SparkGames:
    """Check every row of ``games`` (either shape of the contract), number the rows, mark repeated game_ids;
    ``columns``: the games' column mapping (``columns=``), applied where each partition is checked.

    Raises:
        InputDataError: the frame lacks the columns of both shapes (or a column ``columns`` maps), or has a
            column of a type that is not text, a number or a date (raised on the driver, before any job).
    """
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    where = source_name if source_name is not None else "games"
    user = games.columns
    empty = pl.DataFrame(_arrow.arrow_schema(games.schema).empty_table())
    table, info = read_frame(FrameInput(empty, source_name, "games"), trim=False)
    plan, _, absent = check_file(table, where, fractional, trimmed=False, header=info.header, columns=columns)
    canonical = dict(split_event_rows(plan)[0].collect_schema())
    if c.GAME_ID in absent:  # no game_id: of the type of the player ids (as load_games has it)
        canonical[c.GAME_ID] = canonical[c.WHITE_ID]
    spark_output = _arrow.spark_schema(output_schema(canonical))
    checker = _Checker(
        where, source_name, fractional, info.header, _arrow.arrow_schema(spark_output), canonical, columns
    )
    file = F.lit(source_name) if source_name is not None else F.input_file_name()
    source = games.select(*[F.col(f"`{name}`") for name in user], file.cast("string").alias(w.SPARK_FILE))
    checked = source.mapInArrow(checker, spark_output).persist(StorageLevel.MEMORY_AND_DISK)
    side = side_rows(checked)  # one job: the check runs (and is cached); the rejected rows and the counts
    rows_read = int(side.filter(pl.col(w.MAP_KIND) == READ)[w.UNIT_ROWS].sum())
    files = (InputFile(where, 0, "", rows_read, "spark", None, unnamed=source_name is None, header=info.header),)
    good = checked.where(F.col(w.MAP_KIND) == GOOD).select(*canonical, w.PART)
    return finish(checked, good, side, canonical=canonical, absent=frozenset(absent), files=files)


def finish(
    checked: DataFrame,
    good: DataFrame,
    side: pl.DataFrame,
    *,
    canonical: dict[str, pl.DataType],
    absent: frozenset[str],
    files: tuple[InputFile, ...],
    by_path: bool = True,
) -> SparkGames:
    """The end of the check, whatever its units: the rows numbered in their files, repeated game_ids
    marked, the rejected rows and the counts on the driver.

    Args:
        checked: The check's output, cached (the rows read it unless repeats made them cached too).
        good: Its checked rows (``canonical`` columns and the unit).
        side: Its other rows (rejected rows and counts), collected.
        canonical: The types of the checked rows.
        absent: Columns no input has.
        files: What was read, for the manifest.
        by_path: Input order is that of the files' paths (a frame Spark read: its units are its splits,
            in Spark's order); else that of the units (one per file, in the order given).
    """
    offsets = _offsets(side.filter(pl.col(w.MAP_KIND) == READ), by_path)
    bad = (
        side.filter(pl.col(w.MAP_KIND) == BAD)
        .join(offsets, on=[w.PART, c.SOURCE_FILE], how="left", nulls_equal=True, maintain_order="left")
        .with_columns(pl.col(c.SOURCE_ROW) + pl.col(w.OFFSET))
        .sort(pl.col(w.BASE) + pl.col(c.SOURCE_ROW))
        .select(list(REJECTED_SCHEMA))
        .cast(REJECTED_SCHEMA)  # type: ignore[arg-type]
    )
    by_period = side.filter(pl.col(w.MAP_KIND) == BY_PERIOD).group_by(c.PERIOD).agg(pl.col(w.UNIT_ROWS).sum())
    period_rows = collections.Counter({period: int(rows) for period, rows in by_period.iter_rows()})
    rows, reused, cached = _repeats_marked(_numbered(good, offsets).select(*canonical), canonical, absent=absent)
    for refused in reused:
        period_rows.subtract(collections.Counter(dict(refused.group_by(c.PERIOD).len().iter_rows())))
    rejected = bad
    if reused:
        rejected = pl.concat([bad, *reused]).sort(c.SOURCE_FILE, c.SOURCE_ROW, maintain_order=True)
    local = GamesInput(
        pl.DataFrame(schema=canonical), rejected, files, dict(period_rows), absent, _event_rows(side, offsets)
    )
    return SparkGames(rows, local, (checked, *cached))


def _repeats_marked(
    rows: DataFrame, canonical: dict[str, pl.DataType], *, absent: frozenset[str]
) -> tuple[DataFrame, list[pl.DataFrame], list[DataFrame]]:
    """The numbered rows with repeated game_ids (:func:`_marked`) and games entered twice
    (:func:`_games_marked`) marked, where the inputs have the columns; the rows refused by each (those
    that refused some, ``REJECTED_SCHEMA``), and the frames cached (the joins once, for every pass)."""
    from pyspark import StorageLevel

    reused, cached = [], []
    for marks, needs in ((_marked, {c.GAME_ID}), (_games_marked, {c.EVENT_ID, c.ROUND})):
        if needs & absent:
            continue
        before = rows
        rows, refused = marks(rows, canonical)
        if refused.height:
            reused.append(refused)
        if rows is not before:
            rows = rows.persist(StorageLevel.MEMORY_AND_DISK)
            cached.append(rows)
    return rows, reused, cached


def _event_rows(side: pl.DataFrame, offsets: pl.DataFrame) -> pl.DataFrame | None:
    """The event attributes the rows give (``GamesInput.event_rows``), numbered as the rows are (see
    :func:`_numbered`), in input order; None when no row gives one."""
    given = side.filter(pl.col(w.MAP_KIND) == EVENT)
    if not given.height:
        return None
    return (
        given.join(offsets, on=[w.PART, c.SOURCE_FILE], how="left", nulls_equal=True, maintain_order="left")
        .select(
            (pl.col(w.BASE) + pl.col(c.SOURCE_ROW) + pl.col(w.OFFSET)).alias("row_key"),
            *[pl.col(name).alias(name[1:]) for name in EVENT_COLUMNS],
        )
        .cast(EVENT_ROWS_SCHEMA)  # type: ignore[arg-type]
        .sort("row_key")
    )


def _offsets(read: pl.DataFrame, by_path: bool) -> pl.DataFrame:
    """Per unit and file: ``__offset``, the rows of the file in earlier units, and ``__base``, what makes a
    row's ``row_key`` from its ``source_row``: files in the order of their paths (``by_path``; rows
    without a file last), else in the order of the units, rows in their order in the file."""
    if by_path:
        files = read.select(pl.col(c.SOURCE_FILE).unique().sort(nulls_last=True)).with_row_index(w.RANK)
    else:
        files = read.group_by(c.SOURCE_FILE).agg(pl.col(w.PART).min().alias(w.RANK))
    return (
        read.sort(c.SOURCE_FILE, w.PART, nulls_last=True)
        .join(files, on=c.SOURCE_FILE, how="left", nulls_equal=True, maintain_order="left")
        .select(
            w.PART,
            c.SOURCE_FILE,
            (pl.col(w.UNIT_ROWS).cum_sum() - pl.col(w.UNIT_ROWS)).over(c.SOURCE_FILE).alias(w.OFFSET),
            (pl.col(w.RANK).cast(pl.Int64) * PART_ROWS - 1).alias(w.BASE),
        )
    )


def _numbered(good: DataFrame, offsets: pl.DataFrame) -> DataFrame:
    """The checked rows numbered in their whole file (or frame): ``source_row`` the row's number in it (the
    map numbered it within its unit: the rows of the same file in earlier units are added here), and
    ``row_key`` from the file's place and the row's (see :func:`_offsets`)."""
    from pyspark.sql import functions as F

    units = offsets.group_by(w.PART).len()
    as_mapped = offsets.filter(pl.col(w.OFFSET) != 0).height == 0 and units.filter(pl.col("len") > 1).height == 0
    if as_mapped and offsets.filter(pl.col(w.BASE) != pl.col(w.PART).cast(pl.Int64) * PART_ROWS - 1).height == 0:
        return good  # each file (or the frame) in one unit, in the order of the files: numbered as mapped
    spark = good.sparkSession
    shifts = spark.createDataFrame(_arrow.to_arrow(offsets, _offset_schema()))
    on = (good[w.PART] == shifts[w.PART]) & good[c.SOURCE_FILE].eqNullSafe(shifts[c.SOURCE_FILE])
    joined = good.join(F.broadcast(shifts), on, "left")
    row = good[c.SOURCE_ROW] + shifts[w.OFFSET]
    numbered = {c.SOURCE_ROW: row.alias(c.SOURCE_ROW), "row_key": (shifts[w.BASE] + row).alias("row_key")}
    return joined.select(*[numbered.get(name, good[name]) for name in good.columns])


def _offset_schema() -> pa.Schema:
    return pa.schema([(w.PART, pa.int32()), (c.SOURCE_FILE, pa.string()), (w.OFFSET, pa.int64()), (w.BASE, pa.int64())])


def _marked(good: DataFrame, canonical: dict[str, pl.DataType]) -> tuple[DataFrame, pl.DataFrame]:
    """The checked rows with exact repeats of a game_id flagged ``duplicate`` (all but the first), the rows
    of a game_id used with different content removed; and those rows, rejected (``REJECTED_SCHEMA``)."""
    from pyspark.sql import functions as F

    counted = (
        good.where(F.col(c.GAME_ID).isNotNull())
        .groupBy(c.GAME_ID)
        .agg(F.count(F.lit(1)).alias(w.GROUP_ROWS), F.min("row_key").alias(w.FIRST_COPY))
        .where(F.col(w.GROUP_ROWS) > 1)
    )
    if not _arrow.from_spark(counted.groupBy().count()).item():  # one cheap group-by: no id used twice
        return good, pl.DataFrame(schema=REJECTED_SCHEMA)
    variants = (
        good.join(counted.select(c.GAME_ID), c.GAME_ID, "left_semi")
        .groupBy(c.GAME_ID)
        .agg(F.countDistinct(F.struct(*_CONTENT)).alias(w.VARIANTS))
    )
    repeated = counted.join(variants, c.GAME_ID).select(
        c.GAME_ID, w.FIRST_COPY, (F.col(w.VARIANTS) > 1).alias(w.CONFLICT)
    )
    reused = pl.DataFrame(schema=REJECTED_SCHEMA)
    conflicting = good.join(repeated.where(w.CONFLICT).select(c.GAME_ID), c.GAME_ID, "left_semi")
    candidates = _arrow.from_spark(conflicting, canonical).sort("row_key")  # no rows: every repeat exact
    if candidates.height:
        _, reused = compare_repeats(candidates)
    rows = (
        good.join(repeated, c.GAME_ID, "left")
        .where(~F.coalesce(F.col(w.CONFLICT), F.lit(False)))
        .withColumn("duplicate", F.coalesce(F.col("row_key") != F.col(w.FIRST_COPY), F.lit(False)))
        .select(*canonical)
    )
    return rows, reused


def _games_marked(rows: DataFrame, canonical: dict[str, pl.DataType]) -> tuple[DataFrame, pl.DataFrame]:
    """The rows with the later copies of a game entered twice flagged ``duplicate``, the copies of a game
    that disagree removed; and those, rejected (``REJECTED_SCHEMA``): as
    :func:`elo_batch.inputs.duplicates.mark_duplicates` judges the rows that name their game."""
    from pyspark.sql import functions as F

    key = list(GAME_KEY)
    named = rows.where(~F.col("duplicate") & F.col(c.EVENT_ID).isNotNull() & F.col(c.ROUND).isNotNull())
    named = named.where(F.col(c.BLACK_ID).isNotNull())
    repeated = named.groupBy(*key).count().where(F.col("count") > 1).drop("count")
    if not _arrow.from_spark(repeated.groupBy().count()).item():
        return rows, pl.DataFrame(schema=REJECTED_SCHEMA)
    same = [named[name].eqNullSafe(repeated[name]) for name in key]
    candidates = named.join(F.broadcast(repeated), same, "left_semi")
    flagged, refused = compare_games(_arrow.from_spark(candidates, canonical))
    verdict = flagged.filter(pl.col("duplicate") | pl.col(w.CONFLICT)).select("row_key", "duplicate", w.CONFLICT)
    if not verdict.height:
        return rows, refused
    spark = rows.sparkSession
    schema = pa.schema([("row_key", pa.int64()), (w.MARKED, pa.bool_()), (w.CONFLICT, pa.bool_())])
    marks = spark.createDataFrame(_arrow.to_arrow(verdict.rename({"duplicate": w.MARKED}), schema))
    joined = rows.join(F.broadcast(marks), "row_key", "left")
    return (
        joined.where(~F.coalesce(F.col(w.CONFLICT), F.lit(False)))
        .withColumn("duplicate", F.col("duplicate") | F.coalesce(F.col(w.MARKED), F.lit(False)))
        .select(*canonical)
    ), refused


def alike_rows(games: SparkGames, periods: tuple[str, ...]) -> Alike | None:
    """:func:`elo_batch.job.sanity.alike_rows` over the rows in Spark: Spark's group-by of the rows judged
    (no game_id, no event_id or round, not a duplicate) by file and content, then the first group's rows."""
    from pyspark.sql import functions as F

    content = [name for name in GAME_CONTENT if name not in games.games.absent]
    judged = F.col(c.GAME_ID).isNull() & (F.col(c.EVENT_ID).isNull() | F.col(c.ROUND).isNull()) & ~F.col("duplicate")
    rows = games.rows.where(judged)
    if periods:
        rows = rows.where(F.col(c.PERIOD).isin(list(periods)))
    groups = rows.groupBy(c.SOURCE_FILE, *content).agg(
        F.count(F.lit(1)).alias(w.GROUP_ROWS), F.min("row_key").alias(w.FIRST_COPY)
    )
    found = _arrow.from_spark(
        groups.where(F.col(w.GROUP_ROWS) > 1).agg(
            F.sum(F.col(w.GROUP_ROWS) - 1).alias("extra"), F.min(w.FIRST_COPY).alias("first")
        )
    ).row(0)
    if not found[0]:
        return None
    first = _arrow.from_spark(rows.where(F.col("row_key") == found[1]).select(c.SOURCE_FILE, *content)).row(0)
    same = [F.col(name).eqNullSafe(F.lit(value)) for name, value in zip((c.SOURCE_FILE, *content), first, strict=True)]
    shown = _arrow.from_spark(
        rows.where(functools.reduce(operator.and_, same))
        .orderBy("row_key")
        .limit(2)
        .select(c.SOURCE_FILE, c.SOURCE_ROW)
    )
    one, two = shown[c.SOURCE_ROW]
    return Alike(int(found[0]), shown[c.SOURCE_FILE][0], (int(one), int(two)))
