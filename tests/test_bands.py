"""Rating bands: approximate strength labels of the new rating (never titles), the default table and --bands.

The default table is ``elo_batch/rules/bands.csv`` (source in ``elo_batch/rules/SOURCE.md``): 2700+
elite grandmaster, 2500-2699 grandmaster, ..., 1000-1199 weaker amateur, under 1000 beginner.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import elo_batch
from elo_batch.errors import InputDataError
from elo_batch.inputs.bandsfile import load_bands
from elo_batch.rules.bands import default_bands
from tests.conftest import read_table, write_csv


@pytest.mark.parametrize(
    ("rating", "band"),
    [(999, "beginner"), (1000, "weaker amateur"), (1199, "weaker amateur"), (1200, "average amateur"),
     (1399, "average amateur"), (1400, "third category"), (1599, "third category"), (1600, "second category"),
     (1899, "second category"), (1900, "first category"), (2099, "first category"), (2100, "candidate master"),
     (2299, "candidate master"), (2300, "national master"), (2399, "national master"),
     (2400, "international master"), (2499, "international master"), (2500, "grandmaster"),
     (2699, "grandmaster"), (2700, "elite grandmaster"), (2882, "elite grandmaster"), (None, None)],
)  # fmt: skip
def test_the_default_table_at_its_edges(rating: int | None, band: str | None) -> None:
    series = pl.Series([rating], dtype=pl.Float64)
    assert pl.select(default_bands().label(pl.lit(series))).item() == band


GAMES = "date,white_id,black_id,result\n2025-11-05,A,B,1-0\n2025-11-05,C,D,1-0"
LIST = "player_id,rating,k\nA,1595,20\nB,1605,20\nC,1890,20\nD,1890,20\nE,,"


def test_the_new_list_has_a_band_and_the_summary_counts_moves(cli, tmp_path: Path) -> None:
    """A 1595 beats B 1605: D -10 -> L .49 -> +0.51 x 20 = 10.2 -> 1605 (third -> second category, up);
    B: -0.51 x 20 -> 1595 (down). C 1890 beats D 1890: +10 -> 1900 (second -> first category, up); D
    1880 stays second category. E is unrated: no band."""
    games, ratings = write_csv(tmp_path / "g.csv", GAMES), write_csv(tmp_path / "l.csv", LIST)
    out = tmp_path / "out"

    result = cli("run", games, "--ratings", ratings, "--period", "2025-11", "--out", out)

    assert result.exit_code == 0, result.output
    assert "players: 4 rated, 1 unrated; bands: 2 up, 1 down" in result.stderr
    bands = dict(read_table(out, "ratings", "2025-11").select("player_id", "band").iter_rows())
    assert bands == {"A": "second category", "B": "third category", "C": "first category", "D": "second category",
                     "E": None}  # fmt: skip


def test_the_json_summary_counts_band_moves(cli, tmp_path: Path) -> None:
    games, ratings = write_csv(tmp_path / "g.csv", GAMES), write_csv(tmp_path / "l.csv", LIST)
    result = cli(
        "run", games, "--ratings", ratings, "--period", "2025-11", "--out", tmp_path / "o", "--log-format", "json"
    )
    records = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    assert [r["bands"] for r in records if r["event"] == "period_written"] == [{"up": 2, "down": 1}]


def test_a_federations_own_table(cli, tmp_path: Path) -> None:
    games, ratings = write_csv(tmp_path / "g.csv", GAMES), write_csv(tmp_path / "l.csv", LIST)
    table = write_csv(tmp_path / "bands.csv", "band,min_rating\nclub,1000\nstrong,1900")
    out = tmp_path / "out"

    result = cli("run", games, "--ratings", ratings, "--period", "2025-11", "--out", out, "--bands", table)

    assert result.exit_code == 0, result.output
    assert "bands: 1 up, 0 down" in result.stderr
    bands = dict(read_table(out, "ratings", "2025-11").select("player_id", "band").iter_rows())
    assert bands == {"A": "club", "B": "club", "C": "strong", "D": "club", "E": None}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("label,min_rating\nx,0", "bands.csv: missing column band; the table has label, min_rating"),
        (
            "band,min_rating\nlow,0\nhigh,0",
            "bands.csv, row 2, column min_rating: '0' is the min_rating of another band",
        ),
        ("band,min_rating\n,0\nhigh,1500", "bands.csv, row 1, column band: empty cell: a band needs a label"),
        ("band,min_rating\nlow,0\nhigh,15OO", "bands.csv, row 2, column min_rating: '15OO' is not a lowest rating"),
        ("band,min_rating\nlow,-5", "row 1, column min_rating: '-5' is not a lowest rating; expected a whole number"),
        ("band,min_rating", "bands.csv: the bands table has no rows"),
    ],
)
def test_a_bad_table_is_refused_with_row_column_and_value(cli, tmp_path: Path, text: str, message: str) -> None:
    games, ratings = write_csv(tmp_path / "g.csv", GAMES), write_csv(tmp_path / "l.csv", LIST)
    table = write_csv(tmp_path / "bands.csv", text)

    result = cli("run", games, "--ratings", ratings, "--period", "2025-11", "--out", tmp_path / "o", "--bands", table)

    assert result.exit_code == 65
    assert message in result.output
    assert "Hint: a bands table has one row per band" in result.output
    assert not (tmp_path / "o").exists()


def test_a_missing_table_is_exit_66(cli, tmp_path: Path) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)
    result = cli("validate", games, "--period", "2025-11", "--bands", tmp_path / "nope.csv")
    assert result.exit_code == 66
    assert "nope.csv: cannot read the file" in result.output


def test_the_api_takes_a_path_or_a_frame(tmp_path: Path) -> None:
    games, ratings = pl.read_csv(GAMES.encode()), pl.read_csv(LIST.encode())
    table = pl.DataFrame({"band": ["club", "strong"], "min_rating": [1000, 1900]})
    path = write_csv(tmp_path / "bands.csv", "band,min_rating\nclub,1000\nstrong,1900")

    by_frame = elo_batch.rate_period(games, period="2025-11", ratings=ratings, bands=table)
    by_path = elo_batch.rate_period(games, period="2025-11", ratings=ratings, bands=path)

    assert by_frame.ratings["band"].to_list() == by_path.ratings["band"].to_list() == [
        "club", "club", "strong", "club", None,
    ]  # fmt: skip
    with pytest.raises(TypeError, match="bands must be a path or a polars DataFrame, not int"):
        elo_batch.rate_period(games, period="2025-11", ratings=ratings, bands=3)  # type: ignore[typeddict-item]
    with pytest.raises(InputDataError, match="missing column min_rating"):
        load_bands(pl.DataFrame({"band": ["x"]}))
