"""Bounded memory on large and hostile inputs (issue 10, item 10): what is read, and what is refused.

Memory itself is measured by ``benchmarks/memory.py``; these tests pin the behaviour that bounds it.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from elo_batch import readers
from elo_batch.errors import InputDataError
from elo_batch.validate import load_games

WIDE = "x" * 3_500


def _wide_parquet(tmp_path: Path) -> str:
    path = tmp_path / "games.parquet"
    pl.DataFrame(
        {
            "White ID": ["A", "A"],
            "comment": [WIDE, "short"],
            "black_id": ["B", "B"],
            "result": ["1-0", "2-0"],
            "date": ["2025-11-03", "2025-11-04"],
            "site": ["Zug", "Bern"],
        }
    ).write_parquet(path)
    return str(path)


def test_a_parquet_games_file_is_read_for_the_game_columns_only(tmp_path, monkeypatch) -> None:
    path = _wide_parquet(tmp_path)
    asked: list[list[str] | None] = []
    real = pl.read_parquet

    def spy(source, *args, **kwargs):
        asked.append(kwargs.get("columns"))
        return real(source, *args, **kwargs)

    monkeypatch.setattr(pl, "read_parquet", spy)

    games = load_games([path])

    assert asked == [["White ID", "black_id", "result", "date"]]
    assert games.files[0].columns == ("white_id", "comment", "black_id", "result", "date", "site")
    assert games.rows.height == 1


def test_rejected_rows_of_a_partly_read_parquet_file_keep_their_whole_row(tmp_path) -> None:
    games = load_games([_wide_parquet(tmp_path)])

    [raw] = games.rejected["raw"].to_list()
    assert json.loads(raw) == {
        "white_id": "A", "comment": "short", "black_id": "B", "result": "2-0", "date": "2025-11-04", "site": "Bern",
    }  # fmt: skip


def test_read_table_reads_every_column_of_a_list(tmp_path) -> None:
    """A rating list's other columns pass through to the new list: all of them are read."""
    path = tmp_path / "list.parquet"
    pl.DataFrame({"player_id": ["A"], "rating": [2000], "name": ["Anna"]}).write_parquet(path)

    frame, info = readers.read_table(str(path))

    assert frame.columns == ["player_id", "rating", "name", "source_row", "source_file"]
    assert info.columns == ("player_id", "rating", "name")


def test_a_missing_column_message_names_the_columns_that_were_not_read(tmp_path) -> None:
    path = tmp_path / "games.parquet"
    pl.DataFrame({"whiteid": ["A"], "black_id": ["B"], "result": ["1-0"], "date": ["2025-11-03"]}).write_parquet(path)

    with pytest.raises(InputDataError) as caught:
        load_games([str(path)])

    message = str(caught.value)
    assert "missing column white_id; the file has columns whiteid, black_id, result, date" in message
    assert "did you mean 'whiteid' for 'white_id'?" in message
