"""The 2025 US Championship (sample_data/) against FIDE's own published calculation.

FIDE's numbers: tests/data/fide-us-championship-2025 (copied from ../shared/data; see its SOURCE.md).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import ROOT, TESTS, read_table

FIDE = TESTS / "data" / "fide-us-championship-2025"
GAMES = ROOT / "sample_data" / "us-championship-2025-games.csv"
LIST = ROOT / "sample_data" / "ratings-2025-10.csv"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[pl.DataFrame, pl.DataFrame]:
    from typer.testing import CliRunner

    from elo_batch.cli.app import app

    out = tmp_path_factory.mktemp("us") / "out"
    result = CliRunner().invoke(
        app,
        ["run", str(GAMES), "--ratings", str(LIST), "--period", "2025-10", "--out", str(out)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return read_table(out, "ratings", "2025-10"), read_table(out, "audit", "2025-10")


def _fide_per_side() -> dict[tuple[str, str, int], Decimal]:
    games = pl.read_csv(FIDE / "games.csv", infer_schema=False)
    per_side = {}
    for g in games.iter_rows(named=True):
        rnd = int(g["round"])
        per_side[(g["white_fide_id"], g["black_fide_id"], rnd)] = Decimal(g["fide_white_chg"])
        per_side[(g["black_fide_id"], g["white_fide_id"], rnd)] = Decimal(g["fide_black_chg"])
    return per_side


def test_every_audit_k_change_is_fides_published_change_times_k(outputs) -> None:
    _, audit = outputs
    fide = _fide_per_side()
    assert audit.height == 132
    assert audit["counted"].all()
    assert set(audit["k_used"].to_list()) == {10}
    for row in audit.iter_rows(named=True):
        key = (row["player_id"], row["opponent_id"], int(row["round"]))
        expected = fide[key] * 10
        assert Decimal(str(round(row["k_change"], 2))) == expected, (key, row["k_change"], expected)


def test_players_with_no_other_event_get_their_published_november_rating(outputs) -> None:
    ratings, _ = outputs
    players = pl.read_csv(FIDE / "players.csv", infer_schema=False)
    single = players.filter(pl.col("other_events_K_chg").is_null())
    assert single.height == 10
    got = dict(zip(ratings["player_id"], ratings["rating"], strict=True))
    for p in single.iter_rows(named=True):
        assert got[p["fide_id"]] == int(p["list_2025_11_rating"]), p["fide_id"]


def test_period_total_with_the_other_event_rounds_once_to_the_published_rating(outputs) -> None:
    """2020009 and 13300474 also played the GCT Finals in the period: add FIDE's K x chg of that
    event to ours, round the period total once, and get FIDE's November rating."""
    _, audit = outputs
    players = pl.read_csv(FIDE / "players.csv", infer_schema=False)
    both = players.filter(pl.col("other_events_K_chg").is_not_null())
    assert both.height == 2
    for p in both.iter_rows(named=True):
        ours = sum(Decimal(str(round(v, 2))) for v in audit.filter(pl.col("player_id") == p["fide_id"])["k_change"])
        assert ours == Decimal(p["fide_K_chg"])
        total = ours + Decimal(p["other_events_K_chg"])
        change = int(total.copy_abs().quantize(Decimal(1), rounding=ROUND_HALF_UP)) * (1 if total >= 0 else -1)
        assert int(p["list_2025_10_rating"]) + change == int(p["list_2025_11_rating"])


def test_summary_matches_fides_tournament_report(outputs) -> None:
    ratings, _ = outputs
    players = pl.read_csv(FIDE / "players.csv", infer_schema=False)
    got = {r["player_id"]: r for r in ratings.iter_rows(named=True)}
    for p in players.iter_rows(named=True):
        mine = got[p["fide_id"]]
        assert mine["games"] == int(p["fide_n"])
        assert mine["score"] == pytest.approx(float(p["fide_w"]))
        assert mine["opponents_average"] == int(p["fide_Rc"])
        assert mine["rating_before"] == int(p["fide_Ro"])


def test_sample_data_is_what_the_build_script_writes(tmp_path: Path) -> None:
    """sample_data/ is generated: the committed files equal a fresh build from the FIDE data."""
    import shutil
    import subprocess
    import sys

    work = tmp_path / "sample_data"
    work.mkdir()
    shutil.copy(ROOT / "sample_data" / "build_us_championship.py", work)
    subprocess.run([sys.executable, str(work / "build_us_championship.py"), str(FIDE)], check=True, capture_output=True)
    for name in ("us-championship-2025-games.csv", "ratings-2025-10.csv"):
        assert (work / name).read_bytes() == (ROOT / "sample_data" / name).read_bytes()
