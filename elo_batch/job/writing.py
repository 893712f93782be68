"""Writing one rated period as a run does: its partitions and manifest, Delta tables, a DuckDB load.

Library code: raises :mod:`elo_batch.errors`, never prints or exits.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import polars as pl

from elo_batch import __version__
from elo_batch.choices import CsvFormulas, Format, TableFormat
from elo_batch.config import RunConfig
from elo_batch.contract.tables import InputFile
from elo_batch.outputs import delta, warehouse
from elo_batch.outputs.writers import write_period
from elo_batch.rules.sets import RuleSet
from elo_batch.storage import objectstore

if TYPE_CHECKING:  # the engine (numpy among its imports) is loaded once the inputs are read
    from elo_batch.engine.period import Counts


class RatedTables(Protocol):
    """What a rated period writes: the engine's :class:`~elo_batch.engine.period.RatedPeriod` (``run``) and
    the API's :class:`~elo_batch.job.rated.PeriodResult` (``write_period``) alike."""

    @property
    def period(self) -> str: ...
    @property
    def rule_set(self) -> RuleSet: ...
    @property
    def ratings(self) -> pl.DataFrame: ...
    @property
    def audit(self) -> pl.LazyFrame: ...
    @property
    def audit_rows(self) -> int: ...
    @property
    def rejected(self) -> pl.DataFrame: ...
    @property
    def counts(self) -> Counts: ...


def period_tables(result: RatedTables) -> dict[str, pl.DataFrame | pl.LazyFrame]:
    """The tables a period writes, by name (``ratings``, ``audit``, ``rejected``)."""
    return {"ratings": result.ratings, "audit": result.audit, "rejected": result.rejected}


@dataclass(frozen=True, kw_only=True)
class Output:
    """How a run writes its periods (what the manifest's ``options`` records beside the run's config).

    Attributes:
        format: ``parquet`` or ``csv``.
        table_format: ``parquet`` (hive folders) or ``delta`` (Delta tables, :mod:`elo_batch.outputs.delta`).
        csv_formulas: ``escape`` (CSV text cells a spreadsheet would run as formulas get a leading quote)
            or ``keep``; see :mod:`elo_batch.storage.formulas`.
        duckdb: Also load each period into this DuckDB file, committed with the partitions; None: not.
    """

    format: Format = "parquet"
    table_format: TableFormat = "parquet"
    csv_formulas: CsvFormulas = "escape"
    duckdb: str | None = None

    def recorded(self, encoding: str | None) -> dict[str, Any]:
        """The manifest's output options (the inputs' ``encoding`` among them, as runs recorded it)."""
        return {"format": self.format, "encoding": encoding, "csv_formulas": self.csv_formulas,
                "table_format": self.table_format}  # fmt: skip


def write_result(
    out: str,
    result: RatedTables,
    *,
    files: tuple[InputFile, ...],
    list_info: InputFile | None,
    events_file: InputFile | None,
    config: RunConfig,
    output: Output,
    encoding: str | None,
    started: dt.datetime,
    warnings: tuple[str, ...],
    stale_periods: tuple[str, ...] = (),
    on_manifest: Callable[[dict[str, Any], dict[str, str]], None] | None = None,
) -> dict[str, str]:
    """Write one rated period under ``out``, its partitions and its manifest, as ``run`` does.

    Args:
        out: Output folder or object-store URI (see :func:`elo_batch.outputs.writers.write_period`).
        result: The period.
        files: The game inputs read, ``list_info`` the list's (None without a list) and ``events_file``
            the events file's (None without one): for the manifest.
        config: The run's settings.
        output: How the period is written (with ``encoding``, the inputs' forced text encoding,
            recorded in the manifest's options; with ``output.duckdb`` the database commits together
            with the partitions: see :func:`_write`).
        started: When the run started.
        warnings: Everything the run warns about for this period (inputs and rating).
        stale_periods: Later periods in ``out`` built on the list this period replaces (manifest
            ``stale_periods``).
        on_manifest: Called with the period's manifest and outputs once the period is written (the run's
            lineage: :mod:`elo_batch.lineage`).

    Returns:
        Table name (and ``manifest``) -> written file.

    Raises:
        OutputError: as :func:`elo_batch.outputs.writers.write_period`.
    """
    manifest = _manifest(
        result,
        files,
        list_info=list_info,
        events_file=events_file,
        config=config,
        output_options=output.recorded(encoding),
        started=started,
        warnings=warnings,
    )
    manifest["stale_periods"] = list(stale_periods)
    tables = period_tables(result)
    if output.table_format == "delta":
        outputs = _write_delta(out, result.period, tables, manifest=manifest, duckdb_path=output.duckdb)
    else:
        outputs = _write(out, result.period, tables, manifest=manifest, fmt=output.format,
                         duckdb_path=output.duckdb, csv_formulas=output.csv_formulas)  # fmt: skip
    if on_manifest is not None:
        on_manifest(manifest, outputs)
    return outputs


