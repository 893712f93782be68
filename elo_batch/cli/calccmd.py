"""The calculator commands ``game`` and ``tournament``: :func:`elo_batch.rate_game` and
:func:`elo_batch.rate_tournament`, shown as text or JSON (:mod:`elo_batch.cli.calcview`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

import elo_batch
from elo_batch.cli.calcview import game_json, render_game, render_tournament, tournament_json
from elo_batch.cli.guard import guard
from elo_batch.cli.options import (
    CalcPeriodOption,
    CapOpt,
    ExpectedOpt,
    JsonOption,
    RoundingOpt,
    RuleSetOpt,
    RulesOpt,
)


def game_command(
    rating_a: Annotated[int, typer.Argument(help="Player A's rating (the list in force).", show_default=False)],
    rating_b: Annotated[int, typer.Argument(help="Player B's rating.", show_default=False)],
    result: Annotated[
        str | None, typer.Option(help="A's score: 1, 0.5 or 0 (omit to see only A's win/draw/loss table).")
    ] = None,
    k: Annotated[
        int | None, typer.Option("--k", min=1, max=100, help="A's K (also B's unless --k-b); default 20.")
    ] = None,
    k_b: Annotated[int | None, typer.Option("--k-b", min=1, max=100, help="B's K (default: A's).")] = None,
    rules: RulesOpt = "fide",
    rule_set: RuleSetOpt = None,
    period: CalcPeriodOption = None,
    expected: ExpectedOpt = None,
    cap_400: CapOpt = "auto",
    rounding: RoundingOpt = None,
    as_json: JsonOption = False,
) -> None:
    """One game: both players' expected score, change and new rating, and A's change for a win, draw or loss."""

    def work() -> None:
        answer = elo_batch.rate_game(
            rating_a,
            rating_b,
            result,
            k=k,
            k_b=k_b,
            period=period,
            rules=rules,
            rule_set=rule_set,
            expected=expected,
            cap_400=cap_400,
            rounding=rounding,
        )
        typer.echo(json.dumps(game_json(answer), indent=2) if as_json else render_game(answer))

    guard(work)


def tournament_command(
    rating: Annotated[int, typer.Option(help="The player's rating before the event.", show_default=False)],
    k: Annotated[int | None, typer.Option("--k", min=1, max=100, help="The player's K (default 20).")] = None,
    results: Annotated[
        str | None,
        typer.Option(help="File of lines 'opponent_rating | result' (default: read them from standard input)."),
    ] = None,
    rules: RulesOpt = "fide",
    rule_set: RuleSetOpt = None,
    period: CalcPeriodOption = None,
    expected: ExpectedOpt = None,
    cap_400: CapOpt = "auto",
    no_700_rule: Annotated[bool, typer.Option("--no-700-rule", help="Do not reduce K when K x n > 700.")] = False,
    rounding: RoundingOpt = None,
    as_json: JsonOption = False,
) -> None:
    """One player's event: each game's K x (score - expected), their sum rounded once, performance rating."""

    def work() -> None:
        answer = elo_batch.rate_tournament(
            rating,
            sys.stdin.buffer if results is None else Path(results),
            k=k,
            period=period,
            rules=rules,
            rule_set=rule_set,
            expected=expected,
            cap_400=cap_400,
            rule_700=False if no_700_rule else None,
            rounding=rounding,
        )
        typer.echo(json.dumps(tournament_json(answer), indent=2) if as_json else render_tournament(answer))

    guard(work)
