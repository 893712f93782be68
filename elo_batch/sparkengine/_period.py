"""One period on Spark: the pre-pass group-bys, the kernels in ``mapInArrow``, Spark's reduce, the driver's finalize.

The steps of :func:`elo_batch.engine.period.rate_period`, each where it scales:

1. the list in force on the driver: the floor (:func:`~elo_batch.engine.listinforce.unrate_below_floor`)
   and the rapid and blitz seed (:func:`~elo_batch.engine.listchanges.seed_players`, for the players one
   Spark group-by finds);
2. the pre-pass (:mod:`elo_batch.sparkengine._prepass`): base ratings, the dense index, the event facts, the
   upgrades of the 2022 rule, the blocks of the float order;
3. map and reduce (:mod:`elo_batch.sparkengine._map`): the engine's kernels on each partition (one task per
   partition of the period's rows), Spark's ``groupBy().sum()`` on bigint (exact; an overflow is an error
   under ANSI mode), the float terms added in the engine's fixed order;
4. finalize: :func:`~elo_batch.engine.finish.finalize` on the driver (one row per player: K, the 700
   rule, the one rounding half away from zero, the floor, first ratings). The driver holds the players
   (the list, a few columns per player: about 1 GB for 10 million players), never the games;
5. audit: a second ``mapInArrow`` over the same rows with the finalized K shipped in the closure: the
   engine's :func:`~elo_batch.engine.audit.audit` per partition; to write it, each partition's audit
   (sorted in its task) goes to the driver in turn where the partitions hold ever later rows (no
   shuffle), else Spark sorts it first; the audit Spark frame of the API is Spark's sort.

Every number and every warning is the local engine's: the same kernels, the same order of every
floating-point sum.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl
import pyarrow as pa

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.config import RunConfig
from elo_batch.engine import eventrows, listchanges, sums
from elo_batch.engine import period as local_period
from elo_batch.engine.finish import Finished, finalize
from elo_batch.engine.listinforce import as_list_in_force, unrate_below_floor
from elo_batch.engine.period import RatedPeriod, accounting, one_off_notes
from elo_batch.engine.prepass import Prepared
from elo_batch.errors import InternalError
from elo_batch.rules import bands as band_rules
from elo_batch.rules.bands import Bands
from elo_batch.rules.sets import RuleSet
from elo_batch.sparkengine import _arrow, _map, _prepass
from elo_batch.sparkengine._check import SparkGames

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass(frozen=True)
class SparkPeriod:
    """A period rated on Spark: the local engine's result (ratings and rejected in the driver's memory, the
    audit a LazyFrame read from Spark batch by batch), and the audit as a Spark frame (input order)."""

    result: RatedPeriod
    audit: DataFrame


def rate_periods(
    games: SparkGames, rating_list: pl.DataFrame | None, config: RunConfig, *, bands: Bands | None = None
) -> Iterator[SparkPeriod]:
    """The periods of ``config`` in order on Spark, each from the list the previous one produced (as
    :func:`elo_batch.engine.period.rate_periods`)."""
    current = rating_list
    if current is not None and current[c.PLAYER_ID].dtype == pl.Int64 and games.games.id_type != pl.Int64:
        current = current.with_columns(pl.col(c.PLAYER_ID).cast(pl.String))  # ids as text, as the games give them
    started = local_period.start_months(games.games, config.periods)
    start_lists: dict[str, pl.DataFrame | None] = {}
    for number, period in enumerate(config.periods):
        rules = config.rules_for(period)
        if period in started:  # as the period rates it: a list rating under the floor is no rating (B.02 7.1.2)
            start_lists[period] = unrate_below_floor(current, rules.floor, period)[0]
        done = rate_period(
            games,
            current,
            rules,
            period=period,
            add_players_from_games=rating_list is None,
            reject_undated=number == 0,
            start_lists=start_lists,
            bands=bands,
        )
        yield done
        current = as_list_in_force(done.result.ratings)


def rate_period(
    games: SparkGames,
    rating_list: pl.DataFrame | None,
    rules: RuleSet,
    *,
    period: str,
    add_players_from_games: bool,
    reject_undated: bool,
    start_lists: Mapping[str, pl.DataFrame | None] | None = None,
    bands: Bands | None = None,
) -> SparkPeriod:
    """One period on Spark (see the module's docstring); as :func:`elo_batch.engine.period.rate_period`."""
    rows = games.rows.where(games.rows[c.PERIOD] == period)
    players = _prepass.period_players(
        rows, base=_prepass.needs_base(rating_list, add_players_from_games=add_players_from_games)
    )
    listed = _list_in_force(rating_list, players, rules, period=period)
    prepared = _prepass.prepare(
        players, games, listed.rating_list, period=period, add_players_from_games=add_players_from_games,
        start_lists=start_lists or {},
    )  # fmt: skip
    in_period = games.games.period_rows.get(period, 0)
    frames, context = _shipped(rows, prepared, rules, games=games, period=period, in_period=in_period)
    reduced = _reduced(rows, context, prepared, in_period=in_period)
    bands = bands or band_rules.default_bands()
    finished = finalize(prepared, reduced.sums, rules, period=period, bands=bands)
    rejected, counts = accounting(
        games.games, period, in_period=in_period, counted=finished.counted_rows, reject_undated=reject_undated
    )
    audited = _audit(rows, finished, frames, context=context)
    up, down = finished.ratings.select(band_rules.moves(pl.col(c.RATING_BEFORE), pl.col(c.RATING), bands)).row(0)
    events = games.games.events
    local = RatedPeriod(
        period, rules, finished.ratings, audited.local, in_period + reduced.two_sided, rejected, counts,
        _warnings(listed, prepared, reduced, finished=finished, rules=rules, period=period),
        prepared.ids.slice(prepared.listed.height),
        events.source if events is not None else None, (up, down),
    )  # fmt: skip
    return SparkPeriod(local, audited.spark)


@dataclass(frozen=True)
class _Listed:
    """The list in force of a period, and what its changes say."""

    rating_list: pl.DataFrame | None
    floor_notes: list[str]
    seed_notes: list[str]


def _list_in_force(rating_list: pl.DataFrame | None, players: pl.DataFrame, rules: RuleSet, *, period: str) -> _Listed:
    """The list in force as the period rates it: ratings under the floor unrated (B.02 7.1.2), the rapid and
    blitz seed for the period's players (``players``: :func:`elo_batch.sparkengine._prepass.period_players`)."""
    rating_list, floor_notes = unrate_below_floor(rating_list, rules.floor, period)
    playing = players[w.SIDE_PLAYER].cast(pl.String)
    rating_list, seed_notes = listchanges.seed_players(rating_list, playing, rules)
    return _Listed(rating_list, floor_notes, seed_notes)


def _shipped(
    rows: DataFrame, prepared: Prepared, rules: RuleSet, *, games: SparkGames, period: str, in_period: int
) -> tuple[dict[str, pl.DataFrame | pl.Series | None], _map.Context]:
    """The frames the period's tasks need (the index, the list's ratings, the float order's blocks, the
    event facts; the upgrades chosen under the once-per-event 400-point rule), and the tasks' context."""
    frames: dict[str, pl.DataFrame | pl.Series | None] = {
        "ids": prepared.ids,
        "list_rating": prepared.list_rating,
        "boundaries": _prepass.block_starts(rows, in_period, sums.SUM_ROWS),
        **_map.frames_of(prepared.events),
    }
    context = _context(frames, rules, prepared, games=games, period=period)
    if rules.cap_once_per_event:
        frames["chosen"] = _prepass.chosen_upgrades(rows, context)
        context = _context(frames, rules, prepared, games=games, period=period)
    return frames, context


def _reduced(rows: DataFrame, context: _map.Context, prepared: Prepared, *, in_period: int) -> _map.Reduced:
    """The period's map (the kernels on each partition) and reduce (Spark's sums), checked to have seen
    every row of the period.

    Raises:
        InternalError: the map saw another number of rows than the check counted.
    """
    output = _arrow.spark_schema(_map.map_schema(context.rules))
    with _arrow.job():
        mapped = rows.drop(*_map.UNREAD).mapInArrow(_map.Mapper(context, _arrow.arrow_schema(output)), output)
        reduced = _map.reduce(mapped, context.rules, prepared.players)
    if reduced.rows != in_period:
        raise InternalError(
            f"period {context.period}: the map saw {reduced.rows} rows of the {in_period} counted",
            hint="this is a bug in elo-batch's Spark engine; please report it.",
        )
    return reduced


def _warnings(
    listed: _Listed, prepared: Prepared, reduced: _map.Reduced, *, finished: Finished, rules: RuleSet, period: str
) -> tuple[str, ...]:
    """The period's warnings, in the local engine's order."""
    started = eventrows.start_note(prepared.events, reduced.noted) if prepared.events is not None else []
    return (
        *listed.floor_notes,
        *prepared.warnings,
        *started,
        *listed.seed_notes,
        *one_off_notes(finished.ratings, rules),
        *eventrows.rule_notes(period, reduced.by_code, reduced.waived),
    )


def _context(
    frames: Mapping[str, pl.DataFrame | pl.Series | None],
    rules: RuleSet,
    prepared: Prepared,
    *,
    games: SparkGames,
    period: str,
) -> _map.Context:
    """What the tasks of the period need, with ``frames`` shipped."""
    events = prepared.events
    return _map.Context(
        _map.ship(**frames),
        rules,
        prepared.players,
        games.games.absent,
        dict(games.games.rows.schema),
        period,
        None if events is None else events.by_event,
        tuple(events.start_ratings) if events is not None else (),
    )


@dataclass(frozen=True)
class _Audit:
    spark: DataFrame
    local: pl.LazyFrame


def _audit(
    rows: DataFrame, finished: Finished, frames: Mapping[str, pl.DataFrame | pl.Series | None], *, context: _map.Context
) -> _Audit:
    """The period's audit as a Spark frame in input order, and as a LazyFrame that streams it from Spark."""
    shipped = _map.ship(
        **frames,
        k_used=finished.k_used,
        ignored=finished.flags.ignored,
        published=finished.flags.published,
    )
    auditing = _map.Context(
        shipped, context.rules, context.players, context.absent, context.canonical, context.period,
        context.by_event, context.start_months,
    )  # fmt: skip
    schema = _map.audit_of(pl.DataFrame(schema=context.canonical), auditing).schema
    output = _arrow.spark_schema(schema)
    auditor = _map.Auditor(auditing, _arrow.arrow_schema(output))
    spark = rows.mapInArrow(auditor, output).orderBy(w.ORDER).drop(w.ORDER)
    local_schema = {name: dtype for name, dtype in schema.items() if name != w.ORDER}
    return _Audit(spark, _ordered(rows, spark, schema=local_schema, auditor=auditor))


def _ordered(
    rows: DataFrame, spark: DataFrame, *, schema: Mapping[str, pl.DataType], auditor: _map.Auditor
) -> pl.LazyFrame:
    """The audit streamed to the driver in input order: where the rows' partitions hold ever later rows
    (one file, or a frame, read in order), each partition's audit in turn (the auditor sorts its rows),
    without a shuffle; else ``spark``, Spark's sort of the whole audit. Decided each time it is read."""

    def batches() -> Iterator[pa.RecordBatch]:
        if _arrow.partitions_in_order(rows, "row_key"):
            return _arrow.driver_batches(rows, auditor)
        return _arrow.driver_batches(spark)

    return _arrow.streamed(batches, schema)
