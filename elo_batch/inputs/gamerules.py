"""What a valid game row is: the canonical and rejected row schemas, result tokens, patterns, hints.

Data only; the checks that use it are in :mod:`elo_batch.inputs.gamechecks` and :mod:`elo_batch.inputs.checkfile`.
"""

from __future__ import annotations

import polars as pl

from elo_batch import columns as c

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

REJECTED_SCHEMA: dict[str, pl.DataType] = {
    c.PERIOD: pl.String(),  # the row's period when it could be read, else null
    c.SOURCE_FILE: pl.String(),
    c.SOURCE_ROW: pl.Int64(),
    c.COLUMN: pl.String(),
    c.VALUE: pl.String(),
    c.REASON: pl.String(),
    c.RAW: pl.String(),
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

RESULT_HINT = "use 1-0, 0-1, 1/2-1/2 (or ½-½, 0.5-0.5), or +--/--+/-- for forfeits."
SCORE_HINT = "use the player's score 1, 0.5 or 0, or + / - for a forfeit."
#: ``2.000`` or ``2,000``: a rating written with a thousands separator, never the number 2 (or 2.0).
THOUSANDS_SEPARATED = r"^[0-9]{1,3}([.,][0-9]{3})+$"
#: A whole number as text: digits, or digits with a zero fraction (2000.0 from a spreadsheet or pandas),
#: signed or not (-5 is a number, out of range for a rating); "2.000" is caught first by THOUSANDS_SEPARATED.
WHOLE_NUMBER = r"^[+-]?[0-9]+(\.0+)?$"
#: A number as text, with decimals or not (``--rounding none`` ratings).
DECIMAL_NUMBER = r"^[+-]?[0-9]+(\.[0-9]+)?$"
#: A period written YYYY-MM.
PERIOD_PATTERN = r"^[0-9]{4}-(0[1-9]|1[0-2])$"
#: The time after a date: hh:mm, optional :ss(.fff), optional Z or +-hh[:mm] (a real clock time).
CLOCK = r"([01][0-9]|2[0-3]):[0-5][0-9]"
SECONDS = r"(:([0-5][0-9]|60)(\.[0-9]+)?)"
OFFSET = r"([01][0-9]|2[0-3])(:?[0-5][0-9])?"
# Every pattern here spells digits [0-9]: the regex engine's \d also matches other scripts' digits
# (full-width ２０００, Arabic-Indic), which would pass a check and then fail to convert.
THOUSANDS_REASON = "it looks like a number with a thousands separator"
#: Column types a game column may have (anything else cannot be read as text, a number or a date).
NESTED = (pl.List, pl.Array, pl.Struct, pl.Object, pl.Binary)
GAME_COLUMNS = (
    c.WHITE_ID, c.BLACK_ID, c.RESULT, c.DATE, c.PERIOD, c.GAME_ID, c.EVENT_ID, c.ROUND, c.BOARD, c.WHITE_RATING,
    c.BLACK_RATING, c.PLAYER_ID, c.OPPONENT_ID, c.PLAYER_RATING, c.OPPONENT_RATING, c.SCORE, *c.EVENT_COLUMNS,
)  # fmt: skip
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
