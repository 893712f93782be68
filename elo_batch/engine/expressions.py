"""The rating arithmetic as pure polars expressions over whole columns; no I/O, no collect, no loops.

Units: ratings and differences in rating points; scores, expected scores (PD) and their sums in
integer hundredths wherever FIDE is exact (table 8.1.2), so that a period's sum is exact and is rounded
once. Only the logistic formula (``expected="formula"``) works in floating point, as it must.

The numbers of the regulations (400, 2650, the K ladder, 700, 1800, 2200, ...) are not written here:
each function takes the part of the rule set it applies (:mod:`elo_batch.rules.sets`), by default the
FIDE rules in force, or the rule set itself where it asks one of its modes (the 400-point rule, the
expected score).
"""

from __future__ import annotations

import polars as pl

from elo_batch.rules.sets import (
    FIRST_RATING_2024,
    K_2024,
    LOGISTIC_SCALE,
    FirstRatingRule,
    KRule,
    RuleSet,
)
from elo_batch.rules.tables import TABLE_TAIL, dp_by_p100, pd_high_by_diff


def capped_difference(ro: pl.Expr, rc: pl.Expr, rules: RuleSet, *, upgrade: pl.Expr | None = None) -> pl.Expr:
    """Rating difference D = Ro - Rc after the 400-point rule, for the side whose rating is ``ro``.

    Args:
        ro: The player's rating used for the game, rating points (one per game side).
        rc: The opponent's rating used for the game, rating points.
        rules: The rule set whose 400-point rule applies (``cap_400``, the numbers of ``cap``):
            ``exempt-2650``: |D| over ``cap.limit`` (400) counts as ``cap.limit`` only when
            Ro < ``cap.exempt_from`` (2650); ``always``: for every player; ``once-per-event``: D over
            ``cap.limit`` counts as ``cap.limit`` only where ``upgrade`` is true (the player's one upgrade
            of the event), D under -``cap.limit`` always counts as -``cap.limit``; ``never``: the real
            difference.
        upgrade: With ``once-per-event``: True on the side's game of the event where it benefits.

    Returns:
        D in rating points, same dtype as ``ro - rc``.

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3.1, as amended 1 Oct 2025 ("for players rated below
        2650"); before that amendment the cap applied to everyone; B.02 (2022) 8.3.1: "In any
        tournament, a player may benefit from only one upgrade under this rule, for the game in which
        the rating difference is greatest". ``fide-rules.md`` sections 0 and 3.1.

    >>> import polars as pl
    >>> from elo_batch.rules.sets import FIDE_2022_01, FIDE_2025_10
    >>> df = pl.DataFrame({"ro": [2700, 2100, 2649], "rc": [2100, 2700, 2149]})
    >>> df.select(capped_difference(pl.col("ro"), pl.col("rc"), FIDE_2025_10).alias("d"))["d"].to_list()
    [600, -400, 400]
    >>> once = capped_difference(pl.col("ro"), pl.col("rc"), FIDE_2022_01, upgrade=pl.lit(False))
    >>> df.select(once.alias("d"))["d"].to_list()
    [600, -400, 500]
    """
    diff, cap = ro - rc, rules.cap
    if not rules.cap_applies:
        return diff
    capped = diff.clip(-cap.limit, cap.limit)
    if rules.cap_once_per_event:
        return pl.when((diff > cap.limit) & ~_upgrade(upgrade)).then(diff).otherwise(capped)
    if rules.cap_exempts_top:
        return pl.when(ro >= cap.exempt_from).then(diff).otherwise(capped)
    return capped


def is_capped(ro: pl.Expr, rc: pl.Expr, rules: RuleSet, *, upgrade: pl.Expr | None = None) -> pl.Expr:
    """True where the 400-point rule changed D for this side (see :func:`capped_difference`)."""
    if not rules.cap_applies:
        return pl.lit(False)
    diff, cap = ro - rc, rules.cap
    over = diff.abs() > cap.limit
    if rules.cap_once_per_event:
        return (diff < -cap.limit) | ((diff > cap.limit) & _upgrade(upgrade))
    if rules.cap_exempts_top:
        return over & (ro < cap.exempt_from)
    return over


def _upgrade(upgrade: pl.Expr | None) -> pl.Expr:
    if upgrade is None:
        raise ValueError("the once-per-event 400-point rule needs each side's upgrade flag")
    return upgrade.fill_null(False)


