"""Events as FIDE rates them (B.02 6.1, 6.2, 7.1.3, 8.2.4, 9.1): every number worked by hand from the text.

Table 8.1.2 rows used: D 0-3 -> 0.50; 18-25 -> 0.53 / 0.47; 54-61 -> 0.58 / 0.42; 198-206 -> 0.76 / 0.24;
291-302 -> 0.85 / 0.15.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import polars as pl
import pytest

import elo_batch
from elo_batch import working as w
from elo_batch.engine import eventrows
from elo_batch.engine.events import closing_period, event_groups, plan_events, reduce_events, settle
from elo_batch.errors import InputDataError, UsageError
from tests.conftest import read_table, write_csv
from tests.test_kernels import games_input


def table(text: str) -> pl.DataFrame:
    """CSV text as a CSV file gives it (every cell text)."""
    return pl.read_csv(io.StringIO(text.strip()), infer_schema=False)


LIST = table("""
player_id,rating,k
A,2000,20
B,2000,20
C,1900,20
""")


def audit_of(result: elo_batch.PeriodResult) -> pl.DataFrame:
    return result.audit.collect()


def change(result: elo_batch.PeriodResult, player: str) -> tuple[object, ...]:
    row = result.ratings.filter(pl.col("player_id") == player).row(0, named=True)
    return row["rating"], row["change"], row["games"]


# --- B.02 7.1.3: the closing date, 3 days before the list ----------------------------------------


@pytest.mark.parametrize(
    ("last_day", "period"),
    [
        ("2025-11-28", "2025-11"),  # the 1 December list closes on 28 November
        ("2025-11-29", "2025-12"),
        ("2022-01-29", "2022-01"),
        ("2022-01-30", "2022-02"),  # Tata Steel 2022: on the March 2022 list
        ("2021-12-30", "2022-01"),  # after the 1 January list's closing date (29 December)
        ("2024-02-27", "2024-02"),  # a leap year: the 1 March list closes on 27 February
        ("2024-02-28", "2024-03"),
        ("2023-02-26", "2023-02"),  # 28 days: the 1 March 2023 list closes on 26 February
        ("2023-02-27", "2023-03"),
    ],
)
def test_an_event_goes_on_the_first_list_whose_closing_date_it_ended_by(last_day: str, period: str) -> None:
    ended = pl.Series([last_day]).str.to_date()

    assert pl.select(closing_period(pl.lit(ended))).item() == period


def test_by_event_an_event_is_rated_whole_in_one_period_and_the_deferred_rows_are_counted() -> None:
    """E runs 27 November - 2 December 2025: by date two periods, by event all of it in 2025-12."""
    games = table("""
