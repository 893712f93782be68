"""Shared test helpers: run the CLI in-process and read a period's outputs, each checked against the
published schemas (:mod:`elo_batch.schemas`); the engines to rate with (``engine``: local and Spark, through
the public API) and the one local Spark session (``spark``)."""

from __future__ import annotations

import functools
import re
import shlex
from pathlib import Path

import polars as pl
import pytest
import typer.main
import typer.testing
from typer.testing import CliRunner

import elo_batch
from elo_batch.cli.app import app
from elo_batch.tables import csv_output
from tests import engines
from tests.engines import valid

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"

# typer's CliRunner builds the click command of ``app`` again at every invoke (14 ms of type hints each,
# a tenth of a small run's time in process): the tests build it once, as a process of the CLI does.
assert typer.testing._get_command is typer.main.get_command, "typer's CliRunner no longer builds the command so"
typer.testing._get_command = functools.cache(typer.main.get_command)


class Cli:
    """Invoke ``elo-batch`` in-process and read what it wrote."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.runner = CliRunner()

    def __call__(self, *args: str | Path):
        return self.runner.invoke(app, [str(a) for a in args], catch_exceptions=False)

    def run(self, args: str, out: Path | None = None):
        """``elo-batch ARGS --out OUT`` (default ``tmp_path/out``); when it succeeds, every period ``OUT``
        holds is read back (:func:`elo_batch.read_period`) and checked against the published schemas."""
        out = out or self.tmp_path / "out"
        result = self(*shlex.split(args), "--out", out)
        if result.exit_code == 0:
            check_outputs(out)
        return result


def check_outputs(out: Path) -> None:
    """Every period of a local output folder, as :func:`elo_batch.read_period` reads it (hive folders of
    Parquet or CSV, Delta tables), valid under :data:`elo_batch.schemas.SCHEMAS`; nothing to check where
    ``out`` holds no period (``validate``, an object store)."""
    if not (Path(out) / "manifest").is_dir():
        return
    for period in elo_batch.output_periods(out):
        tables = elo_batch.read_period(out, period)
        for name in ("ratings", "audit", "rejected"):
            frame = getattr(tables, name)
            if frame is not None:
                valid(name, frame)


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path)


@pytest.fixture(scope="session")
def spark():
    """The local Spark session of the whole test run (:func:`tests.engines.spark_session`). Without
    pyspark or Java: the test skips with the reason, except under ``CI=true``, where it fails."""
    engines.needs_spark()
    yield from engines.spark_session()


@pytest.fixture(params=["local", pytest.param("spark", marks=pytest.mark.slow)])
def engine(request: pytest.FixtureRequest) -> engines.Engine:
    """Each engine in turn, as a callable ``engine(games, periods=..., ratings=..., **options)`` giving
    one :class:`tests.engines.Rated` per period: the local engine, then the Spark engine (``slow``; its
    group-bys and sorts into one shuffle partition for the test, the rows still in two partitions:
    jobs of a few rows take half the time)."""
    if request.param == "local":
        return engines.Local()
    spark = request.getfixturevalue("spark")
    spark.conf.set("spark.sql.shuffle.partitions", "1")
    request.addfinalizer(lambda: spark.conf.set("spark.sql.shuffle.partitions", "2"))
    return engines.OnSpark(spark)


def read_table(out: Path, table: str, period: str) -> pl.DataFrame:
    """The one file of ``out/<table>/period=<period>/`` (CSV read as text, Parquet as typed; either valid
    under the table's published schema, the CSV typed as :func:`elo_batch.read_period` types it), with the
    ``period`` the audit's Parquet file leaves to its folder put back first, as the engine's Categorical
    (so that it compares equal to ``result.audit``; ``tests/test_audit_partition.py`` reads the files as
    they are)."""
    files = sorted((out / table / f"period={period}").glob("part-0.*"))
    assert len(files) == 1, f"expected one file in {table}/period={period}, found {files}"
    if files[0].suffix == ".csv":
        valid(table, csv_output(files[0]))  # typed as elo_batch.read_period reads it
        return pl.read_csv(files[0], infer_schema=False)
    frame = pl.read_parquet(files[0], hive_partitioning=False)
    if "period" not in frame.columns:
        frame = frame.select(pl.lit(pl.Series("period", [period], pl.Categorical)).first(), pl.all())
    return valid(table, frame)


def write_csv(path: Path, text: str) -> Path:
    path.write_text(text.strip() + "\n", encoding="utf-8")
    return path


RECONCILIATION = re.compile(
    r"(\d+) rows read = (\d+) counted \+ (\d+) not counted \((?:see audit|audited)\) \+ (\d+) other periods"
    r" \+ (\d+) rejected"
)


def reconciliation(output: str) -> dict[str, int]:
    """The counts of the first summary line in ``output``, after checking that they add up."""
    match = RECONCILIATION.search(output)
    assert match, f"no reconciliation line in:\n{output}"
    read, counted, not_counted, other, rejected = map(int, match.groups())
    assert read == counted + not_counted + other + rejected, match.group(0)
    return {"read": read, "counted": counted, "not_counted": not_counted, "other": other, "rejected": rejected}
