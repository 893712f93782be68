"""The benchmark's check against the DuckDB yardstick can fail (benchmarks/compare.py, polars only)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import polars as pl

COMPARE = Path(__file__).resolve().parent.parent / "benchmarks" / "compare.py"
_spec = importlib.util.spec_from_file_location("bench_compare", COMPARE)
assert _spec is not None and _spec.loader is not None
bench_compare = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_compare)

OURS = pl.DataFrame(
    {"player_id": ["1001", "1002", "1003"], "games": [2, 2, 0], "change": [7, -7, 0], "k_used": [20, 20, None]}
)
# the yardstick lists every listed player too (1003 did not play), ids as integers
THEIRS = pl.DataFrame(
    {"player_id": [1001, 1002, 1003], "games": [2, 2, 0], "change": [7, -7, 0], "k_used": [20, 20, None]},
    schema_overrides={"games": pl.Int32, "change": pl.Int32, "k_used": pl.Int32},
)


def test_the_same_changes_give_no_difference() -> None:
    assert bench_compare.compare_changes(OURS, THEIRS) == []


def test_every_player_is_compared_also_those_who_did_not_play() -> None:
    theirs = THEIRS.with_columns(pl.when(pl.col("player_id") == 1003).then(5).otherwise("change").alias("change"))
    assert bench_compare.compare_changes(OURS, theirs) == [
        "player 1003: elo-batch games=0 change=0 k_used=None; yardstick games=0 change=5 k_used=None"
    ]


def test_a_player_who_did_not_play_missing_from_one_list_is_reported() -> None:
    assert bench_compare.compare_changes(OURS, THEIRS.head(2)) == [
        "player 1003: elo-batch games=0 change=0 k_used=None; yardstick games=None change=None k_used=None"
    ]


def test_a_different_change_is_reported() -> None:
    theirs = THEIRS.with_columns(pl.when(pl.col("player_id") == 1002).then(-8).otherwise("change").alias("change"))
    assert bench_compare.compare_changes(OURS, theirs) == [
        "player 1002: elo-batch games=2 change=-7 k_used=20; yardstick games=2 change=-8 k_used=20"
    ]


def test_a_k_used_for_a_player_who_did_not_play_is_reported() -> None:
    theirs = THEIRS.with_columns(pl.col("k_used").fill_null(20))
    assert bench_compare.compare_changes(OURS, theirs) == [
        "player 1003: elo-batch games=0 change=0 k_used=None; yardstick games=0 change=0 k_used=20"
    ]


def test_a_different_k_and_a_missing_player_are_reported() -> None:
    theirs = pl.concat(
        [
            THEIRS.filter(pl.col("player_id") != 1003).with_columns(pl.lit(10, pl.Int32).alias("k_used")),
            pl.DataFrame(
                {"player_id": [1003, 1004], "games": [0, 1], "change": [0, 3], "k_used": [None, 10]},
                schema=THEIRS.schema,
            ),
        ]
    )
    lines = bench_compare.compare_changes(OURS, theirs)
    assert len(lines) == 3
    assert lines[0].endswith("yardstick games=2 change=7 k_used=10")
    assert lines[2] == "player 1004: elo-batch games=None change=None k_used=None; yardstick games=1 change=3 k_used=10"


def test_the_script_reports_a_short_audit_and_a_different_change(tmp_path, capsys) -> None:
    yardstick = tmp_path / "duckdb"
    yardstick.mkdir()
    THEIRS.with_columns(pl.lit(1, pl.Int32).alias("change")).write_parquet(yardstick / "ratings.parquet")
    pl.DataFrame({"game_id": [1, 1, 2, 2]}).write_parquet(yardstick / "audit.parquet")  # 2 games
    OURS.write_parquet(tmp_path / "ratings.parquet")
    pl.DataFrame({"game_id": [1, 1, 2]}).write_parquet(tmp_path / "audit.parquet")

    status = bench_compare.main(
        [str(tmp_path / "ratings.parquet"), str(tmp_path / "audit.parquet"), str(yardstick), "2"]
    )

    lines = capsys.readouterr().out.splitlines()
    assert status == 1
    assert len(lines) == 4  # three players' changes, then the audit
    assert lines[-1] == "audit rows: elo-batch 3, yardstick 4, games x 2 = 4"
