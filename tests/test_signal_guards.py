"""A SIGTERM or Ctrl-C is never lost: a run signalled before its commit never commits and exits with the
signal's code (143, 130), even where Python drops the handler's raise (a weakref callback of a thread pool
being collected); no Python traceback and no Rust panic text on stderr, whenever the signal lands."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import write_csv

GAMES = "game_id,date,white_id,black_id,result,white_rating,black_rating\n1,2025-11-03,A,B,{result},2000,1900"
SIGNALS = [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")]
TABLES = ("ratings", "audit", "rejected")

#: The CLI in a fresh interpreter. LOG gets a line "signal" each time the handler runs, and "commit?" and
#: "commit" right before and after a period's commit (the removal of its swap's journal: for Delta, the
#: manifest's swap). With DROPPED set, the first
#: write of a table sends that signal from inside a weakref callback, where Python drops a raise.
DRIVER = """
import os, sys, weakref
from pathlib import Path
from elo_batch.cli import guard
from elo_batch.outputs import atomic, encode, deltafiles
log = Path(os.environ["LOG"])
def note(what):
    with open(log, "a") as handle:
        handle.write(what + "\\n")
real_stop = guard.Stop.__call__
def stop(self, signum, frame):
    note("signal")
    return real_stop(self, signum, frame)
guard.Stop.__call__ = stop
real_remove = os.remove
def remove(path, *args, **kwargs):
    if Path(path).name != "journal.json":
        return real_remove(path, *args, **kwargs)
    note("commit?")  # the journal's removal is the commit
    real_remove(path, *args, **kwargs)
    note("commit")
atomic.os.remove = remove
class Pool:
    pass
def dropped():
    if os.environ.get("DROPPED") and not log.exists():
        pool = Pool()
        signum = int(os.environ["DROPPED"])
        keep = weakref.ref(pool, lambda _: os.kill(os.getpid(), signum))  # the kill's handler runs in here
        del pool
def wrap(module, name):
    real = getattr(module, name)
    def wrapped(*args, **kwargs):
        dropped()
        return real(*args, **kwargs)
    setattr(module, name, wrapped)
