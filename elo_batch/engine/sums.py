"""The map's second half and the reduce: per-player partial sums of one chunk's rated sides, and their total.

A chunk's sides (:mod:`elo_batch.engine.sides`) become per-player partial sums by dense index, in exact
integers wherever FIDE is exact: games, score in half points, sum of score - PD in hundredths, the
opponents' rating sum. Unrated players' games against rated opponents (what first ratings need) are
handed on as they are (few rows), and with ``rounding="game"`` the count of each value of score - PD per
player, so that each game's K x (score - PD) can be rounded once K is known. The reduce adds the
partial sums of all chunks: integers in any order, with the same total.

Floating-point sums (the logistic formula's PD, fractional ratings) do depend on the order of the
additions. They are added in one fixed order whatever the chunks: table rows in blocks of
:data:`SUM_ROWS`, in each block the white sides then the black sides, each in table order (the order of
one pass over the whole table, as elo-batch has always added them). A chunk hands on its floating-point
terms; the reduce adds a block once the chunks covering it have arrived, so that chunks arriving in
order are added at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

import numpy as np
import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.engine import schema as s
from elo_batch.engine.sides import Chunk, RatedSides, side_view
from elo_batch.errors import InternalError
from elo_batch.rules.sets import RuleSet

#: Table rows rated and summed at a time by the local engine, and the block of the fixed order of the
#: floating-point sums: a constant, so that float sums add in the same order whatever the input's chunks.
SUM_ROWS: Final = 4_000_000


def add_at(totals: np.ndarray, index: np.ndarray, values: np.ndarray) -> None:
    """Add ``values`` into ``totals`` at ``index``, in order (the one place numpy adds by index).

    numpy's unbuffered ``add.at``: polars has no scatter-add, and its group-by hashes the indices;
    this is several times faster. Floating-point values are added one after the other, in order.
    ``values`` are first cast to the totals' dtype (a widening cast: Int16 or Int32 terms into Int64
    totals): numpy's fast path of ``add.at`` needs one dtype, and mixed dtypes take its slow loop
    (200k Int32 terms into 1.6M Int64 totals: 12-16 ms against 0.8 ms).
    """
    np.add.at(totals, index, values.astype(totals.dtype, copy=False))


def exact_sums(rules: RuleSet) -> tuple[str, ...]:
    """The sums that are exact integers under ``rules``: games and score always; score - PD for table
    8.1.2 (PD in whole hundredths); the opponents' ratings when ratings are whole."""
    return (
        w.N,
        w.W2,
        *((w.DEV_SUM,) if rules.table_expected else ()),
        *((w.OPP_SUM,) if rules.whole_ratings else ()),
    )


def float_sums(rules: RuleSet) -> tuple[str, ...]:
    """The sums in floating point under ``rules`` (see :func:`exact_sums`): PD and score - PD with the
    logistic formula, the opponents' ratings when ratings stay fractional."""
    return (
        *((w.PD_SUM, w.DEV_SUM) if not rules.table_expected else ()),
        *((w.OPP_SUM,) if not rules.whole_ratings else ()),
    )


def pending_schema(rules: RuleSet) -> dict[str, pl.DataType]:
    """Columns of the pending sides (:data:`~elo_batch.engine.schema.PENDING_SIDES`) and their types:
    the opponent's rating is summed, as Int64 (Float64 for fractional ratings)."""
    types: dict[str, pl.DataType] = {
        w.KEY: pl.Int64(),
        w.IDX: s.INDEX_TYPE,
        s.ROW_KEY: pl.Int64(),
        c.DATE: pl.Date(),
        c.EVENT_ID: pl.String(),
        s.SCORE100: pl.Int16(),
        c.OPPONENT_RATING: pl.Int64() if rules.whole_ratings else pl.Float64(),
    }
    return {name: types[name] for name in s.PENDING_SIDES}


