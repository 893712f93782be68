"""The run's events, worked out once before any period: attributes, first and last day, rated period, matches.

An event is the game rows that share an ``event_id``, in every input file and every period. Its
attributes come from the events file, else from its rows (``event_type``, ``match_games``,
``rate_all_games``, ``event_start``, ``event_end``; by event also ``period``); its first and last day
default to its games' dates. Rows that contradict their event are rejected here, with the reason,
before any period is rated:

- a row whose attribute (by event: whose ``period``) differs from the events file's;
- every row of an event whose rows give two values of an attribute that the events file does not give;
- every row of a match whose games have more than two players.

With ``period_by="event"`` every row of an event moves to the event's period: its own, else the period
of its last day by the closing-date rule (B.02 7.1.3). Matches (B.02 6.2): the games of a fixed-length
match after it was decided (ordered by round, then date, then input order) are found here.

Three steps, so that an engine reads the rows once, in parts: :func:`plan_events` (the attributes, small),
:func:`event_groups` (the map: counts and dates per event, period and month of play, and the rows of
matches, from any run of canonical rows; the results of runs concatenate) and :func:`reduce_events`
(the reduce, on those small frames); :func:`row_period` is then each row's period. :func:`settle` is
the local engine's whole pass. Nothing here depends on a period's list; what does (B.02 6.1, 8.2.4, the
list at an event's start) is in :mod:`elo_batch.engine.eventrows`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Final

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.choices import PeriodBy
from elo_batch.config import events_decide_periods
from elo_batch.contract.schemas import CANONICAL_SCHEMA, EVENT_ATTRIBUTE_TYPES
from elo_batch.contract.tables import GamesInput, InputFile
from elo_batch.engine.eventchecks import collected, crowded_matches, event_attributes, first_reasons, rejected_rows
from elo_batch.rules.events import CLOSING_DAYS

#: How an event's period was decided (``events[w.SOURCE]``): by its games' dates (as without
#: events), by the closing-date rule, or given (events file or game rows).
BY_DATE, BY_CLOSING_DATE, GIVEN = 0, 1, 2
#: The columns of a match's rows that the rules need (and the rejected rows' record).
MATCH_ROWS: Final = tuple(CANONICAL_SCHEMA)


@dataclass(frozen=True)
class EventFacts:
    """What the run knows about its events, for every period.

    Attributes:
        period_by: ``date`` or ``event``.
        events: One row per event of the games: ``event_id``, the attributes (defaults filled: first
            and last game date), ``period`` (by event: the event's; null by date), ``__source`` and
            ``__start_period`` (the month of its first day).
        groups: Rows kept, by ``event_id`` (null: no event), ``period`` (where rated) and ``__month``
            (of their date): ``__rows``.
        decided: Rows of fixed-length matches played after the match was decided (B.02 6.2):
            ``row_key``, ``__waived``.
        match_rows: Every kept row of a match (canonical columns, ``period`` where rated).
        notes: Warnings about the events as a whole.
        source: The events file, or None.
    """

    period_by: PeriodBy
    events: pl.DataFrame
    groups: pl.DataFrame
    decided: pl.DataFrame
    match_rows: pl.DataFrame
    notes: tuple[str, ...] = ()
    source: InputFile | None = None

    @property
    def by_event(self) -> bool:
        """Events decide the periods (``period_by="event"``)."""
        return events_decide_periods(self.period_by)


@dataclass(frozen=True)
class EventPlan:
    """The events as their attributes give them, before any row is read: what the map must pick.

    Attributes:
        period_by: ``date`` or ``event``.
        attributes: One row per event named by the events file or a row's attributes: ``event_id``
            and the attributes (by event also ``period``), null where none is given.
        refused_rows: Rows refused one by one (``row_key``, ``column``, ``value``, ``reason``).
        refused_events: Events refused whole (``event_id``, ``column``, ``value``, ``reason``).
        notes: Warnings about the attributes.
    """

    period_by: PeriodBy
    attributes: pl.DataFrame
    refused_rows: pl.DataFrame
    refused_events: pl.DataFrame
    notes: tuple[str, ...] = ()

    @property
    def by_event(self) -> bool:
        """Events decide the periods (``period_by="event"``)."""
        return events_decide_periods(self.period_by)

    @property
    def matches(self) -> pl.Series:
        """The events that are matches."""
        return self.attributes.filter(pl.col(c.EVENT_TYPE) == c.MATCH)[c.EVENT_ID]


def plan_events(table: pl.DataFrame | None, event_rows: pl.DataFrame | None, period_by: PeriodBy) -> EventPlan:
    """The events' attributes: the events file's, else the one value their rows give.

    Args:
        table: The events file (:data:`elo_batch.inputs.eventsfile.EVENTS_SCHEMA`), or None.
        event_rows: The attributes given on game rows (``GamesInput.event_rows``), or None.
        period_by: ``date`` or ``event`` (then a row's ``period`` is an attribute of its event).
    """
    by_event = events_decide_periods(period_by)
    attributes, refused_rows, refused_events = event_attributes(table, event_rows, by_event)
    notes = []
    if not by_event and table is not None and table[c.PERIOD].is_not_null().any():
        notes.append(
            "the events file gives events a period: it is used only when events decide the periods "
            "(period_by 'event'); by date, each game's own period, else its date, decides its month"
        )
    return EventPlan(period_by, attributes, refused_rows, refused_events, tuple(notes))


def event_groups(rows: pl.LazyFrame, plan: EventPlan) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The map: counts and dates of a run of canonical rows by event, period and month, and the rows of
    the events ``plan`` needs whole (matches, events refused) or rows it refuses. The results of several
    runs of rows, concatenated, are those of all of them (:func:`reduce_events` adds them up).

    Args:
        rows: Canonical rows (``CANONICAL_SCHEMA``), any run of them.
        plan: The events' attributes (:func:`plan_events`).

    Returns:
        ``event_id``, ``period``, ``__month``, ``__rows``, ``__first``, ``__last``; and the picked rows.
    """
    groups = by_month(by_day(rows))
    wanted = picked_rows(plan)
    if wanted is None:  # no event needs its rows: none are read for it
        return groups, rows.select(MATCH_ROWS).head(0)
    events, keys = wanted
    return groups, rows.filter(
        pl.col(c.EVENT_ID).is_in(events.implode()) | pl.col("row_key").is_in(keys.implode())
    ).select(MATCH_ROWS)


def by_day(rows: pl.LazyFrame) -> pl.LazyFrame:
    """The map's counts: ``__rows``, the rows by ``event_id``, ``period`` and ``date`` (counts of several
    runs of rows, concatenated, are :func:`by_month`'s of all of them)."""
    return rows.group_by(c.EVENT_ID, c.PERIOD, c.DATE).agg(pl.len().cast(pl.Int64).alias(w.ROWS))


def by_month(days: pl.LazyFrame) -> pl.LazyFrame:
    """The map's groups from its counts by day (:func:`by_day`; the month's text is made once per event
    and day, not once per row): ``event_id``, ``period``, ``__month``, ``__rows``, ``__first``, ``__last``."""
    return days.group_by(c.EVENT_ID, c.PERIOD, pl.col(c.DATE).dt.strftime("%Y-%m").alias(w.MONTH)).agg(
        pl.col(w.ROWS).sum(), pl.col(c.DATE).min().alias(w.FIRST_DATE), pl.col(c.DATE).max().alias(w.LAST_DATE)
    )


def picked_rows(plan: EventPlan) -> tuple[pl.Series, pl.Series] | None:
    """The rows the reduce needs whole: those of the events (``event_id``: matches, events refused) and
    those of the row keys (rows refused) given; None when it needs none."""
    events = pl.concat([plan.matches, plan.refused_events[c.EVENT_ID]])
    if events.len() == 0 and plan.refused_rows.height == 0:
        return None
    return events, plan.refused_rows["row_key"]


def reduce_events(
    plan: EventPlan, groups: pl.DataFrame, picked: pl.DataFrame, *, source: InputFile | None = None
) -> tuple[EventFacts, pl.DataFrame]:
    """The reduce: the run's event facts from the map's results.

    Args:
        plan: The events' attributes (:func:`plan_events`).
        groups, picked: The map's results (:func:`event_groups`), of all rows (concatenated).
        source: The events file read, for the manifest.

    Returns:
        The facts, and the rows rejected (``REJECTED_SCHEMA``, with ``row_key`` first), by row key.

    References:
        FIDE Rating Regulations (B.02, 2024) 6.2 (matches), 7.1.3 (closing date); ``fide-rules.md``
        sections 5 and 7.
    """
    match_rows = picked.lazy().filter(pl.col(c.EVENT_ID).is_in(plan.matches.implode()))
    events, refused = _refusals(plan, groups, picked, match_rows=match_rows)
    placed = row_period(events)  # rows in their event's period (by event)
    refused_rows = refused.lazy().with_columns(placed)
    removed = refused_rows.group_by(c.EVENT_ID, c.PERIOD, pl.col(c.DATE).dt.strftime("%Y-%m").alias(w.MONTH)).agg(
        (-pl.len().cast(pl.Int64)).alias(w.ROWS)
    )
    final = (
        pl.concat([groups.lazy().with_columns(placed).select(c.EVENT_ID, c.PERIOD, w.MONTH, w.ROWS), removed])
        .group_by(c.EVENT_ID, c.PERIOD, w.MONTH)
        .agg(pl.col(w.ROWS).sum())
        .filter(pl.col(w.ROWS) > 0)
        .sort(c.PERIOD, w.MONTH, c.EVENT_ID, nulls_last=True)
    )
    match_rows = match_rows.filter(~pl.col("row_key").is_in(refused["row_key"].implode())).with_columns(placed)
    final_groups, kept_matches, decided, rejected = collected(
        [final, match_rows, _decided(match_rows, events.lazy()), rejected_rows(refused_rows)],
        none=[False, not picked.height, not picked.height, not refused.height],
    )
    notes = (*plan.notes, *_unscheduled_matches(events, kept_matches))
    facts = EventFacts(plan.period_by, events, final_groups, decided, kept_matches, notes, source)
    return facts, rejected


def _refusals(
    plan: EventPlan, groups: pl.DataFrame, picked: pl.DataFrame, *, match_rows: pl.LazyFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The events of the rows kept (:func:`_events`) and the rows refused, each with its first reason
    (the plan's, and every row of a match of more than two players), by ``row_key``; one query."""
    refused_events = pl.concat([plan.refused_events.lazy(), crowded_matches(match_rows)])
    refused = first_reasons(picked.lazy(), plan.refused_rows.lazy(), refused_events)
    kept = (
        groups.lazy()
        .filter(pl.col(c.EVENT_ID).is_not_null())
        .join(refused_events.select(c.EVENT_ID).unique(), on=c.EVENT_ID, how="anti")
    )
    no_events = groups[c.EVENT_ID].null_count() == groups.height
    events, refused_rows = collected(
        [_events(kept, plan.attributes.lazy(), plan.by_event), refused], none=[no_events, not picked.height]
    )
    return events, refused_rows


def row_period(events: pl.DataFrame) -> pl.Expr:
    """A row's ``period`` where it is rated: its event's (by event; ``events`` of :class:`EventFacts`),
    else its own."""
    known = events.filter(pl.col(c.PERIOD).is_not_null())
    if not known.height:
        return pl.col(c.PERIOD)
    event_period = pl.col(c.EVENT_ID).replace_strict(
        known[c.EVENT_ID], known[c.PERIOD], default=None, return_dtype=pl.String
    )
    return pl.coalesce(event_period, c.PERIOD).alias(c.PERIOD)


def settle(
    games: GamesInput, table: pl.DataFrame | None, period_by: PeriodBy, *, source: InputFile | None = None
) -> GamesInput:
    """The games with their event facts (``GamesInput.events``), by the local engine: the map over all
    rows at once, then the reduce.

    Args:
        games: The checked game rows (``event_rows``: the attributes their rows give).
        table: The events file (:data:`elo_batch.inputs.eventsfile.EVENTS_SCHEMA`), or None.
        period_by: ``date`` (a row's period, else its date, decides its month) or ``event``.
        source: What was read for ``table``, for the manifest.

    Returns:
        The games: ``rows`` without the rejected rows (by event: each row's ``period`` the event's),
        ``rejected`` with them, ``period_rows`` recounted, ``events`` set.
    """
    plan = plan_events(table, games.event_rows, period_by)
    groups, picked = pl.collect_all(list(event_groups(games.rows.lazy(), plan)), engine="streaming")
    facts, refused = reduce_events(plan, groups, picked, source=source)
    rows = games.rows
    if refused.height:
        rows = rows.filter(~pl.col("row_key").is_in(refused["row_key"].implode()))
    if facts.by_event:
        rows = rows.with_columns(row_period(facts.events))
    period_rows = dict(facts.groups.group_by(c.PERIOD).agg(pl.col(w.ROWS).sum()).drop_nulls(c.PERIOD).iter_rows())
    rejected = games.rejected
    if refused.height:
        rejected = pl.concat([rejected, refused.drop("row_key")]).sort(c.SOURCE_FILE, c.SOURCE_ROW, maintain_order=True)
    return dataclasses.replace(
        games,
        rows=rows,
        rejected=rejected,
        period_rows=period_rows,
        events=facts,  # type: ignore[arg-type]
    )


def closing_period(end: pl.Expr) -> pl.Expr:
    """The period (month of play) whose list an event ending on ``end`` goes on: the first list whose
    closing date, :data:`~elo_batch.rules.events.CLOSING_DAYS` days before the list's date, is on or
    after ``end`` (B.02 7.1.3).

    >>> days = pl.Series(["2022-01-29", "2022-01-30", "2021-12-31", "2025-11-28"]).str.to_date()
    >>> pl.select(closing_period(pl.lit(days))).to_series().to_list()
    ['2022-01', '2022-02', '2022-01', '2025-11']
    """
    return (end + pl.duration(days=CLOSING_DAYS - 1)).dt.strftime("%Y-%m")


def _events(groups: pl.LazyFrame, attributes: pl.LazyFrame, by_event: bool) -> pl.LazyFrame:
    """One row per event with rows: attributes with defaults, the period where it is rated (by event)."""
    dates = groups.group_by(c.EVENT_ID).agg(pl.col(w.FIRST_DATE).min(), pl.col(w.LAST_DATE).max())
    events = dates.join(attributes, on=c.EVENT_ID, how="left").with_columns(
        pl.coalesce(c.EVENT_TYPE, pl.lit(c.TOURNAMENT)).alias(c.EVENT_TYPE),
        pl.coalesce(c.EVENT_START, w.FIRST_DATE).alias(c.EVENT_START),
        pl.coalesce(c.EVENT_END, w.LAST_DATE).alias(c.EVENT_END),
    )
    if by_event:
        given = pl.col(c.PERIOD).is_not_null()
        closing = closing_period(pl.col(c.EVENT_END))
        events = events.with_columns(
            pl.coalesce(c.PERIOD, closing).alias(c.PERIOD),
            pl.when(given).then(GIVEN).when(closing.is_not_null()).then(BY_CLOSING_DATE).otherwise(BY_DATE)
            .cast(pl.UInt8).alias(w.SOURCE),
        )  # fmt: skip
    else:
        events = events.with_columns(pl.lit(None, pl.String).alias(c.PERIOD), pl.lit(BY_DATE, pl.UInt8).alias(w.SOURCE))
    return events.select(
        c.EVENT_ID,
        *EVENT_ATTRIBUTE_TYPES,
        c.PERIOD,
        w.SOURCE,
        pl.col(c.EVENT_START).dt.strftime("%Y-%m").alias(w.START_PERIOD),
    ).sort(c.EVENT_ID)


def _decided(match_rows: pl.LazyFrame, events: pl.LazyFrame) -> pl.LazyFrame:
    """The games of fixed-length matches played after the match was decided (B.02 6.2).

    A match of N scheduled games is decided after the game that gives one player more than N/2 points
    (the other can no longer draw level); forfeits count in the score, repeated rows do not. Games are
    ordered by round (as a number where it is one), then date, then input order.
    """
    scheduled = events.filter(pl.col(c.MATCH_GAMES).is_not_null()).select(c.EVENT_ID, c.MATCH_GAMES, c.RATE_ALL_GAMES)
    played = match_rows.filter(~pl.col("duplicate")).join(scheduled, on=c.EVENT_ID, how="inner")
    first = pl.min_horizontal(pl.col(c.WHITE_ID).cast(pl.String), pl.col(c.BLACK_ID).cast(pl.String))
    ordered = played.with_columns(first.min().over(c.EVENT_ID).alias(w.MATCH_PLAYER_A)).sort(
        c.EVENT_ID, pl.col(c.ROUND).cast(pl.Float64, strict=False), c.ROUND, c.DATE, "row_key", nulls_last=True
    )
    a_is_white = pl.col(c.WHITE_ID).cast(pl.String) == pl.col(w.MATCH_PLAYER_A)
    score_a = pl.when(a_is_white).then(pl.col("score100")).otherwise(100 - pl.col("score100")).cast(pl.Int64)
    half = 50 * pl.col(c.MATCH_GAMES)  # N/2 points, in hundredths
    a = score_a.cum_sum().over(c.EVENT_ID)
    b = (100 * pl.int_range(1, pl.len() + 1).over(c.EVENT_ID)) - a
    decided = ((a > half) | (b > half)).cast(pl.Int64)
    earlier = (decided.cum_sum().over(c.EVENT_ID) - decided) > 0
    return (
        ordered.filter(earlier)
        .select("row_key", pl.col(c.RATE_ALL_GAMES).fill_null(False).alias(w.WAIVED))
        .sort("row_key")
    )


def _unscheduled_matches(events: pl.DataFrame, match_rows: pl.DataFrame) -> list[str]:
    without = events.filter(
        (pl.col(c.EVENT_TYPE) == c.MATCH)
        & pl.col(c.MATCH_GAMES).is_null()
        & pl.col(c.EVENT_ID).is_in(match_rows[c.EVENT_ID].implode())
    )[c.EVENT_ID]
    if not without.len():
        return []
    named = ", ".join(repr(event) for event in without.head(5)) + (", ..." if without.len() > 5 else "")
    return [
        f"{without.len()} match(es) without match_games ({named}): B.02 6.2 (the games played after a "
        "fixed-length match was decided are not rated) is not applied to them. Hint: give the games "
        "scheduled in each match (match_games)."
    ]
