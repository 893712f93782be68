"""Hostile downloads for ``import fide-list`` and ``import pgn`` (issue 20, faults 3 and 9).

Zip bombs and inflated text are imported in a subprocess under an address-space limit
(``RLIMIT_AS``, :data:`OVER_BASELINE` above what the interpreter holds once polars has started), so a
reader that holds what it inflates fails fast instead of taking gigabytes. DTDs and entities in an XML
list are refused wherever they are (after a long comment, in UTF-16 without a BOM), and nothing is
expanded or read.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import polars as pl
import pytest

from elo_batch.cli.app import ALLOCATOR_OPTIONS
from tests.conftest import ROOT

#: Address space the import may take above the interpreter's own once polars has started.
OVER_BASELINE = 1536 << 20
MIB = 1 << 20
#: The child: polars' thread pool started (it reserves address space once), then the limit, then the CLI.
#: ``patches``: module attributes set first, as ``"module:NAME"`` -> value.
CHILD = r"""
import importlib, json, re, resource, sys
import polars as pl
from elo_batch.cli.app import console
patches, over, args = json.loads(sys.argv[1])
for target, value in patches.items():
    module, name = target.split(":")
    setattr(importlib.import_module(module), name, value)
pl.DataFrame({"a": [2, 1]}).lazy().sort("a").collect(engine="streaming")
size = int(re.search(r"VmSize:\s+(\d+)", open("/proc/self/status").read()).group(1)) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + over, size + over))
sys.exit(console(args))
"""
TXT_HEADER = (
    "ID Number      Name                                                         Fed Sex Tit  WTit OTit           "
    "FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag\r\n"
)
TXT_LINE = (
    "{id:<15}Adams, Anna                                                  ENG F   WGM  WGM                     "
    "2301  4   20 2250  0   20 2198  11  20 1995  w   \r\n"
)
PLAYER = "<player><fideid>{id}</fideid><name>Adams, Anna</name><rating>2301</rating><k>20</k></player>\n"


def _limited(*args: str | Path, patches: dict[str, object] | None = None) -> subprocess.CompletedProcess[str]:
    """``elo-batch ARGS`` in a fresh interpreter under the address-space limit."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "_RJEM_MALLOC_CONF": ALLOCATOR_OPTIONS}
    payload = json.dumps([patches or {}, OVER_BASELINE, [str(a) for a in args]])
    return subprocess.run(
        [sys.executable, "-c", CHILD, payload], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600
    )


def _bomb(path: Path, member: str, head: bytes, filler: bytes, mib: int, tail: bytes) -> Path:
    """A zip of one deflated member: ``head``, ``mib`` MiB of ``filler`` repeated, ``tail``. The MiB is
    deflated once and its bytes repeated (a full flush makes each one independent), so a member of a
    gigabyte takes a second to write."""
    block = (filler * (MIB // len(filler) + 1))[:MIB]
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = packer.compress(head) + packer.flush(zlib.Z_FULL_FLUSH)
    packed = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    last = packer.compress(tail) + packer.flush()
    crc = zlib.crc32(head)
    for _ in range(mib):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(tail, crc)
    size, packed_size = len(head) + mib * MIB + len(tail), len(first) + mib * len(packed) + len(last)
    name = member.encode()
    fields = (20, 0, 8, 0, 0x21, crc, packed_size, size, len(name))
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, *fields, 0) + name
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, *fields, 0, 0, 0, 0, 0, 0) + name
    with open(path, "wb") as out:
        out.write(local + first)
        for _ in range(mib):
            out.write(packed)
        out.write(last)
        end = out.tell()
        out.write(central)
        out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), end, 0))
    with zipfile.ZipFile(path) as archive:  # a real zip: its sizes as stated
        assert archive.infolist()[0].file_size == size
    return path


