"""The lock of an output folder: who holds it, how long a run waits (``--lock-timeout``), the lock file of
systems without ``flock`` (forced here); and ``file:`` URLs taken as the paths they name."""

from __future__ import annotations

import errno
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from elo_batch.errors import OutputError
from elo_batch.outputs import outlock
from tests.conftest import TESTS, read_table, write_csv

GAMES = "game_id,date,white_id,black_id,result,white_rating,black_rating\n1,2025-11-03,A,B,1-0,2000,1900"
HOST = socket.gethostname()


@pytest.fixture(params=["flock", "exclusive-file"])
def lock_kind(request, monkeypatch) -> str:
    """Both kinds of lock: flock (Linux, macOS) and the O_EXCL lock file (what Windows gets, forced)."""
    monkeypatch.setattr(outlock, "USE_FLOCK", request.param == "flock")
    return request.param


def _lock_file(root: Path, kind: str) -> Path:
    return root / (outlock.LOCK_NAME if kind == "flock" else outlock.EXCL_LOCK_NAME)


def test_the_holder_is_recorded_in_the_lock_file(tmp_path, lock_kind) -> None:
    with outlock.hold(tmp_path):
        record = outlock.read_record(_lock_file(tmp_path, lock_kind))

    assert record is not None and (record["pid"], record["host"]) == (os.getpid(), HOST)
    assert outlock.describe(record).startswith(f"pid {os.getpid()} on host {HOST} since ")
    assert (tmp_path / outlock.EXCL_LOCK_NAME).exists() is False  # released: the lock file is gone


def test_a_held_lock_is_waited_for_with_the_holder_named_then_taken(tmp_path, lock_kind) -> None:
    waits: list[str] = []
    announced, taken = threading.Event(), threading.Event()

    def second_writer() -> None:
        with outlock.hold(tmp_path, timeout=30, on_wait=lambda holder: (waits.append(holder), announced.set())):
            taken.set()

    with outlock.hold(tmp_path):
        thread = threading.Thread(target=second_writer)
        thread.start()
        assert announced.wait(10)
        assert not taken.is_set()
    thread.join(10)

    assert taken.is_set()
    assert len(waits) == 1 and waits[0].startswith(f"pid {os.getpid()} on host {HOST} since ")


def test_a_lock_held_past_the_timeout_is_an_output_error_naming_the_holder(tmp_path, lock_kind) -> None:
    with outlock.hold(tmp_path):
        started = time.monotonic()
        with pytest.raises(OutputError, match=f"holds the lock of this output folder \\(pid {os.getpid()} on host"):
            outlock.hold(tmp_path, timeout=0.3)
        assert 0.3 <= time.monotonic() - started < 5


def test_run_waits_for_the_lock_then_exits_73_naming_the_holder(cli, tmp_path, lock_kind) -> None:
    games, out = write_csv(tmp_path / "g.csv", GAMES), tmp_path / "out"
    out.mkdir()

    with outlock.hold(out):
        result = cli("run", games, "--period", "2025-11", "--out", out, "--lock-timeout", "0.5")

    assert result.exit_code == 73, result.output
    holder = f"pid {os.getpid()} on host {HOST} since "
    assert f"elo-batch: waiting up to 0.5 s for the lock of {out}: held by {holder}" in result.stderr
    assert "another writer holds the lock of this output folder" in result.stderr and holder in result.stderr
    assert "gave up after 0.5 s" in result.stderr
    assert not (out / "ratings").exists()


def test_lock_wait_is_a_json_event_with_log_format_json(cli, tmp_path) -> None:
    games, out = write_csv(tmp_path / "g.csv", GAMES), tmp_path / "out"
    out.mkdir()

    with outlock.hold(out):
        result = cli("run", games, "--period", "2025-11", "--out", out, "--lock-timeout", "0", "--log-format", "json")

    events = [json.loads(line) for line in result.stderr.splitlines()]
    assert result.exit_code == 73
    assert events[0]["event"] == "lock_wait" and events[0]["holder"].startswith(f"pid {os.getpid()} ")
    assert events[-1]["event"] == "error" and events[-1]["exit_code"] == 73


# --- the exclusive lock file of systems without flock: a killed holder's file is taken over ------------


@pytest.fixture
def exclusive(monkeypatch) -> None:
    monkeypatch.setattr(outlock, "USE_FLOCK", False)


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def _left(root: Path, record: dict | None, age: float = 0) -> Path:
    path = root / outlock.EXCL_LOCK_NAME
    path.write_text(json.dumps(record) if record is not None else "")
    os.utime(path, (time.time() - age, time.time() - age))
    return path


def test_a_lock_file_left_by_a_dead_process_of_this_host_is_taken_over(tmp_path, exclusive) -> None:
    _left(tmp_path, {"pid": _dead_pid(), "host": HOST, "started_at": "2025-11-02T03:00:01+00:00"})

    with outlock.hold(tmp_path, timeout=0):
        assert outlock.read_record(tmp_path / outlock.EXCL_LOCK_NAME)["pid"] == os.getpid()


def test_a_lock_file_of_another_host_is_never_presumed_dead(tmp_path, exclusive) -> None:
    path = _left(tmp_path, {"pid": _dead_pid(), "host": "etl-elsewhere", "started_at": "2025-11-02T03:00:01+00:00"})

    with pytest.raises(OutputError) as caught:
        outlock.hold(tmp_path, timeout=0.2)

    assert "on host etl-elsewhere since 2025-11-02 03:00:01 UTC" in str(caught.value)
    assert f"if no such run is alive, delete {path}" in str(caught.value)


