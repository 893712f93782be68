"""Rows that contradict their event: each event's attributes merged from the events file and its rows.

What is refused here (a row against the events file, an event whose rows disagree, a match of more
than two players) is rejected with its reason by :func:`elo_batch.engine.events.reduce_events`.
"""

from __future__ import annotations

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.contract.schemas import CANONICAL_SCHEMA, EVENT_ATTRIBUTE_TYPES, EVENT_ROWS_SCHEMA, REJECTED_SCHEMA


def event_attributes(
    table: pl.DataFrame | None, event_rows: pl.DataFrame | None, by_event: bool
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Each event's attributes (the events file's, else its rows' one value), the rows refused one by one
    (``row_key``, ``column``, ``value``, ``reason``) and the events refused whole (``event_id``, ...).

    One plan over both inputs for every attribute, collected once (not a few eager steps per attribute:
    15 ms of a 65 ms run of a few games, measured); without events, only its schemas.
    """
    names = [*EVENT_ATTRIBUTE_TYPES, *([c.PERIOD] if by_event else [])]
    schema = {c.EVENT_ID: pl.String(), **{**EVENT_ATTRIBUTE_TYPES, c.PERIOD: pl.String()}}
    given = (table if table is not None else pl.DataFrame(schema=schema)).lazy()
    on_rows = (event_rows if event_rows is not None else pl.DataFrame(schema=EVENT_ROWS_SCHEMA)).lazy()
    merged = pl.concat([given.select(c.EVENT_ID), on_rows.select(c.EVENT_ID)]).unique(maintain_order=True)
    rows_refused, events_refused = [], []
    for name in names:
        file_value = given.select(c.EVENT_ID, pl.col(name).alias(w.FILE_VALUE)).filter(
            pl.col(w.FILE_VALUE).is_not_null()
        )
        row_value = on_rows.select("row_key", c.EVENT_ID, name).filter(pl.col(name).is_not_null())
        by_rows = (
            row_value.join(file_value, on=c.EVENT_ID, how="anti")
            .group_by(c.EVENT_ID)
            .agg(pl.col(name).unique().sort().alias(w.VALUES))
        )
        rows_refused.append(_against_file(row_value, file_value, name))
        events_refused.append(_clashing(by_rows, name))
        merged = _merged(merged, file_value, by_rows, name=name, dtype=schema[name])
    refused_events = pl.concat(events_refused).unique(c.EVENT_ID, keep="first", maintain_order=True)
    none = table is None and event_rows is None  # no events: no attributes, nothing refused
    attributes, refused_rows, refused = collected(
        [merged, pl.concat(rows_refused), refused_events], none=[none, none, none]
    )
    return attributes, refused_rows, refused


def collected(plans: list[pl.LazyFrame], *, none: list[bool]) -> list[pl.DataFrame]:
    """Each plan's rows, the plans run together by the in-memory engine (as polars' eager steps run:
    ``unique(keep="first")`` and the joins' order as they give them); a plan that ``none`` says has no
    rows (its rows come from an input without any) is not run: its empty table, typed from its schema.
    Most runs have no events, and a plan of a few steps costs about a millisecond even on empty frames."""
    pairs = list(zip(plans, none, strict=True))
    ran = iter(pl.collect_all([plan for plan, empty in pairs if not empty], engine="in-memory"))
    return [pl.DataFrame(schema=plan.collect_schema()) if empty else next(ran) for plan, empty in pairs]


def _against_file(row_value: pl.LazyFrame, file_value: pl.LazyFrame, name: str) -> pl.LazyFrame:
    """The rows refused one by one: attribute ``name`` differs from the events file's."""
    against = row_value.join(file_value, on=c.EVENT_ID).filter(pl.col(name) != pl.col(w.FILE_VALUE))
    return against.select(
        "row_key",
        pl.lit(name).alias(c.COLUMN),
        pl.col(name).cast(pl.String).alias(c.VALUE),
        pl.format(
            "event '{}' has {} '{}' in the events file, this row gives '{}'. Hint: give the event's "
            "attributes once, in the events file, or the same on each of its rows.",
            c.EVENT_ID,
            pl.lit(name),
            pl.col(w.FILE_VALUE).cast(pl.String),
            pl.col(name).cast(pl.String),
        ).alias(c.REASON),
    )


def _clashing(by_rows: pl.LazyFrame, name: str) -> pl.LazyFrame:
    """The events refused whole: their rows give two values of ``name`` that the events file does not give."""
    clash = by_rows.filter(pl.col(w.VALUES).list.len() > 1)
    return clash.select(
        c.EVENT_ID,
        pl.lit(name).alias(c.COLUMN),
        pl.lit(None, pl.String).alias(c.VALUE),
        pl.format(
            "event '{}': its rows give different values of {} ({}); an event has one. Hint: give it "
            "once, in the events file, or the same on each of the event's rows.",
            c.EVENT_ID,
            pl.lit(name),
            pl.col(w.VALUES).cast(pl.List(pl.String)).list.join(", "),
        ).alias(c.REASON),
    )


def _merged(
    merged: pl.LazyFrame, file_value: pl.LazyFrame, by_rows: pl.LazyFrame, *, name: str, dtype: pl.DataType
) -> pl.LazyFrame:
    """``merged`` with attribute ``name`` of each event: the events file's, else its rows' one value."""
    one = by_rows.filter(pl.col(w.VALUES).list.len() == 1).select(
        c.EVENT_ID, pl.col(w.VALUES).list.first().alias(w.ROWS_VALUE)
    )
    return (
        merged.join(file_value, on=c.EVENT_ID, how="left", maintain_order="left")
        .join(one, on=c.EVENT_ID, how="left", maintain_order="left")
        .with_columns(pl.coalesce(w.FILE_VALUE, w.ROWS_VALUE).cast(dtype).alias(name))
        .drop(w.FILE_VALUE, w.ROWS_VALUE)
    )


def crowded_matches(match_rows: pl.LazyFrame) -> pl.LazyFrame:
    """Matches whose games have more than two players, refused whole."""
    players = pl.concat(
        [
            match_rows.select(c.EVENT_ID, pl.col(c.WHITE_ID).cast(pl.String).alias(w.MATCH_PLAYER)),
            match_rows.select(c.EVENT_ID, pl.col(c.BLACK_ID).cast(pl.String).alias(w.MATCH_PLAYER)),
        ]
    ).drop_nulls()
    crowded = players.group_by(c.EVENT_ID, maintain_order=True).agg(pl.col(w.MATCH_PLAYER).unique().sort())
    return crowded.filter(pl.col(w.MATCH_PLAYER).list.len() > 2).select(
        c.EVENT_ID,
        pl.lit(c.EVENT_TYPE).alias(c.COLUMN),
        pl.lit(c.MATCH).alias(c.VALUE),
        pl.format(
            "event '{}' is a match, but its games have {} players ({}). Hint: a match is played by two "
            "players; give other events event_type tournament.",
            c.EVENT_ID, pl.col(w.MATCH_PLAYER).list.len(), pl.col(w.MATCH_PLAYER).list.join(", "),
        ).alias(c.REASON),
    )  # fmt: skip


def first_reasons(picked: pl.LazyFrame, rows: pl.LazyFrame, events: pl.LazyFrame) -> pl.LazyFrame:
    """The refused rows (canonical columns, ``column``, ``value``, ``reason``): each row's first reason."""
    one_by_one = picked.join(rows, on="row_key", how="inner")
    whole = picked.join(events, on=c.EVENT_ID, how="inner")
    return pl.concat([whole, one_by_one]).unique("row_key", keep="first").sort("row_key")


def rejected_rows(refused: pl.LazyFrame) -> pl.LazyFrame:
    content = [name for name in CANONICAL_SCHEMA if name not in ("row_key", c.SOURCE_FILE, c.SOURCE_ROW, "duplicate")]
    return refused.select(
        "row_key",
        c.PERIOD,
        c.SOURCE_FILE,
        c.SOURCE_ROW,
        c.COLUMN,
        c.VALUE,
        c.REASON,
        pl.struct(content)
        .struct.with_fields(*(pl.field(name).cast(pl.String) for name in (c.WHITE_ID, c.BLACK_ID, c.GAME_ID)))
        .struct.json_encode()
        .alias(c.RAW),
    ).cast({"row_key": pl.Int64(), **REJECTED_SCHEMA})  # type: ignore[arg-type, dict-item]
