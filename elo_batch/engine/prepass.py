"""The pre-pass: what a period needs of all its games at once, made into columns before any chunk is rated.

After the pre-pass, a chunk of the period table holds everything the map needs of its rows, and the
map needs nothing of the other chunks:

- the list in force, and without one (or for players absent from it, in a range run without a list)
  each player's base rating: the one on their first game of the period (by date, then input order);
- each player's dense index (players of the list first, by ``player_id``, then the others in order of
  first appearance), looked up once per game row: ``__w`` and ``__b`` of the period table;
- the ``duplicate`` flag of a row that repeats an earlier row's game (its ``game_id``, or its event, round,
  players and board) in any input file (set across all files when the games were checked,
  :func:`elo_batch.inputs.validate.load_games`), carried here;
- the pools of unrated players from earlier periods (the list's ``pending`` column);
- the event facts of each row (:mod:`elo_batch.engine.eventrows`): the ratings of the list at the
  event's start, and the event rules (B.02 6.1, 6.2, 8.2.4) as columns;
- under the once-per-event 400-point rule (2022), each player's one upgrade per event
  (:mod:`elo_batch.engine.upgrades`), decided after the event columns, with the ratings they give.

A newcomer's first event is not a column: it is the event with the earliest date (then row) among the
newcomer's pending sides, decided in :mod:`elo_batch.engine.finish` from the pending sides that every
chunk hands on (see :mod:`elo_batch.engine.sums`), which does not depend on how the rows are cut.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.contract.schemas import list_schema
from elo_batch.contract.tables import GamesInput
from elo_batch.engine import eventrows, upgrades
from elo_batch.engine import schema as s
from elo_batch.rules.sets import RuleSet

Engine = Literal["in-memory", "streaming"]
#: Polars engine of the heavy queries, for frames in memory too: the streaming engine works through the
#: rows in morsels, so memory stays bounded by the players, not the games, and on polars 2 it groups in
#: parallel where the in-memory engine does not (10M games: the event groups 0.4-0.6 -> 0.14 s; peak
#: memory 2.05 -> 1.75 GB). Joins and binary searches of rows in memory are the exception (_joining).
ENGINE: Final = "streaming"
#: Most slots of the dense id -> index table of integer player ids (UInt32: 1 GB; see _look_up_integers).
DENSE_SLOTS: Final = 1 << 28
#: Slots of the dense table per player looked up (two per game row), at most: filling a slot costs
#: about what a lookup saves against a join, so a table much larger than the lookups it serves costs
#: more than it saves (a list of 1.6M ids spread over 80M values and 200k games: 320 MB for 400k
#: lookups; a join takes a fifth of the time and none of the memory).
DENSE_SLOTS_PER_LOOKUP: Final = 8


@dataclass(frozen=True)
class Prepared:
    """A period after the pre-pass: the list in force, the player index and the period table.

    Attributes:
        listed: The list in force (``LIST_SCHEMA`` columns first, then pass-through columns), with the
            players added from the games when there is no list (or for a range run without one),
            sorted by ``player_id`` (the order of the new list).
        ids: The player id of each dense index (the listed players first, in ``listed``'s order).
        table: The period's rows in input order, columns :data:`~elo_batch.engine.schema.TABLE` and
            the players' dense indices ``__w``, ``__b`` (UInt32).
        list_rating: The rating on the list in force of each index (Float64; null: unrated or unlisted).
        warnings: Things the user should know that did not stop the period.
        events: The period's event facts (None when the games have none worked out).
    """

    listed: pl.DataFrame
    ids: pl.Series
    table: pl.DataFrame
    list_rating: pl.Series
    warnings: tuple[str, ...]
    events: eventrows.PeriodEvents | None = None

    @property
    def players(self) -> int:
        """Players of the period (listed or met in the games): the length of every per-player array."""
        return self.ids.len()


def prepare(
    games: GamesInput,
    rating_list: pl.DataFrame | None,
    period: str,
    *,
    add_players_from_games: bool = False,
    start_lists: Mapping[str, pl.DataFrame | None] | None = None,
    rules: RuleSet | None = None,
) -> Prepared:
    """The pre-pass of one period.

    Args:
        games: All checked game rows of the run (rows of other periods are left out here).
        rating_list: The list in force, or None: then each player's rating is the one on their first
            game of the period (by date, then input order).
        period: Month of play, ``YYYY-MM``.
        add_players_from_games: Add players met in the games but absent from ``rating_list``, rated
            from the game rows (a range run without a list).
        start_lists: The lists in force of earlier months of a range, by month, that events of this
            period started in (see :func:`elo_batch.engine.eventrows.period_events`).
        rules: The period's rule set: under the once-per-event 400-point rule (2022), each player's one
            upgrade per event is marked on the table (:func:`elo_batch.engine.upgrades.mark`).

    Returns:
        The period's list, player index and table (with the event columns).
    """
    rows = games.rows.lazy().filter(pl.col(c.PERIOD) == period)
    listed, warnings = period_list(rating_list, rows, add_players_from_games)
    listed = in_id_order(listed)
    in_memory = isinstance(games.rows, pl.DataFrame)
    lookups = 2 * games.period_rows.get(period, 0)
    table, ids = period_table(rows, listed, games.absent, in_memory=in_memory, lookups=lookups)
    unlisted = pl.Series(c.RATING, [None] * (ids.len() - listed.height), pl.Float64)
    list_rating = pl.concat([listed[c.RATING], unlisted])
    events = None
    if games.events is not None:
        events = eventrows.period_events(games.events, period, listed, ids=ids, start_lists=start_lists or {})
        warnings += events.notes
    table = eventrows.event_columns(table, events)
    if events is not None:
        warnings += eventrows.start_note(events, table)
    if rules is not None:
        table = upgrades.mark(table, list_rating, rules)
    return Prepared(listed, ids, table, list_rating, tuple(warnings), events)


def period_list(
    rating_list: pl.DataFrame | None, rows: pl.LazyFrame, add_players_from_games: bool
) -> tuple[pl.DataFrame, list[str]]:
    """The list in force; without one, every player met in the games with their first game's rating."""
    warnings: list[str] = []
    if rating_list is not None and not add_players_from_games:
        return rating_list, warnings
    id_type = rows.collect_schema()[c.WHITE_ID] if rating_list is None else rating_list[c.PLAYER_ID].dtype
    white = rows.select(
        c.DATE, s.ROW_KEY, pl.lit(0, pl.Int8).alias(w.SIDE), pl.col(c.WHITE_ID).cast(id_type).alias(c.PLAYER_ID),
        pl.col(c.WHITE_RATING).alias(w.RO_GAME),
    )  # fmt: skip
    black = rows.filter(~pl.col(s.ONE_SIDED)).select(
        c.DATE, s.ROW_KEY, pl.lit(1, pl.Int8).alias(w.SIDE), pl.col(c.BLACK_ID).cast(id_type).alias(c.PLAYER_ID),
        pl.col(c.BLACK_RATING).alias(w.RO_GAME),
    )  # fmt: skip
    ordered = pl.concat([white, black]).sort(c.DATE, s.ROW_KEY, w.SIDE, nulls_last=True)
    from_games = (
        ordered.group_by(c.PLAYER_ID, maintain_order=True)
        .agg(
            pl.col(w.RO_GAME).drop_nulls().first().alias(c.RATING),
            pl.col(w.RO_GAME).drop_nulls().n_unique().alias(w.RATINGS_SEEN),
        )
        .collect()
    )
    differing = from_games.filter(pl.col(w.RATINGS_SEEN) > 1)[c.PLAYER_ID].cast(pl.String)
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


def in_id_order(listed: pl.DataFrame) -> pl.DataFrame:
    """The period's list sorted by ``player_id``, as the new list is written (a no-op for a list
    elo-batch wrote): sorted once, here, while it is narrow, so that the finalize never sorts the list
    (:func:`elo_batch.engine.finish.finalize` relies on it)."""
    return listed if listed[c.PLAYER_ID].is_sorted() else listed.sort(c.PLAYER_ID)


def period_table(
    rows: pl.LazyFrame, listed: pl.DataFrame, absent: frozenset[str], *, in_memory: bool, lookups: int
) -> tuple[pl.DataFrame, pl.Series]:
    """The period's rows, compact, with the dense index of each player (``__w``, ``__b``, UInt32).

    Players of ``listed`` get its row numbers; players absent from it get the next numbers, in order of
    first appearance. Columns no input has (``absent``) are constants, not stored. ``in_memory``: ``rows``
    is a plan over a frame in memory. ``lookups``: the players to look up (two per row of the period),
    which sizes the integer lookup. Returns the table and the player ids by index.
    """
    ids = listed[c.PLAYER_ID]
    kept = [name for name in s.TABLE if name not in absent]
    # Rows in memory: look up the indices alone and put them beside the rows' own columns (no copy).
    carried = [] if in_memory else kept
    if rows.collect_schema()[c.WHITE_ID] == pl.Int64:  # integer ids in every game file
        table = _look_up_integers(rows, ids, carried, lookups=lookups, in_memory=in_memory)
    else:
        table = _look_up_players(rows, ids, carried, in_memory=in_memory, hashed=True)
    if table[w.COLLISION].any():  # two ids with the same 64-bit hash: look up by the ids themselves
        table = _look_up_players(rows, ids, carried, in_memory=in_memory, hashed=False)
    if not carried:
        table = pl.concat([rows.select(kept).collect(engine=ENGINE), table], how="horizontal")
    table = table.drop(w.COLLISION).with_columns(
        pl.lit(None, rows.collect_schema()[name]).alias(name) for name in s.TABLE if name in absent
    )
    return _with_unlisted(table, rows, listed)


def _with_unlisted(table: pl.DataFrame, rows: pl.LazyFrame, listed: pl.DataFrame) -> tuple[pl.DataFrame, pl.Series]:
    """The period table with the indices of the players absent from ``listed`` (``__unlisted`` rows): the
    next numbers after the list's, in order of first appearance; and the player ids by index."""
    ids = listed[c.PLAYER_ID]
    positions = table.select(pl.arg_where(pl.col(w.UNLISTED))).to_series()
    if positions.len() == 0:
        return table.drop(w.UNLISTED), ids
    keys = table[s.ROW_KEY].gather(positions)
    found = (
        rows.filter(pl.col(s.ROW_KEY).is_in(keys.implode()))
        .select(s.ROW_KEY, pl.col(c.WHITE_ID, c.BLACK_ID).cast(ids.dtype))
        .collect(engine=ENGINE)
        .sort(s.ROW_KEY)
    )
    unlisted = _first_seen(found, listed)
    every = pl.concat([listed.select(c.PLAYER_ID).with_row_index(w.IDX), unlisted])
    filled = found.join(
        every.rename({c.PLAYER_ID: c.WHITE_ID, w.IDX: w.WHITE}), on=c.WHITE_ID, how="left", maintain_order="left"
    ).join(every.rename({c.PLAYER_ID: c.BLACK_ID, w.IDX: w.BLACK}), on=c.BLACK_ID, how="left", maintain_order="left")
    table = table.drop(w.UNLISTED).with_columns(
        table[w.WHITE].scatter(positions, filled[w.WHITE]),
        table[w.BLACK].scatter(positions, filled[w.BLACK]),
    )
    return table, pl.concat([ids, unlisted[c.PLAYER_ID]])


def _first_seen(found: pl.DataFrame, listed: pl.DataFrame) -> pl.DataFrame:
    """The players of the rows ``found`` absent from ``listed``, in order of first appearance (row, then
    white before black), with their indices (``__idx``) after the list's."""
    seen = pl.concat(
        [
            found.select(s.ROW_KEY, pl.lit(0, pl.Int8).alias(w.SIDE), pl.col(c.WHITE_ID).alias(c.PLAYER_ID)),
            found.select(s.ROW_KEY, pl.lit(1, pl.Int8).alias(w.SIDE), pl.col(c.BLACK_ID).alias(c.PLAYER_ID)),
        ]
    ).sort(s.ROW_KEY, w.SIDE)
    return (
        seen.drop_nulls(c.PLAYER_ID)
        .join(listed.select(c.PLAYER_ID), on=c.PLAYER_ID, how="anti", maintain_order="left")
        .select(c.PLAYER_ID)
        .unique(maintain_order=True)
        .with_row_index(w.IDX, offset=listed.height)
    )


def _unlisted() -> pl.Expr:
    """A row with a player the list does not have (white always has an id; black may have none)."""
    return (pl.col(w.WHITE).is_null() | (pl.col(c.BLACK_ID).is_not_null() & pl.col(w.BLACK).is_null())).alias(
        w.UNLISTED
    )


def _look_up_players(
    rows: pl.LazyFrame, ids: pl.Series, columns: list[str], *, in_memory: bool, hashed: bool
) -> pl.DataFrame:
    """The period table with each player's index in ``ids`` (``__w``, ``__b``; null when absent).

    With ``hashed``, the ids are joined through their 64-bit hashes (integer keys: a faster join) and
    every match is checked against the id itself: ``__collision`` marks a row where a hash matched a
    different id (then the caller looks up by the ids themselves). ``in_memory``: ``rows`` is a plan
    over a frame in memory.
    """

    def key(ids: pl.Expr) -> pl.Expr:
        return ids.hash() if hashed else ids

    index = pl.DataFrame({w.ID_KEY: ids}).select(key(pl.col(w.ID_KEY))).with_row_index(w.IDX)
    if hashed and index[w.ID_KEY].n_unique() < index.height:  # two listed ids with the same hash
        return _look_up_players(rows, ids, columns, in_memory=in_memory, hashed=False)
    listed = pl.lit(ids)
    collision = (listed.gather(w.WHITE) != pl.col(c.WHITE_ID)) | (listed.gather(w.BLACK) != pl.col(c.BLACK_ID))
    by_white = index.lazy().rename({w.ID_KEY: w.WHITE_KEY, w.IDX: w.WHITE})
    by_black = index.lazy().rename({w.ID_KEY: w.BLACK_KEY, w.IDX: w.BLACK})
    return (
        rows.with_columns(key(pl.col(c.WHITE_ID)).alias(w.WHITE_KEY), key(pl.col(c.BLACK_ID)).alias(w.BLACK_KEY))
        .join(by_white, on=w.WHITE_KEY, how="left", maintain_order="left")
        .join(by_black, on=w.BLACK_KEY, how="left", maintain_order="left")
        .select(
            *columns,
            w.WHITE,
            w.BLACK,
            _unlisted(),
            (collision.fill_null(False) if hashed else pl.lit(False)).alias(w.COLLISION),
        )
        .collect(engine=_joining(in_memory))
    )


def _look_up_integers(
    rows: pl.LazyFrame, ids: pl.Series, columns: list[str], *, lookups: int, in_memory: bool
) -> pl.DataFrame:
    """:func:`_look_up_players` for game rows with integer ids (Int64): a listed id matches the integer
    whose decimal text it is exactly (``'123'``, never ``'0123'``), so the result is that of the ids as
    text. Looked up in a dense table (slot = id - smallest id) when the listed ids span at most
    :data:`DENSE_SLOTS` values and at most :data:`DENSE_SLOTS_PER_LOOKUP` per lookup (``lookups``: the
    players to look up) or per listed id; else, for a list of integer ids sorted (as :func:`prepare`
    sorts it), by a binary search of the ids; else by an integer join. ``in_memory``: ``rows`` is a
    plan over a frame in memory.
    """
    number = ids
    if ids.dtype != pl.Int64:  # text ids: those that are the decimal text of an integer
        number = ids.cast(pl.Int64, strict=False)
        number = pl.select(pl.when(number.cast(pl.String) == ids).then(number)).to_series()
    index = pl.DataFrame({w.ID_KEY: number}).with_row_index(w.IDX).drop_nulls(w.ID_KEY)
    low, high = index[w.ID_KEY].min(), index[w.ID_KEY].max()
    slots = 0 if low is None else int(high) - int(low) + 1  # type: ignore[arg-type]
    if 0 < slots <= min(DENSE_SLOTS, DENSE_SLOTS_PER_LOOKUP * max(lookups, index.height) + (1 << 20)):
        # slot -> index, and one more slot for ids out of range; no index: a sentinel (no null mask to
        # build or read: faster)
        unlisted = np.iinfo(np.uint32).max
        slot_index = np.full(slots + 1, unlisted, np.uint32)
        slot_index[(index[w.ID_KEY] - low).to_numpy()] = index[w.IDX].to_numpy()
        table = pl.Series(w.IDX, slot_index)

        def dense(name: str) -> pl.Expr:
            slot = pl.col(name) - low
            found = pl.lit(table).gather(pl.when((slot >= 0) & (slot < slots)).then(slot).otherwise(slots))
            return pl.when(found != unlisted).then(found)

        found = rows.with_columns(dense(c.WHITE_ID).alias(w.WHITE), dense(c.BLACK_ID).alias(w.BLACK))
        engine: Engine = ENGINE  # gathers: in parallel, morsel by morsel (10M rows: 0.17 s in memory, 0.08 s)
    elif number.len() and number.dtype == ids.dtype and number.null_count() == 0 and number.is_sorted():
        # the list's own integer ids, sorted (as the pre-pass sorts the list): an id's index is its position
        # (an empty list has no position to search: joined, every player is unlisted)
        sorted_ids = pl.lit(number)

        def position(name: str) -> pl.Expr:
            at = sorted_ids.search_sorted(pl.col(name)).clip(upper_bound=max(number.len() - 1, 0))
            return pl.when(sorted_ids.gather(at) == pl.col(name)).then(at.cast(s.INDEX_TYPE))

        found = rows.with_columns(position(c.WHITE_ID).alias(w.WHITE), position(c.BLACK_ID).alias(w.BLACK))
        engine = _joining(in_memory)
    else:
        keys = index.lazy()
        found = rows.join(
            keys.rename({w.ID_KEY: c.WHITE_ID, w.IDX: w.WHITE}), on=c.WHITE_ID, how="left", maintain_order="left"
        ).join(keys.rename({w.ID_KEY: c.BLACK_ID, w.IDX: w.BLACK}), on=c.BLACK_ID, how="left", maintain_order="left")
        engine = _joining(in_memory)
    return found.select(*columns, w.WHITE, w.BLACK, _unlisted(), pl.lit(False).alias(w.COLLISION)).collect(
        engine=engine
    )


def _joining(in_memory: bool) -> Engine:
    """The engine of a join or binary search of the ids: in memory for rows in memory (polars 2's
    streaming engine takes each literal of the ids anew per morsel: 200k rows against 1.6M sorted ids,
    0.10 s in memory, 0.35 s streaming; a join of 10M rows 1.3 s against 2.9 s); else streaming."""
    return "in-memory" if in_memory else ENGINE
