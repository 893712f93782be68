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
    # No list but where a test gives one: a new rating pool, said so (without, no rating source: exit 65).
    pool = () if "--ratings" in extra else ("--ratings", "none")
    result = cli("run", games, "--period", "2025-11", "--out", tmp_path / "out", *pool, *extra)
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
    monkeypatch.setattr("elo_batch.inputs.textfile.GZIP_FLOOR", 1000)
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
    from elo_batch.contract.schemas import CANONICAL_SCHEMA

    source = "\n".join(path.read_text() for path in (Path(c.__file__).parent).rglob("*.py"))
    found = set(re.findall(r"[\"'](__[a-z0-9_]+)", source)) - {"__main__"}
    found |= {f"{stem}{name}" for stem in found if stem.endswith("_") for name in ("result", "date", "period")}
    outputs = {*c.AUDIT_OUTPUT, *c.REJECTED_OUTPUT, *c.RATINGS_OUTPUT}
    return sorted(found | set(CANONICAL_SCHEMA) | outputs | {"~x", "~__ragged__"})


GAME_COLUMNS = {"white_id", "black_id", "result", "date", "period", "game_id", "event_id", "round", "white_rating",
                "black_rating", "player_id", "opponent_id", "player_rating", "opponent_rating", "score"}  # fmt: skip
LIST_COLUMNS = {"player_id", "rating", "k", "birth_year", "games_total", "reached_2400", "reached_2300", "pending",
                "period", "rating_before", "change", "k_used", "games", "score", "expected_score", "status",
                "performance_rating", "opponents_average", "adjustment", "band"}  # fmt: skip
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


# --- values polars cannot handle: panics and typed values out of range ----------------------------

DAMAGED = Path(__file__).parent / "data" / "damaged"


@pytest.mark.parametrize("name", ["footer-panic.parquet", "page-panic.parquet"])
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("role", ["games", "ratings"])
def test_a_parquet_file_that_makes_polars_panic_is_exit_65_naming_it(cli, tmp_path, name, stream, role) -> None:
    damaged = DAMAGED / name
    games = damaged if role == "games" else write_csv(tmp_path / "g.csv", GAMES)
    extra = ["--ratings", damaged] if role == "ratings" else []

    result = _run(cli, tmp_path, games, *extra, *(["--chunk-rows", "1"] if stream else []))

    assert result.exit_code == 65, result.output
    assert f"{damaged}: " in result.output
    assert "internal error" not in result.output
    assert not (tmp_path / "out").exists()


