"""One test per kind of bad input: exit code, message text, and every row accounted for.

Row-level problems go to ``rejected`` and the run goes on (exit 0); problems that make a whole file
unusable stop the run (exit 65) before anything is written. The good game in each file is A (2000,
K 20) beating B (1900): PD 0.64 (table 8.1.2, D 100), so A gains 0.36 x 20 = 7.2 -> 7 whatever bad
rows sit beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import read_table, reconciliation, write_csv

LIST = "player_id,rating,k\nA,2000,20\nB,1900,20\nC,2100,10\n"
HEADER = "game_id,date,period,white_id,black_id,result,white_rating,black_rating"
GOOD = "1,2025-11-01,,A,B,1-0,,"


@pytest.fixture
def rating_list(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "list.csv", LIST)


def _run(cli, tmp_path: Path, games: Path, rating_list: Path, *extra: str):
    return cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", tmp_path / "out", *extra)


@pytest.mark.parametrize(
    ("bad_row", "column", "reason"),
    [
        ("2,2025-11-03,,A,B,2-0,,", "result", "'2-0' is not a result. Hint: use 1-0, 0-1, 1/2-1/2"),
        ("2,2025-11-03,,A,B,,,", "result", "missing result"),
        ("2,2025-11-03,,,B,1-0,,", "white_id", "missing white_id"),
        ("2,2025-11-03,,A,,1-0,,", "black_id", "missing black_id"),
        ("2,2025-11-03,,A,A,1-0,,", "black_id", "a player cannot play themselves"),
        ("2,31.11.2025,,A,B,1-0,,", "date", "'31.11.2025' is not a date. Hint: use an ISO date YYYY-MM-DD"),
        ("2,2025-11-31,,A,B,1-0,,", "date", "'2025-11-31' is not a date"),
        ("2,,2025-13,A,B,1-0,,", "period", "'2025-13' is not a period. Hint: use YYYY-MM."),
        ("2,,,A,B,1-0,,", "date", "no date and no period"),
        ("2,2025-11-03,,A,B,1-0,2.000,1900", "white_rating", "'2.000' is not a rating: it looks like a number with"),
        ('2,2025-11-03,,A,B,1-0,"2,000",1900', "white_rating", "'2,000' is not a rating: it looks like a number with"),
        ("2,2025-11-03,,A,B,1-0,2000,1.900", "black_rating", "'1.900' is not a rating: it looks like a number with"),
        ("2,2025-11-03,,A,B,1-0,2000.5,1900", "white_rating", "'2000.5' is not a rating. Hint: a whole number"),
        ("2,2025-11-03,,A,B,1-0,abc,1900", "white_rating", "'abc' is not a rating"),
        ("2,2025-11-03,,A,B,1-0,-5,1900", "white_rating", "rating -5 is out of range. Hint: expected 0 < rating"),
        ("2,2025-11-03,,A,B,1-0,3500,1900", "white_rating", "rating 3500 is out of range. Hint: expected 0 < rating"),
        ("2,2025-11-03,,A,B", None, "the row has 5 fields where the header has 8"),
        ("2,2025-11-03,,A,B,1-0,,,x", None, "the row has 9 fields where the header has 8. Hint: a value that holds"),
    ],
)
def test_a_bad_row_is_rejected_with_file_row_column_and_reason(
    cli, tmp_path, rating_list, bad_row, column, reason
) -> None:
    games = write_csv(tmp_path / "g.csv", f"{HEADER}\n{GOOD}\n{bad_row}")

    result = _run(cli, tmp_path, games, rating_list)

    assert result.exit_code == 0, result.output
    assert reconciliation(result.output) == {"read": 2, "counted": 1, "not_counted": 0, "other": 0, "rejected": 1}
    rejected = read_table(tmp_path / "out", "rejected", "2025-11").row(0, named=True)
    assert (rejected["source_file"], rejected["source_row"], rejected["column"]) == (str(games), 2, column)
    assert reason in rejected["reason"]
    a = read_table(tmp_path / "out", "ratings", "2025-11").filter(pl.col("player_id") == "A").row(0, named=True)
    assert (a["rating"], a["games"]) == (2007, 1)


def test_a_game_id_reused_with_other_content_rejects_every_row_using_it(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", f"{HEADER}\n{GOOD}\n7,2025-11-02,,A,C,1-0,,\n7,2025-11-02,,A,C,0-1,,")

    result = _run(cli, tmp_path, games, rating_list)

    assert result.exit_code == 0, result.output
    assert reconciliation(result.output)["rejected"] == 2
    rejected = read_table(tmp_path / "out", "rejected", "2025-11")
    assert rejected["source_row"].to_list() == [2, 3]
    assert f"game_id '7' is used by rows with different content ({games} row 2, {games} row 3)" in rejected["reason"][0]


def test_an_exact_repeat_is_audited_as_a_duplicate_not_rejected(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", f"{HEADER}\n{GOOD}\n{GOOD}")

    result = _run(cli, tmp_path, games, rating_list)

    assert result.exit_code == 0, result.output
    assert reconciliation(result.output) == {"read": 2, "counted": 1, "not_counted": 1, "other": 0, "rejected": 0}
    audit = read_table(tmp_path / "out", "audit", "2025-11")
    assert audit.filter(pl.col("source_row") == 2)["reason"].to_list() == ["duplicate row"] * 2


def test_a_row_of_another_period_is_counted_as_other_period(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", f"{HEADER}\n{GOOD}\n2,2025-12-01,,A,B,1-0,,\n3,2025-12-01,,A,B,9-9,,")

    result = _run(cli, tmp_path, games, rating_list)

    assert result.exit_code == 0, result.output
    assert reconciliation(result.output) == {"read": 3, "counted": 1, "not_counted": 0, "other": 2, "rejected": 0}


def test_strict_fails_before_anything_is_written(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", f"{HEADER}\n{GOOD}\n2,2025-11-03,,A,B,2-0,,")

    result = _run(cli, tmp_path, games, rating_list, "--strict")

    assert result.exit_code == 65
    assert f"{games}, row 2, column result: 1 row(s) rejected and --strict is set; nothing was written" in result.output
    assert not (tmp_path / "out").exists()


# --- problems that make a whole file unusable: exit 65, nothing written ------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "date,whiteid,black_id,res\n2025-11-01,A,B,1-0",
            "missing columns white_id, result; the file has columns date, whiteid, black_id, res\n"
            "Hint: did you mean 'whiteid' for 'white_id' and 'res' for 'result'?",
        ),
        (
            "player_id,opponent_rtg,result,date\nA,1900,1,2025-11-01",
            "missing column opponent_rating; the file has columns player_id, opponent_rtg, result, date\n"
            "Hint: did you mean 'opponent_rtg' for 'opponent_rating'?",
        ),
        ("white_id,black_id,result,day\nA,B,1-0,2025-11-01", "missing column 'date' (or 'period')"),
        ("date,white_id,black_id,Result,result\n2025-11-01,A,B,1-0,1-0", "columns 'Result' and 'result' both mean"),
    ],
)
def test_a_games_file_without_the_needed_columns_stops_the_run(cli, tmp_path, rating_list, text, message) -> None:
    games = write_csv(tmp_path / "g.csv", text)

    result = _run(cli, tmp_path, games, rating_list)

    assert result.exit_code == 65
    assert message in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the file is empty (0 bytes)\nHint: a CSV file needs at least its header line"),
        (b"\n\r\n  \n", "the file holds only blank lines"),
        (b"\xef\xbb\xbf\r\n", "the file holds only blank lines"),  # a UTF-8 byte-order mark, nothing else
        (b"PK\x03\x04\x14\x00\x06\x00", "the file is a zip archive or an Excel workbook, not CSV text"),
        (b"PAR1 truncated", "not a readable Parquet file"),
        ("white_id,name\n1,Müller\n".encode() + "2,Müller\n".encode("cp1252"), "the file mixes encodings: byte 0xFC"),
        (b"date,white_id,black_id,result\n2025-11-01,A\x81,B,1-0\n", "is not UTF-8 or Windows-1252 text (byte 0x81"),
        ("date,white_id\n".encode("utf-16-le"), "the file holds NUL characters"),
    ],
)
def test_a_games_file_that_is_not_a_table_stops_the_run(cli, tmp_path, rating_list, data, message) -> None:
    games = tmp_path / "g.csv"
    games.write_bytes(data)

    result = _run(cli, tmp_path, games, rating_list)

    assert result.exit_code == 65
    assert message in result.output
    assert not (tmp_path / "out").exists()


def test_a_parquet_column_of_a_nested_type_stops_the_run(cli, tmp_path, rating_list) -> None:
    games = tmp_path / "g.parquet"
    pl.DataFrame({"date": ["2025-11-01"], "white_id": [["A"]], "black_id": ["B"], "result": ["1-0"]}).write_parquet(
        games
    )

    result = _run(cli, tmp_path, games, rating_list)

    assert result.exit_code == 65
    assert "column white_id has type List(String); expected text, a number or a date" in result.output


def test_a_header_only_file_is_a_period_without_games(cli, tmp_path, rating_list) -> None:
    """Deliberate: a month without games is valid; the list is carried forward with change 0."""
    games = write_csv(tmp_path / "g.csv", HEADER)

    result = _run(cli, tmp_path, games, rating_list)

    assert result.exit_code == 0, result.output
    assert reconciliation(result.output)["read"] == 0
    assert f"warning: {games}: no rows (header only)" in result.output
    ratings = read_table(tmp_path / "out", "ratings", "2025-11")
    assert ratings.select("player_id", "rating", "change").rows() == [
        ("A", 2000, 0),
        ("B", 1900, 0),
        ("C", 2100, 0),
    ]


def test_blank_lines_are_skipped_and_reported_and_rows_keep_their_line_numbers(cli, tmp_path, rating_list) -> None:
    games = tmp_path / "g.csv"
    games.write_text(f"{HEADER}\n{GOOD}\n\n,,,,,,,\n2,2025-11-03,,A,B,2-0,,\n\n", encoding="utf-8")

    result = _run(cli, tmp_path, games, rating_list)

    assert result.exit_code == 0, result.output
    assert reconciliation(result.output) == {"read": 2, "counted": 1, "not_counted": 0, "other": 0, "rejected": 1}
    assert f"warning: {games}: 3 blank line(s) skipped" in result.output
    assert read_table(tmp_path / "out", "rejected", "2025-11")["source_row"].to_list() == [4]  # line 5
    manifest = json.loads((tmp_path / "out" / "manifest" / "period=2025-11" / "manifest.json").read_text())
    assert (manifest["inputs"]["games"][0]["rows"], manifest["inputs"]["games"][0]["blank_rows"]) == (2, 3)


# --- the rating list: any problem stops the run -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "player_id,rating\nA,2000\nB,1900\nA,2010",
            "player 'A' is listed twice with different data ({list} row 1, {list} row 3)",
        ),
        ("player_id,rating\nA,2.000\nB,1900", "{list}, row 1, column rating: '2.000' is not a rating: it looks like"),
        ('player_id,rating\nA,"2,000"\nB,1900', "'2,000' is not a rating: it looks like a number with a thousands"),
        ("player_id,rating\nA,3500\nB,1900", "{list}, row 1, column rating: '3500' is out of range"),
        ("player_id,rating\nA,2000\nB,1900,x", "{list}, row 2: the row has 3 fields where the header has 2"),
        ("player_id,elo\nA,2000", "missing column rating; the list has player_id, elo"),
        ("player_id,rating,k\nA,2000,twenty", "'twenty' is not a K-factor"),
        ("player_id,rating\nA,2000\n,1900", "{list}, row 2, column player_id: empty cell: a player id is required"),
        ("player_id,rating,pending\nA,2000,\nN,,2025-13:1:1:1800", "'2025-13:1:1:1800' is not a pending-games record"),
        (
            "player_id,rating,pending\nA,2000,\nN,,2025-11:1:1:1800",
            "player 'N' has pooled games of 2025-11 ('2025-11:1:1:1800'), not before the first period rated, 2025-11",
        ),
        (
            "player_id,rating,pending\nA,2000,\nN,,2025-09:1:1:1800;2025-09:1:1:1800",
            "player 'N' has two pooled-games entries for 2025-09",
        ),
    ],
)
def test_a_bad_rating_list_stops_the_run(cli, tmp_path, text, message) -> None:
    games = write_csv(tmp_path / "g.csv", f"{HEADER}\n{GOOD}")
    rating_list = write_csv(tmp_path / "list.csv", text)

    result = _run(cli, tmp_path, games, rating_list)

    assert result.exit_code == 65
    assert message.format(list=rating_list) in result.output
    assert not (tmp_path / "out").exists()


def test_a_list_row_repeated_exactly_counts_once(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", f"{HEADER}\n{GOOD}")
    rating_list = write_csv(tmp_path / "list.csv", "player_id,rating\nA,2000\nB,1900\nA,2000")

    result = _run(cli, tmp_path, games, rating_list, "--k", "20")

    assert result.exit_code == 0, result.output
    assert read_table(tmp_path / "out", "ratings", "2025-11")["player_id"].to_list() == ["A", "B"]


def test_whole_ratings_written_with_a_zero_fraction_are_whole(cli, tmp_path) -> None:
    """2000.0 (a spreadsheet or pandas export) is the whole number 2000; 2.000 stays an error (above)."""
    games = write_csv(tmp_path / "g.csv", f"{HEADER}\n{GOOD}\n2,2025-11-02,,A,B,1-0,2000.0,1900.00")
    rating_list = write_csv(tmp_path / "list.csv", "player_id,rating,k\nA,2000.0,20.0\nB,1900,20\nC,2100,10")

    result = _run(cli, tmp_path, games, rating_list)

    assert result.exit_code == 0, result.output
    a = read_table(tmp_path / "out", "ratings", "2025-11").filter(pl.col("player_id") == "A").row(0, named=True)
    assert (a["rating_before"], a["change"], a["games"]) == (2000, 14, 2)  # 2 x 0.36 x 20 = 14.4


@pytest.mark.parametrize("token", ["1", "1.0", "1.00", '"1,0"'])
def test_one_sided_scores_written_with_decimals(cli, tmp_path, rating_list, token) -> None:
    games = write_csv(tmp_path / "card.csv", f"player_id,opponent_rating,score,date\nA,1900,{token},2025-11-02\n"
                      "A,2000,0.50,2025-11-03\nA,2000,0,2025-11-04")  # fmt: skip

    result = _run(cli, tmp_path, games, rating_list)

    assert result.exit_code == 0, result.output
    a = read_table(tmp_path / "out", "ratings", "2025-11").filter(pl.col("player_id") == "A").row(0, named=True)
    assert (a["games"], a["score"], a["change"]) == (3, 1.5, -3)  # (0.36 + 0 - 0.5) x 20 = -2.8 -> -3


@pytest.mark.parametrize(
    ("bad_row", "column", "reason"),
    [
        ("2,2025-11-03,,A,B,1-0,２０００,1900", "white_rating", "'２０００' is not a rating"),
        ("2,,２０２５-11,A,B,1-0,,", "period", "'２０２５-11' is not a period"),
        ("2,2025-11-03T25:00,,A,B,1-0,,", "date", "'2025-11-03T25:00' is not a date"),
    ],
)
def test_digits_of_other_scripts_and_impossible_times_are_rejected(cli, tmp_path, rating_list, bad_row, column, reason):
    """Full-width digits pass a Unicode \\d but not a conversion: they must be rejected, not read as empty."""
    games = write_csv(tmp_path / "g.csv", f"{HEADER}\n{GOOD}\n{bad_row}")

    result = _run(cli, tmp_path, games, rating_list)

    assert result.exit_code == 0, result.output
    assert reconciliation(result.output) == {"read": 2, "counted": 1, "not_counted": 0, "other": 0, "rejected": 1}
    rejected = read_table(tmp_path / "out", "rejected", "2025-11").row(0, named=True)
    assert (rejected["column"], reason in rejected["reason"]) == (column, True)


def test_a_list_rating_in_other_digits_stops_the_run(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", f"{HEADER}\n{GOOD}")
    result = _run(cli, tmp_path, games, write_csv(tmp_path / "list.csv", "player_id,rating\nA,２０００\nB,1900"))
    assert result.exit_code == 65
    assert "column rating: '２０００' is not a rating" in result.output


def test_an_undated_bad_row_is_rejected_once_in_a_range(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", f"{HEADER}\n{GOOD}\n2,,,A,B,1-0,,\n3,2025-12-01,,A,B,1-0,,")
    out = tmp_path / "out"

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out", out)

    assert result.exit_code == 0, result.output
    assert read_table(out, "rejected", "2025-11")["source_row"].to_list() == [2]
    assert read_table(out, "rejected", "2025-12").height == 0
    assert "3 rows read = 1 counted + 0 not counted (see audit) + 2 other periods + 0 rejected" in result.output


def test_an_unclosed_quote_is_named(cli, tmp_path, rating_list) -> None:
    games = write_csv(tmp_path / "g.csv", f'{HEADER}\n{GOOD}\n2,2025-11-02,,A,"B,1-0,,\n3,2025-11-03,,A,B,1-0,,')
    result = _run(cli, tmp_path, games, rating_list)
    assert result.exit_code == 0, result.output
    reason = read_table(tmp_path / "out", "rejected", "2025-11")["reason"].item()
    assert "A quoted value in it runs over 2 lines: is a closing quote missing?" in reason


def test_list_columns_that_name_outputs_are_reported(cli, tmp_path) -> None:
    """A FIDE-style list with a `games` column (games of its own period): not carried, and said so."""
    games = write_csv(tmp_path / "g.csv", f"{HEADER}\n{GOOD}")
    rating_list = write_csv(tmp_path / "list.csv", "player_id,rating,games\nA,2000,7\nB,1900,3")
    result = _run(cli, tmp_path, games, rating_list)
    assert result.exit_code == 0, result.output
    assert "list column(s) games name outputs of a period and were not carried" in result.output


def test_nan_in_parquet_float_columns_is_a_missing_value_and_infinity_is_refused(cli, tmp_path) -> None:
    """pandas writes a missing float as NaN: a NaN id or score is missing (the row is rejected), a NaN
    game rating is no rating (the list's is used); an infinite rating is not a rating. Never a crash."""
    games = tmp_path / "g.parquet"
    nan, inf = float("nan"), float("inf")
    pl.DataFrame(
        {
            "date": ["2025-11-03"] * 4,
            "player_id": [1.0, 2.0, nan, 1.0],
            "player_rating": [2000.0, 2000.0, 2000.0, nan],
            "opponent_rating": [1900.0, 1900.0, 1900.0, inf],
            "score": [1.0, nan, 0.5, 1.0],
        }
    ).write_parquet(games)
    rating_list = tmp_path / "l.parquet"
    pl.DataFrame({"player_id": [1, 2, 3], "rating": [2000.0, 2000.0, nan]}).write_parquet(rating_list)

    result = cli.run(f"run {games} --ratings {rating_list} --period 2025-11")

    assert result.exit_code == 0, result.output
    rejected = read_table(tmp_path / "out", "rejected", "2025-11")
    assert rejected.select("source_row", "column", "reason").rows() == [
        (2, "score", "missing score"),
        (3, "player_id", "missing player_id"),
        (4, "opponent_rating", "'inf' is not a rating. Hint: a number of rating points."),
    ]
    ratings = read_table(tmp_path / "out", "ratings", "2025-11")
    # 1 (2000, K 20) beats a 1900: D 100, PD .64, +.36 x 20 = +7.2 -> +7; 3's NaN rating is no rating
    assert ratings.select("player_id", "change", "status").rows() == [  # a float id column is text
        ("1", 7, "rated"),
        ("2", 0, "rated"),
        ("3", None, "unrated"),
    ]
    assert reconciliation(result.output) == {"read": 4, "counted": 1, "not_counted": 0, "other": 0, "rejected": 3}
