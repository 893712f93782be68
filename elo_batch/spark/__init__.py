"""The Spark engine: rate games where they live, with the same checks, rules and kernels as the local engine.

``elo_batch.spark.rate_period(games, period=..., ratings=...)`` takes a Spark DataFrame of games (either
shape of the contract) and gives the period's ``ratings``, ``audit`` and ``rejected`` as Spark frames,
with the same columns and values as :func:`elo_batch.rate_period`. The rules are never written twice:
the library's own checks and kernels run inside ``mapInArrow`` on the executors, Spark adds the exact
per-player sums, and the library finalizes on the driver (see :mod:`elo_batch.spark._period`).

Needs ``pip install 'elo-batch[spark]'`` (pyspark 4, Java 17 or newer) on the driver, and elo-batch
installed on every executor: Python workers import it, they do not see the driver's ``sys.path``.
:class:`SparkEngine` is the engine of ``elo_batch.run(..., engine="spark")`` (``elo-batch run --engine
spark``): the games read and rated on Spark, the rest of the run as the local engine does it.
"""

from __future__ import annotations

from elo_batch.spark._api import SparkPeriodResult, rate_period, rate_periods, require_spark, write_period
from elo_batch.spark._backend import SparkEngine

__all__ = ["SparkEngine", "SparkPeriodResult", "rate_period", "rate_periods", "require_spark", "write_period"]
