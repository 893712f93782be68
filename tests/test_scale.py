"""Large inputs: lists and periods bigger than the small cases, and chunked execution."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from elo_batch.outputs.encode import write_table
from tests.conftest import read_table, reconciliation, write_csv


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


def test_sums_added_a_row_at_a_time_give_the_outputs_of_one_pass(cli, tmp_path: Path, monkeypatch) -> None:
    """The per-player sums rate the period table in slices (_SUM_ROWS rows): slices of one row give
    the same tables and the same row accounting (duplicates, forfeits, pending first ratings)."""
    games = _games_parquet(tmp_path)
    lst = write_csv(tmp_path / "list.csv", LIST)
    whole, sliced = tmp_path / "whole", tmp_path / "sliced"

    first = cli.run(f"run {games} --ratings {lst} --period 2025-11..2025-12", whole)
    monkeypatch.setattr("elo_batch.engine.period._SUM_ROWS", 1)
    second = cli.run(f"run {games} --ratings {lst} --period 2025-11..2025-12", sliced)

    assert first.exit_code == 0 and second.exit_code == 0, first.output + second.output
    assert first.output.replace(str(whole), "OUT") == second.output.replace(str(sliced), "OUT")
    for period in ("2025-11", "2025-12"):
        for table, frame in _outputs(whole, period).items():
            assert frame.equals(_outputs(sliced, period)[table]), (period, table)
    november = read_table(sliced, "ratings", "2025-11").filter(pl.col("player_id").is_in(["A", "B", "C"]))
    assert november["rating"].to_list() == [2007, 1898, 2097]
    # counted: g1, g6; not counted: g1's repeat, the forfeit g2, g4 (N1 unrated); g5 is December;
    # rejected: g3 (2-0) and both g7 rows
    assert reconciliation(second.output) == {"read": 9, "counted": 2, "not_counted": 3, "other": 1, "rejected": 3}


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


INTEGER_GAMES = [  # game_id, date, white_id, black_id, result
    (1, "2025-11-03", 10, 20, "1-0"),
    (2, "2025-11-04", 20, 30, "1/2-1/2"),
    (3, "2025-11-05", 10, 40, "1-0"),
    (4, "2025-11-06", 10, 20, "1-0"),
    (4, "2025-11-06", 10, 20, "0-1"),
]


def _text_games(rows: list[tuple]) -> str:
    return "game_id,date,white_id,black_id,result\n" + "\n".join(",".join(map(str, row)) for row in rows)


def _without_sources(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame without the file and row of each line, also where a rejection reason names them."""
    frame = frame.drop("source_file", "source_row", strict=False)
    if "game_id" in frame.columns:  # an integer game_id column stays Int64
        frame = frame.with_columns(pl.col("game_id").cast(pl.String))
    if "raw" in frame.columns:
        frame = frame.with_columns(pl.col("reason").str.replace_all(r"\S+ row \d+", "FILE ROW"))
    return frame


@pytest.mark.parametrize("inputs", ["parquet", "parquet far ids", "parquet and csv"])
def test_integer_ids_give_the_outputs_of_the_same_ids_as_text(cli, tmp_path: Path, inputs: str) -> None:
    """Integer id columns are looked up as integers (a dense table, or a join when the listed ids span too
    many values); an id matches the list's text exactly: 30 is '30', never '0030'.

    10 (2000, K 20) beats 20 (1900): D 100, PD 0.64, +0.36 x 20 = +7.2 -> +7; 20 also draws 30 (2100):
    D -200, PD 0.24, +0.26 x 20 = +5.2, so 20 -7.2 + 5.2 = -2.0; 30 (K 10): 0.5 - 0.76 = -0.26 x 10 = -2.6
    -> -3. '0030' plays no game; 40 is not listed (pending); both rows of game_id 4 are rejected.
    """
    far = "\n1000000000000,1800,20" if inputs == "parquet far ids" else ""
    lst = write_csv(tmp_path / "list.csv", "player_id,rating,k\n10,2000,20\n20,1900,20\n30,2100,10\n0030,1500,20" + far)
    csv_games = write_csv(tmp_path / "games.csv", _text_games(INTEGER_GAMES))
    schema = {"game_id": pl.Int64, "date": pl.String, "white_id": pl.Int32, "black_id": pl.Int64, "result": pl.String}
    typed = pl.DataFrame(INTEGER_GAMES, schema=schema, orient="row")
    if inputs == "parquet and csv":
        typed.head(2).write_parquet(tmp_path / "a.parquet")
        games = f"{tmp_path / 'a.parquet'} {write_csv(tmp_path / 'b.csv', _text_games(INTEGER_GAMES[2:]))}"
    else:
        typed.write_parquet(tmp_path / "a.parquet")
        games = str(tmp_path / "a.parquet")

    as_text = cli.run(f"run {csv_games} --ratings {lst} --period 2025-11", tmp_path / "text")
    as_integers = cli.run(f"run {games} --ratings {lst} --period 2025-11", tmp_path / "integers")

    assert as_text.exit_code == 0, as_text.output
    assert as_integers.exit_code == 0, as_integers.output
    for table, frame in _outputs(tmp_path / "text", "2025-11").items():
        assert _without_sources(frame).equals(_without_sources(_outputs(tmp_path / "integers", "2025-11")[table]))
    ratings = read_table(tmp_path / "integers", "ratings", "2025-11")
    changes = dict(ratings.select("player_id", "change").iter_rows())
    assert {player: changes[player] for player in ("10", "20", "30", "0030")} == {
        "10": 7,
        "20": -2,
        "30": -3,
        "0030": 0,
    }
    rejected = read_table(tmp_path / "integers", "rejected", "2025-11")
    assert rejected["value"].to_list() == ["4", "4"]
    assert '"white_id":"10"' in rejected["raw"][0]


def test_a_frame_is_written_in_the_same_bytes_however_it_is_chunked(tmp_path: Path) -> None:
    """Row groups have a fixed size, not the sizes of the frame's chunks (a streamed sort chunks differently
    from run to run)."""
    frame = pl.DataFrame({"player_id": [f"P{i}" for i in range(250_000)], "rating": range(250_000)})
    chunked = pl.concat([frame.slice(0, 70_000), frame.slice(70_000, 30_000), frame.slice(100_000)], rechunk=False)

    write_table(frame, tmp_path / "whole.parquet", "parquet")
    write_table(chunked, tmp_path / "chunked.parquet", "parquet")

    assert chunked.n_chunks() == 3
    assert (tmp_path / "whole.parquet").read_bytes() == (tmp_path / "chunked.parquet").read_bytes()
