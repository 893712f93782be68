"""The site's data of one period, built from its tables with polars: summary, list pages, filters, player shards.

Every file's JSON text is made by expressions over the whole table (:mod:`~elo_batch.reportsite.jsontext`);
Python loops only over files. What each file holds (read by ``assets/site.js``):

- ``data/P/summary.js``: the period's rule set, counts, warnings, band moves, biggest gains and losses,
  rejected rows by reason, the list's columns and each filter's values;
- ``data/P/list/N.js``: the list sorted by rating (highest first, unrated last), :data:`PAGE_SIZE` rows a file;
- ``data/P/filters.js``: for each filter column one character per list row (its value's index);
- ``data/P/names/N.js``: the list's names in its order, lower case, one a line, :data:`NAMES_SIZE` a file
  (search by name), where it has names;
- ``data/P/players/B.js``: the players whose id hashes to B (never named by an id): place in the list,
  history over the periods of ``OUT``, the period's audit rows (opponent's name, title, federation joined),
  the first-rating details.
No rating rules here: every number shown is one the run wrote.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.reportsite.jsontext import array, id_hash, joined, literal, needs_escapes, plain_columns

if TYPE_CHECKING:
    from elo_batch import OutputTables

#: List rows a data file holds.
PAGE_SIZE = 1000
#: Names a names file holds (the search by name reads them all, in order).
NAMES_SIZE = 200_000
#: The list's columns the site shows, in this order, where the list has them (and not only nulls).
LIST_COLUMNS = (
    c.PLAYER_ID, "name", "title", "federation", "sex", c.BIRTH_YEAR, c.RATING, c.RATING_BEFORE, c.CHANGE,
    c.GAMES, c.K_USED, c.STATUS, c.BAND,
)  # fmt: skip
#: The columns a list can be filtered by, where it has them.
FILTERS = ("federation", "title", "sex", c.BAND, c.STATUS, c.BIRTH_YEAR)
#: A filter column with more values than this is not offered (one character per row codes a value).
MAX_FILTER_VALUES = 5000
#: A player's audit rows as the player page shows them (the opponent's list columns joined).
GAME_COLUMNS = (
    c.EVENT_ID, c.ROUND, c.DATE, c.COLOUR, c.OPPONENT_ID, "opponent_name", "opponent_title",
    "opponent_federation", c.OPPONENT_RATING, c.CAPPED, c.RATING, c.RATING_DIFF, c.EXPECTED_SCORE, c.SCORE,
    c.K_USED, c.K_CHANGE, c.COUNTED, c.REASON, c.EVENT_RULE,
)  # fmt: skip
#: A player's first-rating and period details (where the list has them).
DETAIL_COLUMNS = (
    c.SCORE, c.EXPECTED_SCORE, c.PERFORMANCE_RATING, c.OPPONENTS_AVERAGE, c.K, c.GAMES_TOTAL, c.ADJUSTMENT,
    c.PENDING,
)  # fmt: skip
_TOP = 10


@dataclass(frozen=True)
class SiteFile:
    """One data file: its path in the site, the loader's key and the JSON text of its value."""

    path: str
    key: str
    json_text: str


def buckets_for(players: int) -> int:
    """The number of player shards for a list of ``players``: a power of two, about 800 players a shard,
    16 to 4096.

    >>> buckets_for(12), buckets_for(1_600_000)
    (16, 2048)
    """
    count = 16
    while count < 4096 and count * 800 < players:
        count *= 2
    return count


def period_files(
    tables: OutputTables, *, history: pl.DataFrame | None, previous: pl.DataFrame | None, buckets: int
) -> tuple[dict[str, Any], Iterator[SiteFile]]:
    """The summary of one period (as ``summary.js`` holds it) and every data file of that period.

    Files are made a group of pages (or shards) at a time, so that the text of the whole site is never
    held at once.

    Args:
        tables: The period's tables (:func:`elo_batch.read_period`), with its audit and rejected rows.
        history: Each player's history text (:func:`history_texts`), or None with one period in ``OUT``.
        previous: The period before's list (``player_id``, ``band``) for the band moves, or None.
        buckets: The number of player shards (:func:`buckets_for`).
    """
    listed, order = list_frame(tables.ratings)
    shown = [n for n in LIST_COLUMNS if n in listed.columns]
    columns = [n for n in shown if n == c.PLAYER_ID or listed[n].null_count() < listed.height]
    filters = _filter_values(listed)
    summary = _summary(tables, listed, columns=columns, filters=filters, previous=previous)
    audit = _audit_rows(tables.audit, listed)  # the files hold no reference to ``tables``: a caller that
    files = _files(listed, order, audit, summary=summary, history=history, buckets=buckets)
    return summary, files  # a caller that drops ``tables`` frees them: ``listed`` is not a copy, ``audit`` is


