#!/usr/bin/env python3
"""Benchmark: elo-batch against the DuckDB SQL yardstick on synthetic FIDE rating periods.

Usage (from the repository root, with the ``bench`` extra installed: ``pip install -e '.[bench]'``)::

    python benchmarks/run.py --sizes 1M,10M --runs 2
    python benchmarks/run.py --sizes 100M --runs 1 --drop-data

For each size the period is generated once with ``../shared/bench/make_games.py`` (seeded) and cached
under ``bench-data/<size>/`` (git-ignored). Then ``elo-batch run`` (Parquet in, every output written)
and ``../shared/bench/duckdb_reference.py`` run on the same files alternately (A B A B ...), each in its
own process; the wall time and the peak resident memory of each process (``wait4``'s ``ru_maxrss``, as
``/usr/bin/time -v`` reports it) are recorded. After every pair the two new lists are compared: the same
``change``, ``k_used`` and ``games`` for every player, and one audit row per game side. A mismatch stops
the benchmark with exit status 1.

Prints one line per run and a summary per size (median wall time, ratio elo-batch / DuckDB, games per
second, peak memory), and appends the summary as JSON to ``bench-data/results.jsonl``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import compare_changes

ROOT = Path(__file__).resolve().parent.parent
PERIOD = "2026-10"
#: Games -> players of the standard sizes (issue 5).
PLAYERS = {1_000_000: 100_000, 10_000_000: 1_000_000, 100_000_000: 5_000_000}


def parse_size(text: str) -> tuple[int, int]:
    """``10M`` (players from PLAYERS) or ``2M:200k`` -> (games, players)."""

    def number(part: str) -> int:
        scale = {"k": 1_000, "m": 1_000_000}.get(part[-1].lower(), 1)
        return int(float(part[:-1] if scale > 1 else part) * scale)

    games_text, _, players_text = text.partition(":")
    games = number(games_text)
    players = number(players_text) if players_text else PLAYERS.get(games, max(games // 10, 10))
    return games, players


def memory_available_gb() -> float:
    with open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1e6
    return float("nan")


def generate(games: int, players: int, folder: Path, shared: Path) -> None:
    if (folder / "games.parquet").is_file() and (folder / "ratings.parquet").is_file():
        return
    folder.mkdir(parents=True, exist_ok=True)
    print(f"generating {games:,} games, {players:,} players -> {folder}", flush=True)
    subprocess.run(
        [sys.executable, str(shared / "bench" / "make_games.py"), str(games), str(players), str(folder)], check=True
    )


def measure(command: list[str]) -> tuple[float, float, str]:
    """Run ``command``; (wall seconds, peak RSS in GB, stderr). Raises on a non-zero exit."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{command[0]} exited {process.returncode}: {stderr[-2000:]}")
    return wall, usage.ru_maxrss * 1024 / 1e9, stderr


def check(elo_out: Path, duck_out: Path, games: int) -> list[str]:
    ours = pl.read_parquet(elo_out / "ratings" / f"period={PERIOD}" / "part-0.parquet")
    theirs = pl.read_parquet(duck_out / "ratings.parquet")
    problems = compare_changes(ours, theirs)
    audit_rows = pl.scan_parquet(elo_out / "audit" / f"period={PERIOD}" / "part-0.parquet").select(pl.len()).collect()
    yard_rows = pl.scan_parquet(duck_out / "audit.parquet").select(pl.len()).collect()
    if audit_rows.item() != 2 * games or yard_rows.item() != 2 * games:
        problems.append(
            f"audit rows: elo-batch {audit_rows.item():,}, yardstick {yard_rows.item():,}, games x 2 = {2 * games:,}"
        )
    return problems


def bench_size(label: str, games: int, players: int, args: argparse.Namespace) -> dict[str, object]:
    folder = args.data / label
    generate(games, players, folder, args.shared)
    games_file, list_file = folder / "games.parquet", folder / "ratings.parquet"
    elo = [str(Path(sys.executable).with_name("elo-batch")), "run", str(games_file), "--ratings", str(list_file)]
    elo += ["--period", PERIOD, *args.elo_args.split()]
    duck = [sys.executable, str(args.shared / "bench" / "duckdb_reference.py"), str(games_file), str(list_file), PERIOD]
    runs: dict[str, list[tuple[float, float]]] = {"elo-batch": [], "duckdb": []}
    scratch = args.data / "runs"
    for index in range(args.runs):
        elo_out, duck_out = scratch / "elo-batch", scratch / "duckdb"
        for path in (elo_out, duck_out):
            shutil.rmtree(path, ignore_errors=True)
        for tool, command in (("elo-batch", [*elo, "--out", str(elo_out)]), ("duckdb", [*duck, str(duck_out)])):
            wall, peak, _ = measure(command)
            runs[tool].append((wall, peak))
            rate = games / wall / 1e6
            print(
                f"{label:>6} run {index + 1} {tool:<9} {wall:8.2f} s {peak:7.2f} GB {rate:7.2f} M games/s", flush=True
            )
        problems = check(elo_out, duck_out, games)
        if problems:
            print(f"{label}: elo-batch and the yardstick differ:\n  " + "\n  ".join(problems), flush=True)
            sys.exit(1)
        shutil.rmtree(scratch, ignore_errors=True)
    if args.drop_data:
        shutil.rmtree(folder, ignore_errors=True)
    elo_wall = statistics.median(w for w, _ in runs["elo-batch"])
    duck_wall = statistics.median(w for w, _ in runs["duckdb"])
    summary: dict[str, object] = {
        "size": label,
        "games": games,
        "players": players,
        "runs": args.runs,
        "elo_batch_s": round(elo_wall, 2),
        "duckdb_s": round(duck_wall, 2),
        "ratio": round(elo_wall / duck_wall, 2),
        "elo_batch_games_per_s": round(games / elo_wall),
        "duckdb_games_per_s": round(games / duck_wall),
        "elo_batch_peak_gb": round(max(p for _, p in runs["elo-batch"]), 2),
        "duckdb_peak_gb": round(max(p for _, p in runs["duckdb"]), 2),
        "same_change_every_player": True,
        "elo_args": args.elo_args,
        "cpus": os.cpu_count(),
        "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    print(
        f"{label:>6} summary: elo-batch {elo_wall:.2f} s, DuckDB {duck_wall:.2f} s, ratio {elo_wall / duck_wall:.2f}; "
        f"{games / elo_wall / 1e6:.2f} vs {games / duck_wall / 1e6:.2f} M games/s; peak "
        f"{summary['elo_batch_peak_gb']} vs {summary['duckdb_peak_gb']} GB; same change for every player",
        flush=True,
    )
    with open(args.data / "results.jsonl", "a") as handle:
        handle.write(json.dumps(summary) + "\n")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1M,10M", help="comma-separated: 1M, 10M, 100M, or GAMES:PLAYERS")
    parser.add_argument("--runs", type=int, default=2, help="runs of each tool per size (alternating)")
    parser.add_argument("--data", type=Path, default=ROOT / "bench-data", help="cache of generated periods")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared", help="the shared folder")
    parser.add_argument("--elo-args", default="", help="extra options for elo-batch run")
    parser.add_argument("--drop-data", action="store_true", help="delete each generated period after it is measured")
    args = parser.parse_args()
    args.data.mkdir(parents=True, exist_ok=True)
    print(f"{os.cpu_count()} CPUs, {memory_available_gb():.1f} GB memory available", flush=True)
    for label in args.sizes.split(","):
        games, players = parse_size(label.strip())
        bench_size(label.strip(), games, players, args)


if __name__ == "__main__":
    main()
