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

Memory stays bounded whatever the input's size: files and zip members are read as streams (see
:mod:`elo_batch.formats.pgnsource`, which also refuses zip bombs), a game at a time, and the games are
converted :data:`BATCH_GAMES` at a time (``import_pgn`` writes each batch to a temporary Parquet file
and streams those into the output).
"""

from __future__ import annotations

import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import chess
import chess.pgn
import polars as pl

from elo_batch import working as w
from elo_batch.choices import CsvFormulas
from elo_batch.errors import InputDataError
from elo_batch.formats import pgnsource
from elo_batch.inputs.readers import unreadable
from elo_batch.outputs.gamesfile import GAMES_SCHEMA, spill_part, write_games

_TAGS = (
    "Event", "Round", "Date", "EventDate", "White", "Black",
    "WhiteFideId", "BlackFideId", "WhiteElo", "BlackElo", "Result",
)  # fmt: skip
_DATE = r"^([0-9]{4}|\?{4})[.\-/]([0-9]{2}|\?{2})[.\-/]([0-9]{2}|\?{2})$"
#: Games converted (and written, by :func:`import_pgn`) at a time, at most; and at most the games whose
#: kept tags hold this many characters (a game's text is bounded: :data:`~elo_batch.formats.pgnsource.MAX_GAME_CHARS`).
BATCH_GAMES = 50_000
BATCH_CHARS = 32 << 20
#: The tags a game keeps (the rest are only noted): those read, and those python-chess sets up a board from.
_KEPT = frozenset((*_TAGS, "FEN", "SetUp", "Variant"))


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


class _TagsAndPlies(chess.pgn.BaseVisitor[tuple[chess.pgn.Headers, int, str | None, bool]]):
    """Keeps the tags read (:data:`_KEPT`; the rest only noted: a game may hold any number), counts the
    main line's half-moves and skips everything else (no move checking)."""

    def begin_game(self) -> None:
        self.tags = chess.pgn.Headers({})
        self.tagged = False
        self.plies = 0
        self.movetext_result: str | None = None

    def begin_headers(self) -> chess.pgn.Headers:
        return self.tags  # python-chess then keeps no copy of every tag

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.tagged = True
        if tagname in _KEPT:
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

    def result(self) -> tuple[chess.pgn.Headers, int, str | None, bool]:
        return self.tags, self.plies, self.movetext_result, self.tagged


def read_pgn(paths: list[str] | tuple[str, ...]) -> tuple[pl.DataFrame, ImportReport]:
    """Read PGN files and zip archives of PGN files into a games table in memory.

    Args:
        paths: ``.pgn`` files, ``.zip`` archives (every ``.pgn`` member, in name order) or glob patterns.

    Returns:
        One row per game in ``GAMES_SCHEMA``, in file order, and the import report.

    Raises:
        InputMissingError: a path does not exist or cannot be read.
        InputDataError: a zip archive is corrupt, holds no ``.pgn`` file or would inflate past the
            limits (:data:`~elo_batch.formats.pgnsource.MAX_RATIO`, :data:`~elo_batch.formats.pgnsource.MAX_INFLATED`),
            or a file holds no game.

    References:
        FIDE Rating Regulations (B.02, 2024) 5.1 (unplayed games are not rated); PGN standard 8.1
        (tags, ``????.??.??`` dates, ``*`` results).
    """
    sources: list[str] = []
    batches = list(_batches(paths, sources))
    games = pl.concat(batches) if batches else _to_games(_raw_frame(_empty_columns()))
    return games.select(list(GAMES_SCHEMA)), _report(games.lazy(), tuple(sources))


def import_pgn(paths: list[str] | tuple[str, ...], out: str, *, csv_formulas: CsvFormulas = "escape") -> ImportReport:
    """Read PGN files and zip archives (as :func:`read_pgn`) and write their games table to ``out``, in
    bounded memory: each batch of games goes to a temporary Parquet file, and those are streamed into
    ``out`` (see :func:`elo_batch.outputs.gamesfile.write_games`), which is written whole or not at all.

    Returns:
        The import report (``games`` = rows written).

    Raises:
        As :func:`read_pgn` and :func:`elo_batch.outputs.gamesfile.write_games`.
    """
    sources: list[str] = []
    with tempfile.TemporaryDirectory(prefix="elo-batch-pgn-") as folder:
        parts = []
        for number, batch in enumerate(_batches(paths, sources)):
            hint = "the games are first written to a temporary folder: free some room there, or set TMPDIR."
            parts.append(spill_part(batch, folder, number, what="the temporary games files", hint=hint))
        games = pl.scan_parquet(parts) if parts else _to_games(_raw_frame(_empty_columns())).lazy()
        report = _report(games, tuple(sources))
        write_games(games.select(list(GAMES_SCHEMA)), out, csv_formulas=csv_formulas)
    return report


