"""Bounded memory on large and hostile inputs (issue 10, item 10): what is read, and what is refused.

Memory itself is measured by ``benchmarks/memory.py``; these tests pin the behaviour that bounds it.
"""

from __future__ import annotations

import gzip
import json
import tempfile
import zipfile
from pathlib import Path

import polars as pl
import pytest

from elo_batch.errors import InputDataError
from elo_batch.formats import pgn, pgnsource
from elo_batch.inputs import readers, textfile
from elo_batch.inputs.gamerules import GAME_COLUMNS
from elo_batch.inputs.validate import load_games

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


# --- CSV: the game columns only, the whole row where it is wanted -------------------------------
CSV_HEADER = "white_id,name,black_id,result,date,note"


def _csv(tmp_path: Path, body: str) -> str:
    path = tmp_path / "games.csv"
    path.write_text(f"{CSV_HEADER}\n{body}", encoding="utf-8")
    return str(path)


def test_a_csv_games_file_is_read_for_the_game_columns_only(tmp_path) -> None:
    path = _csv(tmp_path, f'A,"Anna, {WIDE}",B,1-0,2025-11-03,x\n')

    frame, info = readers.read_table(path, columns=GAME_COLUMNS)

    assert frame.columns == ["white_id", "black_id", "result", "date", "source_row", "source_file"]
    assert info.columns == ("white_id", "name", "black_id", "result", "date", "note")


@pytest.mark.parametrize("quoted", [False, True], ids=["plain", "quoted"])
def test_rejected_csv_rows_keep_their_whole_row_and_a_row_of_ignored_cells_is_not_blank(tmp_path, quoted) -> None:
    """Row 2 has only a name (not a blank line: rejected, not skipped); row 4 is blank (skipped)."""
    name = '"Anna, A."' if quoted else "Anna"
    games = load_games(
        [_csv(tmp_path, f"A,{name},B,1-0,2025-11-03,x\n,{name},,,,\nA,{name},B,2-0,2025-11-04,y\n,,,,,\n")]
    )

    assert games.rejected.select("source_row", "column").rows() == [(2, "white_id"), (3, "result")]
    assert json.loads(games.rejected["raw"][1]) == {
        "white_id": "A", "name": name.strip('"'), "black_id": "B", "result": "2-0", "date": "2025-11-04", "note": "y",
    }  # fmt: skip
    assert (games.files[0].rows, games.files[0].blank_rows) == (3, 1)


def test_an_unclosed_quote_in_an_ignored_column_is_named(tmp_path) -> None:
    games = load_games([_csv(tmp_path, 'A,"Anna,B,1-0,2025-11-03,x\nA,Bob,B,1-0,2025-11-03,x\n')])

    [reason] = games.rejected["reason"].to_list()
    assert reason == (
        "the row has 2 fields where the header has 6. Hint: a value that holds the separator ',' must be in double"
        " quotes. A quoted value in it runs over 2 lines: is a closing quote missing?"
    )


def test_a_csv_in_windows_1252_gives_its_rejected_rows_whole(tmp_path) -> None:
    path = tmp_path / "games.csv"
    path.write_bytes(f"{CSV_HEADER}\nA,Müller,B,2-0,2025-11-03,x\n".encode("cp1252"))

    games = load_games([str(path)])

    assert json.loads(games.rejected["raw"][0])["name"] == "Müller"
    assert games.files[0].encoding == "cp1252"


def test_a_blank_first_line_is_bad_input_not_an_internal_error(cli, tmp_path: Path) -> None:
    games = tmp_path / "games.csv"
    games.write_text(f"\n{CSV_HEADER}\nA,Anna,B,1-0,2025-11-03,x\n", encoding="utf-8")

    result = cli("run", games, "--period", "2025-11", "--out", tmp_path / "out")

    assert result.exit_code == 65
    assert f"{games}: line 1 is blank: the header (the column names) must be the first line" in result.stderr


# --- PGN: streamed game by game; zip archives refused past their limits ---------------------------
GAME = '[Event "Open"]\n[Date "2025.11.05"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 1-0\n\n'


