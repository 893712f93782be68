"""The site's data of one period, built from its tables with polars: summary, list pages, filters, player shards.

Every file's JSON text is made by expressions over the whole table (:mod:`~elo_batch.reportsite.jsontext`);
Python loops only over files. What each file holds (read by ``assets/site.js``):

- ``data/P/summary.js``: the period's rule set, counts, warnings, band moves, biggest gains and losses,
  rejected rows by reason, the list's columns and each filter's values;
- ``data/P/list/N.js``: the list sorted by rating (highest first, unrated last), :data:`PAGE_SIZE` rows a file;
- ``data/P/filters.js``: for each filter column one character per list row (its value's index);
- ``data/P/names.js``: the list's names, lower case, one a line (search by name), where it has names;
- ``data/P/players/B.js``: the players whose id hashes to B (never named by an id): place in the list,
  history over the periods of ``OUT``, the period's audit rows (opponent's name, title, federation joined),
  the first-rating details.
No rating rules here: every number shown is one the run wrote.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.reportsite.jsontext import array, id_hash, joined, literal

if TYPE_CHECKING:
    from elo_batch import OutputTables

#: List rows a data file holds.
PAGE_SIZE = 1000
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
HISTORY_COLUMNS = (c.PLAYER_ID, c.PERIOD, c.RATING_BEFORE, c.RATING, c.CHANGE, c.STATUS)
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

    Args:
        tables: The period's tables (:func:`elo_batch.read_period`), with its audit and rejected rows.
        history: Every period's list rows of ``OUT`` (:data:`HISTORY_COLUMNS`), or None with one period.
        previous: The period before's list (``player_id``, ``band``) for the band moves, or None.
        buckets: The number of player shards (:func:`buckets_for`).
    """
    listed = list_frame(tables.ratings)
    shown = [n for n in LIST_COLUMNS if n in listed.columns]
    columns = [n for n in shown if n == c.PLAYER_ID or listed[n].null_count() < listed.height]
    filters = _filter_values(listed)
    summary = _summary(tables, listed, columns=columns, filters=filters, previous=previous)
    return summary, _files(tables, listed, summary, history=history, buckets=buckets)


def _files(
    tables: OutputTables, listed: pl.DataFrame, summary: dict[str, Any], *, history: pl.DataFrame | None, buckets: int
) -> Iterator[SiteFile]:
    period = tables.period
    yield SiteFile(f"data/{period}/summary.js", f"summary:{period}", json.dumps(summary, default=str))
    yield from _pages(listed, summary["columns"], period)
    if summary["filters"]:
        yield SiteFile(f"data/{period}/filters.js", f"filters:{period}", _filter_codes(listed, summary["filters"]))
    if "name" in listed.columns:
        names = listed["name"].cast(pl.String).fill_null("").str.to_lowercase().str.replace_all("\n", " ")
        yield SiteFile(f"data/{period}/names.js", f"names:{period}", json.dumps("\n".join(names.to_list())))
    yield from _shards(tables, listed, history=history, buckets=buckets)


