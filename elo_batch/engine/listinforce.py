"""The list in force of a period: a list's ratings under the floor read as FIDE publishes them (B.02
7.1.2), and a period's new list read as the next period's list in force.

Pure polars on the engine's side of the contract; no file is read here.
"""

from __future__ import annotations

import polars as pl

from elo_batch import columns as c
from elo_batch.contract import pending
from elo_batch.contract.names import escape
from elo_batch.contract.schemas import LIST_SCHEMA, PERIOD_OUTPUT, ids_type, list_schema

#: Players named in the warning about list ratings under the floor (the warning counts them all).
FLOOR_SHOWN = 5


def unrate_below_floor(
    table: pl.DataFrame | None, floor: int | None, period: str
) -> tuple[pl.DataFrame | None, list[str]]:
    """The list in force with every rating under the rule set's floor made empty: such a player is unrated.

    FIDE's list holds no rating under the floor (1400 since 1 March 2024, B.02 7.1.2): a player whose
    rating fell under it is unrated on the next list and needs a new initial rating (7.2.1). A copy of the
    list that still holds such a rating (third-party copies of FIDE's data do) is read as FIDE publishes
    it: the player is unrated, in his own calculation and in his opponents'. A rapid or blitz list's
    ``standard_rating`` is the player's standard rating, read the same way: under the floor it is no rating,
    and seeds nothing (R&B 7.2.1 needs a standard rating).

    Args:
        table: The list in force (``LIST_SCHEMA`` columns first), or None (no list: nothing to do).
        floor: The period's rule set's floor (:attr:`elo_batch.rules.sets.RuleSet.floor`); None: no floor.
        period: The period rated, for the warning.

    Returns:
        The list (unchanged when no rating is under the floor), and a warning per column (``rating``,
        ``standard_rating``) counting the ratings made empty (none when there are none).
    """
    if table is None or floor is None:
        return table, []
    warnings = []
    readings = (
        (c.RATING, "list rating(s)", "are unrated"),
        (c.STANDARD_RATING, f"{c.STANDARD_RATING}(s)", "are no rating (they seed no rapid or blitz rating)"),
    )
    for column, what, read in readings:
        if column not in table.columns:
            continue
        under = pl.col(column) < floor
        found = table.filter(under).select(c.PLAYER_ID, column)
        if not found.height:
            continue
        shown = ", ".join(f"{player} ({rating:g})" for player, rating in found.head(FLOOR_SHOWN).iter_rows())
        warnings.append(
            f"{period}: {found.height} {what} under the floor {floor} {read}, as FIDE's list holds no rating "
            f"under it (B.02 7.1.2): {shown}{', ...' if found.height > FLOOR_SHOWN else ''}"
        )
        table = table.with_columns(pl.when(~under).then(pl.col(column)).alias(column))
    return table, warnings


def as_list_in_force(new_list: pl.DataFrame) -> pl.DataFrame:
    """A rating list written by a period, as the next period reads it (what ``--ratings`` would load).

    Args:
        new_list: The ``ratings`` output of a period.

    Returns:
        ``LIST_SCHEMA`` columns first, then the pass-through columns (under the names a read list holds
        them, :func:`elo_batch.contract.names.escape`); the columns that describe the finished period
        (``change``, ``games``, ...) dropped.
    """
    frame = new_list.drop([name for name in PERIOD_OUTPUT if name in new_list.columns])
    extras = [name for name in frame.columns if name not in LIST_SCHEMA]
    return frame.select(
        *[_typed(frame, name, dtype) for name, dtype in list_schema(ids_type(frame.schema)).items()],
        *[pl.col(name).alias(escape(name)) for name in extras],
    )


def _typed(frame: pl.DataFrame, name: str, dtype: pl.DataType) -> pl.Expr:
    """A list column as the engine reads it: of ``dtype`` (null when absent), the pools' text form parsed."""
    if name not in frame.columns:
        return pl.lit(None).cast(dtype).alias(name)
    if name == c.PENDING:  # written as text (elo_batch.contract.pending)
        return pending.parse(pl.col(name).cast(pl.String)).alias(name)
    return pl.col(name).cast(dtype).alias(name)
