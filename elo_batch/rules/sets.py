"""Dated rule sets: which FIDE (or classic Elo) rules rate a given period; no arithmetic here."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from elo_batch.choices import Expected, ListKind, Rounding
from elo_batch.errors import UsageError, option

Cap = Literal["exempt-2650", "always", "once-per-event", "never"]
KRuleName = Literal["fide", "fixed"]

#: First period (month of play) rated under a supported FIDE rule set: the earliest set with a source for
#: every number (``rules/SOURCE.md``). Older regulations are not offered.
FIRST_FIDE_PERIOD = "2022-01"


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
        fictitious_games: Fictitious opponents added to the pool, all scored as draws (8.2.2, 2024).
        fictitious_rating: Their rating (8.2.2, 2024).
        maximum: The highest initial rating (8.2.3, 2024); None: no maximum (2022).
        per_half_point: None: Ru = Ra + dp(p) (2024). Else the 2022 rule (8.2.3, 2022): Ru = Ra at a
            score of 50 %, Ra + ``per_half_point`` for each half point above 50 %, Ra + dp(p) below.
    """

    min_games: int
    window_months: int
    fictitious_games: int
    fictitious_rating: int
    maximum: int | None
    per_half_point: int | None = None


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
#: B.02 (2022) 8.2 and 7.1.4: Ru = Ra (the rated opponents' average) at 50 %, + 20 for each half point above
#: 50 %, + dp below; 5 games against rated opponents, pooled over at most 26 months; no maximum, no
#: fictitious games (``fide-rules.md`` section 0; ``rules/SOURCE.md``).
FIRST_RATING_2022 = FirstRatingRule(
    min_games=5, window_months=26, fictitious_games=0, fictitious_rating=0, maximum=None, per_half_point=20
)
#: B.02 (2022) 7.1.4: a rating below 1000 is not published (``fide-rules.md`` sections 0 and 5).
FLOOR_2022 = 1000
#: Rapid and blitz before 1 Oct 2022: K 20 for everyone, reduced by the 700 rule (``fide-rules.md`` 3.3).
RAPID_BLITZ_K_BEFORE_2022_10 = 20
#: The first period (month of play) whose rapid and blitz K follow the standard K rules (1 Oct 2022).
RAPID_BLITZ_K_FROM = "2022-10"
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
class Compression:
    """The one-time compression of the 1 March 2024 lists (standard, rapid, blitz): a rating R below
    ``below`` becomes R + ``numerator`` / ``denominator`` x (``below`` - R), rounded to the nearest whole
    number; it is applied to the list written for period ``period`` (the 1 March 2024 list).

    References:
        FIDE news of 14 Dec 2023 and the QC notice of 1 Mar 2024; ``fide-rules.md`` section 8, TV-22.
    """

    below: int
    numerator: int
    denominator: int
    period: str


@dataclass(frozen=True)
class Raise:
    """The one-off raise of the 1 October 2022 rapid and blitz lists: a rating more than ``margin`` below
    the player's standard rating becomes the standard rating - ``margin``; applied to the list written
    for period ``period`` (the 1 October 2022 list).

    References:
        ``fide-rules.md`` section 0 and [S18] (FIDE R&B changes of 1 Oct 2022).
    """

    margin: int
    period: str


#: 1 March 2024: below 2000, R + 0.4 x (2000 - R), rounded.
COMPRESSION_2024 = Compression(below=2000, numerator=2, denominator=5, period="2024-02")
#: 1 October 2022 (rapid, blitz): more than 100 below the standard rating: standard - 100.
RAISE_2022 = Raise(margin=100, period="2022-09")


