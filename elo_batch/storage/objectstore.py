"""Where an input or output lies on an object store (``s3://``, ``gs://``, ``az://`` ...): telling a URI
from a local path, the store and key of a URI, and single objects put, listed and read. No rating rules,
and no period's layout: :mod:`elo_batch.outputs.storewriter` writes a period's tables in their order.

Uses obstore (the Python binding of the Rust ``object_store`` crate that polars uses too), configured
the usual way, from the environment: ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_REGION``,
``AWS_ENDPOINT_URL`` (an S3-compatible store), ``AWS_ALLOW_HTTP`` (a plain-HTTP endpoint); ``GOOGLE_*``
and ``AZURE_*`` likewise.
"""

from __future__ import annotations

import os
import re
from typing import Any
from urllib.parse import urlsplit

from elo_batch.errors import OutputError, UsageError

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


def obstore_module(uri: str) -> Any:
    """The ``obstore`` module, for ``uri``.

    Raises:
        UsageError: it is not installed (the hint names the extra).
    """
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
    split(uri)


def split(uri: str) -> tuple[Any, str]:
    """(store for the bucket, key inside it) of ``scheme://bucket/key``."""
    obstore = obstore_module(uri)
    parts = urlsplit(uri)
    if not parts.netloc:
        raise UsageError(f"{uri!r} names no bucket", hint="use scheme://bucket/prefix, e.g. s3://lake/elo.")
    try:
        store = obstore.store.from_url(f"{parts.scheme}://{parts.netloc}")
    except Exception as exc:  # obstore raises its own GenericError for an unknown scheme or bad config
        raise UsageError(
            f"cannot open {uri!r} ({first_line(exc)})",
            hint="object stores: s3://, gs://, az:// (or abfs://) followed by the bucket and a prefix.",
        ) from exc
    return store, parts.path.strip("/")


def join(*parts: str) -> str:
    """An object key of ``parts``, joined by one slash each (empty parts left out)."""
    return "/".join(part.strip("/") for part in parts if part.strip("/"))


def store_errors() -> tuple[type[BaseException], ...]:
    """What obstore raises when a store refuses a request (its own errors, and OSError subclasses)."""
    from obstore.exceptions import BaseError

    return (BaseError, OSError)


def first_line(exc: BaseException) -> str:
    """The first line of a store's error, for a message (its type when it has no text)."""
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def put_object(uri: str, data: bytes) -> None:
    """PUT one object (atomic: readers see the old object or the whole new one).

    Raises:
        UsageError: not an object-store URI obstore understands, or obstore is not installed.
        OutputError: the store refused the write (missing bucket, credentials, network).
    """
    store, key = split(uri)
    obstore = obstore_module(uri)
    try:
        obstore.put(store, key, data)
    except store_errors() as exc:
        raise OutputError(f"cannot write the object ({first_line(exc)})", path=uri, hint=HINT) from exc


def list_objects(uri: str) -> list[str]:
    """The URIs of every object under ``uri``, sorted (names only: nothing is read).

    Raises:
        UsageError: as :func:`put_object`.
        OutputError: the store refused the listing.
    """
    store, prefix = split(uri)
    obstore = obstore_module(uri)
    root = f"{urlsplit(uri).scheme}://{urlsplit(uri).netloc}"
    try:
        listing = obstore.list(store, prefix=prefix + "/" if prefix else None).collect()
    except store_errors() as exc:
        raise OutputError(f"cannot list the objects ({first_line(exc)})", path=uri, hint=HINT) from exc
    return sorted(f"{root}/{item['path']}" for item in listing)


def read_objects(uri: str, suffixes: tuple[str, ...]) -> list[tuple[str, bytes]]:
    """(URI, bytes) of every object under ``uri`` whose name ends in one of ``suffixes``, sorted by name.

    Raises:
        UsageError: as :func:`put_object`.
        OutputError: the store refused the listing or a read.
    """
    store, prefix = split(uri)
    obstore = obstore_module(uri)
    root = f"{urlsplit(uri).scheme}://{urlsplit(uri).netloc}"
    try:
        paths = sorted(
            item["path"]
            for item in obstore.list(store, prefix=prefix + "/" if prefix else None).collect()
            if item["path"].endswith(suffixes)
        )
        return [(f"{root}/{path}", bytes(obstore.get(store, path).bytes())) for path in paths]
    except store_errors() as exc:
        raise OutputError(f"cannot read the objects ({first_line(exc)})", path=uri, hint=HINT) from exc
