"""An empty rating list (a CSV header alone, a Parquet file of no rows, a frame of no rows, whatever the
type of its id column) is a list on which no player is: every player of the games is unrated, as on a
list without them (issue 20, item 10). Integer ids in the games (Parquet, frames) meet it as text ids do.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import elo_batch
from tests.conftest import read_table

GAMES = pl.DataFrame(
    {
        "white_id": [1, 2, 1, 3],
        "black_id": [3, 4, 4, 2],
        "result": ["1-0", "0-1", "1/2-1/2", "1-0"],
        "date": ["2025-11-03", "2025-11-04", "2025-11-05", "2025-11-06"],
    }
)
#: A player of no game: the list that holds only him is the reference an empty list must equal.
STRANGER = 99
ID_TYPES = [pl.Int64, pl.Int32, pl.UInt64, pl.String, pl.Null]


def _list(dtype: pl.DataType, players: list[int]) -> pl.DataFrame:
    ids = pl.Series(players, dtype=pl.Int64).cast(pl.String if dtype == pl.Null else dtype)
    return pl.DataFrame({"player_id": ids, "rating": pl.Series([2100] * len(players), dtype=pl.Int64)})


def _without_stranger(result: elo_batch.PeriodResult) -> tuple[pl.DataFrame, pl.DataFrame]:
    ratings = result.ratings.filter(pl.col("player_id").cast(pl.String) != str(STRANGER))
    return ratings, result.audit.collect()


@pytest.mark.parametrize("games_ids", [pl.Int64, pl.Int32, pl.String])
@pytest.mark.parametrize("list_ids", ID_TYPES, ids=str)
def test_an_empty_list_frame_rates_as_a_list_without_the_players(games_ids, list_ids) -> None:
    games = GAMES.with_columns(pl.col("white_id", "black_id").cast(games_ids))
    empty = pl.DataFrame({"player_id": pl.Series([], dtype=list_ids), "rating": pl.Series([], dtype=pl.Int64)})

    got = elo_batch.rate_period(games, period="2025-11", ratings=empty)

    reference = elo_batch.rate_period(games, period="2025-11", ratings=_list(list_ids, [STRANGER]))
    want_ratings, want_audit = _without_stranger(reference)
    assert got.ratings.equals(want_ratings)
    assert got.audit.collect().equals(want_audit)
    assert got.audit_rows == 2 * GAMES.height and got.rejected.height == 0


@pytest.mark.parametrize("games_ids", [pl.Int64, pl.String])
@pytest.mark.parametrize("form", ["csv", "parquet-int", "parquet-text"])
def test_an_empty_list_file_is_exit_0_every_player_unrated(cli, tmp_path: Path, games_ids, form) -> None:
    games = tmp_path / "games.parquet"
    GAMES.with_columns(pl.col("white_id", "black_id").cast(games_ids)).write_parquet(games)
    if form == "csv":
        empty = tmp_path / "list.csv"
        empty.write_text("player_id,rating\n", encoding="utf-8")
    else:
        empty = tmp_path / "list.parquet"
        _list(pl.Int64 if form == "parquet-int" else pl.String, []).write_parquet(empty)

    result = cli("run", games, "--period", "2025-11", "--ratings", empty, "--out", tmp_path / "out")

    assert result.exit_code == 0, result.output
    audit = read_table(tmp_path / "out", "audit", "2025-11")
    assert audit.height == 2 * GAMES.height
    assert not audit["counted"].any()  # no rated player: no game is rated (B.02 6.1 in its wider reading)
    assert read_table(tmp_path / "out", "rejected", "2025-11").height == 0


def test_an_empty_games_file_of_integer_ids_with_an_empty_list_is_exit_0(cli, tmp_path: Path) -> None:
    games, empty = tmp_path / "games.parquet", tmp_path / "list.parquet"
    GAMES.clear().write_parquet(games)
    _list(pl.Int64, []).write_parquet(empty)

    result = cli("run", games, "--period", "2025-11", "--ratings", empty, "--out", tmp_path / "out")

    assert result.exit_code == 0, result.output
    assert read_table(tmp_path / "out", "ratings", "2025-11").height == 0
