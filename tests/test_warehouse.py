"""`run --duckdb`: each period loaded into tables ratings, audit, rejected; re-runs keep one copy."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import write_csv

duckdb = pytest.importorskip("duckdb")

GAMES = """
game_id,date,white_id,black_id,result
1,2025-11-03,A,B,1-0
2,2025-11-04,A,C,1-0
3,2025-12-03,A,B,1/2-1/2
4,2025-11-05,A,B,2-0
"""
LIST = """
player_id,rating,k,name
A,2000,20,Alice
B,1900,20,Bob
C,2100,10,Carol
"""


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    return write_csv(tmp_path / "games.csv", GAMES), write_csv(tmp_path / "list.csv", LIST)


def _count(db: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as connection:
        return connection.execute(sql).fetchall()


def test_each_period_is_queryable_right_away(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    db = tmp_path / "elo.duckdb"

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out",
                 tmp_path / "out", "--duckdb", db)  # fmt: skip

    assert result.exit_code == 0, result.output
    # A (2000, K 20): beats B (D 100 -> .64, +7.2) and C (D -100 -> .36, +12.8): +20 -> 2020
    assert _count(db, "SELECT period, rating, name FROM ratings WHERE player_id = 'A' ORDER BY period") == [
        ("2025-11", 2020, "Alice"),
        ("2025-12", 2017, "Alice"),  # 2020 vs 1893: D 127 -> .67, draw -0.17 x 20 = -3.4 -> -3
    ]
    assert _count(db, "SELECT period, count(*) FROM audit GROUP BY period ORDER BY period") == [
        ("2025-11", 4),
        ("2025-12", 2),
    ]
    assert _count(db, "SELECT period, source_row, value FROM rejected") == [("2025-11", 4, "2-0")]


def test_rerunning_a_period_keeps_one_copy_of_its_rows(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    db = tmp_path / "elo.duckdb"
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out", out,
               "--duckdb", db).exit_code == 0  # fmt: skip

    again = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out, "--duckdb", db)

    assert again.exit_code == 0, again.output
    assert _count(db, "SELECT period, count(*) FROM ratings GROUP BY period ORDER BY period") == [
        ("2025-11", 3),
        ("2025-12", 3),
    ]
    assert _count(db, "SELECT count(*) FROM audit WHERE period = '2025-11'") == [(4,)]
    assert _count(db, "SELECT count(*) FROM rejected") == [(1,)]


def test_new_columns_of_a_later_list_are_added(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    db = tmp_path / "elo.duckdb"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", tmp_path / "o",
               "--duckdb", db).exit_code == 0  # fmt: skip
    richer = write_csv(
        tmp_path / "list2.csv", "player_id,rating,k,name,federation\nA,2020,20,Alice,NED\nB,1893,20,Bob,"
    )

    result = cli("run", games, "--ratings", richer, "--period", "2025-12", "--out", tmp_path / "o", "--duckdb", db)

    assert result.exit_code == 0, result.output
    assert _count(db, "SELECT period, federation FROM ratings WHERE player_id = 'A' ORDER BY period") == [
        ("2025-11", None),
        ("2025-12", "NED"),
    ]


def test_database_in_a_missing_folder_exits_73(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", tmp_path / "o",
                 "--duckdb", tmp_path / "no" / "such" / "elo.duckdb")  # fmt: skip
    assert result.exit_code == 73
    assert "cannot open the DuckDB database" in result.stderr
    assert "Hint:" in result.stderr


def test_a_table_with_other_column_types_is_refused_and_keeps_its_rows(cli, tmp_path: Path, inputs) -> None:
    """A ratings table whose rating is text (not written by elo-batch) cannot take this run's: refused (73)."""
    games, rating_list = inputs
    db = tmp_path / "elo.duckdb"
    with duckdb.connect(str(db)) as connection:
        connection.execute("CREATE TABLE ratings (player_id VARCHAR, period VARCHAR, rating VARCHAR)")
        connection.execute("INSERT INTO ratings VALUES ('A', '2025-10', 'two thousand')")

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", tmp_path / "o", "--duckdb", db)

    assert result.exit_code == 73
    assert "table ratings, column rating: the database holds VARCHAR, this period writes BIGINT" in result.output
    assert _count(db, "SELECT * FROM ratings") == [("A", "2025-10", "two thousand")]


