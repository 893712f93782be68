"""Writing a period's outputs as hive partitions, atomically; no rating rules.

Layout (``../shared/spec/interface.md``)::

    OUT/ratings/period=YYYY-MM/part-0.parquet   (or part-0.csv)
    OUT/audit/period=YYYY-MM/part-0.parquet
    OUT/rejected/period=YYYY-MM/part-0.parquet
    OUT/manifest/period=YYYY-MM/manifest.json

Everything of a period is first written into a staging folder inside OUT, then each partition folder
is swapped in by a rename, so a failed or interrupted run leaves the previous outputs of that period
as they were, and other periods are never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Any, Literal

import polars as pl

from elo_batch import objectstore
from elo_batch.errors import OutputError

TABLES = ("ratings", "audit", "rejected")
Format = Literal["parquet", "csv"]


def partition_dir(out: str, table: str, period: str) -> Path:
    """``OUT/<table>/period=<period>``."""
    return Path(out) / table / f"period={period}"


def write_period(
    out: str,
    period: str,
    tables: dict[str, pl.DataFrame],
    manifest: dict[str, Any],
    fmt: Format = "parquet",
) -> dict[str, str]:
    """Write one period's tables and manifest, replacing only that period's partitions.

    Args:
        out: Output folder (created if missing), or an object-store URI (``s3://bucket/prefix``).
        period: Month of play, ``YYYY-MM``.
        tables: ``ratings``, ``audit`` and ``rejected`` frames.
        manifest: JSON-serialisable record of the run; the written file paths are added under ``outputs``.
        fmt: ``parquet`` (zstd) or ``csv`` (UTF-8, comma, header).

    Returns:
        Table name -> path of the written file.

    Raises:
        OutputError: the folder cannot be created or written, or a partition cannot be swapped in
            (the previous partition is restored first).
    """
    if objectstore.is_object_store(out):  # s3://bucket/prefix: no rename there, see objectstore.py
        return objectstore.write_period(out, period, tables, manifest, fmt)
    root = Path(out)
    staging = root / f".staging-{period}-{uuid.uuid4().hex[:12]}"
    written: dict[str, str] = {}
    try:
        root.mkdir(parents=True, exist_ok=True)
        for name, frame in tables.items():
            folder = staging / name
            folder.mkdir(parents=True)
            target = folder / f"part-0.{fmt}"
            if fmt == "csv":
                frame.write_csv(target)
            else:
                frame.write_parquet(target, compression="zstd", statistics=True)
            written[name] = str(partition_dir(out, name, period) / target.name)
        manifest = {**manifest, "outputs": written}
        (staging / "manifest").mkdir()
        (staging / "manifest" / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str) + "\n")
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise OutputError(
            f"cannot write the outputs ({exc.strerror or exc})",
            path=out,
            hint="check that the output folder is writable and the disk has room.",
        ) from exc
    _swap_in(root, staging, period, [*tables, "manifest"])
    written["manifest"] = str(partition_dir(out, "manifest", period) / "manifest.json")
    return written


def _swap_in(root: Path, staging: Path, period: str, names: list[str]) -> None:
    """Rename each staged partition into place; on failure put back what was there."""
    old = staging.with_name(staging.name + "-old")
    swapped: list[tuple[Path, Path | None]] = []
    try:
        old.mkdir()
        for name in names:
            target = root / name / f"period={period}"
            target.parent.mkdir(parents=True, exist_ok=True)
            previous = None
            if target.exists():
                previous = old / name
                os.replace(target, previous)
            try:
                os.replace(staging / name, target)
            except OSError:
                if previous is not None:
                    os.replace(previous, target)
                raise
            swapped.append((target, previous))
    except OSError as exc:
        for target, previous in reversed(swapped):
            shutil.rmtree(target, ignore_errors=True)
            if previous is not None:
                os.replace(previous, target)
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
        raise OutputError(f"cannot move the new outputs into place ({exc.strerror or exc})", path=str(root)) from exc
    shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(staging, ignore_errors=True)
