"""The one pipeline: run, validate and rate_period are views of it, and give the same period."""

from __future__ import annotations

import polars as pl

import elo_batch
from elo_batch.job.pipeline import LocalEngine
from elo_batch.job.reading import Engine
from tests.conftest import ROOT, read_table

GAMES = ROOT / "sample_data" / "us-championship-2025-games.csv"
LIST = ROOT / "sample_data" / "ratings-2025-10.csv"


def test_run_validate_and_rate_period_are_one_pipeline(tmp_path) -> None:
    """The 2025 US Championship through each view: the same counts and warnings, and the list written
    is the list handed over (Wesley So +15, FIDE's published November change)."""
    result = elo_batch.rate_period(str(GAMES), period="2025-10", ratings=str(LIST))
    report = elo_batch.validate(str(GAMES), period="2025-10", ratings=str(LIST))
    (summary,) = elo_batch.run(str(GAMES), period="2025-10", ratings=str(LIST), out=tmp_path / "out")

    assert result.counts == report.periods[0].counts == summary.counts
    assert result.warnings == report.periods[0].warnings == summary.warnings
    written = read_table(tmp_path / "out", "ratings", "2025-10")
    assert written.equals(result.ratings)
    so = written.filter(pl.col("player_id") == "30953499").select("rating_before", "change").row(0)
    assert so == (2590, 15)


def test_the_local_engine_is_an_engine() -> None:
    engine: Engine = LocalEngine()  # checked by mypy against the protocol
    members = [name for name in dir(Engine) if not name.startswith("_")]
    assert all(callable(getattr(engine, name)) for name in members)
    assert set(members) == {"alike_rows", "game_ratings_in", "load_games", "rate_periods", "settle"}
