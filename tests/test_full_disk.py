"""A full disk while a period is written exits 73 with a message naming the file, for every file written
(ratings, audit, rejected in Parquet or CSV, the manifest); the previous outputs stay."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from elo_batch.outputs import atomic, encode
from tests.conftest import write_csv

GAMES = "game_id,date,white_id,black_id,result,white_rating,black_rating\n1,2025-11-03,A,B,{result},2000,1900"
FULL = "No space left on device"


def _outputs(out: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(out)): path.read_bytes()
        for path in sorted(out.rglob("*"))
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(out).parts)
    }


def _leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if p.name.startswith(atomic.STAGING_PREFIX))


def _many_games(path: Path, n: int) -> Path:
    """``n`` games of 2025-11 between 5,000 players (a CSV of about 40 bytes a game)."""
    rng = np.random.default_rng(7)
    white = rng.integers(0, 5000, n)
    black = (white + 1 + rng.integers(0, 4998, n)) % 5000
    pl.DataFrame(
        {
            "game_id": np.arange(n).astype(str),
            "date": ["2025-11-03"] * n,
            "white_id": white.astype(str),
            "black_id": black.astype(str),
            "result": rng.choice(["1-0", "0-1", "1/2-1/2"], n),
            "white_rating": rng.integers(1400, 2700, n),
            "black_rating": rng.integers(1400, 2700, n),
        }
    ).write_csv(path)
    return path


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 1 MiB tmpfs (needs root and a kernel that lets it mount one)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)], capture_output=True, text=True, check=False
        )
        if shutil.which("mount")
        else None
    )
    if mounted is None or mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({mounted.stderr.strip() if mounted else 'no mount'})")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=False)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_a_full_disk_exits_73_naming_the_file_and_keeps_the_previous_outputs(cli, tmp_path, small_disk, fmt) -> None:
    out = small_disk / "out"
    games = write_csv(tmp_path / "small.csv", GAMES.format(result="1-0"))
    assert cli("run", games, "--period", "2025-11", "--out", out, "--k", "20", "--format", fmt).exit_code == 0
    before = _outputs(out)

    result = cli("run", _many_games(tmp_path / "many.csv", 60_000), "--period", "2025-11", "--out", out,
                 "--k", "20", "--format", fmt)  # fmt: skip

    assert result.exit_code == 73, result.output
    assert f"cannot write the outputs ({FULL}: {out}/audit/period=2025-11/part-0.{fmt})" in result.output
    assert "internal error" not in result.output
    assert _outputs(out) == before
    assert _leftovers(out) == []


# --- each file, its write sent to /dev/full (the errors polars raises for a full disk) ---------------

WRITERS = {
    "parquet": (pl.DataFrame.write_parquet, pl.LazyFrame.sink_parquet),
    "csv": (pl.DataFrame.write_csv, pl.LazyFrame.sink_csv),
}


def _fill_up(monkeypatch, table_index: int) -> None:
    """polars' writes of the staged table ``table_index`` (0 ratings, 1 audit, 2 rejected) go to /dev/full."""
    for method in (*WRITERS["parquet"], *WRITERS["csv"]):
        owner = pl.DataFrame if method.__qualname__.startswith("DataFrame") else pl.LazyFrame

        def redirected(self, target, *args, __real=method, **kwargs):
            if isinstance(target, str | Path) and Path(target).parent.name == str(table_index):
                target = "/dev/full"
            return __real(self, target, *args, **kwargs)

        monkeypatch.setattr(owner, method.__name__, redirected)


@pytest.fixture
def previous(cli, tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    games = write_csv(tmp_path / "g.csv", GAMES.format(result="1-0"))
    out = tmp_path / "out"
    assert cli("run", games, "--period", "2025-11", "--out", out, "--k", "20").exit_code == 0
    write_csv(tmp_path / "g.csv", GAMES.format(result="0-1") + "\n2,2025-11-04,A,B,2-0,2000,1900")  # one rejected
    return out, _outputs(out)


needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")


@needs_dev_full
@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize(("index", "table"), [(0, "ratings"), (1, "audit"), (2, "rejected")])
def test_a_full_disk_while_writing_any_table_exits_73(cli, tmp_path, previous, monkeypatch, fmt, index, table) -> None:
    out, before = previous
    _fill_up(monkeypatch, index)

    result = cli("run", tmp_path / "g.csv", "--period", "2025-11", "--out", out, "--k", "20", "--format", fmt)

    assert result.exit_code == 73, result.output
    assert f"cannot write the outputs ({FULL}: {out}/{table}/period=2025-11/part-0.{fmt})" in result.output
    assert _outputs(out) == before
    assert _leftovers(out) == []


@needs_dev_full
def test_a_full_disk_while_writing_the_manifest_exits_73(cli, tmp_path, previous, monkeypatch) -> None:
    out, before = previous
    real = Path.write_text

    def write_text(self, data, *args, **kwargs):
        return real(Path("/dev/full") if self.name == "manifest.json" else self, data, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", write_text)

    result = cli("run", tmp_path / "g.csv", "--period", "2025-11", "--out", out, "--k", "20")

    assert result.exit_code == 73, result.output
    assert f"cannot write the outputs ({FULL}: {out}/manifest/period=2025-11/manifest.json)" in result.output
    assert _outputs(out) == before
    assert _leftovers(out) == []


def test_a_polars_error_without_an_os_error_stays_an_internal_error() -> None:
    not_io = pl.exceptions.ComputeError("cannot compare string with numeric type")

    assert encode.os_error(not_io, "x.parquet") is None
    assert encode.os_error(OSError(28, FULL), "x") is not None
