"""Outputs on object stores (``s3://``, ``gs://``, ``az://`` ...): the same hive layout as a local folder.

Uses obstore (the Python binding of the Rust ``object_store`` crate that polars uses too), configured
the usual way, from the environment: ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_REGION``,
``AWS_ENDPOINT_URL`` (an S3-compatible store), ``AWS_ALLOW_HTTP`` (a plain-HTTP endpoint); ``GOOGLE_*``
and ``AZURE_*`` likewise. No rating rules here, and nothing local (see :mod:`elo_batch.outputs.writers`).

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
import os
import re
from typing import Any
from urllib.parse import urlsplit

import polars as pl

from elo_batch import interrupts
from elo_batch.choices import CsvFormulas, Format
from elo_batch.errors import OutputError, UsageError
from elo_batch.outputs.encode import table_bytes

_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
TABLES = ("ratings", "audit", "rejected")
HINT = (
    "check the bucket name and the credentials in the environment (AWS_ACCESS_KEY_ID, "
    "AWS_SECRET_ACCESS_KEY, AWS_REGION; AWS_ENDPOINT_URL and AWS_ALLOW_HTTP for an S3-compatible store)."
)


def is_object_store(location: str) -> bool:
    """True for a URI with a scheme other than ``file://`` (``s3://bucket/prefix``).

    >>> is_object_store("s3://lake/elo"), is_object_store("out"), is_object_store("file:///tmp/out")
    (True, False, False)
    """
    return bool(_URI.match(location)) and not location.lower().startswith("file://")


def local_path(location: str) -> str:
    """``location`` as a local path: a ``file:`` URL becomes the path it names, anything else is kept.

    >>> local_path("file:///srv/elo/out"), local_path("file://localhost/srv/my%20out"), local_path("file:/srv")
    ('/srv/elo/out', '/srv/my out', '/srv')
    >>> local_path("out"), local_path("s3://lake/elo")
    ('out', 's3://lake/elo')

    Raises:
        UsageError: a ``file://`` URL naming another host (on Windows that is a share: ``\\\\host\\share``).
    """
    if not location.lower().startswith("file:"):
        return location
    from urllib.request import url2pathname  # here: urllib.request loads ssl and http (0.03 s of every run)

    parts = urlsplit(location)
    if parts.netloc.lower() in ("", "localhost"):
        return url2pathname(parts.path)
    if os.name == "nt":  # pragma: no cover - file://server/share/dir is the share \\server\share\dir
        return url2pathname(f"//{parts.netloc}{parts.path}")
    raise UsageError(
        f"{location!r} names the host {parts.netloc!r}; a file:// URL here must name a local path",
        hint="use file:///path/to/folder (three slashes), or the plain path.",
    )


def _obstore(uri: str) -> Any:
    try:
        import obstore
        import obstore.store
    except ImportError as exc:
        raise UsageError(
            f"{uri!r} is an object store: that needs the obstore package",
            hint="install elo-batch with object-store support: pip install 'elo-batch[cloud]'.",
        ) from exc
    return obstore


def check_available(uri: str) -> None:
    """Fail early, before any work, when ``uri`` cannot be written: obstore missing or a bad URI.

    Raises:
        UsageError: obstore is not installed, or the URI names no bucket or an unknown scheme.
    """
    _split(uri)


def _split(uri: str) -> tuple[Any, str]:
    """(store for the bucket, key inside it) of ``scheme://bucket/key``."""
    obstore = _obstore(uri)
    parts = urlsplit(uri)
    if not parts.netloc:
        raise UsageError(f"{uri!r} names no bucket", hint="use scheme://bucket/prefix, e.g. s3://lake/elo.")
    try:
        store = obstore.store.from_url(f"{parts.scheme}://{parts.netloc}")
    except Exception as exc:  # obstore raises its own GenericError for an unknown scheme or bad config
        raise UsageError(
            f"cannot open {uri!r} ({_first_line(exc)})",
            hint="object stores: s3://, gs://, az:// (or abfs://) followed by the bucket and a prefix.",
        ) from exc
    return store, parts.path.strip("/")


def _join(*parts: str) -> str:
    return "/".join(part.strip("/") for part in parts if part.strip("/"))


