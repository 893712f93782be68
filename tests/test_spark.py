"""The Spark engine (local mode) gives what the local engine gives: the US Championship, rejected and
repeated rows across partitions, files Spark splits, a range of periods, the CLI. (Every golden case runs
on both engines in tests/test_golden.py, through the ``engine`` fixture.)

Needs pyspark (``pip install 'elo-batch[spark]'``) and Java 17+: skipped with the reason when either is
missing, except in CI (``CI=true``), where a missing one fails the tests instead. One Spark session,
``local[2]``, for the whole test run (the ``spark`` fixture of conftest.py; Spark starts in about 5 s).
Every test here is ``slow``.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import polars as pl
import pytest

import elo_batch
from tests.conftest import ROOT, TESTS
from tests.engines import IN_CI, MISSING, assert_same, small_jobs_env, spark_frame

SAMPLE = ROOT / "sample_data"

pytestmark = [
    pytest.mark.skipif(MISSING is not None and not IN_CI, reason=f"Spark tests skipped: {MISSING}"),
    pytest.mark.slow,
]


def test_spark_frames_hold_the_same_tables(spark) -> None:
    """The results as Spark frames: the audit in input order, the list and rejected rows as in polars;
    the list in force given as a Spark frame too."""
    from elo_batch import spark as engine

    games = pl.read_csv(SAMPLE / "us-championship-2025-games.csv", infer_schema=False)
    ratings = pl.read_csv(SAMPLE / "ratings-2025-10.csv", infer_schema=False)
    want = elo_batch.rate_period(games, period="2025-10", ratings=ratings)

    got = engine.rate_period(spark_frame(spark, games, 4), period="2025-10", ratings=spark_frame(spark, ratings, 2))

    assert_same(got, want)
    audit = pl.from_arrow(got.audit.toArrow())
    assert audit.equals(want.audit.collect().with_columns(pl.col(pl.Categorical).cast(pl.String)))
    assert pl.from_arrow(got.ratings.toArrow()).equals(want.ratings)
    assert got.ratings.count() == 12 and got.rejected.count() == 0


def test_the_public_api_rates_a_spark_frame_on_spark(spark) -> None:
    """``elo_batch.rate_period`` given a Spark DataFrame runs the Spark engine and gives Spark frames,
    as ``elo_batch.spark.rate_period`` does; ``rate_periods`` too."""
    from elo_batch.spark import SparkPeriodResult

    games = pl.read_csv(SAMPLE / "us-championship-2025-games.csv", infer_schema=False)
    ratings = pl.read_csv(SAMPLE / "ratings-2025-10.csv", infer_schema=False)
    want = elo_batch.rate_period(games, period="2025-10", ratings=ratings, rounding="game")

    got = elo_batch.rate_period(spark_frame(spark, games, 3), period="2025-10", ratings=ratings, rounding="game")
    (month,) = elo_batch.rate_periods(spark_frame(spark, games, 2), periods="2025-10", ratings=ratings, rounding="game")

    assert isinstance(got, SparkPeriodResult) and isinstance(month, SparkPeriodResult)
    assert_same(got, want)
    assert pl.from_arrow(month.ratings.toArrow()).equals(want.ratings)


#: Rows of every kind, spread over partitions: bad rows, a game_id repeated exactly (in another
#: partition) and one reused with other content, rows of another period and undated rows, a forfeit,
#: a newcomer, ids with spaces and case to trim, a negative half to round.
MIXED = """game_id,date,white_id,black_id,result,event_id
g1,2025-11-01,A,B,1-0,E1
g2,2025-11-02,B,C,1/2-1/2,E1
g3,2025-11-02,C,D,0-1,E1
bad1,2025-11-03,A,A,1-0,E1
g4,2025-13-01,A,B,1-0,E1
g5,2025-11-04,D,N1,1-0,E2
g6,2025-11-04,N1,A,0-1,E2
g1,2025-11-01,A,B,1-0,E1
g7,2025-10-30,A,B,1-0,E0
g8,2025-11-05,A,C,2-0,E1
g9,2025-11-05,B,D,+--,E1
g10,2025-11-06,A,C,0-1,E1
g10,2025-11-06,A,D,0-1,E1
g11,,A,B,1-0,E1
g12,2025-11-07, C ,A,1/2-1/2,E1
g13,2025-11-08,N1,B,1/2-1/2,E2
g14,2025-11-09,N1,C,1-0,E2
g15,2025-11-09,N1,D,0-1,E2
g16,2025-11-10,N1,A,1/2-1/2,E2
g17,2025-11-10,B,A,1-0,E1
"""
LIST = """player_id,rating,k
A,2105,20
B,1995,20
C,1850,40
D,2310,10
"""


@pytest.mark.parametrize("options", [{}, {"rounding": "game"}, {"rounding": "none"}, {"rules": "elo", "k": 20}])
def test_rejected_and_repeated_rows_across_partitions(options, spark, tmp_path: Path) -> None:
    from elo_batch import spark as engine

    games = pl.read_csv(MIXED.encode(), infer_schema=False)
    ratings = pl.read_csv(LIST.encode(), infer_schema=False)
    want = elo_batch.rate_period(games, period="2025-11", ratings=ratings, **options)  # type: ignore[arg-type]

    got = engine.rate_period(spark_frame(spark, games, 5), period="2025-11", ratings=ratings, **options)  # type: ignore[arg-type]

    assert_same(got, want)
    assert got.counts.reconciles() and got.counts.rejected == 6  # A vs A, bad date, bad result, g10 twice, undated
    assert got.local.audit.filter(pl.col("reason") == "duplicate row").collect().height == 2


def test_files_spark_splits_are_numbered_as_files(spark, tmp_path: Path) -> None:
    """Parquet files of many row groups, read by Spark in several splits each (the larger file first):
    ``source_file`` is Spark's path of the file, ``source_row`` the row's number in it, and input order
    that of the files' paths, as the local engine reads the folder."""
    from elo_batch import spark as engine

    games = pl.read_csv(MIXED.encode(), infer_schema=False)
    folder = tmp_path / "games"
    folder.mkdir()
    games.head(9).write_parquet(folder / "a.parquet", row_group_size=2)
    games.tail(11).write_parquet(folder / "b.parquet", row_group_size=2)
    ratings = pl.read_csv(LIST.encode(), infer_schema=False)
    want = elo_batch.rate_period(str(folder), period="2025-11", ratings=ratings)
    spark.conf.set("spark.sql.files.maxPartitionBytes", "600")
    spark.conf.set("spark.sql.files.openCostInBytes", "0")
    try:
        frame = spark.read.parquet(str(folder))
        assert frame.rdd.getNumPartitions() > 2
        got = engine.rate_period(frame, period="2025-11", ratings=ratings)
        audit, rejected = got.local.audit.collect(), got.local.rejected
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
        spark.conf.unset("spark.sql.files.openCostInBytes")

    def local_paths(frame: pl.DataFrame) -> pl.DataFrame:  # text, Spark's file: URIs as the paths given
        text = pl.col(pl.String, pl.Categorical).cast(pl.String)
        return frame.with_columns(text.str.replace_all("file://" + str(folder), str(folder), literal=True))

    assert local_paths(audit).equals(local_paths(want.audit.collect()))  # input order: the files', then rows'
    assert local_paths(rejected).equals(local_paths(want.rejected))
    assert got.local.ratings.equals(want.ratings)
    from elo_batch.sparkengine._arrow import partitions_in_order

    assert not partitions_in_order(got._games.rows, "row_key")  # so the audit above was Spark's sort of it