def _batches(paths: list[str] | tuple[str, ...], sources: list[str]) -> Iterator[pl.DataFrame]:
    """The games of every source, at most :data:`BATCH_GAMES` at a time (``GAMES_SCHEMA`` and flag
    columns); each source's label is appended to ``sources`` as it is opened."""
    for label, path, binary in pgnsource.sources(paths):
        sources.append(label)
        batch = _Batch(label)
        try:
            handle = pgnsource.text(binary, label)  # held until sources() closes the stream
            for game in _games(handle):
                if batch.add(game):
                    yield batch.take()
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:  # a member's data is damaged
            raise InputDataError(f"not a readable zip archive ({exc})", path=path) from exc
        except OSError as exc:
            raise unreadable(exc, path) from exc
        if batch.tagged == 0:
            raise InputDataError(
                "no PGN game found", path=label, hint='a PGN game starts with tag pairs such as [Event "..."].'
            )
        if batch.columns["source"]:
            yield batch.take()


def _games(handle: pgnsource.GameText) -> Iterator[tuple[chess.pgn.Headers, int, str | None, bool]]:
    """The games of one source's text, as :class:`_TagsAndPlies` keeps them."""
    while True:
        handle.next_game()
        game = chess.pgn.read_game(handle, Visitor=_TagsAndPlies)
        if game is None:
            return
        yield game


class _Batch:
    """The raw tag columns (:func:`_empty_columns`) of one source's games, a batch at a time."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.number = self.tagged = self.chars = 0
        self.columns = _empty_columns()

    def add(self, game: tuple[chess.pgn.Headers, int, str | None, bool]) -> bool:
        """Adds one game; True when the batch is full (:data:`BATCH_GAMES` games or :data:`BATCH_CHARS`)."""
        tags, plies, movetext_result, has_tags = game
        self.number += 1
        self.tagged += has_tags
        self.chars += sum(len(tags[tag]) for tag in _TAGS if tag in tags)
        self.columns["source"].append(self.label)
        self.columns["number"].append(self.number)
        for tag in _TAGS:
            self.columns[tag].append(tags.get(tag))
        self.columns["plies"].append(plies)
        self.columns["movetext"].append(movetext_result)
        return len(self.columns["source"]) == BATCH_GAMES or self.chars > BATCH_CHARS

    def take(self) -> pl.DataFrame:
        """The batch's games (:func:`_to_games`); the batch starts again empty."""
        games = _to_games(_raw_frame(self.columns))
        self.columns, self.chars = _empty_columns(), 0
        return games


def _empty_columns() -> dict[str, list[Any]]:
    return {name: [] for name in ("source", "number", *_TAGS, "plies", "movetext")}


def _raw_frame(columns: dict[str, list[Any]]) -> pl.DataFrame:
    return pl.DataFrame(
        columns, schema={**{name: pl.String for name in columns}, "number": pl.Int64, "plies": pl.Int64}
    )


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


@dataclass(frozen=True)
class _Dates:
    """A game's date expressions: its ``[Date]`` read, or its event's ``[EventDate]`` when that is unknown."""

    date: pl.Expr
    period: pl.Expr
    event_date: pl.Expr
    full: pl.Expr
    known_month: pl.Expr
    month_only: pl.Expr
    from_event: pl.Expr


@dataclass(frozen=True)
class _Result:
    """A game's result as read (``[Result]``, else the movetext's), and whether it is a forfeit or an unplayed draw."""

    read: pl.Expr
    forfeit: pl.Expr
    unplayed_draw: pl.Expr


