"""What a valid rating-list row is: the checks of each of its columns (the list's schema is the
contract's, :data:`elo_batch.contract.schemas.LIST_SCHEMA`).

A bad row stops the run (exit 65), with the rows and values shown (:func:`check_list`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.contract import pending
from elo_batch.contract.names import unescape
from elo_batch.contract.schemas import LIST_SCHEMA, PERIOD_OUTPUT, ids_type, list_schema
from elo_batch.errors import InputDataError
from elo_batch.inputs.cells import (
    SHOWN_ROWS,
    cell_text,
    in_date_range,
    inexact_number,
    is_date_type,
    rows_not_valid,
    text_column,
)
from elo_batch.inputs.checkfile import check_types
from elo_batch.inputs.gamerules import DECIMAL_NUMBER, THOUSANDS_REASON, THOUSANDS_SEPARATED, WHOLE_NUMBER
from elo_batch.inputs.text import column_hints
from elo_batch.rules.bounds import RATING_RANGE, birth_year_out_of_range, k_out_of_range, rating_out_of_range

#: Most rated games a list may give a player (a count above it is a damaged cell, not a career).
MAX_GAMES_TOTAL = 1_000_000


_TRUE = ("true", "t", "yes", "y", "1")


_FALSE = ("false", "f", "no", "n", "0")


#: The list's canonical columns (what ``--list-columns`` may map).
LIST_COLUMNS = (*LIST_SCHEMA, c.STANDARD_RATING)


#: A rule of the list's columns: the column, the rows breaking it (made when the column is there), the
#: reason shown after the value.
_Rule = tuple[str, Callable[[], pl.Expr], str]


#: The hint of a list's bad rows.
_HINT = "fix the rating list; nothing was rated."


def check_list(frame: pl.DataFrame, path: str, fractional: bool, *, header: tuple[str, ...] = ()) -> pl.DataFrame:
    """The rows of a rating list read from ``path``, each column checked and cast to the list's schema
    (ratings Float64 with ``fractional``, else Int64), its other columns passed through.

    Raises:
        InputDataError: a column missing or of a nested type; a row breaking a rule (all counted).
    """
    _require_columns(frame, path, header)
    check_types(frame.schema, path, list(LIST_SCHEMA))
    ragged = frame[w.RAGGED] if w.RAGGED in frame.columns else None
    frame = frame.drop([w.RAGGED, *PERIOD_OUTPUT], strict=False)
    id_type = ids_type(frame.schema)
    parsed = _parsed(frame, fractional, id_type)
    extras = [n for n in frame.columns if n not in (*LIST_SCHEMA, c.SOURCE_FILE, c.SOURCE_ROW, c.STANDARD_RATING)]
    rules = [
        *_id_rules(frame, parsed),
        *_rating_rules(frame, parsed, fractional),
        *_record_rules(frame, parsed),
        *_standard_rules(frame, parsed, fractional),
        *_date_rules(frame, extras),
    ]
    _refuse_bad_rows(
        frame, path, ragged, rules=[(col, rule(), msg) for col, rule, msg in rules if col in frame.columns]
    )
    standard = pl.Float64() if fractional else pl.Int64()
    columns = [expr.cast(list_schema(id_type).get(name, standard)).alias(name) for name, expr in parsed.items()]
    return frame.select(*columns, *extras, c.SOURCE_FILE, c.SOURCE_ROW)


def _require_columns(frame: pl.DataFrame, path: str, header: tuple[str, ...]) -> None:
    """Refuse a list without player_id or rating, naming its columns (as ``header`` spells them).

    Raises:
        InputDataError: a column missing.
    """
    missing = [name for name in (c.PLAYER_ID, c.RATING) if name not in frame.columns]
    if not missing:
        return
    held = [n for n in frame.columns if n not in (c.SOURCE_FILE, c.SOURCE_ROW, w.RAGGED)]
    names = list(header) if len(header) == len(held) else [unescape(n) for n in held]
    unused = [name for name, one in zip(names, held, strict=True) if one not in LIST_SCHEMA]
    hints = column_hints(missing, unused)
    raise InputDataError(
        f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}; the list has "
        + (", ".join(names) if names else "no columns"),
        path=path,
        hint=(hints + " " if hints else "") + "a rating list needs player_id and rating (empty = unrated).",
    )


def _parsed(frame: pl.DataFrame, fractional: bool, id_type: pl.DataType) -> dict[str, pl.Expr]:
    """The list's columns as read: each contract column (a standard rating too, where the list has one)."""
    rating = _number(frame, c.RATING, fractional)
    parsed = {
        c.PLAYER_ID: pl.col(c.PLAYER_ID) if id_type == pl.Int64 else text_column(frame.schema, c.PLAYER_ID),
        c.RATING: pl.when(rating != 0).then(rating),  # 0: no rating
        c.K: _number(frame, c.K, False),
        c.BIRTH_YEAR: _number(frame, c.BIRTH_YEAR, False),
        c.GAMES_TOTAL: _number(frame, c.GAMES_TOTAL, False),
        c.REACHED_2400: _flag(frame, c.REACHED_2400),
        c.REACHED_2300: _flag(frame, c.REACHED_2300),
        c.PENDING: pending.parse(text_column(frame.schema, c.PENDING)),
    }
    if c.STANDARD_RATING in frame.columns:  # rapid and blitz lists: a rating, checked as one (R&B 7.2.1)
        parsed[c.STANDARD_RATING] = _number(frame, c.STANDARD_RATING, fractional)
    return parsed


