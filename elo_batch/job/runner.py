"""One run of ``elo-batch run`` or ``elo-batch validate``: read, check, rate each period, write.

The CLI's only entry to the work. Library code: raises :mod:`elo_batch.errors`, never prints or exits;
progress and summaries go to the callbacks the caller passes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import polars as pl

from elo_batch import columns as c
from elo_batch.config import RunConfig
from elo_batch.contract.tables import InputFile
from elo_batch.job import pipeline, sanity
from elo_batch.job.guards import Reason, rejected_reasons
from elo_batch.job.reading import Engine, rejected_in_run
from elo_batch.job.writing import Output, write_result
from elo_batch.lineage import tracking
from elo_batch.outputs import atomic, delta, outlock, warehouse
from elo_batch.outputs.writers import check_writable
from elo_batch.storage import objectstore

if TYPE_CHECKING:  # the engine (numpy among its imports) is loaded once the inputs are read
    from elo_batch.engine.period import Counts, RatedPeriod

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
        period: Month of play, ``YYYY-MM``.
        rule_set: Name of the rules applied (``fide-2025-10``, with overrides appended).
        counts: The reconciliation of the summary line (rows of the inputs).
        players: Players of the new list by ``status`` (``rated``, ``new``, ``unrated``) -> count.
        warnings: What the run warns about for this period, as the library words it (options named as
            keywords; the CLI shows them as flags).
        outputs: Table name -> written file; empty when nothing was written (``validate``).
        bands: Players whose band went up and down (``{"up": n, "down": m}``).
        rejected_reasons: The period's rejected rows by reason, grouped without their values, the
            most frequent first (at most :data:`elo_batch.job.guards.TOP_REASONS`): ``(column or None,
            reason, rows)``, e.g. ``("result", "'...' is not a result. Hint: ...", 3)``.
        rejected_more_reasons: Reasons left out of ``rejected_reasons``.
    """

    period: str
    rule_set: str
    counts: Counts
    players: dict[str, int]
    warnings: tuple[str, ...]
    outputs: dict[str, str]
    bands: dict[str, int] = dataclasses.field(default_factory=lambda: {"up": 0, "down": 0})
    rejected_reasons: tuple[Reason, ...] = ()
    rejected_more_reasons: int = 0


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


@_in_chunks
def run(
    sources: pipeline.Sources,
    *,
    config: RunConfig,
    out: str,
    output: Output | None = None,
    on_period: Callable[[PeriodSummary], None] | None = None,
    on_progress: Progress | None = None,
    lock_timeout: float = outlock.DEFAULT_TIMEOUT,
    on_lock_wait: Callable[[str], None] | None = None,
    engine: Engine | None = None,
) -> list[PeriodSummary]:
    """Rate every period of ``config`` and write its partitions under ``out``.

    Order: take ``out``'s lock (where ``out`` is a folder that exists) and recover what a killed run
    left half committed, read and check every input, check ``--strict`` and ``--max-rejected`` (by
    default: not every row rejected) and that the run has a rating source, check that ``out`` is
    writable, then rate and write period by period; so an input read from ``out`` (last month's list)
    is always a committed period, and a bad input or an unwritable ``out`` fails before
    any rating and before anything is written. The lock is held to the end of the run: other runs into
    ``out`` wait. Likely mistakes that do not stop the run (see :mod:`elo_batch.job.sanity`) are in each
    period's warnings; the manifest of the last period names the later periods of ``out`` it leaves
    stale (``stale_periods``).

    Args:
        sources: The inputs (games, list, events; ``sources.ratings_none``: a run without a rating
            source is meant, a new rating pool; else such a run is refused).
        config: The run's settings.
        out: Output folder.
        output: How the periods are written (:class:`~elo_batch.job.writing.Output`; None: defaults): ``delta`` tables
            roll back first what a run killed between their commits left, said in the first period's
            warnings.
        on_period: Called after each period is written (for logs).
        on_progress: Called before each step (reading, rating a period, writing it).
        lock_timeout: Seconds to wait while another writer holds the lock of ``out``.
        on_lock_wait: Called with the holder's description when the lock of ``out`` is found held.
        engine: Read the games and rate the periods there (the Spark engine); None: here
            (:class:`elo_batch.job.pipeline.LocalEngine`).

    Returns:
        One summary per period, in order.

    Raises:
        UsageError: a period has no supported rule set, or ``encoding`` is unknown.
        InputMissingError: an input file is missing or unreadable.
        InputDataError: an input cannot be rated as given.
        NoRatingSourceError: no list, ``ratings_none`` not set, and no game row of the periods carries a
            rating (nothing is written).
        StrictRejectError: ``config.strict`` and a row was rejected, or more rows were rejected than
            ``config.max_rejected`` allows, or (neither given) every row was rejected (nothing is written).
        OutputError: the outputs cannot be written (the previous outputs of the period are kept), or
            another writer held the lock of ``out`` for longer than ``lock_timeout``.
    """
    out = objectstore.local_path(out)  # a file: URL is the folder it names
    with tracking.tracked(out, config.periods) as on_written, contextlib.ExitStack() as held:

        def hold() -> None:  # out's lock, leftovers recovered; once more when out is created (then a no-op)
            if not objectstore.is_object_store(out) and Path(out).is_dir():
                held.enter_context(
                    atomic.locked_output(Path(out), lock_timeout=lock_timeout, on_lock_wait=on_lock_wait)
                )

        hold()  # before any input is read from out
        where = engine if engine is not None else pipeline.LocalEngine()
        chosen = output or Output()
        return _run(sources, config=config, out=out, output=chosen, hold=hold, engine=where, on_period=on_period,
                    on_progress=on_progress, on_written=on_written)  # fmt: skip


