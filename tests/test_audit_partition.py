"""The audit's Parquet and Delta files leave ``period`` to the partition (interface.md, "the audit's partition
column"); every reader given the table still shows it, over an ``OUT`` of new files and over one that mixes
them with the files of earlier runs (which held the column).

The games, checked by hand (FIDE table 8.1.2, K 20): November, A (2000) beats B (1900): D 100, PD 0.64,
A +0.36 x 20 = +7.2, B -7.2; December, A (2007) draws with B (1893): D 114, PD 0.66, A -0.16 x 20 = -3.2,
B +3.2.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

import elo_batch
from elo_batch.outputs import encode
from tests.conftest import write_csv

duckdb = pytest.importorskip("duckdb")
deltalake = pytest.importorskip("deltalake")

GAMES = """
game_id,date,event_id,round,white_id,black_id,result
1,2025-11-03,E1,1,A,B,1-0
2,2025-12-03,E2,1,A,B,1/2-1/2
"""
LIST = "player_id,rating,k\nA,2000,20\nB,1900,20\n"
#: (period, player_id, k_change) of every audit row, by hand (see the module).
K_CHANGES = [("2025-11", "A", 7.2), ("2025-11", "B", -7.2), ("2025-12", "A", -3.2), ("2025-12", "B", 3.2)]


@pytest.fixture
def games(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "games.csv", GAMES)


def _run(cli, games: Path, out: Path, period: str, *flags: str | Path) -> None:
    """Rate ``period`` into ``out``: November from the list, December from November's list in ``out``."""
    ratings = out / "ratings" if period == "2025-12" else write_csv(out.parent / "list.csv", LIST)
    result = cli("run", games, "--ratings", ratings, "--period", period, "--out", out, *flags)
    assert result.exit_code == 0, result.output


