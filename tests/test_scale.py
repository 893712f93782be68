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


LIST = "player_id,rating,k\nA,2000,20\nB,1900,20\nC,2100,10\n"
# game_id, date, white, black, result: a rated win, its exact repeat, a forfeit, a bad result, a game
# against a player absent from the list, a game of the next month, a draw, and a game_id reused with
# other content (both rows rejected).
GAMES = [
    ("g1", "2025-11-03", "A", "B", "1-0"),
    ("g1", "2025-11-03", "A", "B", "1-0"),
    ("g2", "2025-11-04", "A", "C", "+--"),
    ("g3", "2025-11-05", "B", "C", "2-0"),
    ("g4", "2025-11-06", "N1", "A", "1/2-1/2"),
    ("g5", "2025-12-01", "A", "B", "0-1"),
    ("g6", "2025-11-07", "C", "B", "1/2-1/2"),
    ("g7", "2025-11-08", "A", "B", "1-0"),
    ("g7", "2025-11-08", "A", "B", "0-1"),
]


def _games_parquet(tmp_path: Path) -> Path:
    path = tmp_path / "games.parquet"
    pl.DataFrame(GAMES, schema=["game_id", "date", "white_id", "black_id", "result"], orient="row").write_parquet(path)
    return path


def _outputs(out: Path, period: str) -> dict[str, pl.DataFrame]:
    return {table: read_table(out, table, period) for table in ("ratings", "audit", "rejected")}


def test_chunks_of_two_rows_give_the_outputs_of_one_chunk(cli, tmp_path: Path) -> None:
    """--chunk-rows 2 streams the Parquet file in chunks of 2 rows: every table is the same.

    A (2000, K 20) beats B (1900): D 100, PD 0.64, +0.36 x 20 = +7.2; B also draws C (2100): D -200,
    PD 0.24, +0.26 x 20 = +5.2, so B -7.2 + 5.2 = -2.0; C (K 10): 0.5 - 0.76 = -0.26 x 10 = -2.6 -> -3.
    """
    games = _games_parquet(tmp_path)
    lst = write_csv(tmp_path / "list.csv", LIST)
    whole, chunked = tmp_path / "whole", tmp_path / "chunked"

    first = cli.run(f"run {games} --ratings {lst} --period 2025-11..2025-12", whole)
    second = cli.run(f"run {games} --ratings {lst} --period 2025-11..2025-12 --chunk-rows 2", chunked)

    assert first.exit_code == 0, first.output
    assert second.exit_code == 0, second.output
    assert first.output.replace(str(whole), "OUT") == second.output.replace(str(chunked), "OUT")
    for period in ("2025-11", "2025-12"):
        for table, frame in _outputs(whole, period).items():
            assert frame.equals(_outputs(chunked, period)[table]), (period, table)
    november = read_table(chunked, "ratings", "2025-11").filter(pl.col("player_id").is_in(["A", "B", "C"]))
    assert november["rating"].to_list() == [2007, 1898, 2097]
    audit = read_table(chunked, "audit", "2025-11")
    assert audit.filter(~pl.col("counted"))["reason"].to_list() == [
        "duplicate row", "duplicate row", "forfeit", "forfeit", "pending first rating", "unrated opponent",
    ]  # fmt: skip
    assert sorted(read_table(chunked, "rejected", "2025-11")["source_row"].to_list()) == [4, 8, 9]


def test_a_64_bit_hash_collision_falls_back_to_the_ids_themselves(cli, tmp_path: Path, monkeypatch) -> None:
    """Ids and game_ids are matched through 64-bit hashes; a hash that collides must not change a result.

    With a hash that is the id's length, the list's A, BB and CCC hash apart but N1 (absent from the
    list) collides with BB, and every game_id collides with every other.
    """
    games = tmp_path / "games.csv"
    rows = [(g, d, {"B": "BB", "C": "CCC"}.get(w, w), {"B": "BB", "C": "CCC"}.get(b, b), r) for g, d, w, b, r in GAMES]
    pl.DataFrame(rows, schema=["game_id", "date", "white_id", "black_id", "result"], orient="row").write_csv(games)
    lst = write_csv(tmp_path / "list.csv", LIST.replace("B,", "BB,").replace("C,", "CCC,"))
    args = f"run {games} --ratings {lst} --period 2025-11"
    cli.run(args, tmp_path / "hashed")

    monkeypatch.setattr(
        pl.Expr, "hash", lambda self, *args, **kwargs: self.cast(pl.String).str.len_bytes().cast(pl.UInt64)
    )
    result = cli.run(args, tmp_path / "colliding")

    assert result.exit_code == 0, result.output
    for table, frame in _outputs(tmp_path / "hashed", "2025-11").items():
        assert frame.equals(_outputs(tmp_path / "colliding", "2025-11")[table]), table
    ratings = read_table(tmp_path / "colliding", "ratings", "2025-11")
    assert ratings.filter(pl.col("player_id").is_in(["A", "BB", "CCC"]))["rating"].to_list() == [2007, 1898, 2097]
