"""Changes a rule set makes to a list besides rating its games: the rapid and blitz seed, the one-time changes.

- Before a period (the list in force): under the rapid and blitz rules from 2024-03, a player unrated on
  the rapid (blitz) list who plays in the period and has a ``standard_rating`` is rated at it and counts
  as rated, for himself and his opponents (R&B 7.2.1: "their standard rating is used for rating
  calculation. Such a player is considered to be rated, and 7.2.2 to 7.2.5 below do not apply"). His K is
  that of a player new to the list (K 40, R&B 7.3.3 = B.02 8.3.3: "a player new to the rating list until
  they have completed events with at least 30 games"): his rapid ``games_total`` counts from 0, and his
  standard rating is not a published rapid rating, so it does not make K 10 or end the junior K (the
  list's own ``k``, ``reached_2400``, ``reached_2300`` win where given). A pool of earlier rapid games
  waiting for a first rating is not used (7.2.2 to 7.2.5 do not apply) and is dropped.
- After a period (the new list): the one-time change of the rule set (``RuleSet.one_off``), after the
  floor of the period's own rules: the compression of the 1 March 2024 lists (below 2000,
  R + 0.4 x (2000 - R), rounded) and the raise of the 1 October 2022 rapid and blitz lists (a rating
  more than 100 below the ``standard_rating`` becomes standard - 100). Unrated players and their pools
  are not changed. The ``standard_rating`` of a rapid or blitz list is the player's standard rating and
  follows the standard list: it is compressed too (:func:`standard_after`).
"""

from __future__ import annotations

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.contract.pending import POOL
from elo_batch.contract.tables import GamesInput
from elo_batch.rules.sets import Compression, Raise, RuleSet


def seed_from_standard(
    rating_list: pl.DataFrame | None, games: GamesInput, rules: RuleSet, *, period: str
) -> tuple[pl.DataFrame | None, list[str]]:
    """The list in force with the players R&B 7.2.1 rates at their standard rating, and what to say.

    Args:
        rating_list: The list in force (``LIST_SCHEMA`` columns first), or None.
        games: All checked game rows of the run (the players of ``period`` are seeded, no one else).
        rules: The period's rule set (``standard_seed``).
        period: Month of play, ``YYYY-MM``.

    Returns:
        The list (unchanged without ``standard_seed``, without a list or without ``standard_rating``)
        and the warnings: how many players were seeded, and pools dropped.

    References:
        FIDE Rapid and Blitz Rating Regulations (2024) 7.2.1, 7.3.3; ``fide-rules.md`` section 6.
    """
    if rating_list is None or not rules.standard_seed or c.STANDARD_RATING not in rating_list.columns:
        return rating_list, []
    rows = games.rows.lazy().filter(pl.col(c.PERIOD) == period)
    playing = (
        pl.concat([rows.select(pl.col(side).cast(pl.String).alias(c.PLAYER_ID)) for side in (c.WHITE_ID, c.BLACK_ID)])
        .drop_nulls()
        .unique()
        .collect()
        .to_series()
    )
    return seed_players(rating_list, playing, rules)


