"""The rating list's ``pending`` column: pools as structs in memory, the text form on disk in every format.

``tests/data/pending-before`` holds lists and December outputs written by the build before the pools
became structs (its SOURCE.md says how): they read, and rate, as they did.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import polars.selectors as cs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import elo_batch
from elo_batch.contract import pending
from elo_batch.inputs.ratinglist import load_rating_list
from tests.conftest import TESTS

BEFORE = TESTS / "data" / "pending-before"
INT64_MAX = 2**63 - 1


def _ok(result) -> None:
    assert result.exit_code == 0, result.output


def _december(cli, out: Path, fmt: str, *ratings: str | Path) -> Path:
    """The ratings file of December rated on ``ratings`` (list options) into ``out``, in ``fmt``."""
    _ok(cli("run", BEFORE / "games.csv", "--ratings", *ratings, "--period", "2025-12", "--out", out, "--format", fmt))
    return out / "ratings" / "period=2025-12" / f"part-0.{fmt}"


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_list_written_before_reads_and_rates_as_it_did(cli, tmp_path: Path, fmt: str) -> None:
    """November's list as the build before wrote it (CSV, Parquet): December's list is the one that
    build wrote from it, byte for byte in CSV (pools carried, grown, published, fallen out of the window)."""
    written = _december(cli, tmp_path / "o", fmt, BEFORE / f"november.{fmt}")

    if fmt == "csv":
        assert written.read_bytes() == (BEFORE / "december.csv").read_bytes()
    else:
        assert_frame_equal(pl.read_parquet(written), pl.read_parquet(BEFORE / "december.parquet"))
        assert pl.read_parquet(written).schema["pending"] == pl.String  # the text form on disk


def test_a_range_chains_the_pools_in_memory_as_the_files_do(cli, tmp_path: Path) -> None:
    """October's list rated November..December in one run: the lists the build before wrote month by month."""
    _ok(cli("run", BEFORE / "games.csv", "--ratings", BEFORE / "october.csv", "--period", "2025-11..2025-12",
            "--out", tmp_path / "o", "--format", "csv"))  # fmt: skip

    for period, month in (("2025-11", "november"), ("2025-12", "december")):
        written = tmp_path / "o" / "ratings" / f"period={period}" / "part-0.csv"
        assert written.read_bytes() == (BEFORE / f"{month}.csv").read_bytes(), period


def test_the_list_in_force_holds_pools_as_structs() -> None:
    """A list read holds each pool as its entries, with integer fields."""
    listed, _ = load_rating_list(str(BEFORE / "november.csv"))
    pools = dict(listed.select("player_id", "pending").iter_rows())

    assert listed.schema["pending"] == pending.POOL
    assert pools["P"] == [
        {"period": "2025-09", "games": 2, "score_halves": 3, "opponents_sum": 3500},
        {"period": "2025-10", "games": 1, "score_halves": 0, "opponents_sum": 1700},
        {"period": "2025-11", "games": 1, "score_halves": 1, "opponents_sum": 2100},
    ]
    assert pools["Z"] == [{"period": "2025-11", "games": 0, "score_halves": 0, "opponents_sum": 0}]  # the marker
    assert pools["a"] is None


def test_delta_and_duckdb_hold_the_text_form_and_chain(cli, tmp_path: Path) -> None:
    """The pools in a Delta table and a DuckDB table are the text form; December chained through the
    Delta ``ratings`` table gives the list the build before wrote."""
    pytest.importorskip("deltalake")
    duckdb = pytest.importorskip("duckdb")
    out, db = tmp_path / "delta", tmp_path / "elo.duckdb"
    _ok(cli("run", BEFORE / "games.csv", "--ratings", BEFORE / "october.csv", "--period", "2025-11", "--out", out,
            "--table-format", "delta", "--duckdb", db))  # fmt: skip
    november = pl.read_csv(BEFORE / "november.csv", infer_schema=False).select("player_id", "pending")

    in_delta = pl.scan_delta(str(out / "ratings")).filter(pl.col("period") == "2025-11").collect()
    assert_frame_equal(in_delta.select("player_id", "pending"), november)
    with duckdb.connect(str(db), read_only=True) as connection:
        in_duckdb = connection.execute("SELECT player_id, pending FROM ratings ORDER BY player_id").fetchall()
    assert in_duckdb == list(november.iter_rows())

    written = _december(cli, tmp_path / "hive", "csv", out / "ratings")
    assert written.read_bytes() == (BEFORE / "december.csv").read_bytes()


