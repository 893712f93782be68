"""The `elo-batch run` command end to end: shapes, options, outputs and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import read_table, write_csv

LIST = """
player_id,rating,k,name
A,2000,20,Alice
B,1900,20,Bob
C,2100,10,Carol
"""


@pytest.fixture
def rating_list(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "list.csv", LIST)


def test_outputs_are_hive_partitions_a_warehouse_reads(cli, tmp_path: Path, rating_list: Path) -> None:
    games = write_csv(tmp_path / "g.csv", "game_id,date,white_id,black_id,result\n1,2025-11-03,A,B,1-0")
    out = tmp_path / "out"

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out)

    assert result.exit_code == 0, result.output
    for table in ("ratings", "audit", "rejected"):
        assert (out / table / "period=2025-11" / "part-0.parquet").is_file()
    manifest = json.loads((out / "manifest" / "period=2025-11" / "manifest.json").read_text())
    assert manifest["rule_set"]["name"] == "fide-2025-10"
    assert manifest["counts"]["reconciles"] is True
    assert manifest["inputs"]["games"][0]["sha256"]
    lake = pl.scan_parquet(out / "ratings", hive_partitioning=True).collect()
    assert lake.filter(pl.col("player_id") == "A")["rating"].item() == 2007  # 0.36 x 20 = 7.2
    assert lake.filter(pl.col("player_id") == "A")["name"].item() == "Alice"  # extra columns pass through


def test_listed_player_without_games_keeps_rating_with_change_zero(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n2025-11-03,A,B,1-0")
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out).exit_code == 0
    carol = read_table(out, "ratings", "2025-11").filter(pl.col("player_id") == "C").row(0, named=True)
    assert (carol["rating"], carol["change"], carol["games"], carol["status"]) == (2100, 0, 0, "rated")


def test_one_sided_results_rate_only_the_player_side(cli, tmp_path, rating_list) -> None:
    """A rating card: A (2000, K 20) vs opponents known by rating: W 2100 (+0.64), D 1900 (-0.14)."""
    games = write_csv(
        tmp_path / "card.csv",
        "player_id,opponent_rating,result,date\nA,2100,1,2025-11-02\nA,1900,0.5,2025-11-03\nA,,1,2025-11-04",
    )
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out).exit_code == 0
    ratings = read_table(out, "ratings", "2025-11")
    a = ratings.filter(pl.col("player_id") == "A").row(0, named=True)
    assert (a["rating"], a["change"], a["games"]) == (2010, 10, 2)  # 0.50 x 20 = 10
    audit = read_table(out, "audit", "2025-11")
    assert audit.height == 3
    assert audit["reason"].to_list() == [None, None, "unrated opponent"]


def test_without_a_list_ratings_come_from_the_first_game_row(cli, tmp_path) -> None:
    games = write_csv(
        tmp_path / "g.csv",
        "date,white_id,black_id,result,white_rating,black_rating\n"
        "2025-11-05,A,B,1-0,2000,1900\n2025-11-01,A,C,1/2-1/2,1990,1990",
    )
    out = tmp_path / "out"
    result = cli("run", games, "--period", "2025-11", "--out", out)
    assert result.exit_code == 0, result.output
    assert "different ratings" in result.output
    ratings = read_table(out, "ratings", "2025-11")
    assert ratings.filter(pl.col("player_id") == "A")["rating_before"].item() == 1990  # game of the 1st
    assert sorted(ratings["player_id"].to_list()) == ["A", "B", "C"]


def test_game_level_ratings_decide_d_but_the_list_is_the_base(cli, tmp_path, rating_list) -> None:
    """A's game rating 1900 (event started on an older list) vs B 1900: PD .50, win +10 on list 2000."""
    games = write_csv(
        tmp_path / "g.csv",
        "date,white_id,black_id,result,white_rating,black_rating\n2025-11-05,A,B,1-0,1900,1900",
    )
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out).exit_code == 0
    a = read_table(out, "ratings", "2025-11").filter(pl.col("player_id") == "A").row(0, named=True)
    assert (a["rating_before"], a["change"], a["rating"]) == (2000, 10, 2010)


