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
"""

from __future__ import annotations

import os
import re
import zipfile
from dataclasses import dataclass
from typing import IO, Literal

import polars as pl

from elo_batch.errors import InputDataError, UsageError, option
from elo_batch.formats.fidetxt import TxtStats, line_batches
from elo_batch.formats.fidexml import player_batches
from elo_batch.inputs.readers import unreadable
from elo_batch.rules.bounds import FIRST_BIRTH_YEAR, LAST_BIRTH_YEAR, MAX_K, MAX_RATING

Kind = Literal["standard", "rapid", "blitz"]

#: Bytes read first, to tell TXT from XML.
HEAD_BYTES = 4096
#: Largest list read out of a zip archive (FIDE's largest, the combined XML, is about 860 MB).
MAX_MEMBER = 4 * 2**30
#: Bad players shown in the message (all are counted).
SHOWN = 5

#: TXT header names (lower case) -> raw field; the rating, games and K of each list of the combined file.
_TXT = {"id number": "id", "name": "name", "fed": "fed", "sex": "sex", "tit": "title", "wtit": "wtitle",
        "otit": "otitle", "foa": "foa", "b-day": "byear", "flag": "flag"}  # fmt: skip
_TXT_COMBINED = {"standard": ("srtng", "sgm", "sk"), "rapid": ("rrtng", "rgm", "rk"), "blitz": ("brtng", "bgm", "bk")}
_MONTH = re.compile(r"^[a-z]{3}[0-9]{2}$")  # a single list's rating column: OCT26
_XML = {"fideid": "id", "name": "name", "country": "fed", "sex": "sex", "title": "title", "w_title": "wtitle",
        "o_title": "otitle", "foa_title": "foa", "birthday": "byear", "flag": "flag"}  # fmt: skip
_XML_LISTS = {"standard": ("rating", "games", "k"), "rapid": ("rapid_rating", "rapid_games", "rapid_k"),
              "blitz": ("blitz_rating", "blitz_games", "blitz_k")}  # fmt: skip
#: Written text columns <- raw field.
_TEXTS = {"name": "name", "federation": "fed", "sex": "sex", "title": "title", "woman_title": "wtitle",
          "other_titles": "otitle", "foa_title": "foa"}  # fmt: skip
#: Raw number fields: (the most a value may be, what it is) for the message.
_NUMBERS = {"id": (None, "a FIDE ID"), "rating": (MAX_RATING - 1, "a rating"), "games": (9999, "a number of games"),
            "k": (MAX_K, "a K-factor"), "byear": (LAST_BIRTH_YEAR, "a birth year"),
            "standard": (MAX_RATING - 1, "a rating")}  # fmt: skip
#: Earliest birth year a list may hold (as :mod:`elo_batch.inputs.ratinglist` checks); an earlier one is written empty.
MIN_BIRTH_YEAR = FIRST_BIRTH_YEAR


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
            without one list in it), or a player's number is not a number (all counted, the first
            :data:`SHOWN` named by row: the player's place in the file), or an id is listed twice.
        UsageError: ``list_kind`` names another list than the single list's file name.

    References:
        FIDE Rating Regulations (B.02, 2024) 7.1.2 (what a published list holds).
    """
    try:
        if not zipfile.is_zipfile(path):
            with open(path, "rb") as handle:
                return _read(handle, path, os.path.basename(path), list_kind)
        with zipfile.ZipFile(path) as archive:
            member = _member(archive, path)
            with archive.open(member) as handle:
                return _read(handle, f"{path}:{member.filename}", member.filename, list_kind)
    except OSError as exc:
        raise unreadable(exc, path) from exc
    except zipfile.BadZipFile as exc:
        raise InputDataError(f"not a readable zip archive ({exc})", path=path) from exc


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
    if lists[0].file_size > MAX_MEMBER:
        raise InputDataError(
            f"{lists[0].filename} would unpack to {lists[0].file_size:,} bytes, more than any FIDE list "
            f"({MAX_MEMBER:,}); refused as a likely decompression bomb",
            path=path,
        )
    return lists[0]


