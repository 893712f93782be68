"""The run-level guards of a scheduled job: a run with no rating source, a run whose every row was
rejected, and the rejected rows' reasons in the summary (CLI, text and JSON, and the Python API).

Each used to exit 0 quietly: a forgotten ``--ratings`` wrote a list marking every player unrated (chained,
it wiped the pool), a run whose every row was rejected carried the list forward unchanged, and the
summary named the rejected file without saying why its rows were rejected.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import elo_batch
from elo_batch.errors import EloBatchError, InputDataError, StrictRejectError
from tests.conftest import read_table, write_csv

LIST = "player_id,rating,k\n100,2000,20\n200,1900,20\n300,2100,20\n"
GAMES = """
date,white_id,black_id,result
2025-10-01,100,200,1-0
2025-10-02,200,300,1/2-1/2
2025-10-03,300,100,0-1
"""
#: Rows of 2025-10 each rejected, seven reasons in all (grouped without their values): 3 bad results,
#: 2 bad dates, 2 missing white_id, then one each of four other reasons.
BAD = """
date,white_id,black_id,result,white_rating
2025-10-01,100,200,2-0,
2025-10-02,100,200,x,
2025-10-03,100,200,1:1,
2025-10-xx,100,200,1-0,
2025-10-yy,100,200,1-0,
2025-10-04,,200,1-0,
2025-10-05,,300,1-0,
2025-10-06,100,100,1-0,
2025-10-07,100,200,,
2025-10-08,100,200,1-0,abc
2025-10-09,100,200,1-0,9000
"""
RESULT_REASON = (
    "result: '...' is not a result. Hint: use 1-0, 0-1, 1/2-1/2 (or ½-½, 0.5-0.5), or +--/--+/-- for forfeits."
)


def _tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` -> its sha256 (empty when it does not exist); the lock file aside (every
    run takes the lock before it reads an input, and writes its holder there)."""
    if not folder.exists():
        return {}
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != ".elo-batch.lock"
    }


def _events(stderr: str) -> list[dict]:
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


@pytest.fixture
def games(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "g.csv", GAMES)


@pytest.fixture
def rating_list(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "list.csv", LIST)


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "bad.csv", BAD)


# --- no rating source ------------------------------------------------------------------------------


def test_run_without_ratings_and_without_game_ratings_exits_65_naming_ratings(cli, tmp_path, games) -> None:
    out = tmp_path / "out"

    result = cli("run", games, "--period", "2025-10", "--out", out)

    assert result.exit_code == 65, result.output
    assert "--ratings" in result.stderr and "--ratings none" in result.stderr
    assert "no rating source" in result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists()  # nothing written, not even the folder


def test_run_without_a_rating_source_leaves_an_existing_out_untouched(cli, tmp_path, games, rating_list) -> None:
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--out", out).exit_code == 0
    before = _tree(out)

    result = cli("run", games, "--period", "2025-10", "--out", out, "--log-format", "json")

    assert result.exit_code == 65
    assert _tree(out) == before
    error = _events(result.stderr)[-1]
    assert error["exit_code"] == 65 and "--ratings" in error["message"]


def test_ratings_of_other_periods_are_no_rating_source(cli, tmp_path) -> None:
    games = write_csv(
        tmp_path / "g.csv",
        "date,white_id,black_id,result,white_rating,black_rating\n"
        "2025-09-01,100,200,1-0,2000,1900\n"  # another period: does not count
        "2025-10-01,100,200,1-0,,\n"
        "2025-10-02,100,300,1-0,0,0\n",  # 0 is no rating
    )

    result = cli("run", games, "--period", "2025-10", "--out", tmp_path / "out")

    assert result.exit_code == 65, result.output
    assert "--ratings" in result.stderr


@pytest.mark.parametrize(
    "text",
    [
        "date,white_id,black_id,result,white_rating,black_rating\n2025-10-01,100,200,1-0,0,\n2025-10-02,1,2,1-0,,1850\n",
        "date,player_id,opponent_id,result,player_rating,opponent_rating\n2025-10-01,100,200,1,,1850\n",
        "date,player_id,opponent_id,result,player_rating,opponent_rating\n2025-10-01,100,200,1,1850,\n",
    ],
    ids=["black_rating", "opponent_rating", "player_rating"],
)
def test_one_game_row_rating_of_the_period_is_a_rating_source(cli, tmp_path, text: str) -> None:
    games = write_csv(tmp_path / "g.csv", text)

    result = cli("run", games, "--period", "2025-10", "--out", tmp_path / "out")

    assert result.exit_code == 0, result.output


