"""One input cell of any column type as text, a date or an exact id, without a panic; no contract rules.

Parquet columns arrive typed, and a few values of those types are traps: polars panics (a Rust
``PanicException``, not an ``Exception``) when it formats a date outside the years it can write, and a
float column holds whole numbers exactly only below 2^53, so that a float id of 2^63 has no integer
and 2^53 + 1 is read as 2^53. The expressions here keep such values away from the operations that
would fail or change them: a bad value is found as bad, and its text says what it holds.
"""

from __future__ import annotations

import polars as pl

from elo_batch.errors import InputDataError

#: Days from 1970-01-01 of 0000-01-01 and of 9999-12-31: the dates an ISO date ``YYYY-MM-DD`` writes.
#: A date column (Parquet date32, or a date-time) outside them is refused, as the text would be.
DATE_RANGE = (-719_528, 2_932_896)
#: Days from 1970-01-01 of 0001-01-01 and of 9998-12-31: the dates an input date (a game's ``date``, an
#: event's ``event_start`` and ``event_end``) may hold. Python's dates begin in year 1, and a date in
#: 9999 would pass the last date polars writes once an event's closing date (B.02 7.1.3) or the next
#: list is worked out from it. An input date outside is refused with its row (:data:`INPUT_DATES_TEXT`).
INPUT_DATES = (-719_162, 2_932_531)
#: What a refused input date is told is expected.
INPUT_DATES_TEXT = "expected a date from 0001-01-01 to 9998-12-31"
#: Floats are whole numbers exactly up to this magnitude: a float id may be taken as the integer it
#: holds only below it (2^53).
EXACT_FLOAT = 2**53
_PER_DAY = {"ns": 86_400 * 10**9, "us": 86_400 * 10**6, "ms": 86_400 * 10**3}
_UNIT_NAMES = {"ns": "nanoseconds", "us": "microseconds", "ms": "milliseconds"}
_INT64 = (-(2**63), 2**63 - 1)


def is_date_type(dtype: pl.DataType) -> bool:
    """A Date or Datetime column."""
    return dtype == pl.Date or isinstance(dtype, pl.Datetime)


def in_date_range(expr: pl.Expr, dtype: pl.DataType, days: tuple[int, int] = DATE_RANGE) -> pl.Expr:
    """True where a Date or Datetime value lies within ``days`` (default :data:`DATE_RANGE`; null stays
    null); worked out on the stored integers, so that no out-of-range value is ever turned into a date."""
    low, high = days
    if isinstance(dtype, pl.Datetime):
        per_day = _PER_DAY[dtype.time_unit or "us"]
        low, high = max(low * per_day, _INT64[0]), min((high + 1) * per_day - 1, _INT64[1])
    return expr.to_physical().is_between(low, high)


def usable_date(value: pl.Expr) -> pl.Expr:
    """True where a Date value (parsed from text) lies within :data:`INPUT_DATES`."""
    return value.to_physical().is_between(*INPUT_DATES)


def out_of_range(text: pl.Expr) -> pl.Expr:
    """The reason for an input date out of :data:`INPUT_DATES` (``text``: the cell as text)."""
    return pl.format(f"'{{}}' is out of range. Hint: {INPUT_DATES_TEXT}.", text)


def exact_float(expr: pl.Expr) -> pl.Expr:
    """True where a float is a whole number that the float represents exactly (magnitude below 2^53)."""
    return expr.is_finite() & (expr == expr.round(0)) & (expr.abs() < EXACT_FLOAT)


