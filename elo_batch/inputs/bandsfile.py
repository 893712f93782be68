"""A federation's own band table (``--bands FILE``, API ``bands``): read and checked; no rating rules.

The table has one row per band: ``band`` (the label, text) and ``min_rating`` (the lowest rating in the
band, a whole number of rating points from 0 up to our bound). Every problem stops the run (exit 65)
with the file, row, column and value: a band label written on every player's list must not be a guess.
"""

from __future__ import annotations

import polars as pl

from elo_batch import columns as c
from elo_batch.errors import InputDataError
from elo_batch.inputs.gamerules import WHOLE_NUMBER
from elo_batch.inputs.readers import read_table
from elo_batch.rules.bands import MIN_RATING, Bands, default_bands
from elo_batch.rules.bounds import MAX_RATING

HINT = (
    "a bands table has one row per band: band (its label, e.g. 'second category') and min_rating (the lowest "
    f"rating in it, a whole number from 0 to {MAX_RATING - 1}), each min_rating once."
)


def load_bands(source: str | pl.DataFrame | None, *, encoding: str | None = None) -> Bands:
    """The band table of a run: a file (CSV or Parquet), a frame (the Python API), or the default.

    Args:
        source: A path, a polars DataFrame with the same columns, or None for the default table.
        encoding: Force the text encoding of a CSV file.

    Returns:
        The table, sorted by ``min_rating``.

    Raises:
        InputMissingError: the file is missing or unreadable.
        InputDataError: a column is missing, a label is empty, a ``min_rating`` is not a whole number
            in range, or two rows have the same ``min_rating`` (the message names row and value).
    """
    if source is None:
        return default_bands()
    if isinstance(source, pl.DataFrame):
        name, frame = "bands", source.with_row_index(c.SOURCE_ROW, offset=1)
    else:
        name = source
        frame, _ = read_table(source, encoding=encoding)
    _require_rows(frame, name)
    label = pl.col(c.BAND).cast(pl.String).str.strip_chars()
    text = pl.col(MIN_RATING).cast(pl.String).str.strip_chars()
    value = pl.when(text.str.contains(WHOLE_NUMBER)).then(text.cast(pl.Float64, strict=False))
    checked = frame.select(
        pl.col(c.SOURCE_ROW), label.alias(c.BAND), text.alias("text"), value.alias(MIN_RATING)
    ).with_columns((~pl.col(MIN_RATING).is_first_distinct() & pl.col(MIN_RATING).is_not_null()).alias("repeated"))
    for column, bad, message in _PROBLEMS:
        _refuse(checked.filter(bad.fill_null(True) if column == c.BAND else bad), name, column=column, message=message)
    return Bands.of(checked.select(c.BAND, MIN_RATING), name)


#: The problems of a band table's rows, in order (the first row with the first problem found stops the
#: run): the column, the rows that have it (of the checked rows: label, text, value), the reason.
_PROBLEMS = (
    (c.BAND, pl.col(c.BAND).is_null() | (pl.col(c.BAND) == ""), "empty cell: a band needs a label"),
    (
        MIN_RATING,
        pl.col(MIN_RATING).is_null() | (pl.col(MIN_RATING) < 0) | (pl.col(MIN_RATING) >= MAX_RATING),
        f"is not a lowest rating; expected a whole number from 0 to {MAX_RATING - 1}",
    ),
    (MIN_RATING, pl.col("repeated"), "is the min_rating of another band too"),
)


def _require_rows(frame: pl.DataFrame, name: str) -> None:
    """Refuse a table without the band or min_rating column, or without rows.

    Raises:
        InputDataError: a column missing, or no rows.
    """
    missing = [column for column in (c.BAND, MIN_RATING) if column not in frame.columns]
    if missing:
        shown = [n for n in frame.columns if n not in (c.SOURCE_FILE, c.SOURCE_ROW)]
        raise InputDataError(
            f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}; the table has "
            + (", ".join(shown) or "no columns"),
            path=name,
            hint=HINT,
        )
    if frame.height == 0:
        raise InputDataError("the bands table has no rows", path=name, hint=HINT)


def _refuse(hits: pl.DataFrame, name: str, *, column: str, message: str) -> None:
    """Refuse the table for the first of ``hits``, the rows with one problem (none: nothing to refuse).

    Raises:
        InputDataError: a row has the problem.
    """
    if not hits.height:
        return
    first = hits.row(0, named=True)
    shown_value = first[c.BAND] if column == c.BAND else first["text"]
    reason = message if shown_value in (None, "") else f"{shown_value!r} {message}"
    raise InputDataError(reason, path=name, row=int(first[c.SOURCE_ROW]), column=column, value=shown_value, hint=HINT)
