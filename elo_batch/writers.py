"""Writing a period's outputs as hive partitions, atomically; no rating rules.

Layout (``../shared/spec/interface.md``)::

    OUT/ratings/period=YYYY-MM/part-0.parquet   (or part-0.csv)
    OUT/audit/period=YYYY-MM/part-0.parquet
    OUT/rejected/period=YYYY-MM/part-0.parquet
    OUT/manifest/period=YYYY-MM/manifest.json

Everything of a period is first written into a hidden staging folder inside OUT, then the partition
folders are swapped in (see :mod:`elo_batch.atomic`), so a failed or interrupted run leaves the
previous outputs of that period as they were, and other periods are never touched. The files depend
only on the frames given (no timestamps, fixed compression and row groups), so the same frames give
the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

import polars as pl

from elo_batch import objectstore
from elo_batch.atomic import FolderSwap
from elo_batch.encode import Format, write_table
from elo_batch.errors import OutputError
from elo_batch.formulas import CsvFormulas

TABLES = ("ratings", "audit", "rejected")


def partition_dir(out: str, table: str, period: str) -> Path:
    """``OUT/<table>/period=<period>``."""
    return Path(out) / table / f"period={period}"


def check_writable(out: str) -> None:
    """Fail early, before any rating, when ``out`` cannot receive the outputs.

    Creates ``out`` if missing and opens (then drops) a nameless temporary file in it.

    Raises:
        OutputError: ``out`` or one of its table folders is a file, or ``out`` cannot be created or
            written.
    """
    if objectstore.is_object_store(out):  # checked by objectstore.check_available
        return
    root = Path(out)
    for path in (root, *(root / table for table in (*TABLES, "manifest"))):
        if path.exists() and not path.is_dir():
            raise OutputError(
                "is a file, not a folder",
                path=str(path),
                hint="--out names the folder that receives the ratings/, audit/, rejected/ and manifest/ partitions.",
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
    manifest: dict[str, Any],
    fmt: Format = "parquet",
    *,
    csv_formulas: CsvFormulas = "escape",
) -> dict[str, str]:
    """Write one period's tables and manifest, replacing only that period's partitions.

    Args:
        out: Output folder (created if missing), or an object-store URI (``s3://bucket/prefix``).
        period: Month of play, ``YYYY-MM``.
        tables: ``ratings``, ``audit`` and ``rejected`` frames (a lazy one is streamed to its file).
        manifest: JSON-serialisable record of the run; the written files are added under ``outputs``
            (paths) and ``objects`` (size, sha256 and rows of each, as :mod:`elo_batch.objectstore` does).
        fmt: ``parquet`` or ``csv`` (see :mod:`elo_batch.encode`).
        csv_formulas: ``escape`` text cells a spreadsheet would run as formulas, or ``keep`` them
            (see :mod:`elo_batch.formulas`; CSV only).

    Returns:
        Table name (and ``manifest``) -> path of the written file.

    Raises:
        OutputError: the folder cannot be created or written, or a partition cannot be swapped in
            (the previous partitions of the period are put back first).
    """
    if objectstore.is_object_store(out):  # s3://bucket/prefix: no rename there, see objectstore.py
        return objectstore.write_period(out, period, tables, manifest, fmt, csv_formulas=csv_formulas)
    written: dict[str, str] = {}
    objects: dict[str, dict[str, Any]] = {}
    try:
        with FolderSwap(Path(out), period) as swap:
            for name, frame in tables.items():
                target = swap.folder(f"{name}/period={period}") / f"part-0.{fmt}"
                rows = write_table(frame, target, fmt, csv_formulas)
                written[name] = str(partition_dir(out, name, period) / target.name)
                objects[name] = {**_fingerprint(target), "rows": rows}
            manifest_file = swap.folder(f"manifest/period={period}") / "manifest.json"
            manifest = {**manifest, "outputs": dict(written), "objects": objects}
            manifest_file.write_text(json.dumps(manifest, indent=2, default=str) + "\n", encoding="utf-8")
            swap.commit()
    except OSError as exc:
        raise _output_error(exc, out) from exc
    written["manifest"] = str(partition_dir(out, "manifest", period) / "manifest.json")
    return written


def _fingerprint(path: Path) -> dict[str, Any]:
    with open(path, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    return {"size": path.stat().st_size, "sha256": digest}


def _output_error(exc: OSError, out: str) -> OutputError:
    return OutputError(
        f"cannot write the outputs ({exc.strerror or exc}{': ' + str(exc.filename) if exc.filename else ''})",
        path=out,
        hint="check that the output folder is writable and the disk has room; previous outputs were kept.",
    )
