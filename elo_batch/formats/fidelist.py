"""FIDE's own rating list download (TXT or XML, plain or zipped) into a ``--ratings`` list; no rating rules.

FIDE publishes its lists each month on https://ratings.fide.com/download_lists.phtml, each a zip of one
TXT or one XML file: the standard, rapid and blitz lists (``standard_rating_list.txt``, ...) and the
combined list of all three (``players_list_foa.txt``; ``players_list.txt`` is the same without the FOA
column). ``tests/data/fidelist/SOURCE.md`` describes the layouts.

- TXT: a header line, then one fixed-width line per player, sliced by :mod:`elo_batch.formats.fidetxt` at the
  header's column names, so the variants differ only in their header: a single list names its rating
  column by the list's month (``OCT26``) and has ``Gms K`` after it; the combined list has ``SRtng SGm SK
  RRtng RGm Rk BRtng BGm BK``.
- XML: ``<playerslist><player><fideid>..</fideid>...</player>...``, streamed by
  :mod:`elo_batch.formats.fidexml`; the combined file has ``rapid_rating`` ... ``blitz_k`` beside ``rating``.

Written, in order: ``player_id``, ``rating``, ``k``, ``birth_year`` (a 0 is none: FIDE writes 0 for no
rating, no K, no birth year), ``name``, ``federation``, ``sex``, ``title``, ``woman_title``,
``other_titles``, ``foa_title``, ``fide_games`` (the games FIDE counted in the list's period: ``games``
names a period's output), ``flag`` (``i`` inactive, ``w`` woman, ``wi`` both, as FIDE prints it),
``inactive``; and ``standard_rating`` when a combined list is read as its rapid or blitz list.

Memory is bounded whatever the input: a zip is checked before it is inflated
(:func:`elo_batch.formats.archives.check_members`: :data:`MAX_RATIO`, :data:`MAX_MEMBER`), the file is
read a piece at a time, each batch of players is typed (:mod:`elo_batch.formats.fidevalues`) and written
to a temporary Parquet file, and only the ids are held whole (to find one listed twice), at most
:data:`MAX_PLAYERS` of them.
"""

from __future__ import annotations

import codecs
import os
import re
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Literal

import polars as pl

from elo_batch import working as w
from elo_batch.errors import InputDataError, UsageError, option
from elo_batch.formats import archives
from elo_batch.formats.fidetxt import TxtStats, line_batches
from elo_batch.formats.fidevalues import MIN_BIRTH_YEAR, SHOWN, BadValues, typed_columns
from elo_batch.formats.fidexml import player_batches
from elo_batch.inputs.readers import unreadable
from elo_batch.outputs.gamesfile import spill_part, write_games

Kind = Literal["standard", "rapid", "blitz"]

#: Bytes read first, to tell TXT from XML.
HEAD_BYTES = 4096
#: Largest list read out of a zip archive (FIDE's largest, the combined XML, is about 860 MB).
MAX_MEMBER = 4 * 2**30
#: Most times a zipped list may inflate (FIDE's TXT and XML deflate to a tenth or a twentieth).
MAX_RATIO = archives.MAX_RATIO
#: Most players a list may hold (FIDE's combined list of October 2026: 1,932,867).
MAX_PLAYERS = 10_000_000
_ZIP_HINT = (
    "the archive looks like a zip bomb and was not read. If you trust it, unzip it and import the list it "
    "holds: a list file is read a piece at a time, whatever its size."
)

#: TXT header names (lower case) -> raw field; the rating, games and K of each list of the combined file.
_TXT = {"id number": "id", "name": "name", "fed": "fed", "sex": "sex", "tit": "title", "wtit": "wtitle",
        "otit": "otitle", "foa": "foa", "b-day": "byear", "flag": "flag"}  # fmt: skip
