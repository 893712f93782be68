"""Every golden case (tests/golden: ../shared/cases and this project's own) through the CLI, named by its rule.

A case may hold an ``events.csv`` (given as ``--events``). A case whose ``--period`` is a range checks the
rows of ``expected.csv`` against the period in their ``period`` column (the last month of the range when
there is none).
"""

from __future__ import annotations

import csv
import shlex
from pathlib import Path

import pytest

from elo_batch.config import parse_periods
from tests.conftest import TESTS, read_table

CASES = sorted(p for p in (TESTS / "golden").iterdir() if p.is_dir())


def _same(expected: str, got: str | None) -> bool:
    expected, got = (expected or "").strip(), (got or "").strip()
    if expected == "":
        return True
    if expected == "null":
        return got == ""
    if expected.lower() in ("true", "false"):
        return expected.lower() == got.lower()
    try:
        return abs(float(expected) - float(got)) < 0.006
    except ValueError:
        return expected == got


@pytest.mark.parametrize("sum_rows", [None, 1], ids=["one-pass", "row-by-row-sums"])
@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
def test_golden_case(case: Path, sum_rows: int | None, cli, tmp_path: Path, monkeypatch) -> None:
    if sum_rows:  # the per-player sums, one table row at a time (see period._rated_sums)
        monkeypatch.setattr("elo_batch.engine.period._SUM_ROWS", sum_rows)
    args = shlex.split((case / "args").read_text())
    period = parse_periods(args[args.index("--period") + 1])[-1]
    ratings = ["--ratings", case / "ratings.csv"] if (case / "ratings.csv").exists() else []
    events = ["--events", case / "events.csv"] if (case / "events.csv").exists() else []
    out = tmp_path / "out"

    result = cli("run", case / "games.csv", *ratings, *events, *args, "--out", out, "--format", "csv")

    assert result.exit_code == 0, result.output
    with open(case / "expected.csv", newline="", encoding="utf-8-sig") as f:
        expected_rows = list(csv.DictReader(f))
    lists: dict[str, dict[str, dict]] = {}
    problems = []
    for row in expected_rows:
        month = row.get("period") or period
        if month not in lists:
            lists[month] = {r["player_id"]: r for r in read_table(out, "ratings", month).iter_rows(named=True)}
        player = lists[month].get(row["player_id"])
        if player is None:
            problems.append(f"{row['player_id']} missing from {month}")
            continue
        problems += [
            f"{row['player_id']}.{col}: expected {val!r}, got {player.get(col)!r}"
            for col, val in row.items()
            if col != "player_id" and not _same(val, player.get(col))
        ]
    assert not problems, "\n".join(problems)