def _files(
    listed: pl.DataFrame,
    order: pl.Series,
    audit: pl.DataFrame,
    *,
    summary: dict[str, Any],
    history: pl.DataFrame | None,
    buckets: int,
) -> Iterator[SiteFile]:
    period = summary["period"]
    yield SiteFile(f"data/{period}/summary.js", f"summary:{period}", json.dumps(summary, default=str))
    coded = _coded(listed, summary["filters"])
    yield from _pages(coded, order, summary["columns"], period=period)
    if summary["filters"]:
        yield SiteFile(
            f"data/{period}/filters.js", f"filters:{period}", _filter_codes(coded, order, summary["filters"])
        )
    del coded
    if "name" in listed.columns:
        yield from _names(listed, order, period)
    yield from _shards(period, listed, audit, history=history, buckets=buckets)


def list_frame(ratings: pl.DataFrame) -> tuple[pl.DataFrame, pl.Series]:
    """The list as the site shows it, without copying it: the columns the site uses (``player_id`` as
    text) in the list's own order, with each row's place (``SITE_POSITION``, from 0) by rating, highest
    first (unrated last), then ``player_id`` (as its type orders it: integer ids as numbers); and the
    rows' indices in that order.
    """
    wanted = dict.fromkeys(name for name in (*LIST_COLUMNS, *DETAIL_COLUMNS) if name in ratings.columns)
    keys = ratings.select(pl.int_range(pl.len(), dtype=pl.Int64).alias(w.SITE_POSITION), c.RATING, c.PLAYER_ID)
    if not keys[c.PLAYER_ID].is_sorted():  # a list elo-batch wrote is sorted by player_id already
        keys = keys.sort(c.PLAYER_ID)
    order = keys.sort(c.RATING, descending=True, nulls_last=True, maintain_order=True)[w.SITE_POSITION]
    place = np.empty(len(order), dtype=np.int64)
    place[order.to_numpy()] = np.arange(len(order), dtype=np.int64)
    listed = ratings.select(list(wanted)).with_columns(
        pl.col(c.PLAYER_ID).cast(pl.String), pl.Series(w.SITE_POSITION, place)
    )
    return listed, order


def _coded(listed: pl.DataFrame, filters: dict[str, list[Any]]) -> pl.DataFrame:
    """The list with each filter column's values replaced by their index in ``filters`` (site.js maps an
    index back to its text: the list pages hold a number, not the text, of a repeated value)."""

    def code(name: str, values: list[Any]) -> pl.Expr:
        text = pl.col(name) if listed.schema[name] in (pl.String, pl.Categorical) else pl.col(name).cast(pl.String)
        return text.cast(pl.Enum(values)).to_physical().cast(pl.UInt32)  # the index of the value in ``values``

    return listed.with_columns(code(name, values) for name, values in filters.items())


def _pages(coded: pl.DataFrame, order: pl.Series, columns: list[str], *, period: str) -> Iterator[SiteFile]:
    """The list's data files, :data:`PAGE_SIZE` rows each in the list's order, made 100 pages at a time."""
    plain = plain_columns(coded, columns)
    for start in range(0, coded.height, 100 * PAGE_SIZE):
        part = coded.select(columns)[order.slice(start, 100 * PAGE_SIZE)]
        page = (pl.int_range(pl.len(), dtype=pl.Int64) + start) // PAGE_SIZE
        pages = (
            part.select(page.alias(w.SITE_PAGE), array(part, columns, plain=plain).alias(w.SITE_JSON))
            .group_by(w.SITE_PAGE, maintain_order=True)
            .agg(joined(pl.col(w.SITE_JSON)))
        )
        for number, text in pages.iter_rows():
            yield SiteFile(f"data/{period}/list/{number}.js", f"list:{period}:{number}", text)


def _names(listed: pl.DataFrame, order: pl.Series, period: str) -> Iterator[SiteFile]:
    """The names in the list's order, lower case, one a line: ``names/N.js`` of :data:`NAMES_SIZE` each."""
    for number, start in enumerate(range(0, listed.height, NAMES_SIZE)):
        names = listed["name"].gather(order.slice(start, NAMES_SIZE)).cast(pl.String).fill_null("")
        text = names.str.to_lowercase().str.replace_all("\n", " ").str.join("\n").item()
        yield SiteFile(f"data/{period}/names/{number}.js", f"names:{period}:{number}", json.dumps(text))


