"""The Spark engine's map and reduce of a period: the engine's kernels on each partition, Spark's exact sums.

What every task of a period needs travels in its function's closure (:class:`Context`: the player
index, the list in force, the period's event facts, the chosen upgrades, as Arrow IPC bytes). The map
(:class:`Mapper`) makes the period table of a partition's rows with the engine's own pre-pass pieces
(:func:`~elo_batch.engine.prepass.period_table`, :func:`~elo_batch.engine.eventrows.event_columns`,
:func:`~elo_batch.engine.upgrades.apply`), rates it with :func:`~elo_batch.engine.sides.rate_chunk` and
sums it with :func:`~elo_batch.engine.sums.partial_sums`; it emits rows of several kinds in one frame:

- ``SUMS``: exact integer sums per player (``s`` columns), added by Spark's ``groupBy().sum()`` on bigint;
- ``PENDING``, ``BY_GAME``: the pending sides of newcomers and the rated sides counted by score - PD;
- ``FLOAT``: the floating-point terms (logistic formula, fractional ratings) of each side, with their
  place in the engine's fixed order (block of the period table, side, ``row_key``): Spark collects a
  player's terms, sorts them in that order and adds them one after the other, so the float sums are the
  local engine's bit for bit (:mod:`elo_batch.engine.sums`);
- ``META``, ``CODES``, ``NOTE``: rows mapped, the sides the event rules decided, the rows the warning of
  events started before the run needs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl
import pyarrow as pa

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.engine import eventrows, prepass, upgrades
from elo_batch.engine import schema as s
from elo_batch.engine import sums as sums_kernel
from elo_batch.engine.audit import audit
from elo_batch.engine.finish import Finished, Flags
from elo_batch.engine.period import rule_counts
from elo_batch.engine.sides import Chunk, rate_chunk
from elo_batch.errors import InternalError
from elo_batch.rules.sets import RuleSet
from elo_batch.sparkengine import _arrow

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

SUMS, PENDING, BY_GAME, META, FLOAT, CODES, NOTE = range(7)
META_COLUMNS = ("m_rows", "m_two_sided", "m_rated_rows", "m_waived")
_FLOAT_PLACE = ("f_block", "f_side", "f_row_key")
_NOTE = {"n_row_key": pl.Int64(), "n" + c.EVENT_ID: pl.String(), "n" + c.WHITE_RATING: pl.Float64(),
         "n" + c.BLACK_RATING: pl.Float64(), "n" + s.ONE_SIDED: pl.Boolean()}  # fmt: skip


@dataclass(frozen=True)
class Context:
    """What every task of a period needs: the rules, the columns, the frames shipped from the driver.

    Attributes:
        shipped: ``ids``, ``list_rating``; with events ``ev_events``, ``ev_decided``, ``ev_unstarted`` and
            ``start_<month>``; ``chosen`` (upgrades), ``boundaries`` (of the float order's blocks); in
            the audit also ``k_used``, ``ignored``, ``published``.
        by_event: The period's events decide the periods (None: the run has no event facts).
    """

    shipped: _arrow.Shipped
    rules: RuleSet
    players: int
    absent: frozenset[str]
    canonical: dict[str, pl.DataType]
    period: str
    by_event: bool | None
    start_months: tuple[str, ...]

    def events(self) -> eventrows.PeriodEvents | None:
        """The period's event facts, as :func:`elo_batch.engine.eventrows.period_events` made them."""
        if self.by_event is None:
            return None
        has = self.shipped.frames
        return eventrows.PeriodEvents(
            self.period,
            self.by_event,
            self.shipped.frame("ev_events"),
            self.shipped.frame("ev_decided"),
            {month: self.shipped.series("start_" + month) for month in self.start_months},
            (),
            self.shipped.frame("ev_unstarted") if "ev_unstarted" in has else None,
        )

    def table(self, rows: pl.DataFrame) -> pl.DataFrame:
        """The period table of a partition's rows (in input order): every player found in the index, the
        event columns, and the upgrades once they are chosen."""
        ids = self.shipped.series("ids")
        table, found = prepass.period_table(
            rows.lazy(), pl.DataFrame({c.PLAYER_ID: ids}), self.absent, in_memory=True, lookups=2 * rows.height
        )
        if found.len() != ids.len():
            raise InternalError(
                f"period {self.period}: {found.len() - ids.len()} player(s) of a partition are not in the index",
                hint="this is a bug in elo-batch's Spark engine; please report it.",
            )
        table = eventrows.event_columns(table, self.events())
        if "chosen" in self.shipped.frames:
            table = upgrades.apply(table, self.shipped.series("chosen"))
        return table

    def rows(self, batches: Iterator[pa.RecordBatch]) -> pl.DataFrame | None:
        """A partition's rows in input order (None: it has none), of the canonical types (of the columns
        sent: the map's lack :data:`UNREAD`)."""
        frame = _arrow.from_batches(batches)
        if frame is None:
            return None
        return frame.cast({name: self.canonical[name] for name in frame.columns}).sort("row_key")  # type: ignore[arg-type]


#: Columns of the checked rows the map and the upgrades' candidates never read, so not sent to their
#: tasks (``source_file``: a path, or an object store's URI, on every row; only the audit shows it).
UNREAD = (c.SOURCE_FILE,)


def ship(**frames: pl.DataFrame | pl.Series | None) -> _arrow.Shipped:
    """The frames given (None left out) as the bytes a closure carries."""
    return _arrow.Shipped.of(**{name: frame for name, frame in frames.items() if frame is not None})


@dataclass(frozen=True)
class Candidates:
    """The map of the once-per-event 400-point rule: each partition's candidate upgrades."""

    context: Context
    output: pa.Schema

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        rows = self.context.rows(batches)
        if rows is not None:
            table = self.context.table(rows)
            found = upgrades.candidates(table, self.context.shipped.series("list_rating"), self.context.rules)
            yield from _arrow.to_batches(found.collect(), self.output)


@dataclass(frozen=True)
class Mapper:
    """The map of a period: one partition's rows rated and summed by player (see the module's docstring)."""

    context: Context
    output: pa.Schema

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        rows = self.context.rows(batches)
        if rows is None:
            return
        ctx, rules = self.context, self.context.rules
        chunk = Chunk(0, ctx.table(rows))
        sides = rate_chunk(chunk, ctx.shipped.series("list_rating"), rules)
        partial = sums_kernel.partial_sums(chunk, sides, rules, players=ctx.players)
        table = chunk.rows
        by_code, waived = rule_counts(table, sides)
        frames = [
            _exact_sums(partial, rules),
            partial.pending.select(pl.all().name.prefix("p"), pl.lit(PENDING, pl.Int8).alias(w.MAP_KIND)),
            _meta(table, partial, waived=waived),
            pl.DataFrame(
                {"c_code": list(by_code), "c_count": list(by_code.values())},
                schema={"c_code": pl.Int64, "c_count": pl.Int64},
            ).with_columns(pl.lit(CODES, pl.Int8).alias(w.MAP_KIND)),
        ]
        if partial.floats is not None:
            frames.append(_float_terms(partial.floats, table, ctx.shipped.series("boundaries")))
        if partial.by_game is not None:
            frames.append(partial.by_game.select(pl.all().name.prefix("g"), pl.lit(BY_GAME, pl.Int8).alias(w.MAP_KIND)))
        frames += _unstarted_rows(table, ctx.events())
        yield from _arrow.to_batches(pl.concat(frames, how="diagonal_relaxed"), self.output)


def _exact_sums(partial: sums_kernel.Partial, rules: RuleSet) -> pl.DataFrame:
    """The partition's exact integer sums of the players it has (``SUMS`` rows, ``s`` columns)."""
    index = np.flatnonzero(partial.exact[w.N])
    sums: dict[str, np.ndarray] = {"s" + w.IDX: index}
    sums |= {"s" + name: partial.exact[name][index] for name in sums_kernel.exact_sums(rules)}
    return pl.DataFrame(sums).with_columns(pl.lit(SUMS, pl.Int8).alias(w.MAP_KIND))


def _meta(table: pl.DataFrame, partial: sums_kernel.Partial, *, waived: int) -> pl.DataFrame:
    """The partition's counts (``META``): rows mapped, two-sided rows, rows rated, sides waived."""
    return pl.DataFrame(
        {
            "m_rows": [table.height],
            "m_two_sided": [int((~table[s.ONE_SIDED]).sum())],
            "m_rated_rows": [partial.rated_rows],
            "m_waived": [waived],
            w.MAP_KIND: pl.Series([META], dtype=pl.Int8),
        }
    )


def _unstarted_rows(table: pl.DataFrame, events: eventrows.PeriodEvents | None) -> list[pl.DataFrame]:
    """The partition's rows of events started before the run (``NOTE``), which their warning needs."""
    if events is None or events.unstarted is None or not events.unstarted.height:
        return []
    noted = table.filter(pl.col(c.EVENT_ID).is_in(events.unstarted[c.EVENT_ID].implode()))
    return [
        noted.select(
            pl.col(s.ROW_KEY).alias("n_row_key"),
            *(pl.col(name).alias("n" + name) for name in (c.EVENT_ID, c.WHITE_RATING, c.BLACK_RATING, s.ONE_SIDED)),
            pl.lit(NOTE, pl.Int8).alias(w.MAP_KIND),
        )
    ]


def _float_terms(floats: sums_kernel.FloatTerms, table: pl.DataFrame, boundaries: pl.Series) -> pl.DataFrame:
    """The partition's floating-point terms (0 terms left out: adding 0.0 changes no sum), each with its
    place in the fixed order: the block of the period table its row is in (the row keys where blocks
    start are ``boundaries``), the side, the row's key."""
    keys = table[s.ROW_KEY]
    block = boundaries.search_sorted(keys, side="right").cast(pl.Int64)
    parts = []
    for side in (0, 1):
        values = {"f" + name: terms[side] for name, terms in floats.values.items()}
        part = pl.DataFrame(
            {"f" + w.IDX: floats.index[side].astype(np.int64), "f_block": block, "f_row_key": keys, **values}
        ).with_columns(pl.lit(side, pl.Int8).alias("f_side"))
        parts.append(part.filter(pl.any_horizontal(pl.col(list(values)) != 0)))
    return pl.concat(parts).with_columns(pl.lit(FLOAT, pl.Int8).alias(w.MAP_KIND))


def map_schema(rules: RuleSet) -> dict[str, pl.DataType]:
    """Columns of the map's output: the kind of each row, then each kind's columns under its prefix."""
    exact, floating = sums_kernel.exact_sums(rules), sums_kernel.float_sums(rules)
    dev = pl.Int64() if rules.table_expected else pl.Float64()
    return {
        w.MAP_KIND: pl.Int8(),
        "s" + w.IDX: pl.Int64(),
        **{"s" + name: pl.Int64() for name in exact},
        **{"p" + name: dtype for name, dtype in sums_kernel.pending_schema(rules).items()},
        **({"g" + w.IDX: pl.Int64(), "g" + w.DEV: dev, "g" + w.COUNT: pl.Int64()} if rules.rounds_each_game else {}),
        **dict.fromkeys(META_COLUMNS, pl.Int64()),
        "c_code": pl.Int64(),
        "c_count": pl.Int64(),
        **(
            {"f" + w.IDX: pl.Int64(), "f_block": pl.Int64(), "f_side": pl.Int8(), "f_row_key": pl.Int64()}
            if floating
            else {}
        ),
        **{"f" + name: pl.Float64() for name in floating},
        **_NOTE,
    }


@dataclass(frozen=True)
class Reduced:
    """The reduce's result on the driver: the engine's sums, and what the map counted."""

    sums: sums_kernel.Sums
    rows: int
    two_sided: int
    by_code: dict[int, int]
    waived: int
    noted: pl.DataFrame


def reduce(mapped: DataFrame, rules: RuleSet, players: int) -> Reduced:
    """The reduce: the partitions' rows added by player with Spark's group-by (one job for every kind),
    made into the engine's :class:`~elo_batch.engine.sums.Sums` on the driver
    (:func:`~elo_batch.engine.sums.sums_of`)."""
    game = ["g" + w.IDX, "g" + w.DEV] if rules.rounds_each_game else []
    reduced = _arrow.from_spark(_added(mapped, rules, game=game))
    exact_totals, float_totals = _totals(reduced, rules, players=players)
    pending = reduced.filter(pl.col(w.MAP_KIND) == PENDING).select(
        pl.col("p" + name).cast(dtype).alias(name) for name, dtype in sums_kernel.pending_schema(rules).items()
    )
    meta = reduced.filter(pl.col(w.MAP_KIND) == META).select(pl.col(META_COLUMNS).fill_null(0))
    rows, two_sided, rated_rows, waived = (int(v) for v in meta.row(0)) if meta.height else (0, 0, 0, 0)
    by_game = [_by_game(reduced)] if game else []
    sums = sums_kernel.sums_of(
        exact_totals, float_totals, [pending], by_game=by_game, rated_rows=rated_rows, rules=rules, players=players
    )
    return Reduced(sums, rows, two_sided, _by_code(reduced), waived, _noted(reduced))


def _totals(
    reduced: pl.DataFrame, rules: RuleSet, *, players: int
) -> tuple[dict[str, np.ndarray], dict[str, pl.Series]]:
    """The exact and the floating-point sums of the reduce by dense player index."""
    exact = {
        name: _dense(reduced, SUMS, "s", name=name, players=players, dtype=np.int64)
        for name in sums_kernel.exact_sums(rules)
    }
    floating = {
        name: pl.Series(name, _dense(reduced, FLOAT, "f", name=name, players=players, dtype=np.float64))
        for name in sums_kernel.float_sums(rules)
    }
    return exact, floating


def _by_code(reduced: pl.DataFrame) -> dict[int, int]:
    """The sides the event rules decided, by the rule's code."""
    codes = reduced.filter(pl.col(w.MAP_KIND) == CODES)
    return {int(code): int(count) for code, count in codes.select("c_code", "c_count").iter_rows()}


def _noted(reduced: pl.DataFrame) -> pl.DataFrame:
    """The rows the warning of events started before the run needs, in input order."""
    return (
        reduced.filter(pl.col(w.MAP_KIND) == NOTE)
        .sort("n_row_key")
        .select(pl.col("n" + name).alias(name) for name in (c.EVENT_ID, c.WHITE_RATING, c.BLACK_RATING, s.ONE_SIDED))
    )


def _added(mapped: DataFrame, rules: RuleSet, *, game: list[str]) -> DataFrame:
    """The map's rows added up in Spark: by kind and key (the player's index, the pending side, the rule
    code, the noted row), each player's float terms added one after the other in the engine's order."""
    from pyspark.sql import functions as F

    exact, floating = sums_kernel.exact_sums(rules), sums_kernel.float_sums(rules)
    keys = [w.MAP_KIND, "s" + w.IDX, "p" + w.KEY, *game, "c_code", "n_row_key", *(["f" + w.IDX] if floating else [])]
    added = ["s" + n for n in exact] + list(META_COLUMNS) + ["c_count"] + (["g" + w.COUNT] if game else [])
    carried = ["p" + n for n in sums_kernel.pending_schema(rules) if n != w.KEY] + [
        n for n in _NOTE if n != "n_row_key"
    ]
    terms = F.struct(*_FLOAT_PLACE, *["f" + n for n in floating])
    ordered = (
        [F.array_sort(F.collect_list(F.when(F.col(w.MAP_KIND) == FLOAT, terms))).alias(w.TERMS)] if floating else []
    )
    whole = mapped.groupBy(*keys).agg(
        *[F.sum(name).alias(name) for name in added], *[F.first(name).alias(name) for name in carried], *ordered
    )
    if not floating:
        return whole
    return whole.select(  # each player's terms added one after the other, in the engine's order (IEEE doubles)
        *[name for name in whole.columns if name != w.TERMS],
        *[F.aggregate(w.TERMS, F.lit(0.0).cast("double"), _adder("f" + n)).alias("f" + n) for n in floating],
    )


def _by_game(reduced: pl.DataFrame) -> pl.DataFrame:
    """The rated sides counted by score - PD (rounding by game), as the engine's sums take them."""
    return reduced.filter(pl.col(w.MAP_KIND) == BY_GAME).select(
        pl.col("g" + w.IDX).cast(s.INDEX_TYPE).alias(w.IDX),
        pl.col("g" + w.DEV).alias(w.DEV),
        pl.col("g" + w.COUNT).cast(pl.UInt32).alias(w.COUNT),
    )


def _adder(name: str) -> Callable[[Column, Column], Column]:
    """The merge of Spark's ``aggregate``: the running sum plus the term's field ``name``."""
    return lambda total, term: total + term[name]


def _dense(reduced: pl.DataFrame, kind: int, prefix: str, *, name: str, players: int, dtype: type) -> np.ndarray:
    """A sum of the reduce by dense player index (0 for players without one)."""
    rows = reduced.filter(pl.col(w.MAP_KIND) == kind)
    dense: np.ndarray = np.zeros(players, dtype)
    dense[rows[prefix + w.IDX].to_numpy()] = rows[prefix + name].to_numpy()
    return dense


@dataclass(frozen=True)
class Auditor:
    """The audit of a period: one partition's rows, with the finalized K shipped in."""

    context: Context
    output: pa.Schema

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        rows = self.context.rows(batches)
        if rows is not None:
            yield from _arrow.to_batches(audit_of(rows, self.context), self.output)


def audit_of(rows: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    """The audit of rows of the period (in input order), with ``__order`` (2 x row_key + side) to sort by."""
    table = ctx.table(rows)
    shipped = ctx.shipped
    chunk = Chunk(0, table)
    sides = rate_chunk(chunk, shipped.series("list_rating"), ctx.rules)
    finished = Finished(
        shipped.series("k_used"), pl.DataFrame(), Flags(shipped.series("ignored"), shipped.series("published")), 0
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
        table.select(pl.concat_list(key, pl.when(~pl.col(s.ONE_SIDED)).then(key + 1)).alias(w.ORDER))
        .explode(w.ORDER)
        .drop_nulls()
    )
    return audited.with_columns(order[w.ORDER])


def frames_of(events: eventrows.PeriodEvents | None) -> Mapping[str, pl.DataFrame | pl.Series | None]:
    """A period's event facts as the frames :class:`Context` ships (see :meth:`Context.events`)."""
    if events is None:
        return {}
    return {
        "ev_events": events.events,
        "ev_decided": events.decided,
        "ev_unstarted": events.unstarted,
        **{"start_" + month: ratings for month, ratings in events.start_ratings.items()},
    }