def _read(handle: IO[bytes], source: str, name: str, list_kind: Kind | None) -> tuple[pl.DataFrame, FideListReport]:
    head = handle.read(HEAD_BYTES)
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return _read_xml(head, handle, source, name, list_kind)
    return _read_txt(head, handle, source, name, list_kind)


# --- TXT -------------------------------------------------------------------------------------------


def _read_txt(
    head: bytes, handle: IO[bytes], source: str, name: str, list_kind: Kind | None
) -> tuple[pl.DataFrame, FideListReport]:
    found: dict[str, tuple[dict[str, str], str, str]] = {}

    def layout(labels: list[str], header: str) -> dict[str, str]:
        found["layout"] = _txt_fields(labels, header, source, name, list_kind)
        return found["layout"][0]

    bad, stats = _Bad(), TxtStats()
    parts = [_typed(raw, bad) for raw in line_batches(head, handle, source, layout, stats)]
    labels, kind, words = found["layout"]
    bad.raise_if_any(source, {raw: label for label, raw in labels.items()})
    return _report(_finish(parts, source, "row"), source, words, kind, stats)


def _txt_fields(
    labels: list[str], header: str, source: str, name: str, list_kind: Kind | None
) -> tuple[dict[str, str], str, str]:
    """(header label -> raw field, the list taken, the layout's words) from the header's column names."""
    spelled = {label.lower(): label for label in labels}
    if "id number" not in spelled or "name" not in spelled:
        raise InputDataError(
            f"the first line is not the header of a FIDE rating list: {header[:80]!r}",
            path=source,
            hint="FIDE's TXT lists start with 'ID Number      Name ...'; give the file as downloaded.",
        )
    kind: str
    if "srtng" in spelled:
        kind = list_kind or "standard"
        rating, games, k = _TXT_COMBINED[kind]
        words = "TXT combined list"
    else:
        month = [label for label in spelled if _MONTH.match(label)]
        if len(month) != 1:
            raise InputDataError(
                "the header names no rating column (SRtng for the combined list, the month such as OCT26 for "
                f"one list): {header.strip()!r}",
                path=source,
                hint="give one of FIDE's TXT lists as downloaded.",
            )
        kind, (rating, games, k) = _single_kind(name, list_kind), (month[0], "gms", "k")
        words = "TXT list"
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


# --- XML -------------------------------------------------------------------------------------------


def _read_xml(
    head: bytes, handle: IO[bytes], source: str, name: str, list_kind: Kind | None
) -> tuple[pl.DataFrame, FideListReport]:
    found: dict[str, tuple[dict[str, str], str, str]] = {}

    def layout(tags: set[str]) -> dict[str, str]:
        found["layout"] = _xml_tags(tags, source, name, list_kind)
        return found["layout"][0]

    bad = _Bad()
    parts = [_typed(raw, bad) for raw in player_batches(head, handle, source, layout)]
    tags, kind, words = found.get("layout", ({}, list_kind or "standard", "XML list"))
    bad.raise_if_any(source, {raw: tag for tag, raw in tags.items()})
    return _report(_finish(parts, source, "player"), source, words, kind)


def _xml_tags(tags: set[str], source: str, name: str, list_kind: Kind | None) -> tuple[dict[str, str], str, str]:
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


class _Bad:
    """Values that are not what their column holds: all counted, the first :data:`SHOWN` kept."""

    def __init__(self) -> None:
        self.count = 0
        self.shown: list[tuple[int, str, str]] = []

    def add(self, found: pl.DataFrame) -> None:
        """Note the rows of ``found`` (``__row``, ``__field``, ``__value``)."""
        self.count += found.height
        self.shown += found.head(max(0, SHOWN - len(self.shown))).rows()

    def raise_if_any(self, source: str, labels: dict[str, str]) -> None:
        """Raise for the values noted, naming each by its row and the file's name of its column."""
        if not self.count:
            return
        hint = "give the list as FIDE published it; a damaged or edited copy cannot be read safely."
        if self.count == 1:
            row, field, value = self.shown[0]
            message = f"{value!r} is not {_NUMBERS[field][1]}"
            raise InputDataError(message, path=source, row=row, column=labels[field], value=value, hint=hint)
        lines = [f"row {r}, column {labels[f]}: {v!r} is not {_NUMBERS[f][1]}" for r, f, v in self.shown]
        shown = f"the first {SHOWN}" if self.count > SHOWN else "all of them"
        raise InputDataError(
            f"{self.count} values of the list are not valid ({shown} here):\n  " + "\n  ".join(lines),
            path=source,
            hint=hint,
        )