wrap(encode, "_write_table")
wrap(deltafiles, "_write_file")
from elo_batch.cli import app as cli
sys.exit(cli.console(sys.argv[1:]))
"""


def _state(out: Path, table_format: str) -> dict[str, object]:
    """What a reader of OUT sees: each table's rows of 2025-11 and the manifest's counts."""
    if table_format == "delta":
        tables = {t: pl.scan_delta(str(out / t)).filter(pl.col("period") == "2025-11").collect() for t in TABLES}
    else:
        tables = {t: pl.read_parquet(out / t / "period=2025-11" / "part-0.parquet") for t in TABLES}
    return {name: sorted(frame.drop("period", strict=False).rows()) for name, frame in tables.items()}


def _leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if p.name.startswith(".elo-batch-staging-"))


@pytest.fixture
def outputs(tmp_path: Path, request) -> tuple[Path, dict, dict, list[str]]:
    """OUT holding a run of 2025-11; the state of that run and of the run to come; its arguments."""
    table_format = request.param
    if table_format == "delta":
        pytest.importorskip("deltalake")
    old = write_csv(tmp_path / "old.csv", GAMES.format(result="1-0"))
    new = write_csv(tmp_path / "new.csv", GAMES.format(result="0-1"))
    args = ["--period", "2025-11", "--table-format", table_format, "--k", "20"]
    expected = tmp_path / "expected"
    for games, out in ((new, expected), (old, tmp_path / "out")):
        done = subprocess.run([sys.executable, "-m", "elo_batch.cli.app", "run", str(games), "--out", str(out), *args])
        assert done.returncode == 0
    out = tmp_path / "out"
    return out, _state(out, table_format), _state(expected, table_format), ["run", str(new), *args]


def _start(args: list[str], out: Path, log: Path, dropped: int | None = None) -> subprocess.Popen:
    env = {**os.environ, "LOG": str(log), "DROPPED": str(int(dropped)) if dropped else ""}
    return subprocess.Popen(
        [sys.executable, "-c", DRIVER, *args, "--out", str(out)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _clean(stderr: str) -> None:
    for text in ("Exception ignored", "Traceback", "panicked", "RUST_BACKTRACE", "thread '"):
        assert text not in stderr, stderr


@pytest.mark.parametrize("outputs", ["delta", "parquet"], indirect=True)
@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS, ids=["SIGINT", "SIGTERM"])
def test_a_signal_whose_raise_python_drops_still_stops_the_commit(tmp_path, outputs, signum, code, word) -> None:
    out, before, _, args = outputs
    log = tmp_path / "log"

    process = _start(args, out, log, dropped=signum)
    _, stderr = process.communicate(timeout=120)

    assert log.read_text().splitlines()[0] == "signal"  # the handler ran (in the weakref callback)
    assert process.returncode == code, stderr
    assert f"elo-batch: {word}; outputs of unfinished periods were not changed" in stderr
    _clean(stderr)
    assert not [line for line in log.read_text().splitlines() if line.startswith("commit")]
    assert _state(out, args[args.index("--table-format") + 1]) == before
    assert _leftovers(out) == []


def _signalled_runs(tmp_path: Path, outputs, signum: int, runs: int, seed: int) -> list[tuple[float, int]]:
    """``runs`` runs into copies of OUT, each sent ``signum`` after a random delay; checks each one and
    returns (delay, exit status) of each."""
    out, before, after, args = outputs
    table_format = args[args.index("--table-format") + 1]
    code = 130 if signum == signal.SIGINT else 143
    rng = random.Random(seed)
    seen = []
    span = _run_time(tmp_path, out, args)  # the moments drawn from the run's own span (it got faster)
    for index in range(runs):
        copy, log = tmp_path / f"out-{index}", tmp_path / f"log-{index}"
        shutil.copytree(out, copy)
        delay = rng.uniform(0.2, 1.2) * span
        process = _start(args, copy, log)
        time.sleep(delay)
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=120)
        lines = log.read_text().splitlines() if log.exists() else []
        first = lines.index("signal") if "signal" in lines else len(lines)
        where = f"run {index} (seed {seed}, {delay:.2f} s): exit {process.returncode}, log {lines}\n{stderr}"
        _clean(stderr)
        assert process.returncode in (0, code, -signum), where
        if process.returncode == 0:
            assert "signal" not in lines, where  # a signal the handler saw is never lost
        if "signal" in lines:
            assert process.returncode == code, where
        assert "commit?" not in lines[first:], where  # never a commit begun after the signal
        state = _state(copy, table_format)
        if "commit" in lines[:first]:  # committed before the signal
            assert state == after, where
        elif "commit?" in lines[:first]:  # the signal came while the journal was removed: either is whole
            assert state in (before, after), where
        else:
            assert state == before, where
        assert _leftovers(copy) == [], where
        seen.append((delay, process.returncode))
        shutil.rmtree(copy)
    return seen


def _run_time(tmp_path: Path, out: Path, args: list[str]) -> float:
    """Seconds one run of ``args`` takes here, from its start to its exit, unsignalled."""
    copy = tmp_path / "out-timed"
    shutil.copytree(out, copy)
    started = time.monotonic()
    process = _start(args, copy, tmp_path / "log-timed")
    process.communicate(timeout=120)
    assert process.returncode == 0
    shutil.rmtree(copy)
    return time.monotonic() - started


@pytest.mark.slow
@pytest.mark.parametrize("outputs", ["delta"], indirect=True)
def test_sigterms_at_random_moments_of_delta_runs_are_never_lost(tmp_path, outputs) -> None:
    seen = _signalled_runs(tmp_path, outputs, signal.SIGTERM, runs=20, seed=20)
    assert any(code == 143 for _, code in seen), seen  # the signals did land while the runs worked


@pytest.mark.slow
@pytest.mark.parametrize("outputs", ["parquet"], indirect=True)
def test_ctrl_c_at_random_moments_prints_no_traceback_or_panic(tmp_path, outputs) -> None:
    seen = _signalled_runs(tmp_path, outputs, signal.SIGINT, runs=12, seed=48)
    assert any(code == 130 for _, code in seen), seen


@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS)
def test_a_signal_under_json_logs_is_one_json_error_line(tmp_path, signum, code, word) -> None:
    """With ``--log-format json`` every stderr line is a JSON object, the signal's own line too (it was
    the text line ``elo-batch: interrupted; ...``)."""
    games = write_csv(tmp_path / "g.csv", GAMES.format(result="1-0"))
    driver = (  # the signal arrives while the run rates: pipeline.rate sends it first
        "import os, sys\n"
        "from elo_batch.job import pipeline\n"
        "from elo_batch.cli import app\n"
        "real = pipeline.rate\n"
        f"def stopped(*a, **k):\n    os.kill(os.getpid(), {int(signum)})\n    return real(*a, **k)\n"
        "pipeline.rate = stopped\n"
        "sys.exit(app.console(sys.argv[1:]))\n"
    )
    args = [str(games), "--period", "2025-11", "--ratings", "none", "--out", str(tmp_path / "out")]
    done = subprocess.run(
        [sys.executable, "-c", driver, "run", *args, "--log-format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == code, done.stderr
    records = [json.loads(line) for line in lines]  # every line JSON
    assert records[-1]["event"] == "error" and records[-1]["exit_code"] == code, records
    assert word in records[-1]["message"]


def test_a_raise_waits_in_python_code_that_polars_calls_back() -> None:
    """A signal whose handler runs in Python code that polars calls from its engine (a callback, or a
    ``DataType.__init__`` its Rust code builds) waits: raised there, it unwinds through polars' native
    frames, whose ``unwrap()`` then panics with Rust's text on stderr (seen in 1 of 20 random SIGTERMs)."""
    from elo_batch.cli import guard

    seen: list[bool] = []

    def callback(frame: pl.DataFrame) -> pl.DataFrame:
        seen.append(guard._waits(sys._getframe()))
        return frame

    pl.LazyFrame({"a": [1, 2]}).map_batches(callback).collect()
    assert seen == [True]
    assert not guard._waits(sys._getframe())  # the test's own code, no library below it: raised at once
