"""The JVM of a Spark session that elo-batch starts: launched with its stderr on a pipe, each line read into
the logger ``elo_batch.spark``.

Spark's JVM writes on the stderr it inherits: its log4j lines (``26/12/01 21:07:02 WARN Utils: ...``),
notes printed before log4j is set up (``Using Spark's default log4j profile``, ``Setting default log
level``, the JVM's ``WARNING: Using incubator modules``), and, in local mode, the Python workers' stderr.
Left inherited they are mixed, unformatted, into the run's own summary; read here, each becomes one
:mod:`logging` record (a log4j line at its level, any other line a warning) that the caller formats: the
CLI as a JSON ``log`` event under ``--log-format json``; with no handler configured, Python's last-resort
handler prints the warnings as they were.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import threading
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark import SparkConf

LOG = logging.getLogger("elo_batch.spark")
"""Where the JVM's lines go, one record a line (the message: the line as the JVM wrote it)."""

_LOG4J = re.compile(r"^\d{2}/\d{2}/\d{2} \d{2}:\d{2}:\d{2} (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) ")
_LEVELS = {
    "TRACE": logging.DEBUG,
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARN": logging.WARNING,
    "ERROR": logging.ERROR,
    "FATAL": logging.CRITICAL,
}


def relay(stream: IO[bytes]) -> None:
    """Log each line of ``stream`` (the JVM's stderr) to :data:`LOG` until it closes.

    A line in Spark's log4j layout (``yy/MM/dd HH:mm:ss LEVEL logger: message``) is logged at its level
    (WARN: ``WARNING``, FATAL: ``CRITICAL``); any other line (a note, a stack trace's lines) as a warning.
    Blank lines are skipped; bytes that are not UTF-8 are replaced (U+FFFD), never raised.
    """
    with stream:
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if not line.strip():
                continue
            match = _LOG4J.match(line)
            LOG.log(_LEVELS[match[1]] if match else logging.WARNING, "%s", line)


def start_context(conf: SparkConf) -> None:
    """Start Spark's JVM for ``conf`` with its stderr read by :func:`relay` (a daemon thread), and the
    SparkContext on it; the caller's ``SparkSession.builder.getOrCreate()`` then takes that context.

    Only for a process without a JVM yet (no ``PYSPARK_GATEWAY_PORT``, no gateway started earlier).

    Raises:
        PySparkRuntimeError: the JVM exited before it started (Java missing, say), as pyspark raises it.
    """
    from pyspark import SparkContext
    from pyspark.java_gateway import launch_gateway

    gateway = launch_gateway(conf, popen_kwargs={"stderr": subprocess.PIPE})
    threading.Thread(target=relay, args=(gateway.proc.stderr,), name="spark-jvm-stderr", daemon=True).start()
    SparkContext(conf=conf, gateway=gateway)


def jvm_started() -> bool:
    """Whether this process has a Spark JVM already (started by pyspark, or ``spark-submit``'s)."""
    from pyspark import SparkContext

    return SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ
