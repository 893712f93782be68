"""Every golden case (tests/golden: ../shared/cases and this project's own), named by its rule, through
the public API on both engines, compared exactly; and what the CLI adds, on a few of them.

A case is ``games.csv``, an optional ``ratings.csv`` and ``events.csv``, ``args`` (the CLI's options:
:func:`tests.engines.golden_options` gives them as the API's keywords) and ``expected.csv``: for each
player named, the cells of the new list to check. An empty cell is not checked; ``null`` is a null. A
case whose ``--period`` is a range checks each row against the period of its ``period`` column (the
last month of the range when there is none).

Every cell is compared exactly, in the type the contract (interface.md, the API's ``PeriodResult``)
gives its column: integer rating points as integers (``rounding="none"``: ``rating``,
``rating_before`` and ``change`` as Decimals of hundredths, compared as ``Decimal``), flags as
booleans, text as text. ``score`` and ``expected_score`` are the two floating-point columns: points
(Float64), written by ``run --format csv`` in their shortest decimal text; they are compared as that
text, as a ``Decimal``. The contract fixes ``score`` in half points and ``expected_score`` under table
8.1.2 in exact hundredths, both exact in that text (the logistic formula's sums have no precision fixed:
a case naming them gives the whole text).
"""

from __future__ import annotations

import csv
import re
import shlex
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest

import elo_batch
from tests import engines
from tests.conftest import TESTS

CASES = sorted(p for p in (TESTS / "golden").iterdir() if p.is_dir())

#: The list's columns of integer rating points, counts and years (interface.md, ``PeriodResult``).
_INTEGERS = frozenset(
    {"rating", "rating_before", "change", "adjustment", "k_used", "games", "k", "games_total", "birth_year",
     "standard_rating", "performance_rating", "opponents_average"}
)  # fmt: skip
#: Under ``rounding="none"``: fractional ratings, Decimals of 2 places.
_HUNDREDTHS = frozenset({"rating", "rating_before", "change"})
#: Points, Float64.
_POINTS = frozenset({"score", "expected_score"})
_BOOLEANS = frozenset({"reached_2400", "reached_2300"})


def _wanted(text: str, column: str, rounding: object) -> object:
    """An ``expected.csv`` cell as a value of its column's type in the contract (``null``: None)."""
    if text == "null":
        return None
    if (column in _HUNDREDTHS and rounding == "none") or column in _POINTS:
        return Decimal(text)
    if column in _INTEGERS:
        assert re.fullmatch(r"-?\d+", text), f"{column}: {text!r} is not an integer"
        return int(text)
    if column in _BOOLEANS:
        return {"true": True, "false": False}[text]
    return text


def _got(value: object) -> object:
    """A value of the API's list as compared: a float as the CSV writer writes it (shortest text)."""
    return Decimal(repr(value)) if isinstance(value, float) else value


def _problems(case: Path, rated: list[engines.Rated], rounding: object) -> list[str]:
    lists = {r.period: {row["player_id"]: row for row in r.ratings.iter_rows(named=True)} for r in rated}
    last = rated[-1].period
    with open(case / "expected.csv", newline="", encoding="utf-8-sig") as f:
        expected_rows = list(csv.DictReader(f))
    problems = []
    for row in expected_rows:
        month = row.get("period") or last
        player = lists.get(month, {}).get(row["player_id"])
        if player is None:
            problems.append(f"{row['player_id']} missing from {month}")
            continue
        for column, text in row.items():
            if column in ("player_id", "period") or text == "":
                continue
            want, got = _wanted(text, column, rounding), _got(player.get(column, "<no such column>"))
            if type(got) is not type(want) or got != want:
                problems.append(f"{month} {row['player_id']}.{column}: expected {want!r}, got {got!r}")
    return problems


def _rate(case: Path, engine: engines.Engine) -> tuple[list[engines.Rated], dict[str, object]]:
    games, ratings = engines.golden_inputs(case)
    options = engines.golden_options(case)
    given = {} if ratings is None else {"ratings": ratings}  # no ratings.csv: as the CLI without --ratings
    return engine(games, **given, **options), {**given, **options}


@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
def test_golden_case(case: Path, engine: engines.Engine) -> None:
    """Each period of the case's range, each cell ``expected.csv`` names, exactly; on Spark, in the same
    run, every table of every period (the list's every column, the audit, the rejected rows, the
    counts, the warnings) is the local engine's too."""
    rated, options = _rate(case, engine)

    assert not (problems := _problems(case, rated, options.get("rounding"))), "\n".join(problems)
    if engine.name == "spark":
        games, _ = engines.golden_inputs(case)
        local = list(elo_batch.rate_periods(games, **options))  # type: ignore[arg-type]
        assert [r.period for r in rated] == [r.period for r in local]
        for on_spark, here in zip(rated, local, strict=True):
            engines.assert_same(on_spark.result, here)


@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
def test_golden_case_with_sums_row_by_row(case: Path, monkeypatch) -> None:
    """The local engine adding the per-player sums one table row at a time (see period._rated_sums)."""
    monkeypatch.setattr("elo_batch.engine.period._SUM_ROWS", 1)

    rated, options = _rate(case, engines.Local())

    assert not (problems := _problems(case, rated, options.get("rounding"))), "\n".join(problems)


#: Cases for the CLI: plain; classic Elo with one K and fractional ratings (Decimal and float text);
#: an events file by event; a range of months of the rapid list.
CLI_CASES = [
    "bug-700-rule", "seed-fractional-formula", "fide-event-period-given", "rapid-standard-rating-follows-standard",
]  # fmt: skip


@pytest.mark.parametrize("name", CLI_CASES)
def test_run_writes_the_apis_tables_as_csv(name: str, cli, tmp_path: Path) -> None:
    """``run --format csv`` on the case's files exits 0 and writes, for each period, the tables the API
    gives for the same files and options: the list's CSV read back in the API's types is the API's
    list, and each table is the bytes ``elo_batch.write_period`` writes for the API's result."""
    case = TESTS / "golden" / name
    files = {"ratings": case / "ratings.csv"} if (case / "ratings.csv").exists() else {}
    options = {**engines.golden_options(case), **files}
    if (case / "events.csv").exists():
        options["events"] = case / "events.csv"
    cli_out, api_out = tmp_path / "cli", tmp_path / "api"
    flags = [f for flag, path in files.items() for f in (f"--{flag}", path)]
    events = ["--events", case / "events.csv"] if (case / "events.csv").exists() else []

    result = cli("run", case / "games.csv", *flags, *events, *shlex.split((case / "args").read_text()),
                 "--out", cli_out, "--format", "csv")  # fmt: skip

    assert result.exit_code == 0, result.output
    rated = list(elo_batch.rate_periods(case / "games.csv", **options))  # type: ignore[arg-type]
    for period in rated:
        written = cli_out / "ratings" / f"period={period.period}" / "part-0.csv"
        assert pl.read_csv(written, schema=period.ratings.schema).equals(period.ratings), period.period
        elo_batch.write_period(period, api_out, format="csv")
    tables = sorted(p.relative_to(api_out) for p in api_out.rglob("part-0.csv"))
    assert len(tables) == 3 * len(rated)
    assert tables == sorted(p.relative_to(cli_out) for p in cli_out.rglob("part-0.csv"))
    for table in tables:
        assert (cli_out / table).read_bytes() == (api_out / table).read_bytes(), table
