"""The site's files: data as classic ``<script>`` files (escaped), staged beside the site and swapped in at once.

A data file is one call of the page's global loader, ``ELO.put(key, value)`` with ``value`` JSON; a
browser runs it from ``file://`` (where ``fetch()`` and modules are refused). JSON text is escaped for a
``<script>`` element: ``<`` (no ``</script>`` or ``<!--``), U+2028 and U+2029 become ``\\u`` escapes.
The site is written into ``.NAME.staging-*`` beside ``SITE`` and exchanged with the old one in one step
(two renames where the system cannot exchange); an existing ``SITE`` is replaced only when elo-batch
wrote it (its marker file) or it is empty, never another folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
import uuid
from importlib import resources
from pathlib import Path
from types import TracebackType

from elo_batch.errors import OutputError, option
from elo_batch.outputs.durable import exchanger

#: The file that marks a folder as a site elo-batch wrote (and may replace).
MARKER = ".elo-batch-site"
#: Seconds after which a staging folder of a report killed while it wrote is deleted by the next one.
LEFTOVER_AGE = 3600
#: The static files of the package copied into every site (index.html is written from its template).
ASSETS = ("player.html", "site.js", "site.css")
_ESCAPES = (("<", "\\u003c"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))


def escaped(text: str) -> str:
    """JSON text made safe inside a ``<script>`` file: ``<``, U+2028 and U+2029 as ``\\u`` escapes.

    >>> escaped('["</script>"]')
    '["\\\\u003c/script>"]'
    """
    for raw, escape in _ESCAPES:
        text = text.replace(raw, escape)
    return text


def script(key: str, json_text: str) -> str:
    """A data file's text: ``ELO.put(key, value);`` with ``value`` the JSON text given, escaped."""
    return f"ELO.put({escaped(json.dumps(key))},{escaped(json_text)});\n"


class SiteWriter:
    """Write a site into a staging folder, then swap it in for ``site``; a context manager.

    ``with SiteWriter(site) as writer: writer.write("data/x.js", text); writer.commit()``. Leaving the
    block without a commit deletes the staging folder and leaves the old site as it was.

    Raises:
        OutputError: ``site`` is a file, a folder elo-batch did not write, or cannot be written.
    """

    def __init__(self, site: Path) -> None:
        self.site = site
        self.staging = site.parent / f".{site.name}.staging-{uuid.uuid4().hex[:12]}"
        self.files = 0
        self.bytes = 0
        self._folders: set[Path] = set()

    def __enter__(self) -> SiteWriter:
        _check_replaceable(self.site)
        _remove_leftovers(self.site)
        try:
            self.staging.mkdir(parents=True)
            (self.staging / MARKER).write_text("a site written by elo-batch report; replaced by the next one\n")
            for name in ASSETS:
                self.write(name, resources.files("elo_batch.reportsite").joinpath("assets", name).read_text("utf-8"))
        except OSError as exc:
            shutil.rmtree(self.staging, ignore_errors=True)
            raise _unwritable(self.site, exc) from exc
        return self

    def write(self, relative: str, text: str) -> None:
        """Write one file of the site (``relative``: a path the site chose, never one from the data).

        Raises:
            OutputError: it cannot be written (a full disk, say).
        """
        path = self.staging / relative
        data = text.encode("utf-8")
        try:
            if path.parent not in self._folders:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._folders.add(path.parent)
            path.write_bytes(data)
        except OSError as exc:
            raise _unwritable(self.site, exc) from exc
        self.files += 1
        self.bytes += len(data)

    def commit(self) -> None:
        """Swap the staged site in for ``site`` (one exchange where the system can), the old one deleted.

        Raises:
            OutputError: the swap failed (the old site is left as it was).
        """
        old = self.site.parent / f".{self.site.name}.old-{uuid.uuid4().hex[:12]}"
        try:
            if not self.site.exists():
                os.rename(self.staging, self.site)
                return
            swap = exchanger()
            if swap is not None and swap(os.fsencode(self.staging), os.fsencode(self.site)) == 0:
                os.rename(self.staging, old)  # the staging path now holds the old site
            else:
                os.rename(self.site, old)
                os.rename(self.staging, self.site)
        except OSError as exc:
            raise _unwritable(self.site, exc) from exc
        shutil.rmtree(old, ignore_errors=True)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)


def _check_replaceable(site: Path) -> None:
    """Refuse a ``site`` that is a file or a folder elo-batch did not write (and is not empty)."""
    if site.is_symlink() or (site.exists() and not site.is_dir()):
        raise OutputError("the site is not a folder", path=str(site), hint=f"give {option('site')} a folder.")
    if site.is_dir() and not (site / MARKER).is_file() and any(site.iterdir()):
        raise OutputError(
            "this folder holds files that elo-batch report did not write; it is not replaced",
            path=str(site),
            hint=f"give {option('site')} an empty or new folder, or the folder of an earlier report.",
        )


def _remove_leftovers(site: Path) -> None:
    """Delete what a report killed while it wrote left beside ``site`` (``.NAME.staging-*``, ``.NAME.old-*``
    holding the marker, untouched for :data:`LEFTOVER_AGE` seconds: never a report still writing)."""
    for pattern in (f".{site.name}.staging-*", f".{site.name}.old-*"):
        for leftover in site.parent.glob(pattern):
            marker = leftover / MARKER
            with contextlib.suppress(OSError):
                if (
                    not leftover.is_symlink()
                    and marker.is_file()
                    and time.time() - marker.stat().st_mtime > LEFTOVER_AGE
                ):
                    shutil.rmtree(leftover)


def _unwritable(site: Path, exc: OSError) -> OutputError:
    return OutputError(
        f"cannot write the site ({exc.strerror or exc})",
        path=str(site),
        hint=f"give {option('site')} a folder you can write to.",
    )
