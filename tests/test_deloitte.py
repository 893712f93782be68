"""Three real months (Deloitte/FIDE challenge, 88,457 games): a range run equals month-by-month runs.

Needs ../shared/data (as CI has it); skipped with the reason when it is absent.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import ROOT, read_table

SOURCE = ROOT.parent / "shared" / "data" / "deloitte-fide-chess-rating-challenge-test" / "test.csv"
pytestmark = pytest.mark.skipif(not SOURCE.exists(), reason=f"{SOURCE} not found (../shared is not beside the repo)")
PERIODS = ("2025-10", "2025-11", "2025-12")


def _convert_module():
    spec = importlib.util.spec_from_file_location("convert_deloitte", ROOT / "scripts" / "convert_deloitte.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("deloitte")
    module = _convert_module()
    games = module.convert(SOURCE)
    games.write_parquet(folder / "games.parquet")
    module.seed_list(games).write_parquet(folder / "ratings.parquet")
    return folder


def test_conversion_keeps_the_real_games_and_drops_the_decoys(data: Path) -> None:
    """SOURCE.md: 88,457 real games (28,460 / 29,569 / 30,428), 24,926 players, 11,543 decoys."""
    games = pl.read_parquet(data / "games.parquet")
    assert games.height == 88_457
    assert dict(games.group_by("period").len().iter_rows()) == dict(zip(PERIODS, [28_460, 29_569, 30_428], strict=True))
    assert dict(games.group_by("result").len().iter_rows()) == {"1-0": 34_140, "1/2-1/2": 25_742, "0-1": 28_575}
    assert pl.read_parquet(data / "ratings.parquet").height == 24_926


def test_range_run_equals_month_by_month_runs(cli, data: Path, tmp_path: Path) -> None:
    games = data / "games.parquet"
    result = cli("run", games, "--ratings", data / "ratings.parquet", "--period", "2025-10..2025-12",
                 "--out", tmp_path / "range")  # fmt: skip
    assert result.exit_code == 0, result.output
    previous = data / "ratings.parquet"
    for period in PERIODS:
        result = cli("run", games, "--ratings", previous, "--period", period, "--out", tmp_path / "monthly")
        assert result.exit_code == 0, result.output
        previous = tmp_path / "monthly" / "ratings" / f"period={period}" / "part-0.parquet"
        range_file = tmp_path / "range" / "ratings" / f"period={period}" / "part-0.parquet"
        assert range_file.read_bytes() == previous.read_bytes(), period
    december = read_table(tmp_path / "range", "ratings", "2025-12")
    statuses = dict(december.group_by("status").len().iter_rows())
    assert statuses.keys() == {"rated", "new", "unrated"}  # first ratings were published along the way
    assert december.height >= 24_926