white_id,black_id,result,date,event_id
A,B,1-0,2025-11-27,E
B,C,1-0,2025-12-02,E
""")

    by_date = elo_batch.rate_period(games, period="2025-11", ratings=LIST)
    november = elo_batch.rate_period(games, period="2025-11", ratings=LIST, period_by="event")
    december = elo_batch.rate_period(games, period="2025-12", ratings=LIST, period_by="event")

    assert by_date.counts.counted == 1
    assert (november.counts.counted, november.counts.other_periods) == (0, 2)
    assert any(
        "2025-11: 1 row(s) dated in 2025-11 are rated in a later period (2025-12: 1)" in w for w in november.warnings
    )
    assert any("A monthly run must hand these rows in again" in w for w in november.warnings)
    assert december.counts.counted == 2
    assert any("2025-12: 1 row(s) dated before 2025-12 are rated in it" in w for w in december.warnings)
    # A (2000) beat B (2000): 20 x 0.5 = +10; B (2000) beat C (1900): D 100 -> PD 0.64, 20 x 0.36 = 7.2 -> +7
    assert change(december, "A") == (2010, 10, 1)
    assert change(december, "B") == (1997, -3, 2)  # -10 + 7.2 = -2.8 -> -3
    audit = audit_of(december)
    closing = "7.1.3 closing date: rated after the month of play"
    assert audit["event_rule"].to_list() == [closing, closing, None, None]


def test_event_end_from_the_events_file_decides_the_period() -> None:
    """The games end on 20 November, but the event (its last day, a round without a rated game) ends on
    30 November: past the closing date of the 1 December list."""
    games = table("white_id,black_id,result,date,event_id\nA,B,1-0,2025-11-20,E")
    events = table("event_id,event_end\nE,2025-11-30")

    result = elo_batch.rate_period(games, period="2025-12", ratings=LIST, period_by="event", events=events)

    assert change(result, "A") == (2010, 10, 1)


@pytest.mark.parametrize(("last_day", "warned"), [("2025-01-26", True), ("2025-01-25", False), ("2025-01-31", True)])
def test_events_ending_5_days_or_fewer_before_the_month_end_are_warned_about_by_date_too(
    last_day: str, warned: bool
) -> None:
    """B.02 9.1: January has 31 days; the 26th is 5 days before its end, the 25th 6."""
    games = table(f"white_id,black_id,result,date,event_id\nA,B,1-0,{last_day},E")

    result = elo_batch.rate_period(games, period="2025-01", ratings=LIST)

    notes = [w for w in result.warnings if "within 5 days of a month's end" in w]
    assert bool(notes) is warned
    if warned:
        closing = "2025-01" if last_day == "2025-01-26" else "2025-02"
        assert f"'E' ended {last_day} (closing date: {closing})" in notes[0]


def test_a_row_that_disagrees_with_its_events_period_is_rejected_with_the_reason() -> None:
    games = table("""
white_id,black_id,result,date,period,event_id
A,B,1-0,2025-11-03,,E
A,C,1-0,2025-11-04,2025-11,E
""")
    events = table("event_id,period\nE,2025-12")

    result = elo_batch.rate_period(games, period="2025-12", ratings=LIST, period_by="event", events=events)

    assert result.counts.counted == 1
    [rejected] = result.rejected.rows(named=True)
    assert (rejected["source_row"], rejected["column"], rejected["value"], rejected["period"]) == (
        2,
        "period",
        "2025-11",
        "2025-12",
    )
    assert rejected["reason"].startswith("event 'E' has period '2025-12' in the events file, this row gives '2025-11'.")
    assert result.counts.reconciles()


def test_an_events_period_on_its_rows_places_the_rows_without_one() -> None:
    games = table("""
white_id,black_id,result,date,period,event_id
A,B,1-0,2025-11-03,2025-12,E
A,C,1-0,2025-11-04,,E
""")

    result = elo_batch.rate_period(games, period="2025-12", ratings=LIST, period_by="event")

    assert result.counts.counted == 2
    assert audit_of(result)["event_rule"].unique().to_list() == ["event period"]


def test_rows_giving_an_event_two_periods_are_all_rejected() -> None:
    games = table("""
white_id,black_id,result,date,period,event_id
A,B,1-0,2025-11-03,2025-11,E
A,C,1-0,2025-11-04,2025-12,E
B,C,1-0,2025-11-04,,E
""")

    # every row of the period rejected: allowed explicitly (the default refuses such a run)
    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST, period_by="event", max_rejected="100%")

    assert result.counts.counted == 0
    assert result.rejected["source_row"].to_list() == [1, 3]  # row 2 belongs to 2025-12's rejected rows
    assert result.counts.other_periods == 1
    assert (
        "its rows give different values of period (2025-11, 2025-12); an event has one" in result.rejected["reason"][0]
    )


def test_by_date_the_events_file_period_is_not_used_and_said_so() -> None:
    games = table("white_id,black_id,result,date,event_id\nA,B,1-0,2025-11-03,E")
    events = table("event_id,period\nE,2025-12")

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST, events=events)

    assert result.counts.counted == 1
    assert any("it is used only when events decide the periods" in w for w in result.warnings)


def test_an_event_longer_than_30_days_is_rated_whole_and_warned_about() -> None:
    games = table("""