def _old_run(cli, games: Path, out: Path, period: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``period`` written as runs before issue 24 wrote it: ``period`` inside the audit's file too."""
    with monkeypatch.context() as patch:
        patch.setattr(encode, "PARTITION_ONLY", frozenset())
        _run(cli, games, out, period)


def _both(cli, games: Path, out: Path, *flags: str | Path) -> Path:
    for period in ("2025-11", "2025-12"):
        _run(cli, games, out, period, *flags)
    return out


def _file(out: Path, table: str, period: str) -> pl.DataFrame:
    """The one file of a hive partition, as it is (no partition column from its folder)."""
    return pl.read_parquet(next((out / table / f"period={period}").glob("part-0.*")), hive_partitioning=False)


def _duckdb_hive(out: Path) -> tuple[list[tuple], dict[str, str]]:
    """(period, player_id, k_change) of every row of ``out``'s audit as DuckDB reads the hive table, and
    those columns' types."""
    query = f"SELECT period, player_id, k_change FROM read_parquet('{out}/audit/*/*.parquet', hive_partitioning = true)"
    with duckdb.connect() as connection:
        rows = connection.execute(query + " ORDER BY 1, 2").fetchall()
        kinds = dict(connection.execute(f"SELECT column_name, column_type FROM (DESCRIBE {query})").fetchall())
    return rows, kinds


def _k_changes(frame: pl.DataFrame) -> list[tuple[str, str, float]]:
    rows = frame.select(pl.col("period").cast(pl.String), "player_id", "k_change").sort("period", "player_id")
    return rows.rows()


def test_the_audits_parquet_file_leaves_period_to_its_folder(cli, tmp_path: Path, games: Path) -> None:
    out = _both(cli, games, tmp_path / "out")
    csv = _both(cli, games, tmp_path / "csv", "--format", "csv")

    assert "period" not in _file(out, "audit", "2025-11").columns
    assert _file(out, "audit", "2025-11")["k_change"].to_list() == [7.2, -7.2]
    assert "period" in _file(out, "ratings", "2025-11").columns  # the list and the rejected rows keep it
    assert "period" in _file(out, "rejected", "2025-11").columns
    # a CSV scan has no partitions: a CSV audit keeps the column
    assert pl.read_csv(csv / "audit" / "period=2025-12" / "part-0.csv")["period"].to_list() == ["2025-12"] * 2


def test_polars_reads_the_hive_audit_with_its_period(cli, tmp_path: Path, games: Path) -> None:
    audit = pl.scan_parquet(_both(cli, games, tmp_path / "out") / "audit", hive_partitioning=True).collect()

    assert audit.schema["period"] == pl.String  # the partition's type: text YYYY-MM, not a date
    assert _k_changes(audit) == K_CHANGES


def test_duckdb_reads_the_hive_audit_with_its_period(cli, tmp_path: Path, games: Path) -> None:
    rows, kinds = _duckdb_hive(_both(cli, games, tmp_path / "out"))

    assert rows == K_CHANGES
    assert kinds["period"] == "VARCHAR"


def test_delta_readers_see_the_partition_column_the_files_leave_out(cli, tmp_path: Path, games: Path) -> None:
    out = _both(cli, games, tmp_path / "out", "--table-format", "delta")
    table = deltalake.DeltaTable(str(out / "audit"))

    assert table.metadata().partition_columns == ["period"]
    assert _k_changes(pl.scan_delta(str(out / "audit")).collect()) == K_CHANGES
    assert _k_changes(pl.from_arrow(table.to_pyarrow_table())) == K_CHANGES  # type: ignore[arg-type]
    data = [pl.read_parquet(out / "audit" / file, hive_partitioning=False) for file in table.file_uris()]
    assert [("period" in frame.columns, frame.height) for frame in data] == [(False, 2), (False, 2)]


def test_the_api_and_read_period_give_period_first_as_before(cli, tmp_path: Path, games: Path) -> None:
    out = _both(cli, games, tmp_path / "out")
    delta = _both(cli, games, tmp_path / "delta", "--table-format", "delta")
    rated = elo_batch.rate_period(games, period="2025-11", ratings=write_csv(tmp_path / "list.csv", LIST))

    audit = rated.audit.collect()
    assert (audit.columns[0], audit.schema["period"]) == ("period", pl.Categorical())  # the engine's, unchanged
    assert _k_changes(audit) == K_CHANGES[:2]
    for folder in (out, delta):
        read = [elo_batch.read_period(folder, period).audit for period in ("2025-11", "2025-12")]
        assert [(frame.columns[0], frame.schema["period"]) for frame in read] == [("period", pl.String)] * 2
        assert _k_changes(pl.concat(read)) == K_CHANGES


def test_the_duckdb_table_holds_the_period(cli, tmp_path: Path, games: Path) -> None:
    database = tmp_path / "elo.duckdb"
    _both(cli, games, tmp_path / "out", "--duckdb", database)

    with duckdb.connect(str(database), read_only=True) as connection:
        rows = connection.execute("SELECT period, player_id, k_change FROM audit ORDER BY 1, 2").fetchall()
    assert rows == K_CHANGES


@pytest.mark.parametrize("old", ["2025-11", "2025-12"])
def test_an_out_mixing_old_and_new_audit_files_reads_right(cli, tmp_path, games, monkeypatch, old) -> None:
    """One period's audit written as before issue 24 (``period`` in the file), the other without: every
    reader gives what it gives over new files alone. Raw polars reads such a table without an error and
    without a second column; the first file decides the column's type and place (a Categorical first when
    it is an old file, a String last when a new one)."""
    new = _both(cli, games, tmp_path / "new")
    mixed = tmp_path / "mixed"
    for period in ("2025-11", "2025-12"):
        (_old_run(cli, games, mixed, period, monkeypatch) if period == old else _run(cli, games, mixed, period))
    assert ["period" in _file(mixed, "audit", p).columns for p in ("2025-11", "2025-12")] == [
        old == "2025-11", old == "2025-12"
    ]  # fmt: skip

    scanned = pl.scan_parquet(mixed / "audit", hive_partitioning=True).collect()
    assert _k_changes(scanned) == K_CHANGES and scanned.columns.count("period") == 1
    assert scanned.schema["period"] == (pl.Categorical() if old == "2025-11" else pl.String)
    assert _duckdb_hive(mixed) == (K_CHANGES, {"period": "VARCHAR", "player_id": "VARCHAR", "k_change": "DOUBLE"})
    for period in ("2025-11", "2025-12"):
        assert elo_batch.read_period(mixed, period).audit.equals(elo_batch.read_period(new, period).audit)
    # the report: the same site data over either OUT (but the runs' clock, which the summary shows)
    sites = [elo_batch.report(folder, period="2025-11..2025-12").parent for folder in (new, mixed)]
    texts = [{p.relative_to(site): _unclocked(p.read_text()) for p in (site / "data").rglob("*.js")} for site in sites]
    assert texts[0] == texts[1] and '"A":[0,[[0,2000,2007,7,0],[1,2007,2004,-3,0]]' in str(texts[0])


def _unclocked(text: str) -> str:
    return re.sub(r'"(started|finished)_at": "[^"]*"', "", text)
