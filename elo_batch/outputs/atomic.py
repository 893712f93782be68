"""Replacing folders inside an output folder all at once or not at all; knows no formats.

A :class:`FolderSwap` stages new folders in a hidden folder inside the output folder (same file
system, so a rename moves them), then swaps each into place:

- with Linux ``renameat2(RENAME_EXCHANGE)`` (macOS: ``renamex_np(RENAME_SWAP)``) the old and the new
  folder trade places in one step, so a reader always finds one complete folder; elsewhere (Windows,
  file systems that refuse the exchange) the old folder moves aside into the staging folder, then the
  new one moves in: a moment without the folder, never a half-written one, and the old one is kept
  until the commit;
- before the first swap a journal records each staged folder's inode; the journal's removal is the
  commit. A run that fails before the commit puts every old folder back; a run killed before the
  commit (``SIGKILL``, power loss) leaves its staging folder, and the next swap into the same output
  folder reads the journal, puts the old folders back and deletes the leftover;
- one swap at a time per output folder (the lock of :mod:`elo_batch.outputs.outlock`, with a timeout), so a
  leftover staging folder seen while holding the lock belongs to a dead run;
- a caller that also reads from the output folder (next month's list from ``OUT/ratings/...``)
  holds :func:`locked_output` around the whole read and write: the lock is taken and leftovers are
  recovered before anything is read, and its swaps inside take the lock it already holds;
- an interruption (``KeyboardInterrupt``, a signal turned into an exception) that arrives while old
  folders are put back or the staging folder is deleted waits until that is done; a signal recorded
  in :mod:`elo_batch.interrupts` (whose raise Python may have dropped) stops the commit, which puts
  the old folders back.

Staging folders are named ``.elo-batch-staging-*``: hidden, and never matched by a reader's
``OUT/<table>/period=*/...`` glob.

Only ``OUT/<table>/period=YYYY-MM`` folders of the tables in :data:`TABLES` are ever replaced, moved
or deleted, and only where they lie inside the output folder once links are followed: a journal
naming anything else (``../x``, an absolute path, a table folder that links outside) is refused
before anything is touched, and so is a link inside a staging folder. A leftover staging folder
that is itself a link is removed as a link. The journal is data in a folder others may write to,
never an instruction.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType

from elo_batch import interrupts
from elo_batch.errors import OutputError
from elo_batch.outputs import outlock
from elo_batch.outputs.durable import CANNOT_EXCHANGE, exchanger, fsync_dir, fsync_tree, write_synced
from elo_batch.outputs.outlock import DEFAULT_TIMEOUT
from elo_batch.outputs.outlock import LOCK_NAME as LOCK_NAME

STAGING_PREFIX = ".elo-batch-staging-"
_JOURNAL = "journal.json"
#: The folders of the output folder that a swap may replace: ``<table>/period=YYYY-MM``.
TABLES = ("ratings", "audit", "rejected", "manifest")
#: (resolved output folder, thread) of every lock :func:`locked_output` holds in this process.
_HELD: set[tuple[Path, int]] = set()
_TARGET = re.compile(r"(?P<table>[a-z]+)/period=\d{4}-(0[1-9]|1[0-2])")


class FolderSwap:
    """Stage folders, then replace ``root/<target>`` by each of them; a context manager.

    ``with FolderSwap(root, "2025-10") as swap:`` takes the lock, recovers leftovers of killed runs
    and creates the staging folder; ``swap.folder("ratings/period=2025-10")`` gives an empty folder to
    fill; ``swap.commit()`` swaps them all in. Leaving the block without a commit (an exception) puts
    back whatever was already swapped and deletes the staging folder.

    Args:
        root: The output folder (created if missing).
        label: Part of the staging folder's name (the period).
        lock_timeout: Seconds to wait for the lock while another writer holds it.
        on_lock_wait: Called with the holder's description when the lock is found held.

    Raises:
        OSError: the root, the staging folder or a swap cannot be written (after putting back the old
            folders).
        OutputError: the lock was still held after ``lock_timeout`` seconds (it names the holder).
    """

    def __init__(
        self,
        root: Path,
        label: str,
        *,
        lock_timeout: float = DEFAULT_TIMEOUT,
        on_lock_wait: Callable[[str], None] | None = None,
    ) -> None:
        if not re.fullmatch(r"[\w.-]+", label) or label.strip(".") == "":
            raise ValueError(f"a staging label is a plain name, not {label!r}")
        self.root = root
        self.staging = root / f"{STAGING_PREFIX}{label}-{uuid.uuid4().hex[:12]}"
        self.targets: dict[str, Path] = {}
        self._lock_timeout = lock_timeout
        self._on_lock_wait = on_lock_wait
        self._lock: outlock.OutputLock | None = None
        self._committed = False

    def __enter__(self) -> FolderSwap:
        self.root.mkdir(parents=True, exist_ok=True)
        held = _holder(self.root) in _HELD
        self._lock = None if held else outlock.hold(self.root, timeout=self._lock_timeout, on_wait=self._on_lock_wait)
        try:
            recover(self.root)
            (self.staging / "new").mkdir(parents=True)
        except BaseException:
            try:
                _finish(lambda: shutil.rmtree(self.staging, ignore_errors=True))
            finally:
                self._release()
            raise
        return self

    def folder(self, target: str) -> Path:
        """An empty staged folder that will replace ``root/target`` on commit.

        Raises:
            ValueError: ``target`` is not ``<table>/period=YYYY-MM`` of :data:`TABLES`.
            OutputError: the table folder is a link that leads outside the root.
        """
        _checked_target(self.root, target, where=None)
        staged = self.staging / "new" / str(len(self.targets))
        staged.mkdir()
        self.targets[target] = staged
        return staged

    def commit(self, before_commit: Callable[[], None] | None = None) -> None:
        """Swap every staged folder into place; on failure put the old ones back and re-raise.

        Args:
            before_commit: Called once every folder is swapped in, before the journal's removal
                commits them (another sink's commit, so that both commit together): if it raises,
                the old folders are put back.
        """
        journal = {target: os.stat(staged).st_ino for target, staged in self.targets.items()}
        for staged in self.targets.values():
            fsync_tree(staged)
        write_synced(self.staging / "journal.tmp", json.dumps({"targets": journal}))
        os.rename(self.staging / "journal.tmp", self.staging / _JOURNAL)  # a journal is whole or absent
        fsync_dir(self.staging)
        try:
            for index, (target, staged) in enumerate(self.targets.items()):
                _swap_in(staged, self.root / target, self.staging / "old" / str(index))
            interrupts.check()  # a signal whose raise was dropped (a weakref callback) stops the commit here
            if before_commit is not None:
                before_commit()
        except BaseException:
            _finish(self._put_back)
            raise
        os.remove(self.staging / _JOURNAL)  # the commit
        for target in self.targets:
            fsync_dir((self.root / target).parent)
        self._committed = True

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        try:
            _finish(self._clean_up)
        finally:
            self._release()

    def _put_back(self) -> None:
        """Put back the old folders of an uncommitted swap (again from the start if interrupted)."""
        if not self._committed and (self.staging / _JOURNAL).exists():
            _roll_back(self.root, self.staging)

    def _clean_up(self) -> None:
        self._put_back()
        shutil.rmtree(self.staging, ignore_errors=True)

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None


@contextlib.contextmanager
def locked_output(
    root: Path, *, lock_timeout: float = DEFAULT_TIMEOUT, on_lock_wait: Callable[[str], None] | None = None
) -> Iterator[Path]:
    """Hold the output folder's lock, leftovers of killed runs recovered, around a read and a write.

    A caller that reads inputs from the folder it writes (next month's rating list from
    ``root/ratings/period=YYYY-MM``) enters this before it reads anything: it waits for any other
    writer of ``root``, then puts back what a run killed in the middle of its commit left half
    swapped, so the caller reads only committed periods; every :class:`FolderSwap` into ``root``
    inside the block (and nested ``locked_output`` blocks) uses the lock already held, and other
    writers wait until the block ends. Creates ``root`` if missing.

    Args:
        root: The output folder.
        lock_timeout: Seconds to wait while another writer holds the lock.
        on_lock_wait: Called with the holder's description when the lock is found held.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as out, locked_output(Path(out)) as root:
    ...     (root / ".elo-batch.lock").exists()
    True

    Raises:
        OutputError: ``root`` cannot be created, locked or recovered (a file there, no permission, a
            journal that elo-batch never writes), or another writer held the lock for longer than
            ``lock_timeout`` (the message names it).
    """
    try:
        root.mkdir(parents=True, exist_ok=True)
        holder = _holder(root)
        if holder in _HELD:
            yield root
            return
        lock = outlock.hold(root, timeout=lock_timeout, on_wait=on_lock_wait)
    except OutputError:
        raise
    except OSError as exc:
        raise _lock_error(exc, root) from exc
    _HELD.add(holder)
    try:
        _recover_locked(root)
        yield root
    finally:
        _HELD.discard(holder)
        lock.release()


def _recover_locked(root: Path) -> None:
    """:func:`recover` of a folder just locked; an OSError as the lock's error."""
    try:
        recover(root)
    except OutputError:
        raise
    except OSError as exc:
        raise _lock_error(exc, root) from exc


def _holder(root: Path) -> tuple[Path, int]:
    return root.resolve(), threading.get_ident()


def _lock_error(exc: OSError, root: Path) -> OutputError:
    return OutputError(
        f"cannot lock the output folder ({exc.strerror or exc}{': ' + str(exc.filename) if exc.filename else ''})",
        path=str(root),
        hint="check that the output folder is a folder you may write to.",
    )


def _finish(step: Callable[[], None]) -> None:
    """Run a clean-up ``step`` to its end, again from the start when an interruption (a BaseException
    that is not an Exception: KeyboardInterrupt, a signal raised as an exception) stops it midway; the
    first interruption is raised once the step is done. ``step`` must be safe to run again."""
    interruption: BaseException | None = None
    for _ in range(100):
        try:
            step()
            break
        except Exception:
            if interruption is not None:
                raise interruption from None
            raise
        except BaseException as exc:
            interruption = interruption or exc
    if interruption is not None:
        raise interruption


def recover(root: Path) -> None:
    """Undo and delete what killed runs left in ``root``: staging folders (and their journals).

    Call it only while holding the lock (as :class:`FolderSwap` does). A leftover that is a link
    is removed as a link (what it points to is never touched).

    Raises:
        OutputError: a journal is not one elo-batch writes (a target other than
            ``<table>/period=YYYY-MM`` inside ``root``, a link inside the staging folder, not JSON);
            nothing of that staging folder was rolled back or deleted.
    """
    for leftover in sorted(root.glob(STAGING_PREFIX + "*")):
        if leftover.is_dir() and not leftover.is_symlink():
            if (leftover / _JOURNAL).exists():
                _roll_back(root, leftover)
            shutil.rmtree(leftover)
        else:
            leftover.unlink()


def _journal(root: Path, staging: Path) -> dict[Path, int]:
    """The checked targets of a staging folder's journal: ``root/target`` -> inode of the staged folder."""
    where = staging / _JOURNAL
    try:
        targets = json.loads(where.read_text(encoding="utf-8"))["targets"]
        if not isinstance(targets, dict) or not all(type(inode) is int for inode in targets.values()):
            raise TypeError("targets are not paths with inodes")
    except (ValueError, KeyError, TypeError) as exc:
        raise _refused(where, f"the staging journal is not one elo-batch writes ({exc})") from exc
    checked = {_checked_target(root, target, where): inode for target, inode in targets.items()}
    for inner in ("old", "new", *(f"{kind}/{index}" for kind in ("old", "new") for index in range(len(checked)))):
        if (staging / inner).is_symlink():
            raise _refused(where, f"the staging folder holds a link ({inner})")
    return checked


def _checked_target(root: Path, target: object, where: Path | None) -> Path:
    """``root/target`` once ``target`` is ``<table>/period=YYYY-MM`` of a known table inside ``root``;
    ``where``: the journal that names it, None for a caller of :meth:`FolderSwap.folder`."""
    match = _TARGET.fullmatch(target) if isinstance(target, str) else None
    if match is None or match["table"] not in TABLES:
        problem = f"{target!r} is not <table>/period=YYYY-MM inside the output folder (tables: {', '.join(TABLES)})"
        if where is None:
            raise ValueError(f"a swap replaces only partition folders: {problem}")
        raise _refused(where, f"the staging journal names {problem}")
    table = root / match["table"]
    if table.resolve() != root.resolve() / match["table"]:  # a link (or a link above it) leads elsewhere
        problem = f"leads to {table.resolve()}, outside the output folder"
        if where is None:
            raise OutputError(
                f"the table folder {problem}; nothing was written",
                path=str(table),
                hint="a table folder of the output folder must be a folder inside it, not a link; replace the "
                "link by a folder (or use another output folder).",
            )
        raise _refused(where, f"the staging journal names {target!r}, whose table folder {problem}")
    return root / match[0]


def _refused(journal: Path, problem: str) -> OutputError:
    return OutputError(
        f"{problem}; nothing was recovered or deleted",
        path=str(journal),
        hint=f"elo-batch never writes such a journal. Look at {journal.parent}; if no run of yours left it, "
        "delete that folder, then run again.",
    )


def _roll_back(root: Path, staging: Path) -> None:
    """Put the old folders of an uncommitted swap back, whatever point it reached."""
    journal = _journal(root, staging)
    for index, (current, inode) in enumerate(journal.items()):
        old, staged = staging / "old" / str(index), staging / "new" / str(index)
        if not _is(current, inode):  # not swapped yet, or moved aside without the new one moved in
            if not current.exists() and old.exists():
                os.rename(old, current)
            continue
        previous = old if old.exists() else staged if staged.exists() else None  # after an exchange: the old
        if previous is None or not _exchange(previous, current):
            os.rename(current, staging / f"discard-{index}")
            if previous is not None:
                os.rename(previous, current)
    os.remove(staging / _JOURNAL)


def _swap_in(staged: Path, target: Path, old: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    old.parent.mkdir(exist_ok=True)
    if target.exists():
        if _exchange(staged, target):
            os.rename(staged, old)
            return
        os.rename(target, old)
    os.rename(staged, target)


def _is(path: Path, inode: int) -> bool:
    try:
        return os.stat(path).st_ino == inode
    except FileNotFoundError:
        return False


_EXCHANGE = exchanger()
#: Exchange folders in one step where the system can; tests set it False to run what Windows runs.
USE_EXCHANGE = _EXCHANGE is not None


def _exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths in one step; False where the system or file system cannot."""
    if not USE_EXCHANGE or _EXCHANGE is None:
        return False
    code = _EXCHANGE(os.fsencode(a), os.fsencode(b))
    if code == 0:
        return True
    if code in CANNOT_EXCHANGE:
        return False
    raise OSError(code, os.strerror(code), str(b))
