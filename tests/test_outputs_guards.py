"""Guards of the output folder: the table format decided under OUT's lock (two runs of different formats
started together), a full disk while a file's footer is written, and damaged Delta logs."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import read_table, write_csv
from tests.test_full_disk import _many_games, _outputs

GAMES = "game_id,date,white_id,black_id,result,white_rating,black_rating\n1,2025-11-03,A,B,{result},2000,1900"

#: The CLI in a fresh interpreter that, once it has read its inputs and checked OUT, waits until the
#: other run (READY names the pair's marks) has come as far: two runs started together into one OUT.
TOGETHER = """
import os, sys, time
from pathlib import Path
from elo_batch.job import runner
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


# --- a full disk while the audit's footer is written ----------------------------------------------


@pytest.fixture
def disk(tmp_path: Path):
    """A 4 MiB tmpfs (needs root and a kernel that lets it mount one)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = (
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)], capture_output=True, text=True)
        if shutil.which("mount")
        else None
    )
    if mounted is None or mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({mounted.stderr.strip() if mounted else 'no mount'})")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


def _footer(path: Path) -> tuple[int, int]:
    """(where the Parquet file's footer starts, its end) in bytes."""
    data = path.read_bytes()
    length = struct.unpack("<I", data[-8:-4])[0]
    return len(data) - 8 - length, len(data)


@pytest.mark.parametrize("pages", [0, 1], ids=["into-the-footer", "a-page-before-it"])
def test_a_full_disk_while_the_audit_footer_is_written_exits_73(cli, tmp_path: Path, disk: Path, pages: int) -> None:
    games = _many_games(tmp_path / "many.csv", 60_000)
    reference = tmp_path / "reference"  # the same run on a roomy disk: the same bytes, so the same sizes
    assert cli("run", games, "--period", "2025-11", "--out", reference, "--k", "20").exit_code == 0
    ratings = (reference / "ratings" / "period=2025-11" / "part-0.parquet").stat().st_size
    start, end = _footer(reference / "audit" / "period=2025-11" / "part-0.parquet")
    page = os.statvfs(disk).f_frsize
    inside = -(-(start + 1) // page) * page  # the first page boundary inside the footer
    if inside >= end - 8:
        pytest.skip(f"the audit's footer ({start}..{end}) holds no page boundary of this disk")
    out = disk / "out"
    small = write_csv(tmp_path / "small.csv", GAMES.format(result="1-0"))
    assert cli("run", small, "--period", "2025-11", "--out", out, "--k", "20").exit_code == 0
    before = _outputs(out)
    room = -(-ratings // page) * page + inside - pages * page  # the new ratings file, the audit up to there
    free = os.statvfs(disk).f_bavail * page
    (disk / "filler").write_bytes(b"\0" * (free - room))

    result = cli("run", games, "--period", "2025-11", "--out", out, "--k", "20")

    assert result.exit_code == 73, result.output
    assert f"cannot write the outputs (No space left on device: {out}/audit/period=2025-11/part-0.parquet)" in (
        result.output
    )
    assert "internal error" not in result.output and "Traceback" not in result.output
    assert _outputs(out) == before
    assert [p.name for p in out.iterdir() if p.name.startswith(".elo-batch-staging-")] == []


@pytest.mark.parametrize("table_format", ["parquet", "delta"])
def test_a_file_written_short_without_an_error_exits_73(cli, tmp_path: Path, monkeypatch, table_format) -> None:
    if table_format == "delta":
        pytest.importorskip("deltalake")
    games = write_csv(tmp_path / "g.csv", GAMES.format(result="1-0"))
    out = tmp_path / "out"
    args = ("--period", "2025-11", "--out", out, "--k", "20", "--table-format", table_format)
    assert cli("run", games, *args).exit_code == 0
    before = _kept(out, table_format)
    real = pl.LazyFrame.sink_parquet

    def dropped_footer(self, target, *args, **kwargs):  # as polars does when the footer's write fails
        real(self, target, *args, **kwargs)
        if "audit" in str(target) or Path(target).parent.name == "1":
            with open(target, "r+b") as handle:
                handle.truncate(handle.seek(0, os.SEEK_END) - 100)

    monkeypatch.setattr(pl.LazyFrame, "sink_parquet", dropped_footer)
    write_csv(tmp_path / "g.csv", GAMES.format(result="0-1"))

    result = cli("run", games, *args)

    assert result.exit_code == 73, result.output
    assert "the file was written short, and its writer reported no error" in result.output
    assert "/audit/" in result.output and "internal error" not in result.output
    assert _kept(out, table_format) == before


def _kept(out: Path, table_format: str) -> dict[str, object]:
    """What a reader of OUT sees: every file of the hive partitions; the rows of each Delta table."""
    if table_format == "parquet":
        return dict(_outputs(out))
    tables = {table: pl.scan_delta(str(out / table)).collect().rows() for table in ("ratings", "audit", "rejected")}
    return {**tables, "manifest": (out / "manifest" / "period=2025-11" / "manifest.json").read_bytes()}


# --- damaged Delta logs ---------------------------------------------------------------------------

MONTHS = "game_id,date,white_id,black_id,result\n1,2025-11-03,A,B,1-0\n2,2025-12-03,A,B,0-1\n3,2026-01-03,A,B,1/2-1/2"
LOG = Path("_delta_log")


@pytest.fixture
def lake(cli, tmp_path: Path) -> tuple[Path, Path]:
    """OUT holding Delta tables of 2025-11 and 2025-12 (version 1 of each table); the games."""
    pytest.importorskip("deltalake")
    games = write_csv(tmp_path / "g.csv", MONTHS)
    out = tmp_path / "out"
    for period in ("2025-11", "2025-12"):
        assert (
            cli(
                "run", games, "--period", period, "--out", out, "--table-format", "delta", "--ratings", "none"
            ).exit_code
            == 0
        )
    return out, games


def _everything(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*")}


def _truncate(commit: Path) -> None:
    commit.write_bytes(commit.read_bytes()[:100])


DAMAGE = {
    "truncated": ("ratings", f"{1:020}.json", _truncate, "is not whole JSON"),
    "garbage": ("audit", f"{1:020}.json", lambda commit: commit.write_text("garbage{{\n"), "is not whole JSON"),
    "first-missing": ("rejected", f"{0:020}.json", Path.unlink, "the first commit, is missing"),
    "gap": ("ratings", f"{0:020}.json", None, "is missing (the log goes on at"),
}


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_delta_log_exits_73_naming_the_table_and_the_file(cli, tmp_path, lake, kind) -> None:
    out, games = lake
    table, name, damage, problem = DAMAGE[kind]
    if damage is None:  # a commit missing in the middle: version 1 moved to version 2
        log = out / table / LOG
        assert (
            cli(
                "run", games, "--period", "2026-01", "--out", out, "--table-format", "delta", "--ratings", "none"
            ).exit_code
            == 0
        )
        (log / f"{1:020}.json").unlink()
        name = f"{1:020}.json"
    else:
        damage(out / table / LOG / name)
    before = _everything(tmp_path)

    result = cli("run", games, "--period", "2026-01", "--out", out, "--table-format", "delta", "--ratings", "none")

    assert result.exit_code == 73, result.output
    assert f"{out / table}: the Delta table's log is damaged: {LOG / name}" in result.stderr, result.stderr
    assert problem in result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert _everything(tmp_path) == before  # nothing written, in OUT or outside it


@pytest.mark.parametrize("hint", ["ahead", "checkpoint-gone", "not-json"])
def test_a_stale_last_checkpoint_hint_is_legal_and_the_run_succeeds(cli, lake, hint) -> None:
    deltalake = pytest.importorskip("deltalake")
    out, games = lake
    log = out / "ratings" / LOG
    if hint == "ahead":
        (log / "_last_checkpoint").write_text('{"version": 7, "size": 3}')
    elif hint == "checkpoint-gone":
        deltalake.DeltaTable(str(out / "ratings")).create_checkpoint()
        (log / f"{1:020}.checkpoint.parquet").unlink()
    else:
        (log / "_last_checkpoint").write_text("{")

    result = cli("run", games, "--period", "2026-01", "--out", out, "--table-format", "delta", "--ratings", "none")

    assert result.exit_code == 0, result.output
    assert f"{log / '_last_checkpoint'}: " in result.stderr and "a stale hint is legal" in result.stderr
    periods = pl.scan_delta(str(out / "ratings")).select("period").unique().sort("period").collect()
    assert periods["period"].to_list() == ["2025-11", "2025-12", "2026-01"]


def _plant(out: Path, table: str, period: str, *, record: bool) -> None:
    """Add a row of partition ``period`` to ``table``, as another writer could; with ``record``, its commit
    carries an elo-batch record naming that period."""
    deltalake = pytest.importorskip("deltalake")
    import json

    row = pl.scan_delta(str(out / table)).head(1).collect().with_columns(pl.lit(period).alias("period"))
    meta = {"period": period, "run_id": "planted", "table": table}
    options = {"commit_properties": deltalake.CommitProperties(custom_metadata={"elo_batch": json.dumps(meta)})}
    row.write_delta(str(out / table), mode="append", delta_write_options=options if record else None)


@pytest.mark.parametrize("record", [False, True], ids=["rows", "with-an-elo-batch-record"])
@pytest.mark.parametrize("period", ["../x", "/../../x"])
def test_a_planted_partition_is_left_alone_with_a_warning(cli, tmp_path, lake, period, record) -> None:
    out, games = lake
    _plant(out, "ratings", period, record=record)
    outside = _everything(tmp_path) - {p for p in _everything(tmp_path) if p.startswith("out/")}

    result = cli("run", games, "--period", "2026-01", "--out", out, "--table-format", "delta", "--ratings", "none")

    assert result.exit_code == 0, result.output
    assert f"{out / 'ratings'}: partition period={period!r} is not a month of play" in result.stderr
    assert {p for p in _everything(tmp_path) if not p.startswith("out/")} == outside
    table = pl.scan_delta(str(out / "ratings")).group_by("period").len().sort("period").collect()
    assert dict(table.iter_rows()) == {period: 1, "2025-11": 2, "2025-12": 2, "2026-01": 2}


def test_a_planted_partition_stops_a_rewrite_of_the_whole_table(cli, tmp_path) -> None:
    pytest.importorskip("deltalake")
    out = tmp_path / "out"
    numbered = tmp_path / "g.parquet"
    pl.DataFrame({"white_id": [1], "black_id": [2], "result": ["1-0"], "date": ["2025-11-03"]}).write_parquet(numbered)
    texted = write_csv(tmp_path / "g.csv", "white_id,black_id,result,date\n1,X9,0-1,2025-12-03")
    assert (
        cli(
            "run", numbered, "--period", "2025-11", "--out", out, "--table-format", "delta", "--ratings", "none"
        ).exit_code
        == 0
    )
    _plant(out, "ratings", "/../../x", record=False)
    before = _everything(tmp_path)

    result = cli(
        "run", texted, "--period", "2025-12", "--out", out, "--table-format", "delta", "--ratings", "none"
    )  # ids become text

    assert result.exit_code == 73, result.output
    assert "holds a partition period='/../../x', which is not a month of play" in result.stderr
    assert "Traceback" not in result.stderr
    assert _everything(tmp_path) == before  # nothing written, in OUT or outside it
