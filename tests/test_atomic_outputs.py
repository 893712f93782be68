"""A failed, killed or terminated run leaves the previous outputs of its period as they were."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import polars as pl
import pytest

from elo_batch.errors import OutputError
from elo_batch.outputs import atomic, writers
from tests.conftest import read_table, write_csv

GAMES = "game_id,date,white_id,black_id,result,white_rating,black_rating\n1,2025-11-03,A,B,{result},2000,1900"


def _outputs(out: Path) -> dict[str, bytes]:
    """Every file a reader of OUT/<table>/period=*/ sees (hidden files and folders skipped)."""
    return {
        str(path.relative_to(out)): path.read_bytes()
        for path in sorted(out.rglob("*"))
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(out).parts)
    }


@pytest.fixture
def previous(cli, tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """OUT holding a first run of 2025-11 (A beat B), and the bytes of its files."""
    games = write_csv(tmp_path / "g.csv", GAMES.format(result="1-0"))
    out = tmp_path / "out"
    assert cli("run", games, "--period", "2025-11", "--out", out, "--k", "20").exit_code == 0
    write_csv(tmp_path / "g.csv", GAMES.format(result="0-1"))  # the next run would change every output
    return out, _outputs(out)


def _leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if p.name.startswith(atomic.STAGING_PREFIX))


def _fail_on_call(monkeypatch, module, name: str, call: int, error: BaseException) -> list[tuple]:
    """Make ``module.name`` raise ``error`` on its ``call``-th call (the earlier ones work); its calls."""
    real, calls = getattr(module, name), []

    def failing(*args, **kwargs):
        calls.append(args)
        if len(calls) == call:
            raise error
        real(*args, **kwargs)

    monkeypatch.setattr(module, name, failing)
    return calls


@pytest.mark.parametrize(
    ("error", "code", "text"),
    [
        (OSError(errno.ENOSPC, "No space left on device"), 73, "cannot write the outputs (No space left on device"),
        (RuntimeError("writer crashed"), 70, "internal error: RuntimeError: writer crashed"),
    ],
)
def test_a_run_failing_while_writing_keeps_the_previous_outputs(
    cli, tmp_path, previous, monkeypatch, error, code, text
) -> None:
    out, before = previous
    _fail_on_call(monkeypatch, writers, "write_table", 2, error)  # the audit table, after the ratings

    result = cli("run", tmp_path / "g.csv", "--period", "2025-11", "--out", out, "--k", "20")

    assert result.exit_code == code
    assert text in result.output
    assert _outputs(out) == before
    assert _leftovers(out) == []


@pytest.mark.parametrize("exchange", [True, False], ids=["exchange", "two-renames"])
def test_a_run_failing_while_swapping_puts_back_what_it_already_swapped(
    cli, tmp_path, previous, monkeypatch, exchange
) -> None:
    out, before = previous
    calls = _fail_on_call(monkeypatch, atomic, "_swap_in", 3, OSError(errno.EIO, "Input/output error"))
    if not exchange:
        monkeypatch.setattr(atomic, "_exchange", lambda a, b: False)

    result = cli("run", tmp_path / "g.csv", "--period", "2025-11", "--out", out, "--k", "20")

    assert result.exit_code == 73
    assert "cannot write the outputs (Input/output error" in result.output
    assert len(calls) == 3
    assert _outputs(out) == before
    assert _leftovers(out) == []


def test_a_first_run_failing_while_swapping_leaves_no_partition(cli, tmp_path, monkeypatch) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES.format(result="1-0"))
    _fail_on_call(monkeypatch, atomic, "_swap_in", 2, OSError(errno.EIO, "Input/output error"))

    result = cli("run", games, "--period", "2025-11", "--out", tmp_path / "out", "--k", "20")

    assert result.exit_code == 73
    assert _outputs(tmp_path / "out") == {}


# --- real processes, killed midway -----------------------------------------------------------------

#: Runs the CLI in a fresh interpreter with one step slowed down: after ``PAUSE_AFTER`` calls of
#: ``PAUSE_IN`` it writes the ``MARK`` file and sleeps, so that the test can kill it right there.
DRIVER = """
import importlib, os, sys, time
from pathlib import Path
import elo_batch.outputs.atomic
module_name, name = os.environ["PAUSE_IN"].split(":")
module = importlib.import_module(module_name)
real, calls = getattr(module, name), []
def slow(*args, **kwargs):
    value = real(*args, **kwargs)
    calls.append(1)
    if len(calls) == int(os.environ["PAUSE_AFTER"]):
        Path(os.environ["MARK"]).write_text("paused")
        time.sleep(float(os.environ.get("PAUSE_SECONDS", "120")))
    return value