def _filter_values(listed: pl.DataFrame) -> dict[str, list[Any]]:
    """Each filter column's values, sorted (columns absent, empty or with too many values left out)."""
    found: dict[str, list[Any]] = {}
    for name in FILTERS:
        if name in listed.columns:
            values = listed[name].drop_nulls().unique().sort()
            if 0 < values.len() <= MAX_FILTER_VALUES:
                found[name] = values.cast(pl.String).to_list()
    return found


def _filter_codes(coded: pl.DataFrame, order: pl.Series, filters: dict[str, list[Any]]) -> str:
    """JSON of {column: one character per list row, in the list's order}: ``chr(48 + index)`` of its
    value, ``/`` for none."""
    codes: dict[str, str] = {}
    for name in filters:
        chars = (coded[name].gather(order).cast(pl.UInt32) + 48).fill_null(47)
        codes[name] = chars.to_numpy().astype("<u4").tobytes().decode("utf-32-le")
    return json.dumps(codes, ensure_ascii=False)


def _summary(
    tables: OutputTables,
    listed: pl.DataFrame,
    *,
    columns: list[str],
    filters: dict[str, list[Any]],
    previous: pl.DataFrame | None,
) -> dict[str, Any]:
    """The period's summary: what the manifest records, and what the list and rejected rows say."""
    manifest = tables.manifest
    return {
        "period": tables.period,
        "table_format": tables.table_format,
        "rule_set": manifest.get("rule_set"),
        "counts": manifest.get("counts"),
        "rows_written": manifest.get("rows_written"),
        "warnings": manifest.get("warnings") or [],
        "finished_at": manifest.get("finished_at"),
        "players": listed.height,
        "status": _counts(listed, c.STATUS),
        "band_moves": _band_moves(listed, previous),
        "gains": _top(listed, columns, descending=True),
        "losses": _top(listed, columns, descending=False),
        "rejected": _counts(tables.rejected, c.REASON) if tables.rejected is not None else [],
        "columns": columns,
        "filters": filters,
        "coded": [name for name in columns if name in filters],
        "pages": (listed.height + PAGE_SIZE - 1) // PAGE_SIZE,
        "page_size": PAGE_SIZE,
        "names": "name" in listed.columns,
        "names_size": NAMES_SIZE,
        "game_columns": list(GAME_COLUMNS),
        "detail_columns": [name for name in DETAIL_COLUMNS if name in listed.columns],
    }


def _counts(frame: pl.DataFrame, name: str) -> list[list[Any]]:
    """[[value, rows]] of a column, most rows first (none where the column is missing)."""
    if name not in frame.columns or frame.height == 0:
        return []
    counted = frame.group_by(pl.col(name).cast(pl.String)).len().sort(["len", name], descending=[True, False])
    return [list(row) for row in counted.head(50).iter_rows()]


def _top(listed: pl.DataFrame, columns: list[str], *, descending: bool) -> list[Any]:
    """The list rows (as the list pages hold them) of the biggest gains or losses of rated players."""
    moved = listed.filter((pl.col(c.CHANGE) > 0) if descending else (pl.col(c.CHANGE) < 0))
    top = moved.sort([c.CHANGE, c.PLAYER_ID], descending=[descending, False]).head(_TOP)
    return [json.loads(text) for text in top.select(array(top, columns)).to_series().to_list()]


def _band_moves(listed: pl.DataFrame, previous: pl.DataFrame | None) -> dict[str, int] | None:
    """Players whose band differs from their band on the period before's list: up (a gain) or down."""
    if previous is None or c.BAND not in listed.columns or c.BAND not in previous.columns:
        return None
    before = previous.select(pl.col(c.PLAYER_ID).cast(pl.String), pl.col(c.BAND).cast(pl.String).alias(w.SITE_CODE))
    moved = listed.select(c.PLAYER_ID, pl.col(c.BAND).cast(pl.String), c.CHANGE).join(before, on=c.PLAYER_ID)
    moved = moved.filter(pl.col(c.BAND) != pl.col(w.SITE_CODE))
    up = moved.filter(pl.col(c.CHANGE) > 0).height
    return {"up": up, "down": moved.height - up}