def test_a_panic_elsewhere_is_exit_70_with_a_message_not_a_traceback(cli, tmp_path, monkeypatch) -> None:
    def panic(*args, **kwargs):
        raise pl.exceptions.PanicException("index out of bounds")

    monkeypatch.setattr("elo_batch.run", panic)
    games = write_csv(tmp_path / "g.csv", GAMES)

    result = cli("run", games, "--period", "2025-11", "--out", tmp_path / "out")

    assert result.exit_code == 70
    assert "internal error: PanicException: index out of bounds" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("dtype", "values"),
    [
        (pl.Date(), [2**31 - 1, -(2**31), 2_932_897]),  # the largest and smallest date32, the day after 9999-12-31
        (pl.Datetime("us"), [2**62, -(2**62), 2**63 - 1]),
        (pl.Datetime("ms", "Europe/Berlin"), [2**62, -(2**62), 2**63 - 1]),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
def test_parquet_dates_out_of_range_are_rejected_rows(cli, tmp_path, dtype, values, stream) -> None:
    good = pl.Series([20_395], dtype=pl.Int32).cast(pl.Date).cast(dtype)  # 2025-11-03
    physical = pl.Int32 if dtype == pl.Date else pl.Int64
    dates = pl.concat([good, pl.Series(values, dtype=physical).cast(dtype)])
    games = tmp_path / "g.parquet"
    pl.DataFrame(
        {"white_id": ["A", "A", "B", "C"], "black_id": ["B", "C", "C", "A"], "result": ["1-0"] * 4, "date": dates}
    ).write_parquet(games)

    result = _run(cli, tmp_path, games, *(["--chunk-rows", "1"] if stream else []))

    assert result.exit_code == 0, result.output
    rejected = read_table(tmp_path / "out", "rejected", "2025-11")
    assert rejected["source_row"].to_list() == [2, 3, 4]
    assert rejected["column"].to_list() == ["date"] * 3
    assert all(r.startswith("'") and "is out of range. Hint: expected a date from 0001-01-01 to 9998-12-31" in r
               for r in rejected["reason"])  # fmt: skip
    assert rejected["value"][0].startswith(f"{values[0]} ") and rejected["value"][0].endswith(" after 1970-01-01")
    assert json.loads(rejected["raw"][0])["date"] == rejected["value"][0]


@pytest.mark.parametrize("day", [2**31 - 1, -(2**31)])
@pytest.mark.parametrize("stream", [False, True])
def test_a_file_of_the_largest_or_smallest_date32_only_is_rejected_rows(cli, tmp_path, day, stream) -> None:
    games = tmp_path / "g.parquet"
    days = pl.Series([day, day, day - 1 if day > 0 else day + 1], dtype=pl.Int32).cast(pl.Date)
    pl.DataFrame(
        {"white_id": ["A", "B", "C"], "black_id": ["B", "C", "A"], "result": ["1-0"] * 3, "date": days}
    ).write_parquet(games)

    every_row = ("--max-rejected", "100%")  # every row rejected: allowed explicitly (refused by default)
    result = _run(cli, tmp_path, games, *every_row, *(["--chunk-rows", "1"] if stream else []))

    assert result.exit_code == 0, result.output
    assert read_table(tmp_path / "out", "rejected", "2025-11")["column"].to_list() == ["date"] * 3


@pytest.mark.parametrize(("days", "period", "rejected"), [(2_932_531, "9998-12", 0), (2_932_896, "9999-12", 1)])
def test_the_last_day_of_9998_is_the_last_date(cli, tmp_path, days, period, rejected) -> None:
    games = tmp_path / "g.parquet"
    day = pl.Series([days], dtype=pl.Int32).cast(pl.Date)  # 9998-12-31; 9999-12-31: its closing date is past 9999
    pl.DataFrame({"white_id": ["A"], "black_id": ["B"], "result": ["1-0"], "date": day}).write_parquet(games)

    result = cli(
        "run", games, "--period", period, "--out", tmp_path / "out", "--max-rejected", "100%", "--ratings", "none"
    )

    assert result.exit_code == 0, result.output
    counts = f"1 rows read = 0 counted + {1 - rejected} not counted (see audit) + 0 other periods + {rejected} rejected"
    assert counts in result.output  # no list: both unrated


# --- float ids --------------------------------------------------------------------------------


def test_float_ids_are_taken_below_2_53_and_rejected_from_there_on(cli, tmp_path) -> None:
    ids = [2.0**53 - 1, 2.0**53, 2.0**63, 1.5, float("inf"), 7.0]
    games = tmp_path / "g.parquet"
    pl.DataFrame(
        {"white_id": ids, "black_id": [2.0] * 6, "result": ["1-0"] * 6, "date": ["2025-11-03"] * 6}
    ).write_parquet(games)

    result = _run(cli, tmp_path, games)

    assert result.exit_code == 0, result.output
    rejected = read_table(tmp_path / "out", "rejected", "2025-11")
    assert rejected["source_row"].to_list() == [2, 3, 4, 5]
    assert rejected["value"].to_list() == ["9007199254740992.0", "9.223372036854776e+18", "1.5", "inf"]
    assert (
        "is not an id: the column holds numbers with decimals (floats are exact ids only for whole numbers below 2^53)"
        in (rejected["reason"][0])
    )
    audit = read_table(tmp_path / "out", "audit", "2025-11")
    assert set(audit["player_id"]) == {"9007199254740991", "7", "2"}  # exact, and never null


def test_decimal_ids_are_whole_numbers_or_rejected(cli, tmp_path) -> None:
    import decimal

    games = tmp_path / "g.parquet"
    ids = pl.Series([decimal.Decimal("123.00"), decimal.Decimal("5.50")], dtype=pl.Decimal(10, 2))
    pl.DataFrame(
        {"white_id": ids, "black_id": ["2", "2"], "result": ["1-0"] * 2, "date": ["2025-11-03"] * 2}
    ).write_parquet(games)
    rating_list = write_csv(tmp_path / "list.csv", "player_id,rating\n123,2000\n2,1900")

    result = _run(cli, tmp_path, games, "--ratings", rating_list)

    assert result.exit_code == 0, result.output
    assert read_table(tmp_path / "out", "rejected", "2025-11")["value"].to_list() == ["5.50"]
    ratings = read_table(tmp_path / "out", "ratings", "2025-11")
    assert dict(ratings.select("player_id", "change").iter_rows()) == {"123": 7, "2": -7}  # 123.00 is player 123


def test_a_float_game_id_of_2_63_is_rejected_not_null(cli, tmp_path) -> None:
    games = tmp_path / "g.parquet"
    pl.DataFrame(
        {"game_id": [2.0**63, 2.0**63 + 2**11], "white_id": ["A", "B"], "black_id": ["B", "A"],
         "result": ["1-0", "0-1"], "date": ["2025-11-03"] * 2}
    ).write_parquet(games)  # fmt: skip

    result = _run(cli, tmp_path, games, "--max-rejected", "100%")  # both rows rejected: allowed explicitly

    assert result.exit_code == 0, result.output
    assert read_table(tmp_path / "out", "rejected", "2025-11")["column"].to_list() == ["game_id", "game_id"]


def test_a_list_with_a_float_id_of_2_63_is_refused_naming_row_and_value(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)
    rating_list = tmp_path / "list.parquet"
    pl.DataFrame({"player_id": [1.0, 2.0**63], "rating": [2000, 1900]}).write_parquet(rating_list)

    result = _run(cli, tmp_path, games, "--ratings", rating_list)

    assert result.exit_code == 65, result.output
    assert f"{rating_list}, row 2, column player_id: '9.223372036854776e+18' is not an id" in result.output


# --- messages -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "hint"),
    [
        ("WhitePlayer,BlackPlayer,Result,Date", "did you mean 'WhitePlayer' for 'white_id' and 'BlackPlayer' for"),
        ("White FIDE ID,Black FIDE ID,Result,Date", "did you mean 'White FIDE ID' for 'white_id' and 'Black FIDE ID'"),
        ("White_ID,black,Result,Date", "did you mean 'black' for 'black_id'?"),  # White_ID is white_id already
    ],
)
def test_close_match_hints_use_the_files_own_spelling(cli, tmp_path, header, hint) -> None:
    games = write_csv(tmp_path / "g.csv", f"{header}\nA,B,1-0,2025-11-03")

    result = _run(cli, tmp_path, games)

    assert result.exit_code == 65, result.output
    assert f"the file has columns {header.replace(',', ', ')}\nHint: {hint}" in result.output


