"""examples/dbt: ``dbt build`` over what ``elo-batch run`` wrote to OUT, as hive Parquet folders and as Delta
tables (dbt-duckdb's delta plugin), succeeds with every schema test passing, and its two models hold what
the outputs themselves say (read back through :func:`elo_batch.read_period`, not through DuckDB).

dbt lives in its own environment (``pip install 'elo-batch[dbt]'``; dbt-core's pins clash with the test
tools'): the test runs ``$DBT``, else the ``dbt`` on ``PATH``; without either it skips, except under
``CI=true`` (``.ci/run`` builds that environment), where it fails."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import elo_batch
from tests.conftest import ROOT
from tests.engines import IN_CI

PROJECT = ROOT / "examples" / "dbt"
PERIOD = "2025-10"
SAMPLE = ("sample_data/us-championship-2025-games.csv", "--ratings", "sample_data/ratings-2025-10.csv")
MOVERS = 10  # the project's var movers

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dbt() -> str:
    found = os.environ.get("DBT") or shutil.which("dbt")
    if found is None:
        reason = "examples/dbt needs dbt: set DBT to a dbt of an environment with pip install 'elo-batch[dbt]'"
        if IN_CI:
            pytest.fail(f"CI runs the dbt example, but {reason}")
        pytest.skip(reason)
    return found


def _run_elo_batch(cli, out: Path, table_format: str) -> None:
    args = [str(ROOT / a) if a.startswith("sample_data/") else a for a in SAMPLE]
    result = cli("run", *args, "--period", PERIOD, "--out", out, "--table-format", table_format)
    assert result.exit_code == 0, result.output


def _dbt_build(dbt: str, out: Path, table_format: str, work: Path) -> Path:
    """``dbt build`` of the example over ``out``; the DuckDB file it built (target and logs under ``work``)."""
    database = work / "elo_batch.duckdb"  # its stem is the database's name: an identifier DuckDB needs unquoted
    env = {**os.environ, "DO_NOT_TRACK": "1", "ELO_BATCH_DUCKDB": str(database)}
    variables = json.dumps({"out": str(out), "table_format": table_format})
    command = [dbt, "build", "--project-dir", PROJECT, "--profiles-dir", PROJECT, "--vars", variables,
               "--target-path", work / "target", "--log-path", work / "logs"]  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    results = _read_json(work / "target" / "run_results.json")["results"]
    assert {r["status"] for r in results} <= {"success", "pass"}, [(r["unique_id"], r["status"]) for r in results]
    nodes = _read_json(work / "target" / "manifest.json")["nodes"]
    tests = [r["unique_id"] for r in results if r["unique_id"].startswith("test.")]
    tested = {model.rsplit(".", 1)[-1] for test in tests for model in nodes[test]["depends_on"]["nodes"]}
    assert {"biggest_movers", "audit_with_list"} <= tested  # schema tests ran on both models
    return database


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _expected_movers(ratings: pl.DataFrame) -> pl.DataFrame:
    """The period's movers from the list itself: the largest |change| first, gains before losses, then id."""
    moved = ratings.filter(pl.col("change") != 0).with_columns(size=pl.col("change").abs())
    moved = moved.sort(["size", "change", "player_id"], descending=[True, True, False]).head(MOVERS)
    return moved.select(
        "player_id",
        "change",
        pl.when(pl.col("change") > 0).then(pl.lit("up")).otherwise(pl.lit("down")).alias("direction"),
        pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias("mover_rank"),
    )


def _expected_audit_with_list(tables: elo_batch.OutputTables) -> pl.DataFrame:
    assert tables.audit is not None
    player = tables.ratings.select("player_id", player_status="status", player_rating_after="rating")
    opponent = tables.ratings.select(opponent_id="player_id", opponent_rating_after="rating")
    joined = tables.audit.join(player, on="player_id", how="left").join(opponent, on="opponent_id", how="left")
    return joined.select(
        "game_id", "player_id", "opponent_id", "k_change", "counted", "player_status", "player_rating_after",
        "opponent_rating_after",
    ).sort("game_id", "player_id")  # fmt: skip


@pytest.mark.parametrize("table_format", ["parquet", "delta"])
def test_dbt_build_over_out(dbt: str, cli, tmp_path: Path, table_format: str) -> None:
    out = tmp_path / "out"
    _run_elo_batch(cli, out, table_format)
    database = _dbt_build(dbt, out, table_format, tmp_path / "dbt")
    tables = elo_batch.read_period(out, PERIOD)
    assert tables.table_format == table_format
    with duckdb.connect(str(database), read_only=True) as con:
        movers = con.sql("select * from biggest_movers order by period, mover_rank").pl()
        audit = con.sql("select * from audit_with_list").pl()
    assert movers["period"].unique().to_list() == [PERIOD]
    assert_frame_equal(movers.select("player_id", "change", "direction", "mover_rank"),
                       _expected_movers(tables.ratings), check_dtypes=False)  # fmt: skip
    top = tables.ratings.sort(pl.col("change").abs(), descending=True).row(0, named=True)
    assert (movers["player_id"][0], movers["change"][0]) == (top["player_id"], top["change"])
    # and that mover is README's: FIDE published +15.30 for the event, 2605 on the November list
    assert (top["player_id"], top["rating_before"], top["change"], top["rating"]) == ("30953499", 2590, 15, 2605)
    got = audit.select(_expected_audit_with_list(tables).columns).sort("game_id", "player_id")
    assert_frame_equal(got, _expected_audit_with_list(tables), check_dtypes=False)
    assert audit["period"].unique().to_list() == [PERIOD]
