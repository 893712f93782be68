"""Writing one rated period as a run does: its partitions and manifest, Delta tables, a DuckDB load.

Library code: raises :mod:`elo_batch.errors`, never prints or exits.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

import polars as pl

from elo_batch import __version__
from elo_batch.choices import CsvFormulas, Format
from elo_batch.config import RunConfig
from elo_batch.contract.tables import InputFile
from elo_batch.engine.period import PeriodResult
from elo_batch.outputs import delta, warehouse
from elo_batch.outputs.writers import write_period
from elo_batch.storage import objectstore


def period_tables(result: PeriodResult) -> dict[str, pl.DataFrame | pl.LazyFrame]:
    """The tables a period writes, by name (``ratings``, ``audit``, ``rejected``)."""
    return {"ratings": result.ratings, "audit": result.audit, "rejected": result.rejected}


def write_result(
    out: str,
    result: PeriodResult,
    *,
    files: tuple[InputFile, ...],
    list_info: InputFile | None,
    config: RunConfig,
    output_options: dict[str, Any],
    started: dt.datetime,
    warnings: tuple[str, ...],
    stale_periods: tuple[str, ...] = (),
    duckdb_path: str | None = None,
) -> dict[str, str]:
    """Write one rated period under ``out``, its partitions and its manifest, as ``run`` does.

    Args:
        out: Output folder or object-store URI (see :func:`elo_batch.outputs.writers.write_period`).
        result: The period.
        files: The game inputs read, and ``list_info`` the list's (None without a list): for the manifest.
        config: The run's settings.
        output_options: ``format``, ``encoding``, ``csv_formulas`` (``escape`` when not given: see
            :mod:`elo_batch.storage.formulas`) and ``table_format`` (``parquet``: hive folders, the default;
            ``delta``: Delta tables, :mod:`elo_batch.outputs.delta`), recorded in the manifest's options.
        started: When the run started.
        warnings: Everything the run warns about for this period (inputs and rating).
        stale_periods: Later periods in ``out`` built on the list this period replaces (manifest
            ``stale_periods``).
        duckdb_path: Also load the period into this DuckDB file, committed together with the
            partitions (see :func:`_write`).

    Returns:
        Table name (and ``manifest``) -> written file.

    Raises:
        OutputError: as :func:`elo_batch.outputs.writers.write_period`.
    """
    manifest = _manifest(result, files, list_info, config, output_options, started, warnings)
    manifest["stale_periods"] = list(stale_periods)
    if output_options.get("table_format") == "delta":
        return _write_delta(out, result.period, period_tables(result), manifest, duckdb_path)
    formulas = output_options.get("csv_formulas", "escape")
    return _write(out, result.period, period_tables(result), manifest, output_options["format"], duckdb_path, formulas)


def _write(
    out: str,
    period: str,
    tables: dict[str, pl.DataFrame | pl.LazyFrame],
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
        return write_period(out, period, tables, manifest, fmt, csv_formulas=csv_formulas)
    if objectstore.is_object_store(out):
        outputs = write_period(out, period, tables, manifest, fmt, csv_formulas=csv_formulas)
        note = f"The objects of period {period} under {out} were replaced: re-run the period to load it too."
        warehouse.load_period(duckdb_path, period, tables, note=note)
    else:
        note = f"The partitions of period {period} in {out} were kept as they were too."
        load = warehouse.PeriodLoad(duckdb_path, period, tables, note=note)
        outputs = write_period(out, period, tables, manifest, fmt, csv_formulas=csv_formulas, companion=load)
    return {**outputs, "duckdb": duckdb_path}


def _write_delta(
    out: str,
    period: str,
    tables: dict[str, pl.DataFrame | pl.LazyFrame],
    manifest: dict[str, Any],
    duckdb_path: str | None,
) -> dict[str, str]:
    """Write a period into the Delta tables of ``out``; with ``duckdb_path`` the database commits after
    the tables and before the manifest (see :func:`elo_batch.outputs.delta.write_period`)."""
    note = f"The Delta tables of {out} keep their rows of period {period} too."
    load = warehouse.PeriodLoad(duckdb_path, period, tables, note=note) if duckdb_path else None
    outputs = delta.write_period(out, period, tables, manifest, companion=load)
    return {**outputs, "duckdb": duckdb_path} if duckdb_path else outputs


def _manifest(
    result: PeriodResult,
    files: tuple[InputFile, ...],
    list_info: InputFile | None,
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
        "options": {**dataclasses.asdict(config), **output_options},
        "inputs": {
            "games": [_recorded(f) for f in files],
            "ratings": _recorded(list_info) if list_info else None,
            **({"events": _recorded(result.events_file)} if result.events_file else {}),
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
