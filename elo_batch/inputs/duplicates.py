"""Games entered twice over a run's files: repeats flagged ``duplicate``, copies that disagree rejected.

Two ways a run sees one game in two rows:

- the same ``game_id``: an exact repeat counts once (the others are flagged ``duplicate``); the id reused
  with other content is an error for every row of it;
- the same ``event_id``, ``round``, ``white_id``, ``black_id`` (and ``board`` where the file has it),
  with or without a ``game_id`` (interface.md, "Games may carry an optional ``board`` column"): copies
  whose result and date (and period) agree count once, the first in input order; copies that disagree
  are all rejected, the reason naming the rows.

Rows alike in everything but with no event or round may be two real games: both count
(:mod:`elo_batch.job.sanity` warns about them).
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Literal

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.contract.schemas import CANONICAL_SCHEMA, REJECTED_SCHEMA

#: The columns that name a game (rows with the same values are one game; ``board`` null where absent).
GAME_KEY = (c.EVENT_ID, c.ROUND, c.WHITE_ID, c.BLACK_ID, c.BOARD)
#: What the copies of one game must agree on, with the name a disagreement is reported under.
AGREED = {c.RESULT: ("score100", "forfeit"), c.DATE: (c.DATE,), c.PERIOD: (c.PERIOD,)}
#: The row's content (what two rows of one game_id must share).
CONTENT = [name for name in CANONICAL_SCHEMA if name not in ("row_key", c.SOURCE_FILE, c.SOURCE_ROW, "duplicate")]

#: How a plan is collected: in memory (rows given in memory) or streamed.
_Engine = Literal["in-memory", "streaming"]
#: A comparison of rows whose keys repeat: the rows flagged (``duplicate``, ``__conflict``), the rows rejected.
_Compare = Callable[[pl.DataFrame], tuple[pl.DataFrame, pl.DataFrame]]


def names_game() -> pl.Expr:
    """True where a row names its game: an ``event_id``, a ``round`` and both players (a one-sided row
    with its ``opponent_id``)."""
    return pl.all_horizontal(pl.col(c.EVENT_ID, c.ROUND, c.BLACK_ID).is_not_null())


def mark_duplicates(
    rows: pl.DataFrame | pl.LazyFrame, absent: frozenset[str] = frozenset()
) -> tuple[pl.DataFrame | pl.LazyFrame, pl.DataFrame, dict[str, int]]:
    """Flag the repeats of a game (``duplicate``), reject the rows of game_ids reused with different
    content and of games whose copies disagree; count the rows kept by period.

    Only rows whose game_id (or game: event, round, players, board) occurs more than once are compared,
    content against content; all distinct (the usual case) is seen from the ids alone (integers) or their
    64-bit hashes, in the same pass as the counts. Without an ``event_id`` or ``round`` column in any
    file (``absent``) no row names its game and that key is not made at all.

    Args:
        rows: Canonical rows (``CANONICAL_SCHEMA``), in input order.
        absent: The canonical columns no input file has.

    Returns:
        The rows (repeats flagged, rejected rows removed), the rejected rows (``REJECTED_SCHEMA``) and
        the rows kept by period.
    """
    engine: _Engine = "in-memory" if isinstance(rows, pl.DataFrame) else "streaming"
    plan = rows.lazy()
    keyed = _keys(plan, absent)
    seen, by_period = pl.collect_all(
        [plan.select(expr.alias(name) for name, expr, _ in keyed), plan.group_by(c.PERIOD).len()], engine="streaming"
    )
    period_rows = collections.Counter(dict(by_period.iter_rows()))
    rejected = []
    for name, expr, compare in keyed:
        keys = seen[name].drop_nulls()
        if keys.n_unique() == keys.len():  # distinct keys: distinct game_ids (games)
            continue
        plan, refused, conflicts = _compared(plan, keys, expr, compare=compare, engine=engine)
        period_rows.subtract(_by_period(conflicts))
        rejected.append(refused)
    if not rejected:
        return rows, pl.DataFrame(schema=REJECTED_SCHEMA), dict(period_rows)
    refused_all = pl.concat(rejected).sort(c.SOURCE_FILE, c.SOURCE_ROW, maintain_order=True)
    return (plan.collect() if engine == "in-memory" else plan), refused_all, dict(period_rows)


def _keys(plan: pl.LazyFrame, absent: frozenset[str]) -> list[tuple[str, pl.Expr, _Compare]]:
    """The keys rows are compared by (name, key, comparison): the game_id, and the game where files have
    its event and round columns."""
    game_id = pl.col(c.GAME_ID)
    by_id = pl.when(game_id.is_not_null()).then(
        game_id if plan.collect_schema()[c.GAME_ID].is_integer() else game_id.hash()
    )
    by_game = pl.when(names_game()).then(pl.struct(GAME_KEY).hash())
    keyed: list[tuple[str, pl.Expr, _Compare]] = [(w.GAME_ID_KEY, by_id, compare_repeats)]
    if not {c.EVENT_ID, c.ROUND} & absent:
        keyed.append((w.GAME_KEY_HASH, by_game, compare_games))
    return keyed


def _compared(
    plan: pl.LazyFrame, keys: pl.Series, key: pl.Expr, *, compare: _Compare, engine: _Engine
) -> tuple[pl.LazyFrame, pl.DataFrame, pl.DataFrame]:
    """The rows whose ``key`` repeats among ``keys`` compared: the plan with repeats flagged and conflicts
    removed, the rejected rows, the conflicting rows."""
    repeated = keys.filter(keys.is_duplicated()).unique()
    candidates = plan.filter(~pl.col("duplicate") & key.is_in(repeated.implode()))
    flagged, refused = compare(candidates.collect(engine=engine))
    conflicts = flagged.filter(w.CONFLICT)
    repeats = flagged.filter("duplicate")["row_key"].implode()
    plan = plan.with_columns((pl.col("duplicate") | pl.col("row_key").is_in(repeats)).alias("duplicate")).filter(
        ~pl.col("row_key").is_in(conflicts["row_key"].implode())
    )
    return plan, refused, conflicts


def _by_period(rows: pl.DataFrame) -> dict[str, int]:
    return dict(rows.group_by(c.PERIOD).len().iter_rows())  # type: ignore[arg-type]


def compare_repeats(rows: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``duplicate`` and ``__conflict`` of rows whose game_ids repeat, and the rejected conflicting rows."""
    has_id = pl.col(c.GAME_ID).is_not_null()
    flagged = rows.with_columns(
        (has_id & (pl.struct(CONTENT).n_unique().over(c.GAME_ID) > 1)).alias(w.CONFLICT),
        (has_id & ~pl.struct(CONTENT).is_first_distinct()).alias("duplicate"),
    )
    conflict = flagged.filter(w.CONFLICT)
    if conflict.height == 0:
        return flagged, pl.DataFrame(schema=REJECTED_SCHEMA)
    where = conflict.group_by(c.GAME_ID, maintain_order=True).agg(_place().str.join(", ").alias(w.PLACES))
    reason = pl.format(
        "game_id '{}' is used by rows with different content ({}). Hint: give each game its own game_id.",
        c.GAME_ID,
        w.PLACES,
    )
    reused = conflict.join(where, on=c.GAME_ID, how="left", maintain_order="left")
    return flagged, _rejected(reused, column=pl.lit(c.GAME_ID), value=pl.col(c.GAME_ID), reason=reason)


