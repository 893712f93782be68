"""A Delta Lake table as elo-batch reads it: the ``deltalake`` module, whether a folder is a table, and
the newest commit elo-batch made to it (its record: the period, the run). Writing a commit is
:mod:`elo_batch.outputs.deltafiles`; no rating rules here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from elo_batch import columns as c
from elo_batch.errors import UsageError, option
from elo_batch.storage import objectstore

#: The key of elo-batch's record in a commit's info (``commit_properties.custom_metadata``).
KEY = "elo_batch"


HINT = "install elo-batch with Delta Lake support: pip install 'elo-batch[delta]'."


_MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


_RECENT = 24  # commits read first when looking for elo-batch's newest: two years of monthly runs


def deltalake() -> Any:
    """The ``deltalake`` module.

    Raises:
        UsageError: it is not installed (the hint names the extra).
    """
    try:
        import deltalake
    except ImportError as exc:
        raise UsageError(
            f"{option('table_format', 'delta')} needs the deltalake package", option="table_format", hint=HINT
        ) from exc
    return deltalake


def is_month(period: object) -> bool:
    """Whether ``period`` is a month of play, ``YYYY-MM``: the only partition values elo-batch reads or writes.

    >>> is_month("2025-10"), is_month("../x"), is_month("2025-13")
    (True, False, False)
    """
    return isinstance(period, str) and _MONTH.fullmatch(period) is not None


def is_table(path: str | Path) -> bool:
    """True when ``path`` (a folder or a ``file:`` URL) is a Delta table: it has a ``_delta_log`` folder."""
    location = str(path)
    if objectstore.is_object_store(location):
        return False
    return (Path(objectstore.local_path(location)) / "_delta_log").is_dir()


def own_commit(
    table: Any, wanted: Callable[[dict[str, Any]], bool] = lambda record: True, *, upto: int | None = None
) -> tuple[int, dict[str, Any], dict[str, Any]] | None:
    """The newest commit of ``table`` (a DeltaTable; up to version ``upto``) written by elo-batch whose
    record ``wanted`` accepts: (version, elo-batch's record, the whole commit info), or None. Other
    writers' commits (``OPTIMIZE``, ``VACUUM``), and a record whose period is not a month (elo-batch never
    writes one), are passed over. The newest commits are read first,
    the whole history only when they do not hold it."""
    for limit in (_RECENT, None):
        history = table.history(limit)
        for entry in sorted(history, key=lambda entry: -int(entry.get("version", -1))):
            if upto is not None and int(entry.get("version", -1)) > upto:
                continue
            try:
                record = json.loads(entry[KEY]) if KEY in entry else None
            except (TypeError, ValueError):
                record = None
            if isinstance(record, dict) and is_month(record.get(c.PERIOD)) and wanted(record):
                return int(entry["version"]), record, entry
        if limit is not None and len(history) < limit:
            break  # that was the whole history
    return None
