"""`run --table-format delta`: ratings, audit and rejected as Delta tables partitioned by period, the same
rows and values as the hive partitions; a period re-run keeps one copy; months chain through
`--ratings OUT/ratings`; a run killed between the tables' commits is rolled back by the next run."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import polars as pl
import polars.selectors as cs
import pytest
from polars.testing import assert_frame_equal

import elo_batch
from elo_batch.config import parse_periods
from elo_batch.inputs import tablelist
from elo_batch.outputs import delta
from tests.conftest import ROOT, TESTS, read_table, write_csv

deltalake = pytest.importorskip("deltalake")

TABLES = ("ratings", "audit", "rejected")
CASES = sorted(p for p in (TESTS / "golden").iterdir() if p.is_dir())
GAMES = """
game_id,date,white_id,black_id,result
1,2025-11-03,A,B,1-0
2,2025-11-04,A,C,1-0
3,2025-12-03,A,B,1/2-1/2
4,2025-11-05,A,B,2-0
"""
LIST = """
player_id,rating,k,name
A,2000,20,Alice
B,1900,20,Bob
C,2100,10,Carol
"""


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    return write_csv(tmp_path / "games.csv", GAMES), write_csv(tmp_path / "list.csv", LIST)


def rows(out: Path, table: str, period: str) -> pl.DataFrame:
    return pl.scan_delta(str(out / table)).filter(pl.col("period") == period).collect()


def assert_same_as_parquet(delta_out: Path, parquet_out: Path, period: str) -> None:
    for table in TABLES:
        expected = read_table(parquet_out, table, period).with_columns(cs.categorical().cast(pl.String))
        got = rows(delta_out, table, period)
        assert sorted(got.columns) == sorted(expected.columns), table
        assert_frame_equal(got.select(expected.columns), expected)  # same rows in the same order, types, values


def latest_run(out: Path, table: str) -> str | None:
    found = delta.own_commit(deltalake.DeltaTable(str(out / table)))
    assert found is not None
    return found[1]["run_id"]


def manifest(out: Path, period: str) -> dict:
    return json.loads((out / "manifest" / f"period={period}" / "manifest.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
def test_golden_cases_give_the_parquet_rows(case: Path, cli, tmp_path: Path) -> None:
    args = shlex.split((case / "args").read_text())
    periods = parse_periods(args[args.index("--period") + 1])
    ratings = ["--ratings", case / "ratings.csv"] if (case / "ratings.csv").exists() else []
    events = ["--events", case / "events.csv"] if (case / "events.csv").exists() else []
    for table_format in ("parquet", "delta"):
        result = cli("run", case / "games.csv", *ratings, *events, *args, "--out", tmp_path / table_format,
                     "--table-format", table_format)  # fmt: skip
        assert result.exit_code == 0, result.output

    for period in periods:  # a range: every month
        assert_same_as_parquet(tmp_path / "delta", tmp_path / "parquet", period)


def test_us_championship_gives_the_parquet_rows_read_by_polars_and_duckdb(cli, tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    games, ratings = (
        ROOT / "sample_data" / "us-championship-2025-games.csv",
        ROOT / "sample_data" / "ratings-2025-10.csv",
    )
    for table_format in ("parquet", "delta"):
        result = cli("run", games, "--ratings", ratings, "--period", "2025-10", "--out", tmp_path / table_format,
                     "--table-format", table_format)  # fmt: skip
        assert result.exit_code == 0, result.output
    out = tmp_path / "delta"

    assert_same_as_parquet(out, tmp_path / "parquet", "2025-10")
    with duckdb.connect() as connection:  # DuckDB over deltalake's Arrow dataset (no delta extension)
        connection.register("ratings", deltalake.DeltaTable(str(out / "ratings")).to_pyarrow_dataset())
        so = connection.execute("SELECT rating, rating_before, change, games FROM ratings WHERE player_id = '30953499'")
        assert so.fetchall() == [(2605, 2590, 15, 11)]  # Wesley So: 5.5/11, FIDE's November list


def test_rerunning_a_period_replaces_only_it_in_one_commit_per_table(cli, tmp_path: Path, inputs) -> None:
    duckdb = pytest.importorskip("duckdb")
    games, rating_list = inputs
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out", out,
               "--table-format", "delta").exit_code == 0  # fmt: skip
    december = rows(out, "ratings", "2025-12")
    versions = {table: deltalake.DeltaTable(str(out / table)).version() for table in TABLES}

    again = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out, "--table-format", "delta")

    assert again.exit_code == 0, again.output
    assert {table: deltalake.DeltaTable(str(out / table)).version() for table in TABLES} == {
        table: version + 1 for table, version in versions.items()
    }
    counts = pl.scan_delta(str(out / "ratings")).group_by("period").len().sort("period").collect()
    assert counts.rows() == [("2025-11", 3), ("2025-12", 3)]
    assert rows(out, "audit", "2025-11").height == 4 and rows(out, "rejected", "2025-11").height == 1
    assert_frame_equal(rows(out, "ratings", "2025-12"), december)
    with duckdb.connect() as connection:
        connection.register("audit", deltalake.DeltaTable(str(out / "audit")).to_pyarrow_dataset())
        assert connection.execute("SELECT period, count(*) FROM audit GROUP BY period ORDER BY period").fetchall() == [
            ("2025-11", 4),
            ("2025-12", 2),
        ]


def test_the_manifest_is_the_commit_metadata_and_names_each_version(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out,
               "--table-format", "delta").exit_code == 0  # fmt: skip

    written = manifest(out, "2025-11")
    for table in TABLES:
        version, record, _ = delta.own_commit(deltalake.DeltaTable(str(out / table)))
        assert version == written["delta"][table]["version"]
        assert record["run_id"] == written["run_id"] and record["period"] == "2025-11"
        assert record["manifest"] == {k: v for k, v in written.items() if k not in ("outputs", "delta")}
        assert deltalake.DeltaTable(str(out / table)).metadata().partition_columns == ["period"]
    assert written["delta"]["audit"]["rows"] == 4 and written["options"]["table_format"] == "delta"


def test_months_chain_through_the_delta_ratings_table(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    chained, ranged = tmp_path / "chained", tmp_path / "ranged"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", chained,
               "--table-format", "delta").exit_code == 0  # fmt: skip

    default = cli("run", games, "--ratings", chained / "ratings", "--period", "2025-12", "--out", chained,
                  "--table-format", "delta")  # fmt: skip
    explicit = cli(
        "run",
        games,
        "--ratings",
        chained / "ratings",
        "--ratings-period",
        "2025-11",
        "--period",
        "2025-12",
        "--out",
        tmp_path / "explicit",
    )  # fmt: skip, into hive folders

    assert default.exit_code == 0, default.output
    assert explicit.exit_code == 0, explicit.output
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out", ranged).exit_code == 0
    expected = read_table(ranged, "ratings", "2025-12")
    as_text = expected.with_columns(cs.categorical().cast(pl.String))  # a Delta table holds text as text
    assert_frame_equal(rows(chained, "ratings", "2025-12").select(expected.columns), as_text)
    assert_frame_equal(read_table(tmp_path / "explicit", "ratings", "2025-12"), expected)
    listed = manifest(chained, "2025-12")["inputs"]["ratings"]
    assert listed["path"] == f"{chained / 'ratings'} (Delta table, period 2025-11, version 0)"
    assert listed["encoding"] == "delta"


def test_a_chained_list_has_its_own_periods_columns(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    out = tmp_path / "out"
    titled = write_csv(tmp_path / "titled.csv", "player_id,rating,k,title\nA,2000,20,GM\nB,1900,20,\nC,2100,10,")
    assert cli("run", games, "--ratings", titled, "--period", "2025-10", "--out", out,
               "--table-format", "delta").exit_code == 0  # fmt: skip
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out,
               "--table-format", "delta").exit_code == 0  # fmt: skip

    frame, _ = tablelist.read_period(str(out / "ratings"), "2025-11")

    assert "title" in pl.scan_delta(str(out / "ratings")).collect_schema()  # the table has it, for 2025-10
    assert "title" not in frame.columns and "name" in frame.columns


def test_hive_folders_chain_with_ratings_period_too(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out).exit_code == 0

    result = cli("run", games, "--ratings", out / "ratings", "--ratings-period", "2025-11", "--period", "2025-12",
                 "--out", out)  # fmt: skip

    assert result.exit_code == 0, result.output
    assert read_table(out, "ratings", "2025-12").filter(pl.col("player_id") == "A")["rating"].item() == 2017


def test_a_missing_period_of_the_list_table_names_those_it_holds(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out,
               "--table-format", "delta").exit_code == 0  # fmt: skip

    result = cli("run", games, "--ratings", out / "ratings", "--period", "2026-01", "--out", tmp_path / "o2")

    assert result.exit_code == 66
    assert "the Delta table has no period 2025-12" in result.stderr
    assert "Hint: it holds 2025-11; give --ratings-period" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--table-format", "delta", "--format", "csv"], "option --format: Delta tables hold Parquet files, not csv"),
        (["--ratings-period", "2025-13", "--ratings", "x"], "option --ratings-period: '2025-13' is not a month"),
        (["--ratings-period", "2025-10"], "option --ratings-period: a period of a ratings table needs the table"),
        (["--table-format", "delta", "--out", "s3://lake/elo"], "Delta tables are written into a local folder"),
    ],
)
def test_usage_errors(cli, tmp_path: Path, inputs, args: list[str], message: str) -> None:
    games, _ = inputs
    result = cli("run", games, "--period", "2025-11", "--out", tmp_path / "out", *args)

    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_formats_are_never_mixed_in_one_output_folder(cli, tmp_path: Path, inputs) -> None:
    games, _ = inputs
    hive, lake = tmp_path / "hive", tmp_path / "lake"
    pool = ("--ratings", "none")  # no list: a new rating pool
    assert cli("run", games, *pool, "--period", "2025-11", "--out", hive).exit_code == 0
    assert cli("run", games, *pool, "--period", "2025-11", "--out", lake, "--table-format", "delta").exit_code == 0

    into_hive = cli("run", games, *pool, "--period", "2025-12", "--out", hive, "--table-format", "delta")
    into_lake = cli("run", games, *pool, "--period", "2025-12", "--out", lake)

    assert into_hive.exit_code == 73 and f"{hive / 'rejected'}: holds hive Parquet/CSV partitions" in into_hive.stderr
    assert into_lake.exit_code == 73 and f"{lake / 'rejected'}: holds a Delta table" in into_lake.stderr
    assert not (hive / "ratings" / "_delta_log").exists() and not (lake / "ratings" / "period=2025-12").exists()


def test_a_type_clash_is_refused_before_any_commit(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out,
               "--table-format", "delta").exit_code == 0  # fmt: skip
    versions = {table: deltalake.DeltaTable(str(out / table)).version() for table in TABLES}

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-12", "--out", out,
                 "--table-format", "delta", "--rounding", "none")  # fmt: skip

    assert result.exit_code == 73
    assert f"{out / 'audit'}, column rating: the Delta table holds Int64, this period writes Decimal(precision=12, " \
        "scale=2); nothing of period 2025-12 was written" in result.stderr  # fmt: skip
    assert "Hint: write runs of one kind into one table (--rounding none runs apart)" in result.stderr
    assert {table: deltalake.DeltaTable(str(out / table)).version() for table in TABLES} == versions


def test_a_column_differing_only_in_case_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    period = {"period": ["2025-11"], "player_id": ["A"]}
    tables = {"ratings": pl.DataFrame({**period, "name": ["x"]}), "audit": pl.DataFrame(period),
              "rejected": pl.DataFrame(period)}  # fmt: skip
    delta.write_period(str(out), "2025-11", tables, manifest={})

    with pytest.raises(delta.OutputError) as raised:  # Delta's column names are case-insensitive
        shouting = pl.DataFrame({"period": ["2025-12"], "NAME": ["y"]})
        delta.write_period(str(out), "2025-12", {**tables, "ratings": shouting}, manifest={})

    assert str(raised.value).startswith(
        f"{out / 'ratings'}, column NAME: its name differs only in case from the column"
    )
    assert rows(out, "ratings", "2025-12").height == 0 and rows(out, "audit", "2025-12").height == 0


def test_integer_then_text_ids_turn_the_tables_ids_into_text(cli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    numbered = tmp_path / "g.parquet"
    pl.DataFrame({"white_id": [1], "black_id": [2], "result": ["1-0"], "date": ["2025-11-03"]}).write_parquet(numbered)
    texted = write_csv(tmp_path / "g.csv", "white_id,black_id,result,date\n1,X9,0-1,2025-12-03")
    delta_pool = ("--table-format", "delta", "--ratings", "none")  # no list: a new rating pool
    assert cli("run", numbered, "--period", "2025-11", "--out", out, *delta_pool).exit_code == 0
    assert pl.scan_delta(str(out / "ratings")).collect_schema()["player_id"] == pl.Int64

    result = cli("run", texted, "--period", "2025-12", "--out", out, *delta_pool)
    back = cli("run", numbered, "--period", "2025-11", "--out", out, *delta_pool)  # integers again

    assert result.exit_code == 0, result.output
    assert back.exit_code == 0, back.output
    table = pl.scan_delta(str(out / "ratings")).select("period", "player_id").sort("period", "player_id").collect()
    assert table.rows() == [("2025-11", "1"), ("2025-11", "2"), ("2025-12", "1"), ("2025-12", "X9")]
    assert sorted(rows(out, "audit", "2025-11")["opponent_id"].to_list()) == ["1", "2"]


def test_the_api_writes_and_chains_delta_tables(tmp_path: Path) -> None:
    out = tmp_path / "out"
    games = pl.read_csv(ROOT / "sample_data" / "us-championship-2025-games.csv")
    first = elo_batch.rate_period(games, period="2025-10", ratings=ROOT / "sample_data" / "ratings-2025-10.csv")

    written = elo_batch.write_period(first, out, table_format="delta")
    second = elo_batch.rate_period(games.head(0), period="2025-11", ratings=str(out / "ratings"))
    explicit = elo_batch.rate_period(games.head(0), period="2026-03", ratings=out / "ratings", ratings_period="2025-10")

    assert written["ratings"] == str(out / "ratings")
    as_text = first.ratings.with_columns(cs.categorical().cast(pl.String))  # a Delta table holds text as text
    assert_frame_equal(rows(out, "ratings", "2025-10").select(first.ratings.columns), as_text)
    assert second.ratings["rating_before"].to_list() == first.ratings["rating"].to_list()
    assert explicit.ratings["rating_before"].to_list() == first.ratings["rating"].to_list()
    with pytest.raises(elo_batch.UsageError, match="option format: Delta tables hold Parquet files, not csv"):
        elo_batch.write_period(first, out, format="csv", table_format="delta")


# --- a run failing or killed between the tables' commits --------------------------------------------


@pytest.fixture
def committed(cli, tmp_path: Path, inputs) -> tuple[Path, Path, dict[str, pl.DataFrame], Path]:
    """OUT with period 2025-11 written from list.csv, its rows; another list and other games, which give other
    rows in every table."""
    games, rating_list = inputs
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out,
               "--table-format", "delta").exit_code == 0  # fmt: skip
    other = write_csv(tmp_path / "other.csv", "player_id,rating,k\nA,1500,40\nB,1600,40\nC,1700,40")
    worse = write_csv(tmp_path / "worse.csv", GAMES + "5,2025-11-06,A,C,3-0\n")
    return out, other, {table: rows(out, table, "2025-11") for table in TABLES}, worse


#: The CLI in a fresh interpreter that SIGKILLs itself after the KILL_AFTER-th table commit.
DRIVER = """
import os, signal, sys
from elo_batch.cli import app as cli
from elo_batch.outputs import delta
real, done = delta.commit, []
def commit(*args, **kwargs):
    version = real(*args, **kwargs)
    done.append(version)
    if len(done) == int(os.environ["KILL_AFTER"]):
        os.kill(os.getpid(), signal.SIGKILL)
    return version
