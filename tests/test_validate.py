"""Checking game rows: odd spellings, untrimmed Parquet text, many distinct values, streamed files.

Results, dates, periods and text ratings are checked once per distinct value and looked up per row
when a file in memory has few of them, else per row; these tests pin the answers of both ways.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import polars as pl
import pytest

from elo_batch.inputs.validate import RESULT_HINT, load_games

NOT_A_RESULT = f"is not a result. Hint: {RESULT_HINT}"


def _csv(tmp_path: Path, text: str) -> str:
    path = tmp_path / "games.csv"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _parquet(tmp_path: Path, columns: dict, name: str = "games.parquet") -> str:
    path = tmp_path / name
    pl.DataFrame(columns).write_parquet(path)
    return str(path)


def test_result_spellings_with_spaces_score_as_written_without_them(tmp_path) -> None:
    path = _csv(
        tmp_path,
        "white_id,black_id,result,date\n"
        "A,B, 1 - 0 ,2025-11-03\n"
        "A,C,½ : ½,2025-11-03\n"
        "B,C,0\t-1,2025-11-03\n"
        'C,A,"+ - -",2025-11-03\n'
        "C,B,-- +,2025-11-03\n",
    )

    games = load_games([path])

    assert games.rejected.height == 0
    assert games.rows.select("source_row", "score100", "forfeit").rows() == [
        (1, 100, False),
        (2, 50, False),
        (3, 0, False),
        (4, 100, True),
        (5, 0, True),
    ]


def test_untrimmed_parquet_text_is_read_trimmed(tmp_path) -> None:
    """Parquet text is stored as written: ids, game_id, result, date, period and ratings with spaces
    around them read as without."""
    path = _parquet(
        tmp_path,
        {
            "game_id": [" g1 ", "g2\t"],
            "white_id": [" A", "B "],
            "black_id": ["B ", "\tC"],
            "result": ["\t1-0 ", " 1/2-1/2"],
            "date": [" 2025-11-03 ", None],
            "period": [None, " 2025-12 "],
            "white_rating": [" 2000 ", "1800.0 "],
        },
    )

    games = load_games([path])

    assert games.rejected.height == 0
    assert games.rows.select(
        "game_id", "white_id", "black_id", "score100", "date", "period", "white_rating"
    ).rows() == [
        ("g1", "A", "B", 100, dt.date(2025, 11, 3), "2025-11", 2000.0),
        ("g2", "B", "C", 50, None, "2025-12", 1800.0),
    ]
    assert games.period_rows == {"2025-11": 1, "2025-12": 1}


def test_a_bad_untrimmed_parquet_value_is_reported_trimmed(tmp_path) -> None:
    path = _parquet(
        tmp_path,
        {
            "white_id": ["A", "A", "A", " A "],
            "black_id": ["B", "B", "B", "A"],
            "result": [" 2-0 ", "   ", "1-0", "1-0"],
            "date": ["2025-11-03", "2025-11-03", " 2025-11-31 ", "2025-11-03"],
            "note": [" x ", "y", "z", "w"],
        },
    )

    rejected = load_games([path]).rejected

    assert rejected.select("period", "source_row", "column", "value", "reason").rows() == [
        ("2025-11", 1, "result", "2-0", f"'2-0' {NOT_A_RESULT}"),
        ("2025-11", 2, "result", None, "missing result"),
        (
            None,
            3,
            "date",
            "2025-11-31",
            "'2025-11-31' is not a date. Hint: use an ISO date YYYY-MM-DD (a time may follow).",
        ),
        ("2025-11", 4, "black_id", "A", "a player cannot play themselves"),
    ]
    assert json.loads(rejected["raw"][0]) == {
        "white_id": "A",
        "black_id": "B",
        "result": "2-0",
        "date": "2025-11-03",
        "note": "x",
    }
    assert json.loads(rejected["raw"][1])["result"] == ""  # whitespace only: empty once trimmed


def test_many_distinct_bad_results_are_each_rejected(tmp_path) -> None:
    """2 400 different bad results among 2 500 rows: too many values to look up, checked per row."""
    lines = [f"P{i},Q{i},{'1-0' if i % 25 == 0 else f'x{i}'},2025-11-{i % 30 + 1:02d}" for i in range(2500)]
    path = _csv(tmp_path, "white_id,black_id,result,date\n" + "\n".join(lines) + "\n")

    games = load_games([path])

    assert (games.rows.height, games.rejected.height) == (100, 2400)
    assert games.rejected.row(0, named=True)["reason"] == f"'x1' {NOT_A_RESULT}"
    assert games.rejected["value"][-1] == "x2499"
    assert games.rows["score100"].unique().to_list() == [100]


@pytest.mark.parametrize(
    ("date", "reason"),
    [
        ("2025-11-31", "'2025-11-31' is not a date"),
        ("2025-13-01", "'2025-13-01' is not a date"),
        ("20251103", "'20251103' is not a date"),
        ("2025-11-03T25:00", "'2025-11-03T25:00' is not a date"),
        ("2025-11-03x", "'2025-11-03x' is not a date"),
    ],
)
def test_bad_dates_among_good_ones_are_rejected(tmp_path, date, reason) -> None:
    path = _csv(tmp_path, f"white_id,black_id,result,date\nA,B,1-0,2025-11-03\nA,C,1-0,{date}\nB,C,0-1,2025-11-04\n")

    games = load_games([path])

    assert games.rows["date"].to_list() == [dt.date(2025, 11, 3), dt.date(2025, 11, 4)]
    assert games.rejected.select("source_row", "column").row(0) == (2, "date")
    assert games.rejected["reason"][0].startswith(reason)


def test_a_date_column_over_many_years_gives_each_row_its_month(tmp_path) -> None:
    dates = [dt.date(1969, 12, 31), None, dt.date(2024, 2, 29), dt.date(1900, 1, 1), dt.date(2025, 11, 3)]
    path = _parquet(
        tmp_path,
        {"white_id": [1, 2, 3, 4, 5], "black_id": [2, 3, 4, 5, 1], "result": ["1-0"] * 5, "date": dates},
    )

    games = load_games([path])

    assert games.rows.select("source_row", "period", "date").rows() == [
        (1, "1969-12", dt.date(1969, 12, 31)),
        (3, "2024-02", dt.date(2024, 2, 29)),
        (4, "1900-01", dt.date(1900, 1, 1)),
        (5, "2025-11", dt.date(2025, 11, 3)),
    ]
    assert games.rejected.select("source_row", "reason").rows() == [(2, "no date and no period")]


def test_a_streamed_parquet_file_is_checked_as_one_in_memory(tmp_path) -> None:
    """Streamed (``chunk_rows``), a file is checked row by row: the same rows and rejections as the
    lookups of a file read into memory."""
    results = [" 1-0", "0-1 ", "2-0", "½-½", "  ", None, "+--", "1 / 2 - 1 / 2"]
    dates = [" 2025-11-03", "2025-11-31", None, "2025-11-04T10:00Z", "2025-12-01 ", "x"]
    n = 48
    path = _parquet(
        tmp_path,
        {
            "game_id": [f"g{i % 40}" for i in range(n)],
            "white_id": [f" P{i % 5}" for i in range(n)],
            "black_id": [f"P{i % 7} " for i in range(n)],
            "result": [results[i % len(results)] for i in range(n)],
            "date": [dates[i % len(dates)] for i in range(n)],
            "white_rating": [[" 2000", "2,000", None, "1500.0"][i % 4] for i in range(n)],
        },
    )

    whole, streamed = load_games([path]), load_games([path], chunk_rows=0)

    assert isinstance(streamed.rows, pl.LazyFrame)
    assert streamed.rows.collect().equals(whole.rows)
    assert streamed.rejected.equals(whole.rejected)
    assert streamed.period_rows == whole.period_rows
    assert whole.rows.height > 0
    assert whole.rejected.height > 0


def test_integer_game_ids_repeated_are_flagged_or_rejected(tmp_path) -> None:
    """An exact repeat of an integer game_id is a duplicate; the same id with other content rejects
    every row that uses it."""
    path = _parquet(
        tmp_path,
        {
            "game_id": [7, 8, 7, 9, 8],
            "white_id": [1, 1, 1, 2, 1],
            "black_id": [2, 3, 2, 3, 3],
            "result": ["1-0", "0-1", "1-0", "1-0", "1-0"],
            "date": [dt.date(2025, 11, 3)] * 5,
        },
    )

    games = load_games([path])

    assert games.rows.select("game_id", "source_row", "duplicate").rows() == [
        (7, 1, False),
        (7, 3, True),
        (9, 4, False),
    ]
    assert games.rejected.select("source_row", "column", "value").rows() == [(2, "game_id", "8"), (5, "game_id", "8")]
    assert games.rejected["reason"][0] == (
        f"game_id '8' is used by rows with different content ({path} row 2, {path} row 5). "
        "Hint: give each game its own game_id."
    )
    assert games.period_rows == {"2025-11": 3}


def test_a_streamed_file_of_many_values_is_checked_per_row_as_in_memory_by_lookups(tmp_path) -> None:
    """1 404 distinct results among 4 000 rows: looked up in memory (up to half the rows), checked row
    by row when streamed (more than 1 000): the same answers."""
    n = 4000
    path = _parquet(
        tmp_path,
        {
            "white_id": [f"P{i % 9}" for i in range(n)],
            "black_id": [f" Q{i % 11}" for i in range(n)],
            "result": [[" 1-0", "½-½ ", "0-1", "+--"][i % 4] if i < 2000 else f" r{i % 1400}" for i in range(n)],
            "date": [f"2025-11-{i % 28 + 1:02d}T{i % 24:02d}:00 " for i in range(n)],
        },
    )

    whole, streamed = load_games([path]), load_games([path], chunk_rows=0)

    assert streamed.rows.collect().equals(whole.rows)
    assert streamed.rejected.equals(whole.rejected)
    assert whole.rejected.select("source_row", "value").row(0) == (2001, "r600")
    assert (whole.rows.height, whole.rejected.height) == (2000, 2000)
