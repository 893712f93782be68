#!/usr/bin/env python3
"""Where a Spark run's time goes: one period rated and written by the Spark engine, each Spark job named
by the engine's step that ran it, from Spark's own event log.

Usage: python benchmarks/spark_profile.py DIR [--period 2026-10] [--master local[2]] [--split-mb 4]
                                          [--driver-memory 2g]

``DIR`` holds ``games.parquet`` and ``ratings.parquet`` (``../shared/bench/make_games.py N P DIR``). The
run is the Python API as a data team runs it (``spark.read.parquet``, :func:`elo_batch.spark.rate_period`,
:func:`elo_batch.spark.write_period`), with Spark's event log on. Each job the engine starts is named by
the engine's functions that collected it (the chain of callers of ``_arrow.from_spark``, or the audit's
stream); a step's later jobs carry its name too. Printed: one line per job (start, wall time, tasks,
task time, JVM CPU time, shuffle bytes written, result bytes sent to the driver), then the sum per step
and the run's totals, among them the task time per game (the ``c`` of docs/scale.md).
"""

from __future__ import annotations

import argparse
import collections
import inspect
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--period", default="2026-10")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--split-mb", type=int, default=4, help="spark.sql.files.maxPartitionBytes, in MB")
    parser.add_argument("--driver-memory", default="2g")
    args = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="spark-events-"))
    started, seconds = run(args, logs)
    jobs = read_log(next(logs.glob("*")))
    report(jobs, games=count_games(args.dir / "games.parquet"), seconds=seconds, started=started)


def run(args: argparse.Namespace, logs: Path) -> tuple[float, float]:
    """Rate and write the period with the event log on; the session's start (s) and the run's (s)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    begun = time.perf_counter()
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(args.master)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.sql.files.maxPartitionBytes", f"{args.split_mb}m")
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", logs.as_uri())
        .config("spark.eventLog.compress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    from elo_batch import spark as engine
    from elo_batch.sparkengine import _arrow

    name_jobs(_arrow, spark)
    start = time.perf_counter() - begun
    frame = spark.read.parquet(str(args.dir / "games.parquet"))
    began = time.perf_counter()
    result = engine.rate_period(frame, period=args.period, ratings=str(args.dir / "ratings.parquet"))
    engine.write_period(result, tempfile.mkdtemp(prefix="spark-profile-out-"))
    seconds = time.perf_counter() - began
    spark.stop()
    return start, seconds


def name_jobs(arrow: Any, spark: Any) -> None:
    """Name each job by the engine's functions that start it (three callers of the collecting function)."""

    def named(function: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            callers = [frame.function for frame in inspect.stack()[1:4]]
            spark.sparkContext.setJobDescription(" < ".join(callers))
            return function(*args, **kwargs)

        return wrapper

    arrow.from_spark = named(arrow.from_spark)
    arrow.driver_batches = named(arrow.driver_batches)


def read_log(path: Path) -> list[dict[str, Any]]:
    """The jobs of an (uncompressed) event log: name, start, wall time and their stages' task metrics."""
    files = sorted(path.glob("events_*")) if path.is_dir() else [path]
    jobs: dict[int, dict[str, Any]] = {}
    stage_job: dict[int, int] = {}
    for file in files:
        with file.open() as lines:
            for event in map(json.loads, lines):
                kind = event["Event"]
                if kind == "SparkListenerJobStart":
                    properties = event.get("Properties") or {}
                    name = properties.get("spark.job.description") or properties.get("callSite.short", "")
                    jobs[event["Job ID"]] = {"start": event["Submission Time"], "name": name}
                    stage_job.update(dict.fromkeys(event["Stage IDs"], event["Job ID"]))
                elif kind == "SparkListenerJobEnd":
                    jobs[event["Job ID"]]["end"] = event["Completion Time"]
                elif kind == "SparkListenerTaskEnd" and event["Stage ID"] in stage_job:
                    add_task(jobs[stage_job[event["Stage ID"]]], event.get("Task Metrics") or {})
    return [jobs[number] for number in sorted(jobs)]


def add_task(job: dict[str, Any], metrics: dict[str, Any]) -> None:
    job["tasks"] = job.get("tasks", 0) + 1
    job["run_ms"] = job.get("run_ms", 0) + metrics.get("Executor Run Time", 0)
    job["cpu_ms"] = job.get("cpu_ms", 0) + metrics.get("Executor CPU Time", 0) / 1e6
    job["shuffle"] = job.get("shuffle", 0) + (metrics.get("Shuffle Write Metrics") or {}).get(
        "Shuffle Bytes Written", 0
    )
    job["result"] = job.get("result", 0) + metrics.get("Result Size", 0)


def report(jobs: list[dict[str, Any]], *, games: int, seconds: float, started: float) -> None:
    first = min(job["start"] for job in jobs)
    steps: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    print(f"{'job':>4} {'at s':>7} {'wall s':>7} {'tasks':>5} {'task s':>7} {'cpu s':>6} {'shuffle MB':>10} "
          f"{'result MB':>9}  step")  # fmt: skip
    for number, job in enumerate(jobs):
        wall = (job.get("end", job["start"]) - job["start"]) / 1000
        print(f"{number:>4} {(job['start'] - first) / 1000:>7.1f} {wall:>7.2f} {job.get('tasks', 0):>5} "
              f"{job.get('run_ms', 0) / 1000:>7.2f} {job.get('cpu_ms', 0) / 1000:>6.2f} "
              f"{job.get('shuffle', 0) / 1e6:>10.1f} {job.get('result', 0) / 1e6:>9.1f}  {job['name']}")  # fmt: skip
        step = steps[job["name"].split(" < ")[0] or "spark.read"]
        step.update(jobs=1, wall=wall, task=job.get("run_ms", 0) / 1000)
    print("\nper step (the collecting function): jobs, wall s, task s")
    for name, step in steps.items():
        print(f"  {name:<24} {step['jobs']:>3} {step['wall']:>7.2f} {step['task']:>7.2f}")
    task = sum(job.get("run_ms", 0) for job in jobs) / 1000
    wall = sum((job.get("end", job["start"]) - job["start"]) / 1000 for job in jobs)
    between = seconds - wall
    print(f"\nsession start {started:.1f} s; rate and write {seconds:.1f} s; {len(jobs)} jobs, {wall:.1f} s in jobs, "
          f"{between:.1f} s between them; task time {task:.1f} s = {task / games * 1e6:.0f} µs a game")  # fmt: skip


def count_games(path: Path) -> int:
    import polars as pl

    return int(pl.scan_parquet(path).select(pl.len()).collect().item())


if __name__ == "__main__":
    main()
