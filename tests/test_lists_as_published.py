"""A list as FIDE publishes it: a rating under the rule set's floor, and a rating of 0, are no rating.

B.02 (2024) 7.1.2: since 1 March 2024 the list holds only ratings of 1400 or more; a player whose rating
falls under it is unrated on the next list (7.2.1, ``fide-rules.md`` section 5: "A player whose new
rating is below 1400 is shown as unrated on the next list. From then on they are treated like any other
unrated player"). A copy of the list that still holds such a rating is read so. A rating of 0 is what
FIDE's own download, TRF files, PGN tags and pairing programs write for "no rating".

Every expected score is table 8.1.2 (D 0-3 .50, D 100 .64 / .36, D 236-245 .80 / .20, D 246-256 .81 /
.19), K 20 unless said otherwise, one rounding per period (8.3.4).
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

import elo_batch
from tests.conftest import read_table, reconciliation, write_csv

PERIOD = "2025-11"


def _rows(out: Path, table: str = "ratings") -> dict[str, dict]:
    return {row["player_id"]: row for row in read_table(out, table, PERIOD).iter_rows(named=True)}


def _manifest(out: Path) -> dict:
    return json.loads((out / "manifest" / f"period={PERIOD}" / "manifest.json").read_text())


# --- the floor ---------------------------------------------------------------------------------------


def test_a_list_rating_under_the_floor_is_unrated_in_his_own_and_his_opponents_calculation(cli, tmp_path) -> None:
    """A (1350 on a third-party copy) draws with B (1600); B loses to C (1500).

    A is unrated: B's draw with him is not counted ("unrated opponent"), and A's draw waits in his pool
    (one game against a rated 1600, half a point: ``2025-11:1:1:1600``). B: D 100 -> PD .64, 0 - .64 =
    -0.64 x 20 = -12.8 -> -13 -> 1587; C: D -100 -> .36, 1 - .36 = 0.64 x 20 = 12.8 -> +13 -> 1513.
    Had A been rated 1350, B's draw would count: D 250 -> .81, 0.5 - .81 = -0.31, and B would lose
    (-0.31 - 0.64) x 20 = -19 -> 1581. D (1399, no game) is unrated on the new list; E at exactly the
    floor, 1400, stays rated.
    """
    ratings = write_csv(
        tmp_path / "list.csv", "player_id,rating,k\nA,1350,20\nB,1600,20\nC,1500,20\nD,1399,20\nE,1400,20"
    )
    games = write_csv(
        tmp_path / "g.csv", "game_id,date,white_id,black_id,result\n1,2025-11-10,B,A,1/2-1/2\n2,2025-11-12,B,C,0-1"
    )
    out = tmp_path / "out"

    result = cli("run", games, "--ratings", ratings, "--period", PERIOD, "--out", out, "--format", "csv")

    assert result.exit_code == 0, result.output
    rows = _rows(out)
    assert {p: (r["rating"], r["rating_before"], r["status"]) for p, r in rows.items()} == {
        "A": (None, None, "unrated"),
        "B": ("1587", "1600", "rated"),
        "C": ("1513", "1500", "rated"),
        "D": (None, None, "unrated"),
        "E": ("1400", "1400", "rated"),
    }
    assert rows["A"]["pending"] == "2025-11:1:1:1600"
    audit = {(r["player_id"], r["game_id"]): r for r in read_table(out, "audit", PERIOD).iter_rows(named=True)}
    assert (audit[("B", "1")]["counted"], audit[("B", "1")]["reason"]) == ("false", "unrated opponent")
    assert audit[("A", "1")]["reason"] == "pending first rating"
    warning = (
        "2025-11: 2 list rating(s) under the floor 1400 are unrated, as FIDE's list holds no rating under it "
        "(B.02 7.1.2): A (1350), D (1399)"
    )
    assert warning in result.output
    assert warning in _manifest(out)["warnings"]
    assert reconciliation(result.output) == {"read": 2, "counted": 1, "not_counted": 1, "other": 0, "rejected": 0}


def test_the_warning_counts_every_rating_under_the_floor_and_names_five() -> None:
    listed = pl.DataFrame(
        {"player_id": [f"P{i}" for i in range(7)] + ["Q"], "rating": [1000.0 + i for i in range(7)] + [2000.0]}
    )
    games = pl.DataFrame({"white_id": ["Q"], "black_id": ["P0"], "result": ["1-0"], "date": ["2025-11-02"]})

    result = elo_batch.rate_period(games, period=PERIOD, ratings=listed)

    assert (
        "2025-11: 7 list rating(s) under the floor 1400 are unrated, as FIDE's list holds no rating under it "
        "(B.02 7.1.2): P0 (1000), P1 (1001), P2 (1002), P3 (1003), P4 (1004), ..."
    ) in result.warnings
    assert result.ratings.filter(pl.col("rating").is_not_null())["player_id"].to_list() == ["Q"]
    assert result.ratings.filter(pl.col("player_id") == "Q")["change"].item() == 0  # his opponent was unrated


def test_a_rule_set_without_a_floor_rates_the_list_as_it_is(cli, tmp_path) -> None:
    """Classic Elo has no floor: A's 1350 is his rating (logistic formula, K 20: B's expected score
    against him 1 / (1 + 10^(-250/400)) = 0.8082, 0.5 - 0.8082 = -0.3082 x 20 = -6.16 -> -6 -> 1594)."""
    ratings = write_csv(tmp_path / "list.csv", "player_id,rating\nA,1350\nB,1600")
    games = write_csv(tmp_path / "g.csv", "game_id,date,white_id,black_id,result\n1,2025-11-10,B,A,1/2-1/2")
    out = tmp_path / "out"

    result = cli(
        "run", games, "--ratings", ratings, "--period", PERIOD, "--rules", "elo", "--out", out, "--format", "csv"
    )

    assert result.exit_code == 0, result.output
    rows = _rows(out)
    assert (rows["A"]["rating"], rows["A"]["rating_before"], rows["B"]["rating"]) == ("1356", "1350", "1594")
    assert "under the floor" not in result.output


def test_in_a_range_the_floor_applies_to_the_list_given_and_the_next_lists_hold_none_under_it(tmp_path) -> None:
    listed = pl.DataFrame({"player_id": ["A", "B", "C"], "rating": [1350, 1600, 1500], "k": [20, 20, 20]})
    games = pl.DataFrame(
        {
            "white_id": ["B", "B"],
            "black_id": ["A", "C"],
            "result": ["1/2-1/2", "0-1"],
            "date": ["2025-11-10", "2025-12-01"],
        }
    )

    november, december = elo_batch.rate_periods(games, periods="2025-11..2025-12", ratings=listed)

    assert any("1 list rating(s) under the floor 1400" in w for w in november.warnings)
    assert not any("under the floor" in w for w in december.warnings)
    assert november.ratings.filter(pl.col("player_id") == "B")["rating"].item() == 1600  # the draw did not count
    # December: B 1600 loses to C 1500: -0.64 x 20 = -12.8 -> -13
    assert december.ratings.filter(pl.col("player_id") == "B")["rating"].item() == 1587


# --- a rating of 0 ------------------------------------------------------------------------------------


def test_a_list_rating_of_0_is_unrated(cli, tmp_path) -> None:
    """B's 0 is "no rating": A's win over him is not counted, A's win over C (2100, K 10) is:
    A: D -100 -> .36, 1 - .36 = 0.64 x 20 = 12.8 -> +13 -> 2013; C: 0 - .64 = -0.64 x 10 = -6.4 -> -6 ->
    2094. B's loss is the zero score of an unrated player's first event, which is ignored (8.2.1). Before,
    the 0 stopped the run (exit 65)."""
    ratings = write_csv(tmp_path / "list.csv", "player_id,rating,k\nA,2000,20\nB,0,20\nC,2100,10")
    games = write_csv(
        tmp_path / "g.csv", "game_id,date,white_id,black_id,result\n1,2025-11-10,A,B,1-0\n2,2025-11-11,A,C,1-0"
    )
    out = tmp_path / "out"

    result = cli("run", games, "--ratings", ratings, "--period", PERIOD, "--out", out, "--format", "csv")

    assert result.exit_code == 0, result.output
    rows = _rows(out)
    assert {p: (r["rating"], r["rating_before"], r["status"]) for p, r in rows.items()} == {
        "A": ("2013", "2000", "rated"),
        "B": (None, None, "unrated"),
        "C": ("2094", "2100", "rated"),
    }
    audit = {
        (r["player_id"], r["game_id"]): r["reason"] for r in read_table(out, "audit", PERIOD).iter_rows(named=True)
    }
    assert (audit[("A", "1")], audit[("B", "1")]) == ("unrated opponent", "first event scored zero")
    assert "under the floor" not in result.output  # 0 is no rating, not a rating under the floor


def test_an_integer_list_rating_of_0_is_unrated_too() -> None:
    listed = pl.DataFrame({"player_id": ["A", "B"], "rating": [2000, 0], "k": [20, 20]})
    games = pl.DataFrame({"white_id": ["A"], "black_id": ["B"], "result": ["1-0"], "date": ["2025-11-10"]})

    result = elo_batch.rate_period(games, period=PERIOD, ratings=listed)

    b = result.ratings.filter(pl.col("player_id") == "B").row(0, named=True)
    assert (b["rating"], b["rating_before"], b["status"]) == (None, None, "unrated")


def test_a_game_row_rating_of_0_falls_back_to_the_list(cli, tmp_path) -> None:
    """Both rows are A (2000) beating B (1900): D 100 -> .64, A: 2 x 0.36 x 20 = 14.4 -> +14 -> 2014;
    B: 2 x -0.36 x 20 = -14.4 -> -14 -> 1886. Row 2's ratings are 0: no rating, so the list's are used.
    Before, row 2 was rejected ("rating 0 is out of range")."""
    ratings = write_csv(tmp_path / "list.csv", "player_id,rating,k\nA,2000,20\nB,1900,20")
    games = write_csv(
        tmp_path / "g.csv",
        "game_id,date,white_id,black_id,result,white_rating,black_rating\n1,2025-11-01,A,B,1-0,,\n2,2025-11-03,A,B,1-0,0,0",
    )
    out = tmp_path / "out"

    result = cli("run", games, "--ratings", ratings, "--period", PERIOD, "--out", out, "--format", "csv")

    assert result.exit_code == 0, result.output
    assert reconciliation(result.output) == {"read": 2, "counted": 2, "not_counted": 0, "other": 0, "rejected": 0}
    rows = _rows(out)
    assert (rows["A"]["rating"], rows["B"]["rating"]) == ("2014", "1886")
    audit = read_table(out, "audit", PERIOD).filter(pl.col("game_id") == "2")
    assert sorted(zip(audit["player_id"], audit["rating"], audit["opponent_rating"], strict=True)) == [
        ("A", "2000", "1900"),
        ("B", "1900", "2000"),
    ]


def test_a_one_sided_rating_of_0_is_no_rating(cli, tmp_path) -> None:
    """P (2000) beats a 1900: D 100 -> .64, 1 - .64 = 0.36 x 20 = 7.2 -> +7 -> 2007. The win over an
    opponent rated 0 is a game against an unrated opponent (not counted); the player_rating 0 on row 3
    is no rating: his rating is the one of his first game, 2000."""
    games = write_csv(
        tmp_path / "one.csv",
        "player_id,opponent_rating,result,date,player_rating\n"
        "P,1900,1,2025-11-01,2000\nP,0,1,2025-11-02,2000\nP,1800,0,2025-11-03,0",
    )
    out = tmp_path / "out"

    result = cli("run", games, "--period", PERIOD, "--out", out, "--format", "csv")

    assert result.exit_code == 0, result.output
    audit = read_table(out, "audit", PERIOD).sort("source_row")
    assert audit["reason"].to_list() == [None, "unrated opponent", None]
    assert audit["rating"].to_list() == ["2000", "2000", "2000"]
    # Row 3: P loses to an 1800: D 200 -> .76, 0 - .76 = -0.76; (0.36 - 0.76) x 20 = -8 -> 1992
    assert _rows(out)["P"]["rating"] == "1992"


def test_a_negative_rating_is_still_out_of_range(cli, tmp_path) -> None:
    ratings = write_csv(tmp_path / "list.csv", "player_id,rating\nA,2000\nB,-5")
    games = write_csv(tmp_path / "g.csv", "game_id,date,white_id,black_id,result\n1,2025-11-10,A,B,1-0")

    result = cli("run", games, "--ratings", ratings, "--period", PERIOD, "--out", tmp_path / "out")

    assert result.exit_code == 65
    assert "'-5' is out of range; expected 0 < rating < 3500 (0 or empty = unrated)" in result.output
