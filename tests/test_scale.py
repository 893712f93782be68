"""Large inputs: lists and periods bigger than the small cases, and chunked execution."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from tests.conftest import read_table, write_csv


def test_a_typed_parquet_list_of_70000_players_is_read(cli, tmp_path: Path) -> None:
    """Boolean and integer list columns over 65,536 rows (polars splits such frames into parts)."""
    players = 70_000
    pl.DataFrame(
        {
            "player_id": [f"P{i}" for i in range(players)],
            "rating": [2000] * players,
            "k": [20] * players,
            "reached_2400": [False] * players,
        }
    ).write_parquet(tmp_path / "list.parquet")
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n2025-11-03,P0,P1,1-0")

    result = cli.run(f"run {games} --ratings {tmp_path / 'list.parquet'} --period 2025-11")

    assert result.exit_code == 0, result.output
    ratings = read_table(tmp_path / "out", "ratings", "2025-11")
    assert ratings.height == players
    # equal ratings, K 20: win +0.50 x 20 = +10, loss -10
    assert ratings.filter(pl.col("player_id").is_in(["P0", "P1"]))["change"].to_list() == [10, -10]
