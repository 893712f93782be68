"""The Spark engine of the pipeline (:class:`elo_batch.job.reading.Engine`), and the Spark session it starts.

The pipeline (:mod:`elo_batch.job.pipeline`) does everything else as for the local engine: for
``elo-batch run --engine spark`` the runner holds the lock of OUT from before the first input is read
to the end, the list, the events file and the band table are read and checked on the driver, the
strict checks, ``max_rejected`` and the rating-source guard run as for the local engine, and each period
is written with the local writers (hive folders, Delta tables, DuckDB: the same atomic commit per period);
for :func:`elo_batch.rate_period` of a Spark frame, the periods are handed out with Spark frames
(:func:`elo_batch.sparkengine._api.spark_result`). Only reading the games (game files, or the games
frame), working out their events and rating the periods happen on Spark
(:mod:`elo_batch.sparkengine._files`, :mod:`elo_batch.sparkengine._check`,
:mod:`elo_batch.sparkengine._events`, :mod:`elo_batch.sparkengine._period`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import polars as pl

from elo_batch.choices import PeriodBy
from elo_batch.config import RunConfig
from elo_batch.contract.mapping import ColumnMap
from elo_batch.contract.tables import GamesInput, InputFile
from elo_batch.engine.period import RatedPeriod
from elo_batch.errors import InternalError, UsageError, option
from elo_batch.inputs.readers import FrameInput, expand_paths
from elo_batch.job.rated import PeriodResult
from elo_batch.job.sanity import Alike
from elo_batch.job.sources import on_spark
from elo_batch.rules.bands import Bands
from elo_batch.sparkengine import _events
from elo_batch.sparkengine._api import SparkPeriodResult, require_spark, spark_result
from elo_batch.sparkengine._check import SparkGames, alike_rows, check_games
from elo_batch.sparkengine._files import check_files
from elo_batch.sparkengine._jvm import jvm_started, start_context
from elo_batch.sparkengine._period import rate_periods

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


class SparkEngine:
    """The games read and checked on Spark's executors, the periods rated on Spark.

    Args:
        master: The Spark master of game files read (``local[2]``, ``spark://host:7077``, ``yarn``) when
            no session is active; None: the one the environment configures (``spark-submit``), else
            ``local[*]``. A games frame is read in its own session.
    """

    def __init__(self, master: str | None = None) -> None:
        self.master = master
        self._games: SparkGames | None = None
        self._audits: dict[str, DataFrame] = {}

    def load_games(
        self,
        paths: Sequence[str | FrameInput],
        *,
        fractional_ratings: bool,
        encoding: str | None,
        exclude: tuple[str, ...],
        chunk_rows: int | None = None,
        columns: ColumnMap | None = None,
    ) -> GamesInput:
        """Read and check the games on Spark (as :func:`elo_batch.inputs.validate.load_games`): game files,
        one task per file, or one Spark DataFrame of games (a :class:`FrameInput` of it, the only source).

        Raises:
            UsageError: a games frame in the driver's memory, not Spark's (rate it with the local engine,
                or a Spark frame with :func:`elo_batch.spark.rate_period`); pyspark not installed.
        """
        given = [path for path in paths if isinstance(path, FrameInput)]
        if given and not (len(paths) == 1 and on_spark(given[0].data)):
            raise UsageError(
                f"{option('engine', 'spark')} reads game files, not a frame in memory",
                hint="give the games as paths, rate the frame with the local engine, or rate a Spark "
                "DataFrame with elo_batch.spark.rate_period.",
            )
        require_spark()
        if given:
            frame, name = given[0].data, given[0].name
            self._games = check_games(frame, source_name=name, fractional=fractional_ratings, columns=columns)
        else:
            files = expand_paths([path for path in paths if isinstance(path, str)], exclude=exclude)
            spark = session(self.master)
            self._games = check_files(spark, files, encoding=encoding, fractional=fractional_ratings, columns=columns)
        return self._games.games

    def settle(
        self, games: GamesInput, table: pl.DataFrame | None, period_by: PeriodBy, *, source: InputFile | None = None
    ) -> GamesInput:
        """The games' event facts worked out on Spark (as :func:`elo_batch.engine.events.settle`)."""
        self._games = _events.settle(self._own(games), table, period_by, source=source)
        return self._games.games

    def rate_periods(
        self, games: GamesInput, rating_list: pl.DataFrame | None, config: RunConfig, *, bands: Bands | None = None
    ) -> Iterator[RatedPeriod]:
        """Rate the periods on Spark (as :func:`elo_batch.engine.period.rate_periods`): each result's audit is
        read from Spark batch by batch when it is written."""
        for done in rate_periods(self._own(games), rating_list, config, bands=bands):
            self._audits[done.result.period] = done.audit
            yield done.result

    def spark_result(self, local: PeriodResult) -> SparkPeriodResult:
        """A period this engine rated, as the API hands it out (``local``), with its tables as Spark frames
        (:func:`elo_batch.sparkengine._api.spark_result`): the audit the Spark plan of its rating."""
        if self._games is None or local.period not in self._audits:
            raise InternalError(f"period {local.period} was not rated by this engine", hint="please report it.")
        return spark_result(local, self._games, self._audits.pop(local.period))

    def game_ratings_in(self, games: GamesInput, periods: tuple[str, ...]) -> bool:
        """Whether a game row of ``periods`` carries a rating (the run's guard on its rating source), on Spark."""
        return self._own(games).game_ratings_in(periods)

    def alike_rows(self, games: GamesInput, periods: tuple[str, ...]) -> Alike | None:
        """Rows alike that may be one game entered twice, found on Spark (as job/sanity.py's)."""
        return alike_rows(self._own(games), periods)

    def _own(self, games: GamesInput) -> SparkGames:
        if self._games is None or self._games.games is not games:
            raise InternalError("the games were not read by this engine", hint="please report it.")
        return self._games


def session(master: str | None) -> SparkSession:
    """The Spark session: the one active in this process, else a new one on ``master``.

    A local master runs the Python workers with this interpreter (they import elo-batch from the
    environment it is installed in); a cluster's executors need elo-batch installed (docs/guides/spark.md, "On a
    cluster"). A session started here has its JVM's stderr read into the logger ``elo_batch.spark``, one
    record a line (:mod:`elo_batch.sparkengine._jvm`), and no console progress bar; under ``spark-submit``, or
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