setattr(module, name, slow)
if os.environ.get("NO_EXCHANGE"):
    elo_batch.outputs.atomic._exchange = lambda a, b: False
from elo_batch.cli.app import app
sys.argv[0] = "elo-batch"
app()
"""
WRITE = "elo_batch.outputs.writers:write_table"


def _start_and_stop(tmp_path: Path, out: Path, pause_in: str, after: int, sig: int, **env: str) -> int:
    mark = tmp_path / "paused"
    args = ["run", str(tmp_path / "g.csv"), "--period", "2025-11", "--out", str(out), "--k", "20"]
    process = subprocess.Popen(
        [sys.executable, "-c", DRIVER, *args],
        env={**os.environ, "PAUSE_IN": pause_in, "PAUSE_AFTER": str(after), "MARK": str(mark), **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(1200):
            if mark.exists() or process.poll() is not None:
                break
            time.sleep(0.05)
        assert mark.exists(), process.communicate(timeout=30)
        process.send_signal(sig)
        process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode


def test_a_run_killed_while_writing_leaves_the_previous_outputs_and_nothing_a_reader_sees(
    cli, tmp_path, previous
) -> None:
    out, before = previous

    code = _start_and_stop(tmp_path, out, WRITE, 2, signal.SIGKILL)

    assert code == -signal.SIGKILL
    assert _outputs(out) == before
    assert len(_leftovers(out)) == 1  # the killed run's staging folder, hidden from readers:
    assert [p.name for p in out.glob("ratings/period=*/*")] == ["part-0.parquet"]
    lake = pl.scan_parquet(out / "ratings", hive_partitioning=True).collect()
    assert dict(lake.select("player_id", "change").iter_rows()) == {"A": 7, "B": -7}  # the previous run's
    write_csv(tmp_path / "h.csv", GAMES.format(result="1-0").replace("2025-11", "2025-12"))
    assert cli("run", tmp_path / "h.csv", "--period", "2025-12", "--out", out, "--k", "20").exit_code == 0
    assert _leftovers(out) == []  # cleaned by the next run into OUT


@pytest.mark.parametrize(
    ("pause_in", "after", "no_exchange", "ratings_now"),
    [
        ("elo_batch.outputs.atomic:_swap_in", 1, "", "new"),  # ratings swapped, the other tables not yet
        ("elo_batch.outputs.atomic:_swap_in", 4, "", "new"),  # all swapped, not committed
        ("os:rename", 2, "", "new"),  # the journal in place, ratings exchanged, the old one not yet moved aside
        ("elo_batch.outputs.atomic:_swap_in", 1, "1", "new"),
        ("os:rename", 2, "1", "absent"),  # journal in place, the old ratings moved aside, the new one not yet in
    ],
    ids=["exchange-first", "exchange-all", "exchange-mid", "renames-first", "renames-mid"],
)
def test_a_run_killed_while_swapping_is_undone_by_the_next_run(
    cli, tmp_path, previous, pause_in, after, no_exchange, ratings_now
) -> None:
    out, before = previous
    ratings = "ratings/period=2025-11/part-0.parquet"

    code = _start_and_stop(tmp_path, out, pause_in, after, signal.SIGKILL, NO_EXCHANGE=no_exchange)

    assert code == -signal.SIGKILL
    now = _outputs(out).get(ratings)
    assert now is None if ratings_now == "absent" else now not in (None, before[ratings])
    for table in ("ratings", "audit", "rejected"):  # each partition whole: the old one or the new one
        files = list(out.glob(f"{table}/period=2025-11/*"))
        if files:
            assert [f.name for f in files] == ["part-0.parquet"]
            pl.read_parquet(files[0])
    write_csv(tmp_path / "h.csv", GAMES.format(result="1-0").replace("2025-11", "2025-12"))
    assert cli("run", tmp_path / "h.csv", "--period", "2025-12", "--out", out, "--k", "20").exit_code == 0
    assert {k: v for k, v in _outputs(out).items() if "2025-11" in k} == before
    assert _leftovers(out) == []


def test_a_terminated_run_cleans_up_and_keeps_the_previous_outputs(cli, tmp_path, previous) -> None:
    out, before = previous

    code = _start_and_stop(tmp_path, out, WRITE, 1, signal.SIGTERM)

    assert code == 143
    assert _outputs(out) == before
    assert _leftovers(out) == []


# --- a journal or a link planted in OUT never makes a run delete anything outside OUT -------------


def _victim(tmp_path: Path, name: str = "victim") -> Path:
    """A folder outside OUT that nobody may touch, with one file in it."""
    folder = tmp_path / name / "period=2025-11"
    folder.mkdir(parents=True)
    (folder / "keep.txt").write_text("precious")
    return folder


def _plant_journal(out: Path, targets: dict[str, int], name: str = "planted") -> Path:
    staging = out / f"{atomic.STAGING_PREFIX}{name}"
    (staging / "new").mkdir(parents=True)
    (staging / "journal.json").write_text(json.dumps({"targets": targets}))
    return staging


@pytest.mark.parametrize(
    "target",
    [
        "../victim/period=2025-11",
        "{victim}",  # absolute
        "ratings/period=2025-11/../../../victim/period=2025-11",
        "ratings/../../victim/period=2025-11",
        "victim/period=2025-11",  # not a table of OUT
        "ratings/period=2025-13",  # not a month
    ],
)
def test_a_planted_journal_deletes_nothing_and_stops_the_run(cli, tmp_path, previous, target) -> None:
    out, before = previous
    victim = _victim(tmp_path)
    staging = _plant_journal(out, {target.format(victim=victim): os.stat(victim).st_ino})

    result = cli("run", tmp_path / "g.csv", "--period", "2025-11", "--out", out, "--k", "20")

    assert (victim / "keep.txt").read_text() == "precious"
    assert result.exit_code == 73
    assert "is not <table>/period=YYYY-MM inside the output folder" in result.output
    assert "nothing was recovered or deleted" in result.output
    assert "Hint:" in result.output
    assert _outputs(out) == before
    assert staging.exists()  # left for a person to look at


@pytest.mark.parametrize("journal", ["not json", "[]", '{"targets": {"ratings/period=2025-11": "1"}}', "{}"])
def test_a_journal_that_is_not_one_elo_batch_writes_stops_the_run(cli, tmp_path, previous, journal) -> None:
    out, before = previous
    staging = _plant_journal(out, {})
    (staging / "journal.json").write_text(journal)

    result = cli("run", tmp_path / "g.csv", "--period", "2025-11", "--out", out, "--k", "20")

    assert result.exit_code == 73
    assert "staging journal" in result.output
    assert _outputs(out) == before


def test_a_table_folder_linked_outside_is_never_emptied_by_a_journal(cli, tmp_path, previous) -> None:
    out, _ = previous
    victim = _victim(tmp_path)
    shutil.rmtree(out / "rejected")
    (out / "rejected").symlink_to(victim.parent, target_is_directory=True)
    _plant_journal(out, {"rejected/period=2025-11": os.stat(victim).st_ino})

    result = cli("run", tmp_path / "g.csv", "--period", "2025-11", "--out", out, "--k", "20")

    assert (victim / "keep.txt").read_text() == "precious"
    assert result.exit_code == 73
    assert "outside the output folder" in result.output


def test_a_table_folder_linked_outside_is_never_replaced_by_a_run(cli, tmp_path, previous) -> None:
    out, _ = previous
    victim = _victim(tmp_path)
    shutil.rmtree(out / "rejected")
    (out / "rejected").symlink_to(victim.parent, target_is_directory=True)

    result = cli("run", tmp_path / "g.csv", "--period", "2025-11", "--out", out, "--k", "20")

    assert (victim / "keep.txt").read_text() == "precious"
    assert result.exit_code == 73
    assert "outside the output folder" in result.output
    assert _leftovers(out) == []


@pytest.mark.parametrize("inner", ["", "old", "old/0"])
def test_a_staging_link_outside_is_removed_as_a_link_only(cli, tmp_path, previous, inner) -> None:
    """A link named like a staging folder (or one inside it) never leads recovery outside OUT."""
    out, before = previous
    victim = _victim(tmp_path)
    if inner:
        staging = _plant_journal(out, {"ratings/period=2025-11": os.stat(out / "ratings/period=2025-11").st_ino})
        (staging / inner).parent.mkdir(parents=True, exist_ok=True)
        (staging / inner).symlink_to(victim if inner == "old/0" else victim.parent, target_is_directory=True)
    else:
        (out / f"{atomic.STAGING_PREFIX}link").symlink_to(victim.parent, target_is_directory=True)

    result = cli("run", tmp_path / "g.csv", "--period", "2025-11", "--out", out, "--k", "20")

    assert (victim / "keep.txt").read_text() == "precious"
    if inner:
        assert result.exit_code == 73
        assert "a link" in result.output
        assert _outputs(out) == before
    else:
        assert result.exit_code == 0, result.output
        assert _leftovers(out) == []


def test_a_swap_takes_only_plain_labels_and_partition_targets(tmp_path) -> None:
    """The library's own callers are held to the same layout as a journal (a period like ``../x``)."""
    with pytest.raises(ValueError, match="plain name"):
        atomic.FolderSwap(tmp_path, "../2025-11")
    with atomic.FolderSwap(tmp_path / "out", "2025-11") as swap:
        for target in ("ratings/period=../../x", "/tmp/x", "ratings/period=2025-11/../../x"):
            with pytest.raises(ValueError, match="is not <table>/period=YYYY-MM"):
                swap.folder(target)
        swap.folder("ratings/period=2025-11")


