"""The run's events on Spark: the engine's event map in ``mapInArrow``, its reduce on the driver.

As :func:`elo_batch.engine.events.settle`, in the three steps the engine cuts it into: the plan of the
events' attributes on the driver (:func:`~elo_batch.engine.events.plan_events`: from the events file and
the attributes the game rows give, collected with the check), the map on each partition
(:func:`~elo_batch.engine.events.event_groups`: counts and dates by event, period and month, added up by a
Spark group-by; the rows of matches and of refused events, collected), and the reduce on the driver
(:func:`~elo_batch.engine.events.reduce_events`). Then one more ``mapInArrow`` over the rows, only where it
changes them, removes the rows refused and (by event) moves each row to its event's period
(:func:`~elo_batch.engine.events.row_period`); its result is cached like the checked rows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl
import pyarrow as pa

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.choices import PeriodBy
from elo_batch.config import events_decide_periods
from elo_batch.contract.tables import InputFile
from elo_batch.engine import events as ev
from elo_batch.sparkengine import _arrow
from elo_batch.sparkengine._check import SparkGames

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

_GROUPS, _PICKED = 0, 1
_GROUP_COLUMNS = {c.EVENT_ID: pl.String(), c.PERIOD: pl.String(), w.MONTH: pl.String(), w.ROWS: pl.Int64(),
                  w.FIRST_DATE: pl.Date(), w.LAST_DATE: pl.Date()}  # fmt: skip


@dataclass(frozen=True)
class _Grouper:
    """The event map of one partition: its groups and its picked rows, as rows of one frame."""

    plan: ev.EventPlan
    canonical: dict[str, pl.DataType]
    output: pa.Schema

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        frame = _arrow.from_batches(batches)
        if frame is None:
            return
        rows = frame.cast(self.canonical).sort("row_key")  # type: ignore[arg-type]
        groups, picked = pl.collect_all(list(ev.event_groups(rows.lazy(), self.plan)), engine="in-memory")
        both = pl.concat(
            [
                groups.with_columns(pl.lit(_GROUPS, pl.Int8).alias(w.MAP_KIND)),
                picked.select(pl.all().name.prefix("r"), pl.lit(_PICKED, pl.Int8).alias(w.MAP_KIND)),
            ],
            how="diagonal_relaxed",
        )
        yield from _arrow.to_batches(both, self.output)


@dataclass(frozen=True)
class _Placer:
    """Rows of a partition without the refused rows, each (by event) in its event's period."""

    shipped: _arrow.Shipped
    by_event: bool
    canonical: dict[str, pl.DataType]
    output: pa.Schema

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        frame = _arrow.from_batches(batches)
        if frame is None:
            return
        rows = frame.cast(self.canonical)  # type: ignore[arg-type]
        refused = self.shipped.series("refused")
        if refused.len():
            rows = rows.filter(~pl.col("row_key").is_in(refused.implode()))
        if self.by_event:
            rows = rows.with_columns(ev.row_period(self.shipped.frame("events")))
        yield from _arrow.to_batches(rows, self.output)


def settle(
    games: SparkGames, table: pl.DataFrame | None, period_by: PeriodBy, *, source: InputFile | None = None
) -> SparkGames:
    """The games with their event facts, as :func:`elo_batch.engine.events.settle` gives them.

    Args:
        games: The checked games (:func:`elo_batch.sparkengine._check.check_games` or the file check).
        table: The events file (:data:`elo_batch.inputs.eventsfile.EVENTS_SCHEMA`), or None.
        period_by: ``date`` or ``event``.
        source: What was read for ``table``, for the manifest.
    """
    local = games.games
    canonical = dict(local.rows.schema)
    plan = ev.plan_events(table, local.event_rows, period_by)
    groups, picked = _mapped(games, plan, canonical)
    facts, refused = ev.reduce_events(plan, groups, picked, source=source)
    by_event = bool(events_decide_periods(period_by) and facts.events[c.PERIOD].is_not_null().any())
    rows, cached = games.rows, list(games.cached)
    if refused.height or by_event:
        rows = _placed(games.rows, refused, facts, by_event=by_event, canonical=canonical)
        cached.append(rows)
    period_rows = dict(facts.groups.group_by(c.PERIOD).agg(pl.col(w.ROWS).sum()).drop_nulls(c.PERIOD).iter_rows())
    rejected = local.rejected
    if refused.height:
        rejected = pl.concat([rejected, refused.drop("row_key")]).sort(c.SOURCE_FILE, c.SOURCE_ROW, maintain_order=True)
    settled = dataclasses.replace(local, rejected=rejected, period_rows=period_rows, events=facts)
    return SparkGames(rows, settled, tuple(cached))


def _mapped(
    games: SparkGames, plan: ev.EventPlan, canonical: dict[str, pl.DataType]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The event map on every partition, added up by a Spark group-by: the groups (counts and dates by
    event, period and month) and the picked rows (of matches and of refused events), on the driver."""
    from pyspark.sql import functions as F

    schema = {**_GROUP_COLUMNS, **{"r" + name: dtype for name, dtype in canonical.items()}, w.MAP_KIND: pl.Int8()}
    output = _arrow.spark_schema(schema)
    mapped = games.rows.mapInArrow(_Grouper(plan, canonical, _arrow.arrow_schema(output)), output)
    keys = [w.MAP_KIND, c.EVENT_ID, c.PERIOD, w.MONTH, "rrow_key"]
    reduced = mapped.groupBy(*keys).agg(
        F.sum(w.ROWS).alias(w.ROWS), F.min(w.FIRST_DATE).alias(w.FIRST_DATE), F.max(w.LAST_DATE).alias(w.LAST_DATE),
        *[F.first("r" + name).alias("r" + name) for name in canonical if name != "row_key"],
    )  # fmt: skip
    both = _arrow.from_spark(reduced)
    groups = both.filter(pl.col(w.MAP_KIND) == _GROUPS).select(
        pl.col(name).cast(dtype) for name, dtype in _GROUP_COLUMNS.items()
    )
    picked = (
        both.filter(pl.col(w.MAP_KIND) == _PICKED)
        .select(pl.col("r" + name).cast(canonical[name]).alias(name) for name in ev.MATCH_ROWS)
        .sort("row_key")
    )
    return groups, picked


def _placed(
    rows: DataFrame, refused: pl.DataFrame, facts: ev.EventFacts, *, by_event: bool, canonical: dict[str, pl.DataType]
) -> DataFrame:
    """The rows without those refused, each (``by_event``) in its event's period: one more ``mapInArrow``,
    cached like the checked rows."""
    from pyspark import StorageLevel

    shipped = _arrow.Shipped.of(refused=refused["row_key"], events=facts.events)
    placer = _Placer(shipped, by_event, canonical, _arrow.arrow_schema(rows.schema))
    return rows.mapInArrow(placer, rows.schema).persist(StorageLevel.MEMORY_AND_DISK)
