"""A period's outputs as Delta Lake tables (``table_format="delta"``), and the repair of what a run killed
between their commits left; no rating rules, no hive folders (:mod:`elo_batch.outputs.writers`).

Layout: ``OUT/ratings``, ``OUT/audit`` and ``OUT/rejected`` are Delta tables partitioned by ``period``
(delta-rs, the ``deltalake`` package: no Spark, no JVM), and ``OUT/manifest/period=YYYY-MM/manifest.json``
is written by the atomic folder writer, as for hive folders.

A period is written (:func:`write_period`) as one commit per table, each replacing that period's rows
and no other (:mod:`elo_batch.outputs.deltafiles`), in this order:

1. ``rejected``, then ``audit``, then ``ratings`` (the next month's list is read from it, so it goes
   last; the audit, the largest, fails before the list is touched). Each commit carries, in its commit
   info under the key ``elo_batch``, the period, a run id, the columns written and the manifest;
2. the manifest file, last, naming the run id and each table's committed version: it is the period's
   commit point.

Delta has no transaction over several tables, so while a period is written a reader of the latest
versions can see its new ``audit`` beside its previous ``ratings``; a reader that needs one consistent
period reads the manifest and each table at the version it names. A run that fails between the commits
puts back the tables it committed before it raises; a run killed there (``kill -9``, power loss)
leaves tables whose newest elo-batch commit names a run that the period's manifest does not, and the
next run into OUT (every one, under the lock, before it reads or writes anything: :func:`recover`)
rolls each such table's period back to the version its manifest names, by a new commit of the rows the
period had then (``restore`` would also undo later commits of other periods). A period whose first run
was killed is deleted from the tables it reached. Only each table's newest elo-batch commit needs the
check: every run checks first, under the lock.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from elo_batch import columns as c
from elo_batch import interrupts
from elo_batch.errors import OutputError, UsageError, option
from elo_batch.outputs import atomic, outlock
from elo_batch.outputs.atomic import FolderSwap
from elo_batch.outputs.deltafiles import Plan, check_format, commit, plan
from elo_batch.outputs.deltalog import open_table, repair_hint
from elo_batch.outputs.writers import Companion
from elo_batch.storage import objectstore
from elo_batch.storage.deltatables import HINT, KEY, deltalake, is_month, is_table, own_commit

#: The tables, in the order a period commits them (the manifest file comes after them).
ORDER = ("rejected", "audit", "ratings")
__all__ = [
    "HINT", "ORDER", "check_out", "deltalake", "is_table", "later_periods", "own_commit", "recover", "write_period",
]  # fmt: skip


def check_out(out: str, table_format: str, fmt: str = "parquet") -> None:
    """Refuse, before any work, Delta tables that cannot be written, and an output folder whose tables
    are of the other format.

    Raises:
        UsageError: ``table_format`` is not parquet or delta; Delta tables in CSV (``fmt``) or into an
            object store (only local folders are supported), or deltalake is not installed.
        OutputError: a table folder of ``out`` holds hive partitions and Delta is asked for, or is a
            Delta table and hive partitions are asked for (either would corrupt the other).
    """
    if table_format not in ("parquet", "delta"):
        raise UsageError(
            f"{table_format!r} is not a table format", option="table_format", hint="use parquet (hive) or delta."
        )
    if table_format == "delta":
        if fmt != "parquet":
            raise UsageError(
                f"Delta tables hold Parquet files, not {fmt}",
                option="format",
                hint=f"leave {option('format')} at parquet with {option('table_format', 'delta')}.",
            )
        if objectstore.is_object_store(out):
            raise UsageError(
                f"Delta tables are written into a local folder, not {out!r}",
                option="out",
                hint=f"give a local folder (or a file: URL), or leave {option('table_format')} at parquet.",
            )
        deltalake()
    if not objectstore.is_object_store(out):
        check_format(Path(objectstore.local_path(out)), table_format)


def predicate(period: str) -> str:
    """The predicate that selects one period's rows; only a checked month is ever put into it.

    >>> predicate("2025-10")
    "period = '2025-10'"
    """
    if not is_month(period):
        raise ValueError(f"a period is YYYY-MM, not {period!r}")
    return f"{c.PERIOD} = '{period}'"


def write_period(
    out: str,
    period: str,
    tables: Mapping[str, pl.DataFrame | pl.LazyFrame],
    *,
    manifest: dict[str, Any],
    companion: Companion | None = None,
    lock_timeout: float = outlock.DEFAULT_TIMEOUT,
    on_lock_wait: Callable[[str], None] | None = None,
) -> dict[str, str]:
    """Replace one period in the Delta tables of ``out``, then write its manifest (see the module).

    Holds the lock of ``out`` (or uses the one the caller holds) and repairs what killed runs left
    (:func:`recover`) before anything is written.

    Args:
        out: Output folder (a path or a ``file:`` URL; created if missing).
        period: Month of play, ``YYYY-MM``.
        tables: ``ratings``, ``audit`` and ``rejected`` frames of the period; a lazy one is streamed
            into its file, never whole in memory.
        manifest: JSON-serialisable record of the run; ``run_id``, ``table_format``, ``outputs``
            (table folders) and ``delta`` (each table's committed version, rows, files and each file's
            sha256) are added.
        companion: Another sink that commits together with the tables (see
            :class:`elo_batch.outputs.writers.Companion`): prepared before the first table's commit, committed
            after the last one and before the manifest.
        lock_timeout: Seconds to wait while another writer holds the lock of ``out``.
        on_lock_wait: Called with the holder's description when the lock is found held.

    Returns:
        Table name -> table folder, and ``manifest`` -> the manifest file.

    Raises:
        UsageError: deltalake is not installed.
        OutputError: a table folder holds hive partitions, or a column's type differs from its table's
            (nothing is written), a table cannot be written (the tables committed already are put back
            first), or the lock was held for longer than ``lock_timeout``.
    """
    predicate(period)
    deltalake()
    root = Path(objectstore.local_path(out))
    with atomic.locked_output(root, lock_timeout=lock_timeout, on_lock_wait=on_lock_wait):
        check_format(root, "delta")  # under the lock: a hive run started together may have written first
        recover(str(root), (period,))
        plans = {name: plan(root / name, period, tables[name]) for name in ORDER}
        record = {**manifest, "run_id": uuid.uuid4().hex, "table_format": "delta"}
        try:
            _commit_tables(root, period, plans, record=record, companion=companion)
        except BaseException as exc:
            error = _undo(root, period, exc, companion=companion)
            if error is exc:
                raise
            raise error from exc
    written = {name: str(root / name) for name in ("ratings", "audit", "rejected")}
    return {**written, "manifest": str(root / "manifest" / f"period={period}" / "manifest.json")}


def _commit_tables(
    root: Path, period: str, plans: dict[str, Plan], *, record: dict[str, Any], companion: Companion | None
) -> None:
    """Commit each table's plan (the companion prepared before the first, committed after the last), then
    write the period's manifest: ``record`` with the tables' folders and committed versions."""
    versions: dict[str, dict[str, Any]] = {}
    if companion is not None:
        companion.prepare()
    for name in ORDER:
        meta = {"period": period, "run_id": record["run_id"], "table": name}
        meta |= {"columns": plans[name].columns, "manifest": record}
        interrupts.check()  # a signal recorded (its raise dropped somewhere) stops the commits
        versions[name] = _with_sha256(root / name, commit(root / name, period, plans[name], meta=meta))
    interrupts.check()
    if companion is not None:
        companion.commit()
    outputs = {name: str(root / name) for name in ORDER}
    _write_manifest(root, period, {**record, "outputs": outputs, "delta": versions})


def _with_sha256(table: Path, committed: dict[str, Any]) -> dict[str, Any]:
    """A commit's record with the sha256 of each data file it added (``sha256``: file -> hex digest), which
    the next month checks before it reads the list (:mod:`elo_batch.inputs.listchain`)."""
    digests = {}
    for file in committed["files"]:
        with open(table / file, "rb") as handle:
            digests[file] = hashlib.file_digest(handle, "sha256").hexdigest()
    return {**committed, "sha256": digests}


def _undo(root: Path, period: str, exc: BaseException, *, companion: Companion | None) -> BaseException:
    """Put back the tables a failed write committed (an interruption may come right after a commit, so
    every table is checked); the error to raise (``exc`` itself when it says enough)."""

    def put_back() -> None:
        recover(str(root), ())

    try:
        atomic._finish(put_back)
    finally:
        if companion is not None and not companion.committed:
            companion.abort()
    return _undo_error(root, period, exc, companion=companion)


def _undo_error(root: Path, period: str, exc: BaseException, *, companion: Companion | None) -> BaseException:
    """The error to raise once a failed write is undone (``exc`` itself when it says enough)."""
    if companion is not None and companion.committed:
        return OutputError(
            f"period {period}: {companion.name} holds the new rows, but the Delta tables could not be committed "
            f"({exc}) and were put back",
            path=str(root),
            hint="re-run the period once the cause is fixed: it replaces both.",
        )
    if isinstance(exc, OSError) and not isinstance(exc, OutputError):
        return OutputError(
            f"cannot write the Delta tables ({exc.strerror or exc}{': ' + str(exc.filename) if exc.filename else ''})",
            path=str(root),
            hint="check that the output folder is writable and the disk has room; the period's previous rows were "
            "kept.",
        )
    return exc


def recover(out: str, periods: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Roll back each table whose newest elo-batch commit belongs to a run that its period's manifest does
    not name (a run killed, or failed, between its commits); call it while holding the lock of ``out``.

    Args:
        out: Output folder.
        periods: Periods about to be written again: one whose rollback is impossible (the files of
            the manifest's version were vacuumed) is left for that write to replace.

    Returns:
        What was rolled back, one line per table (for the run's warnings).

    A ``_last_checkpoint`` hint naming a checkpoint the log does not hold is removed first, and a
    partition whose period is not a month (rows another writer added) is left as it is: both are said
    in the lines returned.

    Raises:
        OutputError: a table's log is damaged (it names the table and the file: :mod:`elo_batch.outputs.deltalog`),
            or a table cannot be rolled back and its period is not in ``periods``.
    """
    root = Path(objectstore.local_path(out))
    if not any(is_table(root / name) for name in ORDER):
        return ()
    lake = deltalake()
    notes = []
    for name in ORDER:
        if is_table(root / name):
            notes += _recover_table(lake, root, name, periods=periods)
    return tuple(notes)


