"""Rapid and blitz: an unrated player with a standard rating is rated at it (R&B 7.2.1), with K 40.

"If an unrated player has a standard rating at the beginning of a rapid or blitz tournament, their
standard rating is used for rating calculation. Such a player is considered to be rated, and 7.2.2 to
7.2.5 below do not apply." The golden case ``tests/golden/rapid-standard-seed`` has the arithmetic.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

import elo_batch
from tests.conftest import write_csv

GAMES = pl.DataFrame(
    {"game_id": ["1", "2"], "date": ["2025-11-05"] * 2, "white_id": ["S", "R2"], "black_id": ["R1", "S"],
     "result": ["1-0", "0-1"]}
)  # fmt: skip
LIST = pl.DataFrame(
    {"player_id": ["S", "R1", "R2", "U"], "rating": [None, 1800, 1900, None], "k": [None, 20, 20, None],
     "games_total": [None, 100, 100, None], "standard_rating": [1800, 1850, None, 2000]},
    schema_overrides={"rating": pl.Int64, "k": pl.Int64, "games_total": pl.Int64},
)  # fmt: skip


def _players(result: elo_batch.PeriodResult) -> dict[str, dict]:
    return {row["player_id"]: row for row in result.ratings.iter_rows(named=True)}


def test_a_standard_rating_seeds_an_unrated_rapid_player_with_k_40() -> None:
    """S (standard 1800, no rapid rating) beats R1 1800 and R2 1900: (0.50 + 0.64) x 40 = 45.6 -> +46;
    for R1 and R2 S is rated: -10 (D 0, K 20) and -13 (D 100 -> .64: -12.8)."""
    result = elo_batch.rate_period(GAMES, period="2025-11", ratings=LIST, list_kind="rapid")

    players = _players(result)
    assert (players["S"]["rating_before"], players["S"]["k_used"], players["S"]["rating"]) == (1800, 40, 1846)
    assert (players["S"]["status"], players["S"]["k"], players["S"]["games_total"]) == ("rated", 40, 2)
    assert (players["R1"]["change"], players["R2"]["change"]) == (-10, -13)
    assert players["U"]["rating"] is None  # plays no rapid game: not seeded
    assert any(
        "1 player(s) unrated on the rapid list were rated at their standard_rating" in w for w in result.warnings
    )


def test_the_standard_list_ignores_standard_rating() -> None:
    """On the standard list S is an unrated player: his games wait for a first rating, R1 and R2's do not count."""
    players = _players(elo_batch.rate_period(GAMES, period="2025-11", ratings=LIST))
    assert (players["S"]["status"], players["R1"]["change"], players["S"]["pending"]) == (
        "unrated", 0, "2025-11:2:4:3700",
    )  # fmt: skip


def test_no_seed_before_the_2024_rapid_rules() -> None:
    """R&B 7.2.1 is taken from the 2024 regulations; the 2022 rapid rules here have no source for it."""
    games = GAMES.with_columns(pl.lit("2023-11-05").alias("date"))
    players = _players(elo_batch.rate_period(games, period="2023-11", ratings=LIST, list_kind="rapid"))
    assert players["S"]["status"] == "unrated"


def test_a_seeded_players_pool_is_dropped_and_said() -> None:
    pooled = LIST.with_columns(pl.when(pl.col("player_id") == "S").then(pl.lit("2025-10:2:2:3600")).alias("pending"))
    result = elo_batch.rate_period(GAMES, period="2025-11", ratings=pooled, list_kind="rapid")
    assert _players(result)["S"]["pending"] is None
    assert any("1 of them had pooled rapid games waiting for a first rating: not used" in w for w in result.warnings)


def test_a_standard_rating_is_checked_as_a_rating(cli, tmp_path: Path) -> None:
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n2025-11-05,S,R,1-0")
    bad = write_csv(tmp_path / "l.csv", "player_id,rating,standard_rating\nS,,18OO\nR,1800,")
    zero = write_csv(tmp_path / "z.csv", "player_id,rating,standard_rating\nS,,0\nR,1800,")

    text = cli("run", games, "--ratings", bad, "--period", "2025-11", "--list", "rapid", "--out", tmp_path / "o")
    null = cli("run", games, "--ratings", zero, "--period", "2025-11", "--list", "rapid", "--out", tmp_path / "o")

    assert text.exit_code == 65
    assert "l.csv, row 1, column standard_rating: '18OO' is not a standard rating" in text.output
    assert null.exit_code == 65
    assert "column standard_rating: '0' is out of range" in null.output
