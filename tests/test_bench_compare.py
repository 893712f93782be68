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
# the yardstick lists only players with games, ids as integers
THEIRS = pl.DataFrame({"player_id": [1001, 1002], "games": [2, 2], "change": [7, -7], "k_used": [20, 20]})


def test_the_same_changes_give_no_difference() -> None:
    assert bench_compare.compare_changes(OURS, THEIRS) == []


def test_a_different_change_is_reported() -> None:
    theirs = THEIRS.with_columns(pl.when(pl.col("player_id") == 1002).then(-8).otherwise("change").alias("change"))
    assert bench_compare.compare_changes(OURS, theirs) == [
        "player 1002: elo-batch games=2 change=-7 k_used=20; yardstick games=2 change=-8 k_used=20"
    ]


def test_a_different_k_and_a_missing_player_are_reported() -> None:
    theirs = pl.concat(
        [
            THEIRS.with_columns(pl.lit(10, pl.Int64).alias("k_used")),
            pl.DataFrame({"player_id": [1004], "games": [1], "change": [3], "k_used": [10]}),
        ]
    )
    lines = bench_compare.compare_changes(OURS, theirs)
    assert len(lines) == 3
    assert lines[0].endswith("yardstick games=2 change=7 k_used=10")
    assert lines[2] == "player 1004: elo-batch games=None change=None k_used=None; yardstick games=1 change=3 k_used=10"
