"""The contract's tables as types: the canonical game rows, the rejected rows, the event attributes, the
rating list the engine reads, the result tokens, and the output tables' columns (interface.md); data only,
handed from the inputs to the engine and the outputs.

The checks that produce these rows are in :mod:`elo_batch.inputs`; the engine reads them. The output
columns (:data:`OUTPUT_TYPES`, :data:`OUTPUT_COLUMNS`) are what a CSV output is read back as
(:mod:`elo_batch.tables`) and what the published schemas check (:mod:`elo_batch.schemas`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import polars as pl

from elo_batch import columns as c
from elo_batch.contract.pending import POOL

#: Canonical game row: one per valid input row (two-sided game or one-sided result).
CANONICAL_SCHEMA: dict[str, pl.DataType] = {
    "row_key": pl.Int64(),  # global input order: files in order, rows in order
    c.SOURCE_FILE: pl.String(),
    c.SOURCE_ROW: pl.Int64(),
    "one_sided": pl.Boolean(),
    c.GAME_ID: pl.String(),  # Int64 when every file that has game_ids has integer ones (INTEGER_IDS)
    c.PERIOD: pl.String(),
    c.DATE: pl.Date(),
    c.EVENT_ID: pl.String(),
    c.ROUND: pl.String(),
    c.BOARD: pl.String(),  # optional: with event_id, round and the players, it names the game
    c.WHITE_ID: pl.String(),  # player_id of one-sided rows; Int64 when every file's ids are (INTEGER_IDS)
    c.BLACK_ID: pl.String(),  # opponent_id of one-sided rows (may be null); as white_id
    "score100": pl.Int16(),  # white's (player's) score in hundredths: 100, 50, 0
    "forfeit": pl.Boolean(),
    c.WHITE_RATING: pl.Float64(),  # player_rating of one-sided rows
    c.BLACK_RATING: pl.Float64(),  # opponent_rating of one-sided rows
    "duplicate": pl.Boolean(),  # a repeat of an earlier row of the same game (inputs/duplicates.py)
}


#: Player id column types kept as integers (Int64) in the canonical rows when every game file has them:
#: the rating uses them as keys without making 20 million texts; an integer's id is its decimal text.
INTEGER_IDS = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32)


#: Two-sided result tokens -> white's score in hundredths (FIDE 5.1: forfeits are never rated).
RESULTS: dict[str, int] = {
    "1-0": 100, "0-1": 0, "1/2-1/2": 50, "½-½": 50, "0.5-0.5": 50, "0,5-0,5": 50, "=-=": 50,
    "1:0": 100, "0:1": 0, "½:½": 50, "1/2:1/2": 50,
}  # fmt: skip


FORFEITS: dict[str, int] = {"+--": 100, "--+": 0, "+-": 100, "-+": 0, "--": 0}


#: One-sided score tokens -> the player's score in hundredths.
SCORES: dict[str, int] = {
    "1": 100, "1.0": 100, "1.00": 100, "1,0": 100, "1,00": 100,
    "0": 0, "0.0": 0, "0.00": 0, "0,0": 0, "0,00": 0,
    "0.5": 50, "0.50": 50, "0,5": 50, "0,50": 50, ".5": 50, "½": 50, "1/2": 50, "=": 50,
}  # fmt: skip


ONE_SIDED_FORFEITS: dict[str, int] = {"+": 100, "-": 0, "--": 0}


#: The event attributes of game rows, beside the canonical rows (see ``GamesInput.event_rows``): the row,
#: its event, the attributes and the ``period`` the row gives (null when it gives none).
EVENT_ROWS_SCHEMA: dict[str, pl.DataType] = {
    "row_key": pl.Int64(),
    c.EVENT_ID: pl.String(),
    c.EVENT_TYPE: pl.String(),
    c.MATCH_GAMES: pl.Int64(),
    c.RATE_ALL_GAMES: pl.Boolean(),
    c.EVENT_START: pl.Date(),
    c.EVENT_END: pl.Date(),
    c.PERIOD: pl.String(),
}


#: The types of the typed event attributes (``period`` is text ``YYYY-MM``).
EVENT_ATTRIBUTE_TYPES: Final[dict[str, pl.DataType]] = {
    c.EVENT_TYPE: pl.String(),
    c.MATCH_GAMES: pl.Int64(),
    c.RATE_ALL_GAMES: pl.Boolean(),
    c.EVENT_START: pl.Date(),
    c.EVENT_END: pl.Date(),
}


#: Typed list columns the engine reads. ``player_id`` is text, or Int64 when the list's id column is
#: an integer one (:data:`INTEGER_IDS`); see :func:`list_schema`.
LIST_SCHEMA: dict[str, pl.DataType] = {
    c.PLAYER_ID: pl.String(),
    c.RATING: pl.Float64(),
    c.K: pl.Int64(),
    c.BIRTH_YEAR: pl.Int64(),
    c.GAMES_TOTAL: pl.Int64(),
    c.REACHED_2400: pl.Boolean(),
    c.REACHED_2300: pl.Boolean(),
    c.PENDING: POOL,  # text on disk: elo_batch.contract.pending
}


#: Columns of an earlier run's output that describe its own period; not carried forward.
PERIOD_OUTPUT = (
    c.PERIOD, c.RATING_BEFORE, c.CHANGE, c.K_USED, c.GAMES, c.SCORE, c.EXPECTED_SCORE, c.STATUS,
    c.PERFORMANCE_RATING, c.OPPONENTS_AVERAGE, c.ADJUSTMENT, c.BAND,
)  # fmt: skip


def list_schema(id_type: pl.DataType) -> dict[str, pl.DataType]:
    """:data:`LIST_SCHEMA` with ``player_id`` of ``id_type`` (pl.String or pl.Int64)."""
    return {**LIST_SCHEMA, c.PLAYER_ID: id_type}


def ids_type(schema: pl.Schema) -> pl.DataType:
    """Int64 for an integer id column (ids keep their type through to the outputs), else text."""
    return pl.Int64() if schema.get(c.PLAYER_ID) in INTEGER_IDS else pl.String()


# --- the output tables (interface.md "Outputs"): ratings, audit, rejected ------------------------------

#: A period written YYYY-MM.
PERIOD_PATTERN = r"^[0-9]{4}-(0[1-9]|1[0-2])$"
#: Ratings and changes kept fractional (``rounding="none"``): written with exactly 2 decimals.
RATING_2DP: Final = pl.Decimal(12, 2)
#: Text: String, or Categorical where the engine writes a column of few values (``period``, ``status``,
#: ``band``, ``source_file``, ``colour``, ``reason``, ``event_rule``), as a Parquet file holds it; a hive
#: partition's ``period``, a Delta table and a CSV file read back String.
TEXT: Final = (pl.String(), pl.Categorical())
#: A player or game id: text, or Int64 where every input's ids are integers (:data:`INTEGER_IDS`).
ID: Final = (pl.String(), pl.Int64())
#: Rating points: whole (Int64), or with 2 decimals (``rounding="none"``, :data:`RATING_2DP`).
POINTS: Final = (pl.Int64(), RATING_2DP)
_WHOLE: Final = (pl.Int64(),)
_FRACTION: Final = (pl.Float64(),)  # points of scores and expected scores (exact hundredths under table 8.1.2)
_FLAG: Final = (pl.Boolean(),)

#: The types each output column may have, by name (a name has one meaning, and these types, in every
#: table that holds it). A CSV file's text is read as the first type that reads every cell of the column.
OUTPUT_TYPES: Final[dict[str, tuple[pl.DataType, ...]]] = {
    **dict.fromkeys((c.PLAYER_ID, c.OPPONENT_ID, c.GAME_ID), ID),
    **dict.fromkeys((c.PERIOD, c.STATUS, c.BAND, c.PENDING, c.SOURCE_FILE, c.EVENT_ID, c.ROUND), TEXT),
    **dict.fromkeys((c.COLOUR, c.REASON, c.EVENT_RULE, c.COLUMN, c.VALUE, c.RAW), TEXT),
    **dict.fromkeys((c.RATING, c.RATING_BEFORE, c.CHANGE, c.OPPONENT_RATING, c.RATING_DIFF), POINTS),
    **dict.fromkeys((c.ADJUSTMENT, c.K_USED, c.GAMES, c.PERFORMANCE_RATING, c.OPPONENTS_AVERAGE, c.K), _WHOLE),
    **dict.fromkeys((c.GAMES_TOTAL, c.BIRTH_YEAR, c.SOURCE_ROW), _WHOLE),
    **dict.fromkeys((c.SCORE, c.EXPECTED_SCORE, c.K_CHANGE), _FRACTION),
    **dict.fromkeys((c.REACHED_2400, c.REACHED_2300, c.CAPPED, c.COUNTED), _FLAG),
    c.DATE: (pl.Date(),),
}

#: A rejected row as the checks make it (``period``: the row's period when it could be read, else null;
#: ``column``: null when the row as a whole is at fault): the first type of each column.
REJECTED_SCHEMA: dict[str, pl.DataType] = {name: OUTPUT_TYPES[name][0] for name in c.REJECTED_OUTPUT}


@dataclass(frozen=True)
class OutputColumn:
    """One column of an output table.

    Attributes:
        name: The column's name (:mod:`elo_batch.columns`).
        types: The types it may have (:data:`OUTPUT_TYPES`); the first is the one a CSV cell is tried as first.
        nullable: Whether a cell may be empty.
        values: The only values a text column takes (None: any text); for ``period``, :data:`PERIOD_PATTERN`.
    """

    name: str
    types: tuple[pl.DataType, ...]
    nullable: bool
    values: tuple[str, ...] | None = None


def _table(
    names: Sequence[str], never_null: Sequence[str], values: Mapping[str, tuple[str, ...]] | None = None
) -> tuple[OutputColumn, ...]:
    """An output table's columns, in the order written: their types, which are never null, their values."""
    values = values or {}
    return tuple(OutputColumn(n, OUTPUT_TYPES[n], n not in never_null, values.get(n)) for n in names)


#: The output tables' columns, by table (``ratings`` besides the input list's own columns, carried through).
OUTPUT_COLUMNS: Final[dict[str, tuple[OutputColumn, ...]]] = {
    "ratings": _table(
        c.RATINGS_OUTPUT,
        (c.PLAYER_ID, c.PERIOD, c.GAMES, c.SCORE, c.STATUS, c.REACHED_2400, c.REACHED_2300),
        {c.STATUS: c.STATUSES},
    ),
    "audit": _table(
        c.AUDIT_OUTPUT,
        (c.PERIOD, c.SOURCE_ROW, c.PLAYER_ID, c.SCORE, c.COUNTED),
        {c.COLOUR: c.COLOURS, c.REASON: c.AUDIT_REASONS, c.EVENT_RULE: c.EVENT_RULES},
    ),
    "rejected": _table(c.REJECTED_OUTPUT, (c.SOURCE_ROW, c.REASON, c.RAW)),
}