def expected_score_100(d: pl.Expr, rules: RuleSet) -> pl.Expr:
    """Expected score PD of one game for the player whose rating difference is D, in hundredths.

    Args:
        d: D after the 400-point rule, rating points (whole numbers for the table; a fractional D is
            rounded to the nearest whole number, half away from zero, before the lookup).
        rules: The rule set whose expected score applies: ``expected="table"`` (FIDE table 8.1.2) or
            ``formula`` (100 / (1 + 10^(-D/400))).

    Returns:
        PD in hundredths: Int64 0..100 for the table (the H column for D >= 0, the L column for
        D < 0; |D| > 735 gives 100 / 0), Float64 for the formula.

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3.2 a and table 8.1.2 (``fide-rules.md`` section 1).

    >>> import polars as pl
    >>> from elo_batch.rules.sets import FIDE_2025_10
    >>> df = pl.DataFrame({"d": [0, 3, 4, -4, 100, -100, 735, 736, -1000]})
    >>> df.select(expected_score_100(pl.col("d"), FIDE_2025_10).alias("pd"))["pd"].to_list()
    [50, 50, 51, 49, 64, 36, 99, 100, 0]
    """
    if not rules.table_expected:
        return 100.0 / (1.0 + 10.0 ** divide(-d.cast(pl.Float64), LOGISTIC_SCALE))
    magnitude = d.abs().round(0, mode="half_away_from_zero").cast(pl.Int64).clip(0, TABLE_TAIL)
    high = pl.lit(pd_high_by_diff()).gather(magnitude)
    return pl.when(d >= 0).then(high).otherwise(100 - high)


def divide(x: pl.Expr, by: float) -> pl.Expr:
    """``x / by`` for a Float64 column, with the same digits whatever the number of rows.

    polars divides a column of several rows by a number as a multiplication by its reciprocal, but a
    column of one row by a true division, whose last digit can differ; the explicit multiplication
    gives the digits of the many-row division for any number of rows, so that the logistic formula's
    values do not depend on how the games are cut into chunks.

    >>> import polars as pl
    >>> one, many = pl.DataFrame({"x": [10.0]}), pl.DataFrame({"x": [10.0, 0.0]})
    >>> one.select(pl.col("x") / 3.0).item(), many.select(pl.col("x") / 3.0).item(0, 0)
    (3.3333333333333335, 3.333333333333333)
    >>> one.select(divide(pl.col("x"), 3.0)).item()
    3.333333333333333
    """
    return x * (1.0 / by)


