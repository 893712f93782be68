"""A game entered twice (issue 20, R3): rows with the same ``event_id``, ``round``, ``white_id``,
``black_id`` (and ``board`` where the file has it) are one game, with or without ``game_id``.

Their result and date agree: the first counts, the others are audited as duplicate rows. They disagree:
every one of them is rejected, the reason naming the rows. Rows alike in every column but with no event
or round may be two real games (the same players, result and day): both count, and a warning says so.
The golden case ``tests/golden/fide-game-entered-twice`` has the arithmetic.
"""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest

import elo_batch
from tests.conftest import read_table, reconciliation, write_csv

LIST = pl.DataFrame({"player_id": ["A", "B", "C"], "rating": [2000, 1900, 1900], "k": [20, 20, 20]})


def table(text: str) -> pl.DataFrame:
    return pl.read_csv(io.StringIO(text.strip()), infer_schema=False)


def players(result: elo_batch.PeriodResult) -> dict[str, tuple]:
    return {r["player_id"]: (r["change"], r["games"]) for r in result.ratings.iter_rows(named=True)}


def sides(result: elo_batch.PeriodResult) -> list[tuple]:
    audit = result.audit.collect().filter(pl.col("player_id") == "A").sort("source_row")
    return audit.select("source_row", "counted", "reason").rows()


@pytest.mark.parametrize("game_ids", [("", ""), ("g1", "g2"), ("g1", "")], ids=["no-ids", "two-ids", "one-id"])
def test_a_game_entered_twice_counts_once_with_or_without_game_ids(game_ids: tuple[str, str]) -> None:
    """A (2000) beats B (1900) in round 1 of T, entered twice: D 100 -> .64, +0.36 x 20 = 7.2 -> +7 once
    (twice would be 14.4 -> +14)."""
    first, second = game_ids
    games = table(f"""
game_id,date,event_id,round,white_id,black_id,result
{first},2025-11-03,T,1,A,B,1-0
{second},2025-11-03,T,1,A,B,1-0
""")

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST)

    assert players(result)["A"] == (7, 1)
    assert players(result)["B"] == (-7, 1)
    assert sides(result) == [(1, True, None), (2, False, "duplicate row")]
    assert result.rejected.height == 0


@pytest.mark.parametrize(
    ("second", "column", "values"),
    [
        ("2025-11-03,T,1,A,B,0-1", "result", ["1-0", "0-1"]),
        ("2025-11-04,T,1,A,B,1-0", "date", ["2025-11-03", "2025-11-04"]),
    ],
    ids=["result", "date"],
)
def test_copies_that_disagree_are_all_rejected_naming_the_rows(second: str, column: str, values: list[str]) -> None:
    games = table(f"""
date,event_id,round,white_id,black_id,result
2025-11-03,T,1,A,B,1-0
{second}
2025-11-05,T,2,C,A,1/2-1/2
""")

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST)

    rejected = result.rejected.sort("source_row")
    assert rejected["source_row"].to_list() == [1, 2]
    assert rejected["column"].to_list() == [column, column]
    assert rejected["value"].to_list() == values
    reason = rejected["reason"][0]
    assert "rows row 1, row 2 are one game (the same event_id, round, white_id and black_id)" in reason
    assert f"different {column}s" in reason
    assert players(result)["A"] == (-3, 1)  # round 2 only: D 100 -> .64, 0.5 - 0.64 = -0.14 x 20 = -2.8 -> -3
    assert players(result)["B"] == (0, 0)


def test_a_board_column_tells_games_of_one_round_apart() -> None:
    """In a team match the same two ids may meet on two boards (placeholders for unknown players):
    board 1 and board 2 are two games; board 1 entered twice is one."""
    games = table("""
date,event_id,round,board,white_id,black_id,result
2025-11-03,T,1,1,A,B,1-0
2025-11-03,T,1,2,A,B,1-0
2025-11-03,T,1,1,A,B,1-0
""")

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST)

    assert players(result)["A"] == (14, 2)  # 2 x 7.2 = 14.4 -> +14
    assert sides(result)[2] == (3, False, "duplicate row")


