"""Rules as data: every number of the regulations lives once, in the rule set, and the engine reads it there.

A rule set with other numbers rates differently (so the engine does read them), and no engine module
writes one of them itself.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import polars as pl
import pytest

from elo_batch.contract.schemas import list_schema
from elo_batch.engine.period import rate_period
from elo_batch.rules.sets import ELO, FIDE_2022_01, FIDE_2024_03, FIDE_2025_10, CapRule, GapRule, RuleSet
from tests.test_kernels import games_input

PERIOD = "2025-11"
PACKAGE = Path(__file__).resolve().parent.parent / "elo_batch"
#: Numbers of the regulations and our own bounds: 400/2650 (8.3.1), 700, 2400, 2300, 18, 30 (8.3.3),
#: 26 (7.1.4), 1800 (x 2 = 3600) and 2200 (8.2), 1400 (7.1.2), 600/2600 (R&B 7.3.1), 3500, 1850, 2100.
NUMBERS = {400, 2650, 700, 2400, 2300, 18, 30, 26, 1800, 3600, 2200, 1400, 600, 2600, 3500, 1850, 2100}
#: Modules that rate or check values: they read the numbers from elo_batch.rules.
ENGINE_MODULES = [
    *(f"engine/{p.name}" for p in sorted((PACKAGE / "engine").glob("*.py")) if p.name != "__init__.py"),
    "inputs/ratinglist.py", "inputs/validate.py", "inputs/gamerules.py", "inputs/gamechecks.py", "inputs/byvalue.py",
    "inputs/checkfile.py", "inputs/duplicates.py", "inputs/listchecks.py", "contract/schemas.py",
]  # fmt: skip


@pytest.mark.parametrize("module", ENGINE_MODULES)
def test_no_engine_module_writes_a_number_of_the_rules(module: str) -> None:
    tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
    found = [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and type(node.value) is int and node.value in NUMBERS
    ]
    assert found == [], f"{module}: numbers of the rules written in the code (line, value): {found}"


#: The rule set's and the run's mode fields: the kernels ask their modes (``RuleSet.whole_ratings``, ...).
MODE_FIELDS = {"expected", "rounding", "cap_400", "k_rule", "period_by", "rules"}
#: Where the modes are derived from the fields (and so compare them): nowhere else may a module ask a
#: mode by its text (the kernels, the Spark engine, the drivers).
MODE_SOURCES = {"rules/sets.py", "config.py"}
KERNEL_MODULES = sorted(
    path.relative_to(PACKAGE).as_posix()
    for path in PACKAGE.rglob("*.py")
    if path.relative_to(PACKAGE).as_posix() not in MODE_SOURCES
)


@pytest.mark.parametrize("module", KERNEL_MODULES)
def test_no_kernel_compares_a_mode_as_text(module: str) -> None:
    tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
    found = [
        (node.lineno, ast.unparse(node))
        for node in ast.walk(tree)
        if isinstance(node, ast.Compare)
        and any(isinstance(part, ast.Constant) and isinstance(part.value, str) for part in node.comparators)
        and (
            (isinstance(node.left, ast.Attribute) and node.left.attr in MODE_FIELDS)
            or (isinstance(node.left, ast.Name) and node.left.id in MODE_FIELDS)
        )
    ]
    assert found == [], f"{module}: a mode compared as text (line, comparison): {found}"


@pytest.mark.parametrize(
    ("rules", "modes"),
    [
        (FIDE_2022_01, (True, True, False, True, False, True, False)),
        (FIDE_2025_10, (True, True, False, True, True, False, False)),
        (ELO, (False, True, False, False, False, False, True)),
        (
            dataclasses.replace(FIDE_2024_03, rounding="none", cap_400="never"),
            (True, False, False, False, False, False, False),
        ),
        (
            dataclasses.replace(FIDE_2024_03, rounding="game", k_rule="fixed"),
            (True, True, True, True, False, False, True),
        ),
    ],
)
def test_a_rule_sets_modes_follow_its_fields(rules: RuleSet, modes: tuple[bool, ...]) -> None:
    got = (
        rules.table_expected, rules.whole_ratings, rules.rounds_each_game,
        rules.cap_applies, rules.cap_exempts_top, rules.cap_once_per_event, rules.fixed_k,
    )  # fmt: skip
    assert got == modes


def _rate(
    rules: RuleSet, games: str, ratings: dict[str, tuple[float | None, int | None, int | None]]
) -> tuple[dict[str, dict], pl.DataFrame]:
    """Rate CSV-like game lines against a list {player: (rating, k, games_total)}; the new list by player."""
    lines = [line.split(",") for line in games.strip().splitlines()]
    frame = pl.DataFrame(lines[1:], schema=lines[0], orient="row")
    rating_list = pl.DataFrame(
        {
            "player_id": list(ratings),
            "rating": [r for r, _, _ in ratings.values()],
            "k": [k for _, k, _ in ratings.values()],
            "games_total": [g for _, _, g in ratings.values()],
        },
        schema_overrides={"rating": pl.Float64, "k": pl.Int64, "games_total": pl.Int64},
    ).select(
        pl.col(name) if name in ("player_id", "rating", "k", "games_total") else pl.lit(None).cast(dtype).alias(name)
        for name, dtype in list_schema(pl.String()).items()
    )
    result = rate_period(games_input(frame, fractional=False), rating_list, rules, period=PERIOD)
    return {row["player_id"]: row for row in result.ratings.iter_rows(named=True)}, result.audit.collect()


ONE_GAME = """game_id,date,white_id,black_id,result
g1,2025-11-03,A,B,1-0"""


def test_the_k_ladder_is_read_from_the_rule_set() -> None:
    """An established adult (100 games, no K printed) gets the ladder's ``established`` K."""
    rules = dataclasses.replace(FIDE_2025_10, k=dataclasses.replace(FIDE_2025_10.k, established=25))
    players, _ = _rate(rules, ONE_GAME, {"A": (2000.0, None, 100), "B": (2000.0, None, 100)})
    assert (players["A"]["k_used"], players["A"]["k"]) == (25, 25)