def _id_rules(frame: pl.DataFrame, parsed: dict[str, pl.Expr]) -> list[_Rule]:
    """The rules of player_id: an exact id, given."""
    return [
        (
            c.PLAYER_ID,
            lambda: inexact_number(frame.schema, c.PLAYER_ID),
            "is not an id: the column holds numbers with decimals (floats are exact ids only for whole numbers "
            "below 2^53); store ids as integers or as text",
        ),
        (c.PLAYER_ID, lambda: parsed[c.PLAYER_ID].is_null(), "a player id is required"),
    ]


def _rating_rules(frame: pl.DataFrame, parsed: dict[str, pl.Expr], fractional: bool) -> list[_Rule]:
    """The rules of rating: plain digits, a number (whole unless ``fractional``), in range."""
    return [
        (
            c.RATING,
            lambda: _thousands(frame, c.RATING),
            f"is not a rating: {THOUSANDS_REASON}; expected plain digits (2000)",
        ),
        (
            c.RATING,
            lambda: _bad_number(frame, c.RATING, fractional),
            f"is not a rating; expected {_points(fractional)} of rating points, or empty for unrated",
        ),
        (
            c.RATING,
            lambda: rating_out_of_range(parsed[c.RATING]),
            f"is out of range; expected {RATING_RANGE} (0 or empty = unrated)",
        ),
    ]


def _record_rules(frame: pl.DataFrame, parsed: dict[str, pl.Expr]) -> list[_Rule]:
    """The rules of a player's record: K, birth year, games total, the two flags, the pending games."""
    return [
        (
            c.K,
            lambda: _bad_whole(frame, c.K, k_out_of_range(parsed[c.K])),
            "is not a K-factor; expected a whole number such as 10, 20 or 40",
        ),
        (
            c.BIRTH_YEAR,
            lambda: _bad_whole(frame, c.BIRTH_YEAR, birth_year_out_of_range(parsed[c.BIRTH_YEAR])),
            "is not a birth year; expected a four-digit year",
        ),
        (
            c.GAMES_TOTAL,
            lambda: _bad_whole(frame, c.GAMES_TOTAL, _outside(parsed[c.GAMES_TOTAL], 0, MAX_GAMES_TOTAL)),
            f"is not a number of games; expected a whole number from 0 to {MAX_GAMES_TOTAL:,}",
        ),
        (c.REACHED_2400, lambda: _bad_flag(frame, c.REACHED_2400), "is not true or false"),
        (c.REACHED_2300, lambda: _bad_flag(frame, c.REACHED_2300), "is not true or false"),
        (c.PENDING, lambda: _bad_pending(frame.schema), "is not a pending-games record written by elo-batch"),
    ]


def _standard_rules(frame: pl.DataFrame, parsed: dict[str, pl.Expr], fractional: bool) -> list[_Rule]:
    """The rules of a rapid or blitz list's standard rating (none without the column): a rating."""
    if c.STANDARD_RATING not in parsed:
        return []
    return [
        (
            c.STANDARD_RATING,
            lambda: _bad_number(frame, c.STANDARD_RATING, fractional),
            f"is not a standard rating; expected {_points(fractional)} of rating points, or empty for none",
        ),
        (
            c.STANDARD_RATING,
            lambda: rating_out_of_range(parsed[c.STANDARD_RATING]),
            f"is out of range; expected {RATING_RANGE}",
        ),
    ]


def _date_rules(frame: pl.DataFrame, extras: list[str]) -> list[_Rule]:
    """The rules of the dates passed through (``extras`` of a date type): polars cannot write one out of range."""
    return [
        (name, _date_out_of_range(frame, name), "is out of range; expected a date from 0000-01-01 to 9999-12-31")
        for name in extras
        if is_date_type(frame.schema[name])
    ]


def _points(fractional: bool) -> str:
    """What a rating is: a number of rating points (``fractional``), or a whole number."""
    return "a number" if fractional else "a whole number"


def _refuse_bad_rows(
    frame: pl.DataFrame, path: str, ragged: pl.Series | None, *, rules: list[tuple[str, pl.Expr, str]]
) -> None:
    """Raise for the rows of the list that break a rule (each row's first rule; a ragged row is reported
    as ragged only: its values are not trusted): all of them counted, the first :data:`SHOWN_ROWS`
    shown with their row numbers.

    Raises:
        InputDataError: a row breaks a rule.
    """
    hits = _broken(frame, ragged, rules=rules)
    if not hits.height:
        return
    lines = []
    for shown in hits.head(SHOWN_ROWS).iter_slices(1):
        line, error = _row_error(shown, frame.schema, path, rules=rules)
        if hits.height == 1:
            raise error
        lines.append(line)
    raise rows_not_valid("the list", hits.height, lines, path=path, hint=_HINT)


