"""The output tables as dataframely schemas: :data:`Ratings`, :data:`Audit`, :data:`Rejected` (``pip install
'elo-batch[schemas]'``), to check a period's tables before loading them elsewhere::

    import elo_batch
    from elo_batch.schemas import Audit, Ratings, Rejected

    month = elo_batch.read_period("out", "2025-10")
    Ratings.validate(month.ratings)   # dataframely.exc.ValidationError: the rules failed, with their counts
    Audit.validate(month.audit)
    Rejected.validate(month.rejected)

Generated from the contract's one definition of the output columns
(:data:`elo_batch.contract.schemas.OUTPUT_COLUMNS`: names in the order written, types, which are never
null, the values of the text columns that take few), so that they cannot drift from what ``run`` writes:
the test suite validates with them every output its shared helpers make or read (``tests/conftest.py``).

- Ids (``player_id``, ``opponent_id``, ``game_id``) are String, or Int64 where the inputs' ids were
  integers; a rating is Int64, or Decimal(12, 2) with ``rounding="none"``; text is String, or Categorical
  as a Parquet file holds a column of few values (``status``, ``colour``, ``reason``, ...).
- ``status``, ``colour``, the audit's ``reason`` and ``event_rule`` take only the contract's values
  (:data:`elo_batch.columns.STATUSES`, ...); ``period`` is ``YYYY-MM``.
- ``Ratings``: one row per player and period (the primary key); ``rating`` is empty exactly when
  ``status`` is ``unrated``. ``Audit``: ``reason`` is empty exactly when the side counted.
- Columns the schemas do not name are allowed, and left out of what ``validate`` returns: the input
  list's own columns (name, federation, title), carried through to the new list.

Needs only polars and numpy besides dataframely; nothing else of elo-batch imports this module, so a run
never loads dataframely.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import polars as pl

from elo_batch import columns as c
from elo_batch.contract.schemas import OUTPUT_COLUMNS, PERIOD_PATTERN, OutputColumn

try:
    import dataframely as dy
except ImportError as exc:  # the extra is not installed
    raise ImportError("elo_batch.schemas needs dataframely: pip install 'elo-batch[schemas]'", name=exc.name) from exc

__all__ = ["SCHEMAS", "Audit", "Ratings", "Rejected"]

_Made = TypeVar("_Made", bound=type)

#: The dataframely column of each polars type an output column is first of (OUTPUT_TYPES).
_KINDS: dict[pl.DataType, type[dy.Column]] = {
    pl.String(): dy.String,
    pl.Int64(): dy.Int64,
    pl.Float64(): dy.Float64,
    pl.Boolean(): dy.Bool,
    pl.Date(): dy.Date,
}


def _kind(types: tuple[pl.DataType, ...]) -> type[dy.Column]:
    """The dataframely column of ``types``: its first type's, accepting any of them (a frame cast by
    ``validate(..., cast=True)`` gets the first), named by them in dataframely's messages."""
    base = _KINDS[types[0]]
    if len(types) == 1:
        return base

    def validate_dtype(self: dy.Column, dtype: Any) -> bool:
        return any(dtype == accepted for accepted in types)

    name = " or ".join(str(t) for t in types)  # "String or Categorical": the column as dataframely shows it
    return _here(type(name, (base,), {"validate_dtype": validate_dtype}))


def _here(made: _Made) -> _Made:
    """A class made by this module's functions, as this module's (its ``help``, dataframely's messages)."""
    made.__module__ = __name__
    return made


def _checks(spec: OutputColumn) -> dict[str, Callable[[pl.Expr], pl.Expr]] | None:
    """The checks of a text column's values: one of the contract's, or ``YYYY-MM`` for ``period``."""
    if spec.values is not None:
        values = list(spec.values)
        return {"values": lambda e: e.cast(pl.String).is_in(values)}
    if spec.name == c.PERIOD:
        return {"month": lambda e: e.cast(pl.String).str.contains(PERIOD_PATTERN)}
    return None


def _column(spec: OutputColumn, *, key: bool) -> dy.Column:
    return _kind(spec.types)(nullable=spec.nullable, primary_key=key, check=_checks(spec))


@dy.rule()
def _rating_unless_unrated(schema: Any) -> pl.Expr:
    """``rating`` is empty exactly when ``status`` is ``unrated``."""
    return pl.col(c.RATING).is_null() == (pl.col(c.STATUS).cast(pl.String) == "unrated")


@dy.rule()
def _reason_unless_counted(schema: Any) -> pl.Expr:
    """``reason`` is empty exactly when the side counted."""
    return pl.col(c.REASON).is_null() == pl.col(c.COUNTED)


def _schema(table: str, doc: str, *, key: tuple[str, ...] = (), rules: dict[str, Any] | None = None) -> type[dy.Schema]:
    """The dataframely schema of ``table`` (:data:`OUTPUT_COLUMNS`), ``key`` its primary key."""
    columns = {spec.name: _column(spec, key=spec.name in key) for spec in OUTPUT_COLUMNS[table]}
    schema = _here(type(table.capitalize(), (dy.Schema,), {**columns, **(rules or {})}))
    schema.__doc__ = doc
    return schema


#: The new list of a period (``OUT/ratings``): interface.md's columns, then the input list's own.
Ratings = _schema(
    "ratings",
    "The new list: one row per player and period, interface.md's columns (and the list's own, allowed).",
    key=(c.PLAYER_ID, c.PERIOD),
    rules={"rating_unless_unrated": _rating_unless_unrated},
)
#: One row per game and side considered (``OUT/audit``).
Audit = _schema(
    "audit",
    "The audit: one row per game and side considered, and why it did not count.",
    rules={"reason_unless_counted": _reason_unless_counted},
)
#: The input rows that could not be used (``OUT/rejected``).
Rejected = _schema("rejected", "The input rows that could not be used: their file, row, column, value and reason.")
#: The schemas by table name (``ratings``, ``audit``, ``rejected``: the folders of ``OUT``).
SCHEMAS: dict[str, type[dy.Schema]] = {"ratings": Ratings, "audit": Audit, "rejected": Rejected}
