"""Opening a Delta table of an output folder: a damaged log as an error naming the table and the file, a
stale checkpoint hint passed over; no rows, no commits (:mod:`elo_batch.outputs.deltafiles`).

A Delta table's state is its log, ``_delta_log/<version>.json`` (one JSON action a line) from version 0,
or from a checkpoint on. ``_last_checkpoint`` is only a hint: the protocol lets it lag behind (or name a
checkpoint since removed) and a reader lists the log then. delta-rs refuses to open a table whose hint
names a checkpoint that is not there, so a hint naming a missing checkpoint (or no JSON at all) is removed
before the table is opened, and the run says so. Any other damage (a commit that is not whole JSON, a
missing commit, a missing first commit) is an :class:`~elo_batch.errors.OutputError` naming the table and
the damaged file: elo-batch never guesses at a log it cannot read.
"""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any

from elo_batch.errors import OutputError

LOG = "_delta_log"
HINT_FILE = "_last_checkpoint"
_COMMIT = re.compile(r"(\d{20})\.json")
_CHECKPOINT = re.compile(r"(\d{20})\.checkpoint(\.[^/]*)?\.parquet")


def open_table(lake: Any, path: Path, **options: Any) -> Any:
    """The ``deltalake.DeltaTable`` at ``path`` (``options`` as DeltaTable takes them: ``version``).

    Raises:
        OutputError: the table's log cannot be read: the message names the damaged file (a commit that
            is not whole JSON, a missing commit) when one is found, else delta-rs's reason.
    """
    try:
        return lake.DeltaTable(str(path), **options)
    except Exception as exc:  # DeltaError, DeltaProtocolError, OSError, ValueError: an unreadable log
        raise damaged(path, exc) from exc


def damaged(path: Path, exc: BaseException) -> OutputError:
    """The error of a Delta table at ``path`` whose log delta-rs refused with ``exc``."""
    found = find_damage(path)
    reason = found or f"delta-rs cannot read it ({_first_line(exc)})"
    return OutputError(
        f"the Delta table's log is damaged: {reason}; nothing was read or written",
        path=str(path),
        hint="put the damaged log file back from a backup; else write the periods again into a new output folder "
        "(the table's log is its only record of which files hold its rows).",
    )


def find_damage(path: Path) -> str | None:
    """What is wrong with the log of the table at ``path``, naming the file, or None if nothing is found.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as table:
    ...     (Path(table) / LOG).mkdir()
    ...     _ = (Path(table) / LOG / f"{1:020}.json").write_text('{"commitInfo": {}}')
    ...     find_damage(Path(table))
    '_delta_log/00000000000000000000.json, the first commit, is missing'
    """
    log = path / LOG
    commits = sorted(int(m[1]) for m in map(_COMMIT.fullmatch, _names(log)) if m)
    checkpoints = sorted(int(m[1]) for m in map(_CHECKPOINT.fullmatch, _names(log)) if m)
    start = checkpoints[-1] if checkpoints else 0
    if not commits and not checkpoints:
        return f"{LOG} holds no commit"
    if not checkpoints and commits[0] != 0:
        return f"{LOG}/{0:020}.json, the first commit, is missing"
    later = [version for version in commits if version > start]
    for expected, version in enumerate(later, start + 1):
        if version != expected:
            return f"{LOG}/{expected:020}.json is missing (the log goes on at {version:020}.json)"
    for version in [version for version in commits if version > start or not checkpoints]:
        problem = _not_json(log / f"{version:020}.json")
        if problem:
            return f"{LOG}/{version:020}.json {problem}"
    return None


def repair_hint(path: Path) -> str | None:
    """Remove the ``_last_checkpoint`` hint of the table at ``path`` when it names a checkpoint the log does
    not hold (or is not JSON): the protocol's readers then list the log, which delta-rs refuses to do while
    the hint is there. Call it holding the output folder's lock. Returns the run's warning, or None."""
    hint = path / LOG / HINT_FILE
    try:
        version = json.loads(hint.read_text(encoding="utf-8"))["version"]
        if not isinstance(version, int):
            raise TypeError(f"version {version!r}")
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        problem = f"is not a checkpoint hint ({exc})"
    else:
        held = [m for m in map(_CHECKPOINT.fullmatch, _names(path / LOG)) if m and int(m[1]) == version]
        if held:
            return None
        problem = f"names checkpoint version {version}, which the log does not hold"
    with contextlib.suppress(FileNotFoundError):
        hint.unlink()
    return f"{hint}: {problem}; removed (a stale hint is legal: the log is read from its commits instead)"


def _names(folder: Path) -> list[str]:
    try:
        return [entry.name for entry in folder.iterdir()]
    except OSError:
        return []


def _not_json(commit: Path) -> str | None:
    """Why a commit file is not one JSON object a line (None when it is)."""
    try:
        lines = commit.read_bytes().splitlines()
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            action = json.loads(line)
        except ValueError as exc:
            return f"is not whole JSON (line {number}: {exc})"
        if not isinstance(action, dict):
            return f"is not a Delta commit (line {number} is not a JSON object)"
    return None


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