def _broken(frame: pl.DataFrame, ragged: pl.Series | None, *, rules: list[tuple[str, pl.Expr, str]]) -> pl.DataFrame:
    """The rows that break a rule, with the index of the first (-1: a ragged row) and a ragged row's reason."""
    is_ragged = pl.lit(ragged).is_not_null() if ragged is not None else pl.lit(False)
    first: Any = pl.when(is_ragged).then(-1)
    for index, (_, bad, _) in enumerate(rules):
        first = first.when(bad.fill_null(False)).then(index)
    return frame.with_columns(
        first.otherwise(None).alias(w.FAILED),
        (pl.lit(ragged) if ragged is not None else pl.lit(None)).alias(w.RAGGED_REASON),
    ).filter(pl.col(w.FAILED).is_not_null())


def _row_error(
    shown: pl.DataFrame, schema: pl.Schema, path: str, *, rules: list[tuple[str, pl.Expr, str]]
) -> tuple[str, InputDataError]:
    """One bad row's line among many, and its error when it is the only one."""
    row, rule = int(shown[c.SOURCE_ROW][0]), int(shown[w.FAILED][0])
    if rule < 0:  # a ragged row: its reason and hint were written by the reader
        reason, _, ragged_hint = str(shown[w.RAGGED_REASON][0]).partition(" Hint: ")
        return f"row {row}: {reason}", InputDataError(reason, path=path, row=row, hint=ragged_hint or None)
    name, _, message = rules[rule]
    value = shown.select(cell_text(schema, name)).item()
    reason = f"{value!r} {message}" if value is not None else f"empty cell: {message}"
    error = InputDataError(reason, path=path, row=row, column=name, value=value, hint=_HINT)
    return f"row {row}, column {name}: {reason}", error


def _date_out_of_range(frame: pl.DataFrame, name: str) -> Callable[[], pl.Expr]:
    return lambda: pl.col(name).is_not_null() & ~in_date_range(pl.col(name), frame.schema[name])


def _number(frame: pl.DataFrame, name: str, fractional: bool) -> pl.Expr:
    """The column as a Float64 number; null when absent, and for a type that holds no numbers (such a
    column is refused by :func:`_bad_number`)."""
    dtype = frame.schema.get(name)
    if dtype is None or not (dtype == pl.String or dtype.is_numeric()):
        return pl.lit(None, pl.Float64)
    return (
        text_column(frame.schema, name).cast(pl.Float64, strict=False)
        if dtype == pl.String
        else pl.col(name).cast(pl.Float64, strict=False).fill_nan(None)  # NaN: pandas' missing value
    )


def _thousands(frame: pl.DataFrame, name: str) -> pl.Expr:
    """True where a text column's cell looks like a number with a thousands separator (never for a typed column)."""
    if frame.schema[name] != pl.String:
        return _never()
    return text_column(frame.schema, name).str.contains(THOUSANDS_SEPARATED)


def _bad_whole(frame: pl.DataFrame, name: str, out: pl.Expr) -> pl.Expr:
    """True where a column's cell is no whole number, or ``out`` (out of the column's range)."""
    return _bad_number(frame, name, False) | out


def _outside(value: pl.Expr, low: int, high: int) -> pl.Expr:
    """True where ``value`` is below ``low`` or above ``high``."""
    return (value < low) | (value > high)


def _bad_number(frame: pl.DataFrame, name: str, fractional: bool) -> pl.Expr:
    dtype = frame.schema[name]
    if dtype == pl.String:
        text = text_column(frame.schema, name)
        return text.is_not_null() & ~text.str.contains(DECIMAL_NUMBER if fractional else WHOLE_NUMBER)
    if not dtype.is_numeric():
        return pl.col(name).is_not_null()
    value = pl.col(name).cast(pl.Float64)
    return _never() if fractional else value.is_not_null() & (value != value.round(0))


def _flag(frame: pl.DataFrame, name: str) -> pl.Expr:
    if name not in frame.columns:
        return pl.lit(None, pl.Boolean)
    if frame.schema[name] == pl.Boolean:
        return pl.col(name)
    text = text_column(frame.schema, name).str.to_lowercase()
    return pl.when(text.is_in(_TRUE)).then(True).when(text.is_in(_FALSE)).then(False)


def _never() -> pl.Expr:
    # a full-length False column: polars 2.1 can fail to filter a frame by a scalar literal predicate
    return pl.repeat(False, pl.len())


def _bad_flag(frame: pl.DataFrame, name: str) -> pl.Expr:
    if frame.schema[name] == pl.Boolean:
        return _never()
    text = text_column(frame.schema, name).str.to_lowercase()
    return text.is_not_null() & ~text.is_in((*_TRUE, *_FALSE))


def _bad_pending(schema: pl.Schema) -> pl.Expr:
    """True where a ``pending`` cell is not a pool as elo-batch writes it (:mod:`elo_batch.contract.pending`)."""
    text = text_column(schema, c.PENDING)
    return pending.malformed_text(text) | pending.malformed(pending.parse(text))