_TXT_COMBINED = {"standard": ("srtng", "sgm", "sk"), "rapid": ("rrtng", "rgm", "rk"), "blitz": ("brtng", "bgm", "bk")}
_MONTH = re.compile(r"^[a-z]{3}[0-9]{2}$")  # a single list's rating column: OCT26
_XML = {"fideid": "id", "name": "name", "country": "fed", "sex": "sex", "title": "title", "w_title": "wtitle",
        "o_title": "otitle", "foa_title": "foa", "birthday": "byear", "flag": "flag"}  # fmt: skip
_XML_LISTS = {"standard": ("rating", "games", "k"), "rapid": ("rapid_rating", "rapid_games", "rapid_k"),
              "blitz": ("blitz_rating", "blitz_games", "blitz_k")}  # fmt: skip


@dataclass(frozen=True)
class FideListReport:
    """What ``import fide-list`` read.

    Attributes:
        source: The file (``archive.zip:member`` for a zipped list). layout: ``TXT`` or ``XML``, which
            list and its columns. kind: The list taken: ``standard``, ``rapid`` or ``blitz``, or
            ``unknown`` (a single list whose file name does not say).
        players: Players written. rated: Of them, with a rating. inactive: Flagged ``i`` / ``wi``.
        old_birth_years: Birth years before :data:`MIN_BIRTH_YEAR`, written empty.
        blank_lines: TXT lines without a player, skipped. long_lines: TXT lines read from their end
            after ``OTit`` (longer than the header).
    """

    source: str
    layout: str
    kind: str
    players: int
    rated: int
    inactive: int
    old_birth_years: int = 0
    blank_lines: int = 0
    long_lines: int = 0

    def lines(self) -> list[str]:
        """The report as short lines for the terminal."""
        return [
            f"{self.source}: FIDE {self.layout}: {self.players} players, {self.kind} list",
            f"  rated: {self.rated}; unrated (rating 0 or empty): {self.players - self.rated}",
            f"  inactive (flag i or wi; still rated when they play): {self.inactive}",
            f"  birth years before {MIN_BIRTH_YEAR} (written empty): {self.old_birth_years}",
            f"  blank lines skipped: {self.blank_lines}; lines longer than the header (read from their end): "
            f"{self.long_lines}",
        ]


def read_fide_list(path: str, *, list_kind: Kind | None = None) -> tuple[pl.DataFrame, FideListReport]:
    """Read one of FIDE's rating list downloads into a rating list (``--ratings``).

    Args:
        path: The TXT or XML file, or FIDE's zip of one.
        list_kind: Which list to take from a combined file (default ``standard``); for a single list it
            must agree with the list its file name names, if it names one.

    Returns:
        One row per player, in file order (columns: the module's docstring), and the report.

    Raises:
        InputMissingError: the file cannot be read.
        InputDataError: the file is not one of FIDE's lists (no header, no ``<playerslist>``, a zip
            without one list in it), a zipped list would inflate past :data:`MAX_RATIO` times or
            :data:`MAX_MEMBER` bytes, the list holds more than :data:`MAX_PLAYERS` players, a player's
            number is not a number (all counted, the first :data:`SHOWN` named by row: the player's
            place in the file), or an id is listed twice; and the XML reader's bounds
            (:mod:`elo_batch.formats.fidexml`: DTDs, entities, an element's text).
        UsageError: ``list_kind`` names another list than the single list's file name.
        OutputError: the temporary files the players are written to a batch at a time cannot be written.

    References:
        FIDE Rating Regulations (B.02, 2024) 7.1.2 (what a published list holds).
    """
    with tempfile.TemporaryDirectory(prefix="elo-batch-fidelist-") as folder:
        table, report = _open(path, list_kind, folder)
        return table.collect(), report