def test_text_ids_into_a_table_of_integer_ids_turn_its_ids_into_text(cli, tmp_path: Path, inputs) -> None:
    """Ids compare as text: the table's integer 123 becomes '123' (never folded with a '0123'), and the
    run's text ids join it."""
    games, rating_list = inputs
    db = tmp_path / "elo.duckdb"
    with duckdb.connect(str(db)) as connection:
        connection.execute("CREATE TABLE ratings (player_id BIGINT, period VARCHAR)")
        connection.execute("INSERT INTO ratings VALUES (123, '2025-10')")

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", tmp_path / "o", "--duckdb", db)

    assert result.exit_code == 0, result.output
    assert _count(db, "SELECT player_id, period FROM ratings ORDER BY period, player_id") == [
        ("123", "2025-10"),
        ("A", "2025-11"),
        ("B", "2025-11"),
        ("C", "2025-11"),
    ]


def test_a_bad_database_target_stops_before_anything_is_written(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    not_a_database = write_csv(tmp_path / "notes.duckdb", "this is not a database")

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", tmp_path / "o",
                 "--duckdb", not_a_database)  # fmt: skip

    assert result.exit_code == 73
    assert "cannot open the DuckDB database" in result.output
    assert not (tmp_path / "o" / "ratings").exists()


#: Column names as the list's reader keeps them (lowercase, whitespace as ``_``): SQL comments for spaces.
HOSTILE = [
    'x"/**/integer;delete/**/from/**/audit;commit;alter/**/table/**/ratings/**/add/**/column/**/"q',
    'y"/**/integer;update/**/ratings/**/set/**/rating=0;--',
    'z""/**/varchar);drop/**/table/**/rejected;--',
]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_a_hostile_column_name_is_a_name_and_runs_nothing(cli, tmp_path: Path, inputs, hostile) -> None:
    """A pass-through column of the list arrives in the table under its exact name; its quotes and
    semicolons never reach the SQL parser as SQL."""
    games, rating_list = inputs
    db = tmp_path / "elo.duckdb"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", tmp_path / "o",
               "--duckdb", db).exit_code == 0  # fmt: skip
    ratings = "SELECT player_id, period, rating, name FROM ratings ORDER BY ALL"
    before = [_count(db, sql) for sql in (ratings, "SELECT * FROM audit ORDER BY ALL", "SELECT * FROM rejected")]
    header = '"' + hostile.replace('"', '""') + '"'  # CSV quoting
    hostile_list = write_csv(tmp_path / "list2.csv", f"player_id,rating,k,{header}\nA,2020,20,v\nB,1893,20,w")

    result = cli("run", games, "--ratings", hostile_list, "--period", "2025-12", "--out", tmp_path / "o",
                 "--duckdb", db)  # fmt: skip

    audit = "SELECT * FROM audit ORDER BY ALL"
    after = [_count(db, sql.replace("ORDER", "WHERE period = '2025-11' ORDER")) for sql in (ratings, audit)]
    assert after == before[:2]  # 2025-11 as loaded: no row deleted, no rating set
    assert _count(db, "SELECT * FROM rejected") == before[2]
    assert result.exit_code == 0, result.output
    columns = _count(db, "SELECT column_name FROM information_schema.columns WHERE table_name = 'ratings'")
    name = pl.read_parquet(tmp_path / "o" / "ratings" / "period=2025-12" / "part-0.parquet").columns[-1]
    assert name.startswith(hostile[:3])  # as the list's reader keeps it (lowercase, "-" and spaces as "_")
    assert (name,) in columns  # under the exact name the partitions give it
    assert ("q",) not in columns
    assert _count(db, "SELECT period, rating FROM ratings WHERE player_id = 'A' ORDER BY period") == [
        ("2025-11", 2020),
        ("2025-12", 2017),
    ]


def test_load_period_takes_any_column_name_and_struct_field_as_names(tmp_path: Path) -> None:
    """Library callers pass frames whose names no reader normalised: spaces, quotes, a struct's fields."""
    from elo_batch.outputs import warehouse

    db = str(tmp_path / "elo.duckdb")
    first = pl.DataFrame({"player_id": ["A"], "period": ["2025-11"]})
    warehouse.load_period(db, "2025-11", {"ratings": first, "audit": first, "rejected": first})
    hostile = 'x" INTEGER; DELETE FROM audit; COMMIT; ALTER TABLE ratings ADD COLUMN "q'
    second = first.with_columns(
        pl.lit("v").alias(hostile),
        pl.struct(pl.lit(1).alias('f" INTEGER); DROP TABLE rejected; --')).alias("Nested Col"),
        period=pl.lit("2025-12"),
    )

    warehouse.load_period(db, "2025-12", {"ratings": second, "audit": first.clear(), "rejected": first.clear()})

    assert _count(db, "SELECT period FROM audit") == [("2025-11",)]
    assert _count(db, "SELECT period FROM rejected") == [("2025-11",)]
    columns = _count(db, "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'ratings'")
    assert columns[2:] == [
        (hostile, "VARCHAR"),
        ("Nested Col", 'STRUCT("f"" INTEGER); DROP TABLE rejected; --" INTEGER)'),
    ]


