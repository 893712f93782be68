"""Hostile and odd input files: each ends as exit 0 (rows rejected) or 65 with a message, never as an
internal error, a traceback or a panic; user columns never meet elo-batch's own working columns.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import read_table, write_csv

GAMES = "white_id,black_id,result,date\nA,B,1-0,2025-11-03\n"
LIST = "player_id,rating\nA,2000\nB,1900\n"


def _run(cli, tmp_path: Path, games: Path, *extra: str | Path):
    result = cli("run", games, "--period", "2025-11", "--out", tmp_path / "out", *extra)
    assert "Traceback" not in result.output
    return result


# --- the header line ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "line"),
    [("\n" + GAMES, 1), ("\r\n" + GAMES, 1), ("  \n" + GAMES, 1), ("sep=,\n\n" + GAMES, 2)],
)
def test_a_blank_first_line_is_refused_with_its_line(cli, tmp_path, data, line) -> None:
    games = tmp_path / "g.csv"
    games.write_text(data, encoding="utf-8")

    result = _run(cli, tmp_path, games)

    assert result.exit_code == 65, result.output
    assert f"{games}: line {line} is blank: the header (the column names) must be the first line" in result.output
    assert not (tmp_path / "out").exists()


def test_a_rating_list_with_a_blank_first_line_is_refused(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)
    (tmp_path / "list.csv").write_text("\n" + LIST, encoding="utf-8")

    result = _run(cli, tmp_path, games, "--ratings", tmp_path / "list.csv")

    assert result.exit_code == 65, result.output
    assert "list.csv: line 1 is blank" in result.output


# --- gzip-compressed CSV ------------------------------------------------------------------------


def test_gzip_compressed_games_and_list_are_read(cli, tmp_path) -> None:
    games = tmp_path / "g.csv.gz"
    games.write_bytes(gzip.compress(GAMES.encode()))
    rating_list = tmp_path / "list.csv.gz"
    rating_list.write_bytes(gzip.compress(LIST.encode()))

    result = _run(cli, tmp_path, games, "--ratings", rating_list)

    assert result.exit_code == 0, result.output
    ratings = read_table(tmp_path / "out", "ratings", "2025-11")
    assert dict(ratings.select("player_id", "change").iter_rows()) == {"A": 7, "B": -7}
    manifest = json.loads(next((tmp_path / "out").rglob("manifest*.json")).read_text())
    assert manifest["inputs"]["games"][0]["size"] == games.stat().st_size  # the file as stored


def test_a_folder_of_gzip_compressed_csv_files_is_read(cli, tmp_path) -> None:
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "october.csv.gz").write_bytes(gzip.compress(GAMES.encode()))

    result = _run(cli, tmp_path, tmp_path / "games")

    assert result.exit_code == 0, result.output
    assert "1 rows read" in result.output


def test_a_truncated_gzip_file_is_refused(cli, tmp_path) -> None:
    games = tmp_path / "g.csv.gz"
    games.write_bytes(gzip.compress((GAMES * 50).encode())[:-12])

    result = _run(cli, tmp_path, games)

    assert result.exit_code == 65, result.output
    assert f"{games}: not a readable gzip file" in result.output


def test_a_gzip_bomb_is_refused_before_it_is_inflated_whole(cli, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr("elo_batch.readers.GZIP_FLOOR", 1000)
    games = tmp_path / "g.csv.gz"
    games.write_bytes(gzip.compress((GAMES + "A,B,1-0,2025-11-03\n" * 10_000).encode()))

    result = _run(cli, tmp_path, games)

    assert result.exit_code == 65, result.output
    assert "refused as a likely decompression bomb" in result.output
