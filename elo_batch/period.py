"""Rate one rating period, and a range of periods (the only loop, over months): the local engine.

Inside a period nothing is sequential: every game uses the ratings in force. The period runs through the
kernels of :mod:`elo_batch.kernels`, with the period table cut into chunks of ``SUM_ROWS`` rows:

1. the pre-pass: the list in force, each player's dense index (players of the list first, in list
   order, then players absent from it), the period table of the period's rows with the two players'
   indices (a dense table for integer ids; text ids through 64-bit hashes checked against the ids);
2. the map, chunk by chunk: both sides of every row rated once, then per-player partial sums of games,
   score and score - PD (exact integers), added by index;
3. the reduce (the chunks' sums added) and the finalize: K, the change, the new list;
4. the audit: a lazy plan that gathers both sides of every table row in input order; the writer runs
   it in chunks, so it never has to fit in memory at once.

The rows may be in memory or a plan that reads the input files again (``--chunk-rows``); the queries
over them run on polars' streaming engine, chunk by chunk, and the per-player sums are exact, so the
result does not depend on the chunking.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

import polars as pl

from elo_batch import columns as c
from elo_batch.config import RunConfig
from elo_batch.errors import InternalError
from elo_batch.kernels import prepass
from elo_batch.kernels import schema as s
from elo_batch.kernels import sums as sums_kernel
from elo_batch.kernels.audit import audit
from elo_batch.kernels.finish import finalize
from elo_batch.kernels.sides import Chunk, RatedSides, rate_chunk
from elo_batch.ratinglist import as_list_in_force
from elo_batch.rules.sets import RuleSet
from elo_batch.validate import GamesInput

#: Polars engine of the heavy queries (see :data:`elo_batch.kernels.prepass.ENGINE`).
ENGINE: Final = prepass.ENGINE
#: Table rows rated and summed at a time (one chunk of the kernels), and the block of the fixed order
#: of floating-point sums (see :mod:`elo_batch.kernels.sums`): a constant, so that float sums (logistic
#: formula) add in the same order whatever the input's chunks.
_SUM_ROWS: Final = sums_kernel.SUM_ROWS


@dataclass(frozen=True)
class Counts:
    """How the input rows of a run are accounted for in one period.

    ``rows_read == counted + not_counted + other_periods + rejected`` always holds (see
    :meth:`reconciles`): counted rows have at least one side counted, not-counted rows are in the audit
    with their reason, rejected rows are in ``rejected``.
    """

    rows_read: int
    counted: int
    not_counted: int
    other_periods: int
    rejected: int

    def reconciles(self) -> bool:
        """True when every row read is accounted for exactly once."""
        return self.rows_read == self.counted + self.not_counted + self.other_periods + self.rejected


@dataclass(frozen=True)
class PeriodResult:
    """Everything one rating period produces.

    Attributes:
        period: Month of play, ``YYYY-MM``.
        rule_set: The rules applied.
        ratings: The new rating list (one row per player, sorted by ``player_id``).
        audit: One row per game side considered, in input order: a lazy plan, run when it is written.
        audit_rows: Rows of ``audit``.
        rejected: Rejected input rows attributed to this period, in input order.
        counts: Row accounting.
        warnings: Things the user should know that did not stop the run.
        unlisted: Ids of the period's players absent from the list in force, in order of first
            appearance (empty without a list: every player is taken from the games).
    """

    period: str
    rule_set: RuleSet
    ratings: pl.DataFrame
    audit: pl.LazyFrame
    audit_rows: int
    rejected: pl.DataFrame
    counts: Counts
    warnings: tuple[str, ...]
    unlisted: pl.Series = field(default_factory=lambda: pl.Series(c.PLAYER_ID, [], pl.String))


def rate_periods(games: GamesInput, rating_list: pl.DataFrame | None, config: RunConfig) -> Iterator[PeriodResult]:
    """Rate the periods of ``config`` in order, each starting from the list the previous one produced.

    Args:
        games: All checked game rows of the run.
        rating_list: The list in force before the first period (``LIST_SCHEMA`` columns first), or
            None to take ratings from the game rows.
        config: The run's settings.

    Yields:
        One :class:`PeriodResult` per period, in order.

    Raises:
        UsageError: a period has no supported rule set (see :meth:`RunConfig.rules_for`).
    """
    current = rating_list
    if current is not None and current[c.PLAYER_ID].dtype == pl.Int64 and games.id_type != pl.Int64:
        current = current.with_columns(pl.col(c.PLAYER_ID).cast(pl.String))  # ids as text, as the games give them
    for number, period in enumerate(config.periods):
        result = rate_period(
            games,
            current,
            config.rules_for(period),
            period,
            add_players_from_games=rating_list is None,
            reject_undated=number == 0,
        )
        yield result
        current = as_list_in_force(result.ratings)


def rate_period(
    games: GamesInput,
    rating_list: pl.DataFrame | None,
    rules: RuleSet,
    period: str,
    *,
    add_players_from_games: bool = False,
    reject_undated: bool = True,
) -> PeriodResult:
    """Rate one period: expected scores, K, change, new list and audit.

    Args:
        games: All checked game rows (rows of other periods are counted, not rated).
        rating_list: The list in force (``LIST_SCHEMA`` columns, then pass-through columns), or None:
            then each player's rating is the one on their first game of the period (by date, then
            file order).
        rules: The rule set of the period.
        period: Month of play, ``YYYY-MM``.
        add_players_from_games: Add players met in the games but absent from ``rating_list``, rated
            from the game rows (a range run without ``--ratings``).
        reject_undated: Write the rejected rows whose period cannot be read (no usable date or period)
            into this period's ``rejected``; False for the later periods of a range, so that a warehouse
            counts each bad row once (they count there as rows of other periods).

    Returns:
        The period's ratings, audit (a lazy plan), rejected rows and counts.

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3 (rated players), 8.2 and 7.1.4 (unrated players),
        7.1.2 (1400 floor); ``fide-rules.md`` sections 3-7 and 12.
    """
    prepared = prepass.prepare(games, rating_list, period, add_players_from_games=add_players_from_games)
    table = prepared.table
    block = _SUM_ROWS
    chunks = [Chunk(start, table.slice(start, block)) for start in range(0, table.height, block)] or [Chunk(0, table)]
    rated: list[RatedSides] = []

    def mapped() -> Iterator[sums_kernel.Partial]:
        for chunk in chunks:
            sides = rate_chunk(chunk, prepared.list_rating, rules)
            rated.append(sides)
            yield sums_kernel.partial_sums(chunk, sides, rules, prepared.players)

    totals = sums_kernel.reduce_sums(mapped(), rules, players=prepared.players, rows=table.height, block_rows=block)
    finished = finalize(prepared, totals, rules, period)
    whole = Chunk(0, table)
    audited = audit(
        whole,
        RatedSides.concat(rated),
        finished,
        ids=prepared.ids,
        source_file=games.source_file(pl.col(s.ROW_KEY)),
        absent=games.absent,
        rules=rules,
        period=period,
    )
    rejected, counts = accounting(
        games, period, in_period=table.height, counted=finished.counted_rows, reject_undated=reject_undated
    )
    audit_rows = table.height + table.select((~pl.col(s.ONE_SIDED)).sum()).item()
    unlisted = prepared.ids.slice(prepared.listed.height)
    return PeriodResult(
        period, rules, finished.ratings, audited, audit_rows, rejected, counts, prepared.warnings, unlisted
    )


def accounting(
    games: GamesInput, period: str, *, in_period: int, counted: int, reject_undated: bool
) -> tuple[pl.DataFrame, Counts]:
    """The period's rejected rows and its counts, checked to reconcile: shared by every engine.

    Args:
        games: All checked game rows of the run (their rejected rows, rows by period, rows read).
        period: Month of play, ``YYYY-MM``.
        in_period: Rows of the period table (the period's rows, not rejected).
        counted: Rows of the period with at least one side counted.
        reject_undated: As :func:`rate_period`.

    Raises:
        InternalError: the rows do not reconcile (a bug).
    """
    undated = pl.col(c.PERIOD).is_null()
    rejected = games.rejected.filter((undated & reject_undated) | (pl.col(c.PERIOD) == period)).with_columns(
        pl.lit(period).alias(c.PERIOD)
    )
    other = (
        sum(rows for month, rows in games.period_rows.items() if month != period)
        + games.rejected.filter(
            (pl.col(c.PERIOD).is_not_null() & (pl.col(c.PERIOD) != period)) | (undated & (not reject_undated))
        ).height
    )
    counts = Counts(games.rows_read, counted, in_period - counted, other, rejected.height)
    if not counts.reconciles():
        raise InternalError(
            f"period {period}: rows do not reconcile ({counts}); nothing was written for this period",
            hint="this is a bug in elo-batch: every input row must be counted, audited or rejected; please report it.",
        )
    return rejected, counts