def test_forfeits_duplicates_and_other_periods_are_accounted_for(cli, tmp_path, rating_list) -> None:
    games = write_csv(
        tmp_path / "g.csv",
        "game_id,date,white_id,black_id,result\n"
        "1,2025-11-01,A,B,1-0\n1,2025-11-01,A,B,1-0\n2,2025-11-02,A,C,+--\n3,2025-12-01,A,B,0-1\n"
        "4,2025-11-03,A,B,2-0",
    )
    out = tmp_path / "out"
    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out)
    assert result.exit_code == 0, result.output
    assert "5 rows read = 1 counted + 2 not counted (see audit) + 1 other periods + 1 rejected" in result.output
    audit = read_table(out, "audit", "2025-11")
    assert audit.filter(~pl.col("counted"))["reason"].to_list() == ["duplicate row"] * 2 + ["forfeit"] * 2
    rejected = read_table(out, "rejected", "2025-11")
    assert rejected.row(0, named=True)["source_row"] == 5
    assert "'2-0' is not a result" in rejected.row(0, named=True)["reason"]


def test_rounding_game_rounds_each_game(cli, tmp_path) -> None:
    """bug-round-sum-not-each-game with --rounding game: five draws at -0.3 each -> 0 per game."""
    games = write_csv(
        tmp_path / "g.csv",
        "date,white_id,black_id,result\n" + "\n".join(f"2025-11-15,P,Q{i},1/2-1/2" for i in range(5)),
    )
    lst = write_csv(
        tmp_path / "l.csv", "player_id,rating,k\nP,2400,10\n" + "\n".join(f"Q{i},2380,20" for i in range(5))
    )
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", lst, "--period", "2025-11", "--out", out, "--rounding", "game").exit_code == 0
    assert read_table(out, "ratings", "2025-11").filter(pl.col("player_id") == "P")["change"].item() == 0


def test_elo_rules_with_the_fide_table(cli, tmp_path) -> None:
    """--rules elo --expected table: 1800 beats 1900 at K 20 -> +12.8 -> +13, no floor for 1300."""
    games = write_csv(
        tmp_path / "g.csv",
        "date,white_id,black_id,result,white_rating,black_rating\n"
        "2026-10-01,a,b,1-0,1800,1900\n2026-10-01,c,d,0-1,1300,1300",
    )
    out = tmp_path / "out"
    result = cli("run", games, "--period", "2026-10", "--out", out, "--rules", "elo", "--expected", "table")
    assert result.exit_code == 0, result.output
    got = dict(read_table(out, "ratings", "2026-10").select("player_id", "rating").iter_rows())
    assert got == {"a": 1813, "b": 1887, "c": 1290, "d": 1310}


@pytest.mark.parametrize(
    ("args", "code", "text"),
    [
        ("run missing.csv --period 2025-11", 66, "no such file"),
        ("run {games} --period 2025-13", 2, "is not a rating period"),
        ("run {games} --period 2025-12..2025-11", 2, "ends before it starts"),
        ("run {games} --period 2021-12", 2, "--rule-set fide-2022-01"),
        ("run {games} --period 2025-11 --ratings nolist.csv", 66, "no such file"),
        ("run {games} --period 2025-11 --rules nonsense", 2, "nonsense"),
    ],
)
def test_user_mistakes_exit_with_the_contract_code_and_no_traceback(cli, tmp_path, args, code, text) -> None:
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n2025-11-03,A,B,1-0")
    result = cli(*args.format(games=games).split(), "--out", tmp_path / "out")
    assert result.exit_code == code
    assert text in result.output
    assert "Traceback" not in result.output


