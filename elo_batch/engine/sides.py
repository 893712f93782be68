"""The map, first half: rate both sides of every row of one chunk of the period table; nothing of other chunks.

Each side of a game row is rated against the ratings in force for it: the rating written on the game row,
else the one on the list in force (by the player's dense index). The map decides, per side, the rating
used (Ro), whether and why it counts (``__code``), D after the 400-point rule and PD. The per-player sums
of a chunk (the second half of the map) are in :mod:`elo_batch.engine.sums`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.engine import expressions as engine
from elo_batch.engine import schema as s
from elo_batch.errors import InternalError
from elo_batch.rules.sets import RuleSet


@dataclass(frozen=True)
class Chunk:
    """A run of consecutive rows of the period table: its rows ``start .. start + rows.height - 1``.

    Attributes:
        start: Position of the first row in the period table (it orders the floating-point sums).
        rows: The rows (columns of :attr:`elo_batch.engine.prepass.Prepared.table`).
    """

    start: int
    rows: pl.DataFrame

    @property
    def stop(self) -> int:
        """Position after the last row."""
        return self.start + self.rows.height


@dataclass(frozen=True)
class RatedSides:
    """Both sides of every row of a chunk, rated: one row per table row in each frame, in table order.

    Attributes:
        start: Position of the chunk's first row in the period table.
        white: The white sides (the player's side of a one-sided row): columns
            :data:`~elo_batch.engine.schema.RATED_SIDE` (``rating`` used, ``__code``, ``__pd100``).
        black: The black sides, the same columns (a one-sided row's black side is there, never used).
    """

    start: int
    white: pl.DataFrame
    black: pl.DataFrame

    def both(self) -> pl.DataFrame:
        """The white sides, then the black sides (``2 x rows``): what the audit gathers from."""
        return pl.concat([self.white, self.black], rechunk=True)

    def slice(self, offset: int, rows: int) -> RatedSides:
        """The sides of table rows ``offset .. offset + rows - 1`` of this chunk."""
        return RatedSides(self.start + offset, self.white.slice(offset, rows), self.black.slice(offset, rows))

    @staticmethod
    def concat(parts: list[RatedSides]) -> RatedSides:
        """The rated sides of consecutive chunks as those of one chunk (the chunks' columns kept as they
        are, not copied: :meth:`both` copies them once, into the audit's one array)."""
        if len(parts) == 1:
            return parts[0]
        return RatedSides(
            parts[0].start,
            pl.concat([part.white for part in parts], rechunk=False),
            pl.concat([part.black for part in parts], rechunk=False),
        )


def rating_type(rules: RuleSet) -> pl.DataType:
    """Ratings as computed with: whole ratings (a fractional one is refused on reading unless ratings stay
    fractional) as Int32, cheaper to compute with, to keep and to write; else Float64."""
    return pl.Int32() if rules.whole_ratings else pl.Float64()


def pd_type(rules: RuleSet) -> pl.DataType:
    """PD in hundredths as kept: 0..100 from table 8.1.2, a fraction from the formula."""
    return pl.Int8() if rules.table_expected else pl.Float64()


def side_view(white: bool) -> list[pl.Expr]:
    """A row of the period table as its white (or black) side, from that player's point of view: the
    side's key, player and opponent index, score, the ratings written on the game row (those at the
    event's start) and whether each player had none there (B.02 8.2.4)."""
    me, other = (w.WHITE, w.BLACK) if white else (w.BLACK, w.WHITE)
    game_ro, game_rc = (c.WHITE_RATING, c.BLACK_RATING) if white else (c.BLACK_RATING, c.WHITE_RATING)
    own_late, opp_late = (w.WHITE_LATE, w.BLACK_LATE) if white else (w.BLACK_LATE, w.WHITE_LATE)
    return [
        (2 * pl.col(s.ROW_KEY) + (0 if white else 1)).alias(w.KEY),
        pl.col(me).alias(w.IDX),
        pl.col(other).alias(w.OPP),
        (pl.col(s.SCORE100) if white else (100 - pl.col(s.SCORE100)).cast(pl.Int16)).alias(w.SIDE_SCORE),
        pl.col(game_ro).alias(w.RO_GAME),
        pl.col(game_rc).alias(w.RC_GAME),
        pl.col(own_late).alias(w.OWN_LATE),
        pl.col(opp_late).alias(w.OPP_LATE),
    ]


def side_upgrade(white: bool, rules: RuleSet) -> list[pl.Expr]:
    """The side's upgrade flag (``__upgrade``) under the once-per-event 400-point rule, else nothing: the
    column :func:`elo_batch.engine.upgrades.mark` set on the period table before it was cut."""
    if not rules.cap_once_per_event:
        return []
    return [pl.col(w.WHITE_UP if white else w.BLACK_UP).alias(w.UPGRADE)]


def upgrade_of(rules: RuleSet) -> pl.Expr | None:
    """The ``upgrade`` argument of :func:`elo_batch.engine.expressions.capped_difference` for a side (``__upgrade``)."""
    return pl.col(w.UPGRADE) if rules.cap_once_per_event else None


def rate(sides: pl.LazyFrame, list_rating: pl.Series, rules: RuleSet) -> pl.LazyFrame:
    """The rating used for each game side, whether it counts (``__code``) and PD.

    Args:
        sides: Game sides (:func:`side_view`) with the row's ``one_sided``, ``forfeit``, ``duplicate``
            and ``__event_rule`` (and ``__upgrade``, :func:`side_upgrade`, under the once-per-event
            400-point rule).
        list_rating: The rating on the list in force by dense index (null: unrated or unlisted).
        rules: The period's rule set.

    Returns:
        ``sides`` with ``rating`` (Ro: the game row's rating, else the list's; :func:`rating_type`),
        ``opponent_rating`` (Rc, likewise), ``__code`` (UInt8, 0 = counted; see
        :data:`~elo_batch.engine.schema.COUNTED` and the codes after it) and ``__pd100`` (PD in
        hundredths, :func:`pd_type`; null when not counted).

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3.1-8.3.2 (D after the 400-point rule, PD), 5.1
        (forfeits), 6.1 and 6.2 (matches), 7.1 (unrated players), 8.2.4 (a player unrated at the
        event's start: unrated for his opponents); R&B 7.3.1 (600/2600); ``fide-rules.md`` sections 1-3, 5.
    """
    dtype = rating_type(rules)
    ratings = pl.lit(list_rating.cast(dtype))
    ro_list, rc_list = ratings.gather(pl.col(w.IDX)), ratings.gather(pl.col(w.OPP))
    sides = sides.with_columns(ro_list.alias(w.RO_LIST), rc_list.alias(w.RC_LIST)).with_columns(
        pl.coalesce(pl.col(w.RO_GAME).cast(dtype), w.RO_LIST).alias(c.RATING),
        pl.coalesce(pl.col(w.RC_GAME).cast(dtype), w.RC_LIST).alias(c.OPPONENT_RATING),
    )
    d = engine.capped_difference(pl.col(c.RATING), pl.col(c.OPPONENT_RATING), rules, upgrade=upgrade_of(rules))
    pd100 = engine.expected_score_100(d, rules)
    return sides.with_columns(_code(rules).alias(w.CODE)).with_columns(
        pl.when(pl.col(w.CODE) == s.COUNTED).then(pd100).cast(pd_type(rules)).alias(w.PD)
    )


def _code(rules: RuleSet) -> pl.Expr:
    """Why a side does not count (``__code``, UInt8; 0: it counts), the first reason in this order: a
    repeated row, a forfeit (5.1), a match's 6.1 or 6.2, an opponent unrated at the event's start
    (8.2.4), an unrated opponent, an unrated player (7.1), the 600/2600 gap (R&B 7.3.1)."""
    ro, rc = pl.col(c.RATING), pl.col(c.OPPONENT_RATING)
    opponent_rated = pl.when(pl.col(s.ONE_SIDED)).then(rc.is_not_null()).otherwise(pl.col(w.RC_LIST).is_not_null())
    gap = (
        (((ro - rc).abs() >= rules.gap.gap) & ((ro > rules.gap.above) | (rc > rules.gap.above)))
        if rules.gap_600_rule
        else pl.lit(False)
    )
    reasons = (
        (pl.col(s.DUPLICATE), s.DUPLICATE_ROW),
        (pl.col(s.FORFEIT), s.FORFEITED),
        (pl.col(w.EVENT_RULE) == s.RULE_MATCH_UNRATED, s.MATCH_UNRATED),
        (pl.col(w.EVENT_RULE) == s.RULE_MATCH_DECIDED, s.MATCH_DECIDED),
        (pl.col(w.OPP_LATE) & pl.col(w.RC_LIST).is_not_null(), s.UNRATED_AT_START),
        (~opponent_rated, s.UNRATED_OPPONENT),
        (pl.col(w.RO_LIST).is_null(), s.UNRATED_PLAYER),
        (gap.fill_null(False), s.GAP),
    )
    return _first_of(reasons, otherwise=s.COUNTED).cast(pl.UInt8)


def _first_of(cases: tuple[tuple[pl.Expr, int], ...], *, otherwise: int) -> pl.Expr:
    """The value of the first case whose condition holds (``pl.when(...).then(...)`` in order), else ``otherwise``."""
    (condition, value), *others = cases
    chain: Any = pl.when(condition).then(value)  # a Then, then ChainedThen
    for condition, value in others:
        chain = chain.when(condition).then(value)
    return cast(pl.Expr, chain.otherwise(otherwise))


def rate_chunk(chunk: Chunk, list_rating: pl.Series, rules: RuleSet) -> RatedSides:
    """The map's rating step: both sides of every row of ``chunk`` rated (:func:`rate`).

    Args:
        chunk: Consecutive rows of the period table.
        list_rating: The rating on the list in force by dense index (``Prepared.list_rating``).
        rules: The period's rule set.

    Returns:
        The white and the black sides, columns :data:`~elo_batch.engine.schema.RATED_SIDE`.
    """
    row = [s.ONE_SIDED, s.FORFEIT, s.DUPLICATE, w.EVENT_RULE]
    if rules.cap_once_per_event and w.WHITE_UP not in chunk.rows.columns:
        raise InternalError(
            f"rule set {rules.name}: the period table has no 400-point upgrade marks",
            hint="this is a bug in elo-batch: the pre-pass must be given the rule set "
            "(elo_batch.engine.prepass.prepare(..., rules=rules)); please report it.",
        )
    white, black = pl.collect_all(
        [
            rate(
                chunk.rows.lazy().select(*row, *side_view(is_white), *side_upgrade(is_white, rules)), list_rating, rules
            ).select(s.RATED_SIDE)
            for is_white in (True, False)
        ],
        engine="streaming",
    )
    return RatedSides(chunk.start, white, black)


def complete(sides: pl.LazyFrame, rules: RuleSet) -> pl.LazyFrame:
    """Rated game sides (``rating``, ``opponent_rating``, ``__code``, ``__pd100``, ``__score100``, see
    :func:`rate`, and ``__upgrade`` under the once-per-event 400-point rule) completed: ``__rated``,
    ``rating_diff`` (D after the 400-point rule), ``capped`` and ``__dev100`` (score - PD, hundredths),
    each null when the side does not count."""
    ro, rc, upgrade = pl.col(c.RATING), pl.col(c.OPPONENT_RATING), upgrade_of(rules)
    sides = sides.with_columns((pl.col(w.CODE) == s.COUNTED).alias(w.RATED))
    return sides.with_columns(
        pl.when(w.RATED).then(engine.capped_difference(ro, rc, rules, upgrade=upgrade)).alias(c.RATING_DIFF),
        pl.when(w.RATED).then(engine.is_capped(ro, rc, rules, upgrade=upgrade)).alias(c.CAPPED),
        (pl.col(w.SIDE_SCORE) - pl.col(w.PD)).alias(w.DEV),
    )
