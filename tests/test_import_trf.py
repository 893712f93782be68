"""`elo-batch import trf`: TRF-16 player lines to games, each once; byes, forfeits, and refusals."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from elo_batch.formats.pgn import read_pgn
from elo_batch.formats.trf import read_trf
from tests.conftest import TESTS, read_table

TATA_TRF = TESTS / "data" / "trf" / "tata2022.trf"
TATA_PGN = TESTS / "data" / "pgn" / "tatamast22.pgn"
SAME = ["event_id", "round", "date", "white_id", "black_id", "white_rating", "black_rating", "result"]


def test_trf_round_trip_gives_the_pgn_games() -> None:
    """The TRF written from the Tata Steel 2022 crosstable holds exactly the PGN's 91 games."""
    from_trf, report = read_trf(str(TATA_TRF))
    from_pgn, _ = read_pgn([str(TATA_PGN)])
    from_pgn = from_pgn.with_columns(pl.col("round").str.extract(r"^(\d+)\."))  # "7.7" -> round 7

    assert (report.players, report.rounds, report.games, report.rated, report.forfeits) == (14, 13, 91, 87, 4)
    assert from_trf.select(SAME).sort(SAME).equals(from_pgn.select(SAME).sort(SAME))


def test_trf_import_then_run_counts_87_rated_and_4_forfeits(cli, tmp_path: Path) -> None:
    games = tmp_path / "tata.parquet"
    imported = cli("import", "trf", TATA_TRF, "-o", games)
    assert imported.exit_code == 0, imported.output
    assert "14 players, 13 rounds, 91 games" in imported.stderr
    out = tmp_path / "out"

    result = cli("run", games, "--period", "2022-01", "--rule-set", "fide-2024-03", "--out", out)

    assert result.exit_code == 0, result.output
    assert "91 rows read = 87 counted + 4 not counted (see audit)" in result.stderr
    carlsen = read_table(out, "ratings", "2022-01").filter(pl.col("player_id") == "1503014")
    assert carlsen["rating"].item() == 2868  # worked by hand in test_import_pgn


def _line(rank: int, name: str, rating: str, fide: str, rounds: list[str], title: str = "", sex: str = "m") -> str:
    head = f"001 {rank:>4} {sex}{title:>3} {name:<33} {rating:>4} {'':3} {fide:>11} {'':10} {'0.0':>4} {rank:>4}"
    return head + "".join(f"  {r}" for r in rounds)


def _trf(tmp_path: Path, *lines: str, dates: str | None = "24/05/04  24/05/05") -> Path:
    path = tmp_path / "event.trf"
    header = ["012 Club Championship", "042 2024/05/04"]
    if dates is not None:
        header.append("132" + " " * 88 + dates)
    path.write_text("\n".join([*header, *lines]) + "\n", encoding="utf-8")
    return path


def test_byes_are_counted_not_written_and_unplayed_codes_are_not_rated(tmp_path: Path) -> None:
    path = _trf(
        tmp_path,
        _line(1, "Alpha, Ann", "2100", "1001", ["   2 w W", "0000 - H"], title="WGM", sex="w"),
        _line(2, "Beta, Ben", "1900", "1002", ["   1 b L", "   3 w 1"]),
        _line(3, "Gamma, Gus", "", "", ["0000 - F", "   2 b 0"]),
        _line(4, "Delta, Dan", "1800", "1004", ["0000 - U", "       Z"]),
    )

    games, report = read_trf(str(path))

    assert games.select("round", "white_id", "black_id", "result").rows() == [
        ("1", "1001", "1002", "+--"),  # W: a game of less than one move, not rated
        ("2", "1002", "Gamma, Gus", "1-0"),
    ]
    assert games["white_rating"].to_list() == [2100, 1900]
    assert games["black_rating"].to_list() == [1900, None]
    assert (str(games["date"][1]), games["black_id_from_name"][1]) == ("2024-05-05", True)
    assert report.byes == {
        "half-point bye": 1,
        "full-point bye": 1,
        "pairing-allocated bye": 1,
        "zero-point bye": 1,
        "no opponent (0000)": 0,
    }
    assert (report.games, report.rated, report.unplayed, report.ids_from_names) == (2, 1, 1, 1)


def test_double_forfeit_and_missing_round_dates_with_period(tmp_path: Path) -> None:
    path = _trf(
        tmp_path,
        _line(1, "Alpha, Ann", "2100", "1001", ["   2 w -"]),
        _line(2, "Beta, Ben", "1900", "1002", ["   1 b -"]),
        dates=None,
    )

    games, report = read_trf(str(path), period="2024-05")

    assert games.select("result", "date", "period").rows() == [("--", None, "2024-05")]
    assert report.forfeits == 1
    assert "no date for round 1 on line 132" in games["note"][0]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            [_line(1, "A", "2100", "1001", ["   2 w 1"]), _line(2, "B", "1900", "1002", ["   1 b 1"])],
            "row 4: round 1: player 1 has '2 w 1' but line 5 has '1 b 1'",
        ),
        (
            [_line(1, "A", "2100", "1001", ["   2 w 1"]), _line(2, "B", "1900", "1002", ["   1 w 0"])],
            "row 4: round 1: player 1 has '2 w 1' but line 5 has '1 w 0'",
        ),
        ([_line(1, "A", "2100", "1001", ["   5 w 1"])], "round 1: opponent 5 has no player line"),
        (
            [
                _line(1, "A", "2100", "1001", ["   2 w 1"]),
                _line(2, "B", "1900", "1002", ["   3 b 0"]),
                _line(3, "C", "1800", "1003", ["   2 w 1"]),
            ],
            "the line of player 2 does not name player 1 in that round",
        ),
        ([_line(1, "A", "21OO", "1001", [])], "column FIDE rating (49-52): '21OO' is not a rating"),
        ([_line(1, "A", "2100", "1001", ["   2 w 7"])], "'7' is not a TRF result code"),
        ([_line(1, "A", "2100", "1001", []), _line(1, "B", "1900", "1002", [])], "starting rank 1 is used by more"),
        (["012 nothing else"], "no player line (001) found"),
    ],
)
def test_inconsistent_or_malformed_trf_is_refused_with_its_line(cli, tmp_path: Path, lines, message) -> None:
    path = _trf(tmp_path, *lines)
    result = cli("import", "trf", path, "-o", tmp_path / "g.parquet")
    assert result.exit_code == 65
    assert message in result.stderr
    assert "Hint:" in result.stderr
    assert not (tmp_path / "g.parquet").exists()


def test_import_trf_missing_file_exits_66(cli, tmp_path: Path) -> None:
    result = cli("import", "trf", tmp_path / "nope.trf", "-o", tmp_path / "g.parquet")
    assert result.exit_code == 66
    assert "nope.trf: cannot read the file" in result.stderr


def test_import_trf_bad_period_exits_2(cli) -> None:
    result = cli("import", "trf", TATA_TRF, "-o", "x.parquet", "--period", "May 2024")
    assert result.exit_code == 2
    assert "'May 2024' is not a rating period" in result.stderr


def test_tata_by_event_goes_on_the_march_2022_list_as_fide_published(cli, tmp_path: Path) -> None:
    """The Tata Steel Masters ended on 30 January 2022, after the closing date of the 1 February list
    (29 January, B.02 7.1.3): FIDE rated it on the March list, period 2022-02. By event, the January run
    rates none of it and counts its 91 rows as deferred; the February run rates it with the ratings of
    its start (the report's, those of the January list): Carlsen 2865 + 3 = 2868, as by date in 2022-01."""
    games = tmp_path / "tata.parquet"
    assert cli("import", "trf", TATA_TRF, "-o", games).exit_code == 0
    out = tmp_path / "out"
    by_event = ["--period-by", "event", "--rule-set", "fide-2024-03", "--out", out]

    # January has no row of its own (all 91 go to 2022-02), so no game-row rating: no list is said so
    january = cli("run", games, "--period", "2022-01", "--ratings", "none", *by_event)
    february = cli("run", games, "--period", "2022-02", *by_event)

    assert january.exit_code == 0, january.output
    assert "91 rows read = 0 counted + 0 not counted (see audit) + 91 other periods + 0 rejected" in january.stderr
    assert "2022-01: 91 row(s) dated in 2022-01 are rated in a later period (2022-02: 91)" in january.stderr
    assert february.exit_code == 0, february.output
    assert "91 rows read = 87 counted + 4 not counted (see audit) + 0 other periods" in february.stderr
    assert "'84th Tata Steel Masters' ended 2022-01-30 (closing date: 2022-02)" in february.stderr
    ratings = read_table(out, "ratings", "2022-02")
    assert ratings.filter(pl.col("player_id") == "1503014")["rating"].item() == 2868
    assert read_table(out, "ratings", "2022-01").height == 0
    audit = read_table(out, "audit", "2022-02")
    assert set(audit["event_rule"].to_list()) == {"7.1.3 closing date: rated after the month of play"}


def test_tata_by_event_in_a_range_equals_the_single_period(cli, tmp_path: Path) -> None:
    games = tmp_path / "tata.parquet"
    assert cli("import", "trf", TATA_TRF, "-o", games).exit_code == 0
    rule_set = ["--period-by", "event", "--rule-set", "fide-2024-03"]

    ranged = cli("run", games, "--period", "2022-01..2022-02", *rule_set, "--out", tmp_path / "range")
    single = cli("run", games, "--period", "2022-02", *rule_set, "--out", tmp_path / "single")

    assert ranged.exit_code == 0 and single.exit_code == 0, ranged.output + single.output
    assert read_table(tmp_path / "range", "ratings", "2022-02").equals(
        read_table(tmp_path / "single", "ratings", "2022-02")
    )
