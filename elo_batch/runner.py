"""One run of ``elo-batch run`` or ``elo-batch validate``: read, check, rate each period, write.

The CLI's only entry to the work. Library code: raises :mod:`elo_batch.errors`, never prints or exits;
progress and summaries go to the callbacks the caller passes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, Protocol, TypeVar

import polars as pl

from elo_batch import __version__, sanity
from elo_batch import columns as c
from elo_batch.config import PeriodBy, RunConfig
from elo_batch.engine.events import settle
from elo_batch.engine.period import Counts, PeriodResult, rate_periods
from elo_batch.errors import StrictRejectError, option
from elo_batch.inputs import tablelist
from elo_batch.inputs.bandsfile import load_bands
from elo_batch.inputs.eventsfile import load_events
from elo_batch.inputs.ratinglist import check_pending, load_rating_list
from elo_batch.inputs.readers import FrameInput, InputFile
from elo_batch.inputs.validate import GamesInput, load_games
from elo_batch.outputs import atomic, delta, objectstore, outlock, warehouse
from elo_batch.outputs.formulas import CsvFormulas
from elo_batch.outputs.writers import Format, check_writable, write_period
from elo_batch.rules.bands import Bands


class Engine(Protocol):
    """Where the games are read and the periods rated (the local engine when none is given): the Spark
    engine (:class:`elo_batch.spark._backend.SparkEngine`) reads and rates on a cluster."""

    def load_games(
        self,
        paths: Sequence[str | FrameInput],
        *,
        fractional_ratings: bool,
        encoding: str | None,
        exclude: tuple[str, ...],
        chunk_rows: int | None,
    ) -> GamesInput:
        """Read and check the games, as :func:`elo_batch.inputs.validate.load_games`."""

    def settle(
        self, games: GamesInput, table: pl.DataFrame | None, period_by: PeriodBy, source: InputFile | None = None
    ) -> GamesInput:
        """The games' event facts, as :func:`elo_batch.engine.events.settle`."""

    def rate_periods(
        self, games: GamesInput, rating_list: pl.DataFrame | None, config: RunConfig, *, bands: Bands | None = None
    ) -> Iterator[PeriodResult]:
        """Rate the periods, as :func:`elo_batch.engine.period.rate_periods`."""


#: Progress callback: (what is being done, steps done, steps in all).
Progress = Callable[[str, int, int], None]
#: Rows per chunk of polars' streaming engine unless ``--chunk-rows`` asks for fewer.
STREAMING_CHUNK = 100_000
P = ParamSpec("P")
T = TypeVar("T")


def in_chunks(config: RunConfig) -> contextlib.AbstractContextManager[object]:
    """A context in which polars' streaming engine works in chunks of at most ``config.chunk_rows`` rows."""
    rows = config.chunk_rows
    return pl.Config(streaming_chunk_size=rows) if rows < STREAMING_CHUNK else contextlib.nullcontext()


def _in_chunks(work: Callable[P, T]) -> Callable[P, T]:
    """Run ``work`` (which takes ``config``) :func:`in_chunks` of its config."""

    @functools.wraps(work)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        with in_chunks(kwargs["config"]):  # type: ignore[arg-type]
            return work(*args, **kwargs)

    return wrapper