def test_rows_alike_without_event_or_round_both_count_and_are_warned_about() -> None:
    """Two wins of A over B on one day, with no event or round to tell them apart: two games, as the
    rows say (2 x 7.2 = 14.4 -> +14), and a warning."""
    games = table("""
date,event_id,round,white_id,black_id,result
2025-11-03,,,A,B,1-0
2025-11-03,,,A,B,1-0
2025-11-04,T,,A,B,1-0
2025-11-04,T,,A,B,1-0
""")

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST)

    assert players(result)["A"] == (29, 4)  # 4 x 7.2 = 28.8 -> +29
    assert any(
        "2 row(s) without a game_id, event_id or round are alike in every column to an earlier row of their file "
        "(first: row 1 and row 2): each is rated as a game of its own" in w
        for w in result.warnings
    )


def test_the_cli_writes_the_rejected_copies_and_accounts_for_every_row(cli, tmp_path: Path) -> None:
    games = write_csv(
        tmp_path / "g.csv",
        "date,event_id,round,board,white_id,black_id,result\n"
        "2025-11-03,T,1,1,A,B,1-0\n2025-11-03,T,1,1,A,B,1-0\n2025-11-04,T,2,1,B,A,1-0\n2025-11-04,T,2,1,B,A,0-1",
    )
    ratings = write_csv(tmp_path / "l.csv", "player_id,rating,k\nA,2000,20\nB,1900,20")

    result = cli("run", games, "--ratings", ratings, "--period", "2025-11", "--out", tmp_path / "o", "--format", "csv")

    assert result.exit_code == 0, result.output
    assert reconciliation(result.output) == {"read": 4, "counted": 1, "not_counted": 1, "other": 0, "rejected": 2}
    rejected = read_table(tmp_path / "o", "rejected", "2025-11")
    assert rejected["source_row"].to_list() == ["3", "4"]
    assert rejected["reason"][0].startswith(f"rows {games} row 3, {games} row 4 are one game")
    audit = read_table(tmp_path / "o", "audit", "2025-11").filter(pl.col("source_row") == "2")
    assert audit["reason"].to_list() == ["duplicate row", "duplicate row"]


def test_board_is_read_from_parquet_as_text(tmp_path: Path) -> None:
    games = pl.DataFrame(
        {"date": ["2025-11-03"] * 3, "event_id": ["T"] * 3, "round": [1, 1, 1], "board": [1, 2, 1],
         "white_id": ["A"] * 3, "black_id": ["B"] * 3, "result": ["1-0"] * 3}
    )  # fmt: skip
    games.write_parquet(tmp_path / "g.parquet")

    result = elo_batch.rate_period(str(tmp_path / "g.parquet"), period="2025-11", ratings=LIST)

    assert players(result)["A"] == (14, 2)


@pytest.mark.slow
def test_engine_spark_judges_games_entered_twice_as_the_local_engine(cli, spark, tmp_path: Path) -> None:
    """``--engine spark`` (the runner's engine, on the test run's session): the same list, audit and
    rejected rows, the same warning."""
    case = Path(__file__).parent / "golden" / "fide-game-entered-twice"
    args = ("run", case / "games.csv", "--ratings", case / "ratings.csv", "--period", "2025-11")
    local, on_spark = tmp_path / "local", tmp_path / "spark"
    here = cli(*args, "--out", local)

    result = cli(*args, "--out", on_spark, "--engine", "spark", "--spark-master", "local[2]")

    assert result.exit_code == 0, result.output
    for table in ("ratings", "audit", "rejected"):
        name = f"{table}/period=2025-11/part-0.parquet"
        assert (on_spark / name).read_bytes() == (local / name).read_bytes(), table
    warning = "1 row(s) without a game_id, event_id or round are alike in every column to an earlier row"
    assert warning in here.output and warning in result.output