def _write(
    out: str,
    period: str,
    tables: dict[str, pl.DataFrame | pl.LazyFrame],
    *,
    manifest: dict[str, Any],
    fmt: Format,
    duckdb_path: str | None,
    csv_formulas: CsvFormulas = "escape",
) -> dict[str, str]:
    """Write a period's partitions and, with ``duckdb_path``, load it: into a folder both commit together
    (the database's commit comes between the partitions' swap and their commit; a failure of either
    puts both back); an object store has no such commit, so it is written first and the database's
    error says so."""
    if not duckdb_path:
        return write_period(out, period, tables, manifest=manifest, fmt=fmt, csv_formulas=csv_formulas)
    if objectstore.is_object_store(out):
        outputs = write_period(out, period, tables, manifest=manifest, fmt=fmt, csv_formulas=csv_formulas)
        note = f"The objects of period {period} under {out} were replaced: re-run the period to load it too."
        warehouse.load_period(duckdb_path, period, tables, note=note)
    else:
        note = f"The partitions of period {period} in {out} were kept as they were too."
        load = warehouse.PeriodLoad(duckdb_path, period, tables, note=note)
        outputs = write_period(
            out, period, tables, manifest=manifest, fmt=fmt, csv_formulas=csv_formulas, companion=load
        )
    return {**outputs, "duckdb": duckdb_path}


def _write_delta(
    out: str,
    period: str,
    tables: dict[str, pl.DataFrame | pl.LazyFrame],
    *,
    manifest: dict[str, Any],
    duckdb_path: str | None,
) -> dict[str, str]:
    """Write a period into the Delta tables of ``out``; with ``duckdb_path`` the database commits after
    the tables and before the manifest (see :func:`elo_batch.outputs.delta.write_period`)."""
    note = f"The Delta tables of {out} keep their rows of period {period} too."
    load = warehouse.PeriodLoad(duckdb_path, period, tables, note=note) if duckdb_path else None
    outputs = delta.write_period(out, period, tables, manifest=manifest, companion=load)
    return {**outputs, "duckdb": duckdb_path} if duckdb_path else outputs


def _manifest(
    result: RatedTables,
    files: tuple[InputFile, ...],
    *,
    list_info: InputFile | None,
    events_file: InputFile | None,
    config: RunConfig,
    output_options: dict[str, Any],
    started: dt.datetime,
    warnings: tuple[str, ...],
) -> dict[str, Any]:
    return {
        "tool": "elo-batch",
        "version": __version__,
        "period": result.period,
        "rule_set": dataclasses.asdict(result.rule_set),
        "options": {**config.recorded(), **output_options},
        "inputs": {
            "games": [_recorded(f) for f in files],
            "ratings": _recorded(list_info) if list_info else None,
            **({"events": _recorded(events_file)} if events_file else {}),
        },
        "counts": {**dataclasses.asdict(result.counts), "reconciles": result.counts.reconciles()},
        "rows_written": {
            "ratings": result.ratings.height,
            "audit": result.audit_rows,
            "rejected": result.rejected.height,
        },
        "warnings": list(warnings),
        "started_at": started.isoformat(),
        "finished_at": dt.datetime.now(dt.UTC).isoformat(),
    }


def _recorded(info: InputFile) -> dict[str, Any]:
    """What the manifest records of an input: all but its column names (kept for messages only)."""
    record = dataclasses.asdict(info)
    del record["header"]
    return record