white_id,black_id,result,date,event_id
A,B,1-0,2025-10-20,E
A,C,1-0,2025-11-20,E
""")

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST, period_by="event")

    assert result.counts.counted == 2
    assert any("event 'E' lasts 32 days (2025-10-20 to 2025-11-20), more than 30" in w for w in result.warnings)


# --- the ratings of the list at the event's start -----------------------------------------------


def test_an_event_started_before_the_run_uses_the_game_rows_ratings_and_warns_where_a_row_has_none() -> None:
    """T starts 30 October, rated in 2025-11 by the closing date. The row's own ratings (2000 vs 2000) are
    the start list's: D 0, +10 for A, although the November list has A at 2100 (D 100 would give +7)."""
    games = table("""
white_id,black_id,white_rating,black_rating,result,date,event_id
A,B,2000,2000,1-0,2025-10-30,T
A,C,,,1-0,2025-11-01,T
""")
    november = LIST.with_columns(
        pl.when(pl.col("player_id") == "A").then(pl.lit("2100")).otherwise("rating").alias("rating")
    )

    result = elo_batch.rate_period(games, period="2025-11", ratings=november, period_by="event")

    audit = audit_of(result)
    # the second row has no ratings: the November list's, D 2100 - 1900 = 200 -> PD 0.76, 20 x 0.24 = 4.8
    assert audit.filter(pl.col("player_id") == "A")["k_change"].to_list() == [10.0, 4.8]
    assert any(
        "1 row(s) of 1 event(s) that started in a month this run did not rate ('T': 2025-10)" in w
        for w in result.warnings
    )


def test_in_a_range_a_late_newcomer_is_rated_for_himself_and_unrated_for_his_opponents() -> None:
    """B.02 8.2.4 with the run's own lists. N has 4 pooled games (score 2, opponents 4 x 2000) and draws
    B (2000) in October: 5 games, Ra = (10000 + 3600) / 7 = 1942.86, p = 3.5 / 7 = 0.50, dp 0 -> Ru 1943,
    published on the 1 November list (K 40). T (30 October - 2 November, rated in 2025-11) started when
    N was unrated on the run's October list: N, for himself at 1943, beats A (2000): D -57 -> PD 0.42,
    40 x 0.58 = 23.2 -> +23 -> 1966; for A the game does not count (by the November list alone, A would
    lose 20 x 0.58 = 11.6 -> 12)."""
    games = table("""
white_id,black_id,result,date,event_id
N,B,1/2-1/2,2025-10-05,E0
N,A,1-0,2025-10-30,T
A,C,1/2-1/2,2025-11-02,T
""")
    rating_list = table("""
player_id,rating,k,pending
A,2000,20,
B,2000,20,
C,2000,20,
N,,,2025-09:4:4:8000
""")

    october, november = elo_batch.rate_periods(
        games, periods="2025-10..2025-11", ratings=rating_list, period_by="event"
    )

    assert change(october, "N")[0] == 1943
    assert change(november, "N") == (1966, 23, 1)
    assert change(november, "A") == (2000, 0, 1)  # only the draw with C (D 0: 0) counts
    audit = audit_of(november).filter(pl.col("game_id").is_null() & (pl.col("opponent_id") == "N"))
    assert audit.select("player_id", "counted", "reason", "event_rule").rows() == [
        ("A", False, "opponent unrated at the event's start", "8.2.4 opponent unrated at the event's start")
    ]
    own = audit_of(november).filter(pl.col("player_id") == "N")["event_rule"].to_list()
    assert own == ["8.2.4 rated for himself, unrated for his opponents"]
    assert any(
        "2025-11: 1 game side(s) not counted because the opponent had no rating at the event's start" in w
        for w in november.warnings
    )


