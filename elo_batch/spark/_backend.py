"""``elo-batch run --engine spark``: the runner's engine on Spark, and the Spark session the CLI starts.

The runner (:func:`elo_batch.runner.run`) does everything else as for the local engine: it holds the
lock of OUT from before the first input is read to the end, reads and checks the list on the driver,
checks ``--strict`` and ``--max-rejected``, and writes each period with the local atomic writer. Only
reading the games and rating the periods happen on Spark (:mod:`elo_batch.spark._files`,
:mod:`elo_batch.spark._period`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import polars as pl

from elo_batch.config import RunConfig
from elo_batch.errors import InternalError
from elo_batch.period import PeriodResult
from elo_batch.readers import FrameInput, expand_paths
from elo_batch.spark._api import require_spark
from elo_batch.spark._check import SparkGames
from elo_batch.spark._files import check_files
from elo_batch.spark._period import rate_periods
from elo_batch.validate import GamesInput

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

    def read_games(
        self,
        paths: Sequence[str | FrameInput],
        *,
        fractional_ratings: bool,
        encoding: str | None,
        exclude: tuple[str, ...],
        chunk_rows: int | None = None,
    ) -> GamesInput:
        """Read and check the game files on Spark (as :func:`elo_batch.validate.load_games`)."""
        require_spark()
        files = expand_paths([path for path in paths if isinstance(path, str)], exclude=exclude)
        self._games = check_files(session(self.master), files, encoding=encoding, fractional=fractional_ratings)
        return self._games.games

    def rate_periods(
        self, games: GamesInput, rating_list: pl.DataFrame | None, config: RunConfig
    ) -> Iterator[PeriodResult]:
        """Rate the periods on Spark (as :func:`elo_batch.period.rate_periods`): each result's audit is
        read from Spark batch by batch when it is written."""
        if self._games is None or self._games.games is not games:
            raise InternalError("the games were not read by this engine", hint="please report it.")
        for done in rate_periods(self._games, rating_list, config):
            yield done.result


def session(master: str | None) -> SparkSession:
    """The Spark session: the one active in this process, else a new one on ``master``.

    A local master runs the Python workers with this interpreter (they import elo-batch from the
    environment it is installed in); a cluster's executors need elo-batch installed (README, "On a
    cluster").
    """
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = SparkSession.builder.appName("elo-batch")
    if master is not None:
        builder = builder.master(master)
    submitted = master is None and "PYSPARK_GATEWAY_PORT" in os.environ  # spark-submit configures the master
    if not submitted and (master or "local").startswith("local"):
        builder = builder.config("spark.ui.showConsoleProgress", "false")
        # pyspark starts the workers with PYSPARK_PYTHON (else the first python3 on the PATH): this one
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    return builder.getOrCreate()
