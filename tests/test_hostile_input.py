"""Hostile and odd input files: each ends as exit 0 (rows rejected) or 65 with a message, never as an
internal error, a traceback or a panic; user columns never meet elo-batch's own working columns.
"""

from __future__ import annotations

import gzip
import json
import re
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


# --- user columns named like elo-batch's own ------------------------------------------------------


def _working_names() -> list[str]:
    """Every working column name written in elo-batch's source (``"__..."``; f-string stems completed
    with a column they take), the canonical rows' columns, the reader's own, and output columns."""
    from elo_batch import columns as c
    from elo_batch.validate import CANONICAL_SCHEMA

    source = "\n".join(path.read_text() for path in (Path(c.__file__).parent).rglob("*.py"))
    found = set(re.findall(r"[\"'](__[a-z0-9_]+)", source)) - {"__main__"}
    found |= {f"{stem}{name}" for stem in found if stem.endswith("_") for name in ("result", "date", "period")}
    outputs = {*c.AUDIT_OUTPUT, *c.REJECTED_OUTPUT, *c.RATINGS_OUTPUT}
    return sorted(found | set(CANONICAL_SCHEMA) | outputs | {"~x", "~__ragged__"})


GAME_COLUMNS = {"white_id", "black_id", "result", "date", "period", "game_id", "event_id", "round", "white_rating",
                "black_rating", "player_id", "opponent_id", "player_rating", "opponent_rating", "score"}  # fmt: skip
LIST_COLUMNS = {"player_id", "rating", "k", "birth_year", "games_total", "reached_2400", "reached_2300", "pending",
                "period", "rating_before", "change", "k_used", "games", "score", "expected_score", "status",
                "performance_rating", "opponents_average"}  # fmt: skip
TWO_MONTHS = pl.DataFrame(
    {
        "white_id": ["A", "B", "A", "C"],
        "black_id": ["B", "C", "C", "C"],  # the last row: a player against themselves, rejected
        "result": ["1-0", "1/2-1/2", "0-1", "1-0"],
        "date": ["2025-11-03", "2025-11-04", "2025-12-01", "2025-12-02"],
    }
)
PLAYERS = pl.DataFrame({"player_id": ["A", "B", "C"], "rating": ["2000", "1900", "2100"]})


def _write(frame: pl.DataFrame, path: Path) -> Path:
    if path.suffix == ".csv":
        frame.write_csv(path)
    else:
        frame.write_parquet(path)
    return path


@pytest.mark.parametrize(("suffix", "stream"), [(".csv", False), (".parquet", False), (".parquet", True)])
def test_columns_named_like_working_columns_change_nothing_and_keep_their_names(cli, tmp_path, suffix, stream) -> None:
    names = _working_names()
    game_extras = [n for n in names if n not in GAME_COLUMNS]
    list_extras = [n for n in names if n not in LIST_COLUMNS]
    games = TWO_MONTHS.with_columns(pl.lit("g-" + n).alias(n) for n in game_extras)
    players = PLAYERS.with_columns(pl.format("{}-" + n.replace("{", "{{"), "player_id").alias(n) for n in list_extras)
    args = ["--period", "2025-11..2025-12", *(["--chunk-rows", "1"] if stream else [])]

    clean = cli(
        "run", _write(TWO_MONTHS, tmp_path / f"clean{suffix}"), "--ratings", _write(PLAYERS, tmp_path / f"cl{suffix}"),
        *args, "--out", tmp_path / "clean",
    )  # fmt: skip
    hostile = cli(
        "run", _write(games, tmp_path / f"games{suffix}"), "--ratings", _write(players, tmp_path / f"list{suffix}"),
        *args, "--out", tmp_path / "out",
    )  # fmt: skip

    assert clean.exit_code == 0, clean.output
    assert hostile.exit_code == 0, hostile.output
    assert "Traceback" not in hostile.output
    assert "column source_row is ignored" in hostile.output and "column source_file is ignored" in hostile.output
    for period in ("2025-11", "2025-12"):
        got = read_table(tmp_path / "out", "ratings", period)
        want = read_table(tmp_path / "clean", "ratings", period)
        assert got.select(want.columns).equals(want)
        assert got.select(list_extras).equals(players.select(list_extras))  # carried, same names, same values
        audit = read_table(tmp_path / "out", "audit", period).drop("source_file")
        assert audit.equals(read_table(tmp_path / "clean", "audit", period).drop("source_file"))
    rejected = read_table(tmp_path / "out", "rejected", "2025-12").row(0, named=True)
    assert (rejected["source_row"], rejected["reason"]) == (4, "a player cannot play themselves")
    raw = json.loads(rejected["raw"])
    assert {n: raw[n] for n in game_extras} == {n: "g-" + n for n in game_extras}  # the row as the user wrote it
