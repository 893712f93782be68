"""The two engines as the tests rate with them, through the public API: the local engine
(:func:`elo_batch.rate_periods`) and the Spark engine (:func:`elo_batch.spark.rate_periods`, the games as
a Spark frame), every period's tables checked against the published schemas (:func:`valid`); a golden
case's ``args`` as the API's keywords; the local Spark session.

The Spark engine needs pyspark (``pip install 'elo-batch[spark]'``) and Java 17+: :data:`MISSING` says
which is missing. Its tests skip with that reason, except in CI (``CI=true``), where they fail instead.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import shlex
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import elo_batch
from elo_batch.apiargs import OPTIONS
from elo_batch.schemas import SCHEMAS


def _missing() -> str | None:
    for name in ("pyspark", "pandas"):
        if importlib.util.find_spec(name) is None:
            return f"{name} is not installed (pip install 'elo-batch[spark]')"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "Java is not installed (Spark needs Java 17 or newer)"
    return None


#: Why the Spark engine cannot run here (None: it can).
MISSING = _missing()
#: CI runs every test: a Spark test fails there rather than skip.
IN_CI = os.environ.get("CI") == "true"


def needs_spark() -> None:
    """Skip the calling test, with the reason, where the Spark engine cannot run; in CI fail instead."""
    if MISSING is None:
        return
    if IN_CI:
        pytest.fail(f"CI runs the Spark tests, but {MISSING}")
    pytest.skip(f"Spark tests skipped: {MISSING}")


#: The test session's settings for jobs of a few rows, where the JVM's compilers, not the rows, take the
#: time. Measured on 2 cores, a session start and two passes over six golden cases: 67 CPU seconds with
#: Spark's defaults, 35 with these; the second pass (Spark warm) 12.1 s and 9.9 s. A CPU-bound test run
#: pays it twice (one JVM per test worker). The benchmarks keep Spark's defaults.
SMALL_JOBS = {
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.adaptive.enabled": "false",  # small jobs: planning them again costs more than it saves
    # The JIT's C1 compiler only: C2 spent 42 of 47 CPU seconds compiling code that runs a few rows.
    "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1",
    # Catalyst's interpreted expressions and operators, not Janino-compiled classes (factoryMode is an
    # internal setting Spark's own test suites use to run both modes; results are the same by Spark's
    # contract, and the benchmarks run the compiled one).
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
}


def small_jobs_env() -> dict[str, str]:
    """The environment that gives a Spark session of another process :data:`SMALL_JOBS`: its settings as
    the ``--conf`` arguments of ``PYSPARK_SUBMIT_ARGS`` (the JVM's launch reads them)."""
    settings = " ".join(f"--conf {key}={value}" for key, value in SMALL_JOBS.items())
    return {"PYSPARK_SUBMIT_ARGS": f"{settings} pyspark-shell"}


def spark_session() -> Iterator[Any]:
    """One local Spark session, ``local[2]``, set for small jobs (:data:`SMALL_JOBS`; Spark starts in
    about 4 s); stopped when the generator is closed."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the workers' Python: this one (with elo-batch)
    builder = SparkSession.builder.master("local[2]").appName("elo-batch-tests")
    for key, value in SMALL_JOBS.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def valid(table: str, frame: pl.DataFrame) -> pl.DataFrame:
    """``frame``, after checking it against the published schema of ``table`` (``ratings``, ``audit``,
    ``rejected``: :data:`elo_batch.schemas.SCHEMAS`); dataframely's ValidationError or SchemaError names
    the rules that failed."""
    SCHEMAS[table].validate(frame)
    return frame


def valid_result(result: elo_batch.PeriodResult) -> elo_batch.PeriodResult:
    """``result`` (the API's, or a Spark result's ``local``), after checking its three tables."""
    valid("ratings", result.ratings)
    valid("audit", result.audit.collect())
    valid("rejected", result.rejected)
    return result


def assert_same(got: Any, want: elo_batch.PeriodResult) -> None:
    """A period rated on Spark is the local engine's: the new list, the audit, the rejected rows, counts."""
    assert got.counts == want.counts
    assert got.local.ratings.equals(want.ratings), (got.local.ratings, want.ratings)
    assert got.local.audit.collect().equals(want.audit.collect())
    assert got.local.rejected.equals(want.rejected), (got.local.rejected, want.rejected)
    assert got.warnings == want.warnings
    assert got.audit_rows == want.audit_rows


def spark_frame(spark: Any, frame: pl.DataFrame, partitions: int = 3) -> Any:
    """``frame`` as a Spark frame of ``partitions`` partitions, rows in the same order."""
    indexed = frame.with_row_index("__i").with_columns(pl.col("__i").cast(pl.Int64))
    return (
        spark.createDataFrame(indexed.to_arrow())
        .repartitionByRange(partitions, "__i")
        .sortWithinPartitions("__i")
        .drop("__i")
    )


# --- a golden case (tests/golden/<case>/) through the API -------------------------------------------

#: The CLI flags whose API keyword is not the flag without dashes (interface.md names ``list_kind``;
#: ``--period`` takes a range, as ``rate_periods``' ``periods``).
_KEYWORDS = {"list": "list_kind", "period": "periods"}
#: The CLI's flags that take no value, as keyword and value.
_SWITCHES: dict[str, tuple[str, object]] = {"--no-700-rule": ("rule_700", False), "--strict": ("strict", True)}


def golden_options(case: Path) -> dict[str, object]:
    """A golden case's ``args`` as the keywords of ``rate_periods``, its ``events.csv`` (text) as ``events``.

    ``--FLAG VALUE`` is ``FLAG=VALUE`` (dashes inside as underscores, ``--k`` an int); the switches
    ``--no-700-rule`` and ``--strict`` are ``rule_700=False`` and ``strict=True``.

    Raises:
        ValueError: a flag that has no keyword in the API (the case cannot be expressed through it).
    """
    args = shlex.split((case / "args").read_text())
    options: dict[str, object] = {}
    while args:
        flag = args.pop(0)
        if flag in _SWITCHES:
            name, value = _SWITCHES[flag]
        else:
            name = flag.removeprefix("--").replace("-", "_")
            name, value = _KEYWORDS.get(name, name), args.pop(0)
        if name not in (*OPTIONS, "rules", "periods"):
            raise ValueError(f"{case.name}: {flag} has no keyword in the API ({name!r})")
        options[name] = int(value) if name == "k" else value  # type: ignore[call-overload]
    if (case / "events.csv").exists():
        options["events"] = pl.read_csv(case / "events.csv", infer_schema=False)
    return options


def golden_inputs(case: Path) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """A golden case's games and list (None when it has none), read as text, as a CSV file is read."""
    games = pl.read_csv(case / "games.csv", infer_schema=False)
    ratings = pl.read_csv(case / "ratings.csv", infer_schema=False) if (case / "ratings.csv").exists() else None
    return games, ratings


# --- the engines ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rated:
    """One period as an engine returned it: ``ratings`` the new list as a polars frame (for Spark: its
    public Spark frame, collected through Arrow), ``result`` the engine's own result."""

    period: str
    ratings: pl.DataFrame
    result: Any


class Local:
    """The local engine: :func:`elo_batch.rate_periods`."""

    name = "local"

    def __call__(self, games: pl.DataFrame, **options: Any) -> list[Rated]:
        return [Rated(r.period, r.ratings, valid_result(r)) for r in elo_batch.rate_periods(games, **options)]


class OnSpark:
    """The Spark engine: :func:`elo_batch.spark.rate_periods`, the games as a Spark frame of two
    partitions (the list and events as polars frames, as the API takes them)."""

    name = "spark"

    def __init__(self, spark: Any) -> None:
        self.spark = spark

    def __call__(self, games: pl.DataFrame, **options: Any) -> list[Rated]:
        from elo_batch import spark as engine

        results = [_audit_collected(r) for r in engine.rate_periods(spark_frame(self.spark, games, 2), **options)]
        rated = [Rated(r.period, pl.from_arrow(r.ratings.toArrow()), r) for r in results]  # type: ignore[arg-type]
        for one in rated:
            valid_result(one.result.local)
            valid("ratings", one.ratings)  # the public Spark frame, as Arrow hands it over
        return rated


def _audit_collected(result: Any) -> Any:
    """A Spark result whose ``local.audit`` is its rows collected once, so that each check of a test reads
    them without running Spark's audit jobs again (``local.audit`` is a plan read from Spark batch by
    batch: every collect runs its jobs)."""
    local = dataclasses.replace(result.local, audit=result.local.audit.collect().lazy())
    return dataclasses.replace(result, local=local)


Engine = Local | OnSpark
