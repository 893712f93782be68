"""PGN game scores (plain files or zip archives) into elo-batch's games table; no rating rules.

python-chess reads the games; only the tags and the number of half-moves of the main line are kept
(the moves are not checked for legality: a rating needs the result, not the moves). The tags become the
contract's columns (``../shared/spec/interface.md``) with polars expressions:

- ``[WhiteFideId]`` / ``[BlackFideId]`` -> ``white_id`` / ``black_id``; the player's name only when there
  is no id, flagged in ``white_id_from_name`` / ``black_id_from_name`` (names never identify a player
  reliably: two "Smith, J." are one id).
- ``[WhiteElo]`` / ``[BlackElo]`` -> ``white_rating`` / ``black_rating`` (empty, ``0``, ``?`` -> null).
- ``[Result]``: in a game where not both players made a move (:func:`both_moved`), a decided result
  becomes a forfeit, ``+--`` / ``--+``, and a draw becomes ``--``, unplayed (FIDE B.02 5.1: unplayed
  games are not rated; Laws of Chess 5.2.3: a draw by agreement needs a move by both players):
  ``elo-batch run`` audits them, not rated. ``*`` stays ``*`` and ``run`` rejects it with its reason.
- ``[Date]`` (``2022.01.15``): a full date -> ``date``; year and month only -> ``period``; otherwise the
  event's full ``[EventDate]`` when there is one (noted); else unknown: left empty and reported, never
  guessed. ``[EventDate]`` -> ``event_date``.
- ``[Event]`` -> ``event_id``, ``[Round]`` -> ``round``; ``game_id`` = ``<file>#<n>``.

Every game read is written; each row's ``note`` says what was flagged.
"""

from __future__ import annotations

import codecs
import glob
import io
import os
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import chess
import chess.pgn
import polars as pl

from elo_batch.errors import InputDataError, InputMissingError
from elo_batch.inputs.gamesfile import GAMES_SCHEMA
from elo_batch.inputs.readers import unreadable

_TAGS = (
    "Event", "Round", "Date", "EventDate", "White", "Black",
    "WhiteFideId", "BlackFideId", "WhiteElo", "BlackElo", "Result",
)  # fmt: skip
_DATE = r"^([0-9]{4}|\?{4})[.\-/]([0-9]{2}|\?{2})[.\-/]([0-9]{2}|\?{2})$"


@dataclass(frozen=True)
class ImportReport:
    """What an import read and what it flagged (every game is written; see the ``note`` column).

    Attributes:
        sources: The files (``archive.zip:member.pgn`` for archives) read, in order.
        games: Games read (= rows written).
        forfeits: Decided results with fewer than two half-moves, written as ``+--`` / ``--+``.
        unplayed_draws: Draws with fewer than two half-moves, written as ``--`` (unplayed, not rated).
        unknown_results: Games whose result is ``*`` or missing (``elo-batch run`` rejects them).
        unknown_dates: Games without a year and month (``elo-batch run`` rejects them).
        month_only_dates: Games with year and month but no day (rated in that ``period``).
        ids_from_names: Games where at least one player has no id and is identified by name.
        missing_ratings: Games where at least one rating is missing.
        events: Distinct events (or tournaments).
        players: Distinct player ids.
    """

    sources: tuple[str, ...]
    games: int
    forfeits: int
    unplayed_draws: int
    unknown_results: int
    unknown_dates: int
    month_only_dates: int
    ids_from_names: int
    missing_ratings: int
    events: int
    players: int

    def lines(self) -> list[str]:
        """The report as short lines for the terminal."""
        return [
            f"{self.games} games read from {len(self.sources)} source(s); {self.events} event(s), "
            f"{self.players} player(s)",
            f"  forfeits (decided, fewer than two half-moves; written +--/--+, not rated): {self.forfeits}",
            f"  draws without a move by both players (unplayed; written --, not rated): {self.unplayed_draws}",
            f"  unknown results (* or none; not rated, run rejects them): {self.unknown_results}",
            f"  unknown dates (no year and month; run rejects them): {self.unknown_dates}",
            f"  dates without a day (rated in their month, column period): {self.month_only_dates}",
            f"  games with a player identified by name (no FideId): {self.ids_from_names}",
            f"  games with a missing rating: {self.missing_ratings}",
        ]


