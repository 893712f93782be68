"""A period written to an object store (``s3://``, ``gs://``, ``az://`` ...): the same hive layout as a local
folder; the store reached through :mod:`elo_batch.storage.objectstore`. No rating rules here, and nothing
local (see :mod:`elo_batch.outputs.writers`).

An object store has no rename, so a period is replaced in this order (:func:`write_period`):

1. each table's new object is PUT under its final name (``OUT/<table>/period=P/part-0.<fmt>``); a PUT
   is atomic per object, so a reader sees the old object or the new one, never half of one;
2. the manifest is PUT last: it names every object written with its size and sha256;
3. objects of that period that the new run did not write (a ``part-0.csv`` left by an earlier run in
   CSV, say) are deleted.

What a reader sees meanwhile: while step 1 runs, a period being re-run can show new ``ratings`` beside
the previous run's ``audit`` for a moment (there is no multi-object transaction); until step 3 ends, an
object of another format may linger. A reader that needs one consistent period reads the manifest
and checks the objects' sizes (or sha256) against it. If a run fails during step 1, the manifest still
describes the previous run, so the mismatch shows; re-running the period repairs it. Other periods are
never touched.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import polars as pl

from elo_batch import interrupts
from elo_batch.choices import CsvFormulas, Format
from elo_batch.errors import OutputError
from elo_batch.outputs.encode import in_file, table_bytes
from elo_batch.storage.objectstore import HINT, first_line, join, obstore_module, split, store_errors


def write_period(
    out: str,
    period: str,
    tables: dict[str, pl.DataFrame | pl.LazyFrame],
    *,
    manifest: dict[str, Any],
    fmt: Format = "parquet",
    csv_formulas: CsvFormulas = "escape",
) -> dict[str, str]:
    """Write one period's tables and manifest under an object-store prefix (see the module's order).

    Args:
        out: ``scheme://bucket/prefix``.
        period: Month of play, ``YYYY-MM``.
        tables: ``ratings``, ``audit`` and ``rejected`` frames (lazy ones are run first).
        manifest: JSON-serialisable record of the run; ``outputs`` (URIs) and ``objects`` (size, sha256)
            are added.
        fmt: ``parquet`` (zstd) or ``csv``.
        csv_formulas: ``escape`` or ``keep`` formula-like CSV text cells (see
            :mod:`elo_batch.storage.formulas`).

    Returns:
        Table name (and ``manifest``) -> URI of the written object.

    Raises:
        UsageError: ``out`` is not an object-store URI obstore understands, or obstore is missing.
        OutputError: the store refused a write, a listing or a delete.
    """
    store, prefix = split(out)
    obstore = obstore_module(out)
    root = out.rstrip("/")
    written: dict[str, str] = {}
    objects: dict[str, dict[str, Any]] = {}
    keys: set[str] = set()
    try:
        for name, table in tables.items():
            key = join(prefix, name, f"period={period}", f"part-0.{fmt}")
            objects[name] = _put_table(
                obstore, store, key, table=in_file(name, table, fmt), fmt=fmt, csv_formulas=csv_formulas
            )
            keys.add(key)
            written[name] = f"{root}/{name}/period={period}/part-0.{fmt}"
        manifest_key = join(prefix, "manifest", f"period={period}", "manifest.json")
        body = {**manifest, "outputs": written, "objects": objects}
        interrupts.check()  # a signal recorded (its raise dropped somewhere) stops the commit
        obstore.put(store, manifest_key, (json.dumps(body, indent=2, default=str) + "\n").encode())
        keys.add(manifest_key)
        for name in (*tables, "manifest"):
            _delete_stale(obstore, store, join(prefix, name, f"period={period}") + "/", keys=keys)
    except store_errors() as exc:
        raise OutputError(f"cannot write period {period} ({first_line(exc)})", path=out, hint=HINT) from exc
    written["manifest"] = f"{root}/manifest/period={period}/manifest.json"
    return written


def _put_table(
    obstore: Any, store: Any, key: str, *, table: pl.DataFrame | pl.LazyFrame, fmt: Format, csv_formulas: CsvFormulas
) -> dict[str, Any]:
    """Put one table as the object ``key``; its record (size, sha256, rows)."""
    frame = table.collect() if isinstance(table, pl.LazyFrame) else table  # the object is whole anyway
    data = table_bytes(frame, fmt, csv_formulas=csv_formulas)
    obstore.put(store, key, data)
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest(), "rows": frame.height}


def _delete_stale(obstore: Any, store: Any, folder: str, *, keys: set[str]) -> None:
    """Delete the objects under ``folder`` that this write did not put (``keys``)."""
    stale = [item["path"] for item in obstore.list(store, prefix=folder).collect() if item["path"] not in keys]
    if stale:
        obstore.delete(store, stale)