def test_the_700_rule_limit_is_read_from_the_rule_set() -> None:
    """K 20 over 6 games with a limit of 100: K = floor(100 / 6) = 16."""
    games = "game_id,date,white_id,black_id,result\n" + "\n".join(f"g{i},2025-11-03,A,B,1-0" for i in range(6))
    rules = dataclasses.replace(FIDE_2025_10, k=dataclasses.replace(FIDE_2025_10.k, limit_700=100))
    players, _ = _rate(rules, games, {"A": (2000.0, 20, 100), "B": (2000.0, 20, 100)})
    assert players["A"]["k_used"] == 16


def test_the_400_point_rule_is_read_from_the_rule_set() -> None:
    """A cap of 300 points, exempt from 2300: 2000 vs 2350 counts -300 for the lower player only."""
    rules = dataclasses.replace(FIDE_2025_10, cap=CapRule(limit=300, exempt_from=2300))
    _, audit = _rate(rules, ONE_GAME, {"A": (2000.0, 20, 100), "B": (2350.0, 20, 100)})
    assert audit.select("player_id", "rating_diff", "capped").rows() == [("A", -300, True), ("B", 350, False)]


def test_the_gap_rule_is_read_from_the_rule_set() -> None:
    """A gap of 300 or more with a player above 2300 is not rated."""
    rules = dataclasses.replace(FIDE_2025_10, gap_600_rule=True, gap=GapRule(gap=300, above=2300))
    _, audit = _rate(rules, ONE_GAME, {"A": (2000.0, 20, 100), "B": (2350.0, 20, 100)})
    assert audit["reason"].to_list() == ["rating gap 600+ with a player above 2600"] * 2


def test_the_first_rating_numbers_are_read_from_the_rule_set() -> None:
    """Three games against rated opponents publish a first rating when the rule set asks for three."""
    games = """game_id,date,white_id,black_id,result
g1,2025-11-03,N,A,1-0
g2,2025-11-04,B,N,1/2-1/2
g3,2025-11-05,N,A,0-1"""
    listed = {"A": (1800.0, 20, 100), "B": (1800.0, 20, 100)}
    first = dataclasses.replace(FIDE_2025_10.first_rating, min_games=3)
    as_fide, _ = _rate(FIDE_2025_10, games, listed)
    three, _ = _rate(dataclasses.replace(FIDE_2025_10, first_rating=first), games, listed)
    # Ru: (5400 + 3600) / 5 = 1800, p = (3 + 2) / 10 = .50 -> dp 0: 1800
    assert (as_fide["N"]["status"], three["N"]["status"], three["N"]["rating"]) == ("unrated", "new", 1800)