@pytest.mark.parametrize(("age", "taken"), [(0, False), (60, True)], ids=["being-written", "abandoned"])
def test_a_lock_file_without_a_record_is_taken_over_only_once_old(tmp_path, exclusive, age, taken) -> None:
    _left(tmp_path, None, age=age)

    if taken:
        outlock.hold(tmp_path, timeout=0).release()
    else:
        with pytest.raises(OutputError, match="a writer that left no record"):
            outlock.hold(tmp_path, timeout=0)


def test_a_file_system_that_refuses_flock_gets_the_exclusive_lock_file(tmp_path, monkeypatch) -> None:
    def refused(descriptor, operation):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(outlock.fcntl, "flock", refused)

    with outlock.hold(tmp_path, timeout=0):
        assert outlock.read_record(tmp_path / outlock.EXCL_LOCK_NAME)["pid"] == os.getpid()
        with pytest.raises(OutputError, match=f"pid {os.getpid()} on host"):
            outlock.hold(tmp_path, timeout=0)


#: A run in a fresh interpreter with what Windows gets (no exchange, no flock), killed midway: it pauses
#: after its first partition is swapped in (the lock file held, the journal in place).
KILLED_DRIVER = """
import os, sys, time
from pathlib import Path
from elo_batch.outputs import atomic
from elo_batch.outputs import outlock
atomic.USE_EXCHANGE = False
outlock.USE_FLOCK = False
real = atomic._swap_in
def paused(*args):
    real(*args)
    Path(os.environ["MARK"]).write_text("swapped")
    time.sleep(120)
atomic._swap_in = paused
from elo_batch.cli.app import app
sys.argv[0] = "elo-batch"
app()
"""


def test_without_exchange_and_flock_a_killed_run_is_undone_and_its_lock_taken_over(cli, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr("elo_batch.outputs.atomic.USE_EXCHANGE", False)
    monkeypatch.setattr(outlock, "USE_FLOCK", False)
    games, out = write_csv(tmp_path / "g.csv", GAMES), tmp_path / "out"
    assert cli("run", games, "--period", "2025-11", "--out", out, "--k", "20").exit_code == 0
    before = read_table(out, "ratings", "2025-11")
    write_csv(tmp_path / "g.csv", GAMES.replace("1-0", "0-1"))
    mark = tmp_path / "swapped"
    # (the replace moves the game to 2025-10: 2025-11 has no row, and no rating source without --ratings none)
    args = ["run", str(games), "--period", "2025-11", "--out", str(out), "--k", "20", "--ratings", "none"]
    process = subprocess.Popen(
        [sys.executable, "-c", KILLED_DRIVER, *args], env={**os.environ, "MARK": str(mark)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not mark.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert mark.exists(), process.communicate(timeout=30)
        assert outlock.read_record(out / outlock.EXCL_LOCK_NAME)["pid"] == process.pid
        process.kill()
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)
    assert (out / outlock.EXCL_LOCK_NAME).exists()  # left by the killed run
    write_csv(tmp_path / "h.csv", GAMES.replace("2025-11", "2025-12"))

    result = cli("run", tmp_path / "h.csv", "--period", "2025-12", "--out", out, "--k", "20", "--lock-timeout", "0")

    assert result.exit_code == 0, result.output
    assert read_table(out, "ratings", "2025-11").equals(before)  # the killed run's swap was put back
    assert not (out / outlock.EXCL_LOCK_NAME).exists()
    assert not any(p.name.startswith(".elo-batch-staging-") for p in out.iterdir())


# --- file: URLs name local paths -------------------------------------------------------------------


@pytest.fixture
def cwd(tmp_path, monkeypatch) -> Path:
    """An empty working directory, to see that nothing lands in it."""
    folder = tmp_path / "cwd"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def test_file_urls_are_the_paths_they_name(cli, tmp_path, cwd) -> None:
    games = write_csv(tmp_path / "my games.csv", GAMES)
    rating_list = write_csv(tmp_path / "l.csv", "player_id,rating\nA,2000\nB,1900")
    out = tmp_path / "out"

    result = cli("run", games.as_uri(), "--ratings", rating_list.as_uri(), "--period", "2025-11",
                 "--out", out.as_uri(), "--k", "20")  # fmt: skip

    assert result.exit_code == 0, result.output
    assert f"written: {out}/ratings/period=2025-11" in result.stderr
    assert read_table(out, "ratings", "2025-11").height == 2
    assert list(cwd.iterdir()) == []  # no stray file: folder


def test_import_and_chart_take_file_urls(cli, tmp_path, cwd) -> None:
    pytest.importorskip("matplotlib")
    games = tmp_path / "games.parquet"
    imported = cli("import", "pgn", TESTS / "data" / "pgn" / "tatamast22.pgn", "-o", games.as_uri())
    assert imported.exit_code == 0, imported.output
    out = tmp_path / "out"
    assert cli("run", games, "--period", "2022-01", "--rule-set", "fide-2024-03", "--out", out).exit_code == 0

    charted = cli("chart", out.as_uri(), "--player", "1503014", "-o", (tmp_path / "c.png").as_uri())

    assert charted.exit_code == 0, charted.output
    assert games.exists() and (tmp_path / "c.png").exists()
    assert list(cwd.iterdir()) == []


def test_a_file_url_of_another_host_is_a_usage_error(cli, tmp_path, cwd) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)

    result = cli("run", games, "--period", "2025-11", "--out", "file://fileserver/elo/out")

    assert result.exit_code == 2
    assert "'file://fileserver/elo/out' names the host 'fileserver'" in result.stderr
    assert "Hint: use file:///path/to/folder" in result.stderr
    assert list(cwd.iterdir()) == []
