"""A rapid or blitz list's ``standard_rating`` follows the standard list (issue 20, R1).

It is the player's standard rating (R&B 7.2.1), so what FIDE did to the standard list happens to it:
the 1 March 2024 compression (``fide-rules.md`` section 8, TV-22) on the list written for period
2024-02, as to ``rating``; and under the floor it is no rating (B.02 7.1.2: the list holds no rating
under 1400 since 1 March 2024), which seeds nothing. The golden case
``tests/golden/rapid-standard-rating-follows-standard`` has the arithmetic.
"""

from __future__ import annotations

import polars as pl

import elo_batch

INTS = {"rating": pl.Int64, "k": pl.Int64, "games_total": pl.Int64, "standard_rating": pl.Int64}


def _players(result: elo_batch.PeriodResult) -> dict[str, dict]:
    return {row["player_id"]: row for row in result.ratings.iter_rows(named=True)}


def test_the_2024_compression_applies_to_standard_rating_too() -> None:
    """On the rapid list written for 2024-02 (FIDE's 1 March 2024 list): 1234 -> +306.4 -> 1540,
    1000 -> 1400, 1998 -> 1999, 2100 unchanged, for the rapid rating and the standard rating alike."""
    games = pl.DataFrame({"date": ["2024-02-10"], "white_id": ["A"], "black_id": ["B"], "result": ["1/2-1/2"]})
    listed = pl.DataFrame(
        {"player_id": ["A", "B", "C", "D"], "rating": [1500, 1500, None, 2100], "k": [20, 20, None, 20],
         "games_total": [100, 100, None, 100], "standard_rating": [1234, 1000, 1998, 2100]},
        schema_overrides=INTS,
    )  # fmt: skip

    players = _players(elo_batch.rate_period(games, period="2024-02", ratings=listed, list_kind="rapid"))

    assert {p: (players[p]["rating"], players[p]["standard_rating"]) for p in "ABCD"} == {
        "A": (1700, 1540), "B": (1700, 1400), "C": (None, 1999), "D": (2100, 2100),
    }  # fmt: skip


def test_other_periods_leave_standard_rating_as_given() -> None:
    games = pl.DataFrame({"date": ["2024-01-10"], "white_id": ["A"], "black_id": ["B"], "result": ["1/2-1/2"]})
    listed = pl.DataFrame(
        {"player_id": ["A", "B"], "rating": [1500, 1500], "k": [20, 20], "games_total": [100, 100],
         "standard_rating": [1234, 1999]},
        schema_overrides=INTS,
    )  # fmt: skip

    players = _players(elo_batch.rate_period(games, period="2024-01", ratings=listed, list_kind="rapid"))

    assert (players["A"]["standard_rating"], players["B"]["standard_rating"]) == (1234, 1999)


def test_a_player_seeded_in_march_2024_is_seeded_at_his_compressed_standard_rating() -> None:
    """S (no rapid rating, standard 1234 on the February list) plays R 1540 in March 2024: the 1 March
    list gives him standard 1540, so he is seeded at 1540 and draws at D 0: change 0 (not 1234 and D -306,
    .15: +0.35 x 40 = +14)."""
    games = pl.DataFrame(
        {"date": ["2024-02-10", "2024-03-10"], "white_id": ["X", "S"], "black_id": ["Y", "R"],
         "result": ["1/2-1/2", "1/2-1/2"]}
    )  # fmt: skip
    listed = pl.DataFrame(
        {"player_id": ["S", "R", "X", "Y"], "rating": [None, 1234, 2100, 2100], "k": [None, 20, 20, 20],
         "games_total": [None, 100, 100, 100], "standard_rating": [1234, None, None, None]},
        schema_overrides=INTS,
    )  # fmt: skip

    march = list(elo_batch.rate_periods(games, periods="2024-02..2024-03", ratings=listed, list_kind="rapid"))[-1]

    players = _players(march)
    assert (players["S"]["rating_before"], players["S"]["change"], players["S"]["rating"]) == (1540, 0, 1540)
    assert (players["R"]["rating_before"], players["R"]["change"]) == (1540, 0)


def test_a_standard_rating_under_the_floor_seeds_nothing() -> None:
    """S's standard rating 1350 is under the 1400 floor: FIDE's standard list holds no such rating
    (B.02 7.1.2), so S is unrated (his game waits in a pool) and R's game against him does not count."""
    games = pl.DataFrame({"date": ["2025-11-05"], "white_id": ["S"], "black_id": ["R"], "result": ["1-0"]})
    listed = pl.DataFrame(
        {"player_id": ["S", "R", "T"], "rating": [None, 1800, None], "k": [None, 20, None],
         "games_total": [None, 100, None], "standard_rating": [1350, 1800, 1400]},
        schema_overrides=INTS,
    )  # fmt: skip

    result = elo_batch.rate_period(games, period="2025-11", ratings=listed, list_kind="rapid")

    players = _players(result)
    assert (players["S"]["status"], players["S"]["rating"], players["S"]["pending"]) == (
        "unrated", None, "2025-11:1:2:1800",
    )  # fmt: skip
    assert (players["R"]["change"], players["R"]["games"]) == (0, 0)
    assert players["S"]["standard_rating"] is None  # no rating, as the floor makes a rapid rating under it
    assert players["T"]["standard_rating"] == 1400  # exactly the floor stays
    assert not any("rated at their standard_rating" in w for w in result.warnings)
    assert any("standard_rating" in w and "S (1350)" in w and "7.1.2" in w for w in result.warnings)


def test_unrate_below_floor_empties_both_columns() -> None:
    """``seed_players`` (what an engine that finds the period's players its own way calls) seeds only
    from a list whose ratings under the floor are already empty: the floor is applied to both columns
    by ``unrate_below_floor``, the one place it lives."""
    from elo_batch.engine.listinforce import unrate_below_floor

    listed = pl.DataFrame(
        {"player_id": ["S", "R"], "rating": [1300.0, 1800.0], "standard_rating": [1350, 1399]},
    )
    table, warnings = unrate_below_floor(listed, 1400, "2025-11")

    assert table is not None
    assert table["rating"].to_list() == [None, 1800.0]
    assert table["standard_rating"].to_list() == [None, None]
    assert len(warnings) == 2