@dataclass(frozen=True)
class RuleSet:
    """One complete set of rating rules, named after the date it took effect.

    Every number of the regulations a rule set uses is one of its attributes, with its clause; the
    engine reads them from here.

    Attributes:
        name: ``fide-2022-01``, ``fide-2024-03``, ``fide-2025-10``, ``elo`` (rapid and blitz: with ``-rapid`` or
            ``-blitz``), or one of them with a suffix naming an override.
        expected: ``table`` (FIDE table 8.1.2, exact hundredths) or ``formula`` (1 / (1 + 10^(-D/400))).
        cap_400: ``exempt-2650``: a difference over ``cap.limit`` counts as ``cap.limit`` only for a
            player rated under ``cap.exempt_from`` (B.02 8.3.1 as amended 1 Oct 2025); ``always``: for
            every player (8.3.1 from 1 Mar 2024); ``once-per-event``: the higher-rated player benefits
            once per event, in the game of the largest difference, the lower-rated one always (8.3.1
            of 2022); ``never``: no cap.
        k_rule: ``fide`` (K from the list or from ``k``, 8.3.3) or ``fixed`` (``k_fixed`` for everyone).
            The K printed on the new list is the next period's (``k_next_rule``).
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
        k_next_rule: The K rule of the K printed on the new list when the next period's differs
            (rapid and blitz of period 2022-09: the standard K rules from 1 Oct 2022); None: ``k_rule``.
        standard_seed: Rapid and blitz (R&B 7.2.1, 2024): an unrated player with a ``standard_rating``
            on the list is rated at it and counts as rated.
        one_off: A one-time change of the list this period writes: :data:`COMPRESSION_2024` or
            :data:`RAISE_2022`; None for every other period (and whenever a rule set is forced).
    """

    name: str
    expected: Expected
    cap_400: Cap
    k_rule: KRuleName
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
    k_next_rule: KRuleName | None = None
    standard_seed: bool = False
    one_off: Compression | Raise | None = None

    # The modes the kernels ask, derived from the fields above (never recorded: the fields are).

    @property
    def table_expected(self) -> bool:
        """PD from FIDE's table 8.1.2, in whole hundredths (``expected="table"``); else the logistic
        formula's, in floating point."""
        return self.expected == "table"

    @property
    def whole_ratings(self) -> bool:
        """Ratings and changes in whole points, rounded 0.5 away from zero (``rounding`` ``period`` or
        ``game``, B.02 8.3.4); else fractional, 2 decimals (``none``)."""
        return self.rounding != "none"

    @property
    def rounds_each_game(self) -> bool:
        """Each game's K x (score - PD) rounded, not the period's sum (``rounding="game"``)."""
        return self.rounding == "game"

    @property
    def cap_applies(self) -> bool:
        """The 400-point rule applies (B.02 8.3.1): every ``cap_400`` but ``never``."""
        return self.cap_400 != "never"

    @property
    def cap_exempts_top(self) -> bool:
        """A player rated ``cap.exempt_from`` or more uses the real difference (``exempt-2650``, B.02 8.3.1
        as amended 1 Oct 2025)."""
        return self.cap_400 == "exempt-2650"

    @property
    def cap_once_per_event(self) -> bool:
        """The higher-rated player benefits from the cap once per event, the lower-rated one always
        (``once-per-event``, B.02 (2022) 8.3.1)."""
        return self.cap_400 == "once-per-event"

    @property
    def fixed_k(self) -> bool:
        """One K, ``k_fixed``, for every player (``k_rule="fixed"``); else FIDE's K (B.02 8.3.3)."""
        return self.k_rule == "fixed"


FIDE_2022_01 = RuleSet(
    name="fide-2022-01",
    expected="table",
    cap_400="once-per-event",
    k_rule="fide",
    k_fixed=None,
    rule_700=True,
    rounding="period",
    floor=FLOOR_2022,
    initial_ratings=True,
    first_rating=FIRST_RATING_2022,
)
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

