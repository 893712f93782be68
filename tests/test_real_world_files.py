"""Files as federations and spreadsheets write them: encodings, separators, draw spellings, ids, dates.

Reference game: A (2000, K 20) v B (1900, K 20), D = 100, PD 0.64 / 0.36 (table 8.1.2). A win gives
A +0.36 x 20 = 7.2 -> +7 and B -7; a draw gives A -0.14 x 20 = -2.8 -> -3 and B +3.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import read_table, reconciliation, write_csv


def _changes(out: Path, period: str = "2025-11") -> dict[str, int]:
    return dict(read_table(out, "ratings", period).select("player_id", "change").iter_rows())


@pytest.mark.parametrize(
    ("encoding", "club"),
    [
        ("utf-8", "Šahovski klub Ölçü"),
        ("utf-8-sig", "Šahovski klub Ölçü"),
        ("cp1252", "Šahovski klub Ölçü"),  # Š is 0x8A in Windows-1252
        ("latin-1", "Schachklub Ölçü"),  # latin-1 has no Š
        ("utf-16", "Šahovski klub Ölçü"),
    ],
)
def test_text_in_any_common_encoding_comes_through_unchanged(cli, tmp_path, encoding, club) -> None:
    games = tmp_path / "g.csv"
    games.write_bytes(f"date,white_id,black_id,result,event_id\n2025-11-01,A,B,1-0,{club}\n".encode(encoding))
    rating_list = tmp_path / "list.csv"
    rating_list.write_bytes(f"player_id,rating,k,name\nA,2000,20,Müller\nB,1900,20,{club}\n".encode(encoding))
    out = tmp_path / "out"

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out)

    assert result.exit_code == 0, result.output
    ratings = read_table(out, "ratings", "2025-11")
    assert ratings.select("player_id", "name", "change").rows() == [("A", "Müller", 7), ("B", club, -7)]
    assert read_table(out, "audit", "2025-11")["event_id"].to_list() == [club, club]


def test_a_forced_encoding_is_used_and_recorded(cli, tmp_path) -> None:
    games = tmp_path / "g.csv"
    games.write_bytes("date,white_id,black_id,result,white_rating,black_rating,site\n".encode("latin-1"))
    with games.open("ab") as handle:
        handle.write("2025-11-01,A,B,1-0,2000,1900,Malmö\n".encode("latin-1"))
    out = tmp_path / "out"

    result = cli("run", games, "--period", "2025-11", "--out", out, "--k", "20", "--encoding", "latin-1")

    assert result.exit_code == 0, result.output
    assert _changes(out) == {"A": 7, "B": -7}
    manifest = (out / "manifest" / "period=2025-11" / "manifest.json").read_text()
    assert '"encoding": "latin-1"' in manifest


@pytest.mark.parametrize("separator", [",", ";", "\t", "|"])
def test_every_common_separator_is_recognised(cli, tmp_path, separator) -> None:
    rows = [["date", "white_id", "black_id", "result", "white_rating", "black_rating"]]
    rows.append(["2025-11-01", "A", "B", "1-0", "2000", "1900"])
    games = write_csv(tmp_path / "g.csv", "\n".join(separator.join(row) for row in rows))
    out = tmp_path / "out"

    result = cli("run", games, "--period", "2025-11", "--out", out, "--k", "20")

    assert result.exit_code == 0, result.output
    assert _changes(out) == {"A": 7, "B": -7}


def test_an_excel_sep_line_names_the_separator(cli, tmp_path) -> None:
    games = write_csv(
        tmp_path / "g.csv",
        "sep=;\ndate;white_id;black_id;result;white_rating;black_rating\n2025-11-01;A;B;0,5-0,5;2000;1900",
    )
    out = tmp_path / "out"

    result = cli("run", games, "--period", "2025-11", "--out", out, "--k", "20")

    assert result.exit_code == 0, result.output
    assert _changes(out) == {"A": -3, "B": 3}


@pytest.mark.parametrize("draw", ["1/2-1/2", "½-½", "0.5-0.5", "0,5-0,5", "=-=", "½ - ½"])
def test_every_draw_spelling_is_a_draw(cli, tmp_path, draw) -> None:
    games = write_csv(
        tmp_path / "g.csv",
        f"date;white_id;black_id;result;white_rating;black_rating\n2025-11-01;A;B;{draw};2000;1900",
    )
    out = tmp_path / "out"

    result = cli("run", games, "--period", "2025-11", "--out", out, "--k", "20")

    assert result.exit_code == 0, result.output
    assert _changes(out) == {"A": -3, "B": 3}


def test_quoted_values_may_hold_separators_and_line_breaks(cli, tmp_path) -> None:
    games = write_csv(
        tmp_path / "g.csv",
        "date,white_id,black_id,result,white_rating,black_rating,white_name\n"
        '2025-11-01,A,B,1-0,2000,1900,"Carlsen, Magnus"\n'
        '2025-11-02,A,B,2-0,2000,1900,"two\nlines"\n'
        '2025-11-03,A,B,1-0,2000,1900,"He said ""hi"""',
    )
    out = tmp_path / "out"

    result = cli("run", games, "--period", "2025-11", "--out", out, "--k", "20")

    assert result.exit_code == 0, result.output
    assert reconciliation(result.output) == {"read": 3, "counted": 2, "not_counted": 0, "other": 0, "rejected": 1}
    rejected = read_table(out, "rejected", "2025-11").row(0, named=True)
    assert (rejected["source_row"], rejected["column"]) == (2, "result")