def text_column(schema: pl.Schema, name: str) -> pl.Expr:
    """A raw input column as text: null when absent or empty; exact whole floats lose their '.0' (a
    Parquet id written 123.0 is '123'; larger ones are written as polars writes floats, see
    :func:`exact_float`), NaN is empty (pandas' missing value); a date out of :data:`DATE_RANGE` is
    described by its stored integer; other types as polars writes them.

    >>> frame = pl.DataFrame({"id": [123.0, 2.0**63, float("nan")]})
    >>> frame.select(text_column(frame.schema, "id")).to_series().to_list()
    ['123', '9.223372036854776e+18', None]
    """
    dtype = schema.get(name)
    if dtype is None:
        return pl.lit(None, pl.String)
    expr = pl.col(name)
    if dtype == pl.String:
        return pl.when(expr.str.len_bytes() > 0).then(expr)
    if dtype.is_float():
        return (
            pl.when(expr.is_nan())
            .then(None)
            .when(exact_float(expr))
            .then(expr.cast(pl.Int64, strict=False).cast(pl.String))
            .otherwise(expr.cast(pl.String))
        )
    if is_date_type(dtype):
        return date_text(expr, dtype)
    if isinstance(dtype, pl.Decimal):  # 123.00 is 123, as a whole float is; 5.50 stays as written
        return expr.cast(pl.String).str.replace(r"\.0+$", "")
    return expr.cast(pl.String)


def inexact_number(schema: pl.Schema, name: str) -> pl.Expr:
    """True where a float or decimal column (an id column stored as numbers) holds a value that is no
    exact whole number: a fraction, infinity, or a float of magnitude 2^53 or more (:func:`exact_float`);
    NaN is missing, not inexact. Always False for other types.

    >>> frame = pl.DataFrame({"id": [7.0, 1.5, 2.0**53, float("nan")]})
    >>> frame.select(inexact_number(frame.schema, "id")).to_series().to_list()
    [False, True, True, False]
    """
    dtype = schema.get(name)
    expr = pl.col(name)
    if isinstance(dtype, pl.Decimal):
        return text_column(schema, name).str.contains(".", literal=True)
    if dtype is None or not dtype.is_float():
        return pl.lit(False)
    return expr.is_not_null() & ~expr.is_nan() & ~exact_float(expr)


def date_text(expr: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """A Date or Datetime value as polars writes it, or, out of :data:`DATE_RANGE`, as its stored
    integer (``'2147483647 days after 1970-01-01'``)."""
    unit = _UNIT_NAMES[dtype.time_unit or "us"] if isinstance(dtype, pl.Datetime) else "days"
    return pl.coalesce(
        pl.when(in_date_range(expr, dtype)).then(expr).cast(pl.String),
        pl.format(f"{{}} {unit} after 1970-01-01", expr.to_physical()),
    )


def cell_text(schema: pl.Schema, name: str) -> pl.Expr:
    """Any raw cell as text for a record of the row as read (``raw`` of a rejected row): as polars
    writes it, a date out of range as :func:`date_text` does, nested values (list, struct) as JSON,
    binary as hex."""
    dtype = schema[name]
    expr = pl.col(name)
    if isinstance(dtype, pl.Struct):
        return expr.struct.json_encode()
    if isinstance(dtype, pl.List | pl.Array):
        return pl.struct(expr.alias("v")).struct.json_encode().str.json_path_match("$.v")
    if dtype == pl.Binary:
        return expr.bin.encode("hex")
    if isinstance(dtype, pl.Object | pl.Null):
        return pl.lit(None, pl.String)
    if is_date_type(dtype):
        return date_text(expr, dtype)
    return expr.cast(pl.String)


#: Bad rows a "rows are not valid" message shows (all are counted).
SHOWN_ROWS = 5


def rows_not_valid(what: str, count: int, lines: list[str], *, path: str, hint: str | None) -> InputDataError:
    """The error for ``count`` bad rows of ``what`` (``the list``), ``lines`` the first :data:`SHOWN_ROWS`
    of them, one text each (``row 3, column k: ...``)."""
    shown = f"the first {SHOWN_ROWS}" if count > SHOWN_ROWS else "all of them"
    return InputDataError(
        f"{count} rows of {what} are not valid ({shown} here):\n  " + "\n  ".join(lines), path=path, hint=hint
    )