def test_the_missing_date_hint_is_a_whole_sentence(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", "White_ID,Black_ID,Result,Played On\nA,B,1-0,2025-11-03")

    result = _run(cli, tmp_path, games)

    assert result.exit_code == 65, result.output
    assert (
        "missing column 'date' (or 'period')\nHint: the file has columns White_ID, Black_ID, Result, Played On. "
        "Did you mean 'Played On' for 'date'? A games file needs the date of each game (YYYY-MM-DD), or the "
        "period it is rated in (YYYY-MM).\n"
    ) in result.output


def test_a_list_column_close_to_rating_is_proposed_as_spelled(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)
    rating_list = write_csv(tmp_path / "list.csv", "ID,Elo\nA,2000")

    result = _run(cli, tmp_path, games, "--ratings", rating_list)

    assert result.exit_code == 65, result.output
    assert "missing columns player_id, rating; the list has ID, Elo\nHint: did you mean 'ID' for 'player_id' and " \
        "'Elo' for 'rating'?" in result.output  # fmt: skip


def test_a_negative_list_rating_is_out_of_range(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)
    rating_list = write_csv(tmp_path / "list.csv", "player_id,rating\nA,-5\nB,1900")

    result = _run(cli, tmp_path, games, "--ratings", rating_list)

    assert result.exit_code == 65, result.output
    assert f"{rating_list}, row 1, column rating: '-5' is out of range; expected 0 < rating < 3500" in result.output


def test_a_list_with_several_bad_rows_reports_their_count_and_the_first_ones(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)
    rows = ["A,2000,20", "B,abc,20", "C,-5,20", "D,2000,twenty", "E,2000,20,x", "F,2.000,20", "G,,0", "H,1900,20"]
    rating_list = write_csv(tmp_path / "list.csv", "player_id,rating,k\n" + "\n".join(rows))

    result = _run(cli, tmp_path, games, "--ratings", rating_list)

    assert result.exit_code == 65, result.output
    assert (
        f"{rating_list}: 6 rows of the list are not valid (the first 5 here):\n"
        "  row 2, column rating: 'abc' is not a rating; expected a whole number of rating points, or empty for "
        "unrated\n"
        "  row 3, column rating: '-5' is out of range; expected 0 < rating < 3500 (0 or empty = unrated)\n"
        "  row 4, column k: 'twenty' is not a K-factor; expected a whole number such as 10, 20 or 40\n"
        "  row 5: the row has 4 fields where the header has 3.\n"
        "  row 6, column rating: '2.000' is not a rating: it looks like a number with a thousands separator; "
        "expected plain digits (2000)\n"
        "Hint: fix the rating list; nothing was rated."
    ) in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "xlsx"], "option --format: 'xlsx' is not one of 'parquet', 'csv'"),
        (["--rules", "uscf"], "option --rules: 'uscf' is not one of 'fide', 'elo'"),
        (["--log-format", "xml"], "option --log-format: 'xml' is not one of 'text', 'json'"),
    ],
)
def test_a_bad_choice_is_a_plain_usage_message(tmp_path, capsys, args, message) -> None:
    from elo_batch.cli.app import console

    status = console(["run", "g.csv", "--period", "2025-11", "--out", str(tmp_path / "out"), *args])

    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith(f"elo-batch: error: {message}\nHint: run '")
    assert "Value error" not in err and "Usage:" not in err and "Invalid value" not in err