# --- the codec: the text form both ways ----------------------------------------------------------
ENTRIES = st.tuples(
    st.integers(0, 9999), st.integers(1, 12), st.integers(0, INT64_MAX), st.integers(0, INT64_MAX),
    st.integers(0, INT64_MAX),
)  # fmt: skip


def _text(entry: tuple[int, int, int, int, int]) -> str:
    year, month, games, halves, opponents = entry
    return f"{year:04d}-{month:02d}:{games}:{halves}:{opponents}"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(ENTRIES, min_size=1, max_size=6) | st.none(), min_size=1, max_size=8))
def test_the_text_form_reads_back_as_written(pools: list[list[tuple[int, int, int, int, int]] | None]) -> None:
    """to_text(parse(t)) == t for every text elo-batch writes, and parse gives each part, exactly."""
    texts = [None if pool is None else ";".join(map(_text, pool)) for pool in pools]
    frame = pl.DataFrame({"pending": texts}, schema={"pending": pl.String})

    parsed = frame.select(pending.parse(pl.col("pending")))
    back = parsed.select(pending.to_text(pl.col("pending")))

    assert parsed.schema["pending"] == pending.POOL
    assert back["pending"].to_list() == texts
    assert parsed["pending"].to_list() == [
        None
        if pool is None
        else [
            {"period": f"{y:04d}-{m:02d}", "games": n, "score_halves": w2, "opponents_sum": opp}
            for y, m, n, w2, opp in pool
        ]
        for pool in pools
    ]
    assert (
        not frame.select(
            pending.malformed_text(pl.col("pending")) | pending.malformed(pending.parse(pl.col("pending")))
        )
        .to_series()
        .any()
    )


@pytest.mark.parametrize(
    "text",
    [
        "2025-13:1:1:1800",  # no such month
        "2025-10:1:1",  # a part missing
        "2025-10:1:1:1800;",  # an empty entry
        "2025-10:-1:1:1800",  # a negative number
        "2025-10:1.5:1:1800",
        f"2025-10:{INT64_MAX + 1}:0:0",  # too large for an exact integer
    ],
)
def test_a_malformed_entry_is_found(text: str) -> None:
    frame = pl.DataFrame({"pending": [text]})
    found = frame.select(
        pending.malformed_text(pl.col("pending")) | pending.malformed(pending.parse(pl.col("pending")))
    )
    assert found.item() is True


def test_a_number_too_large_is_a_bad_list_cell_not_a_fault(cli, tmp_path: Path) -> None:
    """A pool's number past Int64 is refused as a malformed pending cell (exit 65), with the list's message."""
    listed = tmp_path / "l.csv"
    listed.write_text(f"player_id,rating,pending\nA,2000,\nN,,2025-09:{INT64_MAX + 1}:1:1800\n")
    games = tmp_path / "g.csv"
    games.write_text("date,white_id,black_id,result\n2025-11-05,N,A,1-0\n")

    result = cli("run", games, "--ratings", listed, "--period", "2025-11", "--out", tmp_path / "o")

    assert result.exit_code == 65, result.output
    assert "is not a pending-games record written by elo-batch" in result.output


def test_the_api_hands_out_the_pools_as_run_writes_them() -> None:
    """``result.ratings`` holds ``pending`` as the files hold it (interface.md: the values ``run`` writes)."""
    result = elo_batch.rate_period(BEFORE / "games.csv", period="2025-12", ratings=BEFORE / "november.csv")
    expected = pl.read_csv(BEFORE / "december.csv", infer_schema=False)
    got = result.ratings.select(cs.all().cast(pl.String))
    assert got["pending"].to_list() == expected["pending"].to_list()