def _to_games(raw: pl.DataFrame) -> pl.DataFrame:
    """The games (``GAMES_SCHEMA``, then the flag columns) of raw tag columns (:func:`_raw_frame`)."""
    dates, result = _dates(), _result()
    frame = raw.with_columns(*_game_columns(dates, result), *_flags(dates, result))
    note = pl.concat_list([*_result_notes(), *_date_notes(), *_player_notes()]).list.drop_nulls().list.join("; ")
    frame = frame.with_columns(pl.when(note != "").then(note).alias("note"))
    flags = [name for name in frame.columns if name.startswith(w.PREFIX)]
    return frame.select(*GAMES_SCHEMA, *flags).cast(GAMES_SCHEMA)  # type: ignore[arg-type]


def _dates() -> _Dates:
    """The date expressions of the ``Date`` and ``EventDate`` tags."""
    parts = _clean("Date").str.extract_groups(_DATE)
    year, month, day = (parts.struct.field(str(i)) for i in (1, 2, 3))
    known_month = year.str.contains(r"^[0-9]{4}$") & month.str.contains(r"^[0-9]{2}$")
    full = known_month & day.str.contains(r"^[0-9]{2}$")
    date: pl.Expr = pl.when(full).then(
        pl.concat_str([year, month, day], separator="-").str.to_date("%Y-%m-%d", strict=False)
    )
    month_only = known_month & ~full.fill_null(False)
    event_date = _event_date()
    # an unknown [Date] takes the event's start date when [EventDate] is a full date (FIDE rates an event
    # with the list in force when it started, B.02 7.1 and fide-rules.md section 7)
    from_event = ~known_month.fill_null(False) & event_date.is_not_null()
    return _Dates(
        date=pl.when(from_event).then(event_date).otherwise(date),
        period=pl.when(month_only).then(pl.concat_str([year, month], separator="-")),
        event_date=event_date,
        full=full,
        known_month=known_month,
        month_only=month_only,
        from_event=from_event,
    )


def _event_date() -> pl.Expr:
    """The ``EventDate`` tag as a date; null unless it is a full calendar date."""
    event_parts = _clean("EventDate").str.extract_groups(_DATE)
    return pl.concat_str([event_parts.struct.field(str(i)) for i in (1, 2, 3)], separator="-").str.to_date(
        "%Y-%m-%d", strict=False
    )


def _result() -> _Result:
    """The result expressions of the ``Result`` tag, the movetext's result and the half-moves played."""
    read = pl.coalesce(_clean("Result"), pl.col("movetext"))
    unplayed = ~both_moved(pl.col("plies"))
    return _Result(
        read=read, forfeit=unplayed & read.is_in(["1-0", "0-1"]), unplayed_draw=unplayed & (read == "1/2-1/2")
    )


def _game_columns(dates: _Dates, result: _Result) -> list[pl.Expr]:
    """The contract's games columns of the tags."""
    white_fide, black_fide = _fide_id("WhiteFideId"), _fide_id("BlackFideId")
    return [
        pl.format("{}#{}", "source", "number").alias("game_id"),
        _clean("Event").alias("event_id"),
        _clean("Round").alias("round"),
        dates.date.alias("date"),
        dates.period.alias("period"),
        pl.coalesce(white_fide, _clean("White")).alias("white_id"),
        pl.coalesce(black_fide, _clean("Black")).alias("black_id"),
        _rating("WhiteElo").alias("white_rating"),
        _rating("BlackElo").alias("black_rating"),
        _written_result(result).alias("result"),
        _clean("White").alias("white_name"),
        _clean("Black").alias("black_name"),
        (white_fide.is_null() & _clean("White").is_not_null()).alias("white_id_from_name"),
        (black_fide.is_null() & _clean("Black").is_not_null()).alias("black_id_from_name"),
        dates.event_date.alias("event_date"),
    ]


def _written_result(result: _Result) -> pl.Expr:
    """The result as written: a forfeit as ``+--`` / ``--+``, an unplayed draw as ``--``, else as read."""
    return (
        pl.when(result.forfeit)
        .then(pl.when(result.read == "1-0").then(pl.lit("+--")).otherwise(pl.lit("--+")))
        .when(result.unplayed_draw)
        .then(pl.lit("--"))
        .otherwise(result.read)
    )


