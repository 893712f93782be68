"""CSV formula neutralisation: the escape CSV writers apply to text cells and its inverse for readers.

A spreadsheet that opens a CSV file runs a cell starting with ``=``, ``+``, ``-`` or ``@`` (also a tab
or a carriage return) as a formula: ``=HYPERLINK(...)`` in a player's name becomes a link, worse ones
run commands (OWASP, "CSV Injection"). Every text cell that starts so, and is not a plain number
(``-12``, ``+3.5``), is written with a single quote ``'`` in front: the spreadsheet shows the text.

Never escaped: numbers (number columns are not text: a change of -5 stays the number -5) and player
ids (:data:`ID_COLUMNS`), which are compared as text and must come back as written. Reading a CSV file
undoes the escape (a quote followed by one of those characters loses the quote), so that a file
elo-batch wrote reads back as the values it holds: a CSV list of one run is the next month's
``--ratings``. The one text that does not come back is one that itself started with a quote and such
a character (``'=x`` reads back as ``=x``); a spreadsheet writes its quote-prefixed cells without
the quote, so no spreadsheet export holds one.

No file handling here: expressions and frames only.
"""

from __future__ import annotations

import re
from typing import TypeVar

import polars as pl

from elo_batch import columns as c

#: Columns of player ids: never escaped (compared as text, they must read back as written).
ID_COLUMNS = frozenset({c.PLAYER_ID, c.OPPONENT_ID, c.WHITE_ID, c.BLACK_ID})
#: A text a spreadsheet would take for a formula.
_FORMULA = r"^[=+\-@\t\r]"
#: The same text once escaped.
_ESCAPED = r"^'[=+\-@\t\r]"
#: A plain number as text, which a spreadsheet reads as a number, not a formula.
_NUMBER = r"^[+-]?[0-9]+(\.[0-9]+)?$"
#: The same for Python's re, whose ``$`` also matches before a final line feed (polars' does not).
_NUMBER_END = _NUMBER.removesuffix("$") + r"\Z"

Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)


def escape(text: pl.Expr) -> pl.Expr:
    """A text column with every formula-like cell prefixed by a single quote."""
    formula = text.str.contains(_FORMULA) & ~text.str.contains(_NUMBER)
    return pl.when(~formula).then(text).otherwise(pl.lit("'") + text)  # the name of ``text``


def unescape(text: pl.Expr) -> pl.Expr:
    """The inverse of :func:`escape`: one leading quote less on the cells it escaped."""
    return (
        pl.when(text.str.contains(_ESCAPED) & ~text.str.slice(1).str.contains(_NUMBER))
        .then(text.str.slice(1))
        .otherwise(text)
    )


def escape_name(name: str) -> str:
    """A column name as :func:`escape` writes a header cell.

    >>> escape_name("=cmd"), escape_name("name")
    ("'=cmd", 'name')
    """
    return pl.select(escape(pl.lit(name))).item()


def unescape_name(name: str) -> str:
    """A header cell as :func:`unescape` reads it.

    >>> unescape_name("'=cmd")
    '=cmd'
    """
    escaped = re.match(_ESCAPED, name) and not re.search(_NUMBER_END, name[1:])  # as unescape, in Python: a
    return name[1:] if escaped else name  # header of many names is read in time linear in them


def neutralise(frame: Frame) -> Frame:
    """``frame`` with its text columns (dictionary-encoded text too, as text) and header names escaped;
    player id columns and columns of other types as they are.

    Args:
        frame: A table about to be written as CSV (nested columns already turned into text).

    Returns:
        The same rows and column order, escaped.

    >>> neutralise(pl.DataFrame({"player_id": ["=1"], "name": ["=HYPERLINK(1)"], "change": [-5]})).row(0)
    ('=1', "'=HYPERLINK(1)", -5)
    """
    schema = frame.collect_schema()
    texts = [
        escape(pl.col(name).cast(pl.String)).alias(name)
        for name, dtype in schema.items()
        if name not in ID_COLUMNS and (dtype == pl.String or isinstance(dtype, pl.Categorical | pl.Enum))
    ]
    escaped = {name: escape_name(name) for name in schema.names()}
    return frame.with_columns(texts).rename({name: new for name, new in escaped.items() if new != name})
