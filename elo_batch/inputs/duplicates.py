"""Repeated game_ids over a run's files: exact repeats flagged, reused ids with other content rejected."""

from __future__ import annotations

import collections
from typing import Literal

import polars as pl

from elo_batch import columns as c
from elo_batch.inputs.gamerules import CANONICAL_SCHEMA, REJECTED_SCHEMA


def mark_duplicates(
    rows: pl.DataFrame | pl.LazyFrame,
) -> tuple[pl.DataFrame | pl.LazyFrame, pl.DataFrame, dict[str, int]]:
    """Flag exact repeats of a game_id and reject game_ids reused with different content; count the
    rows kept by period.

    Only rows whose game_id occurs more than once are compared, content against content; all game_ids
    distinct (the usual case) is seen from the ids alone (integers) or their 64-bit hashes (text), in
    the same pass as the counts.
    """
    engine: Literal["in-memory", "streaming"] = "in-memory" if isinstance(rows, pl.DataFrame) else "streaming"
    plan = rows.lazy()
    game_id = pl.col(c.GAME_ID)
    key = game_id if plan.collect_schema()[c.GAME_ID].is_integer() else game_id.hash()
    seen, by_period = pl.collect_all(
        [plan.select(pl.when(game_id.is_not_null()).then(key).alias("__key")), plan.group_by(c.PERIOD).len()],
        engine="streaming",
    )
    period_rows = collections.Counter(dict(by_period.iter_rows()))
    keys = seen["__key"].drop_nulls()
    if keys.n_unique() == keys.len():  # distinct keys: distinct game_ids
        return rows, pl.DataFrame(schema=REJECTED_SCHEMA), dict(period_rows)
    repeated = keys.filter(keys.is_duplicated()).unique()
    candidates = plan.filter(game_id.is_not_null() & key.is_in(repeated.implode()))
    flagged, reused = compare_repeats(candidates.collect(engine=engine))
    period_rows.subtract(_by_period(flagged.filter("__conflict")))
    marked = plan.with_columns(
        pl.col("row_key").is_in(flagged.filter("duplicate")["row_key"].implode()).alias("duplicate")
    ).filter(~pl.col("row_key").is_in(flagged.filter("__conflict")["row_key"].implode()))
    return (marked.collect() if engine == "in-memory" else marked), reused, dict(period_rows)


def _by_period(rows: pl.DataFrame) -> dict[str, int]:
    return dict(rows.group_by(c.PERIOD).len().iter_rows())  # type: ignore[arg-type]


def compare_repeats(rows: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``duplicate`` and ``__conflict`` of rows whose game_ids repeat, and the rejected conflicting rows."""
    content = [name for name in CANONICAL_SCHEMA if name not in ("row_key", c.SOURCE_FILE, c.SOURCE_ROW, "duplicate")]
    has_id = pl.col(c.GAME_ID).is_not_null()
    flagged = rows.with_columns(
        (has_id & (pl.struct(content).n_unique().over(c.GAME_ID) > 1)).alias("__conflict"),
        (has_id & ~pl.struct(content).is_first_distinct()).alias("duplicate"),
    )
    conflict = flagged.filter("__conflict")
    if conflict.height == 0:
        return flagged, pl.DataFrame(schema=REJECTED_SCHEMA)
    row = pl.format("row {}", c.SOURCE_ROW)
    place = pl.when(pl.col(c.SOURCE_FILE).is_null()).then(row).otherwise(pl.format("{} {}", c.SOURCE_FILE, row))
    where = conflict.group_by(c.GAME_ID, maintain_order=True).agg(place.str.join(", ").alias("__where"))
    reused = conflict.join(where, on=c.GAME_ID, how="left", maintain_order="left").select(
        pl.col(c.PERIOD),
        pl.col(c.SOURCE_FILE),
        pl.col(c.SOURCE_ROW),
        pl.lit(c.GAME_ID).alias(c.COLUMN),
        pl.col(c.GAME_ID).alias(c.VALUE),
        pl.format(
            "game_id '{}' is used by rows with different content ({}). Hint: give each game its own game_id.",
            c.GAME_ID,
            "__where",
        ).alias(c.REASON),
        pl.struct(content)
        .struct.with_fields(*(pl.field(name).cast(pl.String) for name in (c.WHITE_ID, c.BLACK_ID, c.GAME_ID)))
        .struct.json_encode()
        .alias(c.RAW),  # ids as text, as a CSV file gives them
    )
    return flagged, reused.cast(REJECTED_SCHEMA)  # type: ignore[arg-type]
