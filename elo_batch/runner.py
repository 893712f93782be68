"""One run of ``elo-batch run`` or ``elo-batch validate``: read, check, rate each period, write.

The CLI's only entry to the work. Library code: raises :mod:`elo_batch.errors`, never prints or exits;
progress and summaries go to the callbacks the caller passes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

import polars as pl

from elo_batch import __version__, objectstore, warehouse
from elo_batch import columns as c
from elo_batch.config import RunConfig
from elo_batch.errors import StrictRejectError
from elo_batch.formulas import CsvFormulas
from elo_batch.period import Counts, PeriodResult, rate_periods
from elo_batch.ratinglist import check_pending, load_rating_list
from elo_batch.readers import InputFile
from elo_batch.validate import GamesInput, load_games
from elo_batch.writers import Format, check_writable, write_period

#: Progress callback: (what is being done, steps done, steps in all).
Progress = Callable[[str, int, int], None]
#: Rows per chunk of polars' streaming engine unless ``--chunk-rows`` asks for fewer.
STREAMING_CHUNK = 100_000
P = ParamSpec("P")
T = TypeVar("T")


def _in_chunks(work: Callable[P, T]) -> Callable[P, T]:
    """Run ``work`` (which takes ``config``) with the streaming engine's chunks at most
    ``config.chunk_rows`` rows."""

    @functools.wraps(work)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        rows = kwargs["config"].chunk_rows  # type: ignore[attr-defined]
        with pl.Config(streaming_chunk_size=rows) if rows < STREAMING_CHUNK else contextlib.nullcontext():
            return work(*args, **kwargs)

    return wrapper


@dataclass(frozen=True)
class PeriodSummary:
    """What the run reports about one period once it is rated (and, by ``run``, written).

    Attributes:
        outputs: Table name -> written file; empty when nothing was written (``validate``).
    """

    period: str
    rule_set: str
    counts: Counts
    players: dict[str, int]
    warnings: tuple[str, ...]
    outputs: dict[str, str]


@dataclass(frozen=True)
class ValidationReport:
    """What ``validate`` found, without writing anything.

    Attributes:
        files: The game files read.
        rows_read: Data rows read over all game files.
        rejected: Rejected rows in scope (rows of the periods asked for and rows whose period is
            unknown; every rejected row when no period was asked for), ``REJECTED_SCHEMA``.
        periods: With periods: one summary per period, exactly as ``run`` would report it.
        usable_by_period: Without periods: usable rows (not rejected) per period of play, sorted.
        warnings: Notes on the inputs (blank lines skipped, files without rows, an empty list).
    """

    files: tuple[InputFile, ...]
    rows_read: int
    rejected: pl.DataFrame
    periods: tuple[PeriodSummary, ...]
    usable_by_period: dict[str, int]
    warnings: tuple[str, ...]


def load_inputs(
    games_paths: list[str],
    ratings_path: str | None,
    config: RunConfig,
    encoding: str | None = None,
    out: str | None = None,
) -> tuple[GamesInput, pl.DataFrame | None, InputFile | None]:
    """Read and check the games and the list of a run (rule sets are checked first, before any reading).

    A games folder or glob never picks up the run's own rating list or output folder.

    Raises:
        UsageError, InputMissingError, InputDataError: as the readers and :meth:`RunConfig.rules_for`.
    """
    rule_sets = [config.rules_for(period) for period in config.periods]
    fractional = config.rounding == "none" or any(rules.rounding == "none" for rules in rule_sets)
    own = tuple(path for path in (ratings_path, out) if path and not objectstore.is_object_store(path))
    games = load_games(
        games_paths, fractional_ratings=fractional, encoding=encoding, exclude=own, chunk_rows=config.chunk_rows
    )
    rating_list, list_info = (
        load_rating_list(ratings_path, fractional_ratings=fractional, encoding=encoding)
        if ratings_path
        else (None, None)
    )
    if rating_list is not None and ratings_path:
        check_pending(rating_list, config.periods[0] if config.periods else None, ratings_path)
    return games, rating_list, list_info


def input_warnings(games: GamesInput, rating_list: pl.DataFrame | None, list_info: InputFile | None) -> tuple[str, ...]:
    """Things about the inputs the user should know that do not stop the run."""
    notes = [f"{f.path}: {f.blank_rows} blank line(s) skipped" for f in games.files if f.blank_rows]
    notes += [f"{f.path}: no rows (header only)" for f in games.files if f.rows == 0]
    if list_info and list_info.blank_rows:
        notes.append(f"{list_info.path}: {list_info.blank_rows} blank line(s) skipped")
    if list_info:
        notes.extend(list_info.notes)
    if rating_list is not None and list_info and rating_list.height == 0:
        notes.append(f"{list_info.path}: the rating list has no players; every player is unrated")
    return tuple(notes)


def rejected_in_run(games: GamesInput, periods: tuple[str, ...]) -> pl.DataFrame:
    """Rejected rows that belong to the run: rows of its periods, and rows whose period is unknown."""
    return games.rejected.filter(pl.col(c.PERIOD).is_null() | pl.col(c.PERIOD).is_in(list(periods)))


@_in_chunks
def run(
    games_paths: list[str],
    *,
    config: RunConfig,
    ratings_path: str | None,
    out: str,
    fmt: Format = "parquet",
    encoding: str | None = None,
    on_period: Callable[[PeriodSummary], None] | None = None,
    on_progress: Progress | None = None,
    duckdb_path: str | None = None,
    csv_formulas: CsvFormulas = "escape",
) -> list[PeriodSummary]:
    """Rate every period of ``config`` and write its partitions under ``out``.

    Order: read and check every input, check ``--strict``, check that ``out`` is writable, then rate
    and write period by period; so a bad input or an unwritable ``out`` fails before any rating and
    before anything is written.

    Args:
        games_paths: Game files, globs or folders (CSV or Parquet).
        config: The run's settings.
        ratings_path: The list in force before the first period, or None (ratings from the games).
        out: Output folder.
        fmt: ``parquet`` or ``csv``.
        encoding: Force the CSV text encoding.
        on_period: Called after each period is written (for logs).
        on_progress: Called before each step (reading, rating a period, writing it).
        duckdb_path: Also load each period into this DuckDB file (tables ratings, audit, rejected),
            after its partitions are written.
        csv_formulas: ``escape`` (CSV text cells a spreadsheet would run as formulas get a leading
            quote) or ``keep``; see :mod:`elo_batch.formulas`.

    Returns:
        One summary per period, in order.

    Raises:
        UsageError: a period has no supported rule set, or ``encoding`` is unknown.
        InputMissingError: an input file is missing or unreadable.
        InputDataError: an input cannot be rated as given.
        StrictRejectError: ``config.strict`` and a row was rejected (nothing is written).
        OutputError: the outputs cannot be written (the previous outputs of the period are kept).
    """
    started = dt.datetime.now(dt.UTC)
    if duckdb_path:
        warehouse.check_available(duckdb_path)
    if objectstore.is_object_store(out):
        objectstore.check_available(out)
    progress = on_progress or (lambda step, done, total: None)
    total = 1 + 2 * len(config.periods)
    progress(f"reading {len(games_paths)} input(s)", 0, total)
    games, rating_list, list_info = load_inputs(games_paths, ratings_path, config, encoding, out)
    notes = input_warnings(games, rating_list, list_info)
    if config.strict:
        _fail_if_rejected(rejected_in_run(games, config.periods))
    check_writable(out)
    summaries = []
    results = rate_periods(games, rating_list, config)
    for index, period in enumerate(config.periods):
        progress(f"rating {period}", 1 + 2 * index, total)
        result = next(results)
        progress(f"writing {period}", 2 + 2 * index, total)
        warnings = notes + result.warnings
        tables: dict[str, pl.DataFrame | pl.LazyFrame] = {
            "ratings": result.ratings,
            "audit": result.audit,
            "rejected": result.rejected,
        }
        options = {"format": fmt, "encoding": encoding, "csv_formulas": csv_formulas}
        manifest = _manifest(result, games, list_info, config, options, started, warnings)
        outputs = write_period(out, result.period, tables, manifest, fmt, csv_formulas=csv_formulas)
        if duckdb_path:
            loaded = {name: t.collect() if isinstance(t, pl.LazyFrame) else t for name, t in tables.items()}
            warehouse.load_period(duckdb_path, result.period, loaded)
            outputs = {**outputs, "duckdb": duckdb_path}
        summary = _summary(result, warnings, outputs)
        summaries.append(summary)
        if on_period:
            on_period(summary)
    progress("done", total, total)
    return summaries


@_in_chunks
def validate(
    games_paths: list[str],
    *,
    config: RunConfig,
    ratings_path: str | None,
    encoding: str | None = None,
    on_progress: Progress | None = None,
) -> ValidationReport:
    """Run every check of ``run`` and report, writing nothing.

    With ``config.periods``, the periods are also rated in memory, so the counts are exactly those
    ``run`` would write to the manifest. Without, every row of every period is checked and the
    usable rows are counted per period.

    Raises:
        As :func:`run`, except StrictRejectError and OutputError: rejected rows are in the report.
    """
    progress = on_progress or (lambda step, done, total: None)
    total = 1 + len(config.periods)
    progress(f"reading {len(games_paths)} input(s)", 0, total)
    games, rating_list, list_info = load_inputs(games_paths, ratings_path, config, encoding)
    notes = input_warnings(games, rating_list, list_info)
    summaries = []
    results = rate_periods(games, rating_list, config)
    for index, period in enumerate(config.periods):
        progress(f"rating {period}", 1 + index, total)
        result = next(results)
        summaries.append(_summary(result, notes + result.warnings, {}))
    progress("done", total, total)
    usable = games.rows.lazy().group_by(c.PERIOD).len().sort(c.PERIOD).collect(engine="streaming")
    return ValidationReport(
        files=games.files,
        rows_read=games.rows_read,
        rejected=rejected_in_run(games, config.periods) if config.periods else games.rejected,
        periods=tuple(summaries),
        usable_by_period={} if config.periods else dict(usable.iter_rows()),
        warnings=notes,
    )


def _summary(result: PeriodResult, warnings: tuple[str, ...], outputs: dict[str, str]) -> PeriodSummary:
    return PeriodSummary(
        result.period,
        result.rule_set.name,
        result.counts,
        dict(result.ratings.group_by(c.STATUS).len().sort(c.STATUS).iter_rows()),
        warnings,
        outputs,
    )


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
    output_options: dict[str, Any],
    started: dt.datetime,
    warnings: tuple[str, ...],
) -> dict[str, Any]:
    return {
        "tool": "elo-batch",
        "version": __version__,
        "period": result.period,
        "rule_set": dataclasses.asdict(result.rule_set),
        "options": {**dataclasses.asdict(config), **output_options},
        "inputs": {
            "games": [dataclasses.asdict(f) for f in games.files],
            "ratings": dataclasses.asdict(list_info) if list_info else None,
        },
        "counts": {**dataclasses.asdict(result.counts), "reconciles": result.counts.reconciles()},
        "rows_written": {
            "ratings": result.ratings.height,
            "audit": result.audit_rows,
            "rejected": result.rejected.height,
        },
        "warnings": list(warnings),
        "started_at": started.isoformat(),
        "finished_at": dt.datetime.now(dt.UTC).isoformat(),
    }