def _store_errors() -> tuple[type[BaseException], ...]:
    """What obstore raises when a store refuses a request (its own errors, and OSError subclasses)."""
    from obstore.exceptions import BaseError

    return (BaseError, OSError)


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def put_object(uri: str, data: bytes) -> None:
    """PUT one object (atomic: readers see the old object or the whole new one).

    Raises:
        UsageError: not an object-store URI obstore understands, or obstore is not installed.
        OutputError: the store refused the write (missing bucket, credentials, network).
    """
    store, key = _split(uri)
    obstore = _obstore(uri)
    try:
        obstore.put(store, key, data)
    except _store_errors() as exc:
        raise OutputError(f"cannot write the object ({_first_line(exc)})", path=uri, hint=HINT) from exc


def write_period(
    out: str,
    period: str,
    tables: dict[str, pl.DataFrame | pl.LazyFrame],
    manifest: dict[str, Any],
    fmt: Format = "parquet",
    *,
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
        csv_formulas: ``escape`` or ``keep`` formula-like CSV text cells (see :mod:`elo_batch.outputs.formulas`).

    Returns:
        Table name (and ``manifest``) -> URI of the written object.

    Raises:
        UsageError: ``out`` is not an object-store URI obstore understands, or obstore is missing.
        OutputError: the store refused a write, a listing or a delete.
    """
    store, prefix = _split(out)
    obstore = _obstore(out)
    root = out.rstrip("/")
    written: dict[str, str] = {}
    objects: dict[str, dict[str, Any]] = {}
    keys: set[str] = set()
    try:
        for name, table in tables.items():
            frame = table.collect() if isinstance(table, pl.LazyFrame) else table  # the object is whole anyway
            data = table_bytes(frame, fmt, csv_formulas=csv_formulas)
            key = _join(prefix, name, f"period={period}", f"part-0.{fmt}")
            obstore.put(store, key, data)
            keys.add(key)
            written[name] = f"{root}/{name}/period={period}/part-0.{fmt}"
            objects[name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest(), "rows": frame.height}
        manifest_key = _join(prefix, "manifest", f"period={period}", "manifest.json")
        body = {**manifest, "outputs": written, "objects": objects}
        interrupts.check()  # a signal recorded (its raise dropped somewhere) stops the commit
        obstore.put(store, manifest_key, (json.dumps(body, indent=2, default=str) + "\n").encode())
        keys.add(manifest_key)
        for name in (*tables, "manifest"):
            folder = _join(prefix, name, f"period={period}") + "/"
            stale = [item["path"] for item in obstore.list(store, prefix=folder).collect() if item["path"] not in keys]
            if stale:
                obstore.delete(store, stale)
    except _store_errors() as exc:
        raise OutputError(f"cannot write period {period} ({_first_line(exc)})", path=out, hint=HINT) from exc
    written["manifest"] = f"{root}/manifest/period={period}/manifest.json"
    return written


def list_objects(uri: str) -> list[str]:
    """The URIs of every object under ``uri``, sorted (names only: nothing is read).

    Raises:
        UsageError: as :func:`put_object`.
        OutputError: the store refused the listing.
    """
    store, prefix = _split(uri)
    obstore = _obstore(uri)
    root = f"{urlsplit(uri).scheme}://{urlsplit(uri).netloc}"
    try:
        listing = obstore.list(store, prefix=prefix + "/" if prefix else None).collect()
    except _store_errors() as exc:
        raise OutputError(f"cannot list the objects ({_first_line(exc)})", path=uri, hint=HINT) from exc
    return sorted(f"{root}/{item['path']}" for item in listing)


def read_objects(uri: str, suffixes: tuple[str, ...]) -> list[tuple[str, bytes]]:
    """(URI, bytes) of every object under ``uri`` whose name ends in one of ``suffixes``, sorted by name.

    Raises:
        UsageError: as :func:`put_object`.
        OutputError: the store refused the listing or a read.
    """
    store, prefix = _split(uri)
    obstore = _obstore(uri)
    root = f"{urlsplit(uri).scheme}://{urlsplit(uri).netloc}"
    try:
        paths = sorted(
            item["path"]
            for item in obstore.list(store, prefix=prefix + "/" if prefix else None).collect()
            if item["path"].endswith(suffixes)
        )
        return [(f"{root}/{path}", bytes(obstore.get(store, path).bytes())) for path in paths]
    except _store_errors() as exc:
        raise OutputError(f"cannot read the objects ({_first_line(exc)})", path=uri, hint=HINT) from exc