delta.commit = commit
sys.exit(cli.console(sys.argv[1:]))
"""


def _killed_run(after: int, *args: str | Path) -> None:
    env = {**os.environ, "KILL_AFTER": str(after)}
    done = subprocess.run([sys.executable, "-c", DRIVER, "run", *map(str, args)], env=env, capture_output=True)
    assert done.returncode == -9, done.stderr.decode()


@pytest.mark.parametrize("after", [1, 2, 3], ids=["after-rejected", "after-audit", "after-ratings"])
def test_a_run_killed_between_commits_is_rolled_back_by_the_next_run(cli, tmp_path: Path, committed, after) -> None:
    out, other, before, worse = committed
    named = manifest(out, "2025-11")["run_id"]
    _killed_run(after, worse, "--ratings", other, "--period", "2025-11", "--out", out, "--table-format", "delta")
    reached = [table for table in delta.ORDER if latest_run(out, table) != named]
    assert reached == list(delta.ORDER[:after])  # the state left: those tables hold the killed run's rows
    assert manifest(out, "2025-11")["run_id"] == named

    again = ("run", worse, "--ratings", "none", "--period", "2025-12", "--out", out, "--table-format", "delta")
    result = cli(*again)  # another period (no list: a new rating pool)

    assert result.exit_code == 0, result.output
    assert (
        f"warning: {out / reached[0]}: period 2025-11 rolled back to version 0, as its manifest names" in result.stderr
    )
    for table in TABLES:
        assert_frame_equal(rows(out, table, "2025-11"), before[table])
        assert latest_run(out, table) in (named, manifest(out, "2025-12")["run_id"])
    assert cli(*again).stderr.count("rolled") == 0


def test_a_first_run_killed_between_commits_leaves_no_rows_of_its_period(cli, tmp_path: Path, committed) -> None:
    out, other, _, worse = committed
    _killed_run(2, worse, "--ratings", other, "--period", "2025-12", "--out", out, "--table-format", "delta")
    assert rows(out, "audit", "2025-12").height == 2

    with elo_batch.locked_output(out):  # what the API's callers hold before reading OUT
        pass

    assert rows(out, "rejected", "2025-12").height == 0 and rows(out, "audit", "2025-12").height == 0
    assert not (out / "manifest" / "period=2025-12").exists()


def test_a_run_failing_between_commits_puts_back_what_it_committed(cli, tmp_path: Path, committed, monkeypatch) -> None:
    out, other, before, worse = committed
    real, done = delta.commit, []

    def failing(*args, **kwargs):  # the third commit (ratings) fails once; the rollback's commits work
        done.append(len(done))
        if len(done) == 3:
            raise OSError(28, "No space left on device", str(out / "ratings"))
        return real(*args, **kwargs)

    monkeypatch.setattr(delta, "commit", failing)

    result = cli("run", worse, "--ratings", other, "--period", "2025-11", "--out", out, "--table-format", "delta")

    assert result.exit_code == 73
    assert "cannot write the Delta tables (No space left on device" in result.stderr
    for table in TABLES:  # already put back, before the error was raised
        assert_frame_equal(rows(out, table, "2025-11"), before[table])
        assert latest_run(out, table) == manifest(out, "2025-11")["run_id"]


def test_a_period_whose_old_files_were_vacuumed_is_replaced_by_its_own_rerun(cli, tmp_path: Path, committed) -> None:
    out, other, _, worse = committed
    _killed_run(1, worse, "--ratings", other, "--period", "2025-11", "--out", out, "--table-format", "delta")
    deltalake.DeltaTable(str(out / "rejected")).vacuum(
        retention_hours=0, enforce_retention_duration=False, dry_run=False
    )

    elsewhere = cli("run", worse, "--period", "2025-12", "--out", out, "--table-format", "delta")
    rerun = cli("run", worse, "--ratings", other, "--period", "2025-11", "--out", out, "--table-format", "delta")

    assert elsewhere.exit_code == 73
    assert "period 2025-11: a run killed between its commits left rows that no manifest names, and the files of " \
        "version 0, which the manifest names, cannot be read back" in elsewhere.stderr  # fmt: skip
    assert "Hint: re-run period 2025-11 into this output folder" in elsewhere.stderr
    assert rerun.exit_code == 0, rerun.output
    assert all(latest_run(out, table) == manifest(out, "2025-11")["run_id"] for table in TABLES)
    assert rows(out, "rejected", "2025-11")["value"].to_list() == ["2-0", "3-0"]


def test_list_columns_delta_has_no_type_for_are_mapped(cli, tmp_path: Path, inputs) -> None:
    games, _ = inputs
    out = tmp_path / "out"
    typed = tmp_path / "list.parquet"
    pl.DataFrame(
        {"player_id": ["A", "B", "C"], "rating": [2000, 1900, 2100], "fed": ["NOR", "USA", "NOR"]},
        schema_overrides={"fed": pl.Categorical},
    ).with_columns(board=pl.Series([1, 2, 250], dtype=pl.UInt8), note=None).write_parquet(typed)
    assert cli("run", games, "--ratings", typed, "--period", "2025-11", "--out", tmp_path / "hive").exit_code == 0

    result = cli("run", games, "--ratings", typed, "--period", "2025-11", "--out", out, "--table-format", "delta")

    assert result.exit_code == 0, result.output
    expected = read_table(tmp_path / "hive", "ratings", "2025-11")
    got = rows(out, "ratings", "2025-11").select(expected.columns)
    assert got.select("fed", "board", "note").schema == pl.Schema(
        {"fed": pl.String, "board": pl.Int16, "note": pl.String}
    )
    assert_frame_equal(got, expected, check_dtypes=False)


def test_rerunning_an_earlier_month_names_the_later_ones_left_stale(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out", out,
               "--table-format", "delta").exit_code == 0  # fmt: skip

    again = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out, "--table-format", "delta")

    assert again.exit_code == 0, again.output
    assert manifest(out, "2025-11")["stale_periods"] == ["2025-12"]


def test_duckdb_is_loaded_with_the_delta_tables(cli, tmp_path: Path, inputs) -> None:
    duckdb = pytest.importorskip("duckdb")
    games, rating_list = inputs
    out, db = tmp_path / "out", tmp_path / "elo.duckdb"

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out, "--table-format", "delta",
                 "--duckdb", db)  # fmt: skip

    assert result.exit_code == 0, result.output
    with duckdb.connect(str(db), read_only=True) as connection:
        assert connection.execute("SELECT count(*) FROM audit WHERE period = '2025-11'").fetchall() == [(4,)]
    assert rows(out, "audit", "2025-11").height == 4


def test_the_chart_reads_a_delta_output_folder(cli, tmp_path: Path, inputs) -> None:
    pytest.importorskip("matplotlib")
    from elo_batch.cli.chart import rating_history

    games, rating_list = inputs
    for table_format in ("parquet", "delta"):
        assert cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out",
                   tmp_path / table_format, "--table-format", table_format).exit_code == 0  # fmt: skip

    lake, hive = rating_history(str(tmp_path / "delta"), "A"), rating_history(str(tmp_path / "parquet"), "A")

    assert (lake.lists, lake.ratings, lake.labels, lake.name) == (hive.lists, hive.ratings, hive.labels, hive.name)
    assert lake.ratings == (2000, 2020, 2017)


def test_file_statistics_are_the_rows_own(cli, tmp_path: Path) -> None:
    games, ratings = (
        ROOT / "sample_data" / "us-championship-2025-games.csv",
        ROOT / "sample_data" / "ratings-2025-10.csv",
    )
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", ratings, "--period", "2025-10", "--out", out,
               "--table-format", "delta").exit_code == 0  # fmt: skip

    actions = pl.DataFrame(deltalake.DeltaTable(str(out / "audit")).get_add_actions(flatten=True))
    audit = rows(out, "audit", "2025-10")

    assert actions["num_records"].to_list() == [audit.height]
    for column in ("game_id", "event_id", "player_id", "opponent_id", "date", "source_row"):  # what readers skip by
        assert actions[f"min.{column}"].item() == audit[column].min(), column
        assert actions[f"max.{column}"].item() == audit[column].max(), column
        assert actions[f"null_count.{column}"].item() == 0, column
    # the audit's other columns (read, not filtered on) have none; the list keeps every column's
    others = [name for name in actions.columns if name.endswith((".rating", ".reason", ".k_change"))]
    assert len(others) == 9 and actions.select(others).null_count().row(0) == (1,) * 9, others
    listed = pl.DataFrame(deltalake.DeltaTable(str(out / "ratings")).get_add_actions(flatten=True))
    assert listed["min.rating"].item() == rows(out, "ratings", "2025-10")["rating"].min()


def test_a_killed_rewrite_of_the_ids_as_text_is_rolled_back(cli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    numbered = tmp_path / "g.parquet"
    pl.DataFrame({"white_id": [1], "black_id": [2], "result": ["1-0"], "date": ["2025-11-03"]}).write_parquet(numbered)
    texted = write_csv(tmp_path / "g.csv", "white_id,black_id,result,date\n1,X9,0-1,2025-11-03")
    delta_pool = ("--table-format", "delta", "--ratings", "none")  # no list: a new rating pool
    assert cli("run", numbered, "--period", "2025-11", "--out", out, *delta_pool).exit_code == 0
    before = rows(out, "audit", "2025-11")
    _killed_run(2, texted, "--period", "2025-11", "--out", out, *delta_pool)  # audit rewritten as text
    assert rows(out, "audit", "2025-11")["opponent_id"].to_list() == ["X9", "1"]

    result = cli("run", numbered, "--period", "2025-12", "--out", out, *delta_pool)

    assert result.exit_code == 0, result.output
    assert "period 2025-11 rolled back to version 0" in result.stderr
    assert_frame_equal(
        rows(out, "audit", "2025-11"),
        before.with_columns(cs.by_name("player_id", "opponent_id", "game_id").cast(pl.String)),
    )


def test_validate_reads_the_list_from_a_delta_table(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out,
               "--table-format", "delta").exit_code == 0  # fmt: skip

    result = cli("validate", games, "--ratings", out / "ratings", "--ratings-period", "2025-11", "--period", "2025-12")

    assert result.exit_code == 0, result.output
    assert "2025-12 (fide-2025-10): 4 rows read = 1 counted" in result.stderr
    assert "players: 3 rated" in result.stderr  # A, B and C of the list (the games alone name A and B)


def test_a_failing_duckdb_commit_puts_the_delta_tables_back(cli, tmp_path: Path, committed, monkeypatch) -> None:
    pytest.importorskip("duckdb")
    from elo_batch.outputs import warehouse

    out, other, before, worse = committed

    def refused(self) -> None:
        self.abort()
        raise warehouse.OutputError("cannot commit period 2025-11 into the DuckDB database (disk full)")

    monkeypatch.setattr(warehouse.PeriodLoad, "commit", refused)

    result = cli("run", worse, "--ratings", other, "--period", "2025-11", "--out", out, "--table-format", "delta",
                 "--duckdb", tmp_path / "elo.duckdb")  # fmt: skip

    assert result.exit_code == 73
    assert "cannot commit period 2025-11 into the DuckDB database" in result.stderr
    for table in TABLES:
        assert_frame_equal(rows(out, table, "2025-11"), before[table])
        assert latest_run(out, table) == manifest(out, "2025-11")["run_id"]


def test_the_newest_own_commit_is_found_behind_other_writers_commits(tmp_path: Path) -> None:
    path, frame = str(tmp_path / "t"), pl.DataFrame({"period": ["2025-10"], "x": [1]})
    record = deltalake.CommitProperties(custom_metadata={"elo_batch": json.dumps({"period": "2025-10", "run_id": "r"})})
    deltalake.write_deltalake(path, frame.to_arrow(), partition_by=["period"], commit_properties=record)
    for _ in range(30):  # more than the newest commits read first
        deltalake.write_deltalake(path, frame.to_arrow(), mode="append")

    found = delta.own_commit(deltalake.DeltaTable(path))

    assert found is not None and found[0] == 0 and found[1] == {"period": "2025-10", "run_id": "r"}
    assert delta.own_commit(deltalake.DeltaTable(path), lambda record: record["run_id"] == "other") is None