def test_partitions_in_order_tells_when_an_audit_needs_no_shuffle(spark) -> None:
    """Rows whose partitions hold ever later keys are read partition by partition (each sorted in its
    task); any other partitioning is sorted by Spark (the file splits above: the larger file first)."""
    from pyspark.sql import functions as F

    from elo_batch.sparkengine._arrow import partitions_in_order

    keys = spark.range(0, 40, numPartitions=4).withColumnRenamed("id", "row_key")
    assert partitions_in_order(keys, "row_key")
    assert partitions_in_order(keys.where(F.col("row_key") % 25 == 3), "row_key")  # empty partitions aside
    assert not partitions_in_order(keys.orderBy(F.desc("row_key")), "row_key")
    assert not partitions_in_order(keys.repartition(3, (F.col("row_key") % 3)), "row_key")


def test_a_range_of_periods_without_a_list(spark) -> None:
    """Ratings from the game rows, newcomers carried from month to month: each month from the last."""
    from elo_batch import spark as engine

    rows = []
    for month in (10, 11, 12):
        for day in range(1, 9):
            rows.append(
                {
                    "game_id": f"{month}-{day}",
                    "date": f"2025-{month:02d}-{day:02d}",
                    "white_id": f"P{day % 5}",
                    "black_id": f"N{(day + month) % 3}" if day % 2 else f"P{(day + 2) % 5}",
                    "result": ["1-0", "0-1", "1/2-1/2"][(day + month) % 3],
                    "white_rating": str(1800 + 37 * (day % 5)),
                    "black_rating": "" if day % 2 else str(1800 + 37 * ((day + 2) % 5)),
                }
            )
    games = pl.DataFrame(rows)
    want = list(elo_batch.rate_periods(games, periods="2025-10..2025-12"))

    got = list(engine.rate_periods(spark_frame(spark, games, 3), periods="2025-10..2025-12"))

    assert len(got) == len(want) == 3
    for spark_period, local_period in zip(got, want, strict=True):
        assert_same(spark_period, local_period)