def test_missing_columns_are_named_with_a_hint(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", "date,whiteid,black_id,result\n2025-11-03,A,B,1-0")
    result = cli("run", games, "--period", "2025-11", "--out", tmp_path / "out")
    assert result.exit_code == 65
    assert "missing column white_id" in result.output
    assert "did you mean 'whiteid'" in result.output


def test_old_periods_can_be_rated_with_todays_rules(cli, tmp_path) -> None:
    games = write_csv(
        tmp_path / "g.csv", "date,white_id,black_id,result,white_rating,black_rating\n2022-01-15,A,B,1-0,2700,2100"
    )
    out = tmp_path / "out"
    result = cli("run", games, "--period", "2022-01", "--rule-set", "fide-2024-03", "--out", out)
    assert result.exit_code == 0, result.output
    got = dict(read_table(out, "ratings", "2022-01").select("player_id", "change").iter_rows())
    assert got == {"A": 1, "B": -2}  # cap for everyone: 2700 uses 400 -> +0.8 (K 10)


def test_fide_p01_audit_prints_fides_hundredths_exactly(cli, tmp_path) -> None:
    """TV-09/TV-10 (FIDE F-P01, F-P02): 2813 (K 10) W 1787, W 2025, W 2310, W 2400, D 2505 -> per game
    0.00, 0.00, +0.40, +0.70, -3.60 (sum -2.50 -> -3); the 2400 sees the 2813 capped: -0.80."""
    games = write_csv(
        tmp_path / "g.csv",
        "game_id,date,white_id,black_id,result\n1,2025-11-10,P,a,1-0\n2,2025-11-11,P,b,1-0\n"
        "3,2025-11-12,P,c,1-0\n4,2025-11-13,P,d,1-0\n5,2025-11-14,P,e,1/2-1/2",
    )
    lst = write_csv(
        tmp_path / "l.csv", "player_id,rating,k\nP,2813,10\na,1787,20\nb,2025,20\nc,2310,20\nd,2400,10\ne,2505,10"
    )
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", lst, "--period", "2025-11", "--out", out, "--format", "csv").exit_code == 0
    audit = read_table(out, "audit", "2025-11")
    assert audit.filter(pl.col("player_id") == "P")["k_change"].to_list() == ["0.0", "0.0", "0.4", "0.7", "-3.6"]
    assert audit.filter(pl.col("player_id") == "d")["k_change"].to_list() == ["-0.8"]
    assert read_table(out, "ratings", "2025-11").filter(pl.col("player_id") == "P")["rating"].item() == "2810"


def test_rounding_none_writes_ratings_with_two_decimals(cli, tmp_path) -> None:
    """seed-fractional-formula: 1500 beats 1700 (+15.19) and 1500 beats 1500 (+10.00), K 20."""
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result,white_rating,black_rating\n"
                      "2026-10-01,a,b,1-0,1500,1700\n2026-10-01,c,d,1-0,1500,1500")  # fmt: skip
    out = tmp_path / "out"
    args = ("--rules", "elo", "--rounding", "none", "--format", "csv", "--out", out)
    assert cli("run", games, "--period", "2026-10", *args).exit_code == 0
    got = dict(read_table(out, "ratings", "2026-10").select("player_id", "rating").iter_rows())
    assert got == {"a": "1515.19", "b": "1684.81", "c": "1510.00", "d": "1490.00"}


