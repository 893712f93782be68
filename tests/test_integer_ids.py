"""Integer ids keep their type: when the list and every games file hold integer ids (Parquet), the outputs
hold them as Int64 (a warehouse joins them to its own integer ids); any text id makes them all text.
Either way the ratings are those of the same ids as text (the contract compares ids as text)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from tests.conftest import read_table, write_csv

LIST = [(10, 2000, 20), (20, 1900, 20), (30, 2100, 10)]  # player_id, rating, k
GAMES = [  # game_id, date, white_id, black_id, result
    (1, "2025-11-03", 10, 20, "1-0"),
    (2, "2025-11-04", 20, 30, "1/2-1/2"),
    (3, "2025-11-05", 40, 10, "1/2-1/2"),  # 40 is not listed: its games wait in a pool
    (4, "2025-11-06", 40, 20, "1-0"),
    (5, "2025-11-07", 30, 40, "1-0"),
    (6, "2025-12-03", 40, 10, "0-1"),
    (7, "2025-12-04", 20, 40, "1/2-1/2"),
]
PERIODS = ("2025-11", "2025-12")


def _parquet(path: Path, rows: list[tuple], schema: dict[str, pl.DataType]) -> Path:
    pl.DataFrame(rows, schema=schema, orient="row").write_parquet(path)
    return path


def _integer_list(tmp_path: Path) -> Path:
    return _parquet(tmp_path / "list.parquet", LIST, {"player_id": pl.Int64, "rating": pl.Int32, "k": pl.Int32})


def _integer_games(tmp_path: Path) -> Path:
    schema = {"game_id": pl.Int64, "date": pl.String, "white_id": pl.Int32, "black_id": pl.Int64, "result": pl.String}
    return _parquet(tmp_path / "games.parquet", GAMES, schema)


def _text_list(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "list.csv", "player_id,rating,k\n" + "\n".join(",".join(map(str, r)) for r in LIST))


def _text_games(tmp_path: Path) -> Path:
    body = "\n".join(",".join(map(str, row)) for row in GAMES)
    return write_csv(tmp_path / "games.csv", "game_id,date,white_id,black_id,result\n" + body)


def _tables(out: Path) -> dict[tuple[str, str], pl.DataFrame]:
    return {
        (table, period): read_table(out, table, period).drop("source_file", "source_row", strict=False)
        for table in ("ratings", "audit")
        for period in PERIODS
    }


def _as_text(frame: pl.DataFrame) -> pl.DataFrame:
    ids = [name for name in ("player_id", "opponent_id", "game_id") if name in frame.columns]
    return frame.with_columns(pl.col(ids).cast(pl.String))


def test_integer_ids_stay_integers_in_every_output(cli, tmp_path: Path) -> None:
    """Hand check of November: 10 (2000, K 20) beats 20 (1900): D 100, PD .64, +.36 x 20 = +7.2, and draws
    unrated 40 (not counted): +7. 20 loses (-7.2) and draws 30 (2100): D -200, PD .24, +.26 x 20 = +5.2,
    and loses to 40 (not counted): -2.0 -> -2. 30 (K 10): -.26 x 10 = -2.6 -> -3. 40 pools 3 games."""
    games, rating_list = _integer_games(tmp_path), _integer_list(tmp_path)

    result = cli.run(f"run {games} --ratings {rating_list} --period 2025-11..2025-12", tmp_path / "integers")

    assert result.exit_code == 0, result.output
    tables = _tables(tmp_path / "integers")
    for (table, period), frame in tables.items():
        ids = ["player_id"] + (["opponent_id", "game_id"] if table == "audit" else [])
        assert all(frame.schema[name] == pl.Int64 for name in ids), (table, period, frame.schema)
    november = tables["ratings", "2025-11"]
    assert dict(november.select("player_id", "change").iter_rows()) == {10: 7, 20: -2, 30: -3, 40: None}
    assert november.filter(pl.col("player_id") == 40)["pending"].to_list() == ["2025-11:3:3:6000"]
    assert tables["ratings", "2025-12"].filter(pl.col("player_id") == 40)["status"].to_list() == ["new"]


@pytest.mark.parametrize("text", ["list", "games", "both"])
def test_the_same_ratings_as_the_same_ids_as_text(cli, tmp_path: Path, text: str) -> None:
    """Any text input makes every player id text (game_ids follow the games files alone); the numbers
    never depend on the id type."""
    games = _text_games(tmp_path) if text in ("games", "both") else _integer_games(tmp_path)
    rating_list = _text_list(tmp_path) if text in ("list", "both") else _integer_list(tmp_path)
    integers = cli.run(
        f"run {_integer_games(tmp_path)} --ratings {_integer_list(tmp_path)} --period 2025-11..2025-12",
        tmp_path / "integers",
    )
    mixed = cli.run(f"run {games} --ratings {rating_list} --period 2025-11..2025-12", tmp_path / "mixed")

    assert integers.exit_code == 0 and mixed.exit_code == 0, integers.output + mixed.output
    expected = _tables(tmp_path / "integers")
    for key, frame in _tables(tmp_path / "mixed").items():
        assert frame.schema["player_id"] == pl.String, key
        assert _as_text(frame).equals(_as_text(expected[key])), key  # same order too: 10, 20, 30, 40 either way


def test_without_a_list_integer_ids_of_the_games_stay_integers(cli, tmp_path: Path) -> None:
    rows = [(1, "2025-11-03", 10, 20, "1-0", 2000, 1900)]
    schema = {
        "game_id": pl.Int64, "date": pl.String, "white_id": pl.Int64, "black_id": pl.Int64, "result": pl.String,
        "white_rating": pl.Int64, "black_rating": pl.Int64,
    }  # fmt: skip
    games = _parquet(tmp_path / "g.parquet", rows, schema)

    result = cli.run(f"run {games} --period 2025-11")

    assert result.exit_code == 0, result.output
    ratings = read_table(tmp_path / "out", "ratings", "2025-11")
    assert ratings.schema["player_id"] == pl.Int64
    assert dict(ratings.select("player_id", "change").iter_rows()) == {10: 7, 20: -7}  # .36 x 20 = 7.2


def test_a_list_in_two_files_with_integer_and_text_ids_is_text(cli, tmp_path: Path) -> None:
    folder = tmp_path / "list"
    folder.mkdir()
    _parquet(folder / "a.parquet", LIST[:2], {"player_id": pl.Int64, "rating": pl.Int32, "k": pl.Int32})
    write_csv(folder / "b.csv", "player_id,rating,k\n30,2100,10")

    result = cli.run(f"run {_integer_games(tmp_path)} --ratings {folder} --period 2025-11")

    assert result.exit_code == 0, result.output
    ratings = read_table(tmp_path / "out", "ratings", "2025-11")
    assert ratings.schema["player_id"] == pl.String
    assert dict(ratings.select("player_id", "change").iter_rows()) == {"10": 7, "20": -2, "30": -3, "40": None}


@pytest.mark.parametrize("first", ["text", "integers"])
def test_both_kinds_of_ids_load_into_one_warehouse(cli, tmp_path: Path, first: str) -> None:
    """A warehouse started from CSV runs holds text ids, and a later run from Parquet adds its ids as
    text; started from Parquet, it holds integer ids, and a CSV month turns them into text."""
    pytest.importorskip("duckdb")
    import duckdb

    db = tmp_path / "elo.duckdb"
    text = f"{_text_games(tmp_path)} --ratings {_text_list(tmp_path)}"
    integers = f"{_integer_games(tmp_path)} --ratings {_integer_list(tmp_path)}"
    november, december = (text, integers) if first == "text" else (integers, text)
    runs = [
        cli.run(f"run {november} --period 2025-11 --duckdb {db}"),
        cli.run(f"run {december} --period 2025-12 --duckdb {db}", tmp_path / "out2"),
    ]

    assert all(result.exit_code == 0 for result in runs), "".join(result.output for result in runs)
    with duckdb.connect(str(db), read_only=True) as connection:
        rows = connection.execute(
            "SELECT period, count(*) FROM audit WHERE player_id = '40' GROUP BY period ORDER BY period"
        ).fetchall()
    assert rows == [("2025-11", 3), ("2025-12", 2)]


def test_without_game_ids_the_audit_game_id_takes_the_type_of_the_player_ids(cli, tmp_path: Path) -> None:
    """A month whose integer-id file has no game_id column writes the same audit types as one that has."""
    rows = [(row[1], row[2], row[3], row[4]) for row in GAMES]
    schema = {"date": pl.String, "white_id": pl.Int64, "black_id": pl.Int64, "result": pl.String}
    games = _parquet(tmp_path / "no-ids.parquet", rows, schema)

    result = cli.run(f"run {games} --ratings {_integer_list(tmp_path)} --period 2025-11")

    assert result.exit_code == 0, result.output
    audit = read_table(tmp_path / "out", "audit", "2025-11")
    assert audit.schema["game_id"] == pl.Int64 and audit["game_id"].null_count() == audit.height