def import_fide_list(path: str, out: str, *, list_kind: Kind | None = None) -> tuple[FideListReport, str]:
    """Read a list as :func:`read_fide_list` does and write it to ``out``, in bounded memory: each batch of
    players goes to a temporary Parquet file, and those are streamed into ``out`` (see
    :func:`elo_batch.outputs.gamesfile.write_games`), which is written whole or not at all.

    Returns:
        The report, and the file written.

    Raises:
        As :func:`read_fide_list` and :func:`elo_batch.outputs.gamesfile.write_games`.
    """
    with tempfile.TemporaryDirectory(prefix="elo-batch-fidelist-") as folder:
        table, report = _open(path, list_kind, folder)
        return report, write_games(table, out, name="list")


def _open(path: str, list_kind: Kind | None, folder: str) -> tuple[pl.LazyFrame, FideListReport]:
    try:
        if not zipfile.is_zipfile(path):
            with open(path, "rb") as handle:
                return _read(handle, path, os.path.basename(path), list_kind=list_kind, folder=folder)
        with zipfile.ZipFile(path) as archive:
            member = _member(archive, path)
            with archive.open(member) as handle:
                return _read(handle, f"{path}:{member.filename}", member.filename, list_kind=list_kind, folder=folder)
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:  # EOFError, zlib.error: a member's data is damaged
        raise InputDataError(f"not a readable zip archive ({exc})", path=path) from exc
    except OSError as exc:
        raise unreadable(exc, path) from exc


def _member(archive: zipfile.ZipFile, path: str) -> zipfile.ZipInfo:
    files = [m for m in archive.infolist() if not m.is_dir()]
    lists = [m for m in files if m.filename.lower().endswith((".txt", ".xml"))] if len(files) > 1 else files
    if len(lists) != 1:
        named = ", ".join(m.filename for m in lists or files) or "nothing"
        raise InputDataError(
            f"the zip archive holds {len(lists)} TXT or XML lists ({named})",
            path=path,
            hint="give FIDE's zip of one list, or one list file.",
        )
    limits = archives.Limits(
        text="a FIDE rating list",
        members="list",
        max_ratio=MAX_RATIO,
        max_inflated=MAX_MEMBER,
        hint=_ZIP_HINT,
        method_hint="give the zip as FIDE publishes it (deflate), or the list file it holds.",
    )
    archives.check_members(lists, path, limits)
    return lists[0]


def _read(
    handle: IO[bytes], source: str, name: str, *, list_kind: Kind | None, folder: str
) -> tuple[pl.LazyFrame, FideListReport]:
    head = handle.read(HEAD_BYTES)
    if _is_xml(head):
        return _read_xml(head, handle, source, name=name, list_kind=list_kind, folder=folder)
    return _read_txt(head, handle, source, name=name, list_kind=list_kind, folder=folder)