def seed_players(
    rating_list: pl.DataFrame | None, playing: pl.Series, rules: RuleSet
) -> tuple[pl.DataFrame | None, list[str]]:
    """:func:`seed_from_standard` for the players of the period given as their ids (as text): what an
    engine calls that finds them its own way.

    Args:
        rating_list: The list in force, or None.
        playing: The ids (text) of the players of the period's game rows.
        rules: The period's rule set.
    """
    if rating_list is None or not rules.standard_seed or c.STANDARD_RATING not in rating_list.columns:
        return rating_list, []
    seeded = (
        pl.col(c.RATING).is_null()
        & pl.col(c.STANDARD_RATING).is_not_null()
        & pl.col(c.PLAYER_ID).cast(pl.String).is_in(playing.implode())
    )
    marked = rating_list.with_columns(seeded.alias(w.SEEDED))
    count = int(marked[w.SEEDED].sum())
    if not count:
        return rating_list, []
    dropped = int(marked.filter(pl.col(w.SEEDED) & pl.col(c.PENDING).is_not_null()).height)

    def when_seeded(value: pl.Expr, name: str) -> pl.Expr:
        return pl.when(pl.col(w.SEEDED)).then(value).otherwise(pl.col(name)).alias(name)

    seeded_list = marked.with_columns(
        when_seeded(pl.col(c.STANDARD_RATING).cast(pl.Float64), c.RATING),
        when_seeded(pl.col(c.GAMES_TOTAL).fill_null(0), c.GAMES_TOTAL),
        when_seeded(pl.col(c.REACHED_2400).fill_null(False), c.REACHED_2400),
        when_seeded(pl.col(c.REACHED_2300).fill_null(False), c.REACHED_2300),
        when_seeded(pl.lit(None, POOL), c.PENDING),
    ).drop(w.SEEDED)
    warnings = [
        f"{count} player(s) unrated on the {rules.list_kind} list were rated at their standard_rating and "
        "counted as rated (FIDE Rapid and Blitz Regulations 7.2.1), with the K of a player new to the list"
    ]
    if dropped:
        warnings.append(
            f"{dropped} of them had pooled {rules.list_kind} games waiting for a first rating: not used (7.2.1)"
        )
    return seeded_list, warnings


def one_off(rating: pl.Expr, rules: RuleSet, schema: pl.Schema) -> pl.Expr | None:
    """The points the rule set's one-time list change adds to a new rating.

    Args:
        rating: The new rating after the period and the floor (null: unrated), points.
        rules: The period's rule set (``one_off``, ``rounding``).
        schema: The players' columns (``standard_rating`` for the raise).

    Returns:
        The adjustment, or None when the period has no one-time change: 0 for a rated player not
        moved, null for an unrated one.

    References:
        ``fide-rules.md`` section 8 (compression, TV-22) and section 0 with [S18] (the raise of 2022).
    """
    change = rules.one_off
    if isinstance(change, Compression):
        adjustment = _compressed(rating, change, whole=rules.whole_ratings)
    elif isinstance(change, Raise):
        if c.STANDARD_RATING not in schema:
            adjustment = pl.lit(0)
        else:
            target = pl.col(c.STANDARD_RATING) - change.margin
            adjustment = pl.when(target > rating).then(target - rating).otherwise(0)
    else:
        return None
    return pl.when(rating.is_not_null()).then(adjustment)


def standard_after(rules: RuleSet, schema: pl.Schema) -> pl.Expr | None:
    """The new list's ``standard_rating``: the player's standard rating follows the standard list, so the
    compression of the 1 March 2024 lists applies to it as to ``rating`` (already emptied under the floor
    of the period's rules, :func:`elo_batch.engine.listinforce.unrate_below_floor`).

    Args:
        rules: The period's rule set (``one_off``, ``rounding``).
        schema: The players' columns.

    Returns:
        The column (its dtype kept where the ratings are whole, Float64 otherwise; null stays null), or
        None when it passes through unchanged: no compression this period, or no ``standard_rating``.

    References:
        ``fide-rules.md`` section 8 ("applied to rapid and blitz as well": the standard rating of a rapid
        list is a standard rating); R&B 7.2.1.
    """
    change = rules.one_off
    if not isinstance(change, Compression) or c.STANDARD_RATING not in schema:
        return None
    whole = rules.whole_ratings
    standard = pl.col(c.STANDARD_RATING)
    after = standard + _compressed(standard, change, whole=whole)
    return after.cast(schema[c.STANDARD_RATING] if whole else pl.Float64).alias(c.STANDARD_RATING)


def _compressed(rating: pl.Expr, change: Compression, *, whole: bool) -> pl.Expr:
    """What the compression adds to ``rating``: 0 from ``change.below`` up."""
    gap = pl.lit(change.below) - rating
    if whole:  # numerator x gap / denominator to the nearest whole number (never a tie: gap is whole)
        added = (2 * change.numerator * gap + change.denominator) // (2 * change.denominator)
    else:
        added = change.numerator * gap / change.denominator
    return pl.when(rating < change.below).then(added).otherwise(0)