class _TagsAndPlies(chess.pgn.BaseVisitor[tuple[dict[str, str], int, str | None]]):
    """Keeps the tags, counts the main line's half-moves and skips everything else (no move checking)."""

    def begin_game(self) -> None:
        self.tags: dict[str, str] = {}
        self.plies = 0
        self.movetext_result: str | None = None

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.tags[tagname] = tagvalue

    def begin_variation(self) -> chess.pgn.SkipType:
        return chess.pgn.SKIP

    def begin_parse_san(self, board: chess.Board, san: str) -> chess.pgn.SkipType | None:
        self.plies += 1
        # The first half-move is "played" (a null move) so that the board has a move stack and
        # python-chess hands variations to begin_variation; the rest are only counted.
        return None if self.plies == 1 else chess.pgn.SKIP

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        return chess.Move.null()

    def visit_result(self, result: str) -> None:
        self.movetext_result = result

    def result(self) -> tuple[dict[str, str], int, str | None]:
        return self.tags, self.plies, self.movetext_result


def read_pgn(paths: list[str] | tuple[str, ...]) -> tuple[pl.DataFrame, ImportReport]:
    """Read PGN files and zip archives of PGN files into a games table.

    Args:
        paths: ``.pgn`` files, ``.zip`` archives (every ``.pgn`` member, in name order) or glob patterns.

    Returns:
        One row per game in ``GAMES_SCHEMA``, in file order, and the import report.

    Raises:
        InputMissingError: a path does not exist or cannot be read.
        InputDataError: a zip archive is corrupt or holds no ``.pgn`` file, or a file holds no game.

    References:
        FIDE Rating Regulations (B.02, 2024) 5.1 (unplayed games are not rated); PGN standard 8.1
        (tags, ``????.??.??`` dates, ``*`` results).
    """
    columns: dict[str, list[Any]] = {name: [] for name in ("source", "number", *_TAGS, "plies", "movetext")}
    sources: list[str] = []
    for label, text in _sources(paths):
        sources.append(label)
        handle = io.StringIO(text)
        number = tagged = 0
        while (game := chess.pgn.read_game(handle, Visitor=_TagsAndPlies)) is not None:
            tags, plies, movetext_result = game
            number += 1
            tagged += bool(tags)
            columns["source"].append(label)
            columns["number"].append(number)
            for tag in _TAGS:
                columns[tag].append(tags.get(tag))
            columns["plies"].append(plies)
            columns["movetext"].append(movetext_result)
        if tagged == 0:
            raise InputDataError(
                "no PGN game found", path=label, hint='a PGN game starts with tag pairs such as [Event "..."].'
            )
    raw = pl.DataFrame(columns, schema={**{name: pl.String for name in columns}, "number": pl.Int64, "plies": pl.Int64})
    games = _to_games(raw)
    return games.select(list(GAMES_SCHEMA)), _report(games, tuple(sources))


