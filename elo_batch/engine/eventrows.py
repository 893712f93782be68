"""A period's event facts as columns of its table: the list at an event's start, B.02 6.1, 6.2 and 8.2.4.

The pre-pass (:func:`elo_batch.engine.prepass.prepare`) calls :func:`period_events` once per period:
small frames that every chunk may be handed (the period's events with their rule, the games played
after a match was decided, the ratings of the lists at the events' start by player index). Then
:func:`event_columns` turns a run of the period table's rows into the columns
:data:`~elo_batch.engine.schema.EVENT_TABLE` (and fills the ratings of the event's start into the game
rows' rating columns): it reads nothing but those rows and the small frames, so an engine may call it
chunk by chunk, and the map (:mod:`elo_batch.engine.sides`) then needs nothing of other chunks.

What the columns mean:

- ``white_rating``, ``black_rating``: the ratings of the list in force at the event's start, the game
  row's, else (by event, for an event that started in an earlier month of a range) the run's own list
  of that month; a rating of 0 is no rating;
- ``__w_late``, ``__b_late`` (by event only): the player had no rating at the event's start while the
  other side had one (an empty or 0 game-row rating, or no rating on the run's list of that month):
  B.02 8.2.4, rated for himself (with the rating he has now), unrated in his opponents' calculation;
- ``__event_rule``: a match with a player unrated at its start (6.1: no game of it is rated), a game
  played after its fixed-length match was decided (6.2: not rated, unless ``rate_all_games``), ratings
  from the list at the event's start, a row moved to a later period by the closing date (7.1.3) or by
  the event's own period.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.engine import events as ev
from elo_batch.engine import schema as s
from elo_batch.rules.events import CLOSING_DAYS, LONG_EVENT_DAYS, REPORT_DAYS

#: Examples a warning names.
EXAMPLES = 5


@dataclass(frozen=True)
class PeriodEvents:
    """The event facts of one period (small frames, the same for every chunk).

    Attributes:
        period: Month of play, ``YYYY-MM``.
        by_event: Events decide the periods (``period_by="event"``): 8.2.4 and the start lists apply.
        events: The period's events: ``event_id``, ``__match_rule`` (6.1 or 0), ``__source``, ``__start_period``.
        decided: Rows played after their match was decided: ``row_key``, ``__match_rule`` (6.2 or its waiver).
        start_ratings: By month of an event's start (earlier in the run), the rating on that month's list
            in force of each dense player index (Float64; null: unrated or absent).
        notes: Warnings about the period's events.
        unstarted: Events of the period that started in an earlier month whose list this run does not
            have (before its first period): ``event_id``, ``__start_period``.
    """

    period: str
    by_event: bool
    events: pl.DataFrame
    decided: pl.DataFrame
    start_ratings: Mapping[str, pl.Series] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    unstarted: pl.DataFrame | None = None


def period_events(
    facts: ev.EventFacts,
    period: str,
    listed: pl.DataFrame,
    *,
    ids: pl.Series,
    start_lists: Mapping[str, pl.DataFrame | None],
) -> PeriodEvents:
    """The event facts of ``period``.

    Args:
        facts: The run's events (:func:`elo_batch.engine.events.settle`).
        period: Month of play.
        listed: The list in force of the period (``player_id``, ``rating``), players from the games added.
        ids: The player id of each dense index of the period.
        start_lists: The lists in force of earlier months of the run, by month (those that events of
            this period started in).

    Returns:
        The period's events, matches decided and lists at the events' start.

    References:
        FIDE Rating Regulations (B.02, 2024) 6.1, 6.2, 8.2.4; ``fide-rules.md`` sections 5 and 7.
    """
    by_event = facts.by_event
    here = facts.groups.filter(pl.col(c.PERIOD) == period)[c.EVENT_ID].drop_nulls().unique()
    events = facts.events.filter(pl.col(c.EVENT_ID).is_in(here.implode()))
    starts = events.filter(pl.col(w.START_PERIOD) < period)[w.START_PERIOD].unique().sort().to_list()
    start_ratings = {
        month: _by_index(ids, at_start)
        for month in (starts if by_event else [])
        if (at_start := start_lists.get(month)) is not None
    }
    matches = facts.match_rows.filter(pl.col(c.PERIOD) == period)
    unrated, judged_now = _unrated_matches(
        matches, events, listed, start_lists=start_lists, period=period, by_event=by_event
    )
    events = events.select(
        c.EVENT_ID,
        pl.when(pl.col(c.EVENT_ID).is_in(unrated.implode())).then(s.RULE_MATCH_UNRATED).otherwise(s.NO_RULE)
        .cast(pl.UInt8).alias(w.MATCH_RULE),
        w.SOURCE,
        w.START_PERIOD,
    )  # fmt: skip
    decided = facts.decided.filter(pl.col("row_key").is_in(matches["row_key"].implode())).select(
        "row_key",
        pl.when(w.WAIVED).then(s.RULE_MATCH_WAIVER).otherwise(s.RULE_MATCH_DECIDED).cast(pl.UInt8).alias(w.MATCH_RULE),
    )
    notes = [*_notes(facts, period, here), *_match_start_note(period, judged_now)]
    unstarted = events.filter(
        (pl.col(w.START_PERIOD) < period) & ~pl.col(w.START_PERIOD).is_in(_texts(start_ratings)) & by_event
    ).select(c.EVENT_ID, w.START_PERIOD)
    return PeriodEvents(period, by_event, events, decided, start_ratings, tuple(notes), unstarted)


def event_columns(table: pl.DataFrame, facts: PeriodEvents | None) -> pl.DataFrame:
    """Rows of the period table with the event columns (:data:`~elo_batch.engine.schema.EVENT_TABLE`)
    and the ratings at the event's start in ``white_rating``, ``black_rating`` (see the module's text).

    Args:
        table: Consecutive rows of the period table (``row_key``, ``date``, ``event_id``, ``one_sided``,
            the game-row ratings and the players' indices ``__w``, ``__b``).
        facts: The period's event facts (:func:`period_events`), or None (no events: no rule applies).

    Returns:
        ``table`` with the three columns added and the two rating columns replaced.
    """
    white, black = _nonzero(c.WHITE_RATING), _nonzero(c.BLACK_RATING)
    if facts is None or not _rules_apply(facts):  # by date without matches of the period (what most runs are)
        return table.with_columns(
            white.alias(c.WHITE_RATING),
            black.alias(c.BLACK_RATING),
            pl.lit(s.NO_RULE, pl.UInt8).alias(w.EVENT_RULE),
            *_late(white, black, facts is not None and facts.by_event),
        )
    events = facts.events
    index = pl.col(c.EVENT_ID).replace_strict(
        events[c.EVENT_ID], pl.Series(range(events.height), dtype=pl.UInt32), default=None, return_dtype=pl.UInt32
    )
    table = table.with_columns(index.alias(w.EVENT_INDEX))  # each row's event, looked up once
    start = _of_event(events, w.START_PERIOD, default=None, dtype=pl.String())
    for month, ratings in facts.start_ratings.items():
        at_start = start == month
        white = pl.when(white.is_null() & at_start).then(pl.lit(ratings).gather(pl.col(w.WHITE))).otherwise(white)
        black = pl.when(black.is_null() & at_start).then(pl.lit(ratings).gather(pl.col(w.BLACK))).otherwise(black)
    with_ratings = table.with_columns(white.cast(pl.Float64).alias(c.WHITE_RATING), black.alias(c.BLACK_RATING))
    return with_ratings.with_columns(
        _row_rule(facts, start).fill_null(s.NO_RULE).cast(pl.UInt8).alias(w.EVENT_RULE),
        *_late(pl.col(c.WHITE_RATING), pl.col(c.BLACK_RATING), facts.by_event),
    ).drop(w.EVENT_INDEX)


def _rules_apply(facts: PeriodEvents) -> bool:
    """Whether an event rule may apply to a row of the period: a game after a match was decided, a match
    with an unrated player, or (by event) any event."""
    events = facts.events
    matches = events.height > 0 and bool((events[w.MATCH_RULE] != s.NO_RULE).any())
    return bool(facts.decided.height or matches or (facts.by_event and events.height))


def _of_event(events: pl.DataFrame, name: str, *, default: object, dtype: pl.DataType) -> pl.Expr:
    """Column ``name`` of each row's event (``__event_index``), ``default`` for a row without one."""
    return pl.lit(events[name]).gather(pl.col(w.EVENT_INDEX)).fill_null(pl.lit(default, dtype))


def _row_rule(facts: PeriodEvents, start: pl.Expr) -> pl.Expr:
    """The event rule of a row (``__event_rule``): its match's 6.1, its game's 6.2 (or waiver), the list at
    its event's ``start``, a move by the closing date (7.1.3) or by the event's own period."""
    decided = pl.col(s.ROW_KEY).replace_strict(
        facts.decided[s.ROW_KEY],
        facts.decided[w.MATCH_RULE],
        default=pl.lit(s.NO_RULE, pl.UInt8),
        return_dtype=pl.UInt8,
    )
    moved = pl.col(c.DATE).dt.strftime("%Y-%m") != facts.period
    source = _of_event(facts.events, w.SOURCE, default=ev.BY_DATE, dtype=pl.UInt8())
    return (
        pl.when(_of_event(facts.events, w.MATCH_RULE, default=s.NO_RULE, dtype=pl.UInt8()) == s.RULE_MATCH_UNRATED)
        .then(s.RULE_MATCH_UNRATED)
        .when(decided != s.NO_RULE)
        .then(decided)
        .when(start.is_in(_texts(facts.start_ratings)))
        .then(s.RULE_START_LIST)
        .when(moved & (source == ev.BY_CLOSING_DATE))
        .then(s.RULE_CLOSING_DATE)
        .when(moved & (source == ev.GIVEN))
        .then(s.RULE_EVENT_PERIOD)
        .otherwise(s.NO_RULE)
    )


def start_note(facts: PeriodEvents, table: pl.DataFrame) -> list[str]:
    """The warning about rows of events that started before the run's first period and lack a game-row
    rating: they use the list in force of the period, not the list of the event's start."""
    if facts.unstarted is None or not facts.unstarted.height:
        return []
    lacking = pl.col(c.WHITE_RATING).is_null() | (~pl.col(s.ONE_SIDED) & pl.col(c.BLACK_RATING).is_null())
    rows = table.filter(pl.col(c.EVENT_ID).is_in(facts.unstarted[c.EVENT_ID].implode()) & lacking)
    if not rows.height:
        return []
    events = facts.unstarted.filter(pl.col(c.EVENT_ID).is_in(rows[c.EVENT_ID].unique().implode()))
    shown = ", ".join(f"{event!r}: {month}" for event, month in events.head(EXAMPLES).iter_rows())
    return [
        f"{facts.period}: {rows.height} row(s) of {events.height} event(s) that started in a month this run did "
        f"not rate ({shown}{', ...' if events.height > EXAMPLES else ''}) have no game-row rating for a player: "
        f"they use the list in force of {facts.period} instead of the list of the event's start. Hint: rate a "
        "range that starts in the event's first month, or give the ratings of the event's start on the game rows."
    ]


def rule_notes(period: str, codes: Mapping[int, int], waived: int) -> list[str]:
    """The warnings about the game sides the event rules decided (counts by ``__code``)."""
    notes = []
    late = codes.get(s.UNRATED_AT_START, 0)
    if late:
        notes.append(
            f"{period}: {late} game side(s) not counted because the opponent had no rating at the event's start "
            "(an empty game-row rating, or none on the list of the event's start) and has one now: B.02 "
            "8.2.4 rates him for himself and as unrated in his opponents' calculation"
        )
    unrated, decided = codes.get(s.MATCH_UNRATED, 0), codes.get(s.MATCH_DECIDED, 0)
    if unrated or decided or waived:
        parts = [f"{unrated} side(s) of matches with an unrated player not rated (B.02 6.1)"] if unrated else []
        parts += [f"{decided} side(s) played after the match was decided not rated (B.02 6.2)"] if decided else []
        parts += [f"{waived} game(s) after the match was decided rated under the 6.2 waiver"] if waived else []
        notes.append(f"{period}: matches: " + "; ".join(parts))
    return notes


def _texts(months: Mapping[str, object]) -> pl.Series:
    return pl.Series(list(months), dtype=pl.String).implode()


def _nonzero(name: str) -> pl.Expr:
    """A game-row rating: 0 is no rating (as TRF and PGN files write it)."""
    return pl.when(pl.col(name) != 0).then(pl.col(name))


def _late(white: pl.Expr, black: pl.Expr, by_event: bool) -> list[pl.Expr]:
    """B.02 8.2.4's signal: a side without a rating at the event's start where the other side has one."""
    if not by_event:
        return [pl.lit(False).alias(w.WHITE_LATE), pl.lit(False).alias(w.BLACK_LATE)]
    return [
        (white.is_null() & black.is_not_null()).alias(w.WHITE_LATE),
        (~pl.col(s.ONE_SIDED) & black.is_null() & white.is_not_null()).alias(w.BLACK_LATE),
    ]


def _by_index(ids: pl.Series, rating_list: pl.DataFrame) -> pl.Series:
    """The rating on ``rating_list`` of each dense index (null: unrated or absent)."""
    ratings = rating_list.select(pl.col(c.PLAYER_ID).cast(ids.dtype), pl.col(c.RATING).cast(pl.Float64))
    return ids.to_frame(c.PLAYER_ID).join(ratings, on=c.PLAYER_ID, how="left", maintain_order="left")[c.RATING]


def _unrated_matches(
    rows: pl.DataFrame,
    events: pl.DataFrame,
    listed: pl.DataFrame,
    *,
    start_lists: Mapping[str, pl.DataFrame | None],
    period: str,
    by_event: bool,
) -> tuple[pl.Series, pl.DataFrame]:
    """Matches of the period with a player unrated at the match's start (B.02 6.1), judged the same in
    every month of the match and either period mode; and the matches judged on the period's list for want
    of the list of their start (``event_id``, ``__start_period``), to warn about.

    A player's rating at the start is his rating on the list in force of the month the match started: the
    period's own list (it started in the period), else the run's own list of that month (an earlier month
    of a range). A match that started before the run is judged on its rows' ratings (those of its start),
    else on the period's list. By event, an empty or 0 game-row rating where the other side has one is no
    rating at the start either (the 8.2.4 signal); by date such a cell falls back to the list, as for D.
    """
    if not rows.height:
        return pl.Series(c.EVENT_ID, [], pl.String), pl.DataFrame(
            schema={c.EVENT_ID: pl.String, w.START_PERIOD: pl.String}
        )
    id_type = listed[c.PLAYER_ID].dtype
    frame = rows.with_columns(pl.col(c.WHITE_ID, c.BLACK_ID).cast(id_type)).join(
        events.select(c.EVENT_ID, w.START_PERIOD), on=c.EVENT_ID, how="left", maintain_order="left"
    )

    def rated_on(rating_list: pl.DataFrame, prefix: str) -> tuple[pl.Expr, pl.Expr]:
        nonlocal frame
        ratings = rating_list.select(pl.col(c.PLAYER_ID).cast(id_type), pl.col(c.RATING).cast(pl.Float64))
        for side, player in (("w", c.WHITE_ID), ("b", c.BLACK_ID)):
            renamed = ratings.rename({c.PLAYER_ID: player, c.RATING: f"{prefix}{side}"})
            frame = frame.join(renamed, on=player, how="left", maintain_order="left")
        return pl.col(f"{prefix}w"), pl.col(f"{prefix}b")

    now_white, now_black = rated_on(listed, w.NOW_PREFIX)
    list_white, list_black = now_white, now_black  # the list of the start: the period's, or the run's own
    row_white, row_black = _nonzero(c.WHITE_RATING), _nonzero(c.BLACK_RATING)
    white, black = row_white, row_black  # for 8.2.4's signal (by event)
    began = pl.col(w.START_PERIOD)
    known = {month: table for month, table in start_lists.items() if table is not None and month < period}
    for number, (month, rating_list) in enumerate(known.items()):
        start_white, start_black = rated_on(rating_list, f"{w.START_LIST_PREFIX}{number}_")
        list_white = pl.when(began == month).then(start_white).otherwise(list_white)
        list_black = pl.when(began == month).then(start_black).otherwise(list_black)
        if by_event:
            white = pl.when(white.is_null() & (began == month)).then(start_white).otherwise(white)
            black = pl.when(black.is_null() & (began == month)).then(start_black).otherwise(black)
    before_run = (began < period) & ~began.is_in(pl.Series(list(known), dtype=pl.String).implode())
    at_start_white = pl.when(before_run).then(pl.coalesce(row_white, now_white)).otherwise(list_white)
    at_start_black = pl.when(before_run).then(pl.coalesce(row_black, now_black)).otherwise(list_black)
    late_white, late_black = _late(white, black, by_event)
    one_sided = pl.col(s.ONE_SIDED)
    unrated = (at_start_white.is_null() | late_white) | pl.when(one_sided).then(
        pl.coalesce(row_black, at_start_black).is_null()
    ).otherwise(at_start_black.is_null() | late_black)
    guessed = before_run & (row_white.is_null() | (~one_sided & row_black.is_null()))
    judged_now = frame.filter(guessed).select(c.EVENT_ID, w.START_PERIOD).unique().sort(c.EVENT_ID)
    return frame.filter(unrated)[c.EVENT_ID].unique(), judged_now


def _match_start_note(period: str, judged_now: pl.DataFrame) -> list[str]:
    """The warning about matches that started before the run and were judged on the period's list (6.1)."""
    if not judged_now.height:
        return []
    shown = ", ".join(f"{event!r}: {month}" for event, month in judged_now.head(EXAMPLES).iter_rows())
    return [
        f"{period}: {judged_now.height} match(es) started in a month this run did not rate ({shown}"
        f"{', ...' if judged_now.height > EXAMPLES else ''}) and lack a game-row rating: whether a player was "
        f"unrated at the match's start (B.02 6.1: such a match is not rated) is judged on the list in force of "
        f"{period}. Hint: rate a range that starts in the match's first month, or give the ratings of the "
        "match's start on its game rows."
    ]


def _notes(facts: ev.EventFacts, period: str, here: pl.Series) -> list[str]:
    """Warnings about the period's events: the month's closing days (B.02 9.1), rows rated in another
    month than their date's, long events."""
    notes = []
    events = facts.events.filter(pl.col(c.EVENT_ID).is_in(here.implode())).sort(c.EVENT_END, c.EVENT_ID)
    end = pl.col(c.EVENT_END)
    closing = events.filter((end.dt.month_end().dt.day() - end.dt.day()) <= REPORT_DAYS).with_columns(
        ev.closing_period(end).alias(w.CLOSING)
    )
    if closing.height:
        shown = ", ".join(
            f"{event!r} ended {day} (closing date: {month})"
            for event, day, month in closing.select(c.EVENT_ID, end, w.CLOSING).head(EXAMPLES).iter_rows()
        )
        notes.append(
            f"{period}: {closing.height} event(s) end within {REPORT_DAYS} days of a month's end: {shown}"
            f"{', ...' if closing.height > EXAMPLES else ''}. B.02 9.1 puts such an event on the following list "
            "when its report is not uploaded in time; B.02 7.1.3 puts an event that ends after a list's closing "
            f"date ({CLOSING_DAYS} days before the list) on the next list. Hint: check which list FIDE rated each "
            "on, and give an event its period in the events file to rate it there."
        )
    notes += _moved_notes(facts, period)
    if not facts.by_event:
        return notes
    days = ((end - pl.col(c.EVENT_START)).dt.total_days() + 1).alias(w.DAYS)
    for event, first, last, length in (
        events.filter(days > LONG_EVENT_DAYS).select(c.EVENT_ID, c.EVENT_START, end, days).head(EXAMPLES).iter_rows()
    ):
        notes.append(
            f"{period}: event {event!r} lasts {length} days ({first} to {last}), more than {LONG_EVENT_DAYS}: it "
            "is rated whole in this period, every game with the ratings of the list in force at its start. B.02 "
            "does not say which list each game of such an event uses (FIDE's Title Regulations 1.1.4 use the "
            "list in force when each game was played). Hint: give each month of it an event_id of its own to "
            "rate it month by month."
        )
    return notes


def _moved_notes(facts: ev.EventFacts, period: str) -> list[str]:
    """Warnings about the rows dated in ``period`` that are rated in a later one, and those dated earlier
    that are rated in it, each kind told apart: deferred by the closing date (B.02 7.1.3: the event ends
    in the row's month, after its list's closing date), rated whole with an event that ends in a later
    month, or given the period by ``period`` (the row's; by event also its event's in the events file)."""
    end_month = pl.col(c.EVENT_END).dt.strftime("%Y-%m")
    by_closing = pl.col(w.SOURCE) == ev.BY_CLOSING_DATE
    why = (
        pl.when(by_closing & (end_month == pl.col(w.MONTH))).then(pl.lit("closing"))
        .when(by_closing).then(pl.lit("event"))
        .otherwise(pl.lit("period"))  # a row without an event, or an event given its period
    )  # fmt: skip
    events = facts.events.select(c.EVENT_ID, w.SOURCE, c.EVENT_END)
    groups = facts.groups.join(events, on=c.EVENT_ID, how="left").with_columns(why.alias(w.MOVED))
    given = "`period` (the row's or its event's)" if facts.by_event else "their `period`"
    notes = []
    later = groups.filter((pl.col(w.MONTH) == period) & (pl.col(c.PERIOD) > period))
    if later.height:
        kinds = {
            "event": "of events that end in a later month are rated whole in the period of their end ({})",
            "period": f"are given a later period by {given} ({{}})",
        }
        notes.append(
            f"{period}: {later[w.ROWS].sum()} row(s) dated in {period} are rated in a later period "
            f"({_by(later, c.PERIOD)}): {_kinds(later, kinds, c.PERIOD)}. A monthly run must hand these rows "
            "in again with the games of that period."
        )
    earlier = groups.filter((pl.col(c.PERIOD) == period) & (pl.col(w.MONTH) < period))
    if earlier.height:
        kinds = {
            "event": "of events that end in a later month than their date's are rated whole in the period of "
            "their end (dated {})",
            "period": f"are given {period} by {given} (dated {{}})",
        }
        notes.append(
            f"{period}: {earlier[w.ROWS].sum()} row(s) dated before {period} are rated in it: "
            f"{_kinds(earlier, kinds, w.MONTH)}"
        )
    return notes


def _kinds(moved: pl.DataFrame, texts: Mapping[str, str], key: str) -> str:
    """The moved rows' count of each kind, with its text (counts by ``key`` in its ``{}``); those deferred
    by the closing date, one phrase per month of play they are deferred from."""
    parts = []
    deferred = moved.filter(pl.col(w.MOVED) == "closing").group_by(w.MONTH, c.PERIOD).agg(pl.col(w.ROWS).sum())
    for month, to, rows in deferred.sort(w.MONTH, c.PERIOD).iter_rows():
        day, words = _closing(month)
        parts.append(f"{rows} of events that end after {day}, {words}, are deferred to {to}")
    for kind, text in texts.items():
        rows = moved.filter(pl.col(w.MOVED) == kind)
        if rows.height:
            parts.append(f"{rows[w.ROWS].sum()} {text.format(_by(rows, key))}")
    return "; ".join(parts)


def _by(rows: pl.DataFrame, key: str) -> str:
    """``"2025-12: 3, 2026-01: 1"``: the rows by ``key``, in order."""
    counts = rows.group_by(key).agg(pl.col(w.ROWS).sum()).sort(key)
    return ", ".join(f"{value}: {n}" for value, n in counts.iter_rows())


def _closing(month: str) -> tuple[str, str]:
    """The closing date of period ``month``'s list, the list of the 1st of the next month, and its words:
    :data:`CLOSING_DAYS` days before that list (B.02 7.1.3; ``"2025-11"``: ``"2025-11-28"``)."""
    year, number = map(int, month.split("-"))
    listed = dt.date(year + number // 12, number % 12 + 1, 1)
    day = (listed - dt.timedelta(days=CLOSING_DAYS)).isoformat()
    words = f"{CLOSING_DAYS} days before the 1 {_MONTHS[listed.month - 1]} {listed.year} list, B.02 7.1.3"
    return day, f"the closing date of period {month} ({words})"


_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
