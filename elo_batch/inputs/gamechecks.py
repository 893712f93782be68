"""The checks of game cells as boolean polars expressions: typed views of a raw column, their reasons.

A raw column (CSV text or a Parquet type) read as text, ids, dates or ratings; the reason a row fails is
worked out for the failing rows only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import polars as pl

from elo_batch import working as w
from elo_batch.inputs.cells import (
    INPUT_DATES,
    in_date_range,
    inexact_number,
    is_date_type,
    out_of_range,
    text_column,
    usable_date,
)
from elo_batch.inputs.gamerules import (
    CLOCK,
    DECIMAL_NUMBER,
    OFFSET,
    SECONDS,
    THOUSANDS_REASON,
    THOUSANDS_SEPARATED,
    WHOLE_NUMBER,
)
from elo_batch.rules.bounds import RATING_RANGE, rating_out_of_range


@dataclass(frozen=True)
class Check:
    column: str | None
    bad: pl.Expr
    reason: pl.Expr


def first_failed(checks: list[Check]) -> pl.Expr:
    """The index of the first check a row fails (UInt16), null when it passes them all."""
    expr: Any = pl.when(checks[0].bad).then(0)
    for index, check in enumerate(checks[1:], start=1):
        expr = expr.when(check.bad).then(index)
    return expr.otherwise(None).cast(pl.UInt16)


def of_failed(checks: list[Check], pick: Callable[[Check], pl.Expr]) -> pl.Expr:
    """``pick`` of the check each row failed first (:data:`~elo_batch.working.FAILED`), as text."""
    expr: Any = pl.when(pl.col(w.FAILED) == 0).then(pick(checks[0]))
    for index, check in enumerate(checks[1:], start=1):
        expr = expr.when(pl.col(w.FAILED) == index).then(pick(check))
    return expr.otherwise(None).cast(pl.String)


def inexact_reason(text: pl.Expr) -> pl.Expr:
    return pl.format(
        "{} is not an id: the column holds numbers with decimals (floats are exact ids only for whole numbers "
        "below 2^53). Hint: store ids as integers or as text.",
        quoted(text),
    )


def quoted(expr: pl.Expr) -> pl.Expr:
    return pl.format("'{}'", expr)


class ColumnReader:
    """Typed views of a raw column, whatever its source type (CSV text or a Parquet type)."""

    def __init__(self, schema: pl.Schema) -> None:
        self.schema = schema

    def text(self, name: str) -> pl.Expr:
        """The column as trimmed text (see :func:`text_column`)."""
        return text_column(self.schema, name)

    def player(self, name: str, integers: bool) -> pl.Expr:
        """A player id column as text (:meth:`text`), or as Int64 with ``integers`` (an integer column,
        or absent)."""
        return (pl.col(name) if name in self.schema else pl.lit(None)).cast(pl.Int64) if integers else self.text(name)

    def missing(self, name: str) -> pl.Expr:
        """``text(name).is_null()``, without making the text of typed columns."""
        dtype = self.schema.get(name)
        if dtype is None or dtype == pl.String:
            return self.text(name).is_null()
        if dtype.is_float():  # NaN is missing too (see text_column)
            return pl.col(name).is_null() | pl.col(name).is_nan()
        return pl.col(name).is_null()

    def inexact_id(self, name: str) -> pl.Expr:
        """True where an id column of floats or decimals holds no exact whole number (see
        :func:`elo_batch.inputs.cells.inexact_number`)."""
        return inexact_number(self.schema, name)

    def same_text(self, left: str, right: str) -> pl.Expr:
        """``text(left) == text(right)``; integer columns compare as integers (the same answer)."""
        types = self.schema.get(left), self.schema.get(right)
        if all(dtype is not None and dtype.is_integer() for dtype in types):
            return pl.col(left) == pl.col(right)
        return self.text(left) == self.text(right)

    def date(self, name: str) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
        """(local date as written, row is not a usable date, the reason) for a date or date-time column;
        a date outside :data:`elo_batch.inputs.cells.INPUT_DATES` is out of range (a Date or Datetime
        value never reaches a date operation then)."""
        dtype = self.schema.get(name)
        if dtype is None:
            return pl.lit(None, pl.Date), pl.lit(False), pl.lit(None, pl.String)
        expr, text = pl.col(name), self.text(name)
        if is_date_type(dtype):
            in_range = in_date_range(expr, dtype, INPUT_DATES)
            kept: pl.Expr = pl.when(in_range).then(expr)
            return (kept if dtype == pl.Date else kept.dt.date()), expr.is_not_null() & ~in_range, out_of_range(text)
        value = text.str.slice(0, 10).str.strptime(pl.Date, "%Y-%m-%d", strict=False)
        rest_ok = text.str.slice(10).str.contains(f"^([T ]{CLOCK}{SECONDS}?\\s*(Z|[+-]{OFFSET})?)?$")
        well_formed = text.str.contains(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}")
        bad = text.is_not_null() & (value.is_null() | ~rest_ok | ~well_formed | ~usable_date(value))
        reason = pl.when(rest_ok & well_formed & value.is_not_null()).then(out_of_range(text))
        not_a_date = pl.format("'{}' is not a date. Hint: use an ISO date YYYY-MM-DD (a time may follow).", text)
        return pl.when(~bad).then(value), bad, reason.otherwise(not_a_date)

    def rating(self, name: str) -> pl.Expr:
        """The column as rating points (Float64), null when absent, empty or 0: a rating of 0 is "no
        rating", as pairing programs export it and as TRF and PGN files write it."""
        dtype = self.schema.get(name)
        if dtype is None:
            return pl.lit(None, pl.Float64)
        if dtype == pl.String:
            value = self.text(name).cast(pl.Float64, strict=False)
        else:
            value = pl.col(name).cast(pl.Float64, strict=False).fill_nan(None)  # NaN: pandas' missing value
        return pl.when(value != 0).then(value)

    def rating_checks(self, name: str, fractional: bool) -> list[Check]:
        """Checks of a rating column: a number, whole unless ``fractional``, within ``RATING_RANGE``; 0 is no
        rating (see :meth:`rating`)."""
        dtype = self.schema.get(name)
        if dtype is None:
            return []
        text, value = self.text(name), self.rating(name)
        whole = not fractional and dtype.is_numeric()
        return [
            *(
                _written_rating(name, text, fractional)
                if dtype == pl.String
                else [_typed_rating(name, dtype, value=value, text=text)]
            ),
            *([_whole_rating(name, value, text)] if whole else []),
            Check(
                name,
                value.is_not_null() & rating_out_of_range(value),
                pl.format(f"rating {{}} is out of range. Hint: expected {RATING_RANGE} (0 or empty: no rating).", text),
            ),
        ]