@dataclass(frozen=True)
class PeriodSummary:
    """What the run reports about one period once it is rated (and, by ``run``, written).

    Attributes:
        outputs: Table name -> written file; empty when nothing was written (``validate``).
        bands: Players whose band went up and down (``{"up": n, "down": m}``).
    """

    period: str
    rule_set: str
    counts: Counts
    players: dict[str, int]
    warnings: tuple[str, ...]
    outputs: dict[str, str]
    bands: dict[str, int] = dataclasses.field(default_factory=lambda: {"up": 0, "down": 0})


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
    games_paths: Sequence[str | FrameInput],
    ratings_path: str | Sequence[str] | FrameInput | None,
    config: RunConfig,
    encoding: str | None = None,
    out: str | None = None,
    ratings_period: str | None = None,
    events: str | FrameInput | None = None,
    engine: Engine | None = None,
) -> tuple[GamesInput, pl.DataFrame | None, InputFile | None]:
    """Read and check the games, the list and the events of a run (rule sets are checked first, before
    any reading); the games come with their event facts (``GamesInput.events``, rows contradicting their
    event rejected, by event each row in its event's period; see :func:`elo_batch.engine.events.settle`).

    A games folder or glob never picks up the run's own rating list, events file or output folder. Paths
    may be ``file:`` URLs. Frames (the Python API) are read and checked as files are. With
    ``ratings_period`` (or a Delta table as the list), the list is that period of a ratings table
    (:mod:`elo_batch.inputs.tablelist`).

    Raises:
        UsageError, InputMissingError, InputDataError: as the readers and :meth:`RunConfig.rules_for`.
    """
    games_paths = [_local(path) for path in games_paths]
    if isinstance(ratings_path, str):
        ratings_path = _local(ratings_path)
    elif ratings_path is not None and not isinstance(ratings_path, FrameInput):
        ratings_path = [_local(path) for path in ratings_path]
    out = objectstore.local_path(out) if out else out
    events = _local(events)
    rule_sets = [config.rules_for(period) for period in config.periods]
    tablelist.check(ratings_path, ratings_period, config.periods)
    fractional = config.rounding == "none" or any(rules.rounding == "none" for rules in rule_sets)
    named = [] if ratings_path is None or isinstance(ratings_path, FrameInput) else ratings_path
    list_paths = [named] if isinstance(named, str) else list(named)
    events_path = events if isinstance(events, str) else None
    own = tuple(path for path in (*list_paths, out, events_path) if path and not objectstore.is_object_store(path))
    games = (engine.load_games if engine is not None else load_games)(
        games_paths, fractional_ratings=fractional, encoding=encoding, exclude=own, chunk_rows=config.chunk_rows
    )
    rating_list: pl.DataFrame | None = None
    list_info: InputFile | None = None
    if isinstance(ratings_path, str) and tablelist.applies(ratings_path, ratings_period):  # a ratings table's period
        rating_list, list_info = tablelist.load(
            ratings_path, ratings_period, config.periods, fractional_ratings=fractional, encoding=encoding
        )
    elif ratings_path:
        rating_list, list_info = load_rating_list(ratings_path, fractional_ratings=fractional, encoding=encoding)
    if rating_list is not None and list_info is not None:
        check_pending(rating_list, config.periods[0] if config.periods else None, list_info.path)
    table, events_info = load_events(events, encoding=encoding) if events is not None else (None, None)
    settled = (engine.settle if engine is not None else settle)(games, table, config.period_by, events_info)
    return settled, rating_list, list_info


def run_bands(config: RunConfig) -> str | None:
    """The band table file of a run (a ``file:`` URL as its path), or None for the default table."""
    return objectstore.local_path(config.bands) if config.bands else None


def _local(source: T) -> T:
    """A path source as a local path (a ``file:`` URL becomes the path it names); a frame as it is."""
    return objectstore.local_path(source) if isinstance(source, str) else source  # type: ignore[return-value]


def input_warnings(games: GamesInput, rating_list: pl.DataFrame | None, list_info: InputFile | None) -> tuple[str, ...]:
    """Things about the inputs the user should know that do not stop the run."""
    notes = [f"{f.path}: {f.blank_rows} blank line(s) skipped" for f in games.files if f.blank_rows]
    notes += [f"{f.path}: no rows (header only)" for f in games.files if f.rows == 0]
    notes += [note for f in games.files for note in f.notes]
    if list_info and list_info.blank_rows:
        notes.append(f"{list_info.path}: {list_info.blank_rows} blank line(s) skipped")
    if list_info:
        notes.extend(list_info.notes)
    if rating_list is not None and list_info and rating_list.height == 0:
        notes.append(f"{list_info.path}: the rating list has no players; every player is unrated")
    if games.events is not None:
        notes.extend(games.events.notes)
    return tuple(notes)


def rejected_in_run(games: GamesInput, periods: tuple[str, ...]) -> pl.DataFrame:
    """Rejected rows that belong to the run: rows of its periods, and rows whose period is unknown."""
    return games.rejected.filter(pl.col(c.PERIOD).is_null() | pl.col(c.PERIOD).is_in(list(periods)))


def check_strict(games: GamesInput, config: RunConfig) -> None:
    """Refuse the run when ``config.strict`` and a row of its periods was rejected, or when more rows
    were rejected than ``config.max_rejected`` allows.

    Raises:
        StrictRejectError: as said, naming the first rejected row (strict) or the count (limit).
    """
    if config.strict:
        _fail_if_rejected(rejected_in_run(games, config.periods))
    sanity.check_rejected_limit(rejected_in_run(games, config.periods), games, config)