def round_half_away_100(x100: pl.Expr) -> pl.Expr:
    """Round a value in hundredths to whole points, 0.5 away from zero.

    Args:
        x100: Hundredths of a rating point (Int64 exact, or Float64 for the formula).

    Returns:
        Whole rating points, Int64: sign(x) * floor((|x| + 50) / 100).

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3.4 ("0.5 is rounded away from zero");
        ``fide-rules.md`` section 4 (exact integer recipe).

    >>> import polars as pl
    >>> df = pl.DataFrame({"x": [250, -250, -50, 49, -49, 150, -150, 9248]})
    >>> df.select(round_half_away_100(pl.col("x")).alias("r"))["r"].to_list()
    [3, -3, -1, 0, 0, 2, -2, 92]
    """
    return (x100.sign() * ((x100.abs() + 50) // 100)).cast(pl.Int64)


def k_factor(
    *,
    year: int,
    rating: pl.Expr,
    k_list: pl.Expr,
    birth_year: pl.Expr,
    games_total: pl.Expr,
    reached_2400: pl.Expr,
    reached_2300: pl.Expr,
    ladder: KRule = K_2024,
) -> pl.Expr:
    """K for a rating period from the list: the printed K when there is one, else from the player's state.

    Args:
        year: Calendar year of the period's list (the junior rule counts year - birth_year <= 18).
        rating: Rating on the list, points (null when unrated).
        k_list: K printed on the list (null when not given).
        birth_year, games_total: Player attributes (null when unknown).
        reached_2400, reached_2300: Whether a published rating ever reached 2400 / 2300
            (``ladder.top_from`` / ``ladder.junior_below``; already defaulted, see :func:`reached`).
        ladder: The K rules (the rule set's ``k``).

    Returns:
        K (Int64): 10 once a published rating reached 2400; else 40 for a junior (year - birth year
        <= 18) never published at 2300+; else 40 while fewer than 30 rated games; else 20 (the values
        of ``ladder``). Unknown attributes count as an established adult.

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3.3; precedence as in ``fide-rules.md`` section 3.3.
    """
    derived = (
        pl.when(reached_2400)
        .then(ladder.top)
        .when(is_junior(year, birth_year, reached_2300, ladder=ladder))
        .then(ladder.junior)
        .when(games_total.is_not_null() & (games_total < ladder.new_player_games))
        .then(ladder.new_player)
        .otherwise(ladder.established)
    )
    return pl.coalesce(k_list, derived).cast(pl.Int64)


def k_for_next_list(
    *,
    year: int,
    k_list: pl.Expr,
    junior_on_old_list: pl.Expr,
    birth_year: pl.Expr,
    games_total: pl.Expr,
    reached_2400: pl.Expr,
    reached_2300: pl.Expr,
    ladder: KRule = K_2024,
) -> pl.Expr:
    """The K printed on the new list, recomputed for the next month from the updated state.

    As :func:`k_factor` with the next list's year, the updated ``games_total`` and the updated
    2400/2300 flags, with one exception: a printed K of 40 that the junior rule does not explain is
    the new-player K, and is kept while ``games_total`` is unknown (the 30th game cannot be seen).

    Args:
        year: Calendar year of the new list (the month after the period).
        k_list: K printed on the list in force (null when not given).
        junior_on_old_list: The junior rule gave K 40 on the list in force.
        birth_year: Year of birth (null when unknown).
        games_total: Rated games including this period's (null when unknown).
        reached_2400, reached_2300: Whether a published rating, the new one included, reached 2400 / 2300.
        ladder: The K rules (the rule set's ``k``).

    Returns:
        K (Int64).

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3.3 (``fide-rules.md`` section 3.3, TV-24).
    """
    derived = k_factor(
        year=year,
        rating=pl.lit(None),
        k_list=pl.lit(None, pl.Int64),
        birth_year=birth_year,
        games_total=games_total,
        reached_2400=reached_2400,
        reached_2300=reached_2300,
        ladder=ladder,
    )
    new_player_k = (k_list == ladder.new_player) & ~junior_on_old_list & games_total.is_null() & ~reached_2400
    return pl.when(new_player_k.fill_null(False)).then(ladder.new_player).otherwise(derived).cast(pl.Int64)


def is_junior(year: int, birth_year: pl.Expr, reached_2300: pl.Expr, *, ladder: KRule = K_2024) -> pl.Expr:
    """The junior rule: year - birth year <= 18 (``ladder.junior_age``) and never published at 2300+
    (``reached_2300``, see ``ladder.junior_below``); False when unknown.

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3.3 ("until the end of the year of their 18th birthday,
        as long as their rating remains under 2300"); ``fide-rules.md`` section 3.3 and U9.
    """
    return (birth_year.is_not_null() & (year - birth_year <= ladder.junior_age) & ~reached_2300).fill_null(False)


def reached(
    flag: pl.Expr, rating: pl.Expr, threshold: int, *, k_list: pl.Expr | None = None, ladder: KRule = K_2024
) -> pl.Expr:
    """Whether a published rating has reached ``threshold``: the list's flag, else ``rating >= threshold``.

    With ``k_list`` (for 2400, ``ladder.top_from``), a printed K of 10 (``ladder.top``) also means 2400
    was reached (FIDE prints K 10 only then, B.02 8.3.3).
    """
    default = rating.fill_null(0) >= threshold
    if k_list is not None:
        default = default | (k_list.fill_null(0) == ladder.top)
    return pl.coalesce(flag, default)


def k_after_700_rule(k: pl.Expr, n: pl.Expr, ladder: KRule = K_2024) -> pl.Expr:
    """K reduced to the largest whole number with K x n <= 700 when K x n > 700 (700: ``ladder.limit_700``).

    Args:
        k: K of the period (Int64). n: rated games of the period (all events together).
        ladder: The K rules (the rule set's ``k``).

    Returns:
        floor(700 / n) where K x n > 700, else K (exactly 700 does not trigger the rule).

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3.3; ``fide-rules.md`` TV-11.

    >>> import polars as pl
    >>> df = pl.DataFrame({"k": [40, 40, 20, 20, 20, 10, 10], "n": [17, 18, 35, 36, 39, 70, 71]})
    >>> df.select(k_after_700_rule(pl.col("k"), pl.col("n")).alias("k"))["k"].to_list()
    [40, 38, 20, 19, 17, 10, 9]
    """
    limit = ladder.limit_700
    return pl.when(k * n > limit).then(limit // n).otherwise(k).cast(pl.Int64)


def half_up_div(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator rounded to a whole number, 0.5 up (both non-negative integers)."""
    return (2 * numerator + denominator) // (2 * denominator)


def performance_rating(opponents_sum: pl.Expr, n: pl.Expr, w2: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Performance rating Rp = Ra + dp over n games against rated opponents.

    Args:
        opponents_sum: Sum of the opponents' ratings, points (Int64).
        n: Games (> 0; rows with n = 0 give null).
        w2: Score in half points (Int64).

    Returns:
        (Rp, Ra): Ra = opponents' average rounded to a whole number, 0.5 up; p = W / n as a whole
        percentage, 0.5 up; dp from table 8.1.1 (+-800 at 100 % / 0 %).

    References:
        FIDE Title Regulations (B.01, 2024) 1.4.7, 1.4.8 and table 1.4.9 (= B.02 table 8.1.1);
        ``fide-rules.md`` section 9, TV-21.
    """
    ra = pl.when(n > 0).then(half_up_div(opponents_sum, n))
    p100 = half_up_div(100 * w2, 2 * n)
    rp = pl.when(n > 0).then(ra + pl.lit(dp_by_p100()).gather(p100.clip(0, 100).fill_null(0)))
    return rp.cast(pl.Int64), ra.cast(pl.Int64)


def initial_rating(
    opponents_sum: pl.Expr, n: pl.Expr, w2: pl.Expr, *, rule: FirstRatingRule = FIRST_RATING_2024
) -> pl.Expr:
    """Initial rating Ru of an unrated player from a pool of games against rated opponents.

    2024 (``rule.per_half_point`` None): two fictitious opponents rated 1800, both drawn, are added
    (``rule.fictitious_games``, ``rule.fictitious_rating``): N = n + 2, S = sum + 3600, W' = W + 1;
    Ra = S / N; p = W' / N rounded to two decimals (half up); Ru = Ra + dp(p), rounded to a whole number
    (half up), at most 2200 (``rule.maximum``).

    2022 (``rule.per_half_point`` 20): Ra = sum / n; at 50 % Ru = Ra; above, Ru = Ra + 20 for each half
    point scored over 50 % (2W - n half points); below, Ru = Ra + dp(p), p = W / n rounded to two
    decimals (half up); Ru rounded to a whole number (half up); no maximum.

    Args:
        opponents_sum: Sum of the pooled opponents' ratings, points (Int64).
        n: Pooled games against rated opponents (Int64).
        w2: Pooled score in half points (Int64).
        rule: The numbers of first ratings (the rule set's ``first_rating``).

    Returns:
        Ru in rating points (Int64); whether it is published (n >= 5, Ru at or above the floor) is
        decided by the caller.

    References:
        FIDE Rating Regulations (B.02, 2024) 8.2.2-8.2.3 and table 8.1.1; exact integer recipe and
        the published first rating F-N01 (1922) in ``fide-rules.md`` section 6. B.02 (2022) 8.2.2-8.2.3
        (``fide-rules.md`` section 0, [S2]).

    >>> import polars as pl
    >>> from elo_batch.rules.sets import FIRST_RATING_2022
    >>> pool = pl.DataFrame({"s": [9000, 9000, 9000], "n": [5, 5, 5], "w2": [5, 7, 3]})
    >>> ru = initial_rating(pl.col("s"), pl.col("n"), pl.col("w2"), rule=FIRST_RATING_2022).alias("ru")
    >>> pool.select(ru)["ru"].to_list()  # 50 %: Ra; 3.5/5: + 2 x 20; 1.5/5 = .30: dp -149
    [1800, 1840, 1651]
    """
    extra = rule.fictitious_games  # each drawn: one half point each
    big_n = n + extra
    p100 = half_up_div(100 * (w2 + extra), 2 * big_n)
    dp = pl.lit(dp_by_p100()).gather(p100.clip(0, 100))
    s = opponents_sum + extra * rule.fictitious_rating
    if rule.per_half_point is not None:  # the 2022 rule: + per_half_point for each half point above 50 %
        above = w2 - n  # half points over 50 % (50 % of n games is n half points)
        dp = pl.when(above > 0).then(rule.per_half_point * above).when(above == 0).then(0).otherwise(dp)
    ru = (2 * s + 2 * big_n * dp + big_n) // (2 * big_n)
    if rule.maximum is None:
        return ru.cast(pl.Int64)
    return pl.min_horizontal(ru, pl.lit(rule.maximum)).cast(pl.Int64)
