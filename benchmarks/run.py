#!/usr/bin/env python3
"""Benchmark: elo-batch against the DuckDB SQL yardstick on synthetic FIDE rating periods.

Usage (from the repository root, with the ``bench`` extra installed: ``pip install -e '.[bench]'``)::

    python benchmarks/run.py                      # the list-heavy shape, 1M and 10M games, 5 runs each
    python benchmarks/run.py --sizes 200k:1.6M,1M --runs 3
    python benchmarks/run.py --sizes 100M --runs 3 --drop-data

Shapes (``--sizes``, comma-separated): ``GAMES`` with the standard players (``1M``: 100k, ``10M``: 1M,
``100M``: 5M), or ``GAMES:PLAYERS``. The default is a federation's monthly job, a few hundred thousand
games against a FIDE-sized list (``200k:1.6M``: most listed players do not play), then 1M and 10M.

For each shape the period is generated once with ``../shared/bench/make_games.py`` (seeded) and cached
under ``bench-data/<shape>/`` (git-ignored). elo-batch's modules are byte-compiled, as ``pip install``
leaves them. Then ``elo-batch run`` (Parquet in, every output written) and
``../shared/bench/duckdb_reference.py`` run on the same files alternately (A B A B ...), each in its
own process; the wall time and the peak resident memory of each process (``wait4``'s ``ru_maxrss``, as
``/usr/bin/time -v`` reports it) are recorded. After every pair the two new lists are compared: every
listed player in both, with the same ``games``, ``change`` and ``k_used`` (0, 0 and none for a player who
did not play), and one audit row per game side. A mismatch stops the benchmark with exit status 1.

Prints one line per run, then one table (median wall time of each tool, the ratio elo-batch / DuckDB
with its target, peak memory of each, games per second), and appends each shape's summary as JSON to
``bench-data/results.jsonl``.
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

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PERIOD = "2026-10"
#: Games -> players of the standard sizes (issue 5).
PLAYERS = {1_000_000: 100_000, 10_000_000: 1_000_000, 100_000_000: 5_000_000}
#: The shapes measured by default: the list-heavy monthly job, then the standard sizes.
DEFAULT_SIZES = "200k:1.6M,1M,10M"
#: (games, players) -> (most time, most peak memory) as ratios to the yardstick, and the most peak GB
#: (issue 13); None: no target.
TARGETS: dict[tuple[int, int], tuple[float, float | None, float | None]] = {
    (200_000, 1_600_000): (1.0, 1.5, None),
    (1_000_000, 100_000): (1.0, None, None),
    (10_000_000, 1_000_000): (0.6, None, None),
    (100_000_000, 5_000_000): (0.7, None, 12.0),
}


def parse_size(text: str) -> tuple[int, int]:
    """``10M`` (players from PLAYERS) or ``2M:200k`` -> (games, players)."""

    def number(part: str) -> int:
        scale = {"k": 1_000, "m": 1_000_000}.get(part[-1].lower(), 1)
        return int(float(part[:-1] if scale > 1 else part) * scale)

    games_text, _, players_text = text.partition(":")  # "200k:1.6M"
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
    """What differs between the two runs' outputs (``compare.py``, in a process of its own: this process
    stays small, since a child's peak memory counts the pages of the process it was forked from)."""
    ours = elo_out / "ratings" / f"period={PERIOD}" / "part-0.parquet"
    audit = elo_out / "audit" / f"period={PERIOD}" / "part-0.parquet"
    command = [sys.executable, str(HERE / "compare.py"), str(ours), str(audit), str(duck_out), str(games)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        return [f"compare.py exited {done.returncode}: {done.stderr[-2000:]}"]
    return done.stdout.splitlines()


def bench_size(label: str, games: int, players: int, args: argparse.Namespace) -> dict[str, object]:
    folder = args.data / label.replace(":", "-")  # 200k:1.6M -> bench-data/200k-1.6M
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
                f"{label:>9} run {index + 1} {tool:<9} {wall:8.2f} s {peak:7.2f} GB {rate:7.2f} M games/s", flush=True
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
        "elo_batch_peak_gb": round(max(p for _, p in runs["elo-batch"]), 3),
        "duckdb_peak_gb": round(max(p for _, p in runs["duckdb"]), 3),
        "elo_batch_runs_s": [round(w, 3) for w, _ in runs["elo-batch"]],
        "duckdb_runs_s": [round(w, 3) for w, _ in runs["duckdb"]],
        "same_change_every_player": True,
        "targets": _targets(games, players),
        "elo_args": args.elo_args,
        "cpus": os.cpu_count(),
        "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    print(
        f"{label:>9} summary: elo-batch {elo_wall:.2f} s, DuckDB {duck_wall:.2f} s, ratio {elo_wall / duck_wall:.2f}; "
        f"{games / elo_wall / 1e6:.2f} vs {games / duck_wall / 1e6:.2f} M games/s; peak "
        f"{summary['elo_batch_peak_gb']} vs {summary['duckdb_peak_gb']} GB; same change for every player; "
        f"targets: {verdict(summary)}",
        flush=True,
    )
    with open(args.data / "results.jsonl", "a") as handle:
        handle.write(json.dumps(summary) + "\n")
    return summary


