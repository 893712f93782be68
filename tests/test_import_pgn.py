"""`elo-batch import pgn`: tags to columns, forfeits, what is reported, and a run on the result."""

from __future__ import annotations

import zipfile
from pathlib import Path

import polars as pl
import pytest

from elo_batch.formats.pgn import read_pgn
from tests.conftest import TESTS, read_table

TATA = TESTS / "data" / "pgn" / "tatamast22.pgn"
MODERN = TESTS / "data" / "pgn" / "modern-sample.pgn"


def test_tata_steel_2022_has_87_played_games_and_4_forfeits() -> None:
    games, report = read_pgn([str(TATA)])

    assert games.height == 91
    forfeits = games.filter(pl.col("result").is_in(["+--", "--+"]))
    assert sorted(forfeits["round"].to_list()) == ["11.7", "12.7", "13.7", "7.7"]
    assert (report.forfeits, report.unknown_results, report.unknown_dates, report.ids_from_names) == (4, 0, 0, 0)


def test_tata_first_game_tags_become_columns() -> None:
    games, _ = read_pgn([str(TATA)])
    first = games.row(0, named=True)
    assert first["game_id"] == "tatamast22.pgn#1"
    assert (first["white_id"], first["black_id"]) == ("24175439", "1503014")  # Esipenko, Carlsen
    assert (first["white_rating"], first["black_rating"]) == (2714, 2865)
    assert (first["result"], str(first["date"]), first["round"]) == ("1/2-1/2", "2022-01-15", "1.1")
    assert first["event_id"] == "84th Tata Steel Masters"
    assert (first["white_name"], first["white_id_from_name"]) == ("Esipenko, Andrey", False)
    assert first["note"] is None


def test_tata_import_then_run_rates_87_games(cli, tmp_path: Path) -> None:
    """January 2022 under the 2024 rules (rule set forced): K 10 for all, forfeits audited, not rated.

    Carlsen (2865) by hand, table 8.1.2: PD against his 12 played opponents (D 73, 93, 98, 102, 105,
    122, 138, 151, 157, 163, 193, 253) = .60+.63+.63+.64+.64+.67+.69+.70+.71+.72+.75+.81 = 8.19;
    score 8.5 (9.5 less the forfeit win against Dubov); 10 x 0.31 = 3.1 -> +3 -> 2868.
    """
    games = tmp_path / "games.parquet"
    imported = cli("import", "pgn", TATA, "-o", games)
    assert imported.exit_code == 0, imported.output
    assert "forfeits (decided, fewer than two half-moves; written +--/--+, not rated): 4" in imported.stderr
    assert f"written: {games} (91 rows)" in imported.stderr
    out = tmp_path / "out"

    result = cli("run", games, "--period", "2022-01", "--rule-set", "fide-2024-03", "--out", out)

    assert result.exit_code == 0, result.output
    assert "91 rows read = 87 counted + 4 not counted (see audit)" in result.stderr
    audit = read_table(out, "audit", "2022-01")
    assert audit.filter("counted").height == 174  # 87 games x 2 sides
    assert audit.filter(pl.col("reason") == "forfeit").height == 8
    ratings = read_table(out, "ratings", "2022-01")
    assert ratings.height == 14
    assert set(ratings["k_used"].to_list()) == {10}
    carlsen = ratings.filter(pl.col("player_id") == "1503014").row(0, named=True)
    assert (carlsen["games"], carlsen["score"], carlsen["expected_score"]) == (12, 8.5, pytest.approx(8.19))
    assert (carlsen["change"], carlsen["rating"]) == (3, 2868)


def test_tata_pgn_by_event_is_rated_in_2022_02_and_by_date_in_2022_01(cli, tmp_path: Path) -> None:
    """FIDE's news of the March 2022 list: the Tata Steel tournament "ended in January, but its results
    were incorporated in the March rating-list" (last round 30 January, after the 29 January closing
    date of the February list, B.02 7.1.3). By event: period 2022-02; by date: 2022-01, as before."""
    games = tmp_path / "games.parquet"
    assert cli("import", "pgn", TATA, "-o", games).exit_code == 0
    rules = ["--rule-set", "fide-2024-03"]

    by_event = cli("run", games, "--period", "2022-02", "--period-by", "event", *rules, "--out", tmp_path / "e")
    by_date = cli("run", games, "--period", "2022-01", *rules, "--out", tmp_path / "d")

    assert by_event.exit_code == 0 and by_date.exit_code == 0, by_event.output + by_date.output
    assert "91 rows read = 87 counted + 4 not counted (see audit) + 0 other periods" in by_event.stderr
    assert "91 rows read = 87 counted + 4 not counted (see audit) + 0 other periods" in by_date.stderr
    event_list, date_list = (
        read_table(tmp_path / "e", "ratings", "2022-02"),
        read_table(tmp_path / "d", "ratings", "2022-01"),
    )
    assert event_list.drop("period").equals(date_list.drop("period"))  # the same games, ratings and K
    assert event_list.filter(pl.col("player_id") == "1503014")["rating"].item() == 2868