def _flags(dates: _Dates, result: _Result) -> list[pl.Expr]:
    """The flag columns (what the report counts and the notes say) of the tags."""
    return [
        result.forfeit.fill_null(False).alias(w.PGN_FORFEIT),
        result.unplayed_draw.fill_null(False).alias(w.PGN_UNPLAYED_DRAW),
        (result.read.is_null() | (result.read == "*")).alias(w.PGN_UNKNOWN_RESULT),
        (~dates.known_month.fill_null(False) & ~dates.from_event).alias(w.PGN_UNKNOWN_DATE),
        dates.from_event.alias(w.PGN_DATE_FROM_EVENT),
        (dates.full.fill_null(False) & dates.date.is_null()).alias(w.PGN_BAD_DATE),
        dates.month_only.fill_null(False).alias(w.PGN_MONTH_ONLY),
    ]


def _result_notes() -> list[pl.Expr]:
    """The notes on a game's result, of the flag columns (null where a note does not apply)."""
    plies_note = pl.when(pl.col("plies") == 0).then(pl.lit("no moves")).otherwise(pl.lit("one half-move only"))
    return [
        pl.when(w.PGN_FORFEIT).then(pl.format("{}: forfeit, not rated (FIDE B.02 5.1)", plies_note)),
        pl.when(w.PGN_UNPLAYED_DRAW).then(
            pl.format("{}: a draw without a move by both players is unplayed, not rated (FIDE B.02 5.1)", plies_note)
        ),
        pl.when(w.PGN_UNKNOWN_RESULT).then(
            pl.format("result '{}' is not a final result: not rated", pl.coalesce(_clean("Result"), pl.lit("")))
        ),
    ]


def _date_notes() -> list[pl.Expr]:
    """The notes on a game's date, of the flag columns (null where a note does not apply)."""
    return [
        pl.when(w.PGN_UNKNOWN_DATE).then(pl.format("date '{}' unknown", pl.coalesce(pl.col("Date"), pl.lit("")))),
        pl.when(w.PGN_BAD_DATE).then(pl.format("date '{}' is not a calendar date", pl.col("Date"))),
        pl.when(w.PGN_DATE_FROM_EVENT).then(
            pl.format(
                "date '{}' unknown: the event's date {} is used", pl.coalesce(pl.col("Date"), pl.lit("")), "EventDate"
            )
        ),
        pl.when(w.PGN_MONTH_ONLY).then(pl.format("no day in date '{}': rated in period {}", "Date", "period")),
    ]


def _player_notes() -> list[pl.Expr]:
    """The notes on a game's players: identified by name, or a rating tag that is not a rating."""
    return [
        pl.when("white_id_from_name").then(pl.lit("white identified by name (no WhiteFideId)")),
        pl.when("black_id_from_name").then(pl.lit("black identified by name (no BlackFideId)")),
        pl.when(pl.col("white_rating").is_null() & _clean("WhiteElo").is_not_null()).then(
            pl.format("WhiteElo '{}' is not a rating", "WhiteElo")
        ),
        pl.when(pl.col("black_rating").is_null() & _clean("BlackElo").is_not_null()).then(
            pl.format("BlackElo '{}' is not a rating", "BlackElo")
        ),
    ]


def _report(games: pl.LazyFrame, sources: tuple[str, ...]) -> ImportReport:
    counts = (
        games.select(
            pl.len().alias("games"),
            pl.col(w.PGN_FORFEIT).sum().alias("forfeits"),
            pl.col(w.PGN_UNPLAYED_DRAW).sum().alias("unplayed_draws"),
            pl.col(w.PGN_UNKNOWN_RESULT).sum().alias("unknown_results"),
            (pl.col(w.PGN_UNKNOWN_DATE) | pl.col(w.PGN_BAD_DATE)).sum().alias("unknown_dates"),
            pl.col(w.PGN_MONTH_ONLY).sum().alias("month_only_dates"),
            (pl.col("white_id_from_name") | pl.col("black_id_from_name")).sum().alias("ids_from_names"),
            (pl.col("white_rating").is_null() | pl.col("black_rating").is_null()).sum().alias("missing_ratings"),
            pl.col("event_id").n_unique().alias("events"),
            pl.concat([pl.col("white_id"), pl.col("black_id")]).drop_nulls().n_unique().alias("players"),
        )
        .collect(engine="streaming")
        .row(0, named=True)
    )
    return ImportReport(sources=sources, **{k: int(v) for k, v in counts.items()})
