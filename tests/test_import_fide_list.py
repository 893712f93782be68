"""``elo-batch import fide-list``: FIDE's own list download (TXT and XML, plain and zipped) as a ``--ratings`` list.

The files of ``tests/data/fidelist`` are in FIDE's layouts (see its SOURCE.md); the values expected here
are read off those files by eye, column by column.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import polars as pl
import pytest

from elo_batch.errors import InputDataError, UsageError
from elo_batch.formats import fidelist, fidetxt, fidexml
from elo_batch.formats.fidelist import read_fide_list
from tests.conftest import TESTS, read_table, write_csv

DATA = TESTS / "data" / "fidelist"
COLUMNS = [
    "player_id", "rating", "k", "birth_year", "name", "federation", "sex", "title", "woman_title", "other_titles",
    "foa_title", "fide_games", "flag", "inactive",
]  # fmt: skip
#: The standard list of the files: (id, rating, k, birth year, fide_games, flag, inactive).
STANDARD = [
    (90000011, 2301, 20, 1995, 4, "w", False),
    (90000022, 2610, 10, 1980, 0, "i", True),
    (90000033, 1845, 40, 2010, 9, "wi", True),
    (90000044, 1402, 20, None, 5, None, False),  # B-day 0: not known
    (90000055, 2050, 20, 1970, 2, "w", False),  # OTit ran over: the line is one character longer
]
LEGACY_HEADER = (
    "ID Number      Name                                                         Fed Sex Tit  WTit OTit           "
    "SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag"
)
LEGACY_LINE = (
    "90000077       Gray, Gus                                                    NED M   IM                       "
    "2455  12  10 2400  0   20 0     0   0  1988  i   "
)


def _key(table: pl.DataFrame) -> list[tuple]:
    return table.select("player_id", "rating", "k", "birth_year", "fide_games", "flag", "inactive").rows()


def _zip(tmp_path: Path, *members: str) -> Path:
    archive = tmp_path / (Path(members[0]).stem + ".zip")
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        for member in members:
            out.write(DATA / member, member)
    return archive


# --- the layouts --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["standard_rating_list.txt", "standard_rating_list.xml"])
def test_a_standard_list_in_either_format(name) -> None:
    table, report = read_fide_list(str(DATA / name))

    assert table.columns == COLUMNS
    assert _key(table) == STANDARD
    adams = table.row(0, named=True)
    assert (adams["name"], adams["federation"], adams["sex"], adams["title"], adams["woman_title"]) == (
        "Adams, Anna", "ENG", "F", "WGM", "WGM",
    )  # fmt: skip
    assert table.row(1, named=True)["other_titles"] == "FA"
    evans = table.row(4, named=True)
    assert (evans["other_titles"], evans["foa_title"], evans["rating"]) == ("SI,FI,LSI,SLI,NA", "AFM", 2050)
    assert (report.kind, report.players, report.rated, report.inactive) == ("standard", 5, 5, 2)
    assert report.long_lines == (1 if name.endswith(".txt") else 0)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("standard", [2301, 2610, 1845, 1402, 2050, None]),
        ("rapid", [2250, 2590, None, 1550, 1980, None]),
        ("blitz", [2198, 2620, 1790, None, 2001, 1600]),
    ],
)
def test_a_combined_list_gives_the_rating_games_and_k_of_the_list_asked_for(kind, expected) -> None:
    txt, txt_report = read_fide_list(str(DATA / "players_list_foa.txt"), list_kind=kind)
    xml, xml_report = read_fide_list(str(DATA / "players_list_xml_foa.xml"), list_kind=kind)

    assert txt["rating"].to_list() == expected
    assert txt.equals(xml)  # the same players in both formats
    assert (txt_report.kind, xml_report.kind) == (kind, kind)
    fox = txt.row(5, named=True)  # unrated in standard and rapid (0), rated 1600 in blitz (9 games, K 40)
    assert (fox["k"], fox["fide_games"]) == ((40, 9) if kind == "blitz" else (None, 0))
    if kind == "standard":
        assert "standard_rating" not in txt.columns
    else:  # the standard rating beside it (Rapid and Blitz Regulations 7.2.1 seeds an unrated player from it)
        assert txt["standard_rating"].to_list() == [2301, 2610, 1845, 1402, 2050, None]


def test_the_legacy_combined_list_without_foa_is_read_by_its_header(tmp_path) -> None:
    path = tmp_path / "players_list.txt"
    path.write_bytes(f"{LEGACY_HEADER}\r\n{LEGACY_LINE}\r\n".encode())

    table, report = read_fide_list(str(path), list_kind="rapid")

    gray = table.row(0, named=True)
    assert (gray["player_id"], gray["rating"], gray["k"], gray["fide_games"], gray["standard_rating"]) == (
        90000077, 2400, 20, 0, 2455,
    )  # fmt: skip
    assert (gray["title"], gray["birth_year"], gray["flag"], gray["inactive"], gray["foa_title"]) == (
        "IM", 1988, "i", True, None,
    )  # fmt: skip
    assert report.layout == "TXT combined list (RRtng RGm Rk)"


def test_an_xml_list_with_empty_elements_written_short(tmp_path) -> None:
    xml = (
        "<playerslist><player><fideid>90000088</fideid><name>Hill, Hana</name><country>CZE</country><sex>F</sex>"
        "<title/><w_title>WFM</w_title><o_title/><foa_title/><rating>2105</rating><games>3</games><k>20</k>"
        "<birthday>1999</birthday><flag>w</flag></player></playerslist>"
    )
    path = tmp_path / "standard_rating_list.xml"
    path.write_text(xml, encoding="ascii")

    table, _ = read_fide_list(str(path))

    assert table.select("player_id", "rating", "title", "woman_title", "other_titles", "flag").row(0) == (
        90000088, 2105, None, "WFM", None, "w",
    )  # fmt: skip


@pytest.mark.parametrize("name", ["standard_rating_list.txt", "players_list_xml_foa.xml"])
def test_a_zipped_list_is_read_as_the_file_it_holds(tmp_path, name) -> None:
    archive = _zip(tmp_path, name)

    zipped, report = read_fide_list(str(archive))

    assert zipped.equals(read_fide_list(str(DATA / name))[0])
    assert report.source == f"{archive}:{name}"


def test_small_chunks_and_batches_give_the_same_list(monkeypatch) -> None:
    whole = {name: read_fide_list(str(DATA / name))[0] for name in ("players_list_foa.txt", "players_list_xml_foa.xml")}
    monkeypatch.setattr(fidelist, "HEAD_BYTES", 10)
    monkeypatch.setattr(fidetxt, "CHUNK_BYTES", 200)  # about one line a chunk
    monkeypatch.setattr(fidexml, "READ_BYTES", 50)
    monkeypatch.setattr(fidexml, "BATCH", 2)

    for name, table in whole.items():
        assert read_fide_list(str(DATA / name))[0].equals(table), name


def test_blank_lines_are_skipped_and_counted_and_rows_keep_their_line_numbers(tmp_path, monkeypatch) -> None:
    lines = (DATA / "standard_rating_list.txt").read_bytes().split(b"\r\n")
    bad = lines[4][:113] + b"14O2" + lines[4][117:]  # Diaz's rating with a letter O
    path = tmp_path / "standard_rating_list.txt"
    path.write_bytes(b"\r\n".join([*lines[:2], b"", b"   ", *lines[2:4], bad, *lines[5:]]))
    monkeypatch.setattr(fidelist, "HEAD_BYTES", 10)
    monkeypatch.setattr(fidetxt, "CHUNK_BYTES", 150)  # about one line a chunk

    with pytest.raises(InputDataError) as error:
        read_fide_list(str(path))

    assert str(error.value).startswith(f"{path}, row 6, column NOV25: '14O2' is not a rating")  # line 7
    path.write_bytes(b"\r\n".join([*lines[:2], b"", b"   ", *lines[2:]]))
    table, report = read_fide_list(str(path))
    assert (report.blank_lines, table.height) == (2, 5)


def _renamed(line: bytes, name: str, encoding: str) -> bytes:
    text = line.decode("ascii")
    return (text[:15] + name.ljust(61) + text[76:]).encode(encoding)


@pytest.mark.parametrize(("name", "encoding"), [("Müller, Max", "cp1252"), ("Müller, Max", "utf-8")])
def test_a_name_that_is_not_ascii_is_read_in_its_encoding_in_any_chunk(tmp_path, monkeypatch, name, encoding) -> None:
    lines = (DATA / "standard_rating_list.txt").read_bytes().split(b"\r\n")
    lines[5] = _renamed(lines[5], name, encoding)
    path = tmp_path / "standard_rating_list.txt"
    path.write_bytes(b"\r\n".join(lines))
    monkeypatch.setattr(fidelist, "HEAD_BYTES", 10)
    monkeypatch.setattr(fidetxt, "CHUNK_BYTES", 150)

    table, _ = read_fide_list(str(path))

    assert table["name"].to_list()[4] == name
    assert table["rating"].to_list()[4] == 2050


def test_a_file_that_mixes_encodings_or_holds_nul_is_refused_naming_the_line(tmp_path, monkeypatch) -> None:
    lines = (DATA / "standard_rating_list.txt").read_bytes().split(b"\r\n")
    lines[1] = _renamed(lines[1], "Ådams, Anna", "utf-8")
    lines[4] = _renamed(lines[4], "Díaz, Darío", "cp1252")
    path = tmp_path / "standard_rating_list.txt"
    path.write_bytes(b"\r\n".join(lines))
    monkeypatch.setattr(fidelist, "HEAD_BYTES", 10)
    monkeypatch.setattr(fidetxt, "CHUNK_BYTES", 150)

    with pytest.raises(InputDataError, match=r"byte 0xED on line 5 is not utf-8 as the lines before it are"):
        read_fide_list(str(path))
    path.write_bytes(b"\r\n".join([*lines[:3], b"\x00\x00", *lines[3:4]]))
    with pytest.raises(InputDataError, match=r"line 4 holds a NUL character: the file is not text"):
        read_fide_list(str(path))


# --- into a run -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_the_imported_list_is_the_list_in_force_of_a_run(cli, tmp_path, suffix) -> None:
    """Adams (2301, K 20) beats Diaz (1402, K 20): D 899 -> 400 (8.3.1) -> PD .92; Adams +0.08 x 20 = 1.6
    -> +2 -> 2303, Diaz -1.6 -> -2 -> 1400. Brown (2610, K 10, inactive) draws with Chen (1845, K 40):
    D 765 -> 400 -> .92 for Brown (under 2650: capped), 0.5 - .92 = -0.42 x 10 = -4.2 -> -4 -> 2606;
    Chen +0.42 x 40 = 16.8 -> +17 -> 1862. The inactive player is rated as anyone (B.02 7.2.2); the flag
    and the other FIDE columns are carried to the new list as they were."""
    archive = _zip(tmp_path, "standard_rating_list.txt")
    rating_list = tmp_path / f"list{suffix}"
    games = write_csv(
        tmp_path / "g.csv",
        "game_id,date,white_id,black_id,result\n1,2025-12-05,90000011,90000044,1-0\n2,2025-12-06,90000022,90000033,½-½",
    )
    out = tmp_path / "out"

    imported = cli("import", "fide-list", archive, "-o", rating_list)
    result = cli("run", games, "--ratings", rating_list, "--period", "2025-12", "--out", out, "--format", "csv")

    assert imported.exit_code == 0, imported.output
    assert "5 players, standard list" in imported.output
    assert f"written: {rating_list} (5 players)" in imported.output
    assert result.exit_code == 0, result.output
    rows = {r["player_id"]: r for r in read_table(out, "ratings", "2025-12").iter_rows(named=True)}
    assert {p: r["rating"] for p, r in rows.items()} == {
        "90000011": "2303", "90000022": "2606", "90000033": "1862", "90000044": "1400", "90000055": "2050",
    }  # fmt: skip
    assert (rows["90000022"]["flag"], rows["90000022"]["inactive"], rows["90000022"]["fide_games"]) == (
        "i",
        "true",
        "0",
    )
    assert rows["90000055"]["other_titles"] == "SI,FI,LSI,SLI,NA"
    assert "not carried" not in result.output  # fide_games is no period output (games would be dropped)


# --- what is refused ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("player_id,rating\nA,2000\n", "the first line is not the header of a FIDE rating list: 'player_id,rating'"),
        ("ID Number      Name      Fed\n1  A  ENG\n", "the header names no rating column"),
        ("<playerslist><player><fideid>1</fideid><rating>2000</rating>", "the XML is not well formed at line 1"),
        ("<players><player/></players>", "the XML's root is <players>, not FIDE's <playerslist>"),
        ("<?xml version='1.0'?><!DOCTYPE p [<!ENTITY a 'b'>]><playerslist/>", "declares a DOCTYPE or entities"),
        ("<playerslist><player><name>A</name><rating>2000</rating></player></playerslist>", "has no <fideid>"),
        ("", "the first line is not the header of a FIDE rating list: ''"),
    ],
)
def test_a_file_that_is_not_a_fide_list_is_refused(cli, tmp_path, content, message) -> None:
    path = tmp_path / "list.txt"
    path.write_text(content, encoding="ascii")

    result = cli("import", "fide-list", path, "-o", tmp_path / "l.csv")

    assert result.exit_code == 65, result.output
    assert message in result.output
    assert "Hint:" in result.output or "line" in message
    assert not (tmp_path / "l.csv").exists()


def test_every_bad_value_is_counted_and_the_first_ones_named(tmp_path) -> None:
    lines = (DATA / "players_list_foa.txt").read_bytes().decode().split("\r\n")
    lines[1] = "9000001X" + lines[1][8:]
    lines[2] = lines[2][:123] + "1O " + lines[2][126:]  # SK
    lines[3] = lines[3][:152] + "19x5  " + lines[3][158:]  # B-day
    path = tmp_path / "players_list_foa.txt"
    path.write_text("\r\n".join(lines), encoding="ascii")

    with pytest.raises(InputDataError) as error:
        read_fide_list(str(path))

    assert str(error.value).startswith(
        f"{path}: 3 values of the list are not valid (all of them here):\n"
        "  row 1, column ID Number: '9000001X' is not a FIDE ID\n"
        "  row 2, column SK: '1O' is not a K-factor\n"
        "  row 3, column B-day: '19x5' is not a birth year\n"
        "Hint: give the list as FIDE published it"
    )


def test_a_fide_id_listed_twice_is_refused(tmp_path) -> None:
    text = (DATA / "standard_rating_list.xml").read_text()
    first = text.split("\n")[1]
    path = tmp_path / "standard_rating_list.xml"
    path.write_text(text.replace("</playerslist>", first + "\n</playerslist>"))

    with pytest.raises(InputDataError, match=r"FIDE ID 90000011 is listed twice \(players 1, 6\)"):
        read_fide_list(str(path))


def test_a_birth_year_before_1850_is_written_empty_and_counted(tmp_path) -> None:
    text = (
        (DATA / "standard_rating_list.xml")
        .read_text()
        .replace("<birthday>1980</birthday>", "<birthday>1080</birthday>")
    )
    path = tmp_path / "standard_rating_list.xml"
    path.write_text(text)

    table, report = read_fide_list(str(path))

    assert table["birth_year"].to_list() == [1995, None, 2010, None, 1970]
    assert report.old_birth_years == 1
    assert "  birth years before 1850 (written empty): 1" in report.lines()


def test_a_zip_must_hold_one_list(cli, tmp_path) -> None:
    archive = _zip(tmp_path, "standard_rating_list.txt", "standard_rating_list.xml")

    result = cli("import", "fide-list", archive, "-o", tmp_path / "l.csv")

    assert result.exit_code == 65
    assert (
        "the zip archive holds 2 TXT or XML lists (standard_rating_list.txt, standard_rating_list.xml)" in result.output
    )


def test_list_must_agree_with_a_single_list_file_name(cli, tmp_path) -> None:
    result = cli("import", "fide-list", DATA / "standard_rating_list.txt", "-o", tmp_path / "l.csv", "--list", "blitz")

    assert result.exit_code == 2
    assert (
        "standard_rating_list.txt is FIDE's standard list, not the blitz list that --list blitz asks for"
        in result.output
    )
    with pytest.raises(UsageError, match="list_kind='blitz' asks for"):
        read_fide_list(str(DATA / "standard_rating_list.txt"), list_kind="blitz")


def test_missing_file_and_unknown_output_type(cli, tmp_path) -> None:
    missing = cli("import", "fide-list", tmp_path / "nothing.zip", "-o", tmp_path / "l.csv")
    no_type = cli("import", "fide-list", DATA / "standard_rating_list.txt", "-o", tmp_path / "list.xlsx")

    assert missing.exit_code == 66
    assert "cannot read the file" in missing.output
    assert no_type.exit_code == 2
    assert "Hint: name the output list.parquet or list.csv." in no_type.output