def _sources(paths: list[str] | tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """(label, text) of every PGN file named by ``paths``; archives yield one entry per member."""
    files: list[str] = []
    for given in paths:
        if glob.has_magic(given) and not os.path.exists(given):
            matched = sorted(glob.glob(given, recursive=True))
            if not matched:
                raise InputMissingError("no file matches this pattern", path=given)
            files.extend(matched)
        else:
            files.append(given)
    names = [os.path.basename(f) for f in files]
    use_path = len(set(names)) != len(names)  # two files of one name: label them by path
    for path, name in zip(files, names, strict=True):
        label = path if use_path else name
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            raise unreadable(exc, path) from exc
        if zipfile.is_zipfile(io.BytesIO(data)):
            yield from _archive_members(data, path, label)
        else:
            yield label, _decode(data)


def _archive_members(data: bytes, path: str, label: str) -> Iterator[tuple[str, str]]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = sorted(n for n in archive.namelist() if n.lower().endswith(".pgn"))
            if not members:
                raise InputDataError(
                    "the zip archive holds no .pgn file", path=path, hint="only members ending in .pgn are read."
                )
            for member in members:
                yield f"{label}:{member}", _decode(archive.read(member))
    except zipfile.BadZipFile as exc:
        raise InputDataError(f"not a readable zip archive ({exc})", path=path) from exc


def _decode(data: bytes) -> str:
    """PGN text: UTF-8 (with or without BOM) or UTF-16 with a BOM, else Windows-1252 as many older
    PGN files are (a collection mixing encodings keeps its games; an undefined byte becomes U+FFFD)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _clean(name: str) -> pl.Expr:
    """A tag's value trimmed; null when absent, empty or a placeholder (``?``, ``-``)."""
    text = pl.col(name).str.strip_chars()
    return pl.when(text.is_in(["", "?", "-", "??"]).not_()).then(text)


def _rating(name: str) -> pl.Expr:
    """A rating tag as whole rating points; null when absent, not digits, or 0 (unrated in PGN)."""
    value = _clean(name)
    points = pl.when(value.str.contains(r"^[0-9]+$")).then(value.cast(pl.Int64, strict=False))
    return pl.when(points > 0).then(points)


def _fide_id(name: str) -> pl.Expr:
    value = _clean(name)
    return pl.when(value != "0").then(value)


def both_moved(plies: pl.Expr) -> pl.Expr:
    """True where both players made at least one move: the game's main line has two half-moves or more.

    References:
        FIDE Rating Regulations (B.02, 2024) 5.1: "any game where both players have made at least one move
        will be rated"; Laws of Chess 5.2.3 (a draw by agreement once both players have made a move).

    >>> pl.select(both_moved(pl.lit(pl.Series([0, 1, 2])))).to_series().to_list()
    [False, False, True]
    """
    return plies >= 2


def _to_games(raw: pl.DataFrame) -> pl.DataFrame:
    date_text = _clean("Date")
    parts = date_text.str.extract_groups(_DATE)
    year, month, day = (parts.struct.field(str(i)) for i in (1, 2, 3))
    known_month = year.str.contains(r"^[0-9]{4}$") & month.str.contains(r"^[0-9]{2}$")
    full = known_month & day.str.contains(r"^[0-9]{2}$")
    date: pl.Expr = pl.when(full).then(
        pl.concat_str([year, month, day], separator="-").str.to_date("%Y-%m-%d", strict=False)
    )
    month_only = known_month & ~full.fill_null(False)
    event_parts = _clean("EventDate").str.extract_groups(_DATE)
    event_date = pl.concat_str([event_parts.struct.field(str(i)) for i in (1, 2, 3)], separator="-").str.to_date(
        "%Y-%m-%d", strict=False
    )
    # an unknown [Date] takes the event's start date when [EventDate] is a full date (FIDE rates an event
    # with the list in force when it started, B.02 7.1 and fide-rules.md section 7)
    from_event = ~known_month.fill_null(False) & event_date.is_not_null()
    date = pl.when(from_event).then(event_date).otherwise(date)
    result = pl.coalesce(_clean("Result"), pl.col("movetext"))
    unplayed = ~both_moved(pl.col("plies"))
    forfeit = unplayed & result.is_in(["1-0", "0-1"])
    unplayed_draw = unplayed & (result == "1/2-1/2")
    white_fide, black_fide = _fide_id("WhiteFideId"), _fide_id("BlackFideId")
    frame = raw.with_columns(
        pl.format("{}#{}", "source", "number").alias("game_id"),
        _clean("Event").alias("event_id"),
        _clean("Round").alias("round"),
        date.alias("date"),
        pl.when(month_only).then(pl.concat_str([year, month], separator="-")).alias("period"),
        pl.coalesce(white_fide, _clean("White")).alias("white_id"),
        pl.coalesce(black_fide, _clean("Black")).alias("black_id"),
        _rating("WhiteElo").alias("white_rating"),
        _rating("BlackElo").alias("black_rating"),
        pl.when(forfeit)
        .then(pl.when(result == "1-0").then(pl.lit("+--")).otherwise(pl.lit("--+")))
        .when(unplayed_draw)
        .then(pl.lit("--"))
        .otherwise(result)
        .alias("result"),
        _clean("White").alias("white_name"),
        _clean("Black").alias("black_name"),
        (white_fide.is_null() & _clean("White").is_not_null()).alias("white_id_from_name"),
        (black_fide.is_null() & _clean("Black").is_not_null()).alias("black_id_from_name"),
        event_date.alias("event_date"),
        forfeit.fill_null(False).alias("__forfeit"),
        unplayed_draw.fill_null(False).alias("__unplayed_draw"),
        (result.is_null() | (result == "*")).alias("__unknown_result"),
        (~known_month.fill_null(False) & ~from_event).alias("__unknown_date"),
        from_event.alias("__date_from_event"),
        (full.fill_null(False) & date.is_null()).alias("__bad_date"),
        month_only.fill_null(False).alias("__month_only"),
    )
    plies_note = pl.when(pl.col("plies") == 0).then(pl.lit("no moves")).otherwise(pl.lit("one half-move only"))
    notes = [
        pl.when("__forfeit").then(pl.format("{}: forfeit, not rated (FIDE B.02 5.1)", plies_note)),
        pl.when("__unplayed_draw").then(
            pl.format("{}: a draw without a move by both players is unplayed, not rated (FIDE B.02 5.1)", plies_note)
        ),
        pl.when("__unknown_result").then(
            pl.format("result '{}' is not a final result: not rated", pl.coalesce(_clean("Result"), pl.lit("")))
        ),
        pl.when("__unknown_date").then(pl.format("date '{}' unknown", pl.coalesce(pl.col("Date"), pl.lit("")))),
        pl.when("__bad_date").then(pl.format("date '{}' is not a calendar date", pl.col("Date"))),
        pl.when("__date_from_event").then(
            pl.format(
                "date '{}' unknown: the event's date {} is used", pl.coalesce(pl.col("Date"), pl.lit("")), "EventDate"
            )
        ),
        pl.when("__month_only").then(pl.format("no day in date '{}': rated in period {}", "Date", "period")),
        pl.when("white_id_from_name").then(pl.lit("white identified by name (no WhiteFideId)")),
        pl.when("black_id_from_name").then(pl.lit("black identified by name (no BlackFideId)")),
        pl.when(pl.col("white_rating").is_null() & _clean("WhiteElo").is_not_null()).then(
            pl.format("WhiteElo '{}' is not a rating", "WhiteElo")
        ),
        pl.when(pl.col("black_rating").is_null() & _clean("BlackElo").is_not_null()).then(
            pl.format("BlackElo '{}' is not a rating", "BlackElo")
        ),
    ]
    note = pl.concat_list(notes).list.drop_nulls().list.join("; ")
    frame = frame.with_columns(pl.when(note != "").then(note).alias("note"))
    flags = [name for name in frame.columns if name.startswith("__")]
    return frame.select(*GAMES_SCHEMA, *flags).cast(GAMES_SCHEMA)  # type: ignore[arg-type]


def _report(games: pl.DataFrame, sources: tuple[str, ...]) -> ImportReport:
    counts = games.select(
        pl.col("__forfeit").sum().alias("forfeits"),
        pl.col("__unplayed_draw").sum().alias("unplayed_draws"),
        pl.col("__unknown_result").sum().alias("unknown_results"),
        (pl.col("__unknown_date") | pl.col("__bad_date")).sum().alias("unknown_dates"),
        pl.col("__month_only").sum().alias("month_only_dates"),
        (pl.col("white_id_from_name") | pl.col("black_id_from_name")).sum().alias("ids_from_names"),
        (pl.col("white_rating").is_null() | pl.col("black_rating").is_null()).sum().alias("missing_ratings"),
        pl.col("event_id").n_unique().alias("events"),
        pl.concat([pl.col("white_id"), pl.col("black_id")]).drop_nulls().n_unique().alias("players"),
    ).row(0, named=True)
    return ImportReport(sources=sources, games=games.height, **{k: int(v) for k, v in counts.items()})
