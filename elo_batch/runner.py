"""One run of ``elo-batch run``: read, check, rate each period, write; the CLI's only entry to the work.

Library code: raises :mod:`elo_batch.errors`, never prints or exits.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import polars as pl

from elo_batch import __version__, objectstore, warehouse
from elo_batch import columns as c
from elo_batch.config import RunConfig
from elo_batch.errors import StrictRejectError
from elo_batch.period import Counts, PeriodResult, rate_periods
from elo_batch.ratinglist import load_rating_list
from elo_batch.readers import InputFile
from elo_batch.validate import GamesInput, load_games
from elo_batch.writers import Format, write_period


@dataclass(frozen=True)
class PeriodSummary:
    """What the run reports about one period once it is written."""

    period: str
    rule_set: str
    counts: Counts
    players: dict[str, int]
    warnings: tuple[str, ...]
    outputs: dict[str, str]


def load_inputs(
    games_paths: list[str], ratings_path: str | None, config: RunConfig, encoding: str | None = None
) -> tuple[GamesInput, pl.DataFrame | None, InputFile | None]:
    """Read and check the games and the list of a run (rule sets are checked first, before any reading).

    Raises:
        UsageError, InputMissingError, InputDataError: as the readers and :meth:`RunConfig.rules_for`.
    """
    rule_sets = [config.rules_for(period) for period in config.periods]
    fractional = any(rules.rounding == "none" for rules in rule_sets)
    games = load_games(games_paths, fractional_ratings=fractional, encoding=encoding)
    rating_list, list_info = (
        load_rating_list(ratings_path, fractional_ratings=fractional, encoding=encoding)
        if ratings_path
        else (None, None)
    )
    return games, rating_list, list_info


def rejected_in_run(games: GamesInput, periods: tuple[str, ...]) -> pl.DataFrame:
    """Rejected rows that belong to the run: rows of its periods, and rows whose period is unknown."""
    return games.rejected.filter(pl.col(c.PERIOD).is_null() | pl.col(c.PERIOD).is_in(list(periods)))


def run(
    games_paths: list[str],
    *,
    config: RunConfig,
    ratings_path: str | None,
    out: str,
    fmt: Format = "parquet",
    encoding: str | None = None,
    on_period: Callable[[PeriodSummary], None] | None = None,
    duckdb_path: str | None = None,
) -> list[PeriodSummary]:
    """Rate every period of ``config`` and write its partitions under ``out``.

    Args:
        games_paths: Game files, globs or folders (CSV or Parquet).
        config: The run's settings.
        ratings_path: The list in force before the first period, or None (ratings from the games).
        out: Output folder.
        fmt: ``parquet`` or ``csv``.
        encoding: Force the CSV text encoding.
        on_period: Called after each period is written (for progress and logs).
        duckdb_path: Also load each period into this DuckDB file (tables ratings, audit, rejected),
            after its partitions are written.

    Returns:
        One summary per period, in order.

    Raises:
        UsageError: a period has no supported rule set.
        InputMissingError: an input file is missing or unreadable.
        InputDataError: an input cannot be rated as given.
        StrictRejectError: ``config.strict`` and a row was rejected (nothing is written).
        OutputError: the outputs cannot be written.
    """
    started = dt.datetime.now(dt.UTC)
    if duckdb_path:
        warehouse.check_available()
    if objectstore.is_object_store(out):
        objectstore.check_available(out)
    games, rating_list, list_info = load_inputs(games_paths, ratings_path, config, encoding)
    if config.strict:
        _fail_if_rejected(rejected_in_run(games, config.periods))
    summaries = []
    for result in rate_periods(games, rating_list, config):
        manifest = _manifest(result, games, list_info, config, fmt, started)
        tables = {"ratings": result.ratings, "audit": result.audit, "rejected": result.rejected}
        outputs = write_period(out, result.period, tables, manifest, fmt)
        if duckdb_path:
            warehouse.load_period(duckdb_path, result.period, tables)
            outputs = {**outputs, "duckdb": duckdb_path}
        summary = PeriodSummary(
            result.period,
            result.rule_set.name,
            result.counts,
            dict(result.ratings.group_by(c.STATUS).len().sort(c.STATUS).iter_rows()),
            result.warnings,
            outputs,
        )
        summaries.append(summary)
        if on_period:
            on_period(summary)
    return summaries


def _fail_if_rejected(rejected: pl.DataFrame) -> None:
    if rejected.height == 0:
        return
    first = rejected.row(0, named=True)
    raise StrictRejectError(
        f"{rejected.height} row(s) rejected and --strict is set; nothing was written. First: {first[c.REASON]}",
        path=first[c.SOURCE_FILE],
        row=first[c.SOURCE_ROW],
        column=first[c.COLUMN],
        value=first[c.VALUE],
        hint="fix the rows listed by `elo-batch validate`, or run without --strict to write them to rejected.",
    )


def _manifest(
    result: PeriodResult,
    games: GamesInput,
    list_info: InputFile | None,
    config: RunConfig,
    fmt: str,
    started: dt.datetime,
) -> dict[str, Any]:
    return {
        "tool": "elo-batch",
        "version": __version__,
        "period": result.period,
        "rule_set": dataclasses.asdict(result.rule_set),
        "options": {**dataclasses.asdict(config), "format": fmt},
        "inputs": {
            "games": [dataclasses.asdict(f) for f in games.files],
            "ratings": dataclasses.asdict(list_info) if list_info else None,
        },
        "counts": {**dataclasses.asdict(result.counts), "reconciles": result.counts.reconciles()},
        "rows_written": {
            "ratings": result.ratings.height,
            "audit": result.audit.height,
            "rejected": result.rejected.height,
        },
        "warnings": list(result.warnings),
        "started_at": started.isoformat(),
        "finished_at": dt.datetime.now(dt.UTC).isoformat(),
    }