def period_tables(result: PeriodResult) -> dict[str, pl.DataFrame | pl.LazyFrame]:
    """The tables a period writes, by name (``ratings``, ``audit``, ``rejected``)."""
    return {"ratings": result.ratings, "audit": result.audit, "rejected": result.rejected}


def write_result(
    out: str,
    result: PeriodResult,
    *,
    files: tuple[InputFile, ...],
    list_info: InputFile | None,
    config: RunConfig,
    output_options: dict[str, Any],
    started: dt.datetime,
    warnings: tuple[str, ...],
    stale_periods: tuple[str, ...] = (),
    duckdb_path: str | None = None,
) -> dict[str, str]:
    """Write one rated period under ``out``, its partitions and its manifest, as ``run`` does.

    Args:
        out: Output folder or object-store URI (see :func:`elo_batch.outputs.writers.write_period`).
        result: The period.
        files: The game inputs read, and ``list_info`` the list's (None without a list): for the manifest.
        config: The run's settings.
        output_options: ``format``, ``encoding``, ``csv_formulas`` (``escape`` when not given: see
            :mod:`elo_batch.outputs.formulas`) and ``table_format`` (``parquet``: hive folders, the default;
            ``delta``: Delta tables, :mod:`elo_batch.outputs.delta`), recorded in the manifest's options.
        started: When the run started.
        warnings: Everything the run warns about for this period (inputs and rating).
        stale_periods: Later periods in ``out`` built on the list this period replaces (manifest
            ``stale_periods``).
        duckdb_path: Also load the period into this DuckDB file, committed together with the
            partitions (see :func:`_write`).

    Returns:
        Table name (and ``manifest``) -> written file.

    Raises:
        OutputError: as :func:`elo_batch.outputs.writers.write_period`.
    """
    manifest = _manifest(result, files, list_info, config, output_options, started, warnings)
    manifest["stale_periods"] = list(stale_periods)
    if output_options.get("table_format") == "delta":
        return _write_delta(out, result.period, period_tables(result), manifest, duckdb_path)
    formulas = output_options.get("csv_formulas", "escape")
    return _write(out, result.period, period_tables(result), manifest, output_options["format"], duckdb_path, formulas)


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
    lock_timeout: float = outlock.DEFAULT_TIMEOUT,
    on_lock_wait: Callable[[str], None] | None = None,
    table_format: str = "parquet",
    ratings_period: str | None = None,
    events_path: str | None = None,
    engine: Engine | None = None,
) -> list[PeriodSummary]:
    """Rate every period of ``config`` and write its partitions under ``out``.

    Order: take ``out``'s lock (where ``out`` is a folder that exists) and recover what a killed run
    left half committed, read and check every input, check ``--strict`` and ``--max-rejected``, check
    that ``out`` is writable, then rate and write period by period; so an input read from ``out`` (last
    month's list) is always a committed period, and a bad input or an unwritable ``out`` fails before
    any rating and before anything is written. The lock is held to the end of the run: other runs into
    ``out`` wait. Likely mistakes that do not stop the run (see :mod:`elo_batch.sanity`) are in each
    period's warnings; the manifest of the last period names the later periods of ``out`` it leaves
    stale (``stale_periods``).

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
            quote) or ``keep``; see :mod:`elo_batch.outputs.formulas`.
        lock_timeout: Seconds to wait while another writer holds the lock of ``out``.
        on_lock_wait: Called with the holder's description when the lock of ``out`` is found held.
        table_format: ``parquet`` (hive folders) or ``delta`` (Delta tables, :mod:`elo_batch.outputs.delta`:
            what a run killed between their commits left is rolled back first, and said in the
            first period's warnings).
        ratings_period: Take the list from this period of the ratings table ``ratings_path``
            (:mod:`elo_batch.inputs.tablelist`).
        events_path: The events file (one row per event_id), or None.
        engine: Read the games and rate the periods there (the Spark engine); None: here, locally.

    Returns:
        One summary per period, in order.

    Raises:
        UsageError: a period has no supported rule set, or ``encoding`` is unknown.
        InputMissingError: an input file is missing or unreadable.
        InputDataError: an input cannot be rated as given.
        StrictRejectError: ``config.strict`` and a row was rejected, or more rows were rejected than
            ``config.max_rejected`` allows (nothing is written).
        OutputError: the outputs cannot be written (the previous outputs of the period are kept), or
            another writer held the lock of ``out`` for longer than ``lock_timeout``.
    """
    out = objectstore.local_path(out)  # a file: URL is the folder it names
    with contextlib.ExitStack() as held:

        def hold() -> None:  # out's lock, leftovers recovered; once more when out is created (then a no-op)
            if not objectstore.is_object_store(out) and Path(out).is_dir():
                held.enter_context(
                    atomic.locked_output(Path(out), lock_timeout=lock_timeout, on_lock_wait=on_lock_wait)
                )

        hold()  # before any input is read from out
        tables = (table_format, ratings_period)
        return _run(
            games_paths,
            config,
            ratings_path,
            out,
            fmt,
            encoding,
            on_period,
            on_progress,
            duckdb_path,
            csv_formulas,
            hold,
            tables,
            events_path,
            engine,
        )