@pytest.mark.parametrize(
    ("column", "values", "message"),
    [
        ("games_total", ["100", "1e20"], "'1e20' is not a number of games; expected a whole number from 0 to"),
        ("k", [[20], [10]], "column k has type List(String); expected text, a number or a date"),
        ("reached_2400", [b"\x01", b"\x00"], "column reached_2400 has type Binary"),
        ("k", [True, False], "'true' is not a K-factor"),
    ],
)
def test_list_values_no_integer_can_hold_are_refused(cli, tmp_path, column, values, message) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)
    rating_list = tmp_path / "list.parquet"
    values = [[str(v) for v in value] for value in values] if isinstance(values[0], list) else values
    pl.DataFrame({"player_id": ["A", "B"], "rating": [2000, 1900], column: values}).write_parquet(rating_list)

    result = _run(cli, tmp_path, games, "--ratings", rating_list)

    assert result.exit_code == 65, result.output
    assert message in result.output


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_pass_through_list_date_out_of_range_is_refused_before_it_is_written(cli, tmp_path, fmt) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)
    rating_list = tmp_path / "list.parquet"
    joined = pl.Series([18_000, 2**31 - 1], dtype=pl.Int32).cast(pl.Date)
    pl.DataFrame({"player_id": ["A", "B"], "rating": [2000, 1900], "joined": joined}).write_parquet(rating_list)

    result = _run(cli, tmp_path, games, "--ratings", rating_list, "--format", fmt)

    assert result.exit_code == 65, result.output
    assert (
        f"{rating_list}, row 2, column joined: '2147483647 days after 1970-01-01' is out of range; expected a date "
        "from 0000-01-01 to 9999-12-31"
    ) in result.output
    assert not (tmp_path / "out").exists()


def test_the_installed_command_reports_a_panic_without_any_backtrace(tmp_path) -> None:
    import os
    import subprocess

    from tests.test_exit_codes import _installed

    damaged = DAMAGED / "page-panic.parquet"
    argv = [_installed(), "run", str(damaged), "--period", "2025-10", "--out", str(tmp_path / "out")]

    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, env={**os.environ, "RUST_BACKTRACE": "1"})

    assert done.returncode == 65, done.stderr
    assert f"elo-batch: error: {damaged}: not a readable Parquet file" in done.stderr
    assert "Traceback" not in done.stderr and "stack backtrace" not in done.stderr
