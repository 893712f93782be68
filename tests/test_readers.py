"""Reading CSV files as they come: where rows end, what a row is, and what is recorded about the file."""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl

from elo_batch.inputs.readers import read_table
from tests.conftest import read_table as read_output


def _read(tmp_path: Path, data: bytes):
    path = tmp_path / "t.csv"
    path.write_bytes(data)
    return read_table(str(path))


def test_classic_mac_line_ends_are_line_ends(tmp_path) -> None:
    frame, info = _read(tmp_path, b"a,b,c\r1,2,3\r4,5,6\r")

    assert frame.select("a", "b", "c").rows() == [("1", "2", "3"), ("4", "5", "6")]
    assert info.rows == 2


def test_a_stray_quote_breaks_its_own_rows_not_the_file(tmp_path) -> None:
    """`x"y` opens no quoted value (RFC 4180): the row ends at the line end with 2 of 3 fields."""
    frame, _ = _read(tmp_path, b'a,b,c\n1,x"y\nz",3\n4,5,6\n')

    assert frame["source_row"].to_list() == [1, 2, 3]
    assert (
        frame["__ragged__"].to_list()[:2]
        == [
            "the row has 2 fields where the header has 3. Hint: a value that holds the separator ',' must be in"
            " double quotes.",
        ]
        * 2
    )
    assert frame.row(2, named=True)["c"] == "6"
    assert frame["__ragged__"][2] is None


def test_unnamed_columns_get_a_name_and_padding_is_not_ragged(tmp_path) -> None:
    frame, _ = _read(tmp_path, b"a,b,,\n1,2,,\n")

    assert frame.columns[:4] == ["a", "b", "column_3", "column_4"]
    assert "__ragged__" not in frame.columns


def test_crlf_and_trailing_blank_lines(tmp_path) -> None:
    frame, info = _read(tmp_path, b"a,b\r\n1,2\r\n\r\n3,4\r\n\r\n")

    assert frame.select("a", "b", "source_row").rows() == [("1", "2", 1), ("3", "4", 3)]
    assert (info.rows, info.blank_rows) == (2, 2)


def test_parquet_text_is_trimmed_unless_asked_to_keep_it_as_written(tmp_path) -> None:
    path = tmp_path / "t.parquet"
    pl.DataFrame({"Player ID": [" A", "B\t"], "rating": [2000, 1900]}).write_parquet(path)

    trimmed, _ = read_table(str(path))
    as_written, info = read_table(str(path), trim=False)

    assert trimmed["player_id"].to_list() == ["A", "B"]
    assert as_written["player_id"].to_list() == [" A", "B\t"]
    assert as_written.select("source_row", "source_file").rows() == [(1, str(path)), (2, str(path))]
    assert (info.rows, info.encoding, info.separator) == (2, "parquet", None)


def test_a_parquet_file_is_recorded_with_the_size_and_sha256_of_its_bytes(tmp_path) -> None:
    path = tmp_path / "t.parquet"
    pl.DataFrame({"a": list(range(1000))}).write_parquet(path)
    data = path.read_bytes()

    _, info = read_table(str(path))

    assert (info.size, info.sha256) == (len(data), hashlib.sha256(data).hexdigest())


def test_dictionary_encoded_parquet_text_is_read_as_text(cli, tmp_path: Path) -> None:
    """Categorical and Enum columns (text a writer dictionary-encoded) are trimmed, checked and compared
    as plain text: ' A' is A, a rating '2000' is 2000. A (2000, K 20) beats B (1900): +7.2 -> +7."""
    text = {
        "date": ["2025-11-03"],
        "white_id": [" A"],
        "black_id": ["B "],
        "result": ["1-0"],
        "white_rating": ["2000"],
        "black_rating": ["1900"],
    }
    games = tmp_path / "g.parquet"
    pl.DataFrame(text).with_columns(
        pl.col("white_id", "white_rating").cast(pl.Categorical), pl.col("black_id").cast(pl.Enum(["B "]))
    ).write_parquet(games)
    rating_list = tmp_path / "l.parquet"
    pl.DataFrame({"player_id": ["A ", " B"], "rating": ["2000", "1900"], "k": [20, 20]}).with_columns(
        pl.col("player_id", "rating").cast(pl.Categorical)
    ).write_parquet(rating_list)

    from_rows = cli("run", games, "--period", "2025-11", "--out", tmp_path / "a")
    from_list = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", tmp_path / "b")

    for result, out in ((from_rows, "a"), (from_list, "b")):
        assert result.exit_code == 0, result.output
        ratings = read_output(tmp_path / out, "ratings", "2025-11")
        assert ratings.select("player_id", "change").rows() == [("A", 7), ("B", -7)]


def test_an_unnamed_column_beside_a_column_named_as_elo_batch_names_unnamed_ones_is_not_a_duplicate(tmp_path) -> None:
    """An empty header name is called ``column_<n>`` (its position); a header that also holds that name
    keeps both columns (was: 'columns column_6 and column_6 both mean column_6', exit 65)."""
    frame, info = _read(tmp_path, b"a,b,c,d,e,,column_6,\n1,2,3,4,5,x,y,z\n")

    assert info.header == ("a", "b", "c", "d", "e", "column_6_", "column_6", "column_8")
    assert frame.select("column_6_", "column_6", "column_8").row(0) == ("x", "y", "z")
