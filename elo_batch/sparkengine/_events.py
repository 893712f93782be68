"""The run's events on Spark: the engine's event map as Spark group-bys, its reduce on the driver.

As :func:`elo_batch.engine.events.settle`, in the three steps the engine cuts it into: the plan of the
events' attributes on the driver (:func:`~elo_batch.engine.events.plan_events`: from the events file and
the attributes the game rows give, collected with the check), the map over every row
(:func:`~elo_batch.engine.events.event_groups`: the rows counted by event, period and day by a Spark
group-by, made counts and dates by event, period and month by the engine's
:func:`~elo_batch.engine.events.by_month` on the driver; the rows of matches, of refused events and the
refused rows, which :func:`~elo_batch.engine.events.picked_rows` names, collected), and the reduce on the
driver (:func:`~elo_batch.engine.events.reduce_events`). Then one more ``mapInArrow`` over the rows, only
where it changes them, removes the rows refused and (by event) moves each row to its event's period
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

_GROUP_COLUMNS = {c.EVENT_ID: pl.String(), c.PERIOD: pl.String(), w.MONTH: pl.String(), w.ROWS: pl.Int64(),
                  w.FIRST_DATE: pl.Date(), w.LAST_DATE: pl.Date()}  # fmt: skip


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
    """The event map over every row: its counts by event, period and day by a Spark group-by (integers
    added: no row goes to Python), made the groups on the driver (:func:`~elo_batch.engine.events.by_month`);
    the rows the plan needs whole (of matches and of refused events, refused rows: a broadcast semi-join),
    collected in input order."""
    from pyspark.sql import functions as F

    rows = games.rows
    days = rows.groupBy(c.EVENT_ID, c.PERIOD, c.DATE).agg(F.count(F.lit(1)).alias(w.ROWS))
    counted = _arrow.from_spark(days, {c.EVENT_ID: pl.String(), c.PERIOD: pl.String(), c.DATE: pl.Date(),
                                       w.ROWS: pl.Int64()})  # fmt: skip
    groups = (
        ev.by_month(counted.lazy()).collect().select(pl.col(name).cast(dtype) for name, dtype in _GROUP_COLUMNS.items())
    )
    wanted = ev.picked_rows(plan)
    if wanted is None:
        return groups, pl.DataFrame(schema={name: canonical[name] for name in ev.MATCH_ROWS})
    events, keys = wanted
    spark = rows.sparkSession
    of_events = spark.createDataFrame(
        _arrow.to_arrow(events.unique().to_frame(c.EVENT_ID), _key_schema(c.EVENT_ID, pa.string()))
    )
    of_keys = spark.createDataFrame(
        _arrow.to_arrow(keys.unique().to_frame("row_key"), _key_schema("row_key", pa.int64()))
    )
    picked = rows.join(F.broadcast(of_events), c.EVENT_ID, "left_semi").unionByName(
        rows.join(F.broadcast(of_keys), "row_key", "left_semi")
    )
    found = _arrow.from_spark(picked.select(*ev.MATCH_ROWS), {name: canonical[name] for name in ev.MATCH_ROWS})
    return groups, found.unique("row_key").sort("row_key")


def _key_schema(name: str, dtype: pa.DataType) -> pa.Schema:
    return pa.schema([(name, dtype)])


def _placed(
    rows: DataFrame, refused: pl.DataFrame, facts: ev.EventFacts, *, by_event: bool, canonical: dict[str, pl.DataType]
) -> DataFrame:
    """The rows without those refused, each (``by_event``) in its event's period: one more ``mapInArrow``,
    cached like the checked rows."""
    from pyspark import StorageLevel

    shipped = _arrow.Shipped.of(refused=refused["row_key"], events=facts.events)
    placer = _Placer(shipped, by_event, canonical, _arrow.arrow_schema(rows.schema))
    return rows.mapInArrow(placer, rows.schema).persist(StorageLevel.MEMORY_AND_DISK)
