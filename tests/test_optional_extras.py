"""Optional extras (duckdb, obstore, matplotlib, deltalake): a clear usage error naming the extra when missing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import write_csv


@pytest.fixture
def games(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "g.csv", "date,white_id,black_id,result,white_rating,black_rating\n"
                     "2025-11-03,A,B,1-0,2000,1900")  # fmt: skip


def _without(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    for name in list(sys.modules):
        if any(name == m or name.startswith(m + ".") for m in modules):
            monkeypatch.delitem(sys.modules, name)
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)  # makes `import name` raise ImportError


def test_duckdb_missing(cli, games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _without(monkeypatch, "duckdb")
    out = tmp_path / "out"
    result = cli("run", games, "--period", "2025-11", "--out", out, "--duckdb", tmp_path / "x.duckdb")
    assert result.exit_code == 2
    assert "--duckdb needs the duckdb package" in result.stderr
    assert "pip install 'elo-batch[duckdb]'" in result.stderr
    assert not out.exists()  # checked before any work


def test_obstore_missing(cli, games: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _without(monkeypatch, "obstore")
    result = cli("run", games, "--period", "2025-11", "--out", "s3://lake/elo")
    assert result.exit_code == 2
    assert (
        "writing to 's3://lake/elo/ratings/period=2025-11/part-0.parquet' needs the obstore package" in (result.stderr)
        or "needs the obstore package" in result.stderr
    )
    assert "pip install 'elo-batch[cloud]'" in result.stderr


def test_matplotlib_missing(cli, games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    assert cli("run", games, "--period", "2025-11", "--out", out).exit_code == 0
    _without(monkeypatch, "matplotlib")
    result = cli("chart", out, "--player", "A", "-o", tmp_path / "a.png")
    assert result.exit_code == 2
    assert "the chart needs matplotlib" in result.stderr
    assert "pip install 'elo-batch[chart]'" in result.stderr


def test_deltalake_missing(cli, games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _without(monkeypatch, "deltalake")
    out = tmp_path / "out"
    result = cli("run", games, "--period", "2025-11", "--out", out, "--table-format", "delta")
    assert result.exit_code == 2
    assert "option --table-format: --table-format delta needs the deltalake package" in result.stderr
    assert "Hint: install elo-batch with Delta Lake support: pip install 'elo-batch[delta]'." in result.stderr
    assert not out.exists()  # checked before any work


def test_deltalake_missing_for_a_delta_list(cli, games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "lake" / "_delta_log").mkdir(parents=True)  # what makes a folder a Delta table
    _without(monkeypatch, "deltalake")
    result = cli("run", games, "--period", "2025-11", "--ratings", tmp_path / "lake", "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert "option --ratings: reading a Delta table needs the deltalake package" in result.stderr
    assert "pip install 'elo-batch[delta]'" in result.stderr