def test_sql_that_parses_as_several_statements_is_never_run(tmp_path: Path) -> None:
    from elo_batch.errors import InternalError
    from elo_batch.outputs import warehouse

    with duckdb.connect(str(tmp_path / "elo.duckdb")) as connection:
        connection.execute("CREATE TABLE audit (a INTEGER)")
        connection.execute("INSERT INTO audit VALUES (1)")
        with pytest.raises(InternalError, match="several statements"):
            warehouse._execute(connection, "SELECT 1; DELETE FROM audit")
        assert connection.execute("SELECT a FROM audit").fetchall() == [(1,)]


# --- the partitions and the database commit together ----------------------------------------------


def _partition(out: Path, period: str) -> list[tuple]:
    frame = pl.read_parquet(out / "ratings" / f"period={period}" / "part-0.parquet")
    return sorted(frame.select("player_id", "rating", "change").rows())


def _database(db: Path, period: str) -> list[tuple]:
    return _count(db, f"SELECT player_id, rating, change FROM ratings WHERE period = '{period}' ORDER BY ALL")


@pytest.fixture
def loaded(cli, tmp_path: Path, inputs) -> tuple[Path, Path, list[tuple], bytes]:
    """OUT and a database holding 2025-11 (A beat B and C); the games then change (B beat A)."""
    games, rating_list = inputs
    out, db = tmp_path / "out", tmp_path / "elo.duckdb"
    assert (
        cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out, "--duckdb", db).exit_code == 0
    )
    write_csv(games, GAMES.replace("1,2025-11-03,A,B,1-0", "1,2025-11-03,A,B,0-1"))
    assert _partition(out, "2025-11") == _database(db, "2025-11")
    return out, db, _database(db, "2025-11"), (out / "audit" / "period=2025-11" / "part-0.parquet").read_bytes()


def _rerun(cli, tmp_path: Path, out: Path, db: Path):
    games, rating_list = tmp_path / "games.csv", tmp_path / "list.csv"
    return cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out, "--duckdb", db)


def _unchanged(out: Path, db: Path, rows: list[tuple], audit: bytes) -> None:
    assert _database(db, "2025-11") == rows
    assert _partition(out, "2025-11") == rows
    assert (out / "audit" / "period=2025-11" / "part-0.parquet").read_bytes() == audit
    assert not list(out.glob(".elo-batch-staging-*"))


def test_a_database_that_refuses_the_period_leaves_the_partitions_as_they_were(cli, tmp_path, loaded) -> None:
    out, db, rows, audit = loaded
    with duckdb.connect(str(db)) as connection:  # a column the run writes as text, held as a number
        connection.execute("ALTER TABLE ratings ALTER COLUMN name TYPE INTEGER USING NULL")

    result = _rerun(cli, tmp_path, out, db)

    assert result.exit_code == 73
    assert "table ratings, column name: the database holds INTEGER" in result.output
    assert "The partitions of period 2025-11 in" in result.output and "were kept as they were too" in result.output
    _unchanged(out, db, rows, audit)


def test_a_database_commit_that_fails_puts_the_swapped_partitions_back(cli, tmp_path, loaded, monkeypatch) -> None:
    out, db, rows, audit = loaded
    from elo_batch.outputs import warehouse

    real = warehouse._connect

    class FailingCommit:
        def __init__(self, connection) -> None:
            self.connection = connection

        def commit(self) -> None:
            raise duckdb.IOException("IO Error: could not write the WAL (disk full)")

        def __getattr__(self, name: str):
            return getattr(self.connection, name)

    monkeypatch.setattr(warehouse, "_connect", lambda module, database: FailingCommit(real(module, database)))

    result = _rerun(cli, tmp_path, out, db)

    assert result.exit_code == 73
    assert "cannot commit period 2025-11 into the DuckDB database (IO Error: could not write the WAL" in result.output
    assert "the database keeps its previous rows" in result.output
    assert "were kept as they were too" in result.output
    _unchanged(out, db, rows, audit)


def test_partitions_that_cannot_be_swapped_leave_the_database_as_it_was(cli, tmp_path, loaded, monkeypatch) -> None:
    import errno

    from elo_batch.outputs import atomic

    out, db, rows, audit = loaded
    real, calls = atomic._swap_in, []

    def failing(*args):
        calls.append(args)
        if len(calls) == 3:
            raise OSError(errno.EIO, "Input/output error")
        real(*args)

    monkeypatch.setattr(atomic, "_swap_in", failing)

    result = _rerun(cli, tmp_path, out, db)

    assert result.exit_code == 73
    assert "cannot write the outputs (Input/output error" in result.output
    assert "the DuckDB database" in result.output and "was not changed either" in result.output
    _unchanged(out, db, rows, audit)