def _shards(
    period: str, listed: pl.DataFrame, audit: pl.DataFrame, *, history: pl.DataFrame | None, buckets: int
) -> Iterator[SiteFile]:
    """The player shards: {id: [place, history, games, details]} of the players whose id hashes to B,
    made a sixteenth of the shards at a time (``audit``: :func:`_audit_rows`)."""
    needed = [c.PLAYER_ID, w.SITE_POSITION, *(n for n in (c.GAMES, *DETAIL_COLUMNS) if n in listed.columns)]
    keyed = _by_bucket(listed.select(list(dict.fromkeys(needed))), buckets)
    audit = _by_bucket(audit, buckets)
    plain = plain_columns(audit, GAME_COLUMNS)  # checked once, not a group at a time
    points = _by_bucket(history, buckets) if history is not None else None  # joined a group at a time
    step = max(1, buckets // 16)
    for first in range(0, buckets, step):
        part = _bucket_range(keyed, first, first + step)
        if points is not None:
            mine = _bucket_range(points, first, first + step).drop(w.SITE_BUCKET)
            part = part.join(mine, on=c.PLAYER_ID, how="left", maintain_order="left")
        games = _games(_bucket_range(audit, first, first + step), plain)
        texts = _shard_texts(part, games, history=points is not None)
        every = pl.DataFrame(
            {w.SITE_BUCKET: range(first, min(first + step, buckets))}, schema={w.SITE_BUCKET: pl.Int64}
        )
        texts = every.join(texts, on=w.SITE_BUCKET, how="left").with_columns(pl.col(w.SITE_JSON).fill_null("{}"))
        for bucket, text in texts.sort(w.SITE_BUCKET).iter_rows():  # every shard, an empty one too
            yield SiteFile(f"data/{period}/players/{bucket:x}.js", f"players:{period}:{bucket:x}", text)


def _by_bucket(frame: pl.DataFrame, buckets: int) -> pl.DataFrame:
    """``frame`` with each row's shard (SITE_BUCKET, by its ``player_id``), by shard (in order within one)."""
    keyed = frame.with_columns(id_hash(frame[c.PLAYER_ID], buckets).alias(w.SITE_BUCKET))
    return keyed.sort(w.SITE_BUCKET, maintain_order=True)


def _bucket_range(keyed: pl.DataFrame, first: int, stop: int) -> pl.DataFrame:
    """The rows of shards ``first`` to ``stop - 1`` of a frame :func:`_by_bucket` ordered (a slice)."""
    start, end = keyed[w.SITE_BUCKET].search_sorted(pl.Series([first, stop]), side="left").to_list()
    return keyed.slice(start, end - start)


def _shard_texts(part: pl.DataFrame, games: pl.DataFrame, *, history: bool) -> pl.DataFrame:
    """(SITE_BUCKET, SITE_JSON): the shards' JSON text of the players of ``part`` (the list rows of some
    shards, with SITE_BUCKET and, with ``history``, SITE_HISTORY) and their ``games`` (:func:`_games`)."""
    players = part.select(c.PLAYER_ID, w.SITE_POSITION, w.SITE_BUCKET, *([w.SITE_HISTORY] if history else []))
    players = players.join(games, on=c.PLAYER_ID, how="left", maintain_order="left")
    players = players.join(_details(part), on=c.PLAYER_ID, how="left", maintain_order="left")
    parts = [
        literal(w.SITE_POSITION, pl.Int64()),
        pl.col(w.SITE_HISTORY).fill_null("0") if history else pl.lit("0"),
        pl.col(w.SITE_GAMES).fill_null("0"),
        pl.col(w.SITE_JSON).fill_null("0"),
    ]
    key = literal(c.PLAYER_ID, pl.String(), plain=not needs_escapes(players[c.PLAYER_ID]))
    entry = pl.concat_str([key, pl.lit(":["), pl.concat_str(parts, separator=","), pl.lit("]")])
    return players.group_by(w.SITE_BUCKET).agg(joined(entry, "{", "}").alias(w.SITE_JSON))


def _audit_rows(audit: pl.DataFrame | None, listed: pl.DataFrame) -> pl.DataFrame:
    """The period's audit rows with the opponent's name, title and federation from the list (the
    :data:`GAME_COLUMNS`, ``player_id``), by date, event and round."""
    if audit is None:
        audit = pl.DataFrame(schema={c.PLAYER_ID: pl.String, c.OPPONENT_ID: pl.String})
    opponents = listed.select(
        pl.col(c.PLAYER_ID).alias(c.OPPONENT_ID),
        *[pl.col(name).cast(pl.String).alias(f"opponent_{name}") for name in ("name", "title", "federation")
          if name in listed.columns],
    )  # fmt: skip
    audit = audit.with_columns(pl.col(c.PLAYER_ID).cast(pl.String), pl.col(c.OPPONENT_ID).cast(pl.String))
    rows = audit.join(opponents, on=c.OPPONENT_ID, how="left", maintain_order="left")
    rows = rows.with_columns(pl.lit(None, pl.String).alias(n) for n in GAME_COLUMNS if n not in rows.columns)
    rows = rows.select(c.PLAYER_ID, *GAME_COLUMNS)
    return rows.sort([c.DATE, c.EVENT_ID, c.ROUND], nulls_last=True, maintain_order=True)


def _games(rows: pl.DataFrame, plain: frozenset[str]) -> pl.DataFrame:
    """(player_id, SITE_GAMES): each player's audit rows (:func:`_audit_rows`) as one JSON array's text
    (``plain``: the text columns without a character to escape)."""
    return rows.group_by(c.PLAYER_ID).agg(joined(array(rows, GAME_COLUMNS, plain=plain)).alias(w.SITE_GAMES))


def _details(listed: pl.DataFrame) -> pl.DataFrame:
    """(player_id, SITE_JSON): the first-rating and period details of players who played or are pending."""
    names = [name for name in DETAIL_COLUMNS if name in listed.columns]
    played = pl.col(c.GAMES).fill_null(0) > 0 if c.GAMES in listed.columns else pl.lit(True)
    pending = pl.col(c.PENDING).is_not_null() if c.PENDING in listed.columns else pl.lit(False)
    chosen = listed.filter(played | pending)
    return chosen.select(c.PLAYER_ID, array(chosen, names).alias(w.SITE_JSON))


def history_texts(lists: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """(player_id, SITE_HISTORY): each player's points by period as JSON text, ``[i, rating before, rating,
    change, new]`` with ``i`` the period's index among the periods of ``OUT`` (``data/site.js`` lists
    them) and ``new`` 1 for a first rating; ``1`` alone for a player on every list at one rating,
    unchanged and never new (site.js draws it from the list row: most of 1.6M players). Built by one
    join a period onto the last list's players (no group-by of every period's rows).

    Args:
        lists: Each period's list (``player_id``, ``rating_before``, ``rating``, ``change``, ``status``),
            in the order of the periods of ``OUT``.
    """
    acc = lists[-1].select(
        c.PLAYER_ID,
        pl.lit(None, pl.String).alias(w.SITE_HISTORY),
        pl.lit(True).alias(w.SITE_STEADY),
        pl.lit(None, pl.Int16).alias(w.SITE_FIRST),
    )
    for index, frame in enumerate(lists):
        acc = acc.join(_point(frame, index), on=c.PLAYER_ID, how="left", maintain_order="left").select(
            c.PLAYER_ID,
            pl.concat_str([w.SITE_HISTORY, w.SITE_JSON], separator=",", ignore_nulls=True).alias(w.SITE_HISTORY),
            (
                pl.col(w.SITE_STEADY)
                & pl.col(w.SITE_POINT_STEADY).fill_null(False)
                & (pl.col(w.SITE_POINT_RATING).eq_missing(pl.col(w.SITE_FIRST)) if index else pl.lit(True))
            ).alias(w.SITE_STEADY),
            pl.col(w.SITE_FIRST) if index else pl.col(w.SITE_POINT_RATING).alias(w.SITE_FIRST),
        )
        acc = acc.with_columns(pl.col(w.SITE_STEADY) & pl.col(w.SITE_FIRST).is_not_null())
    text = (
        pl.when(pl.col(w.SITE_STEADY))
        .then(pl.lit("1"))
        .otherwise(pl.concat_str([pl.lit("["), w.SITE_HISTORY, pl.lit("]")]))
    )
    return acc.select(pl.col(c.PLAYER_ID).cast(pl.String), text.alias(w.SITE_HISTORY))


def _point(frame: pl.DataFrame, index: int) -> pl.DataFrame:
    """One list's point of each player (SITE_JSON), whether it is steady, and its rating (Int16)."""
    new = pl.col(c.STATUS).cast(pl.String) == "new"
    parts = [literal(name, frame.schema[name]) for name in (c.RATING_BEFORE, c.RATING, c.CHANGE)]
    point = pl.concat_str([pl.lit(f"[{index}"), *parts, new.cast(pl.Int8).cast(pl.String)], separator=",")
    steady = pl.col(c.RATING).eq_missing(pl.col(c.RATING_BEFORE)) & (pl.col(c.CHANGE).fill_null(0) == 0) & ~new
    return frame.select(
        c.PLAYER_ID,
        (point + "]").alias(w.SITE_JSON),
        steady.fill_null(False).alias(w.SITE_POINT_STEADY),
        pl.col(c.RATING).cast(pl.Int16).alias(w.SITE_POINT_RATING),
    )