def test_rounding_is_half_away_from_zero_for_negative_halves(spark) -> None:
    """K 10 x (0 - 0.55) = -5.5 is -6, never -5 (bround, Math.round, truncation or (x + 50) div 100 give
    -5): the rounding is the library's finalize kernel's, not Spark SQL's."""
    from elo_batch import spark as engine

    games = pl.DataFrame({"white_id": ["A"], "black_id": ["B"], "result": ["0-1"], "date": ["2025-11-03"]})
    ratings = pl.DataFrame({"player_id": ["A", "B"], "rating": [2035, 2000], "k": [10, 10]})

    got = engine.rate_period(spark_frame(spark, games, 1), period="2025-11", ratings=ratings)

    assert got.local.ratings.select("player_id", "change").rows() == [("A", -6), ("B", 6)]
    assert pl.from_arrow(got.audit.select("k_change").toArrow())["k_change"].to_list() == [-5.5, 5.5]


def test_the_declared_arrow_schema_is_met_exactly() -> None:
    """What a mapInArrow returns is cast to the declared schema: an Int32 or UInt32 column where Spark
    declared ``long`` (which fails at run time), categorical text, Decimal."""
    if MISSING is not None and not IN_CI:
        pytest.skip(MISSING)
    import pyarrow as pa

    from elo_batch.sparkengine import _arrow

    frame = pl.DataFrame(
        {"n": pl.Series([1, 2], dtype=pl.Int32), "i": pl.Series([3, 4], dtype=pl.UInt32), "t": ["a", "b"]}
    ).with_columns(pl.col("t").cast(pl.Categorical), pl.lit(1.25).cast(pl.Decimal(12, 2)).alias("d"))
    declared = _arrow.spark_schema({"n": pl.Int64(), "i": pl.UInt32(), "t": pl.Categorical(), "d": pl.Decimal(12, 2)})

    batch = next(_arrow.to_batches(frame, _arrow.arrow_schema(declared)))

    assert [f.dataType.simpleString() for f in declared.fields] == ["bigint", "bigint", "string", "decimal(12,2)"]
    assert batch.schema == pa.schema(
        [("n", pa.int64()), ("i", pa.int64()), ("t", pa.string()), ("d", pa.decimal128(12, 2))]
    )


