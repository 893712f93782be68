"""Dated rule sets: which FIDE (or classic Elo) rules rate a given period; no arithmetic here."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from elo_batch.errors import UsageError, option

Expected = Literal["table", "formula"]
Cap = Literal["exempt-2650", "always", "never"]
Rounding = Literal["period", "game", "none"]
ListKind = Literal["standard", "rapid", "blitz"]

#: First period (month of play) rated under a supported FIDE rule set.
FIRST_FIDE_PERIOD = "2024-03"


@dataclass(frozen=True)
class CapRule:
    """The 400-point rule (B.02 8.3.1): how far apart two ratings may count.

    Attributes:
        limit: A difference in rating of more than ``limit`` points counts as ``limit`` (8.3.1).
        exempt_from: Under ``cap_400="exempt-2650"`` (8.3.1 as amended 1 Oct 2025), a player rated
            ``exempt_from`` or more uses the real difference "in all cases".
    """

    limit: int
    exempt_from: int


@dataclass(frozen=True)
class KRule:
    """The development coefficient K and the 700 rule (B.02 8.3.3).

    Attributes:
        top: K once a published rating has reached ``top_from`` (for good).
        top_from: The rating that makes K ``top``.
        junior: K of a junior: until the end of the year of their ``junior_age``-th birthday (list
            year - birth year <= ``junior_age``), while never published at ``junior_below`` or more.
        junior_age: See ``junior``.
        junior_below: See ``junior``.
        new_player: K of a player new to the list, until ``new_player_games`` rated games.
        new_player_games: See ``new_player``.
        established: K of every other player.
        limit_700: When K x n exceeds it (n: the period's rated games), K becomes floor(limit / n).
    """

    top: int
    top_from: int
    junior: int
    junior_age: int
    junior_below: int
    new_player: int
    new_player_games: int
    established: int
    limit_700: int


@dataclass(frozen=True)
class FirstRatingRule:
    """The first (initial) rating of an unrated player (B.02 7.1.4, 8.2).

    Attributes:
        min_games: Games against rated opponents a first rating needs (7.1.4).
        window_months: Consecutive rating periods whose games are pooled, in months (7.1.4).
        fictitious_games: Fictitious opponents added to the pool, all scored as draws (8.2.2).
        fictitious_rating: Their rating (8.2.2).
        maximum: The highest initial rating (8.2.3).
    """

    min_games: int
    window_months: int
    fictitious_games: int
    fictitious_rating: int
    maximum: int


@dataclass(frozen=True)
class GapRule:
    """Rapid and blitz from 1 Dec 2024 (R&B 7.3.1): a game with a rating gap of ``gap`` or more, where a
    player is rated above ``above``, is not rated."""

    gap: int
    above: int


#: B.02 8.3.1: "a difference in rating of more than 400 points shall be counted ... as though it were a
#: difference of 400 points"; as amended 1 Oct 2025, only "for players rated below 2650".
CAP_400 = CapRule(limit=400, exempt_from=2650)
#: B.02 8.3.3: K 40 for a new player until 30 games; 20 while under 2400; 10 once a published rating
#: reached 2400; 40 for a junior until the end of the year of their 18th birthday while under 2300;
#: if K x n > 700, K is the largest whole number with K x n <= 700 (``fide-rules.md`` section 3.3).
K_2024 = KRule(
    top=10,
    top_from=2400,
    junior=40,
    junior_age=18,
    junior_below=2300,
    new_player=40,
    new_player_games=30,
    established=20,
    limit_700=700,
)
#: B.02 7.1.4 (5 games against rated opponents, pooled over at most 26 months) and 8.2.2-8.2.3 (two
#: fictitious opponents rated 1800, both drawn; at most 2200); ``fide-rules.md`` section 6.
FIRST_RATING_2024 = FirstRatingRule(
    min_games=5, window_months=26, fictitious_games=2, fictitious_rating=1800, maximum=2200
)
#: R&B 7.3.1, from 1 Dec 2024: a gap of 600 or more with a player rated above 2600 is not rated.
GAP_600 = GapRule(gap=600, above=2600)
#: The logistic formula of classic Elo (``expected="formula"``): PD = 1 / (1 + 10^(-D / 400)).
LOGISTIC_SCALE = 400
#: B.02 7.1.2: from 1 Mar 2024 a rating below 1400 is not published (it was 1000 before).
FLOOR_2024 = 1400
#: B.02 8.3.1 as amended 1 Oct 2025: the first period (month of play) that exempts players rated 2650+.
EXEMPT_2650_FROM = "2025-10"
#: R&B 7.3.1: the first period (month of play) of the 600/2600 rule.
GAP_600_FROM = "2024-12"


@dataclass(frozen=True)
class RuleSet:
    """One complete set of rating rules, named after the date it took effect.

    Every number of the regulations a rule set uses is one of its attributes, with its clause; the
    engine reads them from here.

    Attributes:
        name: ``fide-2024-03``, ``fide-2025-10``, ``elo``, or one of them with a suffix naming an override.
        expected: ``table`` (FIDE table 8.1.2, exact hundredths) or ``formula`` (1 / (1 + 10^(-D/400))).
        cap_400: ``exempt-2650``: a difference over ``cap.limit`` counts as ``cap.limit`` only for a
            player rated under ``cap.exempt_from`` (B.02 8.3.1 as amended 1 Oct 2025); ``always``: for
            every player (8.3.1 before that amendment); ``never``: no cap.
        k_rule: ``fide`` (K from the list or from ``k``, 8.3.3) or ``fixed`` (``k_fixed`` for everyone).
        k_fixed: The K of ``fixed`` (one K for every player; the 700 rule still applies if on).
        rule_700: Reduce K to floor(``k.limit_700`` / n) when K x n > ``k.limit_700`` (B.02 8.3.3).
        rounding: ``period`` (round K x sum once per period, 0.5 away from zero, B.02 8.3.4),
            ``game`` (round each game) or ``none`` (fractional ratings, 2 decimals).
        floor: A new rating below this makes the player unrated on the new list (1400 since
            1 Mar 2024, B.02 7.1.2); None: no floor.
        initial_ratings: Rate unrated players by B.02 8.2 (``first_rating``).
        gap_600_rule: Apply ``gap`` (rapid and blitz from 1 Dec 2024, R&B 7.3.1).
        list_kind: The rating list this rule set rates: ``standard``, ``rapid`` or ``blitz``.
        cap: The numbers of the 400-point rule (:data:`CAP_400`).
        k: The K ladder and the 700 rule (:data:`K_2024`).
        first_rating: The numbers of first ratings (:data:`FIRST_RATING_2024`).
        gap: The numbers of the 600/2600 rule (:data:`GAP_600`).
    """

    name: str
    expected: Expected
    cap_400: Cap
    k_rule: Literal["fide", "fixed"]
    k_fixed: int | None
    rule_700: bool
    rounding: Rounding
    floor: int | None
    initial_ratings: bool
    gap_600_rule: bool = False
    list_kind: ListKind = "standard"
    cap: CapRule = CAP_400
    k: KRule = K_2024
    first_rating: FirstRatingRule = FIRST_RATING_2024
    gap: GapRule = GAP_600


FIDE_2024_03 = RuleSet(
    name="fide-2024-03",
    expected="table",
    cap_400="always",
    k_rule="fide",
    k_fixed=None,
    rule_700=True,
    rounding="period",
    floor=FLOOR_2024,
    initial_ratings=True,
)
FIDE_2025_10 = replace(FIDE_2024_03, name="fide-2025-10", cap_400="exempt-2650")
ELO = RuleSet(
    name="elo",
    expected="formula",
    cap_400="never",
    k_rule="fixed",
    k_fixed=20,
    rule_700=False,
    rounding="period",
    floor=None,
    initial_ratings=False,
)

RULE_SETS: dict[str, RuleSet] = {rs.name: rs for rs in (FIDE_2024_03, FIDE_2025_10, ELO)}


def rule_set_for(
    rules: Literal["fide", "elo"],
    period: str,
    *,
    rule_set: str | None = None,
    list_kind: ListKind = "standard",
) -> RuleSet:
    """The rule set in force for a rating period.

    Args:
        rules: ``fide`` (the FIDE regulations in force for the period) or ``elo`` (classic Elo).
        period: Month of play, ``YYYY-MM``.
        rule_set: A rule set name that forces one set whatever the period (``fide-2024-03``,
            ``fide-2025-10``, ``elo``).
        list_kind: ``standard``, ``rapid`` or ``blitz``. Rapid and blitz keep the plain 400-point cap
            for everyone and, from period 2024-12, do not rate games with a gap of 600 or more where a
            player is rated above 2600 (FIDE R&B regulations 7.3.1).

    Returns:
        The rule set to apply.

    Raises:
        UsageError: ``rule_set`` is unknown, or ``rules`` is ``fide`` and the period is before 2024-03
            (the 2024 regulations; earlier rules differ: floor 1000, another initial-rating formula).

    References:
        FIDE Rating Regulations (B.02, 2024), in force 1 Mar 2024; 8.3.1 as amended 1 Oct 2025;
        ``fide-rules.md`` section 0.
    """
    if rule_set is not None:
        if rule_set not in RULE_SETS:
            raise UsageError(
                f"unknown rule set {rule_set!r}",
                option="rule_set",
                hint=f"use one of {', '.join(sorted(RULE_SETS))}.",
            )
        chosen = RULE_SETS[rule_set]
    elif rules == "elo":
        chosen = ELO
    elif period >= EXEMPT_2650_FROM:
        chosen = FIDE_2025_10
    elif period >= FIRST_FIDE_PERIOD:
        chosen = FIDE_2024_03
    else:
        raise UsageError(
            f"period {period} is before {FIRST_FIDE_PERIOD}; {option('rules', 'fide')} supports the FIDE rating "
            f"regulations in force from 1 March 2024 (periods {FIRST_FIDE_PERIOD} and later) only",
            option="period",
            hint=f"to rate older games with today's rules, add {option('rule_set', 'fide-2024-03')} "
            f"(or {option('rule_set', 'fide-2025-10')}).",
        )
    if list_kind != "standard" and chosen.name != "elo":
        chosen = replace(
            chosen,
            name=f"{chosen.name}-{list_kind}",
            cap_400="always",
            gap_600_rule=period >= GAP_600_FROM,
            list_kind=list_kind,
        )
    return chosen
