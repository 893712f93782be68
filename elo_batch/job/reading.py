"""A run's inputs: the games, the list and the events read and checked; warnings about them; the strict checks.

Library code: raises :mod:`elo_batch.errors`, never prints or exits.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

import polars as pl

from elo_batch import columns as c
from elo_batch.choices import PeriodBy
from elo_batch.config import RunConfig
from elo_batch.contract.mapping import ColumnMap
from elo_batch.contract.tables import GamesInput, InputFile
from elo_batch.errors import option
from elo_batch.inputs import tablelist
from elo_batch.inputs.eventsfile import load_events
from elo_batch.inputs.ratinglist import check_pending, load_rating_list
from elo_batch.inputs.readers import FrameInput
from elo_batch.job import guards, sanity
from elo_batch.job.sanity import Alike
from elo_batch.rules.bands import Bands
from elo_batch.storage import objectstore

if TYPE_CHECKING:  # the engine (numpy among its imports) is loaded once the inputs are read
    from elo_batch.engine.period import RatedPeriod

T = TypeVar("T")


class Engine(Protocol):
    """Where a run's games are read and checked and its periods rated: here
    (:class:`elo_batch.job.pipeline.LocalEngine`) or on Spark (:class:`elo_batch.spark.SparkEngine`).
    Everything else (the list, the events file, the checks, the writers, the lock) is the pipeline's
    (:mod:`elo_batch.job.pipeline`)."""

    def load_games(
        self,
        paths: Sequence[str | FrameInput],
        *,
        fractional_ratings: bool,
        encoding: str | None,
        exclude: tuple[str, ...],
        chunk_rows: int | None,
        columns: ColumnMap | None = None,
    ) -> GamesInput:
        """Read and check the games, as :func:`elo_batch.inputs.validate.load_games`."""

    def settle(
        self, games: GamesInput, table: pl.DataFrame | None, period_by: PeriodBy, *, source: InputFile | None = None
    ) -> GamesInput:
        """The games' event facts, as :func:`elo_batch.engine.events.settle`."""

    def rate_periods(
        self, games: GamesInput, rating_list: pl.DataFrame | None, config: RunConfig, *, bands: Bands | None = None
    ) -> Iterator[RatedPeriod]:
        """Rate the periods, as :func:`elo_batch.engine.period.rate_periods`."""

    def game_ratings_in(self, games: GamesInput, periods: tuple[str, ...]) -> bool:
        """Whether a game row of ``periods`` carries a rating, as :func:`elo_batch.job.guards.game_ratings_in`."""

    def alike_rows(self, games: GamesInput, periods: tuple[str, ...]) -> Alike | None:
        """Rows alike that may be one game entered twice, as :func:`elo_batch.job.sanity.alike_rows`."""


def load_inputs(
    games_paths: Sequence[str | FrameInput],
    ratings_path: str | Sequence[str] | FrameInput | None,
    config: RunConfig,
    *,
    encoding: str | None = None,
    out: str | None = None,
    ratings_period: str | None = None,
    events: str | FrameInput | None = None,
    engine: Engine,
    columns: ColumnMap | None = None,
    list_columns: ColumnMap | None = None,
) -> tuple[GamesInput, pl.DataFrame | None, InputFile | None]:
    """Read and check the games, the list and the events of a run (rule sets are checked first, before
    any reading); the games come with their event facts (``GamesInput.events``, rows contradicting their
    event rejected, by event each row in its event's period; see :func:`elo_batch.engine.events.settle`).

    A games folder or glob never picks up the run's own rating list, events file or output folder. Paths
    may be ``file:`` URLs. Frames (the Python API) are read and checked as files are. With
    ``ratings_period`` (or a ratings table as the list: a Delta table, or hive ``period=YYYY-MM`` folders),
    the list is that period of the table (:mod:`elo_batch.inputs.tablelist`); a list a period of an
    output wrote is checked against that period's manifest (:mod:`elo_batch.inputs.listchain`). The
    games are read and settled by ``engine``. ``columns`` and ``list_columns``: the column mappings of the
    games and of the list (``--columns``, ``--list-columns``).

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
    fractional = config.fractional_ratings  # each period's rule set (a usage error first)
    tablelist.check(ratings_path, ratings_period, config.periods)
    named = [] if ratings_path is None or isinstance(ratings_path, FrameInput) else ratings_path
    list_paths = [named] if isinstance(named, str) else list(named)
    events_path = events if isinstance(events, str) else None
    own = tuple(path for path in (*list_paths, out, events_path) if path and not objectstore.is_object_store(path))

    def read_list() -> tuple[pl.DataFrame | None, InputFile | None]:
        if isinstance(ratings_path, str) and tablelist.applies(ratings_path, ratings_period):  # a table's period
            return tablelist.load(
                ratings_path, ratings_period, config.periods, fractional_ratings=fractional, encoding=encoding,
                columns=list_columns,
            )  # fmt: skip
        if ratings_path:
            return load_rating_list(
                ratings_path, fractional_ratings=fractional, encoding=encoding, columns=list_columns
            )
        return None, None

    # The list is read while the games are (polars reads without the GIL; 200k games and a 1.6M list:
    # 0.31 -> 0.25 s); the games' error, if any, is raised first, as when they were read first.
    with concurrent.futures.ThreadPoolExecutor(1) as reader:
        listed = reader.submit(read_list)
        games = engine.load_games(
            games_paths, fractional_ratings=fractional, encoding=encoding, exclude=own, chunk_rows=config.chunk_rows,
            columns=columns,
        )  # fmt: skip
        rating_list, list_info = listed.result()
    if rating_list is not None and list_info is not None:
        check_pending(rating_list, config.periods[0] if config.periods else None, list_info.path)
    table, events_info = load_events(events, encoding=encoding) if events is not None else (None, None)
    settled = engine.settle(games, table, config.period_by, source=events_info)
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


def check_rating_source(games: GamesInput, config: RunConfig, engine: Engine) -> None:
    """Refuse a run that names no rating list (nor ``--ratings none``) when no game row of its periods
    carries a rating (looked for where ``engine`` holds the rows); see :mod:`elo_batch.job.guards`.

    Raises:
        NoRatingSourceError: as said (exit 65); the caller must write nothing.
    """
    guards.check_rating_source(config.periods, lambda: engine.game_ratings_in(games, config.periods))


def _fail_if_rejected(rejected: pl.DataFrame) -> None:
    if rejected.height == 0:
        return
    first = rejected.row(0, named=True)
    raise sanity.rejected_error(
        first,
        f"{rejected.height} row(s) rejected and {option('strict')} is set; nothing was written. "
        f"First: {first[c.REASON]}",
        hint=f"fix the rows listed by `elo-batch validate`, or run without {option('strict')} to write them to "
        "rejected.",
    )