def _clean(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr and "panicked" not in result.stderr, result.stderr[-2000:]
    assert len(result.stderr) < 4000, f"{len(result.stderr)} characters of stderr"


# --- zip bombs: refused by their inflation, before anything is inflated ----------------------------------


def test_an_xml_list_zip_bomb_is_refused_naming_the_file_and_the_limit(tmp_path: Path) -> None:
    """1 GiB of spaces in one <name>, zipped to about 1 MB (a reader holding it takes gigabytes)."""
    head = b"<playerslist><player><fideid>1</fideid><name>"
    archive = _bomb(tmp_path / "standard_rating_list_xml.zip", "standard_rating_list.xml", head, b" ", 1024,
                    b"</name><rating>2000</rating></player></playerslist>")  # fmt: skip
    out = tmp_path / "list.parquet"

    result = _limited("import", "fide-list", archive, "-o", out)

    assert result.returncode == 65, result.stderr[-2000:]
    assert f"{archive}: member 'standard_rating_list.xml' would inflate from " in result.stderr
    assert "to 1.0 GiB (" in result.stderr and "a FIDE rating list compresses at most about 100 times" in result.stderr
    assert "Hint: the archive looks like a zip bomb and was not read." in result.stderr
    _clean(result)
    assert not out.exists()


def test_a_txt_list_zip_bomb_of_one_id_repeated_is_refused_at_once(tmp_path: Path) -> None:
    """2 GiB of one player's 2 KB line (each line refers to the same id): refused by its inflation."""
    line = TXT_LINE.format(id=90000011).replace("\r\n", " " * 1900 + "\r\n").encode()
    archive = _bomb(tmp_path / "players_list.zip", "players_list_foa.txt", TXT_HEADER.encode(), line, 2048, b"")

    result = _limited("import", "fide-list", archive, "-o", tmp_path / "list.csv")

    assert result.returncode == 65, result.stderr[-2000:]
    assert f"{archive}: member 'players_list_foa.txt' would inflate from " in result.stderr
    assert "to 2.0 GiB (" in result.stderr
    _clean(result)


def test_a_pgn_zip_bomb_is_refused_under_the_memory_limit(tmp_path: Path) -> None:
    head = b'[Event "Open"]\n[Date "2025.11.05"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n{'
    archive = _bomb(tmp_path / "games.zip", "games.pgn", head, b" ", 1024, b"} 1. e4 e5 1-0\n")

    result = _limited("import", "pgn", archive, "-o", tmp_path / "games.parquet")

    assert result.returncode == 65, result.stderr[-2000:]
    assert f"{archive}: member 'games.pgn' would inflate from " in result.stderr
    _clean(result)


# --- past the inflation check: the reader itself holds a bounded amount -------------------------------
#: The inflation check lifted, so that the inflated text reaches the readers.
NO_RATIO = {"elo_batch.formats.fidelist:MAX_RATIO": 10**9, "elo_batch.formats.pgnsource:MAX_RATIO": 10**9}


def test_a_huge_xml_element_is_refused_as_it_is_read(tmp_path: Path) -> None:
    head = b"<playerslist><player><fideid>1</fideid><name>"
    archive = _bomb(tmp_path / "standard_rating_list_xml.zip", "standard_rating_list.xml", head, b"x", 1024,
                    b"</name><rating>2000</rating></player></playerslist>")  # fmt: skip

    result = _limited("import", "fide-list", archive, "-o", tmp_path / "list.csv", patches=NO_RATIO)

    assert result.returncode == 65, result.stderr[-2000:]
    assert "standard_rating_list.xml: player 1: its <name> is longer than 1,000 characters" in result.stderr
    _clean(result)


def test_an_xml_comment_that_expat_would_hold_whole_is_refused(tmp_path: Path) -> None:
    """A comment of a gigabyte: expat buffers a token until it ends; no event comes in 16 MiB, refused."""
    head = b"<playerslist>" + PLAYER.format(id=1).encode() + b"<!--"
    archive = _bomb(tmp_path / "list.zip", "standard_rating_list.xml", head, b"comment ", 1024, b"--></playerslist>")

    result = _limited("import", "fide-list", archive, "-o", tmp_path / "list.csv", patches=NO_RATIO)

    assert result.returncode == 65, result.stderr[-2000:]
    assert "standard_rating_list.xml: no element starts or ends in 16.0 MiB of XML" in result.stderr
    _clean(result)


def test_xml_nested_deeper_than_a_fide_list_is_refused(tmp_path: Path) -> None:
    """Elements opened and never closed: expat keeps each open one; refused at the depth limit."""
    head = b"<playerslist>" + PLAYER.format(id=1).encode()
    archive = _bomb(tmp_path / "list.zip", "standard_rating_list.xml", head, b"<player><fideid>1", 1024, b"")

    result = _limited("import", "fide-list", archive, "-o", tmp_path / "list.csv", patches=NO_RATIO)

    assert result.returncode == 65, result.stderr[-2000:]
    assert "standard_rating_list.xml: elements nested more than 8 deep at line 2" in result.stderr
    _clean(result)


def test_whitespace_between_players_is_not_kept(tmp_path: Path) -> None:
    head = b"<playerslist>" + PLAYER.format(id=1).encode()
    archive = _bomb(tmp_path / "list.zip", "standard_rating_list.xml", head, b"  ", 512,
                    PLAYER.format(id=2).encode() + b"</playerslist>")  # fmt: skip
    out = tmp_path / "list.csv"

    result = _limited("import", "fide-list", archive, "-o", out, patches=NO_RATIO)

    assert result.returncode == 0, result.stderr[-2000:]
    assert pl.read_csv(out)["player_id"].to_list() == [1, 2]


def test_a_txt_list_of_more_players_than_any_fide_list_is_refused(tmp_path: Path) -> None:
    """1 GiB of one-character lines: 500 million players (a table of them takes gigabytes). The limit
    (10 million) lowered to a million, to be reached sooner."""
    archive = _bomb(tmp_path / "players_list.zip", "players_list_foa.txt", TXT_HEADER.encode(), b"1\n", 1024, b"")
    patches = {**NO_RATIO, "elo_batch.formats.fidelist:MAX_PLAYERS": 1_000_000}

    result = _limited("import", "fide-list", archive, "-o", tmp_path / "list.csv", patches=patches)

    assert result.returncode == 65, result.stderr[-2000:]
    assert "players_list_foa.txt: more than 1,000,000 players" in result.stderr
    _clean(result)


@pytest.mark.parametrize("filler", [b"comment\n", b" \t \n"], ids=["text", "blank-lines"])
def test_a_pgn_comment_of_a_gigabyte_is_refused_as_it_is_read(tmp_path: Path, filler: bytes) -> None:
    """A comment of text, or of blank lines: python-chess holds a comment's blank lines too (they were
    not counted: exit 70, out of memory, found by a tester)."""
    head = b'[Event "Open"]\n[Date "2025.11.05"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n{'
    archive = _bomb(tmp_path / "games.zip", "games.pgn", head, filler, 1024, b"} 1. e4 e5 1-0\n")

    result = _limited("import", "pgn", archive, "-o", tmp_path / "games.parquet", patches=NO_RATIO)

    assert result.returncode == 65, result.stderr[-2000:]
    assert "games.zip:games.pgn: game 1 is longer than" in result.stderr
    _clean(result)


def test_a_list_within_the_limits_is_read_under_the_memory_limit(tmp_path: Path) -> None:
    """The control: 300,000 players (a sixth of FIDE's combined list), zipped, read and written."""
    archive = tmp_path / "players_list.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out:
        body = "".join(TXT_LINE.format(id=1_000_000 + n) for n in range(300_000))
        out.writestr("players_list_foa.txt", TXT_HEADER + body)
    written = tmp_path / "list.parquet"

    result = _limited("import", "fide-list", archive, "-o", written)

    assert result.returncode == 0, result.stderr[-2000:]
    table = pl.read_parquet(written)
    assert table.height == 300_000 and table["player_id"][-1] == 1_299_999 and table["rating"][0] == 2301


# --- an id listed many times: the count and the first few ----------------------------------------------


def test_an_id_listed_many_times_names_the_first_rows_and_the_count(cli, tmp_path: Path) -> None:
    path = tmp_path / "standard_rating_list.xml"
    body = "".join(PLAYER.format(id=90000011 if n % 2 else n + 1) for n in range(60))
    path.write_text(f"<playerslist>\n{body}</playerslist>\n")

    result = cli("import", "fide-list", path, "-o", tmp_path / "l.csv")

    assert result.exit_code == 65
    assert "FIDE ID 90000011 is listed 30 times (players 2, 4, 6, 8, 10 and 25 more)" in (result.output)
    assert "12," not in result.output


# --- XML: no DTD, no entity, wherever it is ---------------------------------------------------------------

SECRET = "top-secret-4711"


def _xml_attacks(secret: Path) -> dict[str, bytes]:
    players = "<playerslist><player><fideid>1</fideid><name>&x;</name><rating>2000</rating></player></playerslist>"
    laughs = "".join(f'<!ENTITY l{n} "{"".join(f"&l{n - 1};" for _ in range(10))}">' for n in range(1, 10))
    return {
        "comment": f'<!--{"c" * 5000}--><!DOCTYPE p [<!ENTITY x "EXPANDED-4711">]>{players}'.encode(),
        "utf16le": f'<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE p [<!ENTITY x "EXPANDED-4711">]>{players}'.encode(
            "utf-16-le"
        ),
        "utf16be": f'<!DOCTYPE p [<!ENTITY x "EXPANDED-4711">]>{players}'.encode("utf-16-be"),
        "laughs": f'<!DOCTYPE p [<!ENTITY l0 "lol">{laughs}<!ENTITY x "&l9;">]>{players}'.encode(),
        "xxe": f'<!DOCTYPE p [<!ENTITY x SYSTEM "file://{secret}">]>{players}'.encode(),
        "external dtd": f'<!DOCTYPE p SYSTEM "file://{secret}">{players}'.encode(),
    }


@pytest.mark.parametrize("attack", ["comment", "utf16le", "utf16be", "laughs", "xxe", "external dtd"])
def test_a_dtd_anywhere_is_refused_and_nothing_is_expanded_or_read(cli, tmp_path: Path, attack: str) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    path = tmp_path / "standard_rating_list.xml"
    path.write_bytes(_xml_attacks(secret)[attack])
    out = tmp_path / "l.csv"

    result = cli("import", "fide-list", path, "-o", out)

    assert result.exit_code == 65, result.output
    assert f"{path}: the XML declares a DOCTYPE" in result.output
    assert "Traceback" not in result.output
    assert SECRET not in result.output and "EXPANDED-4711" not in result.output and "lol" not in result.output
    assert not out.exists()