def _typed(raw: pl.DataFrame, bad: _Bad) -> pl.DataFrame:
    """The written columns of a batch of players (raw text fields); values that are no number noted in ``bad``."""
    numbers = [name for name in _NUMBERS if name in raw.columns]
    value = {name: pl.col(name).cast(pl.Int64, strict=False) for name in numbers}

    def fault(name: str) -> pl.Expr:
        wrong = ~pl.col(name).str.contains(r"^[0-9]{1,18}$")
        if name != "id":
            wrong = wrong & (pl.col(name) != "")
        limit = _NUMBERS[name][0]
        return pl.when(wrong | ((value[name] > limit) if limit else pl.lit(False))).then(pl.lit(name))

    if numbers:
        field = pl.coalesce(fault(name) for name in numbers)
        found = raw.with_columns(field.alias("__field")).filter(pl.col("__field").is_not_null())
        if found.height:
            cell = pl.coalesce(pl.when(pl.col("__field") == name).then(pl.col(name)) for name in numbers)
            bad.add(found.select("__row", "__field", cell.alias("__value")))

    def number(name: str) -> pl.Expr:
        return pl.when(value[name] != 0).then(value[name]) if name in numbers else pl.lit(None, pl.Int64)

    def text(name: str) -> pl.Expr:
        return pl.when(pl.col(name) != "").then(pl.col(name)) if name in raw.columns else pl.lit(None, pl.String)

    flag = text("flag").str.to_lowercase()
    birth = number("byear")
    return raw.select(
        "__row",
        (value["id"] if "id" in numbers else pl.lit(None, pl.Int64)).alias("player_id"),
        number("rating").alias("rating"),
        number("k").alias("k"),
        pl.when(birth >= MIN_BIRTH_YEAR).then(birth).alias("birth_year"),
        *[text(field).alias(name) for name, field in _TEXTS.items()],
        (value["games"] if "games" in numbers else pl.lit(None, pl.Int64)).alias("fide_games"),
        flag.alias("flag"),
        flag.str.contains("i").fill_null(False).alias("inactive"),
        *([number("standard").alias("standard_rating")] if "standard" in numbers else []),
        (birth < MIN_BIRTH_YEAR).fill_null(False).alias("__old_birth"),
    )


def _finish(parts: list[pl.DataFrame], source: str, place: str) -> pl.DataFrame:
    """The batches as one list, refused when a FIDE ID is listed twice."""
    empty = pl.DataFrame(schema={"__row": pl.Int64, "id": pl.String})
    table = pl.concat(parts) if parts else _typed(empty, _Bad())
    twice = table.filter(pl.col("player_id").is_duplicated())
    if twice.height:
        player = twice["player_id"][0]
        rows = ", ".join(str(r) for r in twice.filter(pl.col("player_id") == player)["__row"])
        raise InputDataError(
            f"FIDE ID {player} is listed twice ({place}s {rows})",
            path=source,
            column="player_id",
            value=player,
            hint="give the list as FIDE published it: each FIDE ID once.",
        )
    return table.drop("__row")


def _report(
    table: pl.DataFrame, source: str, layout: str, kind: str, stats: TxtStats | None = None
) -> tuple[pl.DataFrame, FideListReport]:
    stats = stats or TxtStats()
    report = FideListReport(
        source=source,
        layout=layout,
        kind=kind,
        players=table.height,
        rated=table.height - table["rating"].null_count(),
        inactive=int(table["inactive"].sum()),
        old_birth_years=int(table["__old_birth"].sum()),
        blank_lines=stats.blank_lines,
        long_lines=stats.long_lines,
    )
    return table.drop("__old_birth"), report