def test_a_start_list_rating_under_the_floor_is_no_rating_at_the_events_start() -> None:
    """The list of an event's start is read as the period reads it (B.02 7.1.2): N's 1350 on the October
    list is under the floor 1400, so N is unrated there; rated 1943 in October (as in the test above),
    he is the late newcomer of 8.2.4 in T, not a player rated 1350 (which would give A -18, N +37)."""
    games = table("""
white_id,black_id,result,date,event_id
N,B,1/2-1/2,2025-10-05,E0
N,A,1-0,2025-10-30,T
A,C,1/2-1/2,2025-11-02,T
""")
    rating_list = table("""
player_id,rating,k,pending
A,2000,20,
B,2000,20,
C,2000,20,
N,1350,40,2025-09:4:4:8000
""")

    october, november = elo_batch.rate_periods(
        games, periods="2025-10..2025-11", ratings=rating_list, period_by="event"
    )

    assert change(october, "N")[0] == 1943
    assert change(november, "N") == (1966, 23, 1)
    assert change(november, "A") == (2000, 0, 1)
    audit = audit_of(november).filter(pl.col("game_id").is_null() & (pl.col("opponent_id") == "N"))
    assert audit["reason"].to_list() == ["opponent unrated at the event's start"]


def test_the_late_newcomer_signal_is_an_empty_game_row_rating_by_event_only() -> None:
    """By date an empty cell falls back to the list, as before: A's loss to N (1700) counts."""
    games = table("""
white_id,black_id,white_rating,black_rating,result,date,event_id
N,A,,2000,1-0,2025-11-03,T
""")
    rating_list = pl.concat([LIST, table("player_id,rating,k\nN,1700,40")])

    by_date = elo_batch.rate_period(games, period="2025-11", ratings=rating_list)
    by_event = elo_batch.rate_period(games, period="2025-11", ratings=rating_list, period_by="event")

    assert change(by_date, "A") == (1983, -17, 1)  # D 300 -> 0.85, 20 x 0.85 = 17
    assert change(by_event, "A") == (2000, 0, 0)
    assert change(by_event, "N") == (1734, 34, 1)  # D -300 -> 0.15, 40 x 0.85 = 34


def test_a_zero_game_row_rating_is_no_rating_for_the_event_columns() -> None:
    rows = pl.DataFrame(
        {
            "row_key": [0, 1], "date": [None, None], "event_id": [None, None], "one_sided": [False, False],
            "white_rating": [0.0, 2000.0], "black_rating": [1900.0, None], w.WHITE: [0, 1], w.BLACK: [1, 0],
        },
        schema_overrides={"date": pl.Date, "event_id": pl.String, w.WHITE: pl.UInt32, w.BLACK: pl.UInt32},
    )  # fmt: skip
    facts = eventrows.PeriodEvents("2025-11", True, pl.DataFrame(), pl.DataFrame())

    got = eventrows.event_columns(rows, facts)

    assert got["white_rating"].to_list() == [None, 2000.0]
    assert got.select(w.WHITE_LATE, w.BLACK_LATE).rows() == [(True, False), (False, True)]


# --- B.02 6.1 and 6.2: matches ----------------------------------------------------------------------


def match(results: list[tuple[str, str, str, str]], *, games: int | None = 4) -> pl.DataFrame:
    """A match between A and B: (round, date, white, result) per game, in file order."""
    lines = [
        f"{round_},{date},{white},{'B' if white == 'A' else 'A'},{result},M,match,{games or ''}"
        for round_, date, white, result in results
    ]
    return table("round,date,white_id,black_id,result,event_id,event_type,match_games\n" + "\n".join(lines))


def test_games_after_the_match_is_decided_are_found_by_round_as_a_number() -> None:
    """3 games scheduled: A wins rounds 1 and 2 (2 > 1.5 points: decided); round 10 comes after round 2
    (as text '10' would sort before '2'), so it is not rated."""
    games = match([("10", "", "B", "1-0"), ("2", "", "A", "1-0"), ("1", "", "A", "1-0")], games=3)
    games = games.with_columns(pl.lit("2025-11-03").alias("date"))

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST)

    audit = audit_of(result).filter(pl.col("player_id") == "A")
    assert audit.select("round", "counted", "reason").rows() == [
        ("10", False, "played after the match was decided"),
        ("2", True, None),
        ("1", True, None),
    ]
    assert change(result, "A") == (2020, 20, 2)


