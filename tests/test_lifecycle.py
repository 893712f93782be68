"""Player lifecycle across periods: chained lists, ranges, first ratings, K changes, rule sets by date.

Expected values are worked by hand from FIDE B.02 (2024) and the digest's test vectors (fide-rules.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import read_table, write_csv


def _row(out: Path, period: str, player: str) -> dict:
    ratings = read_table(out, "ratings", period)
    return ratings.filter(pl.col("player_id") == player).row(0, named=True)


def _ok(result) -> None:
    assert result.exit_code == 0, result.output


# --- first ratings (B.02 7.1.4, 8.2) -----------------------------------------------------------
POOL_GAMES = """
game_id,date,event_id,white_id,black_id,result
1,2025-11-05,E1,N,a,1-0
2,2025-11-06,E1,b,N,1/2-1/2
3,2025-11-07,E1,N,c,0-1
4,2025-12-10,E2,d,N,0-1
5,2025-12-11,E2,N,e,1/2-1/2
"""
POOL_LIST = """
player_id,rating,k
a,1600,20
b,1700,20
c,1800,20
d,1650,20
e,1750,20
"""


def test_pool_completes_in_the_second_month_tv17(cli, tmp_path) -> None:
    """TV-17: 3 games in P1 (nothing published), 2 in P2: n 5, W 3, sum 8500 -> Ru 1778.57 -> 1779."""
    games, lst, out = (
        write_csv(tmp_path / "g.csv", POOL_GAMES),
        write_csv(tmp_path / "l.csv", POOL_LIST),
        tmp_path / "o",
    )

    _ok(cli("run", games, "--ratings", lst, "--period", "2025-11..2025-12", "--out", out, "--format", "csv"))

    first = _row(out, "2025-11", "N")
    assert (first["rating"], first["status"], first["pending"]) == (None, "unrated", "2025-11:3:3:5100")
    second = _row(out, "2025-12", "N")
    assert (second["rating"], second["status"], second["games"], second["pending"]) == ("1779", "new", "2", None)
    assert (second["k"], second["games_total"]) == ("40", "5")
    # the rated opponents' games against an unrated player do not count for them (B.02 8.2.4)
    assert _row(out, "2025-11", "a")["change"] == "0"


def test_range_run_equals_chained_single_runs(cli, tmp_path) -> None:
    games, lst = write_csv(tmp_path / "g.csv", POOL_GAMES), write_csv(tmp_path / "l.csv", POOL_LIST)
    _ok(cli("run", games, "--ratings", lst, "--period", "2025-10..2025-12", "--out", tmp_path / "range"))
    previous = lst
    for period in ("2025-10", "2025-11", "2025-12"):
        _ok(cli("run", games, "--ratings", previous, "--period", period, "--out", tmp_path / "chain"))
        previous = tmp_path / "chain" / "ratings" / f"period={period}" / "part-0.parquet"
        for table in ("ratings", "audit"):
            assert read_table(tmp_path / "range", table, period).equals(read_table(tmp_path / "chain", table, period))


def test_first_event_scored_zero_is_ignored_tv20(cli, tmp_path) -> None:
    """TV-20: event 1 0/4 (ignored); event 2 3/5 vs five 1800s: Ra 1800, p 4/7 -> .57 -> +50 -> 1850."""
    rows = [f"{i},2025-11-0{i},E1,N,z{i},0-1" for i in range(1, 5)]
    rows += ["5,2025-11-20,E2,N,o1,1-0", "6,2025-11-21,E2,N,o2,1-0", "7,2025-11-22,E2,o3,N,0-1",
             "8,2025-11-23,E2,N,o4,0-1", "9,2025-11-24,E2,o5,N,1-0"]  # fmt: skip
    games = write_csv(tmp_path / "g.csv", "game_id,date,event_id,white_id,black_id,result\n" + "\n".join(rows))
    lst = write_csv(tmp_path / "l.csv", "player_id,rating\n" + "\n".join(
        [f"z{i},2000" for i in range(1, 5)] + [f"o{i},1800" for i in range(1, 6)]))  # fmt: skip
    out = tmp_path / "o"

    _ok(cli("run", games, "--ratings", lst, "--period", "2025-11", "--out", out))

    n = _row(out, "2025-11", "N")
    assert (n["rating"], n["status"], n["games"], n["games_total"]) == (1850, "new", 5, 5)
    audit = read_table(out, "audit", "2025-11").filter(pl.col("player_id") == "N")
    assert audit.filter(pl.col("event_id") == "E1")["reason"].to_list() == ["first event scored zero"] * 4
    assert audit.filter(pl.col("event_id") == "E2")["counted"].all()


def test_first_event_zero_in_an_earlier_month_then_a_scoring_event(cli, tmp_path) -> None:
    rows = ["1,2025-10-03,E0,N,z1,0-1", "2,2025-10-04,E0,z2,N,1-0"]
    rows += [f"{i + 3},2025-11-1{i},E1,N,o{i + 1},{r}" for i, r in enumerate(["1-0", "1-0", "1-0", "0-1", "0-1"])]
    games = write_csv(tmp_path / "g.csv", "game_id,date,event_id,white_id,black_id,result\n" + "\n".join(rows))
    lst = write_csv(tmp_path / "l.csv", "player_id,rating\nz1,2000\nz2,2000\n" + "\n".join(
        f"o{i},1800" for i in range(1, 6)))  # fmt: skip
    out = tmp_path / "o"

    _ok(cli("run", games, "--ratings", lst, "--period", "2025-10..2025-11", "--out", out))

    # nothing pooled (the zero event is ignored), but the list remembers that the first event was seen
    assert _row(out, "2025-10", "N")["pending"] == "2025-10:0:0:0"
    assert _row(out, "2025-11", "N")["rating"] == 1850


ZERO_THEN_ZERO = [f"{i},2025-10-0{i + 4},E1,N,z{i},0-1" for i in range(1, 5)] + [
    f"{i + 5},{{date}},E2,N,o{i},0-1" for i in range(1, 6)
]


@pytest.mark.parametrize(("second_event", "periods"), [("2025-10-25", "2025-10"), ("2025-11-05", "2025-10..2025-11")])
def test_only_the_first_event_is_ignored_when_scored_zero(cli, tmp_path, second_event, periods) -> None:
    """B.02 8.2.1 ignores the first event scored zero; a second 0/5 vs five 1800s counts:
    Ra (9000 + 3600) / 7 = 1800, p 1/7 -> .14 -> -309 -> 1491 (published: at least 1400)."""
    rows = [row.format(date=second_event) for row in ZERO_THEN_ZERO]
    games = write_csv(tmp_path / "g.csv", "game_id,date,event_id,white_id,black_id,result\n" + "\n".join(rows))
    lst = write_csv(tmp_path / "l.csv", "player_id,rating\n" + "\n".join(
        [f"z{i},2000" for i in range(1, 5)] + [f"o{i},1800" for i in range(1, 6)]))  # fmt: skip
    out = tmp_path / "o"
    _ok(cli("run", games, "--ratings", lst, "--period", periods, "--out", out))
    last = periods[-7:]
    n = _row(out, last, "N")
    assert (n["rating"], n["status"], n["games"]) == (1491, "new", 5)


def test_a_zero_in_a_later_event_counts(cli, tmp_path) -> None:
    """Pool 2.5/4 vs 1800 in October; a 0/1 vs 1800 in November counts: n 5, W 2.5, p 3.5/7 = .5 -> 1800."""
    rows = ["1,2025-10-03,E1,N,o1,1-0", "2,2025-10-04,E1,N,o2,1-0", "3,2025-10-05,E1,N,o3,1/2-1/2",
            "4,2025-10-06,E1,N,o4,0-1", "5,2025-11-06,E2,N,o5,0-1"]  # fmt: skip
    games = write_csv(tmp_path / "g.csv", "game_id,date,event_id,white_id,black_id,result\n" + "\n".join(rows))
    lst = write_csv(tmp_path / "l.csv", "player_id,rating\n" + "\n".join(f"o{i},1800" for i in range(1, 6)))
    out = tmp_path / "o"
    _ok(cli("run", games, "--ratings", lst, "--period", "2025-10..2025-11", "--out", out))
    assert _row(out, "2025-11", "N")["rating"] == 1800


def test_pooled_games_older_than_26_months_fall_out(cli, tmp_path) -> None:
    lst = write_csv(tmp_path / "l.csv", "player_id,rating,pending\nN,,2023-09:4:4:8000\no1,1800,")
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n2025-11-05,N,o1,1-0")
    out = tmp_path / "o"
    _ok(cli("run", games, "--ratings", lst, "--period", "2025-11", "--out", out))
    assert _row(out, "2025-11", "N")["pending"] == "2025-11:1:2:1800"  # 2023-09 is 27 months back
    lst2 = write_csv(tmp_path / "l2.csv", "player_id,rating,pending\nN,,2023-10:4:4:8000\no1,1800,")
    _ok(cli("run", games, "--ratings", lst2, "--period", "2025-11", "--out", tmp_path / "o2"))
    # 2023-10..2025-11 is 26 months: pooled, n 5, W 3, sum 9800 -> Ra 1914.29, p .57 -> +50 -> 1964
    assert _row(tmp_path / "o2", "2025-11", "N")["rating"] == 1964


def test_fallen_under_the_floor_starts_again(cli, tmp_path) -> None:
    """TV-23: 1405 loses to 1400 -> 1395: unrated on the new list; its later games pool for a new rating."""
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n2025-11-15,G,F,1-0\n"
                      + "\n".join(f"2025-12-1{i},F,o{i},1-0" for i in range(1, 6)))  # fmt: skip
    lst = write_csv(tmp_path / "l.csv", "player_id,rating,k\nF,1405,20\nG,1400,20\n" + "\n".join(
        f"o{i},1500,20" for i in range(1, 6)))  # fmt: skip
    out = tmp_path / "o"
    _ok(cli("run", games, "--ratings", lst, "--period", "2025-11..2025-12", "--out", out))
    fallen = _row(out, "2025-11", "F")
    assert (fallen["rating"], fallen["status"], fallen["change"], fallen["k"]) == (None, "unrated", -10, None)
    # 5 wins vs 1500: Ra (7500 + 3600) / 7 = 1585.71, p 6/7 -> .86 -> +309 -> 1894.71 -> 1895
    assert _row(out, "2025-12", "F")["rating"] == 1895


# --- K on the new list (B.02 8.3.3) -----------------------------------------------------------
def _k_run(cli, tmp_path, list_text: str, games_text: str, period: str) -> dict:
    out = tmp_path / "o"
    _ok(cli("run", write_csv(tmp_path / "g.csv", games_text), "--ratings", write_csv(tmp_path / "l.csv", list_text),
            "--period", period, "--out", out))  # fmt: skip
    return _row(out, period, "P")


def _games(n: int, period: str) -> str:
    return "date,white_id,black_id,result\n" + "\n".join(f"{period}-1{i % 10},P,o,1/2-1/2" for i in range(n))


@pytest.mark.parametrize(("played", "k_next", "total"), [(4, 40, 29), (5, 20, 30)])
def test_k_moves_from_40_to_20_at_the_30th_game(cli, tmp_path, played, k_next, total) -> None:
    lst = "player_id,rating,k,birth_year,games_total\nP,1800,40,1990,25\no,1800,20,1980,300"
    row = _k_run(cli, tmp_path, lst, _games(played, "2025-11"), "2025-11")
    assert (row["k_used"], row["k"], row["games_total"]) == (40, k_next, total)


@pytest.mark.parametrize(("period", "k_next"), [("2026-11", 40), ("2026-12", 20)])
def test_junior_k_ends_on_the_january_list_after_the_18th_birthday_year(cli, tmp_path, period, k_next) -> None:
    """Born 2008: junior on every 2026 list; K 20 from the January 2027 list (TV-24)."""
    lst = "player_id,rating,birth_year,games_total\nP,2250,2008,80\no,2250,1980,300"
    row = _k_run(cli, tmp_path, lst, _games(1, period), period)
    assert (row["k_used"], row["k"]) == (40, k_next)


def test_k_becomes_10_the_month_after_a_published_2400(cli, tmp_path) -> None:
    """2390 (K 20) beats 2390: +10 with K 20 this period -> 2400 published -> K 10 on the new list."""
    lst = "player_id,rating,k,birth_year,games_total\nP,2390,20,1990,100\no,2390,20,1990,100"
    row = _k_run(cli, tmp_path, lst, "date,white_id,black_id,result\n2025-11-10,P,o,1-0", "2025-11")
    assert (row["rating"], row["k_used"], row["k"], row["reached_2400"]) == (2400, 20, 10, True)


def test_k_stays_10_after_falling_below_2400_and_juniors_at_2300_lose_40(cli, tmp_path) -> None:
    lst = "player_id,rating,k,birth_year,games_total,reached_2400\nP,2405,10,1990,100,\no,2405,10,1990,100,\n"
    row = _k_run(cli, tmp_path, lst, "date,white_id,black_id,result\n2025-11-10,P,o,0-1", "2025-11")
    assert (row["rating"], row["k"]) == (2400, 10)
    lst = "player_id,rating,birth_year,games_total\nP,2295,2010,100\no,2295,1990,100"
    row = _k_run(cli, tmp_path, lst, "date,white_id,black_id,result\n2025-11-10,P,o,1-0", "2025-11")
    assert (row["k_used"], row["rating"], row["k"], row["reached_2300"]) == (40, 2315, 20, True)


def test_new_list_carries_extra_columns_and_is_a_valid_list(cli, tmp_path) -> None:
    lst = "player_id,rating,k,name,federation\nP,1800,20,Ann,NOR\no,1800,20,Bo,SWE"
    row = _k_run(cli, tmp_path, lst, _games(1, "2025-11"), "2025-11")
    assert (row["name"], row["federation"]) == ("Ann", "NOR")


# --- rule sets by date; rapid and blitz --------------------------------------------------------
def test_rule_set_follows_the_period_and_the_manifest_names_it(cli, tmp_path) -> None:
    """2700 (K 10) beats 2100: September 2025 caps for everyone (+0.8 -> +1), October 2025 not (+0.2 -> 0)."""
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n2025-09-10,A,B,1-0\n2025-10-10,C,D,1-0")
    lst = write_csv(tmp_path / "l.csv", "player_id,rating,k\nA,2700,10\nB,2100,20\nC,2700,10\nD,2100,20")
    out = tmp_path / "o"
    _ok(cli("run", games, "--ratings", lst, "--period", "2025-09..2025-10", "--out", out))
    assert _row(out, "2025-09", "A")["change"] == 1
    assert _row(out, "2025-10", "C")["change"] == 0
    names = [json.loads((out / "manifest" / f"period={p}" / "manifest.json").read_text())["rule_set"]["name"]
             for p in ("2025-09", "2025-10")]  # fmt: skip
    assert names == ["fide-2024-03", "fide-2025-10"]


def test_rapid_keeps_the_plain_cap_and_skips_600_gaps_above_2600_tv25(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n2025-11-10,A,B,1-0\n2025-11-10,C,D,1-0\n"
                      "2025-11-10,E,F,1-0")  # fmt: skip
    lst = write_csv(tmp_path / "l.csv", "player_id,rating,k\nA,2600,10\nB,1900,20\nC,2601,10\nD,1800,20\n"
                    "E,2700,10\nF,2150,10")  # fmt: skip
    out = tmp_path / "o"
    _ok(cli("run", games, "--ratings", lst, "--period", "2025-11", "--list", "rapid", "--out", out))
    assert _row(out, "2025-11", "A")["change"] == 1  # 2600 is not above 2600: rated, capped 400 -> +0.8
    assert (_row(out, "2025-11", "C")["games"], _row(out, "2025-11", "D")["games"]) == (0, 0)
    assert _row(out, "2025-11", "E")["change"] == 1  # gap 550: rated; plain cap for a 2700 in rapid
    audit = read_table(out, "audit", "2025-11")
    assert audit.filter(pl.col("player_id") == "C")["reason"].item() == "rating gap 600+ with a player above 2600"


def test_performance_rating_tv21(cli, tmp_path) -> None:
    """3/5 vs 1700, 1900, 2000, 1800, 2105: Ra 1901, p .60 -> +72 -> Rp 1973."""
    opponents = [1700, 1900, 2000, 1800, 2105]
    results = ["1-0", "1-0", "1-0", "0-1", "0-1"]
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n" + "\n".join(
        f"2025-11-1{i},P,o{i},{r}" for i, r in enumerate(results)))  # fmt: skip
    lst = write_csv(tmp_path / "l.csv", "player_id,rating\nP,1900\n" + "\n".join(
        f"o{i},{r}" for i, r in enumerate(opponents)))  # fmt: skip
    out = tmp_path / "o"
    _ok(cli("run", games, "--ratings", lst, "--period", "2025-11", "--out", out))
    row = _row(out, "2025-11", "P")
    assert (row["performance_rating"], row["opponents_average"]) == (1973, 1901)
