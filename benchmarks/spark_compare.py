#!/usr/bin/env python3
"""Rate the same games with the local engine and the Spark engine; report the differences, time and memory.

Usage: python benchmarks/spark_compare.py [--games 2000000] [--players 200000] [--master local[2]]
                                          [--split-mb 4] [--driver-memory 2g]
                                          [--deloitte PATH | --no-deloitte] [--work DIR]

Two data sets, each rated by both engines in a process of its own (so that each one's memory is its
own: the peak of the resident memory of the process and everything it starts, the JVM and the Python
workers included, sampled every 0.2 s):

- synthetic: ``../shared/bench/make_games.py`` (N games among P players, one month, 2026-10, integer
  ids), with its list;
- Deloitte: the real range of ``scripts/convert_deloitte.py`` (88,457 games, 2025-10..2025-12, seed
  list), with bad rows added (a self-play row, an unknown result, an undated row, an exact repeat and a
  game_id reused with other content), rated as a range.

The local engine is ``elo-batch run`` (the CLI); the Spark engine is the Python API as a data team runs
it: ``spark.read.parquet`` (Spark's reader, its splits), :func:`elo_batch.spark.rate_periods`, then
:func:`elo_batch.spark.write_period` (the audit streamed partition by partition to the local writer).
Then every table of every period is compared: ``ratings`` exactly, ``audit`` and ``rejected`` row by
row in order (Spark's ``file:`` URIs read as the local paths). Prints one line per data set.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
DELOITTE = SHARED / "data" / "deloitte-fide-chess-rating-challenge-test" / "test.csv"


def tree_rss(pid: int) -> int:
    """Resident bytes of process ``pid`` and all its descendants (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(parent, []).append(int(entry))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        todo.extend(children.get(current, []))
        try:
            with open(f"/proc/{current}/status") as handle:
                for line in handle:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def measured(command: list[str]) -> tuple[float, int]:
    """Run ``command``; its wall time (s) and the peak resident memory of its process tree (bytes)."""
    started = time.perf_counter()
    process = subprocess.Popen(command)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss(process.pid))
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    code = process.wait()
    done.set()
    sampler.join()
    if code:
        raise SystemExit(f"{' '.join(command)} failed with exit code {code}")
    return time.perf_counter() - started, peak


def rate_on_spark(
    games: str, ratings: str, periods: str, out: str, master: str, split_mb: str, driver_memory: str
) -> None:
    """The Spark engine's run (in its own process): read with Spark, rate, write every period."""
    from pyspark.sql import SparkSession

    from elo_batch import spark as engine

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master(master)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", driver_memory)  # in local mode the one JVM: driver and executors
        .config("spark.sql.files.maxPartitionBytes", f"{split_mb}m")  # several tasks even for one file
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    frame = spark.read.parquet(games)
    for result in engine.rate_periods(frame, periods=periods, ratings=ratings):
        engine.write_period(result, out)
    spark.stop()


def differences(local: Path, on_spark: Path, periods: list[str], games: Path) -> dict[str, int]:
    """Rows that differ, per table, over the periods (0 everywhere: the same outputs)."""
    uri = "file://" + str(games.parent.resolve())

    def read(out: Path, table: str, period: str) -> pl.DataFrame:
        frame = pl.read_parquet(out / table / f"period={period}" / "part-0.parquet")
        text = pl.col(pl.String, pl.Categorical).cast(pl.String)
        return frame.with_columns(text.str.replace_all(uri, str(games.parent.resolve()), literal=True))

    found: dict[str, int] = {}
    for table in ("ratings", "audit", "rejected"):
        count = 0
        for period in periods:
            mine, theirs = read(local, table, period), read(on_spark, table, period)
            if mine.columns != theirs.columns or mine.height != theirs.height:
                count += max(mine.height, theirs.height, 1)
                continue
            same = pl.concat([mine.select(pl.all().name.prefix("a_")), theirs.select(pl.all().name.prefix("b_"))],
                             how="horizontal")  # fmt: skip
            differs = pl.any_horizontal(~pl.col(f"a_{name}").eq_missing(pl.col(f"b_{name}")) for name in mine.columns)
            count += same.filter(differs).height
        found[table] = count
    return found


