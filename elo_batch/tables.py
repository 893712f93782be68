"""The public reader of what ``elo-batch run`` wrote to an output folder: a period's list, audit and rejected rows.

``read_period(out, period)`` reads the three tables of one period and its manifest, from hive folders
(``OUT/<table>/period=P/part-0.parquet|csv``) or Delta tables (at the version the period's manifest
names, its files checked against the sha256 recorded there), under ``OUT``'s lock, so that only committed
periods are read. ``output_periods(out)`` lists the periods ``OUT`` holds (those with a manifest). No rating
rules here; the report (:mod:`elo_batch.reportsite`) draws what this reads.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from elo_batch import columns as c
from elo_batch.contract.schemas import OUTPUT_TYPES
from elo_batch.errors import InputDataError, InputMissingError, UsageError, option
from elo_batch.inputs import listchain, tablelist
from elo_batch.job.sources import path_arg
from elo_batch.storage import deltatables, formulas, objectstore

#: The tables of a period, in the order they are read.
TABLE_NAMES = ("ratings", "audit", "rejected")


@dataclass(frozen=True)
class OutputTables:
    """The tables one period of an output folder holds, as ``elo-batch run`` wrote them.

    Attributes:
        period: The period, ``YYYY-MM``.
        ratings: The new list (interface.md's ratings columns and the list's own), one row per player.
        audit: One row per game and side, or None when not asked for; its ``period`` column (String,
            first) read from the partition folder where the file leaves it out (files written since issue
            24), from the file where an older run wrote it there.
        rejected: The input rows that could not be used, or None when not asked for.
        manifest: The period's manifest (``OUT/manifest/period=P/manifest.json``) as a dict.
        table_format: ``parquet`` (hive folders) or ``delta``.
    """

    period: str
    ratings: pl.DataFrame
    audit: pl.DataFrame | None
    rejected: pl.DataFrame | None
    manifest: dict[str, Any]
    table_format: str


def output_periods(out: str | os.PathLike[str]) -> tuple[str, ...]:
    """The periods an output folder holds (each with a manifest), in order.

    Raises:
        TypeError: ``out`` is not a path.
        UsageError: ``out`` is an object-store URI (read a local folder).
        InputMissingError: ``out`` is missing or holds no period.
    """
    root = _local_out(out)
    found = sorted(
        month
        for folder in (root / "manifest").glob("period=*")
        if (month := listchain.partition_period(folder.name)) and (folder / "manifest.json").is_file()
    )
    if not found:
        raise InputMissingError(
            "the output folder holds no period",
            path=str(root),
            hint=f"give the folder a run wrote (its {option('out')}), with manifest/period=YYYY-MM/manifest.json.",
        )
    return tuple(found)


def read_period(
    out: str | os.PathLike[str],
    period: str,
    *,
    tables: Sequence[str] = TABLE_NAMES,
    ratings_columns: Sequence[str] | None = None,
) -> OutputTables:
    """Read one period of an output folder under its lock: the list, the audit and the rejected rows.

    Args:
        out: A local output folder written by ``elo-batch run`` or :func:`elo_batch.run`.
        period: The period, ``YYYY-MM`` (one of :func:`output_periods`).
        tables: Which of ``ratings``, ``audit``, ``rejected`` to read (the list always is); a report of one
            period never reads another period's audit.
        ratings_columns: Only these columns of the list (those it has; ``period`` always), or None: all.

    Returns:
        The period's tables; Delta tables at the versions its manifest names.

    Raises:
        TypeError: ``out`` is not a path.
        UsageError: ``period`` is not a month, or ``tables`` names another table.
        InputMissingError: ``out`` is missing, or does not hold ``period`` (the periods it holds named).
        InputDataError: a table cannot be read, or differs from what the manifest recorded.
        OutputError: the lock cannot be taken (another writer held it too long).
    """
    import elo_batch

    root = _local_out(out)
    if not isinstance(period, str) or not deltatables.is_month(period):
        raise UsageError(f"{period!r} is not a month", option="period", hint="give a period YYYY-MM.")
    unknown = sorted(set(tables) - set(TABLE_NAMES))
    if unknown:
        raise UsageError(f"no table {unknown[0]!r} in an output folder", hint=f"read {', '.join(TABLE_NAMES)}.")
    with elo_batch.locked_output(root):
        held = output_periods(root)
        if period not in held:
            raise InputMissingError(
                f"the output folder holds no period {period}", path=str(root), hint=f"it holds {', '.join(held)}."
            )
        manifest = listchain.read_manifest(listchain.manifest_file(root / "ratings", period), period)
        delta = deltatables.is_table(root / "ratings")
        read = {name: _read_table(root, name, period, delta=delta) for name in tables if name != "ratings"}
        read["ratings"] = _read_table(root, "ratings", period, delta=delta, columns=ratings_columns)
    return OutputTables(
        period=period,
        ratings=read["ratings"],
        audit=read.get("audit"),
        rejected=read.get("rejected"),
        manifest=manifest,
        table_format="delta" if delta else "parquet",
    )


def _local_out(out: str | os.PathLike[str]) -> Path:
    """``out`` as a local folder that exists.

    Raises:
        UsageError: an object-store URI. InputMissingError: no such folder.
    """
    target = path_arg(out, "out")
    if objectstore.is_object_store(target):
        raise UsageError(f"{target!r} is an object store", option="out", hint="give a local output folder.")
    root = Path(target)
    if not root.is_dir():
        raise InputMissingError(
            "no such output folder", path=target, hint=f"give the folder a run wrote (its {option('out')})."
        )
    return root


def _read_table(
    root: Path, name: str, period: str, *, delta: bool, columns: Sequence[str] | None = None
) -> pl.DataFrame:
    """One table of one period (``columns``: only those it has): the Delta table's rows at the
    manifest's version, or the hive file."""
    if delta:
        version, _ = listchain.delta_version(str(root / name), period)
        frame, _ = tablelist.read_period(str(root / name), period, version)
        frame = frame.select(n for n in frame.columns if n in columns or n == c.PERIOD) if columns else frame
    else:
        frame = _read_hive(root / name / f"period={period}", name, columns)
    if c.PERIOD not in frame.columns:  # the audit's Parquet files leave the period to the partition folder
        frame = frame.select(pl.lit(period).alias(c.PERIOD), pl.all())  # first, where the audit has it
    return frame.with_columns(pl.col(c.PERIOD).cast(pl.String))