def test_cli_engine_spark_writes_the_local_engines_partitions(cli, spark, tmp_path: Path) -> None:
    """``--engine spark`` writes the files the local engine writes (the same bytes); re-running a
    period replaces only that period (never Spark's static partition overwrite)."""
    games, ratings = SAMPLE / "us-championship-2025-games.csv", SAMPLE / "ratings-2025-10.csv"
    local, on_spark = tmp_path / "local", tmp_path / "spark"
    args = ("run", games, "--ratings", ratings, "--period", "2025-10")
    assert cli(*args, "--out", local).exit_code == 0

    result = cli(*args, "--out", on_spark, "--engine", "spark", "--spark-master", "local[2]")

    assert result.exit_code == 0, result.output
    for table in ("ratings", "audit", "rejected"):
        name = f"{table}/period=2025-10/part-0.parquet"
        assert (on_spark / name).read_bytes() == (local / name).read_bytes(), table
    later = on_spark / "ratings" / "period=2025-11"
    later.mkdir(parents=True)
    (later / "part-0.parquet").write_bytes((local / "ratings/period=2025-10/part-0.parquet").read_bytes())
    assert cli(*args, "--out", on_spark, "--engine", "spark").exit_code == 0
    assert (later / "part-0.parquet").exists()  # the other period is kept