def test_without_rounds_the_match_is_ordered_by_date_then_file_order() -> None:
    """4 games: B wins on the 5th; A wins the 3rd, 4th and (file order) both games of the 6th: after the
    first game of the 6th A has 3 > 2 points; the second is not rated."""
    games = match(
        [("", "2025-11-06", "A", "1-0"), ("", "2025-11-06", "A", "1-0"), ("", "2025-11-05", "B", "1-0"),
         ("", "2025-11-03", "A", "1-0"), ("", "2025-11-04", "B", "0-1")]
    )  # fmt: skip

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST)

    counted = audit_of(result).filter(pl.col("player_id") == "A")["counted"].to_list()
    assert counted == [True, False, True, True, True]


def test_a_forfeit_counts_in_the_match_score_but_is_not_rated() -> None:
    """3 games scheduled: A wins game 1 by forfeit (it counts in the match score, and is never rated:
    B.02 5.1) and game 2: 2 points > 3/2, the match is decided; game 3 is not rated."""
    games = match(
        [("1", "2025-11-03", "A", "+--"), ("2", "2025-11-04", "A", "1-0"), ("3", "2025-11-05", "B", "1-0")], games=3
    )

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST)

    reasons = audit_of(result).filter(pl.col("player_id") == "A")["reason"].to_list()
    assert reasons == ["forfeit", None, "played after the match was decided"]


def test_a_match_without_match_games_is_rated_in_full_and_warned_about() -> None:
    games = match(
        [("1", "2025-11-03", "A", "1-0"), ("2", "2025-11-04", "A", "1-0"), ("3", "2025-11-05", "A", "1-0")], games=None
    )

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST)

    assert change(result, "A") == (2030, 30, 3)
    assert any("1 match(es) without match_games ('M'): B.02 6.2" in w for w in result.warnings)


def test_a_match_with_a_player_unrated_at_its_start_is_not_rated_by_event() -> None:
    """B.02 6.1 with 8.2.4's signal: B is rated now (2000) but the match report has no rating for him."""
    games = table("""
white_id,black_id,white_rating,black_rating,result,date,event_id,event_type,match_games
A,B,2000,,1-0,2025-11-03,M,match,2
B,A,,2000,1/2-1/2,2025-11-04,M,match,2
""")

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST, period_by="event")

    assert change(result, "B") == (2000, 0, 0)
    assert set(audit_of(result)["event_rule"].to_list()) == {"6.1 match with an unrated player"}
    assert any("4 side(s) of matches with an unrated player not rated (B.02 6.1)" in w for w in result.warnings)


def test_a_match_of_three_players_is_rejected_whole() -> None:
    games = table("""
white_id,black_id,result,date,event_id,event_type
A,B,1-0,2025-11-03,M,match
A,C,1-0,2025-11-04,M,
""")

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST, max_rejected="100%")  # every row

    assert result.rejected.height == 2
    assert result.rejected["reason"][0].startswith("event 'M' is a match, but its games have 3 players (A, B, C).")


def test_rows_giving_an_event_two_types_are_rejected_whole_and_one_against_the_events_file_alone() -> None:
    games = table("""
white_id,black_id,result,date,event_id,event_type
A,B,1-0,2025-11-03,M,match
A,B,1-0,2025-11-04,M,tournament
A,C,1-0,2025-11-05,T,match
A,C,1-0,2025-11-06,T,
""")
    events = table("event_id,event_type\nT,tournament")

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST, events=events)

    assert result.rejected["source_row"].to_list() == [1, 2, 3]
    assert "its rows give different values of event_type (match, tournament)" in result.rejected["reason"][0]
    assert result.rejected["reason"][2].startswith("event 'T' has event_type 'tournament' in the events file")
    assert result.counts.counted == 1 and result.counts.reconciles()