def compare(
    name: str, games: Path, ratings: Path, periods: str, work: Path, master: str, split_mb: int, driver_memory: str
) -> dict[str, object]:
    local, on_spark = work / f"{name}-local", work / f"{name}-spark"
    cli = [sys.executable, "-c", "from elo_batch.cli.app import console; console()"]
    cli += [
        "run",
        str(games),
        "--ratings",
        str(ratings),
        "--period",
        periods,
        "--out",
        str(local),
        "--log-format",
        "json",
    ]
    local_s, local_rss = measured(cli)
    spark_s, spark_rss = measured(
        [
            sys.executable,
            __file__,
            "--spark-run",
            str(games),
            str(ratings),
            periods,
            str(on_spark),
            master,
            str(split_mb),
            driver_memory,
        ]
    )
    months = sorted(p.name.split("=")[1] for p in (local / "ratings").glob("period=*"))
    rows = pl.scan_parquet(games).select(pl.len()).collect().item()
    diff = differences(local, on_spark, months, games)
    report = {
        "data": name, "games": rows, "periods": periods, "differences": diff,
        "local": {"seconds": round(local_s, 1), "peak_rss_mb": round(local_rss / 2**20)},
        "spark": {"seconds": round(spark_s, 1), "peak_rss_mb": round(spark_rss / 2**20), "master": master,
                  "split_mb": split_mb, "driver_memory": driver_memory},
    }  # fmt: skip
    print(json.dumps(report), flush=True)
    return report


def deloitte(work: Path, source: Path) -> tuple[Path, Path]:
    """The Deloitte range with bad rows added, and its seed list (``scripts/convert_deloitte.py``)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import convert_deloitte

    games = convert_deloitte.convert(source)
    first = games.row(0, named=True)
    bad = pl.DataFrame(
        [
            {**first, "game_id": "bad-1", "black_id": first["white_id"]},  # a player against themselves
            {**first, "game_id": "bad-2", "result": "2-0"},  # not a result
            {**first, "game_id": "bad-3", "period": None},  # no date, no period
            dict(first),  # an exact repeat of the first game: counted once
            {**first, "result": "0-1" if first["result"] != "0-1" else "1-0"},  # its game_id, other content
        ],
        schema=games.schema,
    )
    games = pl.concat([games.head(40_000), bad, games.slice(40_000)])
    folder = work / "deloitte"
    folder.mkdir(parents=True, exist_ok=True)
    games.write_parquet(folder / "games.parquet", row_group_size=20_000)
    convert_deloitte.seed_list(games).write_parquet(work / "deloitte-ratings.parquet")
    return folder / "games.parquet", work / "deloitte-ratings.parquet"


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--spark-run":
        rate_on_spark(*sys.argv[2:9])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2_000_000)
    parser.add_argument("--players", type=int, default=200_000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--split-mb", type=int, default=4, help="spark.sql.files.maxPartitionBytes, in MB")
    parser.add_argument("--driver-memory", default="2g", help="spark.driver.memory (local mode: the one JVM)")
    parser.add_argument("--deloitte", type=Path, default=DELOITTE)
    parser.add_argument("--no-deloitte", action="store_true")
    parser.add_argument("--work", type=Path, default=None, help="working folder (default: a temporary one)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="spark-compare-"))
    work.mkdir(parents=True, exist_ok=True)
    reports = []
    if not args.no_deloitte and args.deloitte.exists():
        games, ratings = deloitte(work, args.deloitte)
        reports.append(
            compare(
                "deloitte", games, ratings, "2025-10..2025-12", work, args.master, args.split_mb, args.driver_memory
            )
        )
    if args.games:
        synthetic = work / "synthetic"
        synthetic.mkdir(exist_ok=True)
        subprocess.run([sys.executable, str(SHARED / "bench" / "make_games.py"), str(args.games), str(args.players),
                        str(synthetic)], check=True)  # fmt: skip
        reports.append(
            compare(
                "synthetic",
                synthetic / "games.parquet",
                synthetic / "ratings.parquet",
                "2026-10",
                work,
                args.master,
                args.split_mb,
                args.driver_memory,
            )
        )
    total = sum(sum(report["differences"].values()) for report in reports)  # type: ignore[union-attr]
    print(f"{total} differences in ratings, audit and rejected over {len(reports)} data set(s)")
    sys.exit(1 if total else 0)


if __name__ == "__main__":
    main()
