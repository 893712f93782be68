"""The OpenLineage events of one run, built and emitted through openlineage-python's client; imported only
when OpenLineage is configured (:mod:`elo_batch.lineage.tracking`), never by an unconfigured run.

Job ``elo_batch.run`` in the namespace ``OPENLINEAGE_NAMESPACE`` (default ``elo-batch``). Datasets are
named as OpenLineage names files: a local file ``file`` and its absolute path, an object
``s3://bucket`` (``gs://``, ``az://``) and its key. Library code: a failure to emit is logged once, and
the run's lineage stops there; it never fails the run.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import re
import traceback
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

import attr
from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import (
    OutputDatasetFacet,
    RunFacet,
    dataset_version_dataset,
    error_message_run,
    input_statistics_input_dataset,
    job_type_job,
    nominal_time_run,
    output_statistics_output_dataset,
    processing_engine_run,
)
from openlineage.client.uuid import generate_new_uuid

from elo_batch import __version__
from elo_batch.errors import EloBatchError, InternalError
from elo_batch.interrupts import Terminated

LOG = logging.getLogger("elo_batch.lineage")
#: The producer of every event and facet (a URI, as OpenLineage asks).
PRODUCER = f"urn:elo-batch:{__version__}"
JOB_NAME = "elo_batch.run"
DEFAULT_NAMESPACE = "elo-batch"
#: The tables a run writes under OUT, one dataset each.
TABLES = ("ratings", "audit", "rejected")
#: A file of a table's period partition: the table is the folder above ``period=YYYY-MM``.
PARTITION_FILE = re.compile(r"^(.+?)[/\\]period=\d{4}-\d{2}[/\\][^/\\]+$")
#: Seconds the client may take to send what it holds when the run ends (asynchronous transports).
CLOSE_TIMEOUT = 5.0

Written = tuple[Mapping[str, Any], Mapping[str, str]]


@attr.define
class EloBatchRunFacet(RunFacet):
    """Run facet ``elo_batch``: each period written, as its manifest counts it, and a failed run's exit code.

    Attributes:
        periods: One record per period written: ``period``, ``rule_set`` (its name), ``counts`` (the
            manifest's reconciliation: ``rows_read``, ``counted``, ``not_counted``, ``other_periods``,
            ``rejected``, ``reconciles``), ``rows_written`` (table -> rows) and ``manifest`` (its file).
        exitCode: The exit code of the error that failed the run (FAIL only).
    """

    periods: list[dict[str, Any]] = attr.field(factory=list)
    exitCode: int | None = attr.field(default=None)  # OpenLineage's camelCase, as its own facets


def dataset_name(location: str) -> tuple[str, str]:
    """OpenLineage's (namespace, name) of a file or table (its naming spec for file systems and object stores).

    >>> dataset_name("s3://lake/elo/ratings")
    ('s3://lake', 'elo/ratings')
    >>> dataset_name("/data/games.csv")
    ('file', '/data/games.csv')
    """
    parts = urlsplit(location)
    if len(parts.scheme) > 1 and parts.scheme != "file":  # one letter: a Windows drive
        return f"{parts.scheme}://{parts.netloc}", parts.path.lstrip("/")
    path = url2pathname(parts.path) if parts.scheme == "file" else location
    return "file", os.path.abspath(path)


def exit_code(error: BaseException) -> int:
    """The exit code the CLI gives ``error``: an elo-batch error's own, else an internal error's (70)."""
    return error.exit_code if isinstance(error, EloBatchError) else InternalError.exit_code


class RunLineage:
    """One run's events, sharing its run id; after the first failure to emit, it emits nothing more."""

    def __init__(self, client: OpenLineageClient, *, where: str, out: str, periods: tuple[str, ...]) -> None:
        self.client, self.where, self.out, self.periods = client, where, out, periods
        self.run_id = str(generate_new_uuid())
        self.broken = False

    @classmethod
    def start(cls, where: str, *, out: str, periods: tuple[str, ...]) -> RunLineage | None:
        """The run's lineage with its START emitted (``where``: the configuration, for messages); None,
        logged, when the client cannot be made from it."""
        try:
            client = OpenLineageClient()
        except Exception as error:  # a configuration the client refuses: the run goes on without lineage
            _warn(where, error)
            return None
        lineage = cls(client, where=where, out=out, periods=periods)
        lineage.emit(RunState.START, lineage.run_facets(), outputs=lineage.tables(()))
        return lineage

    def end(self, written: Sequence[Written], error: BaseException | None) -> None:
        """COMPLETE (``error`` None), ABORT (a signal) or FAIL, with the periods ``written`` before it."""
        facets = self.run_facets()
        record = EloBatchRunFacet(periods=[_period(*one) for one in written], producer=PRODUCER)
        state = RunState.COMPLETE
        if isinstance(error, KeyboardInterrupt | Terminated):
            state = RunState.ABORT
        elif error is not None:
            state, record.exitCode = RunState.FAIL, exit_code(error)
            facets["errorMessage"] = _error_facet(error)
        facets["elo_batch"] = record
        self.emit(state, facets, inputs=_inputs(written), outputs=self.tables(written))
        try:
            self.client.close(CLOSE_TIMEOUT)
        except Exception as failure:
            self._failed(failure)

    def emit(
        self, state: RunState, facets: dict[str, RunFacet], *, outputs: list[OutputDataset],
        inputs: list[InputDataset] | None = None,
    ) -> None:  # fmt: skip
        """Emit one event of the run; a failure is logged (the first only) and ends the run's lineage."""
        if self.broken:
            return
        event = RunEvent(
            eventType=state,
            eventTime=dt.datetime.now(dt.UTC).isoformat(),
            run=Run(runId=self.run_id, facets=facets),
            job=_job(),
            inputs=inputs or [],
            outputs=outputs,
            producer=PRODUCER,
        )
        try:
            self.client.emit(event)
        except Exception as error:  # a collector down, a file not writable: never the run's failure
            self._failed(error)

    def _failed(self, error: Exception) -> None:
        if not self.broken:
            self.broken = True
            _warn(self.where, error)

    def run_facets(self) -> dict[str, RunFacet]:
        """The facets every event of the run carries: elo-batch's version, the periods' nominal time."""
        first, last = self.periods[0], self.periods[-1]
        return {
            "processing_engine": processing_engine_run.ProcessingEngineRunFacet(
                version=__version__, name="elo-batch", producer=PRODUCER
            ),
            "nominalTime": nominal_time_run.NominalTimeRunFacet(
                nominalStartTime=_month_start(first).isoformat(),
                nominalEndTime=_month_start(last, after=True).isoformat(),
                producer=PRODUCER,
            ),
        }

    def tables(self, written: Iterable[Written]) -> list[OutputDataset]:
        """The tables under ``out``, with the rows written to each over ``written`` (no count at START)."""
        manifests = [manifest for manifest, _ in written]
        separator = "/" if "://" in self.out else os.sep
        datasets = []
        for table in TABLES:
            namespace, name = dataset_name(self.out.rstrip("/\\") + separator + table)
            rows = sum(manifest["rows_written"][table] for manifest in manifests)
            facets: dict[str, OutputDatasetFacet] = {}
            if manifests:
                facets["outputStatistics"] = output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet(
                    rowCount=rows, producer=PRODUCER
                )
            datasets.append(OutputDataset(namespace=namespace, name=name, outputFacets=facets))
        return datasets


def _warn(where: str, error: Exception) -> None:
    LOG.warning(
        "OpenLineage (configured by %s): %s: %s; this run emits no more lineage events (the rating goes on).",
        where, type(error).__name__, error,
    )  # fmt: skip


def _job() -> Job:
    namespace = os.environ.get("OPENLINEAGE_NAMESPACE") or DEFAULT_NAMESPACE
    kind = job_type_job.JobTypeJobFacet(processingType="BATCH", integration="ELO_BATCH", jobType="JOB",
                                        producer=PRODUCER)  # fmt: skip
    return Job(namespace=namespace, name=JOB_NAME, facets={"jobType": kind})


def _month_start(period: str, *, after: bool = False) -> dt.datetime:
    """Midnight UTC on the first day of ``period`` (``after``: of the month after it)."""
    year, month = (int(part) for part in period.split("-"))
    if after:
        year, month = year + month // 12, month % 12 + 1
    return dt.datetime(year, month, 1, tzinfo=dt.UTC)


def _error_facet(error: BaseException) -> error_message_run.ErrorMessageRunFacet:
    """The error's message; a stack trace only for a fault of elo-batch (a user's mistake has none)."""
    trace = None if isinstance(error, EloBatchError) else "".join(traceback.format_exception(error))
    message = str(error) if isinstance(error, EloBatchError) else f"{type(error).__name__}: {error}"
    return error_message_run.ErrorMessageRunFacet(
        message=message, programmingLanguage="python", stackTrace=trace, producer=PRODUCER
    )


def _period(manifest: Mapping[str, Any], outputs: Mapping[str, str]) -> dict[str, Any]:
    """What the run facet records of one period, from its manifest."""
    return {
        "period": manifest["period"],
        "rule_set": manifest["rule_set"]["name"],
        "counts": dict(manifest["counts"]),
        "rows_written": dict(manifest["rows_written"]),
        "manifest": _location(outputs["manifest"]) if outputs.get("manifest") else None,
    }


def _location(path: str) -> str:
    """A written file as the events name it: an absolute path, or an object's URI."""
    namespace, name = dataset_name(path)
    return name if namespace == "file" else f"{namespace}/{name}"


def _inputs(written: Iterable[Written]) -> list[InputDataset]:
    """The files the manifests name (games, list, events), once each; frames (no file) left out."""
    seen: dict[str, InputDataset] = {}
    for manifest, _ in written:
        inputs = manifest["inputs"]
        records = [*inputs["games"], inputs["ratings"], inputs.get("events")]
        for record in records:
            if record and record["encoding"] != "frame" and record["path"] not in seen:
                seen[record["path"]] = _input(record)
    return list(seen.values())


def table_of(path: str) -> str:
    """The table a file of a hive partition belongs to (the list a run before wrote under OUT: the same
    dataset as that run's output); any other path as it is.

    >>> table_of("/data/elo/ratings/period=2025-10/part-0.parquet"), table_of("lists/ratings-2025-10.csv")
    ('/data/elo/ratings', 'lists/ratings-2025-10.csv')
    """
    match = PARTITION_FILE.match(path)
    return match.group(1) if match else path


def _input(record: Mapping[str, Any]) -> InputDataset:
    namespace, name = dataset_name(table_of(record["path"]))
    version = dataset_version_dataset.DatasetVersionDatasetFacet(datasetVersion=record["sha256"], producer=PRODUCER)
    statistics = input_statistics_input_dataset.InputStatisticsInputDatasetFacet(
        rowCount=record["rows"], size=record["size"], fileCount=1, producer=PRODUCER
    )
    return InputDataset(namespace=namespace, name=name, facets={"version": version},
                        inputFacets={"inputStatistics": statistics})  # fmt: skip
