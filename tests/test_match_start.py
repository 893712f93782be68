"""B.02 6.1 judged at a match's start, in every month of it and either period mode (issue 20, R2).

"Matches in which one player is unrated shall not be rated": whether a player is unrated is a fact of
the match's start (the list in force when it started: the game rows' ratings, or the run's own list of
that month in a range), not of each month's list. By date a match that runs from October into November
is rated in both months; a player unrated on the October list who gains a first rating on the November
list does not make its November games rated. Where the run has neither, the period's list judges, with a
warning. The golden case ``tests/golden/fide-match-unrated-at-start-by-date`` has the arithmetic.

Table 8.1.2 rows used: D 122-129 -> 0.67 / 0.33; over 400 (capped) -> 0.92 / 0.08.
"""

from __future__ import annotations

import io

import polars as pl
import pytest

import elo_batch


def table(text: str) -> pl.DataFrame:
    return pl.read_csv(io.StringIO(text.strip()), infer_schema=False)


def player(result: elo_batch.PeriodResult, who: str) -> dict:
    return result.ratings.filter(pl.col("player_id") == who).row(0, named=True)


#: C (unrated on the October list) scores 2.5 of 5 against B (1900) in T: Ra = (9500 + 3600) / 7 =
#: 1871.43, p = 3.5 / 7 = .50, dp 0 -> 1871, published on the 1 November list. Match M (A against C,
#: 2 games, two draws) starts 30 October, when C was unrated.
GAMES = table("""
game_id,date,event_id,round,white_id,black_id,result,event_type,match_games
1,2025-10-05,T,1,C,B,1-0,,
2,2025-10-06,T,2,B,C,1-0,,
3,2025-10-07,T,3,C,B,1/2-1/2,,
4,2025-10-08,T,4,B,C,0-1,,
5,2025-10-09,T,5,C,B,0-1,,
6,2025-10-30,M,1,A,C,1/2-1/2,match,2
7,2025-11-02,M,2,C,A,1/2-1/2,match,2
""")
OCTOBER = table("""
player_id,rating,k,games_total
A,2000,20,100
B,1900,20,100
C,,,
""")


@pytest.mark.parametrize("period_by", ["date", "event"])
def test_a_match_that_started_with_an_unrated_player_is_not_rated_in_its_later_month(period_by: str) -> None:
    """November: C is rated (1871) on the November list, but M started when he was not. Rated as a
    November game, the draw would give A 2000 vs 1871: D 129 -> .67, -0.17 x 20 = -3.4 -> -3; C +7."""
    october, november = elo_batch.rate_periods(GAMES, periods="2025-10..2025-11", ratings=OCTOBER, period_by=period_by)

    assert (player(october, "C")["rating"], player(october, "C")["status"]) == (1871, "new")
    assert [player(november, p)[k] for p in "AC" for k in ("rating", "change", "games")] == [2000, 0, 0, 1871, 0, 0]
    sides = november.audit.collect().filter(pl.col("event_id") == "M")
    assert set(sides["event_rule"].to_list()) == {"6.1 match with an unrated player"}
    assert not sides["counted"].any()
    assert any("side(s) of matches with an unrated player not rated (B.02 6.1)" in w for w in november.warnings)


def test_by_date_each_month_of_the_match_is_judged_on_the_list_of_its_start() -> None:
    """October's game of M is not rated either (C unrated on the October list): 6.1 in both months."""
    october, _ = elo_batch.rate_periods(GAMES, periods="2025-10..2025-11", ratings=OCTOBER)

    sides = october.audit.collect().filter(pl.col("event_id") == "M")
    assert set(sides["event_rule"].to_list()) == {"6.1 match with an unrated player"}
    assert player(october, "A")["change"] == 0


def test_a_match_that_started_before_the_run_is_judged_on_the_periods_list_with_a_warning() -> None:
    """A November run with the November list only: the list of M's start (October) is not the run's, and
    its rows carry no ratings: C is rated on the November list, so M is rated (A -3, C +7), and the
    summary says on which list it was judged."""
    november_list = table("""
player_id,rating,k,games_total
A,2000,20,100
B,1900,20,100
C,1871,40,5
""")

    result = elo_batch.rate_period(GAMES, period="2025-11", ratings=november_list)

    assert (player(result, "A")["change"], player(result, "C")["change"]) == (-3, 7)
    assert any(
        "2025-11: 1 match(es) started in a month this run did not rate ('M': 2025-10)" in w
        and "B.02 6.1" in w
        and "the list in force of 2025-11" in w
        for w in result.warnings
    )


def test_a_match_started_before_the_run_whose_rows_carry_the_ratings_is_judged_on_them() -> None:
    """The rows give both players' ratings at the match's start: no warning; by date an empty or 0
    cell is no judgement and falls back to the list (then the warning is given)."""
    rated = GAMES.with_columns(
        pl.when(pl.col("event_id") == "M").then(pl.lit("2000")).alias("white_rating"),
        pl.when(pl.col("event_id") == "M").then(pl.lit("1871")).alias("black_rating"),
    )
    november_list = OCTOBER.with_columns(
        pl.when(pl.col("player_id") == "C").then(pl.lit("1871")).otherwise("rating").alias("rating")
    )

    result = elo_batch.rate_period(rated, period="2025-11", ratings=november_list)

    assert not any("did not rate ('M'" in w for w in result.warnings)


def test_a_match_rated_at_its_start_stays_a_rated_match_when_a_player_drops_under_the_floor() -> None:
    """C (1410, K 40) loses to D (1410) in T and to A in M's first game in October: -20 - 3.2 = -23.2
    -> -23 -> 1387, under the floor 1400: unrated on the November list. M started when C was rated, so
    it is a rated match: in November A's draw with the now unrated C does not count for A (8.3.1), and
    C's draw with A (2002) waits in his pool for a new rating (7.1.4), as any game of an unrated player
    against a rated one; it is not a 6.1 match."""
    games = table("""
game_id,date,event_id,round,white_id,black_id,result,event_type,match_games
1,2025-10-05,T,1,D,C,1-0,,
2,2025-10-30,M,1,A,C,1-0,match,2
3,2025-11-02,M,2,C,A,1/2-1/2,match,2
""")
    rating_list = table("""
player_id,rating,k,games_total
A,2000,20,100
C,1410,40,10
D,1410,20,100
""")

    october, november = elo_batch.rate_periods(games, periods="2025-10..2025-11", ratings=rating_list)

    assert (player(october, "C")["rating"], player(october, "A")["rating"]) == (None, 2002)
    assert player(november, "C")["pending"] == "2025-11:1:1:2002"
    assert player(november, "A")["change"] == 0
    rules = november.audit.collect().filter(pl.col("event_id") == "M")["event_rule"].to_list()
    assert "6.1 match with an unrated player" not in rules
