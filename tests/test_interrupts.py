"""Ctrl-C (SIGINT, exit 130) and SIGTERM (143) while a period is written: the staging folder is removed,
the previous outputs stay, and nothing (a second signal, polars' own handling of SIGINT) stops the
clean-up halfway."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from elo_batch.outputs import atomic
from tests.conftest import write_csv

GAMES = "game_id,date,white_id,black_id,result,white_rating,black_rating\n1,2025-11-03,A,B,{result},2000,1900"
SIGNALS = [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")]


def _outputs(out: Path) -> dict[str, bytes]:
    """Every file a reader of OUT/<table>/period=*/ sees (hidden files and folders skipped)."""
    return {
        str(path.relative_to(out)): path.read_bytes()
        for path in sorted(out.rglob("*"))
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(out).parts)
    }


def _leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if p.name.startswith(atomic.STAGING_PREFIX))


@pytest.fixture
def previous(cli, tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """OUT holding a first run of 2025-11, the bytes of its files; g.csv now holds other games."""
    games = write_csv(tmp_path / "g.csv", GAMES.format(result="1-0"))
    out = tmp_path / "out"
    assert cli("run", games, "--period", "2025-11", "--out", out, "--k", "20").exit_code == 0
    write_csv(tmp_path / "g.csv", GAMES.format(result="0-1"))
    return out, _outputs(out)


#: The CLI in a fresh interpreter whose audit file is written slowly: polars calls a Python function on
#: the audit's rows while it writes the file; the first call writes the WRITING mark and sleeps a second
#: and a half. With CLEANING set, the clean-up after a signal writes that mark and sleeps a second
#: before it removes the staging folder, so that a second signal can be sent right then.
DRIVER = """
import os, shutil, sys, time
from pathlib import Path
import polars as pl
from elo_batch.outputs import encode
from elo_batch.outputs import writers
real_write, real_rmtree = encode.write_table, shutil.rmtree
def slow(batch):
    mark = Path(os.environ["WRITING"])
    if not mark.exists():
        mark.write_text("writing")
        time.sleep(1.5)
    return batch
def write_table(frame, target, fmt, *args, **kwargs):
    if isinstance(frame, pl.LazyFrame):
        frame = frame.map_batches(slow, streamable=True, schema=frame.collect_schema())
    return real_write(frame, target, fmt, *args, **kwargs)
def rmtree(path, *args, **kwargs):
    if os.environ.get("CLEANING") and ".elo-batch-staging-" in Path(path).name:
        Path(os.environ["CLEANING"]).write_text("cleaning")
        time.sleep(1)
    return real_rmtree(path, *args, **kwargs)
writers.write_table = write_table
shutil.rmtree = rmtree
from elo_batch.cli.app import app
sys.argv[0] = "elo-batch"
app()
"""


def _wait_for(mark: Path, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while not mark.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert mark.exists(), process.communicate(timeout=30)


def _signal_while_writing(tmp_path: Path, out: Path, signum: int, again: bool = False) -> tuple[int, str]:
    """Start a run, send ``signum`` while polars writes the audit (and again during the clean-up)."""
    writing, cleaning = tmp_path / "writing", tmp_path / "cleaning"
    env = {**os.environ, "WRITING": str(writing), "CLEANING": str(cleaning) if again else ""}
    args = ["run", str(tmp_path / "g.csv"), "--period", "2025-11", "--out", str(out), "--k", "20"]
    process = subprocess.Popen(
        [sys.executable, "-c", DRIVER, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        _wait_for(writing, process)
        process.send_signal(signum)
        if again:
            _wait_for(cleaning, process)
            process.send_signal(signum)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, stderr


@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS, ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_polars_writes_a_file_removes_the_staging_folder(tmp_path, previous, signum, code, word) -> None:
    out, before = previous

    returncode, stderr = _signal_while_writing(tmp_path, out, signum)

    assert returncode == code, stderr
    assert f"elo-batch: {word}; outputs of unfinished periods were not changed" in stderr
    assert "panicked" not in stderr and "Traceback" not in stderr, stderr  # no polars panic dump
    assert _leftovers(out) == []
    assert _outputs(out) == before


@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS, ids=["SIGINT", "SIGTERM"])
def test_a_second_signal_during_the_clean_up_does_not_stop_it(tmp_path, previous, signum, code, word) -> None:
    out, before = previous

    returncode, stderr = _signal_while_writing(tmp_path, out, signum, again=True)

    assert returncode == code, stderr
    assert "Traceback" not in stderr, stderr
    assert _leftovers(out) == []
    assert _outputs(out) == before


# --- the library's own clean-up, without the CLI's signal handlers ------------------------------------


def _interrupt_first_call(monkeypatch, module, name: str) -> list[object]:
    """``module.name`` raises KeyboardInterrupt on its first call, then works; its calls."""
    real, calls = getattr(module, name), []

    def interrupted(*args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, interrupted)
    return calls


def test_an_interruption_while_the_staging_folder_is_removed_is_raised_once_it_is_gone(tmp_path, monkeypatch) -> None:
    calls = _interrupt_first_call(monkeypatch, atomic.shutil, "rmtree")

    with pytest.raises(KeyboardInterrupt), atomic.FolderSwap(tmp_path, "2025-11") as swap:
        (swap.folder("ratings/period=2025-11") / "part-0.parquet").write_bytes(b"new")
        raise RuntimeError("a failed write")

    assert len(calls) == 2
    assert _leftovers(tmp_path) == []
