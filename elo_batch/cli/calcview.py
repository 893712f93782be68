"""Text and JSON views of the calculators' results (``elo-batch game`` / ``tournament``); no arithmetic."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from elo_batch import GameResult, RuleSet, TournamentResult
    from elo_batch.engine.calculator import Change, SideResult


def describe_rules(rules: RuleSet) -> str:
    """One line naming the rule set and what it does.

    >>> from elo_batch.rules.sets import RULE_SETS
    >>> describe_rules(RULE_SETS["fide-2025-10"])
    'fide-2025-10: FIDE table 8.1.2, 400-point rule for players under 2650, rounded once per period'
    """
    expected = "FIDE table 8.1.2" if rules.table_expected else "logistic formula 1/(1+10^(-D/400))"
    cap = {
        "exempt-2650": "400-point rule for players under 2650",
        "always": "400-point rule for everyone",
        "once-per-event": "400-point rule once per event for the higher-rated player",
        "never": "no 400-point rule",
    }[rules.cap_400]
    rounding = {
        "period": "rounded once per period",
        "game": "rounded per game",
        "none": "not rounded (2 decimals)",
    }[rules.rounding]
    return f"{rules.name}: {expected}, {cap}, {rounding}"


def _points(value: float, decimals: int = 2) -> str:
    return f"{value:+.{decimals}f}"


def _whole(value: float) -> str:
    if value == 0:
        return "0"
    return f"{value:+g}" if value != int(value) else f"{int(value):+d}"


def _rating(value: float) -> str:
    return f"{value:g}" if value != int(value) else str(int(value))


def _expected(side: SideResult, rules: RuleSet) -> str:
    if side.expected is None:
        return "-"
    if rules.table_expected:
        return f"{side.expected:.2f} ({side.expected * 100:.0f}%)"
    return f"{side.expected:.4f} ({side.expected * 100:.2f}%)"


def _change(change: Change) -> str:
    return f"{_points(change.exact)} -> {_whole(change.rounded)}"


def render_game(result: GameResult) -> str:
    """The game calculator's answer as a small table, then A's change for a win, a draw and a loss."""
    rules = result.rules
    lines = [describe_rules(rules), ""]
    header = (
        f"{'':9}{'rating':>8}{'opponent':>10}{'D':>6}  {'expected':<16}{'K':>3}{'score':>7}  {'change':<18}{'new':>7}"
    )
    lines.append(header)
    for label, side, change in (("Player A", result.a, result.change_a), ("Player B", result.b, result.change_b)):
        d = "-" if side.rating_diff is None else _rating(side.rating_diff) + ("*" if side.capped else "")
        score = "-" if side.score is None else f"{side.score:g}"
        lines.append(
            f"{label:9}{_rating(side.rating):>8}{_rating(side.opponent_rating):>10}{d:>6}  "
            f"{_expected(side, rules):<16}{side.k:>3}{score:>7}  "
            f"{_change(change) if change else '-':<18}{_rating(change.new_rating) if change else '-':>7}"
        )
    if result.a.capped or result.b.capped:
        lines.append("* D counted as 400 (400-point rule)")
    lines.append("")
    outcomes = "   ".join(f"{name} {_change(change)}" for name, change in result.outcomes_a.items())
    lines.append(f"Player A's change: {outcomes}")
    return "\n".join(lines)


def render_tournament(result: TournamentResult) -> str:
    """The tournament calculator's answer: each game's contribution, then the sum rounded once."""
    rules = result.rules
    k = f"K {result.k_used}" + (
        f" (700 rule: {result.n} games x K {result.k} > 700)" if result.k_used != result.k else ""
    )
    lines = [describe_rules(rules), f"Player {_rating(result.rating)}, {k}", ""]
    lines += _tournament_games(result)
    lines.append("")
    lines += _tournament_totals(result)
    return "\n".join(lines)


def _tournament_games(result: TournamentResult) -> list[str]:
    """The tournament's games as table lines: each game's contribution, K x (score - expected)."""
    lines = [f"{'#':>3}{'opponent':>10}{'result':>8}{'D':>7}  {'expected':<16}{'K x (score - expected)':>24}"]
    for number, game in enumerate(result.games, start=1):
        if not game.counted:
            lines.append(f"{number:>3}{_rating(game.opponent_rating):>10}{'forfeit':>8}  not rated (FIDE B.02 5.1)")
            continue
        d = _rating(game.rating_diff or 0) + ("*" if game.capped else "")
        lines.append(
            f"{number:>3}{_rating(game.opponent_rating):>10}{game.score:>8g}{d:>7}  "
            f"{_expected(game, result.rules):<16}{_points(game.k_change or 0):>24}"
        )
    if any(game.capped for game in result.games):
        lines.append("* D counted as 400 (400-point rule)")
    return lines


def _tournament_totals(result: TournamentResult) -> list[str]:
    """The tournament's totals: games, score and expected score; the change rounded once; the performance."""
    lines = [f"Rated games {result.n}, score {result.score:g}, expected score {result.expected:.2f}"]
    lines.append(
        f"Change {_change(result.change)}; new rating {_rating(result.change.new_rating)}"
        + (" (below the floor: unrated on the next list)" if _below_floor(result.change, result.rules) else "")
    )
    if result.performance is not None:
        lines.append(
            f"Performance rating {result.performance} (opponents' average {result.opponents_average}, "
            f"{result.score / result.n * 100:.0f}%)"
        )
    return lines


def _below_floor(change: Change, rules: RuleSet) -> bool:
    return rules.floor is not None and change.new_rating < rules.floor


def _change_json(change: Change | None, rules: RuleSet) -> dict[str, Any] | None:
    if change is None:
        return None
    return {
        "change_exact": round(change.exact, 4),
        "change": change.rounded,
        "new_rating": change.new_rating,
        "below_floor": _below_floor(change, rules),
    }


def _side_json(side: SideResult) -> dict[str, Any]:
    record = dataclasses.asdict(side)
    record["expected_percent"] = None if side.expected is None else round(side.expected * 100, 2)
    record["k_change"] = None if side.k_change is None else round(side.k_change, 4)
    return record


def game_json(result: GameResult) -> dict[str, Any]:
    """The game calculator's answer as a JSON-ready dict."""
    rules = result.rules
    return {
        "rule_set": rules.name,
        "players": {
            "a": {**_side_json(result.a), **(_change_json(result.change_a, rules) or {})},
            "b": {**_side_json(result.b), **(_change_json(result.change_b, rules) or {})},
        },
        "outcomes_a": {name: _change_json(change, rules) for name, change in result.outcomes_a.items()},
    }


def tournament_json(result: TournamentResult) -> dict[str, Any]:
    """The tournament calculator's answer as a JSON-ready dict."""
    return {
        "rule_set": result.rules.name,
        "rating": result.rating,
        "k": result.k,
        "k_used": result.k_used,
        "games": [_side_json(game) for game in result.games],
        "n": result.n,
        "score": result.score,
        "expected_score": round(result.expected, 4),
        **(_change_json(result.change, result.rules) or {}),
        "performance_rating": result.performance,
        "opponents_average": result.opponents_average,
    }