RULE_SETS: dict[str, RuleSet] = {rs.name: rs for rs in (FIDE_2022_01, FIDE_2024_03, FIDE_2025_10, ELO)}
#: The FIDE standard rule sets by the first period they rate, latest first.
_BY_PERIOD = (("2025-10", FIDE_2025_10), ("2024-03", FIDE_2024_03), (FIRST_FIDE_PERIOD, FIDE_2022_01))


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
        rule_set: A rule set name that forces one set whatever the period (``fide-2022-01``,
            ``fide-2024-03``, ``fide-2025-10``, ``elo``); a forced set makes no one-time list change.
        list_kind: ``standard``, ``rapid`` or ``blitz``. Rapid and blitz: from 2024-03 the plain
            400-point cap for everyone, the standard-rating seed (R&B 7.2.1) and, from period 2024-12,
            the 600/2600 rule (R&B 7.3.1); before 2022-10 K 20 for everyone (with the 700 rule).

    Returns:
        The rule set to apply. Chosen by the period (no ``rule_set``), it carries the one-time change
        of the list the period writes: the compression of the 1 March 2024 lists (period 2024-02), the
        raise of the 1 October 2022 rapid and blitz lists (period 2022-09).

    Raises:
        UsageError: ``rule_set`` is unknown, or ``rules`` is ``fide`` and the period is before 2022-01
            (no older rule set has a source for every number; ``rules/SOURCE.md``).

    References:
        FIDE Rating Regulations (B.02) of 1 Jan 2022 and of 1 Mar 2024; 8.3.1 as amended 1 Oct 2025;
        FIDE Rapid and Blitz Rating Regulations; ``fide-rules.md`` sections 0, 3.3 and 8.
    """
    if rule_set is not None:
        chosen = _named(rule_set)
    elif rules == "elo":
        chosen = ELO
    else:
        chosen = _fide_for(period)
    if chosen.name != ELO.name and list_kind != "standard":
        chosen = _rapid_or_blitz(chosen, period, list_kind)
    if rule_set is None and chosen.name != ELO.name:
        chosen = _one_off(chosen, period)
    return chosen


def _named(rule_set: str) -> RuleSet:
    """The rule set of that name (:data:`RULE_SETS`); a UsageError for an unknown one."""
    if rule_set not in RULE_SETS:
        raise UsageError(
            f"unknown rule set {rule_set!r}",
            option="rule_set",
            hint=f"use one of {', '.join(sorted(RULE_SETS))}.",
        )
    return RULE_SETS[rule_set]


def _fide_for(period: str) -> RuleSet:
    """The FIDE standard rule set in force for ``period`` (:data:`_BY_PERIOD`); a UsageError before 2022-01."""
    found = [rs for first, rs in _BY_PERIOD if period >= first]
    if not found:
        raise UsageError(
            f"period {period} is before {FIRST_FIDE_PERIOD}; {option('rules', 'fide')} has the FIDE rating "
            f"regulations from 1 January 2022 on (periods {FIRST_FIDE_PERIOD} and later): older ones are not "
            "offered, as their first-rating rule, floor and rounding have no source here (rules/SOURCE.md)",
            option="period",
            hint=f"to rate older games with the 2022 rules, add {option('rule_set', 'fide-2022-01')}.",
        )
    return found[0]


def _rapid_or_blitz(chosen: RuleSet, period: str, list_kind: ListKind) -> RuleSet:
    """The rapid or blitz form of a standard rule set for ``period``."""
    if chosen.cap_once_per_event:  # 2022-01 .. 2024-02: the standard rules of 2022, but K
        if period < RAPID_BLITZ_K_FROM:
            return replace(
                chosen,
                name=f"{chosen.name}-{list_kind}",
                k_rule="fixed",
                k_fixed=RAPID_BLITZ_K_BEFORE_2022_10,
                k_next_rule="fide" if period == RAISE_2022.period else None,
                list_kind=list_kind,
            )
        return replace(chosen, name=f"fide-{RAPID_BLITZ_K_FROM}-{list_kind}", list_kind=list_kind)
    return replace(
        chosen,
        name=f"{chosen.name}-{list_kind}",
        cap_400="always",
        gap_600_rule=period >= GAP_600_FROM,
        standard_seed=True,
        list_kind=list_kind,
    )


def _one_off(chosen: RuleSet, period: str) -> RuleSet:
    """``chosen`` with the one-time change of the list that ``period`` writes, if there is one."""
    if period == COMPRESSION_2024.period:
        return replace(chosen, one_off=COMPRESSION_2024)
    if period == RAISE_2022.period and chosen.list_kind != "standard":
        return replace(chosen, one_off=RAISE_2022)
    return chosen