def _run(
    games_paths: list[str],
    config: RunConfig,
    ratings_path: str | None,
    out: str,
    fmt: Format,
    encoding: str | None,
    on_period: Callable[[PeriodSummary], None] | None,
    on_progress: Progress | None,
    duckdb_path: str | None,
    csv_formulas: CsvFormulas,
    hold: Callable[[], None],
    tables: tuple[str, str | None] = ("parquet", None),
    events_path: str | None = None,
    engine: Engine | None = None,
) -> list[PeriodSummary]:
    started = dt.datetime.now(dt.UTC)
    table_format, ratings_period = tables
    delta.check_out(out, table_format, fmt)
    repaired = delta.recover(out, config.periods) if table_format == "delta" and Path(out).is_dir() else ()
    if duckdb_path:
        warehouse.check_available(duckdb_path)
    if objectstore.is_object_store(out):
        objectstore.check_available(out)
    progress = on_progress or (lambda step, done, total: None)
    total = 1 + 2 * len(config.periods)
    progress(f"reading {len(games_paths)} input(s)", 0, total)
    games, rating_list, list_info = load_inputs(
        games_paths, ratings_path, config, encoding, out, ratings_period, events=events_path, engine=engine
    )
    bands = load_bands(run_bands(config), encoding=encoding)
    notes = input_warnings(games, rating_list, list_info) + sanity.input_notes(games, rating_list, list_info, config)
    notes = repaired + notes
    check_strict(games, config)
    check_writable(out)
    hold()
    stale = sanity.later_periods(out, config.periods)
    summaries = []
    results = (engine.rate_periods if engine is not None else rate_periods)(games, rating_list, config, bands=bands)
    for index, period in enumerate(config.periods):
        progress(f"rating {period}", 1 + 2 * index, total)
        result = next(results)
        progress(f"writing {period}", 2 + 2 * index, total)
        left_stale = stale if index == len(config.periods) - 1 else ()
        warnings = (
            notes + result.warnings + sanity.period_notes(result, list_given=rating_list is not None, stale=left_stale)
        )
        outputs = write_result(
            out,
            result,
            files=games.files,
            list_info=list_info,
            config=config,
            output_options={
                "format": fmt,
                "encoding": encoding,
                "csv_formulas": csv_formulas,
                "table_format": table_format,
            },
            started=started,
            warnings=warnings,
            stale_periods=left_stale,
            duckdb_path=duckdb_path,
        )
        summary = _summary(result, warnings, outputs)
        summaries.append(summary)
        if on_period:
            on_period(summary)
    progress("done", total, total)
    return summaries


