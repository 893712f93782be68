"""The calculators behind ``elo-batch game`` and ``elo-batch tournament``: one game, or one player's event.

The arithmetic is the engine's (:mod:`elo_batch.engine.expressions`) applied to a small frame of game sides, under
the same rule sets (:mod:`elo_batch.rules`) as ``elo-batch run``; nothing here re-implements it. Never
prints or exits: the CLI renders the results.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import polars as pl

from elo_batch.contract.schemas import ONE_SIDED_FORFEITS, SCORES
from elo_batch.engine import expressions as engine
from elo_batch.errors import InputDataError, UsageError, option
from elo_batch.rules.bounds import RATING_RANGE, rating_out_of_range
from elo_batch.rules.sets import K_2024, RuleSet

#: K of the calculators when neither ``--k`` nor the rule set fixes one (the K of most adult players).
DEFAULT_K = K_2024.established


@dataclass(frozen=True)
class SideResult:
    """One player's side of a game, or one game of a tournament, as the rules rate it.

    Attributes:
        rating: Ro, rating points. opponent_rating: Rc, rating points.
        k: K used for this game (after the 700 rule in a tournament).
        score: The player's score (1, 0.5, 0), None for a forfeit.
        rating_diff: D = Ro - Rc after the 400-point rule, None for a forfeit.
        capped: Whether the 400-point rule changed D.
        expected: PD, the expected score (0..1), None for a forfeit.
        k_change: K x (score - PD), unrounded, rating points; None for a forfeit.
        counted: False for a forfeit (B.02 5.1: never rated).
    """

    rating: float
    opponent_rating: float
    k: int
    score: float | None
    rating_diff: float | None
    capped: bool | None
    expected: float | None
    k_change: float | None
    counted: bool


@dataclass(frozen=True)
class Change:
    """A rating change: exact, as rounded by the rules, and the new rating."""

    exact: float
    rounded: float
    new_rating: float


@dataclass(frozen=True)
class GameResult:
    """``elo-batch game``: both sides of one game, and player A's change for each possible result.

    Attributes:
        rules: The rule set applied.
        a, b: Each side (``a.score`` None when no result was given).
        change_a, change_b: The change of each side for the given result (None without a result).
        outcomes_a: Player A's change for ``win``, ``draw`` and ``loss``.
    """

    rules: RuleSet
    a: SideResult
    b: SideResult
    change_a: Change | None
    change_b: Change | None
    outcomes_a: dict[str, Change]


@dataclass(frozen=True)
class TournamentResult:
    """``elo-batch tournament``: one player's games against opponents known by rating.

    Attributes:
        rules: The rule set applied.
        rating: The player's pre-tournament rating. k: K given; k_used: after the 700 rule.
        games: One entry per input line, in order (forfeits included, not counted).
        n: Rated games. score: Points scored in them. expected: Sum of their PD.
        change: Sum of K x (score - PD), rounded once (or as the rule set's rounding says).
        performance: Rp = Ra + dp over the rated games (None without one).
        opponents_average: Ra, rounded half up.
    """

    rules: RuleSet
    rating: float
    k: int
    k_used: int
    games: tuple[SideResult, ...]
    n: int
    score: float
    expected: float
    change: Change
    performance: int | None
    opponents_average: int | None


def parse_score(text: str) -> int | None:
    """A player's score token as hundredths (100, 50, 0), or None for a forfeit (``+`` / ``-``).

    Raises:
        ValueError: not a score.

    >>> parse_score("1"), parse_score("½"), parse_score("0"), parse_score("+")
    (100, 50, 0, None)
    """
    token = text.strip()
    if token in SCORES:
        return SCORES[token]
    if token in ONE_SIDED_FORFEITS:
        return None
    raise ValueError(f"{text!r} is not a score")


def rate_game(
    rating_a: float, rating_b: float, score_a: int | None, *, rules: RuleSet, k_a: int, k_b: int
) -> GameResult:
    """Rate one game between A and B with the ratings given, as a FIDE or Elo calculator does.

    Args:
        rating_a, rating_b: Ratings used for the game, rating points.
        score_a: A's score in hundredths (100, 50, 0), or None to show only the outcomes.
        rules: The rule set (expected score, 400-point rule, rounding).
        k_a, k_b: Each player's K.

    Returns:
        Both sides, the changes for the given result, and A's change for a win, a draw and a loss.

    Raises:
        UsageError: a rating outside 0 < rating < 3500.

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3.1-8.3.4 and table 8.1.2; ``fide-rules.md`` TV-01..TV-08.
    """
    _check_ratings(rules, rating_a, rating_b)
    outcomes = (100, 50, 0)
    scores = [score_a, 100 - score_a if score_a is not None else None, *outcomes]
    frame = pl.DataFrame(
        {
            "ro": [rating_a, rating_b, rating_a, rating_a, rating_a],
            "rc": [rating_b, rating_a, rating_b, rating_b, rating_b],
            "k": [k_a, k_b, k_a, k_a, k_a],
            "score100": [50 if s is None else s for s in scores],
        },
        schema={"ro": _rating_dtype(rules), "rc": _rating_dtype(rules), "k": pl.Int64, "score100": pl.Int64},
        strict=False,
    )
    rows = _rate_sides(frame, rules).with_columns(_change(pl.col("kdev100"), rules).alias("change"))
    sides = [_side(row, score) for row, score in zip(rows.iter_rows(named=True), scores, strict=True)]
    changes = [_made(row["ro"], row["kdev100"], row["change"]) for row in rows.iter_rows(named=True)]
    return GameResult(
        rules=rules,
        a=sides[0],
        b=sides[1],
        change_a=changes[0] if score_a is not None else None,
        change_b=changes[1] if score_a is not None else None,
        outcomes_a=dict(zip(("win", "draw", "loss"), changes[2:], strict=True)),
    )


def rate_tournament(
    rating: float, games: list[tuple[float, int | None]], *, rules: RuleSet, k: int
) -> TournamentResult:
    """Rate one player's event against opponents known by their rating, with pre-tournament ratings.

    Args:
        rating: The player's rating on the list in force, rating points.
        games: (opponent rating, score in hundredths or None for a forfeit), in playing order.
        rules: The rule set (expected score, 400-point rule, 700 rule, rounding).
        k: The player's K before the 700 rule.

    Returns:
        Each game's contribution K x (score - PD), their sum rounded once (FIDE), the expected score and
        the performance rating.

    Raises:
        UsageError: no games, or a rating outside 0 < rating < 3500.

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3.1-8.3.4 (sum, then round once; 700 rule); Title
        Regulations (B.01, 2024) 1.4.8 for the performance rating; ``fide-rules.md`` TV-11, TV-14, TV-21.
    """
    if not games:
        raise UsageError("no games to rate", hint="give one line 'opponent_rating | result' per game (e.g. 1900 | 1).")
    _check_ratings(rules, rating, *(opponent for opponent, _ in games))
    n = sum(s is not None for _, s in games)
    rows = _tournament_rows(rating, games, rules=rules, k=k, n=n)
    totals = _tournament_totals(rows, rules)
    sides = tuple(
        _side(row, score) for row, score in zip(rows.iter_rows(named=True), [s for _, s in games], strict=True)
    )
    return TournamentResult(
        rules=rules,
        rating=rating,
        k=k,
        k_used=int(rows["k"][0]),
        games=sides,
        n=n,
        score=(totals["w100"] or 0) / 100,
        expected=(totals["pd100"] or 0) / 100,
        change=_made(rating, totals["kdev100"] or 0, totals["change"] or 0),
        performance=totals["rp"] if n else None,
        opponents_average=totals["ra"] if n else None,
    )


def _tournament_rows(
    rating: float, games: list[tuple[float, int | None]], *, rules: RuleSet, k: int, n: int
) -> pl.DataFrame:
    """One row per game of the tournament, rated (:func:`_rate_sides`) with K after the 700 rule over the
    ``n`` rated games; a forfeit's D, capped, PD and K x (score - PD) null."""
    frame = pl.DataFrame(
        {
            "ro": [rating] * len(games),
            "rc": [opponent for opponent, _ in games],
            "score100": [50 if s is None else s for _, s in games],
            "forfeit": [s is None for _, s in games],
        },
        schema={"ro": _rating_dtype(rules), "rc": _rating_dtype(rules), "score100": pl.Int64, "forfeit": pl.Boolean},
        strict=False,
    )
    k_used = engine.k_after_700_rule(pl.lit(k, pl.Int64), pl.lit(max(n, 1))) if rules.rule_700 else pl.lit(k)
    return _rate_sides(frame.with_columns(k_used.cast(pl.Int64).alias("k")), rules, one_event=True).with_columns(
        pl.when(~pl.col("forfeit")).then(pl.col(name)).alias(name) for name in ("d", "capped", "pd100", "kdev100")
    )


def _tournament_totals(rows: pl.DataFrame, rules: RuleSet) -> dict[str, Any]:
    """The tournament's sums over its rated games: K x (score - PD) and the change (rounded once, or each
    game's with ``rounding="game"``), score, PD, and the performance rating Rp and Ra (B.01 1.4.8)."""
    rated = ~pl.col("forfeit")
    rp, ra = engine.performance_rating(
        pl.col("rc").filter(rated).sum().cast(pl.Int64),
        rated.sum().cast(pl.Int64),
        (pl.col("score100").filter(rated) // 50).sum().cast(pl.Int64),
    )
    per_game = _change(pl.col("kdev100"), rules).sum() if rules.rounds_each_game else None
    return rows.select(
        pl.col("kdev100").sum().alias("kdev100"),
        (per_game if per_game is not None else _change(pl.col("kdev100").sum(), rules)).alias("change"),
        pl.col("score100").filter(rated).sum().alias("w100"),
        pl.col("pd100").filter(rated).sum().alias("pd100"),
        rp.alias("rp"),
        ra.alias("ra"),
    ).row(0, named=True)


def parse_results(text: str, source: str) -> list[tuple[float, int | None]]:
    """Lines ``opponent_rating | result`` (also separated by ``,`` ``;`` a tab or spaces) as games.

    Blank lines and ``#`` comments are skipped; a first line naming the columns (``opponent_rating |
    result``) is a header. Results: 1, 0.5 (½, 1/2, =), 0, or ``+`` / ``-`` for a forfeit (not rated).

    Args:
        text: The lines. source: Their file name (``<stdin>`` for standard input), for messages.

    Returns:
        (opponent rating, score in hundredths or None for a forfeit) per game line, in order.

    Raises:
        InputDataError: a line that is not a rating and a result; the message names the line.

    >>> parse_results("opponent_rating | result\\n1900 | 1\\n# a comment\\n1700, ½\\n2300\\t0", "x")
    [(1900.0, 100), (1700.0, 50), (2300.0, 0)]
    """
    games: list[tuple[float, int | None]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = [f for f in re.split(r"\s*[|,;\t]\s*|\s+", line) if f]
        if not games and [f.lower() for f in fields] in (["opponent_rating", "result"], ["opponent_rating", "score"]):
            continue
        if len(fields) != 2:
            raise InputDataError(
                f"{raw.strip()!r} is not 'opponent_rating | result'",
                path=source,
                row=number,
                hint="one game per line: the opponent's rating and your result, e.g. '1900 | 1' or '1900 | 0.5'.",
            )
        rating_text, result_text = fields
        if not re.fullmatch(r"\d+(\.\d+)?", rating_text):
            raise InputDataError(
                f"{rating_text!r} is not a rating",
                path=source,
                row=number,
                column="opponent_rating",
                value=rating_text,
                hint="write the opponent's rating as plain digits (1900).",
            )
        try:
            score = parse_score(result_text)
        except ValueError:
            raise InputDataError(
                f"{result_text!r} is not a result",
                path=source,
                row=number,
                column="result",
                value=result_text,
                hint="use 1, 0.5 (or ½, =) or 0; + or - for a forfeit.",
            ) from None
        games.append((float(rating_text), score))
    return games


def _check_ratings(rules: RuleSet, *ratings: float) -> None:
    out_of_range = pl.select(rating_out_of_range(pl.lit(pl.Series(ratings, dtype=pl.Float64)))).to_series()
    for value, out in zip(ratings, out_of_range, strict=True):
        if out:
            raise UsageError(f"rating {value:g} is out of range", hint=f"ratings are rating points, {RATING_RANGE}.")
        if rules.whole_ratings and value != int(value):
            raise UsageError(
                f"rating {value:g} is not a whole number",
                hint=f"ratings are integers; only {option('rounding', 'none')} keeps fractional ratings.",
            )


def _rating_dtype(rules: RuleSet) -> pl.DataType:
    return pl.Int64() if rules.whole_ratings else pl.Float64()


def _rate_sides(frame: pl.DataFrame, rules: RuleSet, *, one_event: bool = False) -> pl.DataFrame:
    """D after the 400-point rule, PD (hundredths) and K x (score - PD) (hundredths) for each row.

    Under the once-per-event 400-point rule (2022), each row is its own event (``game``), or, with
    ``one_event``, the rows are one player's event (``tournament``): the upgrade is the played game of the
    largest difference over the limit, the first of several (B.02 (2022) 8.3.1).
    """
    ro, rc = pl.col("ro"), pl.col("rc")
    upgrade = None
    if rules.cap_once_per_event:
        upgrade = pl.lit(True)
        if one_event:
            over = pl.when(~pl.col("forfeit") & (ro - rc > rules.cap.limit)).then(ro - rc)
            upgrade = (pl.int_range(pl.len()) == over.arg_max()).fill_null(False)
    return (
        frame.with_columns(
            engine.capped_difference(ro, rc, rules, upgrade=upgrade).alias("d"),
            engine.is_capped(ro, rc, rules, upgrade=upgrade).alias("capped"),
        )
        .with_columns(engine.expected_score_100(pl.col("d"), rules).alias("pd100"))
        .with_columns((pl.col("k") * (pl.col("score100") - pl.col("pd100"))).alias("kdev100"))
    )


def _change(x100: pl.Expr, rules: RuleSet) -> pl.Expr:
    """A change in hundredths rounded as the rules say: whole points 0.5 away from zero, or 2 decimals."""
    if not rules.whole_ratings:
        return (x100 / 100.0).round(2, mode="half_away_from_zero")
    return engine.round_half_away_100(x100)


def _side(row: dict[str, Any], score100: int | None) -> SideResult:
    counted = row["pd100"] is not None
    return SideResult(
        rating=row["ro"],
        opponent_rating=row["rc"],
        k=int(row["k"]),
        score=score100 / 100 if score100 is not None else None,
        rating_diff=row["d"] if counted else None,
        capped=row["capped"] if counted else None,
        expected=row["pd100"] / 100 if counted else None,
        k_change=row["kdev100"] / 100 if counted else None,
        counted=counted,
    )


def _made(rating: float, kdev100: float, change: float) -> Change:
    return Change(exact=kdev100 / 100, rounded=change, new_rating=rating + change)