def _written_rating(name: str, text: pl.Expr, fractional: bool) -> list[Check]:
    """The checks of a rating written as text: no thousands separator, a number (whole unless ``fractional``)."""
    hint = "a number of rating points." if fractional else "a whole number of rating points (ratings are integers)."
    return [
        Check(
            name,
            text.str.contains(THOUSANDS_SEPARATED),
            pl.format(
                "{} is not a rating: " + THOUSANDS_REASON + ". Hint: write ratings as plain digits (2000).",
                quoted(text),
            ),
        ),
        Check(
            name,
            text.is_not_null() & ~text.str.contains(DECIMAL_NUMBER if fractional else WHOLE_NUMBER),
            pl.format("{} is not a rating. Hint: " + hint, quoted(text)),
        ),
    ]


def _typed_rating(name: str, dtype: pl.DataType, *, value: pl.Expr, text: pl.Expr) -> Check:
    """The check of a rating column of another type: a number, finite."""
    if not dtype.is_numeric():
        return Check(name, pl.col(name).is_not_null(), pl.lit(f"a rating must be a number, the column type is {dtype}"))
    return Check(
        name,
        value.is_not_null() & ~value.is_finite(),
        pl.format("{} is not a rating. Hint: a number of rating points.", quoted(text)),
    )


def _whole_rating(name: str, value: pl.Expr, text: pl.Expr) -> Check:
    """The check of a numeric rating column that must hold whole numbers."""
    return Check(
        name,
        value.is_not_null() & (value != value.round(0)),
        pl.format("{} is not a whole number. Hint: ratings are integers.", quoted(text)),
    )