def test_modern_sample_names_only_and_unknown_dates_are_reported() -> None:
    games, report = read_pgn([str(MODERN)])

    assert games.height == 5
    assert report.ids_from_names == 5
    assert games["white_id_from_name"].all() and games["black_id_from_name"].all()
    assert games["white_id"][0] == "Grigoriev, B."
    notes = dict(zip(games["game_id"], games["note"], strict=True))
    assert "date '1901.??.??' unknown" in notes["modern-sample.pgn#1"]
    assert "no day in date '1983.05.??': rated in period 1983-05" in notes["modern-sample.pgn#2"]
    assert "result '*' is not a final result" in notes["modern-sample.pgn#3"]
    assert "date '2011.20.11' is not a calendar date" in notes["modern-sample.pgn#4"]
    assert games.filter(pl.col("game_id") == "modern-sample.pgn#2")["period"].item() == "1983-05"
    assert games["date"][0] is None and games["period"][0] is None  # not guessed
    assert (games["white_rating"][0], games["black_rating"][1]) == (None, 2325)  # empty Elo tag -> null
    assert (report.unknown_results, report.unknown_dates, report.month_only_dates) == (1, 2, 1)


def test_zip_archives_are_read_directly(tmp_path: Path) -> None:
    archive = tmp_path / "Modern.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(MODERN, "Modern.pgn")
        z.writestr("readme.txt", "not a PGN")

    games, report = read_pgn([str(archive)])

    assert report.sources == ("Modern.zip:Modern.pgn",)
    assert games.height == 5
    assert games["game_id"][0] == "Modern.zip:Modern.pgn#1"


def test_unknown_results_and_dates_are_rejected_by_run_not_guessed(cli, tmp_path: Path) -> None:
    games = tmp_path / "modern.csv"
    assert cli("import", "pgn", MODERN, "-o", games).exit_code == 0
    out = tmp_path / "out"

    result = cli("run", games, "--period", "2021-12", "--rule-set", "fide-2025-10", "--out", out)
    # 2010-07: its row and the two undated ones, all rejected (so no game-row rating either): allowed explicitly
    every_row = ("--max-rejected", "100%", "--ratings", "none")  # (both refused by default)
    star = cli("run", games, "--period", "2010-07", "--rule-set", "fide-2025-10", "--out", out, *every_row)

    assert result.exit_code == 0, result.output
    assert star.exit_code == 0, star.output
    rejected = read_table(out, "rejected", "2021-12")
    reasons = dict(zip(rejected["source_row"], rejected["reason"], strict=True))
    assert reasons == {1: "no date and no period", 4: "no date and no period"}  # rows without a month
    assert read_table(out, "audit", "2021-12").height == 2  # the blitz game of 2021-12-30, both sides
    star_rejected = read_table(out, "rejected", "2010-07").filter(pl.col("source_row") == 3)
    assert star_rejected["reason"].item().startswith("'*' is not a result")


PGN_EDGES = """
[Event "Club"]
[Date "2024.05.04"]
[Round "1"]
[White "A"]
[Black "B"]
[WhiteFideId "100"]
[BlackFideId "0"]
[WhiteElo "2000"]
[BlackElo "0"]
[Result "1-0"]

1. e4 1-0

[Event "Club"]
[Date "2024.05.04"]
[Round "2"]
[White "C"]
[Black "D"]
[WhiteFideId "300"]
[BlackFideId "400"]
[Result "1/2-1/2"]

1/2-1/2

[Event "Club"]
[Date "2024.05.05"]
[Round "3"]
[White "Bj\xf6rn"]
[Black "D"]
[WhiteFideId ""]
[BlackFideId "400"]
[Result "0-1"]

1. e4 (1. d4 d5) 1... e5 { a comment } 0-1
"""


