"""The ``raw`` of a rejected row: the row as the file holds it, a JSON object under the file's names.

A ragged row (more or fewer fields than the header) holds its own fields only: none of the header's names it
lacks, and each field past the header under its position (issue 20: a short row's ``raw`` under a wide header
held every name with null, 43 s and 7.3 GB for 20,000 rows; a long row's fields past the header were lost).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from elo_batch.inputs.validate import load_games

HEADER = b"white_id,black_id,result,date,note\n"
GOOD = b"A,B,1-0,2025-11-03,x\n"


def _raws(tmp_path: Path, data: bytes) -> dict[int, dict[str, str | None]]:
    path = tmp_path / "games.csv"
    path.write_bytes(data)
    rejected = load_games([str(path)]).rejected
    return {row: json.loads(raw) for row, raw in zip(rejected["source_row"], rejected["raw"], strict=True)}


@pytest.mark.parametrize("end", [b"\n", b"\r\n"])
def test_a_short_row_holds_the_fields_it_has_and_a_long_one_each_of_its_fields(tmp_path, end) -> None:
    rows = [b"A,B,1-0,2025-11-03", b"C,D,0-1,2025-11-04,y,z,w", b"E,F,1-0,2025-11-05,v"]

    raws = _raws(tmp_path, HEADER.replace(b"\n", end) + b"".join(row + end for row in rows))

    assert raws == {
        1: {"white_id": "A", "black_id": "B", "result": "1-0", "date": "2025-11-03"},
        2: {"white_id": "C", "black_id": "D", "result": "0-1", "date": "2025-11-04", "note": "y", "#6": "z", "#7": "w"},
    }


def test_a_ragged_row_of_a_quoted_file_holds_its_fields_as_the_csv_module_reads_them(tmp_path) -> None:
    """A quoted value holds the separator and a line end; cells are trimmed, empty ones null, a formula
    escape undone outside the ids, as every cell is read."""
    data = HEADER + b'"A,1", B ,1-0,2025-11-03\n' + b"C,'=D,1-0,,\"two\nlines\",'=e\n" + GOOD

    raws = _raws(tmp_path, data)

    assert raws[1] == {"white_id": "A,1", "black_id": "B", "result": "1-0", "date": "2025-11-03"}
    assert raws[2] == {
        "white_id": "C", "black_id": "'=D", "result": "1-0", "date": None, "note": "two\nlines", "#6": "=e"
    }  # fmt: skip


def test_a_rejected_row_with_the_headers_fields_holds_every_name_beside_ragged_ones(tmp_path) -> None:
    data = HEADER + b"A,B,2-0,2025-11-03,\n" + b"A,B,1-0\n" + GOOD

    raws = _raws(tmp_path, data)

    assert raws == {
        1: {"white_id": "A", "black_id": "B", "result": "2-0", "date": "2025-11-03", "note": None},
        2: {"white_id": "A", "black_id": "B", "result": "1-0"},
    }


def test_a_long_cell_of_a_used_column_in_a_ragged_row_is_cut_as_in_every_row(tmp_path) -> None:
    from elo_batch.inputs.cellbound import CUT_MARK, MAX_CELL_CHARS

    long = "e" * (MAX_CELL_CHARS + 10)
    data = b"white_id,black_id,result,date,event_id\n" + f"A,B,1-0,2025-11-03,{long},{long}\n".encode()

    raws = _raws(tmp_path, data)

    assert raws[1]["event_id"] == "e" * MAX_CELL_CHARS + CUT_MARK
    assert raws[1]["#6"] == long  # not a used column: as the file holds it


def test_a_ragged_rows_raw_names_a_column_held_under_an_escaped_name_as_the_file_does(tmp_path) -> None:
    """``source_row`` is a name elo-batch adds: the file's column is held escaped, and named as written."""
    raws = _raws(tmp_path, b"white_id,black_id,result,date,source_row\nA,B,1-0,2025-11-03,7,8\n")

    assert raws[1] == {
        "white_id": "A",
        "black_id": "B",
        "result": "1-0",
        "date": "2025-11-03",
        "source_row": "7",
        "#6": "8",
    }