def _run(
    sources: pipeline.Sources,
    *,
    config: RunConfig,
    out: str,
    output: Output,
    hold: Callable[[], None],
    engine: Engine,
    on_period: Callable[[PeriodSummary], None] | None,
    on_progress: Progress | None,
    on_written: tracking.OnWritten,
) -> list[PeriodSummary]:
    started = dt.datetime.now(dt.UTC)
    repaired = _check_out(out, config, output)
    progress = on_progress or (lambda step, done, total: None)
    progress(f"reading {len(sources.games)} input(s)", 0, 1 + 2 * len(config.periods))
    checked = pipeline.check_inputs(sources, config, engine, out=out)
    checked = dataclasses.replace(checked, notes=repaired + checked.notes)
    check_writable(out)
    hold()
    delta.check_out(out, output.table_format, output.format)  # again under the lock: another run may have written
    written = _Written(sources=sources, checked=checked, out=out, config=config, output=output, started=started,
                       on_written=on_written)  # fmt: skip
    summaries = []
    for summary in _rate_and_write(written, engine, progress=progress):
        summaries.append(summary)
        if on_period:
            on_period(summary)
    return summaries


def _check_out(out: str, config: RunConfig, output: Output) -> tuple[str, ...]:
    """Refuse, before any input is read, an ``out`` the run cannot write as asked; the notes of the Delta
    tables a killed run left half committed and this run rolled back."""
    delta.check_out(out, output.table_format, output.format)
    repaired = delta.recover(out, config.periods) if output.table_format == "delta" and Path(out).is_dir() else ()
    if output.duckdb:
        warehouse.check_available(output.duckdb)
    if objectstore.is_object_store(out):
        objectstore.check_available(out)
    return repaired


@dataclass(frozen=True, kw_only=True)
class _Written:
    """What writing each period of a run needs beside its result: the checked inputs and where they go."""

    sources: pipeline.Sources
    checked: pipeline.Checked
    out: str
    config: RunConfig
    output: Output
    started: dt.datetime
    on_written: tracking.OnWritten


def _rate_and_write(written: _Written, engine: Engine, *, progress: Progress) -> Iterator[PeriodSummary]:
    """Each period rated and written in order, its summary given once it is written; the last period's
    manifest names the later periods of ``out`` built on the list it replaces."""
    config, checked = written.config, written.checked
    stale = sanity.later_periods(written.out, config.periods)
    total = 1 + 2 * len(config.periods)
    results = pipeline.rate(checked, config, engine)
    for index, period in enumerate(config.periods):
        progress(f"rating {period}", 1 + 2 * index, total)
        result = next(results)
        progress(f"writing {period}", 2 + 2 * index, total)
        left_stale = stale if index == len(config.periods) - 1 else ()
        warnings = checked.warnings(result, stale=left_stale)
        outputs = write_result(
            written.out, result, files=checked.games.files, list_info=checked.list_info,
            events_file=result.events_file, config=config, output=written.output, encoding=written.sources.encoding,
            started=written.started, warnings=warnings,
            stale_periods=left_stale, on_manifest=written.on_written,
        )  # fmt: skip
        yield _summary(result, warnings, outputs)
    progress("done", total, total)


@_in_chunks
def validate(sources: pipeline.Sources, *, config: RunConfig, on_progress: Progress | None = None) -> ValidationReport:
    """Run every check of ``run`` and report, writing nothing.

    With ``config.periods``, the periods are also rated in memory, so the counts are exactly those
    ``run`` would write to the manifest. Without, every row of every period is checked and the
    usable rows are counted per period.

    ``sources.bands``: a band table in memory (the Python API), instead of ``config.bands``.
    ``sources.ratings_none``: as for :func:`run` (the guard judges the rows of ``config.periods``: none
    without periods).

    Raises:
        As :func:`run`, except StrictRejectError and OutputError: rejected rows are in the report.
    """
    progress = on_progress or (lambda step, done, total: None)
    total = 1 + len(config.periods)
    progress(f"reading {len(sources.games)} input(s)", 0, total)
    engine = pipeline.LocalEngine()
    checked = pipeline.check_inputs(sources, config, engine, strict=False)
    summaries = []
    results = pipeline.rate(checked, config, engine)
    for index, period in enumerate(config.periods):
        progress(f"rating {period}", 1 + index, total)
        result = next(results)
        summaries.append(_summary(result, checked.warnings(result), {}))
    progress("done", total, total)
    return _report(checked, config, tuple(summaries))


def _report(checked: pipeline.Checked, config: RunConfig, summaries: tuple[PeriodSummary, ...]) -> ValidationReport:
    """What ``validate`` reports of checked inputs and the periods it rated: without periods, the usable
    rows of each period instead."""
    games = checked.games
    usable = games.rows.lazy().group_by(c.PERIOD).len().sort(c.PERIOD).collect(engine="streaming")
    return ValidationReport(
        files=games.files,
        rows_read=games.rows_read,
        rejected=rejected_in_run(games, config.periods) if config.periods else games.rejected,
        periods=summaries,
        usable_by_period={} if config.periods else dict(usable.iter_rows()),
        warnings=checked.notes,
    )


def _summary(result: RatedPeriod, warnings: tuple[str, ...], outputs: dict[str, str]) -> PeriodSummary:
    up, down = result.band_moves
    reasons, more = rejected_reasons(result.rejected)
    return PeriodSummary(
        result.period,
        result.rule_set.name,
        result.counts,
        dict(result.ratings.group_by(c.STATUS).len().sort(c.STATUS).iter_rows()),
        warnings,
        outputs,
        {"up": up, "down": down},
        reasons,
        more,
    )
