"""The Spark engine: rate games where they live, with the same checks, rules and kernels as the local engine.

:class:`SparkEngine` is an engine of the one pipeline (:class:`elo_batch.job.reading.Engine`): of
``elo_batch.run(..., engine="spark")`` (``elo-batch run --engine spark``: game files read and rated on
Spark), and of :func:`elo_batch.rate_period` and :func:`elo_batch.rate_periods` given a Spark DataFrame of
games (:mod:`elo_batch.spark`, their alias for Spark frames), which give the period's ``ratings``,
``audit`` and ``rejected`` as Spark frames (:class:`SparkPeriodResult`), with the same columns and values
as for any other frame. The rules are never written twice: the library's own checks and kernels run
inside ``mapInArrow`` on the executors, Spark adds the exact per-player sums, and the library finalizes
on the driver (see :mod:`elo_batch.sparkengine._period`). Nothing here imports the API.

Needs ``pip install 'elo-batch[spark]'`` (pyspark 4, Java 17 or newer) on the driver, and elo-batch
installed on every executor: Python workers import it, they do not see the driver's ``sys.path``.
"""

from __future__ import annotations

from elo_batch.sparkengine._api import SparkPeriodResult, on_driver, require_spark, spark_options
from elo_batch.sparkengine._backend import SparkEngine

__all__ = ["SparkEngine", "SparkPeriodResult", "on_driver", "require_spark", "spark_options"]
