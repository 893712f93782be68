"""A list that a period of ``OUT`` wrote, checked against that period's manifest before it is read; no rating
rules.

A month reads the list the month before wrote (``--ratings OUT/ratings``): a file of a partition
``OUT/ratings/period=P`` (hive), or the rows of period P of the Delta table ``OUT/ratings``. The run that
wrote them recorded them in ``OUT/manifest/period=P/manifest.json`` (:mod:`elo_batch.outputs.writers`,
:mod:`elo_batch.outputs.delta`): the sha256 of the hive file (``objects``), or the table's version and
the sha256 of each of its data files (``delta``). A list is the base of every new rating, so one that
differs from what was recorded (a bit flipped on disk, a file edited or replaced) stops the run (exit 65)
before it is read; a folder without a manifest (a list not written by elo-batch, or a manifest lost) is
read with a warning. A Delta list is read at the version its manifest names, not at the table's latest.
The manifest only ever selects among files that are there; a name in it never becomes a path.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from elo_batch.errors import InputDataError, InputMissingError
from elo_batch.storage import deltatables, objectstore

_PARTITION = re.compile(r"period=(\d{4}-(?:0[1-9]|1[0-2]))")


def manifest_file(table: str | Path, period: str) -> Path:
    """Where the manifest of ``period`` lies for a table folder of ``OUT`` (``OUT/ratings`` ->
    ``OUT/manifest/period=P/manifest.json``)."""
    return Path(table).parent / "manifest" / f"period={period}" / "manifest.json"


def partition_period(folder: str | Path) -> str | None:
    """The month of a hive partition folder (``.../period=2025-10`` -> ``2025-10``), else None."""
    found = _PARTITION.fullmatch(Path(folder).name)
    return found.group(1) if found else None


def check_files(files: Sequence[str]) -> tuple[str, ...]:
    """Check the list files that lie in a ``period=P`` folder against the sha256 its manifest recorded.

    Args:
        files: The list's files, as they will be read (others than local partition files are let be: an
            object store's objects are not checked here).

    Returns:
        The warnings: one per partition folder without a manifest.

    Raises:
        InputDataError: a manifest that cannot be read or does not record the table; a file it does not
            name; a file whose sha256 differs from the one it recorded (the file, both sha256 and the
            period to re-run are named).
    """
    by_folder: dict[Path, list[str]] = {}
    for file in files:
        if partition_period(Path(file).parent) and not objectstore.is_object_store(file):  # not checked there
            by_folder.setdefault(Path(file).parent, []).append(file)
    notes = [_check_partition(folder, inside) for folder, inside in by_folder.items()]
    return tuple(note for note in notes if note is not None)


def _check_partition(folder: Path, inside: list[str]) -> str | None:
    """Check the list files ``inside`` one partition folder against its manifest: the warning when it
    cannot (no manifest, or one without sha256), else None.

    Raises:
        InputDataError: as :func:`check_files`.
    """
    period = str(partition_period(folder))
    where = manifest_file(folder.parent, period)
    if not where.is_file():
        return _unchecked(folder, where)
    record = read_manifest(where, period)
    if "objects" not in record and record.get("table_format") != "delta":
        return (
            f"{folder}: the manifest of period {period} ({where}) records no sha256 of its files (an older "
            "elo-batch wrote it); the list was read unchecked"
        )
    named, recorded = _hive_entry(record, where, period, folder=folder)
    for file in inside:
        if Path(file).name != named:
            raise InputDataError(
                f"not the file the manifest of period {period} names ({named}, in {where})",
                path=file,
                hint=f"remove the files elo-batch did not write from {folder}, or re-run period {period}.",
            )
        check_sha256(file, recorded, where, period=period)
    return None


def _hive_entry(record: dict[str, Any], where: Path, period: str, *, folder: Path) -> tuple[str, object]:
    """The file name and the sha256 that a hive manifest records of the partition ``folder``, or the error
    saying it records none."""
    table = folder.parent.name
    objects, outputs = record.get("objects"), record.get("outputs")
    recorded = objects.get(table) if isinstance(objects, dict) else None
    named = outputs.get(table) if isinstance(outputs, dict) else None
    if record.get("table_format") == "delta" or not isinstance(recorded, dict) or not isinstance(named, str):
        raise _damaged(where, period, f"records no file of the {table} partition {folder}")
    return Path(named).name, recorded.get("sha256")


def delta_version(table: str, period: str) -> tuple[int | None, tuple[str, ...]]:
    """The version of the Delta table at ``table`` to read ``period`` at, as its manifest names it, the
    period's data files of that version checked against the sha256 the manifest recorded.

    Returns:
        The version (None without a manifest: read the latest), and the warnings (no manifest; a manifest
        of an older elo-batch, with no sha256; a latest version holding other files of the period).

    Raises:
        InputDataError: the manifest cannot be read or does not name a version of this table; that version
            cannot be read, or its files of the period are not those the manifest names; a file's sha256
            differs from the one recorded.
    """
    where = manifest_file(table, period)
    if not where.is_file():
        return None, (_unchecked(Path(table), where),)
    entry = _delta_entry(read_manifest(where, period), where, period, table=table)
    version = entry["version"]
    lake = deltatables.deltalake()
    files = _version_files(lake, table, version, period=period, where=where)
    if sorted(files) != sorted(str(file) for file in entry["files"]):
        raise _damaged(where, period, f"names other files of the period than version {version} of {table} holds")
    notes = _check_delta_files(table, files, entry, period=period, where=where)
    if sorted(_period_files(lake.DeltaTable(table), period)) != sorted(files):
        notes.append(
            f"{table}: the table's latest version holds other files of period {period} than version {version}, "
            "which the period's manifest names (a later commit another writer made, or a repair); the list was "
            f"read at version {version}"
        )
    return version, tuple(notes)


def _version_files(lake: Any, table: str, version: int, *, period: str, where: Path) -> list[str]:
    """The data files of ``period`` in ``version`` of the Delta table, as :func:`_period_files` gives them.

    Raises:
        InputDataError: the version cannot be read.
    """
    try:
        return _period_files(lake.DeltaTable(table, version=version), period)
    except Exception as exc:  # a version whose log entries were cleaned up, a damaged log
        raise InputDataError(
            f"cannot read version {version} of the Delta table, which the manifest of period {period} names "
            f"({str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__})",
            path=table,
            hint=f"re-run period {period} into {_out(where)}: it writes the period's list again.",
        ) from exc


def _check_delta_files(table: str, files: list[str], entry: dict[str, Any], *, period: str, where: Path) -> list[str]:
    """Check the period's ``files`` of the version the manifest ``entry`` names against its sha256: the
    warning when it records none (an older elo-batch), else none.

    Raises:
        InputDataError: a file outside the table, or whose sha256 differs.
    """
    version, sha256s = entry["version"], entry.get("sha256")
    if not isinstance(sha256s, dict):
        return [
            f"{table}: the manifest of period {period} ({where}) records no sha256 of the table's files (an older "
            f"elo-batch wrote it); its list was read at version {version}, as the manifest names, unchecked"
        ]
    root = Path(table).resolve()
    for file in files:
        if not (root / file).resolve().is_relative_to(root):
            raise _damaged(where, period, f"names version {version}, whose log names a file outside it: {file}")
        check_sha256(str(Path(table) / file), sha256s.get(file), where, period=period)
    return []


def _delta_entry(record: dict[str, Any], where: Path, period: str, *, table: str) -> dict[str, Any]:
    """What a Delta manifest records of the table at ``table``: ``version`` (int), ``files`` (list), maybe
    ``sha256``; or the error saying it records none."""
    tables = record.get("delta")
    entry = tables.get(Path(table).name) if isinstance(tables, dict) else None
    if (
        record.get("table_format") != "delta"
        or not isinstance(entry, dict)
        or not isinstance(entry.get("version"), int)
        or not isinstance(entry.get("files"), list)
    ):
        raise _damaged(where, period, f"names no version of the Delta table {table}")
    return entry


def read_manifest(where: Path, period: str) -> dict[str, Any]:
    """The manifest at ``where`` as a dict.

    Raises:
        InputDataError: it cannot be read or is not a JSON object.
    """
    try:
        record = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # RecursionError: arrays nested past Python's stack
        raise _damaged(where, period, f"cannot be read ({type(exc).__name__}: {str(exc)[:200]})") from exc
    if not isinstance(record, dict):
        raise _damaged(where, period, "cannot be read (not a JSON object)")
    if "period" in record and record["period"] != period:  # a manifest moved or copied from another period
        raise _damaged(where, period, f"names period {str(record['period'])[:20]!r}, not the period of its folder")
    return record


def check_sha256(file: str, recorded: object, where: Path, *, period: str) -> None:
    """Compare the sha256 of ``file`` with the one the manifest at ``where`` recorded.

    Raises:
        InputDataError: they differ (or none was recorded), naming the file, both digests and what to do.
    """
    try:
        with open(file, "rb") as handle:
            actual = hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as exc:
        raise InputMissingError(
            f"cannot read the list ({exc.strerror or exc})",
            path=file,
            hint=f"re-run period {period} into {_out(where)} to write its list again.",
        ) from exc
    if actual == recorded:
        return
    raise InputDataError(
        f"sha256 {actual} differs from {recorded}, which the manifest of period {period} ({where}) recorded when "
        "elo-batch wrote the list: the file was changed or damaged since",
        path=file,
        hint=f"re-run period {period} into {_out(where)} to write its list again (or restore the file from a "
        "backup); a list elo-batch wrote is read as it was written.",
    )


def _period_files(table: Any, period: str) -> list[str]:
    """The data files of ``period`` in a DeltaTable, as its log names them (relative to the table)."""
    import pyarrow as pa

    actions = pa.table(table.get_add_actions(flatten=True))
    if "partition.period" not in actions.column_names:
        return []
    pairs = zip(actions.column("path").to_pylist(), actions.column("partition.period").to_pylist(), strict=True)
    return [str(path) for path, of in pairs if of == period]


def _unchecked(folder: Path, where: Path) -> str:
    return (
        f"{folder}: the list was not written by elo-batch, or its manifest is missing; it was read as it is and "
        f"was not checked against a manifest ({where})"
    )


def _out(where: Path) -> Path:
    """The output folder of a manifest (``OUT/manifest/period=P/manifest.json`` -> ``OUT``)."""
    return where.parent.parent.parent


def _damaged(where: Path, period: str, problem: str) -> InputDataError:
    return InputDataError(
        f"the manifest of period {period} {problem}, so the list cannot be checked against it",
        path=str(where),
        hint=f"re-run period {period} into {_out(where)}: it writes the list and its manifest again.",
    )