# --- reading: the events file and the game rows' event columns -------------------------------------


def test_a_bad_event_column_on_a_game_row_rejects_the_row_with_the_reason() -> None:
    games = table("""
white_id,black_id,result,date,event_id,event_type,match_games
A,B,1-0,2025-11-03,M,duel,
A,B,1-0,2025-11-04,M,match,four
""")

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST, max_rejected="100%")  # every row

    assert result.rejected.select("source_row", "column", "reason").rows() == [
        (1, "event_type", "'duel' is not an event type. Hint: use tournament or match."),
        (2, "match_games", "'four' is not a number of games. Hint: the games scheduled in the match, 1 to 1000."),
    ]


def test_a_bad_events_file_stops_the_run_naming_the_row_and_column(cli, tmp_path: Path) -> None:
    games = write_csv(tmp_path / "games.csv", "white_id,black_id,result,date,event_id\nA,B,1-0,2025-11-03,E")
    events = write_csv(tmp_path / "events.csv", "event_id,event_start,event_end\nE,2025-11-05,2025-11-03")

    result = cli("run", games, "--period", "2025-11", "--events", events, "--out", tmp_path / "out")

    assert result.exit_code == 65
    assert f"{events}, row 1, column event_end: event_end 2025-11-03 is before event_start 2025-11-05" in result.stderr
    assert "Hint: an event ends on or after its start." in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name,period\nE,2025-11", "missing column event_id; the events file has name, period"),
        ("event_id,event_type\nE,match\nE,tournament", "event 'E' is on rows 1, 2 with different attributes"),
        ("event_id,period\nE,2025-13\nF,11/2025", "2 rows of the events file are not valid (all of them here)"),
    ],
)
def test_events_file_errors(tmp_path: Path, text: str, message: str) -> None:
    path = write_csv(tmp_path / "events.csv", text)
    games = table("white_id,black_id,result,date\nA,B,1-0,2025-11-03")

    with pytest.raises(InputDataError, match=re.escape(message)):
        elo_batch.rate_period(games, period="2025-11", events=str(path))


def test_period_by_is_checked_and_named() -> None:
    games = table("white_id,black_id,result,date\nA,B,1-0,2025-11-03")

    with pytest.raises(UsageError, match="option period_by: 'tournament' is not one of 'date', 'event'"):
        elo_batch.rate_period(games, period="2025-11", period_by="tournament")  # type: ignore[arg-type]