def test_cli_engine_spark_gives_a_ragged_rows_raw_from_its_own_fields_as_the_local_engine(cli, spark, tmp_path) -> None:
    """A CSV file's ragged rows on Spark (each file read on an executor by the library's reader): the
    rejected rows the local engine writes, byte for byte, each ``raw`` of the fields its row has."""
    games = tmp_path / "games.csv"
    games.write_text(
        "white_id,black_id,result,date,note\n30953499,24125890,1-0,2025-10-03\n"
        "30953499,24125890,0-1,2025-10-04,x,y\n30953499,24125890,1-0,2025-10-05,z\n"
    )
    args = ("run", games, "--ratings", SAMPLE / "ratings-2025-10.csv", "--period", "2025-10", "--max-rejected", "100%")
    assert cli(*args, "--out", tmp_path / "local").exit_code == 0

    result = cli(*args, "--out", tmp_path / "spark", "--engine", "spark", "--spark-master", "local[2]")

    assert result.exit_code == 0, result.output
    name = "rejected/period=2025-10/part-0.parquet"
    assert (tmp_path / "spark" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    raws = [json.loads(raw) for raw in pl.read_parquet(tmp_path / "spark" / name)["raw"]]
    assert raws == [
        {"white_id": "30953499", "black_id": "24125890", "result": "1-0", "date": "2025-10-03"},
        {"white_id": "30953499", "black_id": "24125890", "result": "0-1", "date": "2025-10-04", "note": "x", "#6": "y"},
    ]


def test_cli_spark_master_needs_the_spark_engine(cli, tmp_path: Path) -> None:
    result = cli("run", SAMPLE / "us-championship-2025-games.csv", "--period", "2025-10", "--spark-master", "local[2]",
                 "--out", tmp_path / "out")  # fmt: skip
    assert result.exit_code == 2
    assert "--engine spark" in result.output


def test_executors_without_elo_batch_are_a_clear_error(tmp_path: Path) -> None:
    """Python workers import elo-batch from their own environment, never the driver's sys.path: a worker
    Python without it (here: the same Python with its site packages but elo-batch's, and no .pth files,
    as PYSPARK_PYTHON) makes an error that says so."""
    if MISSING is not None and not IN_CI:
        pytest.skip(MISSING)
    import polars
    import pyspark

    installed = Path(pyspark.__file__).parent.parent
    assert Path(polars.__file__).parent.parent == installed
    # the site packages without elo-batch, whether it is installed there (pip install .) or editable
    site = tmp_path / "site-packages"
    site.mkdir()
    for entry in installed.iterdir():
        if not entry.name.startswith(("elo_batch", "elo-batch", "__editable__")):
            (site / entry.name).symlink_to(entry)
    worker = tmp_path / "python-without-elo-batch"
    worker.write_text(f'#!/bin/sh\nPYTHONPATH={shlex.quote(str(site))} exec {shlex.quote(sys.executable)} -S "$@"\n')
    worker.chmod(0o755)
    script = textwrap.dedent(
        """
        import polars as pl
        from pyspark.sql import SparkSession
        from elo_batch import spark as engine
        from elo_batch.errors import UsageError
        spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
        spark.sparkContext.setLogLevel("OFF")
        games = spark.createDataFrame(pl.DataFrame({"white_id": ["A"], "black_id": ["B"], "result": ["1-0"],
                                                    "date": ["2025-11-03"]}).to_arrow())
        try:
            engine.rate_period(games, period="2025-11")
        except UsageError as exc:
            print("ERROR:", exc)
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(small_jobs_env(), PYSPARK_PYTHON=str(worker))

    done = subprocess.run(  # not in the checkout: a worker's Python would import elo_batch from its folder
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path
    )

    assert "ERROR: the Spark executors cannot import elo_batch" in done.stdout, done.stdout + done.stderr[-3000:]


def test_without_pyspark_the_spark_engine_says_how_to_install_it(cli, tmp_path: Path, monkeypatch) -> None:
    from elo_batch.sparkengine import _api

    found = _api.importlib.util.find_spec
    monkeypatch.setattr(_api.importlib.util, "find_spec", lambda name: None if name == "pyspark" else found(name))
    games = SAMPLE / "us-championship-2025-games.csv"

    result = cli("run", games, "--period", "2025-10", "--engine", "spark", "--out", tmp_path / "out")

    assert result.exit_code == 2
    assert "the Spark engine needs pyspark" in result.output and "pip install 'elo-batch[spark]'" in result.output
    assert not (tmp_path / "out").exists()  # refused before the lock and the inputs


def test_float_sums_are_the_local_engines_bit_for_bit(spark, monkeypatch) -> None:
    """Logistic formula and fractional ratings: every floating-point sum (PD, score - PD, the opponents'
    ratings) is the local engine's bit for bit, rows spread over partitions and the period table in
    blocks of 7 rows of the engine's fixed order (so the order crosses blocks and partitions)."""
    from elo_batch import spark as engine
    from elo_batch.engine import period as local_period
    from elo_batch.engine import sums as sums_kernel
    from elo_batch.sparkengine import _period as spark_period

    monkeypatch.setattr(local_period, "_SUM_ROWS", 7)  # the local engine's block, and the Spark engine's:
    monkeypatch.setattr(sums_kernel, "SUM_ROWS", 7)
    sums: dict[str, pl.DataFrame] = {}

    def keep(name: str, finalize):
        def kept(prepared, totals, *args, **kwargs):
            sums[name] = totals.players
            return finalize(prepared, totals, *args, **kwargs)

        return kept

    monkeypatch.setattr(local_period, "finalize", keep("local", local_period.finalize))
    monkeypatch.setattr(spark_period, "finalize", keep("spark", spark_period.finalize))
    players = [f"P{n}" for n in range(7)]
    results = ["1-0", "0-1", "1/2-1/2"]
    rows = [
        {"white_id": players[i % 7], "black_id": players[(i * 3 + 1 + i // 7) % 7], "result": results[i % 3],
         "date": f"2025-11-{1 + i % 28:02d}"}
        for i in range(150)
    ]  # fmt: skip
    games = pl.DataFrame(rows).filter(pl.col("white_id") != pl.col("black_id"))
    ratings = pl.DataFrame({"player_id": players, "rating": [1834.37 + 97.13 * n for n in range(7)], "k": [20] * 7})
    options = {"rules": "elo", "k": 20, "rounding": "none"}
    want = elo_batch.rate_period(games, period="2025-11", ratings=ratings, **options)  # type: ignore[arg-type]

    got = engine.rate_period(spark_frame(spark, games, 4), period="2025-11", ratings=ratings, **options)  # type: ignore[arg-type]

    assert_same(got, want)
    assert sums["spark"].equals(sums["local"]), (sums["spark"], sums["local"])


@pytest.mark.parametrize(
    "name", ["fide-event-period-given", "fide-event-start-list-range", "history-2022-upgrade-once-per-event"]
)
def test_cli_engine_spark_with_events_and_every_option(name: str, cli, spark, tmp_path: Path) -> None:
    """``--engine spark`` on golden cases with an events file, event attributes on the game rows, a range
    by event, the 2022 rules: every table of every period the local engine's, byte for byte."""
    case = TESTS / "golden" / name
    args = shlex.split((case / "args").read_text())
    events = ["--events", case / "events.csv"] if (case / "events.csv").exists() else []
    command = ("run", case / "games.csv", "--ratings", case / "ratings.csv", *events, *args)
    assert cli(*command, "--out", tmp_path / "local").exit_code == 0

    result = cli(*command, "--out", tmp_path / "spark", "--engine", "spark")

    assert result.exit_code == 0, result.output
    written = sorted(p.relative_to(tmp_path / "local") for p in (tmp_path / "local").rglob("*.parquet"))
    assert written and written == sorted(
        p.relative_to(tmp_path / "spark") for p in (tmp_path / "spark").rglob("*.parquet")
    )
    for path in written:
        assert (tmp_path / "spark" / path).read_bytes() == (tmp_path / "local" / path).read_bytes(), path


def test_chunk_rows_is_refused_naming_the_option(cli, tmp_path: Path) -> None:
    """Spark's partitions are the chunks: ``chunk_rows`` (``--chunk-rows``) is a usage error naming it,
    raised before any Spark job (the API) and before the lock and the inputs (the CLI, exit 2)."""
    from elo_batch import spark as engine
    from elo_batch.errors import UsageError

    with pytest.raises(UsageError, match="chunk_rows does not apply to the Spark engine") as raised:
        engine.rate_period(None, period="2025-10", chunk_rows=1000)  # type: ignore[arg-type]
    assert raised.value.exit_code == 2 and raised.value.option == "chunk_rows"
    games = SAMPLE / "us-championship-2025-games.csv"

    result = cli(
        "run", games, "--period", "2025-10", "--engine", "spark", "--chunk-rows", "1000", "--out", tmp_path / "o"
    )

    assert result.exit_code == 2 and "--chunk-rows does not apply to the Spark engine" in result.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("given", "name", "message"),
    [
        ({"engine": "dask"}, "engine", "'dask' is not an engine"),
        ({"spark_master": "local[2]"}, "spark_master", "spark_master is an option of the Spark engine"),
        ({"engine": "spark", "chunk_rows": 1000}, "chunk_rows", "chunk_rows does not apply to the Spark engine"),
    ],
)
def test_run_checks_the_engine_options_before_the_lock(given, name: str, message: str, tmp_path: Path) -> None:
    """``elo_batch.run``'s ``engine`` and ``spark_master``: a usage error naming the parameter, before
    the lock of ``out`` and the inputs (no Spark session started)."""
    from elo_batch.errors import UsageError

    with pytest.raises(UsageError, match=message) as raised:
        elo_batch.run(SAMPLE / "us-championship-2025-games.csv", period="2025-10", out=tmp_path / "o", **given)

    assert raised.value.option == name and raised.value.exit_code == 2
    assert not (tmp_path / "o").exists()


def test_run_on_spark_refuses_a_games_frame(tmp_path: Path) -> None:
    """A frame in the driver's memory is not read by Spark: said, never dropped (which rated nothing)."""
    from elo_batch.errors import UsageError

    games = pl.read_csv(SAMPLE / "us-championship-2025-games.csv", infer_schema=False)

    with pytest.raises(UsageError, match="engine='spark' reads game files, not a frame in memory"):
        elo_batch.run(games, period="2025-10", out=tmp_path / "o", engine="spark")
    assert not (tmp_path / "o").exists()
