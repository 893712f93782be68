"""Mistakes of a monthly run that used to exit 0 quietly: each is now a warning (summary on stderr, text
and JSON, and the manifest), or with ``--max-rejected`` an exit 65 that writes nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from elo_batch.config import RunConfig, parse_max_rejected, rejected_limit
from elo_batch.errors import StrictRejectError, UsageError
from elo_batch.job import sanity
from elo_batch.job.pipeline import Sources
from elo_batch.job.runner import run
from tests.conftest import write_csv

LIST = "player_id,rating,k\n100,2000,20\n200,1900,20\n300,2100,20\n"
GAMES = """
date,white_id,black_id,result
2025-10-01,100,200,1-0
2025-10-02,200,300,1/2-1/2
2025-10-03,300,100,0-1
2025-10-04,100,300,1-0
"""


def _manifest(out: Path, period: str = "2025-10") -> dict:
    return json.loads((out / "manifest" / f"period={period}" / "manifest.json").read_text())


def _json_warnings(stderr: str) -> list[str]:
    events = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    return [warning for event in events if event["event"] == "period_written" for warning in event["warnings"]]


@pytest.fixture
def rating_list(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "list.csv", LIST)


# --- the rating list forgotten: every player unrated ----------------------------------------------


def test_no_list_and_no_game_ratings_warns_in_text_json_and_manifest(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)
    warning = "2025-10: no player has a rating: no rating list was given and the game rows carry no ratings"

    args = ("run", games, "--ratings", "none", "--period", "2025-10", "--out", tmp_path / "out")
    text = cli(*args)  # a new rating pool asked for (without "none": no rating source, exit 65)
    as_json = cli(*args, "--log-format", "json")

    assert text.exit_code == 0 and as_json.exit_code == 0
    assert f"warning: {warning}" in text.stderr
    assert "Hint: give the list in force with --ratings." in text.stderr
    assert any(w.startswith(warning) for w in _json_warnings(as_json.stderr))
    assert any(w.startswith(warning) for w in _manifest(tmp_path / "out")["warnings"])


def test_no_list_with_game_ratings_does_not_warn_about_the_list(cli, tmp_path) -> None:
    games = write_csv(
        tmp_path / "g.csv",
        "date,white_id,black_id,result,white_rating,black_rating\n2025-10-01,1,2,1-0,2000,1900\n",
    )

    result = cli("run", games, "--period", "2025-10", "--out", tmp_path / "out")

    assert result.exit_code == 0
    assert "warning" not in result.stderr


def test_a_period_where_no_game_is_rated_warns(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n2025-10-01,100,200,+--\n2025-10-02,1,2,1-0\n")

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out")

    assert result.exit_code == 0
    assert "warning: 2025-10: no game was rated: all 2 row(s) of the period are audited as not counted" in result.stderr


def test_a_period_without_games_warns(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-09", "--out", tmp_path / "out")

    assert result.exit_code == 0
    assert "warning: 2025-09: no game of this period in the inputs (4 row(s) read, all of other periods)" in (
        result.stderr
    )


def test_a_period_of_a_header_only_file_warns_that_no_rows_were_read(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n")

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out")

    assert result.exit_code == 0
    assert "warning: 2025-10: no game of this period in the inputs (no rows read)" in result.stderr


# --- most rows rejected -----------------------------------------------------------------------------

BAD = """
date,white_id,black_id,result
2025-10-01,100,200,2-0
2025-10-02,200,300,x
31.10.2025,300,100,1-0
2025-10-04,100,300,1-0
"""


@pytest.mark.parametrize(
    ("limit", "code"),
    [("2", 65), ("3", 0), ("0", 65), ("74%", 65), ("75%", 0), ("100%", 0)],
)
def test_max_rejected_over_the_limit_exits_65_and_writes_nothing(cli, tmp_path, rating_list, limit, code) -> None:
    games = write_csv(tmp_path / "g.csv", BAD)  # 3 of the 4 rows of 2025-10 are rejected
    out = tmp_path / "out"

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--out", out, "--max-rejected", limit)

    assert result.exit_code == code
    if code:
        assert not out.exists() or not any(out.rglob("*.parquet"))
        assert f"{games}, row 1, column result: 3 of 4 rows of the period(s) rated were rejected (75.0%)" in (
            result.stderr
        )
        assert f"more than --max-rejected {limit} allows; nothing was written. First: '2-0' is not a result" in (
            result.stderr
        )
    else:
        assert (out / "ratings" / "period=2025-10" / "part-0.parquet").exists()


def test_max_rejected_percentage_is_of_the_rows_of_the_periods_rated(cli, tmp_path, rating_list) -> None:
    # 3 of the 4 October rows are rejected; 20 November rows would dilute it to 12.5% of all rows read
    november = "\n".join(f"2025-11-{1 + i % 28:02d},100,200,1-0" for i in range(20))
    games = write_csv(tmp_path / "g.csv", BAD.strip() + "\n" + november)
    args = ["run", games, "--ratings", rating_list, "--out", tmp_path / "out", "--max-rejected", "50%"]

    october = cli(*args, "--period", "2025-10")
    both = cli(*args, "--period", "2025-10..2025-11")

    assert october.exit_code == 65
    assert "3 of 4 rows of the period(s) rated were rejected (75.0%)" in october.stderr
    assert both.exit_code == 0  # 3 of 24 rows of the two months


@pytest.mark.parametrize("value", ["x", "-1", "1e3", "%", "2.5.1%"])
def test_max_rejected_that_is_neither_rows_nor_a_percentage_is_a_usage_error(cli, tmp_path, rating_list, value) -> None:
    games = write_csv(tmp_path / "g.csv", BAD)

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--max-rejected", value)

    assert result.exit_code == 2
    assert f"option --max-rejected: {value!r} is not a number of rows or a percentage" in result.stderr
    assert "Hint: give a number of rows (10) or a percentage" in result.stderr


def test_max_rejected_over_100_percent_is_a_usage_error_that_says_so(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", BAD)

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--max-rejected", "101%")

    assert result.exit_code == 2
    assert "option --max-rejected: '101%' is a percentage over 100%" in result.stderr


@pytest.mark.parametrize(("value", "parsed"), [(3, 3), ("10", 10), (" 2.50 % ", "2.5%"), ("0%", "0%"), (".5%", "0.5%")])
def test_max_rejected_is_a_keyword_of_the_config(value, parsed) -> None:
    assert RunConfig(periods=("2025-10",), max_rejected=value).max_rejected == parsed


def test_max_rejected_keyword_names_the_parameter() -> None:
    with pytest.raises(UsageError, match=r"^option max_rejected: 2\.5 is not a number of rows or a percentage"):
        RunConfig(periods=("2025-10",), max_rejected=2.5)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"^option max_rejected: True is not"):
        parse_max_rejected(True)  # a bool is not a number of rows


def test_rejected_limit_of_a_percentage_is_a_share_of_the_rows() -> None:
    assert rejected_limit("2.5%", 400) == 10
    assert rejected_limit(7, 400) == 7


def test_max_rejected_stops_the_library_run_before_writing(tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", BAD)
    config = RunConfig(periods=("2025-10",), max_rejected="50%")

    with pytest.raises(StrictRejectError) as caught:
        run(Sources(games=[str(games)], ratings=str(rating_list)), config=config, out=str(tmp_path / "out"))

    assert caught.value.exit_code == 65
    assert (caught.value.path, caught.value.row, caught.value.column) == (str(games), 1, "result")
    assert not (tmp_path / "out").exists()


def test_most_rows_rejected_warns_loudly_with_the_first_rows_and_the_partition(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", BAD)
    out = tmp_path / "out"

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--out", out)

    assert result.exit_code == 0
    rejected = out / "rejected" / "period=2025-10" / "part-0.parquet"
    assert (
        f"elo-batch: WARNING: 2025-10: 3 of 4 rows were rejected; the list is built from the rest. "
        f"Rejected rows: {rejected}"
    ) in result.stderr
    warning = (
        "2025-10: most rows were rejected: 3 of 4 (75.0%); the list is built from the other 1 row(s). First: "
        f"{games} row 1, column result: '2-0' is not a result; {games} row 2, column result: 'x' is not a result; "
        f"{games} row 3, column date: '31.10.2025' is not a date"
    )
    assert f"warning: {warning}\n" in result.stderr
    assert warning in _manifest(out)["warnings"]


def test_a_few_rejected_rows_name_the_partition_without_alarm(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES.strip() + "\n2025-10-05,100,200,2-0\n")
    out = tmp_path / "out"

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--out", out)

    assert result.exit_code == 0
    assert f"  rejected: 1 row(s), in {out / 'rejected' / 'period=2025-10' / 'part-0.parquet'}" in result.stderr
    assert "WARNING" not in result.stderr and "most rows were rejected" not in result.stderr


# --- ids not on the list ---------------------------------------------------------------------------


def test_ids_not_on_the_list_are_reported_with_the_closest_listed_id(cli, tmp_path) -> None:
    rating_list = write_csv(tmp_path / "list.csv", "player_id,rating,k\n100,2000,20\n2020009,2100,20\nGM-7,2500,10\n")
    games = write_csv(
        tmp_path / "g.csv",
        """
        date,white_id,black_id,result
        2025-10-01,0100,2020009,1-0
        2025-10-02,2020090,GM-7,0-1
        2025-10-03,gm-7 ,100,1-0
        2025-10-04,777,100,1-0
        """.replace("        ", ""),
    )

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out")

    assert result.exit_code == 0
    expected = (
        "2025-10: 4 player id(s) of the games are not on the rating list and are unrated newcomers; 2 of them match "
        "a listed id once spaces, case and leading zeros are ignored: '0100' (listed as '100'), 'gm-7' (listed as "
        "'GM-7'), '2020090' (closest listed id: '2020009'), '777'. Hint: ids are compared as text"
    )
    assert f"warning: {expected}" in result.stderr
    assert any(w.startswith(expected) for w in _manifest(tmp_path / "out")["warnings"])


def test_every_id_on_the_list_gives_no_unlisted_warning(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out")

    assert result.exit_code == 0
    assert "not on the rating list" not in result.stderr


def test_the_closest_id_is_looked_for_in_a_bounded_sample_of_a_large_list() -> None:
    listed = pl.Series([f"{prefix}{i:05d}" for prefix in ("XY", "YZ") for i in range(100_000)] + ["1234567"])

    assert sanity.closest_id("1234576", listed) == "1234567"  # the last two digits swapped
    assert sanity.closest_id("123456", listed) == "1234567"  # one dropped
    assert sanity.closest_id("x", listed) is None


def test_unlisted_note_shows_a_few_examples_and_the_count() -> None:
    unlisted = pl.Series([f"N{i}" for i in range(12)])

    note = sanity.unlisted_note(unlisted, pl.Series(["A1"]), "2025-10")

    assert note.startswith("2025-10: 12 player id(s) of the games are not on the rating list")
    assert "'N0', 'N1', 'N2', 'N3', 'N4', ...." in note


# --- the same games delivered twice --------------------------------------------------------------


def test_identical_files_are_reported(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "a.csv", GAMES)
    copy = shutil.copy(games, tmp_path / "b.csv")

    result = cli("run", games, copy, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out")

    assert result.exit_code == 0
    assert f"warning: {games}, {copy}: identical files (sha256 " in result.stderr
    assert "rows without a game_id are rated once per copy" in result.stderr
    assert "appear identically" not in result.stderr  # the copies are reported once, as files
    assert any("identical files" in w for w in _manifest(tmp_path / "out")["warnings"])


def test_identical_game_rows_in_two_files_are_reported(cli, tmp_path, rating_list) -> None:
    first = write_csv(tmp_path / "a.csv", GAMES)
    # the same two games in another file, columns in another order, with a game of its own
    second = write_csv(
        tmp_path / "b.csv",
        "white_id,black_id,date,result,site\n300,100,2025-10-03,0-1,x\n100,300,2025-10-04,1-0,y\n100,200,2025-10-09,1-0,z",
    )
    args = ["run", first, second, "--ratings", rating_list, "--out", tmp_path / "out", "--log-format", "json"]

    result = cli(*args, "--period", "2025-10")

    assert result.exit_code == 0
    expected = (
        f"2 game(s) without a game_id appear identically in two or more files (first: {first} row 3 and {second} "
        "row 1): each copy is rated, 2 game(s) too many."
    )
    assert any(w.startswith(expected) for w in _json_warnings(result.stderr))


def test_identical_game_rows_from_parquet_streamed_in_chunks_are_reported(cli, tmp_path, rating_list) -> None:
    games = pl.read_csv(write_csv(tmp_path / "g.csv", GAMES), infer_schema=False)
    games.write_parquet(tmp_path / "a.parquet")
    games.tail(1).with_columns(pl.lit("x").alias("site")).write_parquet(tmp_path / "b.parquet")
    args = [tmp_path / "a.parquet", tmp_path / "b.parquet", "--ratings", rating_list, "--period", "2025-10"]

    result = cli("run", *args, "--out", tmp_path / "out", "--chunk-rows", "2")

    assert result.exit_code == 0
    assert "1 game(s) without a game_id appear identically in two or more files" in result.stderr


def test_identical_game_rows_with_game_ids_count_once_and_are_not_reported(cli, tmp_path, rating_list) -> None:
    first = write_csv(tmp_path / "a.csv", "game_id,date,white_id,black_id,result\n1,2025-10-01,100,200,1-0\n")
    second = write_csv(tmp_path / "b.csv", "game_id,date,white_id,black_id,result,site\n1,2025-10-01,100,200,1-0,x\n")

    result = cli("run", first, second, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out")

    assert result.exit_code == 0
    assert "appear identically" not in result.stderr


def test_the_same_game_twice_in_one_file_is_not_reported_as_a_copy(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES.strip() + "\n2025-10-01,100,200,1-0\n")  # a second game that day

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out")

    assert result.exit_code == 0
    assert "identical" not in result.stderr


# --- a past period re-run ---------------------------------------------------------------------------


def test_rerunning_a_past_period_names_the_later_periods_left_stale(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-09..2025-12", "--out", out).exit_code == 0
    assert _manifest(out, "2025-12")["stale_periods"] == []

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-09..2025-10", "--out", out)

    assert result.exit_code == 0
    expected = (
        "later period(s) in the output were rated from the list this run replaced and are now stale: 2025-11, "
        "2025-12. Hint: re-run 2025-11..2025-12 from the new list of 2025-10."
    )
    assert f"warning: {expected}" in result.stderr
    assert _manifest(out, "2025-10")["stale_periods"] == ["2025-11", "2025-12"]
    assert expected in _manifest(out, "2025-10")["warnings"]
    assert _manifest(out, "2025-09")["stale_periods"] == []  # 2025-10 was re-rated from it in the same run


def test_the_latest_period_leaves_nothing_stale(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-09", "--out", out).exit_code == 0

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--out", out)

    assert result.exit_code == 0
    assert "stale" not in result.stderr
    assert _manifest(out)["stale_periods"] == []


# --- a list without k and games_total ---------------------------------------------------------------


def test_a_list_without_k_and_games_total_warns_that_adults_get_k_20(cli, tmp_path) -> None:
    rating_list = write_csv(tmp_path / "list.csv", "player_id,rating\n100,2000\n200,1900\n300,2100\n")
    games = write_csv(tmp_path / "g.csv", GAMES)

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out")

    assert result.exit_code == 0
    expected = (
        f"{rating_list}: the rating list has neither k nor games_total: every rated player under 2400 who is not a "
        "junior gets K 20, also one with fewer than 30 rated games (K 40 by FIDE 8.3.3)."
    )
    assert f"warning: {expected}" in result.stderr
    assert any(w.startswith(expected) for w in _manifest(tmp_path / "out")["warnings"])


@pytest.mark.parametrize(
    ("columns", "extra"),
    [("player_id,rating,games_total", ",40"), ("player_id,rating,k", ",40"), ("player_id,rating", "")],
)
def test_no_k_20_warning_with_k_or_games_total_or_one_k_for_all(cli, tmp_path, columns, extra) -> None:
    rows = "\n".join(f"{player},{rating}{extra}" for player, rating in ((100, 2000), (200, 1900), (300, 2100)))
    rating_list = write_csv(tmp_path / "list.csv", f"{columns}\n{rows}\n")
    games = write_csv(tmp_path / "g.csv", GAMES)
    fixed = ["--k", "20"] if not extra else []

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out", *fixed)

    assert result.exit_code == 0
    assert "neither k nor games_total" not in result.stderr


def test_validate_reports_the_same_warnings(cli, tmp_path) -> None:
    rating_list = write_csv(tmp_path / "list.csv", "player_id,rating\n100,2000\n200,1900\n300,2100\n")
    games = write_csv(tmp_path / "g.csv", GAMES.strip() + "\n2025-10-05,0100,200,1-0\n")

    result = cli("validate", games, "--ratings", rating_list, "--period", "2025-10")

    assert result.exit_code == 0
    assert "neither k nor games_total" in result.stderr
    assert "'0100' (listed as '100')" in result.stderr