@_in_chunks
def validate(
    games_paths: Sequence[str | FrameInput],
    *,
    config: RunConfig,
    ratings_path: str | Sequence[str] | FrameInput | None,
    encoding: str | None = None,
    on_progress: Progress | None = None,
    events_path: str | FrameInput | None = None,
    ratings_period: str | None = None,
    bands: pl.DataFrame | None = None,
) -> ValidationReport:
    """Run every check of ``run`` and report, writing nothing.

    With ``config.periods``, the periods are also rated in memory, so the counts are exactly those
    ``run`` would write to the manifest. Without, every row of every period is checked and the
    usable rows are counted per period.

    ``bands``: a band table in memory (the Python API), instead of ``config.bands``.

    Raises:
        As :func:`run`, except StrictRejectError and OutputError: rejected rows are in the report.
    """
    progress = on_progress or (lambda step, done, total: None)
    total = 1 + len(config.periods)
    progress(f"reading {len(games_paths)} input(s)", 0, total)
    games, rating_list, list_info = load_inputs(
        games_paths, ratings_path, config, encoding, None, ratings_period, events=events_path
    )
    table = load_bands(bands if bands is not None else run_bands(config), encoding=encoding)
    notes = input_warnings(games, rating_list, list_info) + sanity.input_notes(games, rating_list, list_info, config)
    summaries = []
    results = rate_periods(games, rating_list, config, bands=table)
    for index, period in enumerate(config.periods):
        progress(f"rating {period}", 1 + index, total)
        result = next(results)
        period_notes = sanity.period_notes(result, list_given=rating_list is not None)
        summaries.append(_summary(result, notes + result.warnings + period_notes, {}))
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


def _write(
    out: str,
    period: str,
    tables: dict[str, pl.DataFrame | pl.LazyFrame],
    manifest: dict[str, Any],
    fmt: Format,
    duckdb_path: str | None,
    csv_formulas: CsvFormulas = "escape",
) -> dict[str, str]:
    """Write a period's partitions and, with ``duckdb_path``, load it: into a folder both commit together
    (the database's commit comes between the partitions' swap and their commit; a failure of either
    puts both back); an object store has no such commit, so it is written first and the database's
    error says so."""
    if not duckdb_path:
        return write_period(out, period, tables, manifest, fmt, csv_formulas=csv_formulas)
    if objectstore.is_object_store(out):
        outputs = write_period(out, period, tables, manifest, fmt, csv_formulas=csv_formulas)
        note = f"The objects of period {period} under {out} were replaced: re-run the period to load it too."
        warehouse.load_period(duckdb_path, period, tables, note=note)
    else:
        note = f"The partitions of period {period} in {out} were kept as they were too."
        load = warehouse.PeriodLoad(duckdb_path, period, tables, note=note)
        outputs = write_period(out, period, tables, manifest, fmt, csv_formulas=csv_formulas, companion=load)
    return {**outputs, "duckdb": duckdb_path}


def _write_delta(
    out: str,
    period: str,
    tables: dict[str, pl.DataFrame | pl.LazyFrame],
    manifest: dict[str, Any],
    duckdb_path: str | None,
) -> dict[str, str]:
    """Write a period into the Delta tables of ``out``; with ``duckdb_path`` the database commits after
    the tables and before the manifest (see :func:`elo_batch.outputs.delta.write_period`)."""
    note = f"The Delta tables of {out} keep their rows of period {period} too."
    load = warehouse.PeriodLoad(duckdb_path, period, tables, note=note) if duckdb_path else None
    outputs = delta.write_period(out, period, tables, manifest, companion=load)
    return {**outputs, "duckdb": duckdb_path} if duckdb_path else outputs


def _summary(result: PeriodResult, warnings: tuple[str, ...], outputs: dict[str, str]) -> PeriodSummary:
    up, down = result.band_moves
    return PeriodSummary(
        result.period,
        result.rule_set.name,
        result.counts,
        dict(result.ratings.group_by(c.STATUS).len().sort(c.STATUS).iter_rows()),
        warnings,
        outputs,
        {"up": up, "down": down},
    )


def _fail_if_rejected(rejected: pl.DataFrame) -> None:
    if rejected.height == 0:
        return
    first = rejected.row(0, named=True)
    raise StrictRejectError(
        f"{rejected.height} row(s) rejected and {option('strict')} is set; nothing was written. "
        f"First: {first[c.REASON]}",
        path=first[c.SOURCE_FILE],
        row=first[c.SOURCE_ROW],
        column=first[c.COLUMN],
        value=first[c.VALUE],
        hint=f"fix the rows listed by `elo-batch validate`, or run without {option('strict')} to write them to "
        "rejected.",
    )


def _manifest(
    result: PeriodResult,
    files: tuple[InputFile, ...],
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
            "games": [_recorded(f) for f in files],
            "ratings": _recorded(list_info) if list_info else None,
            **({"events": _recorded(result.events_file)} if result.events_file else {}),
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


def _recorded(info: InputFile) -> dict[str, Any]:
    """What the manifest records of an input: all but its column names (kept for messages only)."""
    record = dataclasses.asdict(info)
    del record["header"]
    return record
