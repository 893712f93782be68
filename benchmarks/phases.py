#!/usr/bin/env python3
"""Where one ``elo-batch run`` spends its time: CPU and wall seconds per phase, in one process.

Usage (from the repository root, after ``benchmarks/run.py`` generated the shape)::

    python benchmarks/phases.py bench-data/200k-1.6M
    python benchmarks/phases.py bench-data/10M

Runs ``elo-batch run GAMES --ratings LIST --period 2026-10 --out bench-data/profile-out`` in this
process with a timer around each phase of the run (start-up imports, reading and checking the inputs,
the pre-pass, the sides and sums, the finalize, writing each table), and prints each phase's CPU time
(all threads, ``time.process_time``: steadier than wall time on a shared machine) and wall time.
Phases nest: ``rate_period`` holds the pre-pass, the sums and the finalize; ``write_period`` the tables.
"""

from __future__ import annotations

import collections
import functools
import importlib
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

CPU: collections.Counter[str] = collections.Counter()
WALL: collections.Counter[str] = collections.Counter()


def timed(module: Any, name: str, label: str) -> None:
    """Replace ``module.name`` by the same function timed under ``label``."""
    function = getattr(module, name)

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            CPU[label] += time.process_time() - cpu
            WALL[label] += time.perf_counter() - wall

    setattr(module, name, wrapper)


def main() -> None:
    folder = Path(sys.argv[1])
    from elo_batch.cli.app import ALLOCATOR_OPTIONS  # no polars yet: set what `elo-batch` sets before it loads

    os.environ.setdefault("_RJEM_MALLOC_CONF", ALLOCATOR_OPTIONS)
    cpu, wall = time.process_time(), time.perf_counter()
    import polars  # noqa: F401

    CPU["import polars"], WALL["import polars"] = time.process_time() - cpu, time.perf_counter() - wall
    cpu, wall = time.process_time(), time.perf_counter()
    importlib.import_module("elo_batch.api")  # what `run` imports
    from elo_batch.cli.app import console
    from elo_batch.engine import period
    from elo_batch.job import pipeline, reading, writing
    from elo_batch.job.pipeline import LocalEngine
    from elo_batch.outputs import encode

    CPU["import the rest"], WALL["import the rest"] = time.process_time() - cpu, time.perf_counter() - wall
    phases = (
        (pipeline, "load_inputs", "read and check the inputs"),  # the name the pipeline calls
        (LocalEngine, "load_games", "  the games"),
        (reading, "load_rating_list", "  the list (in a thread)"),
        (LocalEngine, "settle", "  events"),
        (period, "rate_period", "rate_period"),
        (period.prepass, "prepare", "  pre-pass"),
        (period.sums_kernel, "reduce_sums", "  sides and sums"),
        (period, "finalize", "  finalize (K, change, new list)"),
        (writing, "write_period", "write_period"),
        (encode, "_write_table", "  encode the tables"),
    )
    for module, name, label in phases:
        timed(module, name, label)
    out = folder.parent / "profile-out"
    shutil.rmtree(out, ignore_errors=True)
    games, ratings = folder / "games.parquet", folder / "ratings.parquet"
    cpu, wall = time.process_time(), time.perf_counter()
    status = console(["run", str(games), "--ratings", str(ratings), "--period", "2026-10", "--out", str(out)])
    CPU["run (all)"], WALL["run (all)"] = time.process_time() - cpu, time.perf_counter() - wall
    print(f"{folder}: exit {status}; seconds (CPU of all threads / wall)")
    order = ["import polars", "import the rest", *(label for _, _, label in phases), "run (all)"]
    for label in order:
        print(f"  {label:<34} {CPU[label]:7.2f} {WALL[label]:7.2f}")


if __name__ == "__main__":
    main()
