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
class RuleSet:
    """One complete set of rating rules, named after the date it took effect.

    Attributes:
        name: ``fide-2024-03``, ``fide-2025-10``, ``elo``, or one of them with a suffix naming an override.
        expected: ``table`` (FIDE table 8.1.2, exact hundredths) or ``formula`` (1 / (1 + 10^(-D/400))).
        cap_400: ``exempt-2650``: a difference over 400 counts as 400 only for a player rated under 2650
            (B.02 8.3.1 as amended 1 Oct 2025); ``always``: for every player (8.3.1 before that
            amendment); ``never``: no cap.
        k_rule: ``fide`` (K from the list or from 8.3.3) or ``fixed`` (``k_fixed`` for everyone).
        k_fixed: The K of ``fixed`` (one K for every player; the 700 rule still applies if on).
        rule_700: Reduce K to floor(700 / n) when K x n > 700 (B.02 8.3.3).
        rounding: ``period`` (round K x sum once per period, 0.5 away from zero, B.02 8.3.4),
            ``game`` (round each game) or ``none`` (fractional ratings, 2 decimals).
        floor: A new rating below this makes the player unrated on the new list (1400 since
            1 Mar 2024, B.02 7.1.2); None: no floor.
        initial_ratings: Rate unrated players by B.02 8.2 (two fictitious 1800 draws, 2200 maximum).
        gap_600_rule: Rapid and blitz from 1 Dec 2024: a game with a rating gap of 600 or more where a
            player is rated above 2600 is not rated (R&B 7.3.1).
        list_kind: The rating list this rule set rates: ``standard``, ``rapid`` or ``blitz``.
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


FIDE_2024_03 = RuleSet(
    name="fide-2024-03",
    expected="table",
    cap_400="always",
    k_rule="fide",
    k_fixed=None,
    rule_700=True,
    rounding="period",
    floor=1400,
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
    elif period >= "2025-10":
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
            gap_600_rule=period >= "2024-12",
            list_kind=list_kind,
        )
    return chosen