# --- a run that reads its list from OUT takes OUT's lock and recovers before it reads -------------


@pytest.mark.parametrize("ratings", ["ratings/period=2025-11/part-0.parquet", "ratings/period=2025-11"])
@pytest.mark.parametrize(
    ("pause_in", "after", "no_exchange"),
    [("elo_batch.outputs.atomic:_swap_in", 1, ""), ("elo_batch.outputs.atomic:_swap_in", 4, ""), ("os:rename", 2, "1")],
    ids=["exchange-first", "exchange-all", "renames-mid"],
)
def test_the_next_month_reading_its_list_from_out_after_a_kill_in_the_commit_reads_the_recovered_list(
    cli, tmp_path, previous, pause_in, after, no_exchange, ratings
) -> None:
    """The killed re-run of 2025-11 (B beat A) never committed: 2025-12 is built on the list of the
    first run (A 2007, B 1893), never on the killed run's half-swapped one (A 1993, B 1907)."""
    out, before = previous
    assert _start_and_stop(tmp_path, out, pause_in, after, signal.SIGKILL, NO_EXCHANGE=no_exchange) == -signal.SIGKILL
    write_csv(tmp_path / "h.csv", GAMES.format(result="1/2-1/2").replace("2025-11", "2025-12"))

    result = cli("run", tmp_path / "h.csv", "--period", "2025-12", "--ratings", out / ratings, "--out", out)

    assert result.exit_code == 0, result.output
    assert {k: v for k, v in _outputs(out).items() if "2025-11" in k} == before
    december = read_table(out, "ratings", "2025-12").sort("player_id")
    assert december.select("player_id", "rating_before").rows() == [("A", 2007), ("B", 1893)]
    assert _leftovers(out) == []


