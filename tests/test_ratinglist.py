"""Reading the list in force: typed Parquet lists, pass-through columns, fatal list errors."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from elo_batch.inputs.ratinglist import load_rating_list
from tests.conftest import write_csv


def test_a_large_typed_parquet_list_loads(tmp_path: Path) -> None:
    """30,000 players with Boolean and integer state columns (a polars 2.1 scalar-filter fault hit this)."""
    n = 30_000
    path = tmp_path / "list.parquet"
    pl.DataFrame(
        {
            "player_id": [str(i) for i in range(n)],
            "rating": [1800] * n,
            "k": [20] * n,
            "reached_2400": [False] * n,
            "reached_2300": [None] * n,
            "games_total": [40] * n,
        },
        schema_overrides={"reached_2300": pl.Boolean},
    ).write_parquet(path)
    table, info = load_rating_list(str(path))
    assert table.height == n
    assert info.rows == n
    assert table["reached_2400"].sum() == 0


def test_text_flags_and_numbers_are_parsed(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "l.csv", "player_id,rating,k,reached_2400,birth_year,club\n007,2410,10,yes,1990,Oslo\n7,,,,,"
    )
    table, _ = load_rating_list(str(path))
    assert table["player_id"].to_list() == ["007", "7"]
    assert table["rating"].to_list() == [2410.0, None]
    assert table["reached_2400"].to_list() == [True, None]
    assert table["club"].to_list() == ["Oslo", None]