def test_a_partition_commit_failing_after_the_database_committed_says_so(cli, tmp_path, loaded, monkeypatch) -> None:
    import errno

    from elo_batch.outputs import atomic

    out, db, _, _ = loaded
    real = os.remove

    def failing(path, *args, **kwargs):
        if str(path).endswith("journal.json"):
            raise OSError(errno.EIO, "Input/output error", str(path))
        real(path, *args, **kwargs)

    monkeypatch.setattr(atomic.os, "remove", failing)

    result = _rerun(cli, tmp_path, out, db)
    monkeypatch.undo()

    assert result.exit_code == 73
    assert "period 2025-11: the DuckDB database" in result.output
    assert "holds the new rows, but the partitions could not be committed" in result.output
    assert "Hint: re-run the period once the cause is fixed: it replaces both." in result.output


def test_two_runs_sharing_out_and_the_database_leave_a_pair_of_one_run(tmp_path, loaded) -> None:
    """The first run is held up right after it writes 2025-11, the second runs meanwhile: the second
    waits for the first to end (OUT's lock spans the run), so the partitions and the database both end
    as the second run wrote them, never the partitions of one and the rows of the other."""
    from tests.test_atomic_outputs import DRIVER

    out, db, _, _ = loaded
    second_games = write_csv(tmp_path / "other.csv", GAMES.replace("1,2025-11-03,A,B,1-0", "1,2025-11-03,A,B,1/2-1/2"))
    mark = tmp_path / "paused"
    args = ["--ratings", str(tmp_path / "list.csv"), "--period", "2025-11", "--out", str(out), "--duckdb", str(db)]
    env = {**os.environ, "PAUSE_IN": "elo_batch.job.writing:write_period", "PAUSE_AFTER": "1", "PAUSE_SECONDS": "3"}
    first = subprocess.Popen(
        [sys.executable, "-c", DRIVER, "run", str(tmp_path / "games.csv"), *args],
        env={**env, "MARK": str(mark)},
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(1200):
            if mark.exists() or first.poll() is not None:
                break
            time.sleep(0.05)
        assert mark.exists(), first.communicate(timeout=30)
        second = subprocess.run(
            [sys.executable, "-c", DRIVER, "run", str(second_games), *args],
            env={**env, "MARK": str(tmp_path / "unused"), "PAUSE_AFTER": "0"},
            capture_output=True,
            timeout=120,
        )
        _, errors = first.communicate(timeout=120)
        assert first.returncode == 0, errors
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()

    assert second.returncode == 0, second.stderr
    assert _partition(out, "2025-11") == _database(db, "2025-11")
    # the second run's: B (1900) drew with A (2000): D -100 -> 0.36, +0.14 x 20 = 2.8 -> +3
    assert {row[0]: row[2] for row in _database(db, "2025-11")}["B"] == 3


def test_the_hive_files_text_columns_read_as_text_in_duckdb(cli, tmp_path: Path, inputs) -> None:
    """The new list's ``period``, ``status`` and ``band`` are written dictionary-encoded from Categoricals
    (as the audit's text columns are): DuckDB reads text, polars a Categorical of the same values."""
    games, rating_list = inputs
    out = tmp_path / "out"

    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out).exit_code == 0

    ratings = str(out / "ratings" / "period=2025-11" / "part-0.parquet")
    with duckdb.connect() as connection:
        text = connection.execute(f"SELECT player_id, period, status, band FROM '{ratings}' ORDER BY 1").fetchall()
        kinds = connection.execute(f"SELECT column_name, column_type FROM (DESCRIBE FROM '{ratings}')").fetchall()
    assert text == [
        ("A", "2025-11", "rated", "first category"),  # 2020: beat B and C
        ("B", "2025-11", "rated", "second category"),  # 1900 - 7 = 1893
        ("C", "2025-11", "rated", "first category"),  # 2100 - 6 = 2094 (K 10)
    ]
    assert {name: kind for name, kind in kinds if name in ("period", "status", "band")} == dict.fromkeys(
        ("period", "status", "band"), "VARCHAR"
    )
    read = pl.read_parquet(ratings)
    assert read.select("period", "status", "band").dtypes == [pl.Categorical()] * 3
    assert read["band"].cast(pl.String).to_list() == [row[3] for row in text]