def _targets(games: int, players: int) -> dict[str, float] | None:
    target = TARGETS.get((games, players))
    if target is None:
        return None
    time_ratio, memory_ratio, peak_gb = target
    named = {"time_ratio": time_ratio, "memory_ratio": memory_ratio, "peak_gb": peak_gb}
    return {name: value for name, value in named.items() if value is not None}


def verdict(summary: dict[str, object]) -> str:
    """``met`` / ``MISSED (...)`` against the shape's targets, or ``-`` for a shape without any."""
    targets = summary["targets"]
    if not isinstance(targets, dict):
        return "-"
    elo_peak, duck_peak = float(summary["elo_batch_peak_gb"]), float(summary["duckdb_peak_gb"])  # type: ignore[arg-type]
    missed = []
    if float(summary["ratio"]) > targets["time_ratio"]:  # type: ignore[arg-type]
        missed.append(f"time > {targets['time_ratio']}x")
    if "memory_ratio" in targets and elo_peak > targets["memory_ratio"] * duck_peak:
        missed.append(f"memory > {targets['memory_ratio']}x")
    if "peak_gb" in targets and elo_peak > targets["peak_gb"]:
        missed.append(f"peak > {targets['peak_gb']} GB")
    return "met" if not missed else "MISSED (" + ", ".join(missed) + ")"


def table(summaries: list[dict[str, object]]) -> str:
    """The summaries as one Markdown table (the README's "Speed and scale" table)."""

    def target(summary: dict[str, object]) -> str:
        targets = summary["targets"]
        if not isinstance(targets, dict):
            return "-"
        parts = [f"<= {targets['time_ratio']}x"]
        if "memory_ratio" in targets:
            parts.append(f"memory <= {targets['memory_ratio']}x")
        if "peak_gb" in targets:
            parts.append(f"< {targets['peak_gb']:g} GB")
        return ", ".join(parts)

    lines = [
        "| shape | elo-batch | DuckDB yardstick | ratio (target) | peak memory | M games/s | |",
        "|---|---|---|---|---|---|---|",
    ]
    for summary in summaries:
        games, players = int(summary["games"]), int(summary["players"])  # type: ignore[call-overload]
        elo_s, duck_s = float(summary["elo_batch_s"]), float(summary["duckdb_s"])  # type: ignore[arg-type]
        lines.append(
            f"| {games:,} games, {players:,} players | {elo_s:.2f} s | {duck_s:.2f} s | "
            f"{float(summary['ratio']):.2f}x ({target(summary)}) | "  # type: ignore[arg-type]
            f"{float(summary['elo_batch_peak_gb']):.2f} vs {float(summary['duckdb_peak_gb']):.2f} GB | "  # type: ignore[arg-type]
            f"{games / elo_s / 1e6:.2f} vs {games / duck_s / 1e6:.2f} | {verdict(summary)} |"
        )
    return "\n".join(lines)


def compile_package() -> None:
    """Byte-compile elo-batch's modules, as ``pip install`` does: an editable install (or a shell with
    PYTHONDONTWRITEBYTECODE set) would otherwise compile every module on each run, about 0.07 s of
    start-up that an installed elo-batch does not spend (its ``.pyc`` files are written at install)."""
    import importlib.util

    spec = importlib.util.find_spec("elo_batch")
    if spec is None or not spec.submodule_search_locations:
        return
    for folder in spec.submodule_search_locations:
        subprocess.run([sys.executable, "-m", "compileall", "-q", folder], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sizes = f"comma-separated: 1M, 10M, 100M, or GAMES:PLAYERS (default {DEFAULT_SIZES})"
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help=sizes)
    parser.add_argument("--runs", type=int, default=5, help="runs of each tool per shape (alternating; default 5)")
    parser.add_argument("--data", type=Path, default=ROOT / "bench-data", help="cache of generated periods")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared", help="the shared folder")
    parser.add_argument("--elo-args", default="", help="extra options for elo-batch run")
    parser.add_argument("--drop-data", action="store_true", help="delete each generated period after it is measured")
    args = parser.parse_args()
    args.data.mkdir(parents=True, exist_ok=True)
    compile_package()
    print(f"{os.cpu_count()} CPUs, {memory_available_gb():.1f} GB memory available", flush=True)
    summaries = []
    for label in args.sizes.split(","):
        games, players = parse_size(label.strip())
        summaries.append(bench_size(label.strip(), games, players, args))
    print(f"\nmedians of {args.runs} alternating runs, {os.cpu_count()} CPUs:\n" + table(summaries), flush=True)


if __name__ == "__main__":
    main()