def _recover_table(lake: Any, root: Path, name: str, *, periods: tuple[str, ...]) -> list[str]:
    """:func:`recover` of one table: what it says of the table, and of its rollback when one was needed."""
    path = root / name
    notes = [note] if (note := repair_hint(path)) else []
    table = open_table(lake, path)
    notes += _not_months(path, table)
    found = own_commit(table)
    if found is None:
        return notes
    period = str(found[1].get("period"))
    manifest = read_manifest(root, period)
    named = manifest.get("run_id") if manifest else None
    if found[1].get("run_id") == named:
        return notes
    try:
        notes.append(_roll_back(lake, path, name, period=period, manifest=manifest, found=found[1]))
    except OutputError:
        if period not in periods:
            raise
    return notes


def _not_months(path: Path, table: Any) -> list[str]:
    """A note for each partition of the table whose period is not a month (left as it is)."""
    return [
        f"{path}: partition {c.PERIOD}={value!r} is not a month of play (another writer's rows?); elo-batch "
        "leaves it as it is, and never reads or writes it"
        for value in sorted({str(part.get(c.PERIOD)) for part in table.partitions()} - {"None"})
        if not is_month(value)
    ]


def _roll_back(lake: Any, path: Path, name: str, *, period: str, manifest: dict[str, Any] | None, found: dict) -> str:
    """Give ``path`` back the rows of ``period`` that its manifest names (none without a manifest): the
    files it names are read (a replaced file stays on disk until ``VACUUM``, whatever the log's
    retention) and committed anew as the period's rows."""
    marker = {"period": period, "run_id": manifest.get("run_id") if manifest else None, "table": name}
    marker["repair"] = f"rolled back run {found.get('run_id')}, which no manifest names"
    named = (manifest or {}).get("delta", {}).get(name)
    if not isinstance(named, dict):
        properties = lake.CommitProperties(custom_metadata={KEY: json.dumps(marker)})
        open_table(lake, path).delete(predicate(period), commit_properties=properties)
        return f"{path}: removed period {period}, left by a run killed before its manifest was written"
    files = _named_files(named, path, period)
    try:
        _commit_again(lake, path, period, files=files, marker=marker)
    except Exception as exc:
        raise _not_read_back(path, period, named, exc=exc) from exc
    return (
        f"{path}: period {period} rolled back to version {named.get('version')}, as its manifest names "
        "(a run killed between commits)"
    )