@dataclass(frozen=True)
class FloatTerms:
    """A chunk's floating-point terms, for the reduce to add in the fixed order.

    Attributes:
        start, stop: The chunk's rows in the period table (``start .. stop - 1``).
        index: The player of each white side and of each black side (one per row, in table order).
        values: Per sum, the white sides' and the black sides' terms (0 where a side does not count).
    """

    start: int
    stop: int
    index: tuple[np.ndarray, np.ndarray]
    values: dict[str, tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Partial:
    """Per-player partial sums of one chunk (the map's output).

    Attributes:
        start, stop: The chunk's rows in the period table.
        exact: Per exact sum (:func:`exact_sums`), an Int64 array by dense player index.
        floats: The floating-point terms (:func:`float_sums`), or None when every sum is exact.
        pending: The chunk's pending sides (:func:`pending_schema`), white sides first.
        by_game: With ``rounding="game"``, rated sides counted by player and score - PD (``__idx``,
            ``__dev100``, ``__count``); else None.
        rated_rows: Rows of the chunk with at least one rated side.
    """

    start: int
    stop: int
    exact: dict[str, np.ndarray]
    floats: FloatTerms | None
    pending: pl.DataFrame
    by_game: pl.DataFrame | None
    rated_rows: int


def partial_sums(chunk: Chunk, rated: RatedSides, rules: RuleSet, *, players: int) -> Partial:
    """The map's summing step: a chunk's rated sides as per-player partial sums
    (:func:`side_terms`, then :func:`add_terms`).

    Args:
        chunk: Consecutive rows of the period table.
        rated: Their sides, rated (:func:`elo_batch.engine.sides.rate_chunk`).
        rules: The period's rule set.
        players: Players of the period (the length of the per-player arrays).

    Returns:
        The partial sums, pending sides and counts of the chunk.

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3.3-8.3.4: the change is K x sum(score - PD) over the
        period, rounded once (``fide-rules.md`` section 4); 8.2 and 7.1.4 (pending sides).
    """
    return add_terms(chunk, side_terms(chunk, rated, rules), rules, players=players)


def side_terms(chunk: Chunk, rated: RatedSides, rules: RuleSet) -> list[pl.DataFrame]:
    """The polars half of :func:`partial_sums`: each side's player index and terms (0 where the side
    does not count), the pending sides and (``rounding="game"``) the counts by score - PD; the white
    side's frames, then the black side's. No GIL is held while they are worked out, so a caller may
    work out the next chunk's while :func:`add_terms` adds this one's."""
    queries = []
    for is_white, me, other in ((True, rated.white, rated.black), (False, rated.black, rated.white)):
        sides = _sides(chunk, me, other, white=is_white)
        queries += [_terms(sides, rules), _pending(sides, rules)]
        if rules.rounds_each_game:
            dev = _VALUES[w.DEV_SUM].alias(w.DEV)
            queries.append(sides.filter(pl.col(w.RATED)).group_by(w.IDX, dev).agg(pl.len().alias(w.COUNT)))
    return pl.collect_all(queries, engine="streaming")


#: The value of each sum for a rated side.
_VALUES: Final = {
    w.N: pl.lit(1, pl.Int64),
    w.W2: pl.col(w.SIDE_SCORE) // 50,
    w.DEV_SUM: pl.col(w.SIDE_SCORE) - pl.col(w.PD),
    w.PD_SUM: pl.col(w.PD),
    w.OPP_SUM: pl.col(c.OPPONENT_RATING),
}


#: The type of one side's term of each exact sum: the narrowest that holds every value (a game is 1, a
#: score 0-2 half points, score - PD -100..100 hundredths, a rating under ``MAX_RATING``), since a chunk's
#: terms are one value per side and sum (4 million rows: 64 MB a sum as Int64). The totals are Int64.
_EXACT_TERM_TYPES: Final[dict[str, pl.DataType]] = {
    w.N: pl.Int8(),
    w.W2: pl.Int8(),
    w.DEV_SUM: pl.Int16(),
    w.OPP_SUM: pl.Int16(),
}


def _sides(chunk: Chunk, me: pl.DataFrame, other: pl.DataFrame, *, white: bool) -> pl.LazyFrame:
    """The chunk's white (or black) sides beside their rated values and the opponent's rating, with
    ``__has_side`` (a one-sided row has no black side) and ``__rated``."""
    has_side = pl.lit(True) if white else ~pl.col(s.ONE_SIDED)
    row = [s.ONE_SIDED, s.ROW_KEY, c.DATE, c.EVENT_ID]
    return (
        pl.concat(
            [
                chunk.rows.lazy().select(*row, *side_view(white)),
                me.lazy(),
                other.lazy().select(pl.col(c.RATING).alias(c.OPPONENT_RATING)),
            ],
            how="horizontal",
        )
        .with_columns(has_side.alias(w.HAS_SIDE))
        .with_columns(((pl.col(w.CODE) == s.COUNTED) & pl.col(w.HAS_SIDE)).alias(w.RATED))
    )


def _terms(sides: pl.LazyFrame, rules: RuleSet) -> pl.LazyFrame:
    """Each side's player index (0 where there is none), ``__rated`` and its term of each sum (0 where the
    side does not count): the narrowest integer types for the exact sums, Float64 for the others."""
    exact, floating = exact_sums(rules), float_sums(rules)
    rated_side = pl.col(w.RATED)
    return sides.select(
        pl.col(w.IDX).fill_null(0),
        rated_side,
        *(
            pl.when(rated_side)
            .then(_VALUES[name])
            .otherwise(0)
            .cast(_EXACT_TERM_TYPES[name] if name in exact else pl.Float64)
            .alias(name)
            for name in (*exact, *floating)
        ),
    )


def _pending(sides: pl.LazyFrame, rules: RuleSet) -> pl.LazyFrame:
    """The pending sides (:func:`pending_schema`): an unrated player's games against rated opponents, when
    the rule set rates unrated players."""
    pending_cols = pending_schema(rules)
    is_pending = (pl.col(w.CODE) == s.UNRATED_PLAYER) & pl.col(w.HAS_SIDE) & rules.initial_ratings
    return (
        sides.filter(is_pending)
        .with_columns(pl.col(w.SIDE_SCORE).alias(s.SCORE100))
        .select(list(pending_cols))
        .cast(pending_cols)  # type: ignore[arg-type]
    )


def add_terms(chunk: Chunk, frames: list[pl.DataFrame], rules: RuleSet, *, players: int) -> Partial:
    """The numpy half of :func:`partial_sums`: the terms of :func:`side_terms` added by player index."""
    exact, floating = exact_sums(rules), float_sums(rules)
    step = len(frames) // 2  # the white side's frames, then the black side's
    per_side = (frames[0], frames[step])
    totals = {name: np.zeros(players, np.int64) for name in exact}
    for side in per_side:
        index = side[w.IDX].to_numpy()
        for name in exact:
            add_at(totals[name], index, side[name].to_numpy())
    floats = None
    if floating:
        white, black = per_side
        floats = FloatTerms(
            chunk.start,
            chunk.stop,
            (white[w.IDX].to_numpy(), black[w.IDX].to_numpy()),
            {name: (white[name].to_numpy(), black[name].to_numpy()) for name in floating},
        )
    pending = pl.concat([frames[1], frames[1 + step]])
    by_game = pl.concat([frames[2], frames[2 + step]]) if rules.rounds_each_game else None
    rated_rows = int((per_side[0][w.RATED] | per_side[1][w.RATED]).sum())
    return Partial(chunk.start, chunk.stop, totals, floats, pending, by_game, rated_rows)


@dataclass(frozen=True)
class Sums:
    """The period's per-player sums (the reduce's output), and what finalize needs of the other sides.

    Attributes:
        players: One row per player with at least one rated side: ``__idx`` (UInt32) and
            :data:`~elo_batch.engine.schema.SUMS`: ``__n`` (rated games), ``__w100`` (score,
            hundredths), ``__pd100`` (sum of PD, hundredths), ``__opp`` (sum of the opponents'
            ratings, rating points), ``__dev100`` (sum of score - PD, hundredths).
        pending: Every pending side of the period: the white sides in input order, then the black ones.
        by_game: With ``rounding="game"``: rated sides counted by ``__idx`` and ``__dev100``; else None.
        rated_rows: Rows of the period with at least one rated side.
    """

    players: pl.DataFrame
    pending: pl.DataFrame
    by_game: pl.DataFrame | None
    rated_rows: int


def reduce_sums(
    partials: Iterable[Partial], rules: RuleSet, *, players: int, rows: int, block_rows: int = SUM_ROWS
) -> Sums:
    """The reduce: the partial sums of the chunks of a period added by player.

    Args:
        partials: One per chunk, in any order; the chunks together are the period table's rows, each
            row in exactly one chunk. Their arrays are the reduce's own: the first one's become the
            totals, and the others are added into them.
        rules: The period's rule set.
        players: Players of the period.
        rows: Rows of the period table.
        block_rows: The block of the fixed order of the floating-point sums (see the module's docstring).

    Returns:
        The per-player sums of the period.

    Raises:
        InternalError: the chunks overlap or leave rows out (a bug in the caller).
    """
    exact, floating = exact_sums(rules), float_sums(rules)
    totals: dict[str, np.ndarray] = {}  # the first chunk's arrays, then the others added into them
    fold = _FloatFold(floating, players, rows, block_rows)
    pending, by_game = [], []
    rated_rows = covered = 0
    for partial in partials:
        covered += partial.stop - partial.start
        for name in exact:
            if name in totals:
                totals[name] += partial.exact[name]
            else:
                totals[name] = partial.exact[name]
        if partial.floats is not None:
            fold.add(partial.floats)
        pending.append(partial.pending)
        if partial.by_game is not None:
            by_game.append(partial.by_game)
        rated_rows += partial.rated_rows
        del partial  # its dense arrays, before the next chunk's are made (one chunk's at a time, not two)
    if covered != rows or not fold.done():
        raise InternalError(
            f"the chunks hold {covered} rows of a period of {rows}",
            hint="this is a bug in elo-batch: each row of the period must be in exactly one chunk; please report it.",
        )
    for name in exact:  # no chunk: a period without rows
        totals.setdefault(name, np.zeros(players, np.int64))
    return sums_of(totals, fold.totals(), pending, by_game=by_game, rated_rows=rated_rows, rules=rules, players=players)


def sums_of(
    exact: dict[str, np.ndarray],
    floats: dict[str, pl.Series],
    pending: list[pl.DataFrame],
    *,
    by_game: list[pl.DataFrame],
    rated_rows: int,
    rules: RuleSet,
    players: int,
) -> Sums:
    """The period's :class:`Sums` from its totals by dense player index: the end of the reduce, shared by
    every engine that adds the partial sums its own way (the Spark engine adds them with Spark's group-by).

    Args:
        exact: Per exact sum (:func:`exact_sums`), the period's Int64 totals by dense index.
        floats: Per floating-point sum (:func:`float_sums`), the totals by dense index (Float64), added
            in the fixed order of the module's docstring.
        pending: The pending sides, in parts, in any order (:func:`pending_schema` columns).
        by_game: With ``rounding="game"``: rated sides counted by ``__idx`` and ``__dev100``, in parts.
        rated_rows: Rows of the period with at least one rated side.
        rules: The period's rule set.
        players: Players of the period.
    """
    sums = {name: pl.Series(name, exact[name]) for name in exact_sums(rules)} | floats
    w100 = 50 * sums[w.W2]
    if rules.table_expected:  # PD in whole hundredths: sum(PD) = sum(score) - sum(score - PD)
        sums[w.PD_SUM] = w100 - sums[w.DEV_SUM]
    frame = pl.DataFrame(
        [
            pl.Series(w.IDX, np.arange(players, dtype=np.uint32)),
            sums[w.N].alias(w.N),
            w100.alias(w.W100),
            *(sums[name].alias(name) for name in (w.PD_SUM, w.OPP_SUM, w.DEV_SUM)),
        ]
    ).filter(pl.col(w.N) > 0)
    every_pending = (
        pl.concat(pending).sort(pl.col(w.KEY) % 2, w.KEY) if pending else pl.DataFrame(schema=pending_schema(rules))
    )
    counted = pl.concat(by_game).group_by(w.IDX, w.DEV).agg(pl.col(w.COUNT).sum()) if rules.rounds_each_game else None
    return Sums(frame, every_pending, counted, rated_rows)


@dataclass
class _FloatFold:
    """Floating-point sums by player, added in the fixed order (see the module's docstring) from the
    chunks' terms as they arrive: a block is added once the chunks that cover it are all there."""

    names: tuple[str, ...]
    players: int
    rows: int
    block_rows: int
    added: int = 0  # rows added so far: always the end of a block
    waiting: list[FloatTerms] = field(default_factory=list)
    sums: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.sums = {name: np.zeros(self.players, np.float64) for name in self.names}

    def add(self, terms: FloatTerms) -> None:
        self.waiting.append(terms)
        self.waiting.sort(key=lambda t: t.start)
        while self.added < self.rows and self._add_block():
            self.waiting = [t for t in self.waiting if t.stop > self.added]

    def _add_block(self) -> bool:
        """Add the next block if its chunks are all there."""
        end = min(self.added + self.block_rows, self.rows)
        parts, reach = [], self.added
        for terms in self.waiting:
            if terms.start > reach or reach >= end:
                break
            parts.append(terms)
            reach = max(reach, terms.stop)
        if reach < end:
            return False
        for side in (0, 1):
            for terms in parts:
                low, high = max(terms.start, self.added) - terms.start, min(terms.stop, end) - terms.start
                index = terms.index[side][low:high]
                for name in self.names:
                    add_at(self.sums[name], index, terms.values[name][side][low:high])
        self.added = end
        return True

    def done(self) -> bool:
        return self.added == self.rows or not self.names

    def totals(self) -> dict[str, pl.Series]:
        return {name: pl.Series(name, total) for name, total in self.sums.items()}