def _bomb(path: Path, inflated: int = 2 << 20) -> Path:
    """A zip of one member: ``inflated`` bytes of one game repeated (deflate: over 200 times smaller)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("games.pgn", (GAME * (inflated // len(GAME) + 1))[:inflated])
    return path


def test_a_zip_bomb_is_refused_before_it_is_inflated(cli, tmp_path: Path) -> None:
    archive = _bomb(tmp_path / "bomb.zip")
    out = tmp_path / "games.parquet"

    result = cli("import", "pgn", archive, "-o", out)

    assert result.exit_code == 65
    assert f"{archive}: member 'games.pgn' would inflate from " in result.stderr
    assert "to 2.0 MiB (" in result.stderr and "PGN text compresses at most about 100 times" in result.stderr
    assert "Hint: the archive looks like a zip bomb and was not read. If you trust it, unzip it" in result.stderr
    assert not out.exists()


def test_an_archive_inflating_past_the_total_limit_is_refused(cli, tmp_path: Path, monkeypatch) -> None:
    """Many small members, each under the ratio check, add up: the total is limited too."""
    monkeypatch.setattr(pgnsource, "MAX_INFLATED", 4 * len(GAME))
    archive = tmp_path / "many.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for number in range(5):
            z.writestr(f"{number}.pgn", GAME)

    result = cli("import", "pgn", archive, "-o", tmp_path / "games.parquet")

    assert result.exit_code == 65
    assert f"the archive's .pgn members would inflate to {5 * len(GAME)} bytes, more than the" in result.stderr


def test_an_archive_compressed_otherwise_than_deflate_is_refused(cli, tmp_path: Path) -> None:
    archive = tmp_path / "bz.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_BZIP2) as z:
        z.writestr("games.pgn", GAME)

    result = cli("import", "pgn", archive, "-o", tmp_path / "games.parquet")

    assert result.exit_code == 65
    assert "member 'games.pgn' is compressed with method 12, not deflate" in result.stderr


def test_a_damaged_member_is_bad_input(cli, tmp_path: Path) -> None:
    archive = tmp_path / "damaged.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as z:
        z.writestr("games.pgn", GAME * 3)
    data = archive.read_bytes()
    archive.write_bytes(data.replace(b"Open", b"Opem", 1))  # the stored text no longer fits its CRC

    result = cli("import", "pgn", archive, "-o", tmp_path / "games.parquet")

    assert result.exit_code == 65
    assert "not a readable zip archive (Bad CRC-32 for file 'games.pgn')" in result.stderr


def test_games_are_read_and_written_a_batch_at_a_time(cli, tmp_path: Path, monkeypatch) -> None:
    """Five games in batches of two: the same table as in one batch (game numbers run on)."""
    pgn_file = tmp_path / "five.pgn"
    pgn_file.write_text(GAME * 5, encoding="utf-8")
    whole, _ = pgn.read_pgn([str(pgn_file)])
    monkeypatch.setattr(pgn, "BATCH_GAMES", 2)
    out = tmp_path / "games.parquet"

    result = cli("import", "pgn", pgn_file, "-o", out)

    assert result.exit_code == 0, result.output
    assert "5 games read from 1 source(s); 1 event(s), 2 player(s)" in result.stderr
    written = pl.read_parquet(out)
    assert written.equals(whole)
    assert written["game_id"].to_list() == [f"five.pgn#{n}" for n in range(1, 6)]


def test_a_pgn_mixing_utf8_and_windows_1252_keeps_every_name(tmp_path: Path) -> None:
    pgn_file = tmp_path / "mixed.pgn"
    pgn_file.write_bytes(GAME.replace("A", "Müller").encode("utf-8") + GAME.replace("A", "Müller").encode("cp1252"))

    games, _ = pgn.read_pgn([str(pgn_file)])

    assert games["white_name"].to_list() == ["Müller", "Müller"]


@pytest.mark.parametrize(
    ("full_in", "message"),
    [("elo-batch-pgn-", "cannot write the temporary games files"), (".games.parquet.", "cannot write the games file")],
    ids=["temporary", "output"],
)
def test_a_full_disk_while_streaming_the_games_is_an_output_error(
    cli, tmp_path: Path, monkeypatch, full_in: str, message: str
) -> None:
    pgn_file = tmp_path / "one.pgn"
    pgn_file.write_text(GAME, encoding="utf-8")
    real = pl.LazyFrame.sink_parquet

    def full(self, path, **kwargs):
        if full_in in str(path):
            raise pl.exceptions.ComputeError("parquet: underlying IO error: No space left on device (os error 28)")
        return real(self, path, **kwargs)

    monkeypatch.setattr(pl.LazyFrame, "sink_parquet", full)

    result = cli("import", "pgn", pgn_file, "-o", tmp_path / "games.parquet")

    assert result.exit_code == 73
    assert f"{message} (No space left on device)" in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["one.pgn"]  # no temporary file left


# --- gzip CSV and frames: the same bounds ----------------------------------------------------------


def test_a_gzip_csv_is_inflated_a_block_at_a_time_into_a_temporary_file(tmp_path: Path, monkeypatch) -> None:
    """Never whole in memory: no read of the gzip stream asks for more than a block, and the
    temporary file is gone afterwards; rejected rows still get their whole row."""
    monkeypatch.setattr(textfile, "BLOCK", 4096)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    asked: list[int] = []
    real = gzip.GzipFile.read

    def spy(self, size=-1):
        asked.append(size)
        return real(self, size)

    monkeypatch.setattr(gzip.GzipFile, "read", spy)
    body = "A,Anna,B,1-0,2025-11-03,x\n" * 2_000 + "A,Anna,B,2-0,2025-11-04,y\n"
    path = tmp_path / "games.csv.gz"
    path.write_bytes(gzip.compress(f"{CSV_HEADER}\n{body}".encode()))

    games = load_games([str(path)])

    assert games.rows.height == 2_000
    assert json.loads(games.rejected["raw"][0])["note"] == "y"
    assert asked and all(0 < size <= 4096 for size in asked)
    assert list((tmp_path / "tmp").iterdir()) == []


def test_a_gzip_compressed_parquet_file_is_read_for_the_game_columns_only(tmp_path: Path) -> None:
    parquet = Path(_wide_parquet(tmp_path))
    path = tmp_path / "games.parquet.gz"
    path.write_bytes(gzip.compress(parquet.read_bytes()))

    frame, info = readers.read_table(str(path), columns=GAME_COLUMNS)
    games = load_games([str(path)])

    assert frame.columns == ["white_id", "black_id", "result", "date", "source_row", "source_file"]
    assert (info.encoding, info.size, info.columns[1]) == ("parquet", path.stat().st_size, "comment")
    assert json.loads(games.rejected["raw"][0])["site"] == "Bern"


_WIDE_COLUMNS = {
    "White ID": ["A", "A"], "comment": [WIDE, "short"], "black_id": ["B", "B"], "result": ["1-0", "2-0"],
    "date": ["2025-11-03", "2025-11-04"], "site": ["Zug", "Bern"],
}  # fmt: skip


@pytest.mark.parametrize("kind", ["polars", "lazy", "arrow"])
def test_a_frame_is_read_for_the_game_columns_only_and_rejected_rows_keep_their_whole_row(kind, monkeypatch) -> None:
    frame = pl.DataFrame(_WIDE_COLUMNS)
    data = {"polars": frame, "lazy": frame.lazy(), "arrow": frame.to_arrow()}[kind]
    converted: list[list[str]] = []
    real = pl.from_arrow

    def spy(table, *args, **kwargs):
        converted.append(list(table.schema.names))
        return real(table, *args, **kwargs)

    monkeypatch.setattr(pl, "from_arrow", spy)

    games = load_games([readers.FrameInput(data, "games")])

    assert games.files[0].columns == ("white_id", "comment", "black_id", "result", "date", "site")
    assert json.loads(games.rejected["raw"][0]) == {
        "white_id": "A", "comment": "short", "black_id": "B", "result": "2-0", "date": "2025-11-04", "site": "Bern",
    }  # fmt: skip
    if kind == "arrow":  # the first conversion takes the game columns only; the second, the rejected row's
        assert converted[0] == ["White ID", "black_id", "result", "date"]


def test_an_ignored_column_of_a_lazy_frame_is_never_computed() -> None:
    def boom(values: pl.Series) -> pl.Series:
        raise AssertionError("the ignored column was computed")

    lazy = pl.LazyFrame(_WIDE_COLUMNS).with_columns(pl.col("site").map_batches(boom, return_dtype=pl.String))
    lazy = lazy.with_columns(pl.lit("1-0").alias("result"))  # no rejected row: no whole row is wanted

    games = load_games([readers.FrameInput(lazy, "games")])

    assert games.rows.height == 2