def compare_games(rows: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``duplicate`` and ``__conflict`` of rows that may name one game (their game keys' hashes repeat),
    and the rejected rows of games whose copies disagree.

    Args:
        rows: Canonical rows, none of them already a ``duplicate``.

    Returns:
        The rows with ``duplicate`` (a later copy of a game whose copies agree) and ``__conflict`` (a copy
        of a game whose copies disagree), and those conflicting rows, rejected (``REJECTED_SCHEMA``).
    """
    key = list(GAME_KEY)
    differs = {name: pl.struct(columns).n_unique().over(key) > 1 for name, columns in AGREED.items()}
    conflict = pl.any_horizontal(*differs.values())
    flagged = rows.sort("row_key").with_columns(
        conflict.alias(w.CONFLICT), (~conflict & ~pl.struct(key).is_first_distinct()).alias("duplicate")
    )
    found = flagged.filter(w.CONFLICT)
    if found.height == 0:
        return flagged, pl.DataFrame(schema=REJECTED_SCHEMA)
    column = pl.when(differs[c.RESULT]).then(pl.lit(c.RESULT)).when(differs[c.DATE]).then(pl.lit(c.DATE))
    found = found.with_columns(
        column.otherwise(pl.lit(c.PERIOD)).alias(c.COLUMN), _place().str.join(", ").over(key).alias(w.PLACES)
    )
    return flagged, _rejected(found, column=pl.col(c.COLUMN), value=_disagreed_value(), reason=_one_game_reason())


def _disagreed_value() -> pl.Expr:
    """A conflicting copy's value of the column (:data:`~elo_batch.columns.COLUMN`) the copies disagree on."""
    return (
        pl.when(pl.col(c.COLUMN) == c.RESULT)
        .then(_result())
        .when(pl.col(c.COLUMN) == c.DATE)
        .then(pl.col(c.DATE).cast(pl.String))
        .otherwise(pl.col(c.PERIOD))
    )


def _one_game_reason() -> pl.Expr:
    """The reason of a copy of a game whose copies disagree, naming the rows (:data:`~elo_batch.working.PLACES`)."""
    named = pl.when(pl.col(c.BOARD).is_not_null()).then(pl.lit("event_id, round, white_id, black_id and board"))
    return pl.format(
        "rows {} are one game (the same {}) with different {}s: a game "
        "entered twice must agree, so none of them is used. Hint: correct or delete the wrong copy; if they "
        "are different games, give each its own round (or board).",
        w.PLACES,
        named.otherwise(pl.lit("event_id, round, white_id and black_id")),
        c.COLUMN,
    )


def _rejected(rows: pl.DataFrame, *, column: pl.Expr, value: pl.Expr, reason: pl.Expr) -> pl.DataFrame:
    """Rejected rows (``REJECTED_SCHEMA``) of ``rows``, with the column, value and reason given."""
    refused = rows.select(
        pl.col(c.PERIOD),
        pl.col(c.SOURCE_FILE),
        pl.col(c.SOURCE_ROW),
        column.alias(c.COLUMN),
        value.alias(c.VALUE),
        reason.alias(c.REASON),
        _raw(),
    )
    return refused.cast(REJECTED_SCHEMA)  # type: ignore[arg-type]


def _place() -> pl.Expr:
    """Where a row is: ``FILE row N`` (``row N`` for a frame)."""
    row = pl.format("row {}", c.SOURCE_ROW)
    return pl.when(pl.col(c.SOURCE_FILE).is_null()).then(row).otherwise(pl.format("{} {}", c.SOURCE_FILE, row))


def _result() -> pl.Expr:
    """A row's result as a token of the contract (a one-sided row's score)."""
    score = pl.col("score100")
    two_sided = (
        pl.when(pl.col("forfeit"))
        .then(pl.when(score == 100).then(pl.lit("+--")).otherwise(pl.lit("--+")))
        .when(score == 100)
        .then(pl.lit("1-0"))
        .when(score == 0)
        .then(pl.lit("0-1"))
        .otherwise(pl.lit("1/2-1/2"))
    )
    one_sided = pl.when(score == 100).then(pl.lit("1")).when(score == 0).then(pl.lit("0")).otherwise(pl.lit("0.5"))
    return pl.when(pl.col("one_sided")).then(one_sided).otherwise(two_sided)


def _raw() -> pl.Expr:
    """The row's content as JSON, ids as text, as a CSV file gives them."""
    return (
        pl.struct(CONTENT)
        .struct.with_fields(*(pl.field(name).cast(pl.String) for name in (c.WHITE_ID, c.BLACK_ID, c.GAME_ID)))
        .struct.json_encode()
        .alias(c.RAW)
    )