def list_frame(ratings: pl.DataFrame) -> pl.DataFrame:
    """The list as the site shows it: by rating, highest first (unrated last), then ``player_id``; with
    each row's place (``SITE_POSITION``) and data file (``SITE_PAGE``)."""
    ordered = ratings.with_columns(pl.col(c.PLAYER_ID).cast(pl.String)).sort(
        [c.RATING, c.PLAYER_ID], descending=[True, False], nulls_last=True
    )
    position = pl.int_range(pl.len(), dtype=pl.Int64)
    return ordered.with_columns(position.alias(w.SITE_POSITION), (position // PAGE_SIZE).alias(w.SITE_PAGE))


def _pages(listed: pl.DataFrame, columns: list[str], period: str) -> Iterator[SiteFile]:
    """The list's data files, :data:`PAGE_SIZE` rows each."""
    pages = (
        listed.select(w.SITE_PAGE, array(listed, columns).alias(w.SITE_JSON))
        .group_by(w.SITE_PAGE, maintain_order=True)
        .agg(joined(pl.col(w.SITE_JSON)))
    )
    for page, text in pages.iter_rows():
        yield SiteFile(f"data/{period}/list/{page}.js", f"list:{period}:{page}", text)


def _filter_values(listed: pl.DataFrame) -> dict[str, list[Any]]:
    """Each filter column's values, sorted (columns absent, empty or with too many values left out)."""
    found: dict[str, list[Any]] = {}
    for name in FILTERS:
        if name in listed.columns:
            values = listed[name].drop_nulls().unique().sort()
            if 0 < values.len() <= MAX_FILTER_VALUES:
                found[name] = values.cast(pl.String).to_list()
    return found


def _filter_codes(listed: pl.DataFrame, filters: dict[str, list[Any]]) -> str:
    """JSON of {column: one character per list row}: ``chr(48 + index)`` of its value, ``/`` for none."""
    codes: dict[str, str] = {}
    for name, values in filters.items():
        index = pl.DataFrame({w.SITE_JSON: values, w.SITE_CODE: range(len(values))})
        coded = listed.select(pl.col(name).cast(pl.String).alias(w.SITE_JSON)).join(
            index, on=w.SITE_JSON, how="left", maintain_order="left"
        )
        chars = (coded[w.SITE_CODE] + 48).fill_null(47).cast(pl.UInt32)
        codes[name] = bytes(chars.to_numpy().astype("<u4").tobytes()).decode("utf-32-le")
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
        "pages": int(listed.height + PAGE_SIZE - 1) // PAGE_SIZE,
        "page_size": PAGE_SIZE,
        "names": "name" in listed.columns,
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
    tables: OutputTables, listed: pl.DataFrame, *, history: pl.DataFrame | None, buckets: int
) -> Iterator[SiteFile]:
    """The player shards: {id: [place, history, games, details]} of the players whose id hashes to B."""
    period = tables.period
    players = listed.select(c.PLAYER_ID, w.SITE_POSITION).join(
        _games(tables, listed), on=c.PLAYER_ID, how="left", maintain_order="left"
    )
    players = players.join(_details(listed), on=c.PLAYER_ID, how="left", maintain_order="left")
    if history is not None:
        players = players.join(_history(history), on=c.PLAYER_ID, how="left", maintain_order="left")
    parts = [
        literal(w.SITE_POSITION, pl.Int64()),
        pl.col(w.SITE_HISTORY).fill_null("0") if history is not None else pl.lit("0"),
        pl.col(w.SITE_GAMES).fill_null("0"),
        pl.col(w.SITE_JSON).fill_null("0"),
    ]
    entry = pl.concat_str(
        [literal(c.PLAYER_ID, pl.String()), pl.lit(":["), pl.concat_str(parts, separator=","), pl.lit("]")]
    )
    shards = (
        players.with_columns(id_hash(players[c.PLAYER_ID], buckets).alias(w.SITE_BUCKET))
        .group_by(w.SITE_BUCKET)
        .agg(joined(entry, "{", "}").alias(w.SITE_JSON))
    )
    every = pl.DataFrame({w.SITE_BUCKET: range(buckets)}, schema={w.SITE_BUCKET: pl.Int64})
    shards = every.join(shards, on=w.SITE_BUCKET, how="left").with_columns(pl.col(w.SITE_JSON).fill_null("{}"))
    for bucket, text in shards.sort(w.SITE_BUCKET).iter_rows():  # every shard, an empty one too
        yield SiteFile(f"data/{period}/players/{bucket:x}.js", f"players:{period}:{bucket:x}", text)


def _games(tables: OutputTables, listed: pl.DataFrame) -> pl.DataFrame:
    """(player_id, SITE_GAMES): each player's audit rows of the period as one JSON array's text."""
    audit = (
        tables.audit if tables.audit is not None else pl.DataFrame({c.PLAYER_ID: []}, schema={c.PLAYER_ID: pl.String})
    )
    opponents = listed.select(
        pl.col(c.PLAYER_ID).alias(c.OPPONENT_ID),
        *[pl.col(name).cast(pl.String).alias(f"opponent_{name}") for name in ("name", "title", "federation")
          if name in listed.columns],
    )  # fmt: skip
    audit = audit.with_columns(pl.col(c.PLAYER_ID).cast(pl.String), pl.col(c.OPPONENT_ID).cast(pl.String))
    rows = audit.join(opponents, on=c.OPPONENT_ID, how="left", maintain_order="left")
    rows = rows.with_columns(pl.lit(None, pl.String).alias(n) for n in GAME_COLUMNS if n not in rows.columns)
    rows = rows.sort([c.DATE, c.EVENT_ID, c.ROUND], nulls_last=True, maintain_order=True)
    return rows.group_by(c.PLAYER_ID).agg(joined(array(rows, GAME_COLUMNS)).alias(w.SITE_GAMES))


def _details(listed: pl.DataFrame) -> pl.DataFrame:
    """(player_id, SITE_JSON): the first-rating and period details of players who played or are pending."""
    names = [name for name in DETAIL_COLUMNS if name in listed.columns]
    played = pl.col(c.GAMES).fill_null(0) > 0 if c.GAMES in listed.columns else pl.lit(True)
    pending = pl.col(c.PENDING).is_not_null() if c.PENDING in listed.columns else pl.lit(False)
    chosen = listed.filter(played | pending)
    return chosen.select(c.PLAYER_ID, array(chosen, names).alias(w.SITE_JSON))


def _history(history: pl.DataFrame) -> pl.DataFrame:
    """(player_id, SITE_HISTORY): each player's [period, rating before, rating, change, status] by period."""
    ordered = history.sort(c.PERIOD)
    return ordered.group_by(c.PLAYER_ID).agg(joined(array(ordered, HISTORY_COLUMNS[1:])).alias(w.SITE_HISTORY))
