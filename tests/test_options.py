"""RunOptions: the one definition of a run's options, what the API's keywords and the CLI's flags build."""

from __future__ import annotations

import dataclasses

import polars as pl
import pytest
import typer

import elo_batch
from elo_batch import choices
from elo_batch.apiargs import Options
from elo_batch.cli.app import app
from elo_batch.cli.runcmd import run_options
from elo_batch.errors import UsageError
from elo_batch.options import FIELDS, RunOptions

GAMES = pl.DataFrame(
    {"white_id": ["A", "A"], "black_id": ["B", "C"], "result": ["1-0", "1/2-1/2"], "date": ["2025-11-03", "2025-11-04"]}
)
LIST = pl.DataFrame({"player_id": ["A", "B", "C"], "rating": [2000, 2410, 1580], "k": [20, 20, 40]})


def test_the_options_are_frozen_and_keyword_only() -> None:
    options = RunOptions(rounding="game")
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.rounding = "none"  # type: ignore[misc]
    with pytest.raises(TypeError):
        RunOptions("elo")  # type: ignore[misc]


@pytest.mark.parametrize(
    ("name", "value"),
    [("rules", "uscf"), ("list_kind", "bullet"), ("expected", "guess"), ("cap_400", "sometimes"),
     ("rounding", "up"), ("period_by", "week"), ("k", 0), ("k", 101), ("k", True), ("chunk_rows", 0),
     ("strict", "yes"), ("rule_700", 1), ("max_rejected", "101%"), ("encoding", "no-such-codec"),
     ("rule_set", 3)],
)  # fmt: skip
def test_a_bad_value_is_refused_naming_its_option(name: str, value: object) -> None:
    with pytest.raises(UsageError) as raised:
        RunOptions(**{name: value})  # type: ignore[arg-type]
    assert raised.value.option == name


def test_the_keywords_type_is_the_options_fields() -> None:
    """The TypedDict that types the API's keywords names every field of RunOptions, each choice by the
    same Literal of :mod:`elo_batch.choices` (the one definition of its values)."""
    keywords = Options.__annotations__
    assert set(keywords) == set(FIELDS)
    for field in dataclasses.fields(RunOptions):
        if field.name in CHOICES:
            assert getattr(keywords[field.name], "__forward_arg__", keywords[field.name]) == field.type, field.name
            assert eval(str(field.type).split(" | ")[0], vars(choices)) is getattr(choices, CHOICES[field.name])


CHOICES = {"rules": "RulesName", "list_kind": "ListKind", "expected": "Expected", "cap_400": "CapChoice",
           "rounding": "Rounding", "period_by": "PeriodBy"}  # fmt: skip


def test_options_passed_whole_rate_as_the_same_keywords() -> None:
    """K 25, each game rounded: A (2000) beats B (2410) and draws C (1580), both gaps counted as 400
    (B.02 8.3.1): 25 x (1 - 0.08) = 23 and 25 x (0.5 - 0.92) = -10.5 -> -11 (away from zero): +12
    (rounded once it would be 12.5 -> 13)."""
    whole = elo_batch.rate_period(GAMES, period="2025-11", ratings=LIST, options=RunOptions(rounding="game", k=25))
    keywords = elo_batch.rate_period(GAMES, period="2025-11", ratings=LIST, rounding="game", k=25)

    assert whole.ratings.equals(keywords.ratings)
    assert whole.rule_set.name == keywords.rule_set.name == "fide-2025-10+k_rule=fixed,k_fixed=25,rounding=game"
    assert whole.ratings.filter(pl.col("player_id") == "A")["change"].item() == 12


def test_keywords_beside_the_options_replace_their_fields() -> None:
    chosen = RunOptions(k=40, rules="elo")
    result = elo_batch.rate_period(GAMES, period="2025-11", ratings=LIST, options=chosen, k=10)

    assert result.rule_set.name.startswith("elo")
    assert result.rule_set.k_fixed == 10
    assert chosen.k == 40  # the caller's options unchanged


def test_options_of_another_type_are_refused() -> None:
    with pytest.raises(TypeError, match="options must be a RunOptions, not dict"):
        elo_batch.rate_period(GAMES, period="2025-11", ratings=LIST, options={"k": 10})  # type: ignore[arg-type]


def _flags(command: str) -> dict[str, object]:
    group = typer.main.get_command(app)
    found = group.commands[command]  # type: ignore[attr-defined]
    return {param.name: param for param in found.params if param.name}


@pytest.mark.parametrize(
    ("command", "api_only"),
    [("run", {"source_name", "rule_700"}), ("validate", {"source_name", "rule_700", "strict", "max_rejected"})],
)
def test_every_option_is_a_flag_of_its_commands_under_its_name(command: str, api_only: set[str]) -> None:
    flags = _flags(command)
    assert {name for name in FIELDS if name not in flags} == api_only
    assert "no_700_rule" in flags  # rule_700=False


def test_the_flags_map_onto_the_options_in_one_place() -> None:
    flags = {"rules": "elo", "list_kind": "rapid", "k": 15, "no_700_rule": True, "out": "x", "log_format": "json"}
    assert run_options(flags) == RunOptions(rules="elo", list_kind="rapid", k=15, rule_700=False)
    assert run_options({"no_700_rule": False}).rule_700 is None  # the rule set decides