def test_cli_run_by_event_writes_the_event_rule_and_the_manifest_records_the_events_file(cli, tmp_path: Path) -> None:
    games = write_csv(tmp_path / "games.csv", "white_id,black_id,result,date,event_id\nA,B,1-0,2025-11-29,E")
    events = write_csv(tmp_path / "events.csv", "event_id,event_type\nE,tournament")
    ratings = write_csv(tmp_path / "ratings.csv", "player_id,rating,k\nA,2000,20\nB,2000,20")
    out = tmp_path / "out"

    result = cli(
        "run", games, "--ratings", ratings, "--events", events, "--period", "2025-12", "--period-by", "event",
        "--out", out, "--format", "csv",
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    assert (
        read_table(out, "audit", "2025-12")["event_rule"].to_list()
        == ["7.1.3 closing date: rated after the month of play"] * 2
    )
    manifest = json.loads((out / "manifest" / "period=2025-12" / "manifest.json").read_text())
    assert manifest["inputs"]["events"]["path"] == str(events)
    assert manifest["options"]["period_by"] == "event"
    assert "warning: 2025-12: 1 row(s) dated before 2025-12 are rated in it" in result.stderr


def test_the_event_map_over_parts_of_the_rows_gives_the_facts_of_all_of_them() -> None:
    """An engine reading the rows in parts (Spark partitions) maps each part and reduces once."""
    frame = table("""
white_id,black_id,result,date,event_id,round,event_type,match_games
A,B,1-0,2025-11-03,M,1,match,3
B,A,0-1,2025-11-04,M,2,match,3
A,B,0-1,2025-11-05,M,3,match,3
A,C,1-0,2025-11-28,T,1,,
B,C,1-0,2025-11-29,T,2,,
A,C,1-0,2025-11-29,X,1,match,
B,C,1-0,2025-11-30,X,1,,
""")
    games = games_input(frame, fractional=False, period_by=None)
    whole = settle(games, None, "event").events
    plan = plan_events(None, games.event_rows, "event")
    rows = games.rows.lazy()
    parts = [pl.collect_all(list(event_groups(part, plan))) for part in (rows.head(3), rows.slice(3, 2), rows.slice(5))]

    facts, rejected = reduce_events(plan, pl.concat([g for g, _ in parts]), pl.concat([p for _, p in parts]))

    assert whole is not None
    assert facts.events.equals(whole.events) and facts.decided.equals(whole.decided)
    assert facts.groups.equals(whole.groups) and facts.match_rows.sort("row_key").equals(
        whole.match_rows.sort("row_key")
    )
    assert rejected["source_row"].to_list() == [6, 7]  # X: a match of three players
    assert whole.decided["row_key"].to_list() == [2]  # A leads 2-0 after round 2 of 3
    assert whole.events.filter(pl.col("event_id") == "T")["period"].item() == "2025-12"


@pytest.mark.parametrize("chunk_rows", [None, 2], ids=["in-memory", "streamed"])
def test_events_from_parquet_rows_read_in_chunks_give_the_same_lists(cli, tmp_path: Path, chunk_rows) -> None:
    """Parquet games of more rows than --chunk-rows are streamed: the event columns are read in a pass of
    their own, the periods moved in the plan; the lists are those of the rows in memory."""
    golden = Path(__file__).parent / "golden"
    frames = [
        pl.read_csv(golden / name / "games.csv", infer_schema=False).with_columns(
            pl.lit(name).alias("event_id"), (name + pl.col("game_id")).alias("game_id")
        )
        for name in ("fide-match-decided", "fide-event-closing-date")
    ]
    games = tmp_path / "games.parquet"
    pl.concat(frames, how="diagonal").write_parquet(games)
    ratings = tmp_path / "ratings.csv"
    lists = [pl.read_csv(golden / name / "ratings.csv") for name in ("fide-match-decided", "fide-event-closing-date")]
    pl.concat(lists).write_csv(ratings)
    chunks = ["--chunk-rows", str(chunk_rows)] if chunk_rows else []
    out = tmp_path / "out"

    result = cli(
        "run", games, "--ratings", ratings, "--period", "2025-11..2025-12", "--period-by", "event", *chunks,
        "--out", out, "--format", "csv",
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    november, december = (read_table(out, "ratings", month) for month in ("2025-11", "2025-12"))
    # the match (A vs B, decided after round 3: +30 / -30) is in November; E1 and E2 are one event here
    # (event_id fide-event-closing-date), ending 29 November: December, P +10 +10
    assert november.filter(pl.col("player_id").is_in(["A", "B"]))["change"].to_list() == ["30", "-30"]
    assert december.filter(pl.col("player_id") == "P")["change"].to_list() == ["20"]


def test_validate_takes_the_events_and_checks_their_rows(cli, tmp_path: Path) -> None:
    games = write_csv(
        tmp_path / "games.csv",
        "white_id,black_id,result,date,period,event_id\nA,B,1-0,2025-11-29,,E\nA,C,1-0,2025-11-29,2025-11,E",
    )
    events = write_csv(tmp_path / "events.csv", "event_id,period\nE,2025-12")

    by_event = ("--events", events, "--period-by", "event", "--period", "2025-12", "--ratings", "none")  # no list
    result = cli("validate", games, *by_event)

    assert result.exit_code == 65  # a row is rejected
    assert "row 2, column period: event 'E' has period '2025-12' in the events file" in result.stdout
    assert "2 rows read = 0 counted + 1 not counted (audited) + 0 other periods + 1 rejected" in result.stderr
