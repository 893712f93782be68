"""The one pipeline of a run: read and check the inputs, settle the events, rate each period.

``run`` (which writes each period: :mod:`elo_batch.job.runner`), ``validate`` (which reports) and the API's
``rate_period`` and ``rate_periods`` (which hand the periods over) are views of it, over one engine
(:class:`elo_batch.job.reading.Engine`): :class:`LocalEngine` here, or the Spark engine. Library code:
raises :mod:`elo_batch.errors`, never prints or exits.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from elo_batch.choices import PeriodBy
from elo_batch.config import RunConfig
from elo_batch.contract.mapping import ColumnMap
from elo_batch.contract.tables import GamesInput, InputFile
from elo_batch.inputs.bandsfile import load_bands
from elo_batch.inputs.readers import FrameInput
from elo_batch.inputs.validate import load_games
from elo_batch.job import guards, sanity
from elo_batch.job.reading import Engine, check_rating_source, check_strict, input_warnings, load_inputs, run_bands
from elo_batch.job.sanity import Alike
from elo_batch.rules.bands import Bands

if TYPE_CHECKING:  # the engine (numpy among its imports) is loaded once the inputs are read: start-up
    from elo_batch.engine.period import RatedPeriod


class LocalEngine:
    """The engine that reads, checks and rates the games here, with polars (:class:`Engine`)."""

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
        """Read and check the games (:func:`elo_batch.inputs.validate.load_games`)."""
        return load_games(
            paths, fractional_ratings=fractional_ratings, encoding=encoding, exclude=exclude, chunk_rows=chunk_rows,
            columns=columns,
        )  # fmt: skip

    def settle(
        self, games: GamesInput, table: pl.DataFrame | None, period_by: PeriodBy, *, source: InputFile | None = None
    ) -> GamesInput:
        """The games' event facts (:func:`elo_batch.engine.events.settle`)."""
        from elo_batch.engine.events import settle

        return settle(games, table, period_by, source=source)

    def rate_periods(
        self, games: GamesInput, rating_list: pl.DataFrame | None, config: RunConfig, *, bands: Bands | None = None
    ) -> Iterator[RatedPeriod]:
        """Rate the periods one after the other (:func:`elo_batch.engine.period.rate_periods`)."""
        from elo_batch.engine import period as period_engine

        return period_engine.rate_periods(games, rating_list, config, bands=bands)

    def game_ratings_in(self, games: GamesInput, periods: tuple[str, ...]) -> bool:
        """Whether a game row of ``periods`` carries a rating (:func:`elo_batch.job.guards.game_ratings_in`)."""
        return guards.game_ratings_in(games, periods)

    def alike_rows(self, games: GamesInput, periods: tuple[str, ...]) -> Alike | None:
        """Rows alike that may be one game entered twice (:func:`elo_batch.job.sanity.alike_rows`)."""
        return sanity.alike_rows(games, periods)


@dataclass(frozen=True, kw_only=True)
class Sources:
    """Where a run's inputs are, as the runner reads them (frames or local paths).

    Attributes:
        games: Game files, globs or folders, or frames.
        ratings: The list in force before the first period, or None.
        ratings_none: No list was meant (``--ratings none``, ``ratings=None``): a run without a rating
            source is then allowed (a new rating pool).
        events: The events file or frame, or None.
        ratings_period: Take the list from this period of the ratings table ``ratings``.
        encoding: Force the text encoding of CSV inputs.
        bands: The band table when it is a frame (a path comes with the run's config).
        columns: The games' column mapping (``--columns``), or None.
        list_columns: The list's column mapping (``--list-columns``), or None.
    """

    games: Sequence[str | FrameInput]
    ratings: str | Sequence[str] | FrameInput | None
    ratings_none: bool = False
    events: str | FrameInput | None = None
    ratings_period: str | None = None
    encoding: str | None = None
    bands: pl.DataFrame | None = None
    columns: ColumnMap | None = None
    list_columns: ColumnMap | None = None


@dataclass(frozen=True)
class Checked:
    """A run's inputs, read and checked, and what the run warns about them.

    Attributes:
        games: The checked rows, with their event facts.
        rating_list: The list in force (None: no list).
        list_info: What the manifest records of the list (None: no list).
        bands: The band table of the new lists.
        notes: Warnings about the inputs, said in every period's warnings.
    """

    games: GamesInput
    rating_list: pl.DataFrame | None
    list_info: InputFile | None
    bands: Bands
    notes: tuple[str, ...]

    def warnings(self, result: RatedPeriod, *, stale: tuple[str, ...] = ()) -> tuple[str, ...]:
        """Everything the run warns about for ``result``'s period: the inputs, the rating, the period
        (``stale``: later periods of the output this period leaves stale)."""
        list_given = self.rating_list is not None
        return self.notes + result.warnings + sanity.period_notes(result, list_given=list_given, stale=stale)


def check_inputs(
    sources: Sources, config: RunConfig, engine: Engine, *, out: str | None = None, strict: bool = True
) -> Checked:
    """Read and check every input of a run, then the run-level checks, before anything is rated.

    Order: the inputs (:func:`elo_batch.job.reading.load_inputs`; ``out``: the run's output folder, never
    read as a games folder), the band table, the warnings, ``strict`` and ``max_rejected`` (with
    ``strict``; ``validate`` reports rejected rows instead), and the rating source.

    Raises:
        UsageError, InputMissingError, InputDataError: as :func:`elo_batch.job.reading.load_inputs`.
        StrictRejectError: as :func:`elo_batch.job.reading.check_strict` (with ``strict``).
        NoRatingSourceError: no list, not ``sources.ratings_none``, and no game row of the periods with
            a rating.
    """
    games, rating_list, list_info = load_inputs(
        sources.games,
        sources.ratings,
        config,
        encoding=sources.encoding,
        out=out,
        ratings_period=sources.ratings_period,
        events=sources.events,
        engine=engine,
        columns=sources.columns,
        list_columns=sources.list_columns,
    )
    table = sources.bands if sources.bands is not None else run_bands(config)
    bands = load_bands(table, encoding=sources.encoding)
    notes = input_warnings(games, rating_list, list_info) + sanity.input_notes(
        games, rating_list, list_info, config=config, alike=lambda periods: engine.alike_rows(games, periods)
    )
    if strict:
        check_strict(games, config)
    if rating_list is None and not sources.ratings_none:
        check_rating_source(games, config, engine)
    return Checked(games, rating_list, list_info, bands, notes)


def rate(checked: Checked, config: RunConfig, engine: Engine) -> Iterator[RatedPeriod]:
    """The periods of ``config`` rated in order, each from the list the one before made (a period is
    rated when the iterator reaches it)."""
    return engine.rate_periods(checked.games, checked.rating_list, config, bands=checked.bands)