def test_a_row_without_date_or_period_is_rejected_when_the_file_has_only_period(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", "white_id,black_id,result,period\nA,B,1-0,2025-11\nA,B,1-0,")
    lst = write_csv(tmp_path / "l.csv", "player_id,rating\nA,2000\nB,2000")
    result = cli("run", games, "--ratings", lst, "--period", "2025-11", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "2 rows read = 1 counted + 0 not counted (see audit) + 0 other periods + 1 rejected" in result.output
    assert read_table(tmp_path / "out", "rejected", "2025-11")["reason"].to_list() == ["no date and no period"]


def test_a_games_folder_does_not_pick_up_the_runs_own_list_and_outputs(cli, tmp_path) -> None:
    folder = tmp_path / "month"
    folder.mkdir()
    write_csv(folder / "games.csv", "date,white_id,black_id,result\n2025-11-03,A,B,1-0")
    lst = write_csv(folder / "ratings.csv", "player_id,rating,k\nA,2000,20\nB,1900,20")
    for _ in range(2):  # the second run finds the first run's outputs inside the folder
        result = cli("run", folder, "--ratings", lst, "--period", "2025-11", "--out", folder / "out")
        assert result.exit_code == 0, result.output
        assert "1 rows read = 1 counted" in result.output


def test_nested_and_binary_list_columns_pass_through_to_csv_as_json_and_hex(cli, tmp_path) -> None:
    lst = tmp_path / "list.parquet"
    pl.DataFrame(
        {"player_id": ["A", "B"], "rating": [2000, 1900], "titles": [["FM", "IM"], []], "blob": [b"\x00\x01", b"zz"]}
    ).write_parquet(lst)
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n2025-11-03,A,B,1-0")
    out = tmp_path / "out"
    result = cli("run", games, "--ratings", lst, "--period", "2025-11", "--out", out, "--format", "csv")
    assert result.exit_code == 0, result.output
    a = read_table(out, "ratings", "2025-11").filter(pl.col("player_id") == "A").row(0, named=True)
    assert (a["titles"], a["blob"]) == ('["FM","IM"]', "0001")
    assert [p.name for p in out.iterdir() if p.name.startswith(".") and p.is_dir()] == []  # no staging left


def test_a_file_named_twice_is_read_once(cli, tmp_path, rating_list, monkeypatch) -> None:
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n2025-11-03,A,B,1-0")
    monkeypatch.chdir(tmp_path)
    result = cli("run", "g.csv", "./g.csv", games, "--ratings", rating_list, "--period", "2025-11", "--out", "out")
    assert result.exit_code == 0, result.output
    assert "1 rows read = 1 counted" in result.output


def test_usage_errors_are_json_events_under_log_format_json(capsys) -> None:
    from elo_batch.cli.app import console

    status = console(["run", "g.csv", "--period", "2025-11", "--format", "xlsx", "--log-format", "json"])

    assert status == 2
    event = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert (event["event"], event["exit_code"]) == ("error", 2)
    assert "'xlsx' is not one of 'parquet', 'csv'" in event["message"]


def test_option_errors_name_the_option_and_conflicting_rule_choices_are_refused(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n2025-11-03,A,B,1-0")
    result = cli("run", games, "--period", "2025-13", "--out", tmp_path / "o")
    assert "option --period: '2025-13' is not a rating period" in result.output
    result = cli("run", games, "--period", "2025-11", "--rules", "elo", "--rule-set", "fide-2024-03", "--out", tmp_path)
    assert result.exit_code == 2
    assert "--rules elo and --rule-set fide-2024-03 ask for two different rule sets" in result.output


def test_differing_game_row_ratings_name_the_players(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result,white_rating,black_rating\n"
                      "2025-11-01,A,B,1-0,2000,1900\n2025-11-02,A,B,1-0,2010,1900")  # fmt: skip
    result = cli("run", games, "--period", "2025-11", "--out", tmp_path / "o")
    assert result.exit_code == 0, result.output
    assert "1 player(s) have different ratings on different game rows (A)" in result.output


def test_audits_of_several_periods_read_as_one_table(cli, tmp_path, rating_list) -> None:
    """A warehouse reads OUT/audit/period=*/ as one table; the audit's dictionary-encoded text columns
    (period, source_file, colour, reason) must not differ in type between partitions."""
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n2025-11-03,A,B,1-0\n2025-12-03,A,C,+--")
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out", out).exit_code == 0
    audit = pl.scan_parquet(out / "audit", hive_partitioning=True)
    counts = audit.group_by("period", "reason").len().sort("period").collect()
    assert [(str(p), r, n) for p, r, n in counts.iter_rows()] == [("2025-11", None, 2), ("2025-12", "forfeit", 2)]
    assert audit.filter(pl.col("reason") == "no such reason").collect().height == 0