def test_ratings_none_starts_a_new_pool_and_uses_game_row_ratings(cli, tmp_path) -> None:
    games = write_csv(
        tmp_path / "g.csv",
        "date,white_id,black_id,result,white_rating,black_rating\n2025-10-01,100,200,1-0,,\n2025-10-02,300,400,1-0,2000,2000\n",
    )
    out = tmp_path / "out"

    result = cli("run", games, "--ratings", "none", "--period", "2025-10", "--out", out)

    assert result.exit_code == 0, result.output
    ratings = {row["player_id"]: row for row in read_table(out, "ratings", "2025-10").iter_rows(named=True)}
    assert ratings["100"]["rating"] is None and ratings["200"]["rating"] is None  # unrated, no list
    assert ratings["300"]["rating"] == 2010 and ratings["400"]["rating"] == 1990  # the game row's ratings
    manifest = json.loads((out / "manifest" / "period=2025-10" / "manifest.json").read_text())
    assert manifest["inputs"]["ratings"] is None


def test_ratings_none_without_any_rating_still_warns(cli, tmp_path, games) -> None:
    result = cli("run", games, "--ratings", "none", "--period", "2025-10", "--out", tmp_path / "out")

    assert result.exit_code == 0, result.output
    assert "no player has a rating" in result.stderr


def test_validate_applies_the_same_guard(cli, games) -> None:
    refused = cli("validate", games, "--period", "2025-10")
    allowed = cli("validate", games, "--period", "2025-10", "--ratings", "none")

    assert refused.exit_code == 65, refused.output
    assert "--ratings none" in refused.stderr
    assert allowed.exit_code == 0, allowed.output


def test_api_without_ratings_raises_unless_none_is_passed(games) -> None:
    frame = pl.read_csv(games, infer_schema=False)

    for call in (
        lambda: elo_batch.rate_period(frame, period="2025-10"),
        lambda: elo_batch.rate_periods(frame, periods="2025-10..2025-11"),  # raised by the call, not the loop
        lambda: elo_batch.validate(frame, period="2025-10"),
    ):
        with pytest.raises(elo_batch.NoRatingSourceError) as raised:
            call()
        assert isinstance(raised.value, EloBatchError) and isinstance(raised.value, InputDataError)
        assert raised.value.exit_code == 65
        assert "ratings=None" in str(raised.value) and "--ratings" not in str(raised.value)

    result = elo_batch.rate_period(frame, period="2025-10", ratings=None)
    assert result.ratings["rating"].null_count() == result.ratings.height == 3
    assert len(list(elo_batch.rate_periods(frame, periods="2025-10..2025-11", ratings=None))) == 2
    assert elo_batch.validate(frame, period="2025-10", ratings=None).rejected.height == 0


def test_api_run_without_ratings_writes_nothing(tmp_path, games) -> None:
    out = tmp_path / "out"

    with pytest.raises(elo_batch.NoRatingSourceError):
        elo_batch.run(games, period="2025-10", out=out)

    assert not out.exists()
    assert elo_batch.run(games, period="2025-10", out=out, ratings=None)[0].players == {"unrated": 3}


# --- every row rejected ----------------------------------------------------------------------------


def test_a_run_whose_every_row_is_rejected_exits_65_and_writes_nothing(cli, tmp_path, bad, rating_list) -> None:
    out = tmp_path / "out"

    result = cli("run", bad, "--ratings", rating_list, "--period", "2025-10", "--out", out)

    assert result.exit_code == 65, result.output
    assert "all 11 rows of the period(s) rated were rejected" in result.stderr
    assert "--max-rejected 100%" in result.stderr  # what allows it
    assert "3 x " + RESULT_REASON in result.stderr  # why, without writing them
    assert not out.exists()


def test_rejected_rows_with_no_period_count_as_rows_of_the_run(cli, tmp_path, rating_list) -> None:
    games = write_csv(
        tmp_path / "g.csv", "date,white_id,black_id,result\n2025-09-01,100,200,1-0\nnot-a-date,100,200,1-0\n"
    )

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out")

    assert result.exit_code == 65, result.output


def test_rows_of_other_periods_all_rejected_do_not_stop_the_run(cli, tmp_path, rating_list) -> None:
    games = write_csv(
        tmp_path / "g.csv", "date,white_id,black_id,result\n2025-09-01,100,200,2-0\n2025-10-01,100,200,1-0\n"
    )

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out")

    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("limit", ["100%", "11", "20"])
def test_an_explicit_max_rejected_allows_every_row_rejected(cli, tmp_path, bad, rating_list, limit: str) -> None:
    out = tmp_path / "out"

    result = cli("run", bad, "--ratings", rating_list, "--period", "2025-10", "--out", out, "--max-rejected", limit)

    assert result.exit_code == 0, result.output
    assert read_table(out, "rejected", "2025-10").height == 11
    assert read_table(out, "ratings", "2025-10")["rating"].to_list() == [2000, 1900, 2100]  # carried forward