def _not_read_back(path: Path, period: str, named: dict[str, Any], *, exc: Exception) -> OutputError:
    """The error for a rollback whose files, which the manifest names (``named``), cannot be committed anew."""
    return OutputError(
        f"period {period}: a run killed between its commits left rows that no manifest names, and the files "
        f"of version {named.get('version')}, which the manifest names, cannot be read back "
        f"({str(exc).strip().splitlines()[0]})",
        path=str(path),
        hint=f"re-run period {period} into this output folder: it replaces the period in every table.",
    )


def _named_files(named: dict[str, Any], path: Path, period: str) -> list[str]:
    """The files of the table that a manifest's record of it names; refused unless each is a data file of ``period``."""
    files = named.get("files")
    inside = re.compile(rf"{c.PERIOD}={re.escape(period)}/[\w.-]+\.parquet")
    if not isinstance(files, list) or not all(isinstance(file, str) and inside.fullmatch(file) for file in files):
        raise OutputError(
            f"the manifest of period {period} does not name files of this table ({files!r}); nothing was rolled back",
            path=str(path),
            hint=f"re-run period {period} into this output folder: it replaces the period in every table.",
        )
    return files


def _commit_again(lake: Any, path: Path, period: str, *, files: list[str], marker: dict[str, Any]) -> None:
    """Commit ``files`` anew as the period's rows (no files: no rows), with ``marker`` as elo-batch's record."""
    then = own_commit(open_table(lake, path), lambda record: record.get("run_id") == marker["run_id"])
    if files:
        rows = pl.scan_parquet([path / file for file in files]).with_columns(pl.lit(period).alias(c.PERIOD))
        planned = plan(path, period, rows)
    else:  # the period had no rows in this table
        planned = Plan({}, open_table(lake, path).schema(), [], False)
    marker["columns"] = then[1].get("columns", planned.columns) if then else planned.columns
    commit(path, period, planned, meta=marker)


def read_manifest(root: Path, period: str) -> dict[str, Any] | None:
    """The manifest of ``period`` in ``root`` when a Delta run wrote it, else None."""
    try:
        manifest = json.loads((root / "manifest" / f"period={period}" / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) and manifest.get("table_format") == "delta" else None


def _write_manifest(root: Path, period: str, manifest: dict[str, Any]) -> None:
    with FolderSwap(root, period) as swap:
        target = swap.folder(f"manifest/period={period}") / "manifest.json"
        target.write_text(json.dumps(manifest, indent=2, default=str) + "\n", encoding="utf-8")
        swap.commit()


def later_periods(out: str, periods: tuple[str, ...]) -> tuple[str, ...]:
    """Periods of the Delta ``ratings`` table in ``out`` later than every period of ``periods``, in order."""
    path = Path(objectstore.local_path(out)) / "ratings"
    if not periods or not is_table(path):
        return ()
    found = {part.get(c.PERIOD) for part in open_table(deltalake(), path).partitions()}
    return tuple(sorted(period for period in found if is_month(period) and period > max(periods)))