def test_ids_are_text_and_keep_their_leading_zeros(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n2025-11-01,0123,123,1-0")
    rating_list = write_csv(tmp_path / "list.csv", "player_id,rating,k\n0123,2000,20\n123,1900,20")
    out = tmp_path / "out"

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out)

    assert result.exit_code == 0, result.output
    assert _changes(out) == {"0123": 7, "123": -7}


@pytest.mark.parametrize("integer_side", ["list", "games"])
def test_an_integer_id_column_matches_a_text_column_with_the_same_digits(cli, tmp_path, integer_side) -> None:
    ids = [1503014, 2020009]
    games_frame = pl.DataFrame({"date": ["2025-11-01"], "white_id": [ids[0]], "black_id": [ids[1]], "result": ["1-0"]})
    list_frame = pl.DataFrame({"player_id": ids, "rating": [2000, 1900], "k": [20, 20]})
    if integer_side == "list":
        games_frame = games_frame.with_columns(pl.col("white_id", "black_id").cast(pl.String))
    else:
        list_frame = list_frame.with_columns(pl.col("player_id").cast(pl.String))
    games_frame.write_parquet(games := tmp_path / "g.parquet")
    list_frame.write_parquet(rating_list := tmp_path / "list.parquet")
    out = tmp_path / "out"

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out)

    assert result.exit_code == 0, result.output
    assert _changes(out) == {"1503014": 7, "2020009": -7}


def test_a_date_with_time_and_offset_is_rated_in_the_month_written(cli, tmp_path) -> None:
    """No time-zone conversion: 23:30 at UTC-5 on 31 October is an October game."""
    games = write_csv(
        tmp_path / "g.csv",
        "date,white_id,black_id,result,white_rating,black_rating\n"
        "2025-10-31T23:30:00-05:00,A,B,1-0,2000,1900\n"
        "2025-11-01T00:30:00+14:00,A,B,1-0,2000,1900\n"
        "2025-11-30 23:59:59Z,A,B,1-0,2000,1900\n"
        "2025-11-15T10:00,A,B,1-0,2000,1900",
    )
    out = tmp_path / "out"

    result = cli("run", games, "--period", "2025-11", "--out", out, "--k", "20")

    assert result.exit_code == 0, result.output
    assert reconciliation(result.output) == {"read": 4, "counted": 3, "not_counted": 0, "other": 1, "rejected": 0}
    audit = read_table(out, "audit", "2025-11").filter(pl.col("colour") == "white")
    assert audit["date"].to_list() == [dt.date(2025, 11, 1), dt.date(2025, 11, 30), dt.date(2025, 11, 15)]


def test_a_parquet_date_time_with_a_time_zone_takes_its_local_date(cli, tmp_path) -> None:
    local = pl.Series([dt.datetime(2025, 10, 31, 23, 30), dt.datetime(2025, 11, 1, 0, 30)])
    pl.DataFrame(
        {
            "date": local.dt.replace_time_zone("America/New_York"),
            "white_id": ["A", "A"],
            "black_id": ["B", "B"],
            "result": ["1-0", "1-0"],
            "white_rating": [2000, 2000],
            "black_rating": [1900, 1900],
        }
    ).write_parquet(games := tmp_path / "g.parquet")
    out = tmp_path / "out"

    result = cli("run", games, "--period", "2025-11", "--out", out, "--k", "20")

    assert result.exit_code == 0, result.output
    assert reconciliation(result.output) == {"read": 2, "counted": 1, "not_counted": 0, "other": 1, "rejected": 0}