def test_a_max_rejected_below_the_count_still_refuses(cli, tmp_path, bad, rating_list) -> None:
    args = ("run", bad, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out")

    assert cli(*args, "--max-rejected", "10").exit_code == 65


def test_strict_refuses_as_before(cli, tmp_path, bad, rating_list) -> None:
    result = cli("run", bad, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out", "--strict")

    assert result.exit_code == 65
    assert "--strict is set" in result.stderr


def test_a_header_only_file_still_exits_0_with_its_warning(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n")

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out")

    assert result.exit_code == 0, result.output
    assert "no rows (header only)" in result.stderr


def test_api_every_row_rejected_raises_unless_max_rejected_allows_it(bad, rating_list) -> None:
    with pytest.raises(StrictRejectError) as raised:
        elo_batch.rate_period(bad, period="2025-10", ratings=rating_list)
    assert raised.value.exit_code == 65
    assert "max_rejected='100%'" in str(raised.value)

    result = elo_batch.rate_period(bad, period="2025-10", ratings=rating_list, max_rejected="100%")
    assert result.rejected.height == 11 and result.counts.counted == 0


# --- the rejected rows' reasons in the summary -----------------------------------------------------


def test_the_summary_gives_the_top_reasons_and_a_command_that_lists_the_rows(cli, tmp_path, bad, rating_list) -> None:
    good = write_csv(tmp_path / "good.csv", GAMES)
    out = tmp_path / "out"

    result = cli(
        "run", good, bad, "--ratings", rating_list, "--period", "2025-10", "--out", out, "--max-rejected", "100%"
    )

    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    start = next(i for i, line in enumerate(lines) if "rejected: 11 row(s)" in line or "11 of 14 rows were" in line)
    shown = [line.strip() for line in lines[start + 1 : start + 7]]
    assert shown[:5] == [
        "3 x " + RESULT_REASON,
        "2 x date: '...' is not a date. Hint: use an ISO date YYYY-MM-DD (a time may follow).",
        "2 x white_id: missing white_id",
        "1 x black_id: a player cannot play themselves",
        "1 x result: missing result",
    ]
    assert shown[5] == "and 2 more reasons"
    command = next(line for line in lines if line.strip().startswith("list them: "))
    program, *arguments = shlex.split(command.split("list them: ", 1)[1])
    assert program == "python"
    listed = subprocess.run([sys.executable, *arguments], capture_output=True, text=True, check=True).stdout
    assert listed.count(str(bad)) == 11 and "'2-0' is not a result" in listed  # the rows, with their values


def test_the_json_summary_gives_the_reasons_as_a_field(cli, tmp_path, bad, rating_list) -> None:
    args = ("run", bad, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out")

    result = cli(*args, "--max-rejected", "100%", "--log-format", "json")

    assert result.exit_code == 0, result.output
    event = next(e for e in _events(result.stderr) if e["event"] == "period_written")
    assert event["rejected_reasons"][0] == {"column": "result", "reason": RESULT_REASON.split(": ", 1)[1], "rows": 3}
    assert [r["rows"] for r in event["rejected_reasons"]] == [3, 2, 2, 1, 1]
    assert event["rejected_more_reasons"] == 2
    assert "polars" in event["rejected_command"] and "rejected/period=2025-10" in event["rejected_command"]


def test_the_api_summary_carries_the_reasons(tmp_path, bad, rating_list) -> None:
    summary = elo_batch.run(bad, period="2025-10", out=tmp_path / "out", ratings=rating_list, max_rejected="100%")[0]

    assert summary.rejected_reasons[0] == ("result", RESULT_REASON.split(": ", 1)[1], 3)
    assert sum(rows for _, _, rows in summary.rejected_reasons) == 9 and summary.rejected_more_reasons == 2


@pytest.mark.parametrize("fmt", ["csv", "delta"])
def test_the_command_lists_the_rows_of_csv_and_delta_outputs(cli, tmp_path, bad, rating_list, fmt: str) -> None:
    how = ("--format", "csv") if fmt == "csv" else ("--table-format", "delta")
    args = ("run", bad, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out", *how)

    result = cli(*args, "--max-rejected", "100%")

    assert result.exit_code == 0, result.output
    command = next(line for line in result.stderr.splitlines() if line.strip().startswith("list them: "))
    _, *arguments = shlex.split(command.split("list them: ", 1)[1])
    listed = subprocess.run([sys.executable, *arguments], capture_output=True, text=True, check=True).stdout
    assert listed.count(str(bad)) == 11


# --- more of the rating source: a range, streamed inputs, validate without a period ----------------


def test_a_range_needs_a_rating_in_one_of_its_periods(cli, tmp_path) -> None:
    games = write_csv(
        tmp_path / "g.csv",
        "date,white_id,black_id,result,white_rating\n2025-10-01,100,200,1-0,\n2025-11-01,100,200,1-0,2000\n",
    )

    assert cli("run", games, "--period", "2025-10..2025-11", "--out", tmp_path / "a").exit_code == 0
    assert cli("run", games, "--period", "2025-10", "--out", tmp_path / "b").exit_code == 65


@pytest.mark.parametrize("rated", [True, False], ids=["with-game-ratings", "without"])
def test_the_guard_reads_streamed_parquet_games(cli, tmp_path, rated: bool) -> None:
    games = tmp_path / "g.parquet"
    pl.DataFrame(
        {
            "date": ["2025-10-01"] * 4,
            "white_id": [1, 2, 3, 4],
            "black_id": [5, 6, 7, 8],
            "result": ["1-0"] * 4,
            "white_rating": [None, None, None, 2000 if rated else 0],
        }
    ).write_parquet(games)

    result = cli("run", games, "--period", "2025-10", "--out", tmp_path / "out", "--chunk-rows", "1")

    assert result.exit_code == (0 if rated else 65), result.output


def test_validate_without_a_period_rates_nothing_and_needs_no_rating_source(cli, games) -> None:
    result = cli("validate", games)

    assert result.exit_code == 0, result.output


def test_every_row_rejected_in_one_month_of_a_range_is_not_every_row_of_the_run(cli, tmp_path, rating_list) -> None:
    games = write_csv(
        tmp_path / "g.csv", "date,white_id,black_id,result\n2025-10-01,100,200,1-0\n2025-11-01,100,200,2-0\n"
    )

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-10..2025-11", "--out", tmp_path / "out")

    assert result.exit_code == 0, result.output


def test_every_row_rejected_is_an_error_event_in_json(cli, tmp_path, bad, rating_list) -> None:
    args = ("run", bad, "--ratings", rating_list, "--period", "2025-10", "--out", tmp_path / "out")

    result = cli(*args, "--log-format", "json")

    assert result.exit_code == 65
    error = _events(result.stderr)[-1]
    assert error["event"] == "error" and error["error"] == "StrictRejectError"
    assert "all 11 rows" in error["message"] and "--max-rejected 100%" in error["message"]


# --- the Spark engine: the same guard, through the same code ---------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("rated", [True, False], ids=["with-game-ratings", "without"])
def test_engine_spark_applies_the_guard(cli, spark, tmp_path, rated: bool) -> None:
    rating = "2000" if rated else ""
    games = write_csv(tmp_path / "g.csv", f"date,white_id,black_id,result,white_rating\n2025-10-01,1,2,1-0,{rating}\n")
    out = tmp_path / "out"

    result = cli("run", games, "--period", "2025-10", "--out", out, "--engine", "spark", "--spark-master", "local[2]")

    assert result.exit_code == (0 if rated else 65), result.output
    assert out.exists() is rated


@pytest.mark.slow
def test_spark_api_without_ratings_raises_unless_none_is_passed(spark, games) -> None:
    from elo_batch import spark as engine

    frame = spark.createDataFrame(pl.read_csv(games, infer_schema=False).to_pandas())

    with pytest.raises(elo_batch.NoRatingSourceError):
        engine.rate_period(frame, period="2025-10")
    assert engine.rate_period(frame, period="2025-10", ratings=None).local.ratings.height == 3


def test_the_rows_of_games_entered_twice_are_grouped_as_one_reason() -> None:
    """Three games each entered twice with different results: one reason of 6 rows, not one per game (the
    rows a reason names are values too; found by a tester)."""
    from elo_batch.job.guards import rejected_reasons

    reason = (
        "rows {} are one game (the same event_id, round, white_id and black_id) with different results: a game "
        "entered twice must agree, so none of them is used."
    )
    pairs = [f"g.csv row {n}, g.csv row {n + 1}" for n in (2, 4, 6)]
    rows = pl.DataFrame(
        {
            "column": ["result"] * 6,
            "value": ["1-0", "0-1"] * 3,
            "reason": [reason.format(p) for p in pairs for _ in "ab"],
        }
    )

    (group,), more = rejected_reasons(rows)

    assert more == 0 and group[2] == 6 and group[0] == "result"
    assert group[1].startswith("rows ... are one game (the same event_id") and "row 2" not in group[1]
