"""The lock that makes writers into one output folder take turns; knows no tables, no swaps, no CLI.

A holder records who it is (pid, host, start time) in the lock file, so that a writer that has to wait
can say whom it waits for, and gives up after a timeout with an :class:`~elo_batch.errors.OutputError`
naming the holder. Two kinds of lock, on the same record:

- ``OUT/.elo-batch.lock`` locked with ``flock`` (Linux, macOS, the BSDs): the kernel releases it when
  the holder ends, however it ends, so a held lock always belongs to a live process;
- ``OUT/.elo-batch.excl-lock``, created with ``O_EXCL`` and removed on release, where ``flock`` is missing
  (Windows) or refused (``ENOLCK``: some network file systems). A holder that was killed leaves the file;
  the next writer takes it over when its holder is gone: on Windows a file its holder still has open
  cannot be removed, elsewhere the recorded pid must no longer run on this host (a holder on another
  host is never presumed dead: the timeout message says which file to delete).

Runs on different systems sharing one folder over a network (one with ``flock``, one without) do not
exclude each other.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import json
import os
import socket
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from elo_batch.errors import OutputError, option

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = ".elo-batch.lock"
EXCL_LOCK_NAME = ".elo-batch.excl-lock"
#: Seconds a writer waits for the lock unless told otherwise.
DEFAULT_TIMEOUT = 600.0
#: Use ``flock`` where the platform has it; tests set it False to run what Windows runs.
USE_FLOCK = fcntl is not None
_POLL = 0.2  # seconds between two attempts while the lock is held
_GRACE = 10.0  # seconds a lock file without a readable record counts as being written by a live holder


class OutputLock:
    """The held lock of an output folder; a context manager that releases it (``hold`` takes it)."""

    def __init__(self, descriptor: int, path: Path, exclusive_file: bool) -> None:
        self._descriptor: int | None = descriptor
        self.path = path
        self._exclusive_file = exclusive_file

    def release(self) -> None:
        """Release the lock (closing the descriptor releases a ``flock``); a second call does nothing."""
        if self._descriptor is None:
            return
        os.close(self._descriptor)
        self._descriptor = None
        if self._exclusive_file:
            # Gone (removed by hand), or (Windows) another writer took it over between the close and
            # the removal and now holds it open: either way no longer ours.
            with contextlib.suppress(FileNotFoundError, PermissionError):
                os.remove(self.path)

    def __enter__(self) -> OutputLock:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.release()


def hold(root: Path, *, timeout: float = DEFAULT_TIMEOUT, on_wait: Callable[[str], None] | None = None) -> OutputLock:
    """Take the lock of the output folder ``root`` (which must exist), waiting at most ``timeout`` seconds.

    Args:
        root: The output folder.
        timeout: Seconds to wait while another writer holds the lock; 0 tries once.
        on_wait: Called with a description of the holder (``pid 4242 on host etl1 since 2025-11-02
            03:00:01 UTC``) when the lock is found held, and again whenever another writer takes it over.

    Returns:
        The held lock; release it (or leave its ``with`` block) when done.

    Raises:
        OutputError: the lock was still held after ``timeout`` seconds (the message names the holder),
            or the lock file cannot be created.
    """
    deadline = time.monotonic() + timeout
    announced = None
    while True:
        lock, path = _attempt(root)
        if lock is not None:
            _write_record(lock)
            return lock
        holder = describe(read_record(path))
        if on_wait is not None and holder != announced:
            on_wait(holder)
            announced = holder
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            stale = "" if path.name == LOCK_NAME else f"; if no such run is alive, delete {path}"
            raise OutputError(
                f"another writer holds the lock of this output folder ({holder}); gave up after {timeout:g} s",
                path=str(root),
                hint=f"let that run finish, or wait longer ({option('lock_timeout')}, in seconds){stale}.",
            )
        time.sleep(min(_POLL, remaining))


_NO_FLOCK: set[Path] = set()  # folders whose file system refused flock (ENOLCK, ENOTSUP) in this process


def _attempt(root: Path) -> tuple[OutputLock | None, Path]:
    """One try at the lock: (the lock or None while another writer holds it, the lock file's path)."""
    if USE_FLOCK and root not in _NO_FLOCK:
        lock = _try_flock(root)
        if lock is not None or root not in _NO_FLOCK:
            return lock, root / LOCK_NAME
    return _try_exclusive_file(root), root / EXCL_LOCK_NAME


def _try_flock(root: Path) -> OutputLock | None:
    """The flock'ed lock, or None when another process holds it or the file system refuses flock."""
    path = root / LOCK_NAME
    descriptor = _open(path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(descriptor)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            return None
        if exc.errno in (errno.ENOLCK, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EINVAL):
            _NO_FLOCK.add(root)
            return None
        raise _error(exc, path) from exc
    except BaseException:
        os.close(descriptor)
        raise
    return OutputLock(descriptor, path, exclusive_file=False)


def _try_exclusive_file(root: Path) -> OutputLock | None:
    """The lock file created anew (after removing one its holder left), or None while it is held."""
    path = root / EXCL_LOCK_NAME
    for _ in range(2):
        try:
            return OutputLock(_open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL), path, exclusive_file=True)
        except FileExistsError:
            if not _remove_if_abandoned(path):
                return None
    return None


def _open(path: Path, flags: int) -> int:
    try:
        return os.open(path, flags, 0o644)
    except FileExistsError:
        raise
    except OSError as exc:
        raise _error(exc, path) from exc


def _remove_if_abandoned(path: Path) -> bool:
    """Remove an exclusive lock file whose holder is gone; False while it is (or may be) held."""
    if os.name == "nt":
        return _removed_unless_open(path)
    record = read_record(path)
    if _alive(record, path):
        return False
    aside = path.with_name(f"{path.name}.{uuid.uuid4().hex[:12]}")
    try:
        os.rename(path, aside)
    except FileNotFoundError:  # another writer removed it first
        return True
    if read_record(aside) != record:  # another writer took it over meanwhile: give it back
        os.rename(aside, path)
        return False
    os.remove(aside)
    return True


def _removed_unless_open(path: Path) -> bool:
    """True once the lock file is removed or gone; False while its holder has it open (Windows: an open file
    cannot be removed, so success means the holder is gone)."""
    try:
        os.remove(path)
    except FileNotFoundError:
        return True
    except PermissionError:
        return False
    return True


def _alive(record: dict[str, object] | None, path: Path) -> bool:
    if record is None:  # no record (yet): being written, unless the file is old
        try:
            return time.time() - path.stat().st_mtime < _GRACE
        except FileNotFoundError:
            return False
    if record.get("host") != socket.gethostname() or not isinstance(record.get("pid"), int):
        return True  # another host's process: cannot be told dead from here
    try:
        os.kill(int(record["pid"]), 0)  # type: ignore[call-overload]
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def _write_record(lock: OutputLock) -> None:
    record = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "token": uuid.uuid4().hex,
    }
    descriptor = lock._descriptor
    assert descriptor is not None
    try:
        os.ftruncate(descriptor, 0)
        os.lseek(descriptor, 0, os.SEEK_SET)
        os.write(descriptor, json.dumps(record).encode())
    except OSError as exc:
        lock.release()
        raise _error(exc, lock.path) from exc


def read_record(path: Path) -> dict[str, object] | None:
    """Who holds (or last held) the lock at ``path``: ``pid``, ``host``, ``started_at``; None if unknown."""
    try:
        record = json.loads(path.read_bytes() or b"null")
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def describe(record: dict[str, object] | None) -> str:
    """The holder of a lock record, for messages.

    >>> describe({"pid": 4242, "host": "etl1", "started_at": "2025-11-02T03:00:01+00:00"})
    'pid 4242 on host etl1 since 2025-11-02 03:00:01 UTC'
    >>> describe(None)
    'a writer that left no record'
    """
    if not record:
        return "a writer that left no record"
    since = str(record.get("started_at", "?")).replace("T", " ").replace("+00:00", " UTC")
    return f"pid {record.get('pid', '?')} on host {record.get('host', '?')} since {since}"


def _error(exc: OSError, path: Path) -> OutputError:
    return OutputError(
        f"cannot take the lock of the output folder ({exc.strerror or exc})",
        path=str(path),
        hint="check that the output folder is writable.",
    )