def test_one_half_move_is_a_forfeit_a_draw_without_moves_is_unplayed(tmp_path: Path) -> None:
    """B.02 5.1: a game is rated when both players have made at least one move; a draw without a move by
    both players is unplayed (Laws of Chess 5.2.3), written ``--``: not rated (it was kept as a draw)."""
    path = tmp_path / "club.pgn"
    path.write_bytes(PGN_EDGES.encode("cp1252"))

    games, report = read_pgn([str(path)])

    assert games["result"].to_list() == ["+--", "--", "0-1"]
    assert games["plies"].to_list() == [1, 0, 2]  # the variation is not counted
    assert games["note"][0].startswith("one half-move only: forfeit")
    assert games["note"][1] == "no moves: a draw without a move by both players is unplayed, not rated (FIDE B.02 5.1)"
    assert (report.forfeits, report.unplayed_draws) == (1, 1)
    # FideId "0" and Elo "0" mean none; Latin-1 names decode
    assert (games["black_id"][0], games["black_id_from_name"][0], games["black_rating"][0]) == ("B", True, None)
    assert (games["white_id"][2], games["white_id_from_name"][2]) == ("Björn", True)


@pytest.mark.parametrize(
    ("make", "code", "message"),
    [
        (lambda d: str(d / "missing.pgn"), 66, "missing.pgn: cannot read the file"),
        (lambda d: _write(d / "empty.pgn", b"no tags here\n"), 65, "empty.pgn: no PGN game found"),
        (lambda d: _zip(d / "x.zip"), 65, "x.zip: the zip archive holds no .pgn file"),
        (lambda d: str(d / "*.nope"), 66, "no file matches this pattern"),
    ],
)
def test_import_pgn_input_errors(cli, tmp_path: Path, make, code, message) -> None:
    result = cli("import", "pgn", make(tmp_path), "-o", tmp_path / "g.parquet")
    assert result.exit_code == code
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_import_output_not_writable_exits_73(cli, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = cli("import", "pgn", TATA, "-o", blocker / "games.parquet")
    assert result.exit_code == 73
    assert "cannot write the games file" in result.stderr


def _write(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def _zip(path: Path) -> str:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("notes.txt", "nothing")
    return str(path)


def test_an_unknown_date_takes_the_full_event_date(tmp_path: Path) -> None:
    pgn = tmp_path / "event.pgn"
    pgn.write_text(
        '[Event "Open"]\n[Date "????.??.??"]\n[EventDate "2025.10.01"]\n[White "A"]\n[Black "B"]\n'
        '[WhiteFideId "1"]\n[BlackFideId "2"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 1-0\n',
        encoding="utf-8",
    )
    games, report = read_pgn([str(pgn)])
    row = games.row(0, named=True)
    assert str(row["date"]) == "2025-10-01"
    assert "the event's date 2025.10.01 is used" in row["note"]
    assert report.unknown_dates == 0


def test_a_utf16_pgn_is_read(tmp_path: Path) -> None:
    pgn = tmp_path / "u16.pgn"
    pgn.write_bytes(
        '[Event "Ölçü"]\n[Date "2025.10.02"]\n[White "Müller"]\n[Black "B"]\n[Result "0-1"]\n\n1. e4 e5 0-1\n'.encode(
            "utf-16"
        )
    )
    games, _ = read_pgn([str(pgn)])
    assert (games["event_id"][0], games["white_id"][0], games["result"][0]) == ("Ölçü", "Müller", "0-1")


def test_import_needs_a_known_output_file_type(cli, tmp_path: Path) -> None:
    result = cli("import", "pgn", TATA, "-o", tmp_path / "games.xlsx")
    assert result.exit_code == 2
    assert "cannot tell the file type" in result.output


def test_a_draw_without_moves_is_audited_not_rated(cli, tmp_path: Path) -> None:
    """The club file through import and run: C-D (a draw, no move) is in the audit as not counted; A-B
    (one half-move) is a forfeit; only the 0-1 of round 3 is rated."""
    path = tmp_path / "club.pgn"
    path.write_bytes(PGN_EDGES.encode("cp1252"))
    games = tmp_path / "games.csv"
    assert cli("import", "pgn", path, "-o", games).exit_code == 0
    ratings = tmp_path / "list.csv"
    ratings.write_text("player_id,rating,k\n100,2000,20\nB,2000,20\n300,2000,20\n400,2000,20\nBjörn,2000,20\n")
    out = tmp_path / "out"

    result = cli("run", games, "--period", "2024-05", "--ratings", ratings, "--out", out)

    assert result.exit_code == 0, result.output
    assert "3 rows read = 1 counted + 2 not counted (see audit)" in result.stderr
    audit = read_table(out, "audit", "2024-05")
    draw = audit.filter(pl.col("game_id") == "club.pgn#2")
    assert draw["counted"].to_list() == [False, False] and draw["reason"].to_list() == ["forfeit", "forfeit"]