def test_locked_output_recovers_on_entry_and_lets_the_same_caller_write(tmp_path, previous) -> None:
    out, before = previous
    staging = _plant_journal(out, {"ratings/period=2025-11": 1})  # a dead run's, swapped nothing yet
    frame = pl.DataFrame({"player_id": ["A"]})

    with atomic.locked_output(out):
        assert not staging.exists()  # recovered before the caller reads anything
        assert _outputs(out) == before
        writers.write_period(str(out), "2025-12", {"ratings": frame}, manifest={})  # the same lock, not a deadlock

    assert (out / "ratings" / "period=2025-12" / "part-0.parquet").exists()


def test_locked_output_makes_another_writer_wait(tmp_path) -> None:
    out, entered, release = tmp_path / "out", threading.Event(), threading.Event()
    order: list[str] = []

    def first() -> None:
        with atomic.locked_output(out):
            entered.set()
            release.wait(10)
            order.append("first done")

    def second() -> None:
        entered.wait(10)
        with atomic.FolderSwap(out, "2025-11"):
            order.append("second in")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    entered.wait(10)
    time.sleep(0.3)
    assert order == []  # the second one waits for the lock
    release.set()
    for thread in threads:
        thread.join(10)
    assert order == ["first done", "second in"]


def test_locked_output_on_a_folder_it_cannot_lock_is_an_output_error(tmp_path) -> None:
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(OutputError, match="cannot lock the output folder"), atomic.locked_output(tmp_path / "file"):
        pass
