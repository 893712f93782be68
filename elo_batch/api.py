"""The public Python API: frames or paths in, rated periods out, written as the CLI writes them.

Everything here goes through the same reading, checking, rating and writing code as ``elo-batch run``
(:mod:`elo_batch.runner`); a frame is read as a file of its columns would be. Library code: raises
:mod:`elo_batch.errors`, never prints or exits.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypedDict, Unpack

import polars as pl

from elo_batch import runner, sanity
from elo_batch.config import RunConfig
from elo_batch.engine.period import Counts
from elo_batch.engine.period import PeriodResult as EngineResult
from elo_batch.engine.period import rate_periods as rate_engine_periods
from elo_batch.errors import UsageError
from elo_batch.inputs.bandsfile import load_bands
from elo_batch.inputs.readers import FrameInput, InputFile, check_encoding
from elo_batch.outputs import atomic, delta, objectstore
from elo_batch.outputs.writers import check_writable
from elo_batch.rules.sets import RuleSet
from elo_batch.runner import ValidationReport

if TYPE_CHECKING:  # pyarrow is imported when a caller hands over one of its tables (and has imported it)
    import pyarrow as pa

#: A table in memory: polars DataFrame or LazyFrame, or pyarrow Table.
Frame: TypeAlias = "pl.DataFrame | pl.LazyFrame | pa.Table"
#: Games or a rating list: a table in memory, or files (a path, a glob, a folder, or a list of them).
Source: TypeAlias = "Frame | str | os.PathLike[str] | Sequence[str | os.PathLike[str]]"


class Options(TypedDict, total=False):
    """The options of a run, as keywords: the CLI's flags without dashes (``--cap-400``: ``cap_400``).

    Attributes:
        rule_set: Force a rule set (``fide-2022-01``, ``fide-2024-03``, ``fide-2025-10``, ``elo``).
        list_kind: ``standard`` (default), ``rapid`` or ``blitz`` (the CLI's ``--list``).
        expected: ``table`` (FIDE 8.1.2) or ``formula`` (logistic); default: the rule set's.
        cap_400: The 400-point rule: ``auto`` (default: per rule set), ``always`` or ``never``.
        k: One K for every player (1..100).
        rule_700: False: do not reduce K when K x n > 700 (the CLI's ``--no-700-rule``); True: do.
        rounding: ``period`` (round once), ``game`` (each game) or ``none`` (2 decimals).
        strict: Raise :class:`~elo_batch.errors.StrictRejectError` when any row of the periods is
            rejected (``rate_period``, ``rate_periods``).
        chunk_rows: Parquet files and LazyFrames of more rows are read and rated in chunks of at most
            this many rows (default 20 000 000).
        max_rejected: Raise :class:`~elo_batch.errors.StrictRejectError` when more rows than this are
            rejected: a number of rows (``10``) or a percentage of the rows of the periods rated (``"2.5%"``).
        encoding: Force the text encoding of CSV inputs.
        source_name: What the rows of a games frame get in ``source_file`` (default: null).
        events: The events, one row per ``event_id`` (``event_type``, ``match_games``,
            ``rate_all_games``, ``event_start``, ``event_end``, ``period``): a table or a CSV/Parquet path.
        period_by: ``date`` (default: a game's period, else its date, decides its month) or ``event``
            (an event is rated whole, in its period, else by the closing-date rule of B.02 7.1.3).
        ratings_period: ``ratings`` is the folder of a ratings table elo-batch wrote (``out/ratings``: a
            Delta table, or hive folders): take the list from this period (``YYYY-MM``). A Delta table
            without it gives the month before the first period rated.
        bands: The band table of the new list's ``band`` (the CLI's ``--bands``): a CSV or Parquet path,
            or a polars DataFrame, columns ``band`` and ``min_rating``; default: the table of
            ``elo_batch/rules/bands.csv``.
    """

    rule_set: str | None
    list_kind: Literal["standard", "rapid", "blitz"]
    expected: Literal["table", "formula"] | None
    cap_400: Literal["auto", "always", "never"]
    k: int | None
    rule_700: bool | None
    rounding: Literal["period", "game", "none"] | None
    strict: bool
    chunk_rows: int
    max_rejected: int | str | None
    encoding: str | None
    source_name: str | None
    events: Frame | str | os.PathLike[str] | None
    period_by: Literal["date", "event"]
    ratings_period: str | None
    bands: str | os.PathLike[str] | pl.DataFrame | None


_CONFIG_OPTIONS = (
    "rule_set", "list_kind", "expected", "cap_400", "k", "rule_700", "rounding", "strict", "chunk_rows", "max_rejected",
    "period_by",
)  # fmt: skip
_OPTIONS = (*_CONFIG_OPTIONS, "encoding", "source_name", "events", "ratings_period", "bands")


@dataclass(frozen=True, eq=False)
class PeriodResult:
    """One rated period: exactly the tables and counts ``elo-batch run`` writes for it.

    Attributes:
        period: Month of play, ``YYYY-MM``.
        rule_set: The rules applied (``rule_set.name``: ``fide-2025-10``, with overrides appended).
        ratings: The new rating list, one row per player, sorted by ``player_id``: the columns and
            values of ``ratings/period=.../part-0.parquet``; usable as ``ratings`` of the next period.
        audit: One row per game and side considered, in input order, as ``audit/`` holds it: a lazy plan
            (collect it, or sink it: it can be large).
        rejected: Input rows that could not be used, with ``source_file`` (a file, the games frame's
            ``source_name``, or null), ``source_row`` (1-based, in the file or frame), column and reason.
        counts: The reconciliation: ``rows_read == counted + not_counted + other_periods + rejected``.
        warnings: What the run warns about for this period (the inputs, then the rating).
        audit_rows: Rows of ``audit``.
    """

    period: str
    rule_set: RuleSet
    ratings: pl.DataFrame
    audit: pl.LazyFrame
    rejected: pl.DataFrame
    counts: Counts
    warnings: tuple[str, ...]
    audit_rows: int
    _written: _Inputs = dataclasses.field(repr=False)
    _result: EngineResult = dataclasses.field(repr=False)


@dataclass(frozen=True)
class _Inputs:
    """What a period's manifest records about the run that rated it."""

    files: tuple[InputFile, ...]
    list_info: InputFile | None
    config: RunConfig
    encoding: str | None
    started: dt.datetime


def rate_period(
    games: Source,
    *,
    period: str,
    ratings: Source | None = None,
    rules: Literal["fide", "elo"] = "fide",
    **options: Unpack[Options],
) -> PeriodResult:
    """Rate one month of play, as ``elo-batch run GAMES --period PERIOD [--ratings LIST]`` does.

    Args:
        games: The games, in either shape of the contract (``white_id, black_id, result, date`` or the
            one-sided ``player_id, opponent_rating, result``): a polars DataFrame or LazyFrame, a pyarrow
            Table, or CSV/Parquet paths (a path, glob or folder, or a list of them).
        period: The month, ``YYYY-MM``.
        ratings: The list in force, of the same kinds; None: ratings from the game rows.
        rules: ``fide`` (the regulations in force for the period) or ``elo`` (classic Elo).
        **options: See :class:`Options`.

    Returns:
        The period's new list, audit, rejected rows and counts.

    Raises:
        TypeError: an unknown option, or ``games``/``ratings`` of a type that is not a table or paths.
        UsageError: a bad option value, or ``period`` is not one month.
        InputMissingError: an input file is missing or unreadable.
        InputDataError: an input cannot be rated as given (StrictRejectError with ``strict``).

    Example:
        >>> import polars as pl, elo_batch
        >>> games = pl.DataFrame({"white_id": ["A"], "black_id": ["B"], "result": ["1-0"], "date": ["2025-11-03"]})
        >>> ratings = pl.DataFrame({"player_id": ["A", "B"], "rating": [2000, 2000], "k": [20, 20]})
        >>> result = elo_batch.rate_period(games, period="2025-11", ratings=ratings)
        >>> result.ratings.select("player_id", "rating", "change").rows()
        [('A', 2010, 10), ('B', 1990, -10)]
    """
    _check_options("rate_period", options, _OPTIONS)
    config = _config(_given(period, "period"), rules, options)
    if len(config.periods) != 1:
        raise UsageError(
            f"{period!r} is a range of periods",
            option="period",
            hint="give one month YYYY-MM, or rate a range with rate_periods().",
        )
    return next(_rate(games, ratings, config, options))


def rate_periods(
    games: Source,
    *,
    periods: str,
    ratings: Source | None = None,
    rules: Literal["fide", "elo"] = "fide",
    **options: Unpack[Options],
) -> Iterator[PeriodResult]:
    """Rate a range of months in order, each from the list the previous month produced, as
    ``elo-batch run --period FIRST..LAST`` does.

    The inputs are read and checked by this call (errors are raised here); each month is rated when
    the iterator reaches it.

    Args:
        games, ratings, rules, options: As :func:`rate_period`; ``ratings`` is the list in force before
            the first month.
        periods: ``YYYY-MM..YYYY-MM`` (both ends included), or one month.

    Returns:
        One :class:`PeriodResult` per month, in order.

    Raises:
        As :func:`rate_period`.
    """
    _check_options("rate_periods", options, _OPTIONS)
    return _rate(games, ratings, _config(_given(periods, "periods"), rules, options, name="periods"), options)


def write_period(
    result: PeriodResult,
    out: str | os.PathLike[str],
    *,
    format: Literal["parquet", "csv"] = "parquet",
    csv_formulas: Literal["escape", "keep"] = "escape",
    table_format: Literal["parquet", "delta"] = "parquet",
) -> dict[str, str]:
    """Write a rated period as ``elo-batch run`` does: ``OUT/ratings|audit|rejected/period=YYYY-MM/``
    and its manifest, atomically, replacing only that period's partitions.

    Args:
        result: A period from :func:`rate_period` or :func:`rate_periods`.
        out: Output folder, or an object-store URI (``s3://bucket/prefix``).
        format: ``parquet`` or ``csv``.
        csv_formulas: With ``csv``: ``escape`` (text cells a spreadsheet would run as formulas get a
            leading quote; ids and numbers never, see :mod:`elo_batch.outputs.formulas`) or ``keep``.
        table_format: ``parquet`` (hive folders) or ``delta``: ``OUT/ratings``, ``OUT/audit`` and
            ``OUT/rejected`` as Delta Lake tables partitioned by ``period``, the period replaced by one
            commit per table, then its manifest (a local folder; ``pip install 'elo-batch[delta]'``).

    Returns:
        Table name (and ``manifest``) -> written file (Delta: the table's folder).

    Raises:
        UsageError: ``format`` is not parquet or csv, ``csv_formulas`` not escape or keep, ``table_format``
            not parquet or delta (delta needs parquet, a local folder and the deltalake package).
        OutputError: ``out`` cannot be written (the period's previous outputs are kept), or holds tables of
            the other ``table_format``.
    """
    if format not in ("parquet", "csv"):
        raise UsageError(f"{format!r} is not an output format", option="format", hint="use parquet or csv.")
    if csv_formulas not in ("escape", "keep"):
        raise UsageError(
            f"{csv_formulas!r} is not a way to write formula-like cells",
            option="csv_formulas",
            hint="use escape or keep.",
        )
    target = os.fspath(out)
    delta.check_out(target, table_format, format)
    if objectstore.is_object_store(target):
        objectstore.check_available(target)
    check_writable(target)
    inputs = result._written
    return runner.write_result(
        target,
        result._result,
        files=inputs.files,
        list_info=inputs.list_info,
        config=inputs.config,
        output_options={
            "format": format,
            "encoding": inputs.encoding,
            "csv_formulas": csv_formulas,
            "table_format": table_format,
        },
        started=inputs.started,
        warnings=result.warnings,
        stale_periods=sanity.later_periods(target, (result.period,)),
    )


@contextlib.contextmanager
def locked_output(out: str | os.PathLike[str]) -> Iterator[Path]:
    """Hold the lock of the output folder ``out`` around reading from it and writing to it.

    A caller that reads its rating list from the folder it writes (last month's
    ``out/ratings/period=YYYY-MM``) enters this before it reads: it waits for any other writer of
    ``out`` and puts back what a run killed in the middle of its commit left half swapped (Delta
    tables: rolled back to the versions their manifests name), so only committed periods are read;
    :func:`write_period` inside the block uses the lock already held. The CLI does the same for every
    run.

    Args:
        out: A local output folder (created if missing). Object stores have no lock.

    Yields:
        ``out`` as a Path.

    Raises:
        UsageError: ``out`` is an object-store URI.
        OutputError: ``out`` cannot be created, locked or recovered.
    """
    target = os.fspath(out)
    if objectstore.is_object_store(target):
        raise UsageError(f"{target!r} is an object store: it has no lock", option="out", hint="give a local folder.")
    with atomic.locked_output(Path(target)) as root:
        if any(delta.is_table(root / name) for name in delta.ORDER):
            delta.recover(str(root))
        yield root


def validate(
    games: Source,
    *,
    ratings: Source | None = None,
    period: str | None = None,
    rules: Literal["fide", "elo"] = "fide",
    **options: Unpack[Options],
) -> ValidationReport:
    """Check the inputs as ``elo-batch validate`` does, writing nothing.

    Args:
        games, ratings, rules, options: As :func:`rate_period` (``strict`` aside: rejected rows are
            reported, not raised).
        period: A month or a range: those months are also rated in memory, and the report holds the
            counts ``run`` would write. None: every row of every period is checked.

    Returns:
        The report: rejected rows, rows read, per-period summaries or usable rows per period, warnings.

    Raises:
        As :func:`rate_period`, except StrictRejectError.
    """
    _check_options("validate", options, tuple(name for name in _OPTIONS if name != "strict"))
    config = _config(period, rules, options)
    check_encoding(options.get("encoding"))
    return runner.validate(
        _games_sources(games, options.get("source_name")),
        config=config,
        ratings_path=_list_source(ratings),
        encoding=options.get("encoding"),
        events_path=_events_source(options.get("events")),
        ratings_period=options.get("ratings_period"),
        bands=_bands_frame(options),
    )


def _check_options(function: str, options: Mapping[str, object], allowed: tuple[str, ...]) -> None:
    unknown = [name for name in options if name not in allowed]
    if unknown:
        raise TypeError(
            f"{function}() got unknown option(s) {', '.join(map(repr, unknown))}; "
            f"the options are: rules, {', '.join(allowed)}"
        )


def _given(periods: str, name: str) -> str:
    """``periods``, which must be given (None means "every period" to ``validate`` only)."""
    if periods is None:
        raise UsageError("no period given", option=name, hint="give a month of play, 'YYYY-MM'.")
    return periods


def _config(periods: str | None, rules: str, options: Options, *, name: str = "period") -> RunConfig:
    """The run's config; an error about its periods names the parameter they came in (``name``)."""
    chosen: dict[str, Any] = {key: options[key] for key in _CONFIG_OPTIONS if key in options}  # type: ignore[literal-required]
    bands = options.get("bands")
    if isinstance(bands, str | os.PathLike):
        chosen["bands"] = os.fspath(bands)
    elif bands is not None and not isinstance(bands, pl.DataFrame):
        raise TypeError(f"bands must be a path or a polars DataFrame, not {type(bands).__name__}")
    try:
        return RunConfig.from_options(periods, rules=rules, **chosen)
    except UsageError as exc:
        if exc.option == "period" and name != "period":
            exc.option = name
            exc.args = (exc.render(),)
        raise


def _rate(games: Source, ratings: Source | None, config: RunConfig, options: Options) -> Iterator[PeriodResult]:
    """Read and check the inputs now; rate the periods as the iterator is advanced."""
    started = dt.datetime.now(dt.UTC)
    encoding = options.get("encoding")
    check_encoding(encoding)
    with runner.in_chunks(config):
        loaded, rating_list, list_info = runner.load_inputs(
            _games_sources(games, options.get("source_name")),
            _list_source(ratings),
            config,
            encoding,
            events=_events_source(options.get("events")),
            ratings_period=options.get("ratings_period"),
        )
    notes = runner.input_warnings(loaded, rating_list, list_info) + sanity.input_notes(
        loaded, rating_list, list_info, config
    )
    runner.check_strict(loaded, config)
    frame = _bands_frame(options)
    bands = load_bands(frame if frame is not None else runner.run_bands(config), encoding=encoding)
    inputs = _Inputs(loaded.files, list_info, config, encoding, started)
    results = rate_engine_periods(loaded, rating_list, config, bands=bands)

    def periods() -> Iterator[PeriodResult]:
        for _ in config.periods:
            with runner.in_chunks(config):
                result = next(results)
            yield PeriodResult(
                result.period,
                result.rule_set,
                result.ratings,
                result.audit,
                result.rejected,
                result.counts,
                notes + result.warnings + sanity.period_notes(result, list_given=rating_list is not None),
                result.audit_rows,
                inputs,
                result,
            )

    return periods()


def _bands_frame(options: Options) -> pl.DataFrame | None:
    """The band table given as a frame (a path goes through the run's config)."""
    bands = options.get("bands")
    return bands if isinstance(bands, pl.DataFrame) else None


def _games_sources(games: Source, name: str | None) -> list[str | FrameInput]:
    """``games`` as the runner reads them: a frame, or paths."""
    if name is not None and not isinstance(name, str):
        raise TypeError(f"source_name must be text or None, not {type(name).__name__}")
    source = _source(games, "games", name)
    return list(source) if isinstance(source, list) else [source]


def _list_source(ratings: Source | None) -> str | list[str] | FrameInput | None:
    return None if ratings is None else _source(ratings, "ratings", None)


def _events_source(events: object) -> str | FrameInput | None:
    if events is None:
        return None
    source = _source(events, "events", None)  # type: ignore[arg-type]
    if isinstance(source, list):
        raise TypeError("events must be one table or one file path, not a list")
    return source


def _source(value: Source, parameter: str, name: str | None) -> str | list[str] | FrameInput:
    arrow = sys.modules.get("pyarrow")  # a pyarrow table exists only once pyarrow is imported
    if isinstance(value, pl.DataFrame | pl.LazyFrame) or (arrow and isinstance(value, arrow.Table | arrow.RecordBatch)):
        return FrameInput(value, name, parameter)
    if isinstance(value, str | os.PathLike):
        return os.fspath(value)
    if isinstance(value, list | tuple) and value and all(isinstance(item, str | os.PathLike) for item in value):
        return [os.fspath(item) for item in value]
    raise TypeError(
        f"{parameter} must be a polars DataFrame or LazyFrame, a pyarrow Table, or paths (a str or Path, "
        f"or a list of them), not {type(value).__name__}"
        + (" (an empty list)" if isinstance(value, list | tuple) and not value else "")
    )


__all__ = [
    "Frame", "Options", "PeriodResult", "Source", "locked_output", "rate_period", "rate_periods", "validate",
    "write_period",
]  # fmt: skip
