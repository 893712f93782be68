"""Guards of the output folder: the table format decided under OUT's lock (two runs of different formats
started together), a full disk while a file's footer is written, and damaged Delta logs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import read_table, write_csv

GAMES = "game_id,date,white_id,black_id,result,white_rating,black_rating\n1,2025-11-03,A,B,{result},2000,1900"

#: The CLI in a fresh interpreter that, once it has read its inputs and checked OUT, waits until the
#: other run (READY names the pair's marks) has come as far: two runs started together into one OUT.
TOGETHER = """
import os, sys, time
from pathlib import Path
from elo_batch import runner
real = runner.check_writable
def check_writable(out):
    marks = Path(os.environ["READY"])
    Path(f"{marks}.{os.environ['ME']}").write_text("ready")
    deadline = time.monotonic() + 60
    while len(list(marks.parent.glob(marks.name + ".*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    return real(out)
runner.check_writable = check_writable
from elo_batch.cli import app as cli
sys.exit(cli.console(sys.argv[1:]))
"""


def _delta_tables_read(out: Path) -> bool:
    deltalake = pytest.importorskip("deltalake")
    for table in ("ratings", "audit", "rejected"):
        pl.scan_delta(str(out / table)).collect()  # every file the log names is there and whole
        files = deltalake.DeltaTable(str(out / table)).file_uris()
        on_disk = {str(p) for p in (out / table).rglob("*.parquet")}
        assert set(files) <= on_disk
        assert not list((out / table).glob("period=*/part-0.*")), f"hive files inside the Delta table {table}"
    return True


def test_a_delta_and_a_hive_run_started_together_into_a_new_out(tmp_path: Path) -> None:
    pytest.importorskip("deltalake")
    games = write_csv(tmp_path / "g.csv", GAMES.format(result="1-0"))
    out = tmp_path / "out"
    runs = {"delta": ["--table-format", "delta"], "hive": []}
    processes = {
        name: subprocess.Popen(
            [sys.executable, "-c", TOGETHER, "run", str(games), "--period", "2025-11", "--out", str(out), *extra],
            env={**os.environ, "READY": str(tmp_path / "ready"), "ME": name},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, extra in runs.items()
    }
    done = {name: (process.wait(timeout=120), process.communicate()[1]) for name, process in processes.items()}

    codes = sorted(code for code, _ in done.values())
    assert codes == [0, 73], done
    winner = next(name for name, (code, _) in done.items() if code == 0)
    loser_stderr = next(stderr for code, stderr in done.values() if code == 73)
    found = "a Delta table" if winner == "delta" else "hive Parquet/CSV partitions"
    assert f"holds {found}" in loser_stderr and "Traceback" not in loser_stderr, loser_stderr
    if winner == "delta":
        assert _delta_tables_read(out)
    else:
        assert not any((out / table / "_delta_log").exists() for table in ("ratings", "audit", "rejected"))
        assert read_table(out, "ratings", "2025-11").height == 2
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".elo-batch-staging-")) == []
