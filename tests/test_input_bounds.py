"""Hostile input files bounded in CPU and memory (issue 20, items 6, 11 and the CSV peak): a wide
header, long cells and large files are handled in time and memory linear in the file.

Each bound is checked in a subprocess under a resource limit (``RLIMIT_CPU``, ``RLIMIT_AS``), so that a
regression fails fast instead of running for minutes or taking gigabytes.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, read_table

GB = 2**30


def run_limited(args: list[str], *, cpu_s: int | None = None, memory: int | None = None) -> subprocess.CompletedProcess:
    """``elo-batch ARGS`` in a child process whose CPU time (seconds) or address space (bytes) is limited."""

    def limit() -> None:
        if cpu_s is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    env = {**os.environ, "PYTHONPATH": str(ROOT), "POLARS_MAX_THREADS": "2"}
    code = "import sys; from elo_batch.cli.app import console; sys.exit(console(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, preexec_fn=limit, env=env, timeout=600
    )


def _list(path: Path, players: list[str]) -> Path:
    path.write_text("player_id,rating\n" + "".join(f"{p},2000\n" for p in players), encoding="utf-8")
    return path


# --- item 6: a wide header over short rows ------------------------------------------------------


def test_a_wide_header_over_short_rows_is_read_in_linear_time(tmp_path) -> None:
    extra = ",".join(f"x{i}" for i in range(10_000))
    rows = "".join(f"a{i},b{i},1-0,2025-11-03\n" for i in range(200))
    games = tmp_path / "wide.csv"
    games.write_text(f"white_id,black_id,result,date,{extra}\nw,z,1-0,2025-11-04{',' * 10_000}\n{rows}")
    ratings = _list(tmp_path / "list.csv", ["w", "z"])
    out = tmp_path / "out"

    args = ["run", str(games), "--period", "2025-11", "--ratings", str(ratings), "--out", str(out)]

    done = run_limited([*args, "--max-rejected", "100%"], cpu_s=20)

    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    rejected = read_table(out, "rejected", "2025-11")
    assert rejected["source_row"].to_list() == list(range(2, 202))
    assert set(rejected["reason"]) == {
        "the row has 4 fields where the header has 10004. Hint: a value that holds the separator ',' must be in "
        "double quotes."
    }
    raw = json.loads(rejected["raw"][0])
    assert (len(raw), raw["white_id"], raw["x9999"]) == (10_004, "a0", None)
    assert sorted(read_table(out, "audit", "2025-11")["player_id"]) == ["w", "z"]  # the full-width row is rated
