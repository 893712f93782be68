"""What a valid game row is, as read: the game columns, patterns and hints (the schemas and the result
tokens are the contract's, :mod:`elo_batch.contract.schemas`).

Data only; the checks that use it are in :mod:`elo_batch.inputs.gamechecks` and :mod:`elo_batch.inputs.checkfile`.
"""

from __future__ import annotations

import polars as pl

from elo_batch import columns as c

RESULT_HINT = "use 1-0, 0-1, 1/2-1/2 (or ½-½, 0.5-0.5), or +--/--+/-- for forfeits."
SCORE_HINT = "use the player's score 1, 0.5 or 0, or + / - for a forfeit."
#: ``2.000`` or ``2,000``: a rating written with a thousands separator, never the number 2 (or 2.0).
THOUSANDS_SEPARATED = r"^[0-9]{1,3}([.,][0-9]{3})+$"
#: A whole number as text: digits, or digits with a zero fraction (2000.0 from a spreadsheet or pandas),
#: signed or not (-5 is a number, out of range for a rating); "2.000" is caught first by THOUSANDS_SEPARATED.
WHOLE_NUMBER = r"^[+-]?[0-9]+(\.0+)?$"
#: A number as text, with decimals or not (``--rounding none`` ratings).
DECIMAL_NUMBER = r"^[+-]?[0-9]+(\.[0-9]+)?$"
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
