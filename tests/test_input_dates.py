"""Dates of the inputs that no date arithmetic can take (issue 20, item 8): a year 0, or a day so late
that the closing date (B.02 7.1.3) or the next list passes 9999, is a bad cell with its file, row,
column, value and the range expected, never exit 70. Every input date is checked: a game's ``date``,
and ``event_start`` / ``event_end`` on game rows or in an events file, as text or as Parquet dates.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import read_table, write_csv

LIST = "player_id,rating\nA,2000\nB,1900\nC,2000\nD,1900\n"
GOOD = "C,D,1-0,2025-11-04,e2,,"
EXPECTED = "expected a date from 0001-01-01 to 9998-12-31"
#: (the bad row's cells, the column refused, its value); the other cells are those of a good row.
BAD_CELLS = [
    ("A,B,1-0,2025-11-03,e1,0000-01-01,2025-11-03", "event_start", "0000-01-01"),
    ("A,B,1-0,2025-11-03,e1,2025-11-01,9999-12-31", "event_end", "9999-12-31"),
    ("A,B,1-0,2025-11-03,e1,9999-12-30,", "event_start", "9999-12-30"),
    ("A,B,1-0,9999-12-31,e1,,", "date", "9999-12-31"),
    ("A,B,1-0,0000-02-29,e1,,", "date", "0000-02-29"),
]


def _run(cli, tmp_path: Path, games: Path, *extra: str | Path):
    ratings = write_csv(tmp_path / "list.csv", LIST)
    return cli("run", games, "--period", "2025-11", "--ratings", ratings, "--out", tmp_path / "out", *extra)


@pytest.mark.parametrize("mode", ["event", "date"])
@pytest.mark.parametrize(("row", "column", "value"), BAD_CELLS)
def test_a_date_out_of_range_on_a_game_row_rejects_the_row(cli, tmp_path, mode, row, column, value) -> None:
    games = write_csv(
        tmp_path / "g.csv", f"white_id,black_id,result,date,event_id,event_start,event_end\n{row}\n{GOOD}"
    )

    result = _run(cli, tmp_path, games, "--period-by", mode)

    assert result.exit_code == 0, result.output
    rejected = read_table(tmp_path / "out", "rejected", "2025-11")
    got = rejected.select("source_row", "column", "value", "reason").rows()
    assert got == [(1, column, value, f"'{value}' is out of range. Hint: {EXPECTED}.")]
    assert sorted(read_table(tmp_path / "out", "audit", "2025-11")["player_id"]) == ["C", "D"]


@pytest.mark.parametrize("column", ["date", "event_start", "event_end"])
@pytest.mark.parametrize("day", [date(1, 1, 1).toordinal() - 1, date(9999, 12, 31).toordinal()])
def test_a_parquet_date_out_of_range_rejects_the_row(cli, tmp_path, column, day) -> None:
    epoch = date(1970, 1, 1).toordinal()
    bad = pl.Series([day - epoch], dtype=pl.Int32).cast(pl.Date)  # 0000-12-31 or 9999-12-31
    cells = {"date": date(2025, 11, 3), "event_start": date(2025, 11, 1), "event_end": date(2025, 11, 3)}
    frame = pl.DataFrame(
        {
            "white_id": ["A", "C"],
            "black_id": ["B", "D"],
            "result": ["1-0", "1-0"],
            "event_id": ["e1", "e2"],
            **{
                name: pl.concat([bad if name == column else pl.Series([v], dtype=pl.Date), pl.Series([v])])
                for name, v in cells.items()
            },
        }
    )
    games = tmp_path / "g.parquet"
    frame.write_parquet(games)

    result = _run(cli, tmp_path, games, "--period-by", "event")

    assert result.exit_code == 0, result.output
    rejected = read_table(tmp_path / "out", "rejected", "2025-11")
    [(row, got_column, value, reason)] = rejected.select("source_row", "column", "value", "reason").rows()
    assert (row, got_column) == (1, column)
    assert reason == f"'{value}' is out of range. Hint: {EXPECTED}."
    assert value == bad.cast(pl.String)[0]


@pytest.mark.parametrize(("cells", "column", "value"), [
    ("e1,0000-01-01,2025-11-03", "event_start", "0000-01-01"),
    ("e1,2025-11-01,9999-12-31", "event_end", "9999-12-31"),
])  # fmt: skip
def test_a_date_out_of_range_in_the_events_file_is_exit_65_naming_it(cli, tmp_path, cells, column, value) -> None:
    games = write_csv(tmp_path / "g.csv", "white_id,black_id,result,date,event_id\nA,B,1-0,2025-11-03,e1")
    events = write_csv(tmp_path / "events.csv", f"event_id,event_start,event_end\n{cells}")

    result = _run(cli, tmp_path, games, "--period-by", "event", "--events", events)

    assert result.exit_code == 65, result.output
    assert f"{events}, row 1, column {column}: '{value}' is out of range" in result.output
    assert EXPECTED in result.output
    assert "internal error" not in result.output
    assert not (tmp_path / "out").exists()