def _is_xml(head: bytes) -> bool:
    """Whether the file starts as XML does, in UTF-8 or in UTF-16 (with or without a byte order mark)."""
    for mark in (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        head = head.removeprefix(mark)
    return head.lstrip(b" \t\r\n\x00").startswith(b"<")


# --- TXT -------------------------------------------------------------------------------------------


def _read_txt(
    head: bytes, handle: IO[bytes], source: str, *, name: str, list_kind: Kind | None, folder: str
) -> tuple[pl.LazyFrame, FideListReport]:
    found: dict[str, tuple[dict[str, str], str, str]] = {}

    def layout(labels: list[str], header: str) -> dict[str, str]:
        found["layout"] = _txt_fields(labels, header, source, name=name, list_kind=list_kind)
        return found["layout"][0]

    bad, stats = BadValues(), TxtStats()
    parts = _spill(line_batches(head, handle, source, layout=layout, stats=stats), bad, source, folder=folder)
    labels, kind, words = found["layout"]
    bad.raise_if_any(source, {raw: label for label, raw in labels.items()})
    return _report(_finish(parts, source, "row"), source, words, kind=kind, stats=stats)


def _txt_fields(
    labels: list[str], header: str, source: str, *, name: str, list_kind: Kind | None
) -> tuple[dict[str, str], str, str]:
    """(header label -> raw field, the list taken, the layout's words) from the header's column names."""
    spelled = {label.lower(): label for label in labels}
    if "id number" not in spelled or "name" not in spelled:
        raise InputDataError(
            f"the first line is not the header of a FIDE rating list: {header[:80]!r}",
            path=source,
            hint="FIDE's TXT lists start with 'ID Number      Name ...'; give the file as downloaded.",
        )
    kind, (rating, games, k), words = _txt_list(spelled, header, source, name=name, list_kind=list_kind)
    if rating not in spelled:
        raise InputDataError(f"the combined list has no {rating} column", path=source)
    wanted = {
        **_TXT,
        rating: "rating",
        games: "games",
        k: "k",
        **({"srtng": "standard"} if rating != "srtng" and "srtng" in spelled else {}),
    }
    fields = {spelled[label]: raw for label, raw in wanted.items() if label in spelled}
    return fields, kind, f"{words} ({' '.join(spelled[c] for c in (rating, games, k) if c in spelled)})"


def _txt_list(
    spelled: dict[str, str], header: str, source: str, *, name: str, list_kind: Kind | None
) -> tuple[str, tuple[str, str, str], str]:
    """(the list taken, its rating, games and K columns as lower-case labels, the layout's words) from the
    header's labels (lower case -> as spelled): the combined list by its SRtng, else one list by its month."""
    if "srtng" in spelled:
        kind = list_kind or "standard"
        return kind, _TXT_COMBINED[kind], "TXT combined list"
    month = [label for label in spelled if _MONTH.match(label)]
    if len(month) != 1:
        raise InputDataError(
            "the header names no rating column (SRtng for the combined list, the month such as OCT26 for "
            f"one list): {header.strip()!r}",
            path=source,
            hint="give one of FIDE's TXT lists as downloaded.",
        )
    return _single_kind(name, list_kind), (month[0], "gms", "k"), "TXT list"


# --- XML -------------------------------------------------------------------------------------------


def _read_xml(
    head: bytes, handle: IO[bytes], source: str, *, name: str, list_kind: Kind | None, folder: str
) -> tuple[pl.LazyFrame, FideListReport]:
    found: dict[str, tuple[dict[str, str], str, str]] = {}

    def layout(tags: set[str]) -> dict[str, str]:
        found["layout"] = _xml_tags(tags, source, name, list_kind=list_kind)
        return found["layout"][0]

    bad, known = BadValues(), {*_XML, *(tag for tags in _XML_LISTS.values() for tag in tags)}
    parts = _spill(player_batches(head, handle, source, tags=known, layout=layout), bad, source, folder=folder)
    tags, kind, words = found.get("layout", ({}, list_kind or "standard", "XML list"))
    bad.raise_if_any(source, {raw: tag for tag, raw in tags.items()})
    return _report(_finish(parts, source, "player"), source, words, kind=kind)


def _xml_tags(tags: set[str], source: str, name: str, *, list_kind: Kind | None) -> tuple[dict[str, str], str, str]:
    """(XML tag -> raw field, the list taken, the layout's words) from the first player's tags."""
    combined = "rating" in tags and ("rapid_rating" in tags or "blitz_rating" in tags)
    if combined:
        kind: str = list_kind or "standard"
        rating, games, k = _XML_LISTS[kind]
    else:  # a single list: its rating is <rating> (or, should it be named by its list, <rapid_rating> ...)
        kind = _single_kind(name, list_kind)
        rating, games, k = next((tags_ for tags_ in _XML_LISTS.values() if tags_[0] in tags), _XML_LISTS["standard"])
    for needed in ("fideid", rating):
        if needed not in tags:
            raise InputDataError(
                f"the first <player> has no <{needed}>: not a FIDE rating list of that layout",
                path=source,
                hint="give FIDE's XML list as downloaded.",
            )
    chosen = {tag: raw for tag, raw in _XML.items() if tag in tags}
    chosen.update({tag: raw for tag, raw in ((rating, "rating"), (games, "games"), (k, "k")) if tag in tags})
    if combined and kind != "standard":
        chosen["rating"] = "standard"
    return chosen, kind, f"XML {'combined list' if combined else 'list'} (<{rating}> <{games}> <{k}>)"


# --- both: types, checks, report ---------------------------------------------------------------------


def _single_kind(name: str, list_kind: Kind | None) -> str:
    """The list a single list is: from its file name (FIDE names them ``standard_...`` and so on)."""
    found = re.search(r"standard|rapid|blitz", os.path.basename(name).lower())
    named = found.group() if found else None
    if list_kind and named and list_kind != named:
        raise UsageError(
            f"{name} is FIDE's {named} list, not the {list_kind} list that {option('list_kind', list_kind)} asks for",
            option="list_kind",
            hint=f"a single list holds one rating; leave out {option('list_kind')} or give the {list_kind} list.",
        )
    return list_kind or named or "unknown"


def _spill(batches: Iterator[pl.DataFrame], bad: BadValues, source: str, *, folder: str) -> list[str]:
    """Each batch typed and written to a temporary Parquet file in ``folder`` (none once a value is bad:
    the rest are only checked); the files, in order. Refused past :data:`MAX_PLAYERS` players."""
    parts: list[str] = []
    players = 0
    for raw in batches:
        players += raw.height
        if players > MAX_PLAYERS:
            raise InputDataError(
                f"more than {MAX_PLAYERS:,} players: more than any FIDE list holds (about 2 million)",
                path=source,
                hint="give FIDE's list as downloaded.",
            )
        typed = typed_columns(raw, bad)
        if bad.count or not typed.height:
            continue
        hint = "the list is first written to a temporary folder: free some room there, or set TMPDIR."
        parts.append(spill_part(typed, folder, len(parts), what="the temporary list files", hint=hint))
    return parts


def _finish(parts: list[str], source: str, place: str) -> pl.LazyFrame:
    """The batches as one list, refused when a FIDE ID is listed twice (the first such id named, with its
    first :data:`SHOWN` places and its count, and how many other ids are listed twice)."""
    empty = pl.DataFrame(schema={w.LIST_ROW: pl.Int64, "id": pl.String})
    table = pl.scan_parquet(parts) if parts else typed_columns(empty, BadValues()).lazy()
    ids = table.select(w.LIST_ROW, "player_id").collect()
    twice = ids.filter(pl.col("player_id").is_duplicated())
    if twice.height:
        player = twice["player_id"][0]
        rows = twice.filter(pl.col("player_id") == player)[w.LIST_ROW]
        listed = "twice" if rows.len() == 2 else f"{rows.len():,} times"
        shown = ", ".join(str(r) for r in rows.head(SHOWN))
        more = f" and {rows.len() - SHOWN:,} more" if rows.len() > SHOWN else ""
        others = twice["player_id"].n_unique() - 1
        also = f"; {others:,} other FIDE IDs are listed more than once too" if others else ""
        raise InputDataError(
            f"FIDE ID {player} is listed {listed} ({place}s {shown}{more}){also}",
            path=source,
            column="player_id",
            value=player,
            hint="give the list as FIDE published it: each FIDE ID once.",
        )
    return table.drop(w.LIST_ROW)


def _report(
    table: pl.LazyFrame, source: str, layout: str, *, kind: str, stats: TxtStats | None = None
) -> tuple[pl.LazyFrame, FideListReport]:
    stats = stats or TxtStats()
    players, unrated, inactive, old = (
        table.select(pl.len(), pl.col("rating").null_count(), pl.col("inactive").sum(), pl.col(w.OLD_BIRTH).sum())
        .collect()
        .row(0)
    )
    report = FideListReport(
        source=source,
        layout=layout,
        kind=kind,
        players=players,
        rated=players - unrated,
        inactive=int(inactive),
        old_birth_years=int(old),
        blank_lines=stats.blank_lines,
        long_lines=stats.long_lines,
    )
    return table.drop(w.OLD_BIRTH), report
