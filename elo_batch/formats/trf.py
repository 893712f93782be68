"""FIDE Tournament Report Files (TRF-16) into elo-batch's games table; no rating rules.

A TRF holds one ``001`` line per player (FIDE C.04 Annex 2, TRF-16; unchanged in TRF-26): starting
rank (columns 5-8), sex (10), title (11-13), name (15-47), FIDE rating (49-52), federation (54-56),
FIDE number (58-68), birth date (70-79), points (81-84), rank (86-89), then one 10-column block per
round from column 92: the opponent's starting rank (4), the colour (``w``/``b``/``-``) and the result
code. Line ``012`` names the tournament, ``042``/``052`` give its first and last day, ``132`` the date
of each round in the same columns as the rounds (``YY/MM/DD``).

Every game appears on both players' lines; the two entries must agree (opponent, opposite colours,
complementary results) or the file is refused with both lines named. Each game is written once, from
White's side. Result codes: ``1`` ``=`` ``0`` rated; ``+`` / ``-`` forfeits; ``W`` ``D`` ``L`` games of
less than one move, not rated (written as forfeits ``+--`` / ``--`` / ``--+``); ``H`` ``F`` ``U`` ``Z``
(or blank) and opponent ``0000`` are byes, which are not games: counted in the report, not written.

The parser is ours: the PyPI package ``trf`` (1.1.1, 2021) refuses lines of players with a
three-letter title (WGM, WIM, WFM, WCM), reports no line numbers and reads the ``132`` dates by
splitting on spaces, which loses the round of each date when one is blank.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

import polars as pl

from elo_batch import working as w
from elo_batch.errors import InputDataError
from elo_batch.inputs.readers import decode_text, unreadable
from elo_batch.outputs.gamesfile import GAMES_SCHEMA

#: A rated or unplayed game result code -> the opponent's code on the other line.
COMPLEMENT = {"1": "0", "0": "1", "=": "=", "+": "-", "-": "+", "W": "L", "L": "W", "D": "D"}
#: White's code -> the ``result`` written (forfeits and games of less than one move are never rated).
WHITE_RESULT = {"1": "1-0", "0": "0-1", "=": "1/2-1/2", "+": "+--", "-": "--+", "W": "+--", "L": "--+", "D": "--"}
BYES = {"H": "half-point bye", "F": "full-point bye", "U": "pairing-allocated bye", "Z": "zero-point bye"}
_FIRST_ROUND = 91  # 0-based index of column 92
_ROUND_WIDTH = 10


@dataclass(frozen=True)
class TrfReport:
    """What a TRF import read.

    Attributes:
        source: The file. event: Its tournament name (line 012).
        players: ``001`` lines. rounds: Rounds found.
        games: Games written (each once). rated: Of them, with a rated result (1, =, 0).
        forfeits: Forfeits (+/-). unplayed: Games of less than one move (W, D, L), not rated.
        byes: Byes by kind (not games, not written).
        undated: Games whose round has no date on line 132 (and no ``--period``).
        ids_from_names: Games where a player has no FIDE number and is identified by name.
    """

    source: str
    event: str | None
    players: int
    rounds: int
    games: int
    rated: int
    forfeits: int
    unplayed: int
    byes: dict[str, int]
    undated: int
    ids_from_names: int

    def lines(self) -> list[str]:
        """The report as short lines for the terminal."""
        byes = ", ".join(f"{n} {kind}" for kind, n in self.byes.items() if n) or "none"
        return [
            f"{self.source}: {self.event or 'unnamed tournament'}: {self.players} players, {self.rounds} rounds, "
            f"{self.games} games",
            f"  rated results: {self.rated}; forfeits (not rated): {self.forfeits}; "
            f"games of less than one move (W/D/L, not rated): {self.unplayed}",
            f"  byes (not games, not written): {byes}",
            f"  games without a round date (line 132): {self.undated}",
            f"  games with a player identified by name (no FIDE number): {self.ids_from_names}",
        ]


def read_trf(path: str, *, period: str | None = None) -> tuple[pl.DataFrame, TrfReport]:
    """Read one TRF-16 file into a games table.

    Args:
        path: The TRF file (UTF-8, or Windows-1252 as older pairing programs write).
        period: ``YYYY-MM`` for games whose round has no date on line 132.

    Returns:
        One row per game in ``GAMES_SCHEMA`` (by round, then White's starting rank), and the report.

    Raises:
        InputMissingError: the file cannot be read.
        InputDataError: no ``001`` line, a malformed player line, a starting rank used twice, an
            opponent that is not in the file, or two lines that disagree about a game.

    References:
        FIDE Handbook C.04 Annex 2, TRF-16 (player section, result codes); FIDE Rating Regulations
        (B.02, 2024) 5.1: forfeits and other unplayed games are not rated.
    """
    lines = _read_lines(_read_text(path), path)
    listed = _listed(lines.players, path)
    rounds = pl.DataFrame(
        lines.entries,
        schema={"rank": pl.Int64, "round": pl.Int64, "opponent": pl.Int64, "colour": pl.String,
                "code": pl.String, "line": pl.Int64},
    )  # fmt: skip
    games, byes = _games(rounds, listed, path)
    games = _to_games(games, listed, lines.header, round_dates=lines.round_dates, path=path, period=period)
    report = _report(path, lines.header, listed=listed, rounds=rounds, games=games, byes=byes)
    return games.select(list(GAMES_SCHEMA)), report


@dataclass(frozen=True)
class _Lines:
    """What a TRF's lines hold: the header (lines 012, 042, 052), the round dates (132), players and rounds (001)."""

    header: dict[str, str]
    round_dates: dict[int, str]
    players: dict[str, list[Any]]
    entries: dict[str, list[Any]]


def _read_text(path: str) -> str:
    """The file's text, decoded (UTF-8, or Windows-1252)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise unreadable(exc, path) from exc
    text, _ = decode_text(data, path)
    return text


def _read_lines(text: str, path: str) -> _Lines:
    """The lines of a TRF that are read, each checked (the other lines are skipped)."""
    lines = _Lines(
        header={},
        round_dates={},
        players={k: [] for k in ("rank", "line", "name", "rating", "fide_id")},
        entries={k: [] for k in ("rank", "round", "opponent", "colour", "code", "line")},
    )
    for number, line in enumerate(text.splitlines(), start=1):
        tag = line[:3]
        if tag in ("012", "042", "052"):
            lines.header[tag] = line[4:].strip()
        elif tag == "132":
            for index, value in enumerate(_blocks(line), start=1):
                if value.strip():
                    lines.round_dates[index] = _round_date(value.strip(), path, number, round_number=index)
        elif tag == "001":
            _player_line(line, number, path, players=lines.players, entries=lines.entries)
    return lines


def _listed(players: dict[str, list[Any]], path: str) -> pl.DataFrame:
    """The players of the 001 lines as a frame; refused when there is none, or a starting rank is used twice."""
    if not players["rank"]:
        raise InputDataError(
            "no player line (001) found", path=path, hint="is this a FIDE TRF file? Player lines start with '001'."
        )
    listed = pl.DataFrame(players, schema={"rank": pl.Int64, "line": pl.Int64, "name": pl.String,
                                           "rating": pl.Int64, "fide_id": pl.String})  # fmt: skip
    repeated = listed.filter(pl.col("rank").is_duplicated())
    if repeated.height:
        lines = ", ".join(str(n) for n in repeated["line"])
        raise InputDataError(
            f"starting rank {repeated['rank'][0]} is used by more than one player (lines {lines})",
            path=path,
            hint="each 001 line needs its own starting rank in columns 5-8.",
        )
    return listed


def _report(
    path: str,
    header: dict[str, str],
    *,
    listed: pl.DataFrame,
    rounds: pl.DataFrame,
    games: pl.DataFrame,
    byes: dict[str, int],
) -> TrfReport:
    """The import's report of its players, round entries, games written and byes."""
    return TrfReport(
        source=path,
        event=header.get("012") or None,
        players=listed.height,
        rounds=int(rounds.select(pl.col("round").max()).item() or 0),
        games=games.height,
        rated=games.filter(pl.col("result").is_in(["1-0", "0-1", "1/2-1/2"])).height,
        forfeits=games.filter(pl.col(w.TRF_CODE).is_in(["+", "-"])).height,
        unplayed=games.filter(pl.col(w.TRF_CODE).is_in(["W", "D", "L"])).height,
        byes={kind: byes.get(code, 0) for code, kind in {**BYES, "0": "no opponent (0000)"}.items()},
        undated=games.filter(pl.col("date").is_null() & pl.col("period").is_null()).height,
        ids_from_names=games.filter(pl.col("white_id_from_name") | pl.col("black_id_from_name")).height,
    )


def _blocks(line: str) -> list[str]:
    """The 8-character round blocks of a 001 or 132 line (columns 92-99, 102-109, ...)."""
    rest = line[_FIRST_ROUND:].rstrip()
    return [rest[i : i + 8] for i in range(0, len(rest), _ROUND_WIDTH)]


def _round_date(value: str, path: str, line: int, *, round_number: int) -> str:
    match = re.fullmatch(r"(\d{2}|\d{4})[/.\-](\d{2})[/.\-](\d{2})", value)
    if not match:
        raise InputDataError(
            f"round {round_number} date {value!r} is not a date",
            path=path,
            row=line,
            column="132",
            value=value,
            hint="line 132 gives each round's date as YY/MM/DD in the round's columns (92-99, 102-109, ...).",
        )
    year = match.group(1) if len(match.group(1)) == 4 else f"20{match.group(1)}"
    return f"{year}-{match.group(2)}-{match.group(3)}"


def _player_line(
    line: str, number: int, path: str, *, players: dict[str, list[Any]], entries: dict[str, list[Any]]
) -> None:
    """Append one 001 line's player to ``players`` and its rounds to ``entries``, each field checked."""
    rank, rating, fide_id = _player_fields(line, number, path)
    players["rank"].append(int(rank))
    players["line"].append(number)
    players["name"].append(_field(line, 15, 47) or None)
    players["rating"].append(int(rating) if rating and int(rating) > 0 else None)
    players["fide_id"].append(fide_id if fide_id and int(fide_id) > 0 else None)
    for index, block in enumerate(_blocks(line), start=1):
        opponent, colour, code = _round_entry(block, index, number=number, path=path)
        entries["rank"].append(int(rank))
        entries["round"].append(index)
        entries["opponent"].append(int(opponent) if opponent else 0)
        entries["colour"].append(colour or "-")
        entries["code"].append(code or "Z")
        entries["line"].append(number)


def _field(line: str, first: int, last: int) -> str:
    """The text of a line's columns ``first`` to ``last`` (1-based, both included), stripped."""
    return line[first - 1 : last].strip()


def _player_fields(line: str, number: int, path: str) -> tuple[str, str, str]:
    """A 001 line's starting rank, rating and FIDE number as written (the last two may be empty), checked."""
    rank = _field(line, 5, 8)
    if not rank.isdigit():
        raise _bad("starting rank (5-8)", rank, "a starting rank", path=path, number=number)
    rating, fide_id = _field(line, 49, 52), _field(line, 58, 68)
    if rating and not rating.isdigit():
        raise _bad("FIDE rating (49-52)", rating, "a rating", path=path, number=number)
    if fide_id and not fide_id.isdigit():
        raise _bad("FIDE number (58-68)", fide_id, "a FIDE number", path=path, number=number)
    return rank, rating, fide_id


def _round_entry(block: str, index: int, *, number: int, path: str) -> tuple[str, str, str]:
    """A round block's opponent, colour and result code as written (each may be empty), checked."""
    block = block.ljust(8)
    opponent, colour, code = block[0:4].strip(), block[5].strip().lower(), block[7].strip().upper()
    if opponent and not opponent.isdigit():
        raise _bad(f"round {index} opponent", opponent, "a starting rank", path=path, number=number)
    if code and code not in COMPLEMENT and code not in BYES:
        raise _bad(
            f"round {index} result", code, "a TRF result code (1 = 0 + - W D L H F U Z)", path=path, number=number
        )
    return opponent, colour, code


def _bad(column: str, value: str, expected: str, *, path: str, number: int) -> InputDataError:
    """The error for a player line's field that is not what its columns hold."""
    return InputDataError(
        f"{value!r} is not {expected}",
        path=path,
        row=number,
        column=column,
        value=value,
        hint="TRF-16 player lines are fixed columns: starting rank 5-8, rating 49-52, FIDE number 58-68, "
        "rounds from column 92 in blocks of 10.",
    )


def _games(rounds: pl.DataFrame, listed: pl.DataFrame, path: str) -> tuple[pl.DataFrame, dict[str, int]]:
    """Pair each entry with the opponent's entry of the same round; check they agree; keep White's."""
    is_bye = (pl.col("opponent") == 0) | pl.col("code").is_in(list(BYES))
    played = rounds.filter(~is_bye)
    _check_opponents(played, listed, path)
    paired = _paired(played)
    disagree = paired.filter(~_agree().fill_null(False))
    if disagree.height:
        raise _disagreement(disagree.row(0, named=True), path)
    white = (pl.col("colour") == "w") | ((pl.col("colour") == "-") & (pl.col("rank") < pl.col("opponent")))
    return paired.filter(white).sort("round", "rank"), _bye_counts(rounds)


def _bye_counts(rounds: pl.DataFrame) -> dict[str, int]:
    """The round entries that are byes, by code (``"0"``: opponent 0000 with a result that is not a bye's)."""
    bye_counts = {code: rounds.filter(pl.col("code") == code).height for code in BYES}
    bye_counts["0"] = rounds.filter((pl.col("opponent") == 0) & ~pl.col("code").is_in(list(BYES))).height
    return bye_counts


def _check_opponents(played: pl.DataFrame, listed: pl.DataFrame, path: str) -> None:
    """Refuse a game whose opponent has no player line."""
    unknown = played.join(listed.select("rank"), left_on="opponent", right_on="rank", how="anti")
    if unknown.height:
        first = unknown.row(0, named=True)
        raise InputDataError(
            f"round {first['round']}: opponent {first['opponent']} has no player line",
            path=path,
            row=first["line"],
            hint="every opponent's starting rank needs its own 001 line.",
        )


def _paired(played: pl.DataFrame) -> pl.DataFrame:
    """Each played entry beside the opponent's entry of the same round (``o_colour``, ``o_code``, ``o_line``)."""
    other = played.select(
        pl.col("rank").alias("opponent"),
        pl.col("opponent").alias("rank"),
        "round",
        pl.col("colour").alias("o_colour"),
        pl.col("code").alias("o_code"),
        pl.col("line").alias("o_line"),
    )
    return played.join(other, on=["rank", "opponent", "round"], how="left")


def _agree() -> pl.Expr:
    """True where the opponent's entry shows the same game: opposite colours, complementary results."""
    opposite = pl.col("colour").replace({"w": "b", "b": "w"})
    double_forfeit = (pl.col("code") == "-") & (pl.col("o_code") == "-")
    return (
        pl.col("o_code").is_not_null()
        & ((pl.col("o_code") == pl.col("code").replace(COMPLEMENT)) | double_forfeit)
        & (opposite == pl.col("o_colour"))
    )


def _disagreement(first: dict[str, Any], path: str) -> InputDataError:
    """The error for an entry that its opponent's line does not show the same way."""
    theirs = (
        f"line {first['o_line']} has '{first['rank']} {first['o_colour']} {first['o_code']}'"
        if first["o_code"] is not None
        else f"the line of player {first['opponent']} does not name player {first['rank']} in that round"
    )
    return InputDataError(
        f"round {first['round']}: player {first['rank']} has '{first['opponent']} {first['colour']} "
        f"{first['code']}' but {theirs}",
        path=path,
        row=first["line"],
        hint="both players' lines must show the same game: opposite colours (w/b) and matching results "
        "(1/0, =/=, +/-, W/L, D/D).",
    )


def _to_games(
    games: pl.DataFrame,
    listed: pl.DataFrame,
    header: dict[str, str],
    *,
    round_dates: dict[int, str],
    path: str,
    period: str | None,
) -> pl.DataFrame:
    """The games table (``GAMES_SCHEMA`` and the result code) of White's entries."""
    label = os.path.basename(path)
    event_date = header.get("042", "").replace("/", "-").replace(".", "-")
    return _with_players_and_dates(games, listed, round_dates).select(
        *_game_columns(label, header.get("012") or label, period=period),
        pl.lit(event_date or None, pl.String).str.to_date("%Y-%m-%d", strict=False).alias("event_date"),
        pl.lit(None, pl.Int64).alias("plies"),
        _note().alias("note"),
        pl.col("code").alias(w.TRF_CODE),
    )


def _with_players_and_dates(games: pl.DataFrame, listed: pl.DataFrame, round_dates: dict[int, str]) -> pl.DataFrame:
    """The games beside White's player (``w_``), Black's (``b_``) and their round's date (``date``)."""
    people = listed.select("rank", "name", "rating", "fide_id")
    white = people.rename({n: f"w_{n}" for n in people.columns})
    black = people.rename({n: f"b_{n}" for n in people.columns})
    dates = pl.DataFrame(
        {"round": list(round_dates), "date": list(round_dates.values())},
        schema={"round": pl.Int64, "date": pl.String},
    ).with_columns(pl.col("date").str.to_date("%Y-%m-%d", strict=False))
    return (
        games.join(white, left_on="rank", right_on="w_rank", how="left", maintain_order="left")
        .join(black, left_on="opponent", right_on="b_rank", how="left", maintain_order="left")
        .join(dates, on="round", how="left", maintain_order="left")
    )


def _game_columns(label: str, event: str, *, period: str | None) -> list[pl.Expr]:
    """The contract's games columns, ``game_id`` to ``black_id_from_name``, of the joined games."""
    return [
        pl.format("{}#{}:{}-{}", pl.lit(label), "round", "rank", "opponent").alias("game_id"),
        pl.lit(event).alias("event_id"),
        pl.col("round").cast(pl.String).alias("round"),
        pl.col("date"),
        pl.when(pl.col("date").is_null()).then(pl.lit(period, pl.String)).alias("period"),
        pl.coalesce("w_fide_id", "w_name").alias("white_id"),
        pl.coalesce("b_fide_id", "b_name").alias("black_id"),
        pl.col("w_rating").alias("white_rating"),
        pl.col("b_rating").alias("black_rating"),
        pl.when((pl.col("code") == "-") & (pl.col("o_code") == "-"))
        .then(pl.lit("--"))
        .otherwise(pl.col("code").replace_strict(WHITE_RESULT, default=None))
        .alias("result"),
        pl.col("w_name").alias("white_name"),
        pl.col("b_name").alias("black_name"),
        pl.col("w_fide_id").is_null().alias("white_id_from_name"),
        pl.col("b_fide_id").is_null().alias("black_id_from_name"),
    ]


def _note() -> pl.Expr:
    """A game's note: what was flagged (forfeit, less than one move, no colour, no date, no FIDE number)."""
    note = pl.concat_list(
        pl.when(pl.col("code").is_in(["+", "-"])).then(pl.format("forfeit ('{}'): not rated", "code")),
        pl.when(pl.col("code").is_in(["W", "D", "L"])).then(
            pl.format("game of less than one move ('{}'): not rated", "code")
        ),
        pl.when(pl.col("colour") == "-").then(pl.lit("colour not given: lower starting rank shown as white")),
        pl.when(pl.col("date").is_null()).then(pl.format("no date for round {} on line 132", "round")),
        pl.when(pl.col("w_fide_id").is_null()).then(pl.lit("white identified by name (no FIDE number)")),
        pl.when(pl.col("b_fide_id").is_null()).then(pl.lit("black identified by name (no FIDE number)")),
    ).list.drop_nulls()
    return pl.when(note.list.len() > 0).then(note.list.join("; "))
