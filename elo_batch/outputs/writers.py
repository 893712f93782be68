"""Writing a period's outputs as hive partitions, atomically; no rating rules.

Layout (``../shared/spec/interface.md``)::

    OUT/ratings/period=YYYY-MM/part-0.parquet   (or part-0.csv)
    OUT/audit/period=YYYY-MM/part-0.parquet
    OUT/rejected/period=YYYY-MM/part-0.parquet
    OUT/manifest/period=YYYY-MM/manifest.json

Everything of a period is first written into a hidden staging folder inside OUT, then the partition
folders are swapped in (see :mod:`elo_batch.outputs.atomic`), so a failed or interrupted run leaves the
previous outputs of that period as they were, and other periods are never touched. The files depend
only on the frames given (no timestamps, fixed compression and row groups), so the same frames give
the same bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import polars as pl

from elo_batch.choices import CsvFormulas, Format
from elo_batch.errors import OutputError, option
from elo_batch.outputs import outlock, storewriter
from elo_batch.outputs.atomic import FolderSwap
from elo_batch.outputs.deltafiles import check_format
from elo_batch.outputs.encode import in_file, write_table
from elo_batch.storage import objectstore

TABLES = ("ratings", "audit", "rejected")


class Companion(Protocol):
    """Another sink of a period (a database) that commits together with the partitions.

    :func:`write_period` calls :meth:`prepare` once the partitions are staged, :meth:`commit` once
    they are swapped in and before they are committed (if it raises, they are put back), and
    :meth:`abort` after any failure (also after a failed :meth:`prepare` or :meth:`commit`).
    """

    #: What the sink is, for messages ("the DuckDB database elo.duckdb").
    name: str
    #: True once :meth:`commit` succeeded.
    committed: bool

    def prepare(self) -> None:
        """Do all the work of the period, commit nothing."""

    def commit(self) -> None:
        """Commit what :meth:`prepare` did."""

    def abort(self) -> None:
        """Undo what :meth:`prepare` did, if anything is left to undo."""


def partition_dir(out: str, table: str, period: str) -> Path:
    """``OUT/<table>/period=<period>`` (``out`` a path or a ``file:`` URL)."""
    return Path(objectstore.local_path(out)) / table / f"period={period}"


def check_writable(out: str) -> None:
    """Fail early, before any rating, when ``out`` cannot receive the outputs.

    Creates ``out`` (a path or a ``file:`` URL) if missing and opens (then drops) a nameless temporary
    file in it.

    Raises:
        UsageError: ``out`` is a ``file:`` URL of another host.
        OutputError: ``out`` or one of its table folders is a file, or ``out`` cannot be created or
            written.
    """
    if objectstore.is_object_store(out):  # checked by objectstore.check_available
        return
    out = objectstore.local_path(out)
    root = Path(out)
    for path in (root, *(root / table for table in (*TABLES, "manifest"))):
        if path.exists() and not path.is_dir():
            raise OutputError(
                "is a file, not a folder",
                path=str(path),
                hint=f"{option('out')} names the folder that receives the ratings/, audit/, rejected/ and "
                "manifest/ partitions.",
            )
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=root):
            pass
    except OSError as exc:
        raise _output_error(exc, out) from exc


def write_period(
    out: str,
    period: str,
    tables: dict[str, pl.DataFrame | pl.LazyFrame],
    *,
    manifest: dict[str, Any],
    fmt: Format = "parquet",
    csv_formulas: CsvFormulas = "escape",
    companion: Companion | None = None,
    lock_timeout: float = outlock.DEFAULT_TIMEOUT,
    on_lock_wait: Callable[[str], None] | None = None,
) -> dict[str, str]:
    """Write one period's tables and manifest, replacing only that period's partitions.

    Args:
        out: Output folder (created if missing; a path or a ``file:`` URL), or an object-store URI
            (``s3://bucket/prefix``).
        period: Month of play, ``YYYY-MM``.
        tables: ``ratings``, ``audit`` and ``rejected`` frames (a lazy one is streamed to its file).
        manifest: JSON-serialisable record of the run; the written files are added under ``outputs``
            (paths) and ``objects`` (size, sha256 and rows of each, as :mod:`elo_batch.storage.objectstore` does).
        fmt: ``parquet`` or ``csv`` (see :mod:`elo_batch.outputs.encode`).
        csv_formulas: ``escape`` text cells a spreadsheet would run as formulas, or ``keep`` them
            (see :mod:`elo_batch.storage.formulas`; CSV only).
        companion: Another sink of the same period that commits together with the partitions of
            a folder (see :class:`Companion`); not with an object store.
        lock_timeout: Seconds to wait while another writer holds the lock of ``out`` (none is waited
            for when the caller already holds it: :func:`elo_batch.outputs.atomic.locked_output`).
        on_lock_wait: Called with the holder's description when the lock is found held.

    Returns:
        Table name (and ``manifest``) -> path of the written file.

    Raises:
        UsageError: ``out`` is a ``file:`` URL of another host.
        OutputError: the folder cannot be created or written (a full disk: the file being written is
            named), a table folder is a Delta table (checked under the lock; nothing is written), a
            partition cannot be swapped in, the companion fails (the previous partitions of the period
            are put back first, and the companion is aborted), or another writer held the lock for
            longer than ``lock_timeout``.
    """
    if objectstore.is_object_store(out):  # s3://bucket/prefix: no rename there, see objectstore.py
        if companion is not None:
            raise ValueError("an object store has no commit to share with a companion")
        return storewriter.write_period(out, period, tables, manifest=manifest, fmt=fmt, csv_formulas=csv_formulas)
    out = objectstore.local_path(out)
    try:
        with FolderSwap(Path(out), period, lock_timeout=lock_timeout, on_lock_wait=on_lock_wait) as swap:
            check_format(Path(out), "parquet")  # under the lock: a Delta run started together may have written first
            written = _stage(swap, out, period, tables=tables, manifest=manifest, fmt=fmt, csv_formulas=csv_formulas)
            if companion is not None:
                companion.prepare()
            swap.commit(companion.commit if companion is not None else None)
    except BaseException as exc:
        error = _write_error(exc, out, period, companion=companion)
        if error is None:
            raise
        raise error from exc
    written["manifest"] = str(partition_dir(out, "manifest", period) / "manifest.json")
    return written


def _stage(
    swap: FolderSwap,
    out: str,
    period: str,
    *,
    tables: dict[str, pl.DataFrame | pl.LazyFrame],
    manifest: dict[str, Any],
    fmt: Format,
    csv_formulas: CsvFormulas,
) -> dict[str, str]:
    """Write each table, then the manifest, into the swap's staging folders; each table's file once swapped in."""
    written: dict[str, str] = {}
    objects: dict[str, dict[str, Any]] = {}
    for name, frame in tables.items():
        target = swap.folder(f"{name}/period={period}") / f"part-0.{fmt}"
        written[name] = str(partition_dir(out, name, period) / target.name)
        with _naming(written[name]):
            rows = write_table(in_file(name, frame, fmt), target, fmt, csv_formulas=csv_formulas)
        objects[name] = {**_fingerprint(target), "rows": rows}
    manifest_file = swap.folder(f"manifest/period={period}") / "manifest.json"
    manifest = {**manifest, "outputs": dict(written), "objects": objects}
    with _naming(str(partition_dir(out, "manifest", period) / manifest_file.name)):
        manifest_file.write_text(json.dumps(manifest, indent=2, default=str) + "\n", encoding="utf-8")
    return written


def _write_error(exc: BaseException, out: str, period: str, *, companion: Companion | None) -> OutputError | None:
    """The error to raise for what stopped a write (the companion aborted first, unless it committed);
    None: raise ``exc`` as it is."""
    if companion is None:
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            return _output_error(exc, out)
        return None  # an OutputError already says what and where (a refused journal, the lock)
    if companion.committed:  # the partitions' own commit failed after the companion's
        return OutputError(
            f"period {period}: {companion.name} holds the new rows, but the partitions could not be "
            f"committed ({exc}) and were put back",
            path=out,
            hint="re-run the period once the cause is fixed: it replaces both.",
        )
    companion.abort()
    if isinstance(exc, OSError) and not isinstance(exc, OutputError):
        return _output_error(exc, out, companion)
    return None  # the companion's own error says that both kept their previous rows


@contextlib.contextmanager
def _naming(path: str) -> Iterator[None]:
    """An OSError inside names ``path`` (where the file will be), not the staged file being written."""
    try:
        yield
    except OutputError:
        raise
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), path) from exc


def _fingerprint(path: Path) -> dict[str, Any]:
    with open(path, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    return {"size": path.stat().st_size, "sha256": digest}


def _output_error(exc: OSError, out: str, companion: Companion | None = None) -> OutputError:
    kept = f" ({companion.name} was not changed either)" if companion is not None else ""
    return OutputError(
        f"cannot write the outputs ({exc.strerror or exc}{': ' + str(exc.filename) if exc.filename else ''})",
        path=out,
        hint=f"check that the output folder is writable and the disk has room; previous outputs were kept{kept}.",
    )