def _read_hive(folder: Path, name: str, columns: Sequence[str] | None) -> pl.DataFrame:
    """The ``part-0`` file of a hive partition folder (Parquet; or CSV, its formula escape undone, numbers
    typed).

    Raises:
        InputMissingError: no part file. InputDataError: it cannot be read.
    """
    files = sorted(folder.glob("part-0.*"))
    if not files:
        raise InputMissingError(f"the {name} table has no file for this period", path=str(folder))
    path = files[0]
    try:
        if path.suffix == ".csv":
            frame = csv_output(path)
            return frame.select(n for n in frame.columns if n in columns or n == c.PERIOD) if columns else frame
        scan = pl.scan_parquet(path, hive_partitioning=False)
        if columns:
            scan = scan.select(n for n in scan.collect_schema().names() if n in columns or n == c.PERIOD)
        return scan.collect()
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InputDataError(f"cannot read this {name} file ({exc})", path=str(path)) from exc


def csv_output(path: Path) -> pl.DataFrame:
    """An output table's CSV file as :func:`read_period` reads it: its formula escape undone, the columns
    that are not text typed (the contract's ``OUTPUT_TYPES``), the others (ids, the list's own) text.

    Raises:
        OSError, polars.exceptions.PolarsError: the file cannot be read.
    """
    return _typed(_unescaped(pl.read_csv(path, infer_schema=False)))


def _unescaped(frame: pl.DataFrame) -> pl.DataFrame:
    """A CSV output's text as it was before the formula escape (``'=x`` -> ``=x``; ids never escaped)."""
    frame = frame.rename({name: formulas.unescape_name(name) for name in frame.columns})
    texts = [formulas.unescape(pl.col(n)).alias(n) for n in frame.columns if n not in formulas.ID_COLUMNS]
    return frame.with_columns(texts)


def _typed(frame: pl.DataFrame) -> pl.DataFrame:
    """A CSV output's columns that are not text (:data:`~elo_batch.contract.schemas.OUTPUT_TYPES`) read as
    their types (a CSV holds text): each as the first of its types that reads every cell (the ratings of
    ``rounding="none"`` as Decimal, with their 2 decimals), as the last one leniently (a cell it cannot
    read is null); ids stay text, as written."""
    typed = [
        _read_cells(frame[name], types)
        for name, types in OUTPUT_TYPES.items()
        if name in frame.columns and types[0] != pl.String
    ]
    return frame.with_columns(typed)


def _read_cells(text: pl.Series, types: tuple[pl.DataType, ...]) -> pl.Series:
    """``text`` as the first of ``types`` that reads every cell, else as the last, leniently."""
    for dtype in types[:-1]:
        try:
            return _cells_as(text, dtype, strict=True)
        except pl.exceptions.PolarsError:
            continue
    return _cells_as(text, types[-1], strict=False)


def _cells_as(text: pl.Series, dtype: pl.DataType, *, strict: bool) -> pl.Series:
    if dtype == pl.Boolean:
        return text.str.to_lowercase() == "true"
    if dtype == pl.Date:
        return text.str.to_date(strict=strict)
    return text.cast(dtype, strict=strict)
