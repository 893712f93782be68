"""``elo-batch run --engine spark``: the runner's engine on Spark, and the Spark session the CLI starts.

The runner (:func:`elo_batch.runner.run`) does everything else as for the local engine: it holds the
lock of OUT from before the first input is read to the end, reads and checks the list, the events file
and the band table on the driver, checks ``--strict`` and ``--max-rejected``, and writes each period
with the local writers (hive folders, Delta tables, DuckDB: the same atomic commit per period). Only
reading the games, working out their events and rating the periods happen on Spark
(:mod:`elo_batch.spark._files`, :mod:`elo_batch.spark._events`, :mod:`elo_batch.spark._period`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import polars as pl

from elo_batch.choices import PeriodBy
from elo_batch.config import RunConfig
from elo_batch.contract.tables import GamesInput, InputFile
from elo_batch.engine.period import PeriodResult
from elo_batch.errors import InternalError, UsageError, option
from elo_batch.inputs.readers import FrameInput, expand_paths
from elo_batch.rules.bands import Bands
from elo_batch.sanity import Alike
from elo_batch.spark import _events
from elo_batch.spark._api import require_spark
from elo_batch.spark._check import SparkGames, alike_rows
from elo_batch.spark._files import check_files
from elo_batch.spark._jvm import jvm_started, start_context
from elo_batch.spark._period import rate_periods

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class SparkEngine:
    """The games read and checked on Spark's executors, the periods rated on Spark.

    Args:
        master: The Spark master (``local[2]``, ``spark://host:7077``, ``yarn``); None: the one the
            environment configures (``spark-submit``), else ``local[*]``.
    """

    def __init__(self, master: str | None = None) -> None:
        self.master = master
        self._games: SparkGames | None = None

    def load_games(
        self,
        paths: Sequence[str | FrameInput],
        *,
        fractional_ratings: bool,
        encoding: str | None,
        exclude: tuple[str, ...],
        chunk_rows: int | None = None,
    ) -> GamesInput:
        """Read and check the game files on Spark (as :func:`elo_batch.inputs.validate.load_games`).

        Raises:
            UsageError: a games frame (the driver's memory, not Spark's: rate it with the local engine,
                or a Spark frame with :func:`elo_batch.spark.rate_period`).
        """
        if any(isinstance(path, FrameInput) for path in paths):
            raise UsageError(
                f"{option('engine', 'spark')} reads game files, not a frame in memory",
                hint="give the games as paths, rate the frame with the local engine, or rate a Spark "
                "DataFrame with elo_batch.spark.rate_period.",
            )
        require_spark()
        files = expand_paths([path for path in paths if isinstance(path, str)], exclude=exclude)
        self._games = check_files(session(self.master), files, encoding=encoding, fractional=fractional_ratings)
        return self._games.games

    def settle(
        self, games: GamesInput, table: pl.DataFrame | None, period_by: PeriodBy, *, source: InputFile | None = None
    ) -> GamesInput:
        """The games' event facts worked out on Spark (as :func:`elo_batch.engine.events.settle`)."""
        self._games = _events.settle(self._own(games), table, period_by, source=source)
        return self._games.games

    def rate_periods(
        self, games: GamesInput, rating_list: pl.DataFrame | None, config: RunConfig, *, bands: Bands | None = None
    ) -> Iterator[PeriodResult]:
        """Rate the periods on Spark (as :func:`elo_batch.engine.period.rate_periods`): each result's audit is
        read from Spark batch by batch when it is written."""
        for done in rate_periods(self._own(games), rating_list, config, bands=bands):
            yield done.result

    def game_ratings_in(self, games: GamesInput, periods: tuple[str, ...]) -> bool:
        """Whether a game row of ``periods`` carries a rating (the run's guard on its rating source), on Spark."""
        return self._own(games).game_ratings_in(periods)

    def alike_rows(self, games: GamesInput, periods: tuple[str, ...]) -> Alike | None:
        """Rows alike that may be one game entered twice, found on Spark (as :func:`elo_batch.sanity.alike_rows`)."""
        return alike_rows(self._own(games), periods)

    def _own(self, games: GamesInput) -> SparkGames:
        if self._games is None or self._games.games is not games:
            raise InternalError("the games were not read by this engine", hint="please report it.")
        return self._games


def session(master: str | None) -> SparkSession:
    """The Spark session: the one active in this process, else a new one on ``master``.

    A local master runs the Python workers with this interpreter (they import elo-batch from the
    environment it is installed in); a cluster's executors need elo-batch installed (README, "On a
    cluster"). A session started here has its JVM's stderr read into the logger ``elo_batch.spark``, one
    record a line (:mod:`elo_batch.spark._jvm`), and no console progress bar; under ``spark-submit``, or
    with a JVM this process started before, Spark's stderr is left as it is.
    """
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    submitted = master is None and "PYSPARK_GATEWAY_PORT" in os.environ  # spark-submit configures the master
    if not submitted and (master or "local").startswith("local"):
        # pyspark starts the workers with PYSPARK_PYTHON (else the first python3 on the PATH): this one
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if jvm_started():
        builder = SparkSession.builder.appName("elo-batch")
        if not submitted:
            builder = builder.config("spark.ui.showConsoleProgress", "false")
        return (builder.master(master) if master is not None else builder).getOrCreate()
    conf = SparkConf().setAppName("elo-batch").set("spark.ui.showConsoleProgress", "false")
    start_context(conf.setMaster(master) if master is not None else conf)
    return SparkSession.builder.getOrCreate()
