"""``--log-format json`` under ``--engine spark``: every line on stderr is one JSON object, Spark's own
lines (the JVM's log4j lines, its start-up notes, the Python workers' stderr) included, as ``log`` events.

The Spark run needs pyspark and Java 17+ (skipped with the reason when either is missing, except in CI,
as :mod:`tests.test_spark`); the relay of the JVM's lines into the logger is tested without Spark.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading

import pytest

from elo_batch.sparkengine._jvm import relay
from tests.conftest import ROOT
from tests.engines import IN_CI, MISSING, small_jobs_env

SAMPLE = ROOT / "sample_data"


def _json_lines(text: str) -> list[dict]:
    records = []
    for line in text.splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            pytest.fail(f"a stderr line is not JSON: {line!r}\n--- stderr ---\n{text}")
        assert isinstance(records[-1], dict), line
    return records


@pytest.mark.slow
@pytest.mark.skipif(MISSING is not None and not IN_CI, reason=f"Spark tests skipped: {MISSING}")
def test_json_logs_on_spark_are_json_lines_only(tmp_path) -> None:
    if MISSING is not None:
        pytest.fail(f"CI runs the Spark tests, but {MISSING}")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable}
    env.pop("PYSPARK_GATEWAY_PORT", None)
    env.update(small_jobs_env())  # the test session's settings for small jobs
    command = [
        sys.executable, "-m", "elo_batch.cli.app", "run", str(SAMPLE / "us-championship-2025-games.csv"),
        "--ratings", str(SAMPLE / "ratings-2025-10.csv"), "--period", "2025-10", "--out", str(tmp_path / "out"),
        "--engine", "spark", "--spark-master", "local[1]", "--log-format", "json",
    ]  # fmt: skip

    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)

    assert done.returncode == 0, done.stderr
    records = _json_lines(done.stderr)
    written = [r for r in records if r["event"] == "period_written"]
    assert [(r["period"], r["counts"]["rows_read"]) for r in written] == [("2025-10", 66)]
    for record in records:
        assert record["event"] in {"period_written", "log"}, record
        if record["event"] == "log":
            assert record["message"] and record["level"] in {"WARNING", "ERROR", "CRITICAL"}, record


def test_the_jvms_lines_reach_the_logger_with_their_level(caplog) -> None:
    """Each line the JVM writes is one record of ``elo_batch.spark``: a log4j line at its level, any
    other line (the JVM's own notes, a stack trace's lines) as a warning; bytes not UTF-8 replaced."""
    read, write = os.pipe()
    lines = (
        b"WARNING: Using incubator modules: jdk.incubator.vector\n"
        b"26/12/01 21:07:02 WARN Utils: Your hostname resolves to a loopback address\n"
        b"26/12/01 21:07:03 INFO SparkContext: Running Spark version 4.0.0\r\n"
        b"26/12/01 21:07:04 ERROR Executor: Exception in task 0.0\n"
        b"\tat org.apache.spark.Foo.bar(Foo.scala:1)\n"
        b"\n"
        b"bad byte \xff\n"
    )
    with caplog.at_level(logging.DEBUG, logger="elo_batch.spark"):
        thread = threading.Thread(target=relay, args=(os.fdopen(read, "rb"),))
        thread.start()
        with os.fdopen(write, "wb") as stream:
            stream.write(lines)
        thread.join(timeout=60)
    assert not thread.is_alive()
    got = [(r.name, r.levelname, r.getMessage()) for r in caplog.records]
    assert got == [
        ("elo_batch.spark", "WARNING", "WARNING: Using incubator modules: jdk.incubator.vector"),
        ("elo_batch.spark", "WARNING", "26/12/01 21:07:02 WARN Utils: Your hostname resolves to a loopback address"),
        ("elo_batch.spark", "INFO", "26/12/01 21:07:03 INFO SparkContext: Running Spark version 4.0.0"),
        ("elo_batch.spark", "ERROR", "26/12/01 21:07:04 ERROR Executor: Exception in task 0.0"),
        ("elo_batch.spark", "WARNING", "\tat org.apache.spark.Foo.bar(Foo.scala:1)"),
        ("elo_batch.spark", "WARNING", "bad byte \ufffd"),
    ]


_ROUTED = """
import logging, sys, warnings
from elo_batch.cli.logs import route_logs
from elo_batch.cli.options import LogFormat
route_logs(LogFormat[sys.argv[1]])
logging.getLogger("elo_batch.spark").warning("%s", "26/12/01 WARN Utils: a \\"quoted\\" line")
logging.getLogger("elo_batch.spark").info("%s", "an INFO line, below the level shown")
warnings.warn("a library's warning", UserWarning)
"""


@pytest.mark.parametrize("log_format", ["json", "text"])
def test_library_log_lines_follow_the_log_format(log_format: str) -> None:
    """Under ``--log-format json`` the library's log records (Spark's lines) and Python's warnings are
    ``log`` events; as text, they are printed as they are. Below warning, nothing is printed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _ROUTED, log_format], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    if log_format == "text":
        assert '26/12/01 WARN Utils: a "quoted" line\n' in done.stderr
        assert "a library's warning" in done.stderr
        assert "INFO line" not in done.stderr
        return
    records = _json_lines(done.stderr)
    assert [(r["event"], r["logger"], r["level"]) for r in records] == [
        ("log", "elo_batch.spark", "WARNING"),
        ("log", "py.warnings", "WARNING"),
    ]
    assert records[0]["message"] == '26/12/01 WARN Utils: a "quoted" line'
    assert "a library's warning" in records[1]["message"]
