"""CSV outputs never hand a spreadsheet a formula: text cells are escaped, numbers and ids are not, and
a CSV list of one month is still the next month's list (issue 10, item 9).

A 2000 (K 20) beats B 1900 (K 20) in November: D 100, PD .64, A +0.36 x 20 = +7.2 -> +7, B -7.
"""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
import pytest

from elo_batch.storage.formulas import escape, unescape
from tests.conftest import read_table, write_csv

LINK = '=HYPERLINK("http://example.com/x","A")'
DDE = "=cmd|' /C calc'!A0"
LIST = f"""
player_id,name,federation,=x,rating,k
=A1,"{LINK.replace('"', '""')}",+SUI,@note,2000,20
B,@SUM(1+1),-GER,-7,1900,20
"""
NOVEMBER = f"""
game_id,date,event_id,round,white_id,black_id,result
+g1,2025-11-05,{DDE},-1,=A1,B,1-0
2,2025-11-06,E,1,=A1,B,=1+1
"""
DECEMBER = """
game_id,date,event_id,white_id,black_id,result
3,2025-12-05,E,B,=A1,1-0
"""


def _cells(path: Path) -> list[dict[str, str]]:
    """The file's cells exactly as a spreadsheet gets them (no trimming, no un-escaping)."""
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _part(out: Path, table: str, period: str) -> Path:
    return out / table / f"period={period}" / "part-0.csv"


@pytest.fixture
def november(cli, tmp_path: Path) -> Path:
    games, ratings = write_csv(tmp_path / "nov.csv", NOVEMBER), write_csv(tmp_path / "list.csv", LIST)
    out = tmp_path / "csv"
    result = cli("run", games, "--ratings", ratings, "--period", "2025-11", "--out", out, "--format", "csv")
    assert result.exit_code == 0, result.output
    return out


def test_text_cells_of_the_new_list_are_escaped_numbers_and_ids_are_not(november: Path) -> None:
    a, b = _cells(_part(november, "ratings", "2025-11"))

    assert (a["player_id"], a["name"], a["federation"], a["'=x"]) == ("=A1", "'" + LINK, "'+SUI", "'@note")
    assert (b["player_id"], b["name"], b["federation"], b["'=x"]) == ("B", "'@SUM(1+1)", "'-GER", "-7")
    assert (a["change"], b["change"]) == ("7", "-7")  # numbers, never escaped


def test_audit_and_rejected_text_cells_are_escaped(november: Path) -> None:
    white = _cells(_part(november, "audit", "2025-11"))[0]
    rejected = _cells(_part(november, "rejected", "2025-11"))[0]

    assert (white["game_id"], white["event_id"], white["round"], white["player_id"]) == ("'+g1", "'" + DDE, "-1", "=A1")
    assert (rejected["column"], rejected["value"]) == ("result", "'=1+1")
    assert rejected["reason"].startswith("'=1+1' is not a result")  # starts with a quote: text already
    assert rejected["raw"].startswith("{")


def test_keep_writes_cells_as_they_are(cli, tmp_path: Path) -> None:
    games, ratings = write_csv(tmp_path / "nov.csv", NOVEMBER), write_csv(tmp_path / "list.csv", LIST)
    out = tmp_path / "kept"

    result = cli(
        "run", games, "--ratings", ratings, "--period", "2025-11", "--out", out, "--format", "csv",
        "--csv-formulas", "keep",
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    a = _cells(_part(out, "ratings", "2025-11"))[0]
    assert (a["name"], a["federation"], a["=x"]) == (LINK, "+SUI", "@note")


def test_a_csv_list_with_escaped_cells_chains_as_next_months_list(cli, tmp_path: Path, november: Path) -> None:
    """December from November's CSV list = December from November's Parquet list, names as written.

    December: B (1893) beats A (2007): D -114, PD .34 for B, +0.66 x 20 = +13.2 -> +13; A -13.
    """
    games, ratings = write_csv(tmp_path / "dec.csv", DECEMBER), write_csv(tmp_path / "list.csv", LIST)
    parquet = tmp_path / "parquet"
    first = cli("run", tmp_path / "nov.csv", "--ratings", ratings, "--period", "2025-11", "--out", parquet)
    assert first.exit_code == 0, first.output
    months = {}
    for label, chained in (("csv", _part(november, "ratings", "2025-11")),
                           ("parquet", parquet / "ratings" / "period=2025-11" / "part-0.parquet")):  # fmt: skip
        out = tmp_path / f"december-{label}"
        result = cli("run", games, "--ratings", chained, "--period", "2025-12", "--out", out)
        assert result.exit_code == 0, result.output
        months[label] = read_table(out, "ratings", "2025-12").sort("player_id")

    december = months["csv"]
    assert december.select("player_id", "name", "federation", "=x", "rating", "change").rows() == [
        ("=A1", LINK, "+SUI", "@note", 1994.0, -13),
        ("B", "@SUM(1+1)", "-GER", "-7", 1906.0, 13),
    ]
    parquet_december = months["parquet"].cast({"=x": pl.String})  # a CSV list's columns are text
    assert december.drop("=x").equals(parquet_december.drop("=x"))
    assert december["=x"].to_list() == parquet_december["=x"].to_list()


def test_imported_games_as_csv_escape_names_and_results_and_run_as_they_are(cli, tmp_path: Path) -> None:
    """A forfeit result (+--) is escaped in the CSV, read back as the forfeit; a name-as-id stays."""
    pgn = tmp_path / "g.pgn"
    pgn.write_text(
        '[Event "=Open"]\n[Date "2025.11.05"]\n[White "=HYPERLINK(1)"]\n[Black "@b"]\n[Result "1-0"]\n\n1-0\n\n'
        '[Event "=Open"]\n[Date "2025.11.06"]\n[White "@b"]\n[Black "=HYPERLINK(1)"]\n[Result "1-0"]\n\n'
        "1. e4 e5 2. Nf3 Nc6 1-0\n\n",
        encoding="utf-8",
    )
    games = tmp_path / "games.csv"

    imported = cli("import", "pgn", pgn, "-o", games)

    assert imported.exit_code == 0, imported.output
    first = _cells(games)[0]
    assert (first["white_id"], first["white_name"], first["event_id"]) == ("=HYPERLINK(1)", "'=HYPERLINK(1)", "'=Open")
    assert first["result"] == "'+--"
    result = cli("run", games, "--period", "2025-11", "--out", tmp_path / "out", "--ratings", "none")  # no list
    assert result.exit_code == 0, result.output
    audit = read_table(tmp_path / "out", "audit", "2025-11")
    assert audit["reason"].to_list()[:2] == ["forfeit", "forfeit"]
    assert set(audit["event_id"]) == {"=Open"}


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("=1+1", "'=1+1"), ("+SUI", "'+SUI"), ("-GER", "'-GER"), ("@x", "'@x"), ("\tx", "'\tx"), ("\rx", "'\rx"),
        ("-12", "-12"), ("+3.5", "+3.5"), ("-1+2", "'-1+2"), ("Carlsen", "Carlsen"), ("'quoted", "'quoted"),
        (None, None),
    ],
)  # fmt: skip
def test_escape_and_unescape_are_inverse(text: str | None, written: str | None) -> None:
    frame = pl.DataFrame({"cell": [text]}, schema={"cell": pl.String})

    escaped = frame.select(escape(pl.col("cell")))["cell"].item()

    assert escaped == written
    assert frame.select(unescape(escape(pl.col("cell"))))["cell"].item() == text
