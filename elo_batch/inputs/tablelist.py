"""The list in force taken from one period of a ``ratings`` table that elo-batch wrote: a Delta table, or hive
folders; no rating rules.

``ratings="OUT/ratings", ratings_period="2025-10"`` (CLI: ``--ratings OUT/ratings --ratings-period
2025-10``) reads the rows of period 2025-10: from a Delta table (a folder with ``_delta_log``) at the
version the period's manifest names (the latest without a manifest), with the columns that period was
written with; from hive folders, the files of ``OUT/ratings/period=2025-10``. A ratings table (a Delta
table, or a folder holding ``period=YYYY-MM`` folders) without ``ratings_period`` gives the month before
the first period rated: the list that month produced is the one in force. What is read is first checked
against the period's manifest (:mod:`elo_batch.inputs.listchain`); the rows are then checked as any list is.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from elo_batch import columns as c
from elo_batch.contract.mapping import ColumnMap
from elo_batch.contract.tables import InputFile
from elo_batch.errors import InputMissingError, UsageError, option
from elo_batch.inputs import listchain
from elo_batch.inputs.ratinglist import load_rating_list
from elo_batch.inputs.readers import FrameInput
from elo_batch.storage import deltatables, objectstore

_PERIOD = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


def applies(ratings: object, ratings_period: str | None) -> bool:
    """True when the list is a period of a ratings table: ``ratings_period`` is given, or ``ratings`` is
    a Delta table or a folder of hive partitions (:func:`is_hive`)."""
    return ratings_period is not None or (
        isinstance(ratings, str) and (deltatables.is_table(ratings) or is_hive(ratings))
    )


def is_hive(ratings: str) -> bool:
    """True when ``ratings`` is a local folder holding ``period=YYYY-MM`` folders (as ``OUT/ratings``): a
    table of several periods, never one list."""
    if objectstore.is_object_store(ratings) or not Path(ratings).is_dir():
        return False
    try:
        return any(listchain.partition_period(entry.name) and entry.is_dir() for entry in Path(ratings).iterdir())
    except OSError:  # unreadable: read as a list folder, whose reader names the error
        return False


def check(ratings: object, ratings_period: str | None, periods: Sequence[str]) -> None:
    """Refuse, before any reading, a ``ratings_period`` that cannot be used.

    Raises:
        UsageError: ``ratings_period`` is not one month, or is given without ``ratings`` or with a frame,
            several paths or a file; a ``ratings`` table (Delta, or hive folders) with neither
            ``ratings_period`` nor a period to rate; deltalake is missing for a Delta table.
    """
    if ratings_period is not None:
        if not isinstance(ratings_period, str) or not _PERIOD.fullmatch(ratings_period):
            raise UsageError(
                f"{ratings_period!r} is not a month",
                option="ratings_period",
                hint="give the period of the ratings table to read, YYYY-MM.",
            )
        if not isinstance(ratings, str) or Path(ratings).is_file():
            raise UsageError(
                "a period of a ratings table needs the table's folder as the list"
                + (f"; {ratings} is a file" if isinstance(ratings, str) else ""),
                option="ratings_period",
                hint=f"give {option('ratings')} the folder of a ratings table elo-batch wrote (OUT/ratings), or "
                f"leave out {option('ratings_period')} to read a list file.",
            )
    if isinstance(ratings, str) and deltatables.is_table(ratings):
        _lake()
        if ratings_period is None and not periods:
            raise UsageError(
                f"{ratings} is a Delta table of several periods",
                option="ratings_period",
                hint=f"give {option('ratings_period')} (YYYY-MM), the period whose list is in force.",
            )
    elif isinstance(ratings, str) and ratings_period is None and not periods and is_hive(ratings):
        raise UsageError(
            f"{ratings} is a ratings table of several periods (period=YYYY-MM folders)",
            option="ratings_period",
            hint=f"give {option('ratings_period')} (YYYY-MM), the period whose list is in force.",
        )


def previous_month(period: str) -> str:
    """The month before ``period``.

    >>> previous_month("2026-01"), previous_month("2025-11")
    ('2025-12', '2025-10')
    """
    year, month = int(period[:4]), int(period[5:7])
    return f"{year - 1}-12" if month == 1 else f"{year}-{month - 1:02d}"


def load(
    ratings: str,
    ratings_period: str | None,
    periods: Sequence[str],
    *,
    fractional_ratings: bool = False,
    encoding: str | None = None,
    columns: ColumnMap | None = None,
) -> tuple[pl.DataFrame, InputFile]:
    """Read and check the list of one period of a ratings table (see the module); ``columns``: the list's
    column mapping, as :func:`elo_batch.inputs.ratinglist.load_rating_list` applies it.

    Returns:
        The checked list and what the manifest records: for a Delta table, ``path`` names the table,
        the period and the version read, and ``encoding`` is ``delta``; ``notes`` as
        :mod:`elo_batch.inputs.listchain` warns.

    Raises:
        UsageError: as :func:`check`.
        InputMissingError: the table or its period does not exist.
        InputDataError: what is read differs from what the period's manifest recorded
            (:mod:`elo_batch.inputs.listchain`), or the rows are not a valid list (as any list).
    """
    check(ratings, ratings_period, periods)
    period = ratings_period or previous_month(periods[0])  # periods is not empty without one: check()
    if not deltatables.is_table(ratings):
        local = not objectstore.is_object_store(ratings)
        folder = str(Path(ratings) / f"period={period}") if local else f"{ratings.rstrip('/')}/period={period}"
        if local and not Path(folder).is_dir():
            raise _no_period(ratings, period)
        return load_rating_list(folder, fractional_ratings=fractional_ratings, encoding=encoding, columns=columns)
    named, notes = listchain.delta_version(ratings, period)
    frame, version = read_period(ratings, period, named)
    name = f"{ratings} (Delta table, period {period}, version {version})"
    table, info = load_rating_list(
        FrameInput(frame, name, "ratings"), fractional_ratings=fractional_ratings, columns=columns
    )
    return table, dataclasses.replace(info, path=name, encoding="delta", notes=(*notes, *info.notes))


def _no_period(ratings: str, period: str) -> InputMissingError:
    """The error for a local ``ratings`` folder without the hive folder of ``period``."""
    held = sorted(
        month for p in Path(ratings).glob("period=*") if (month := listchain.partition_period(p.name)) and p.is_dir()
    )
    if held:
        return InputMissingError(
            f"the ratings table has no period {period}",
            path=ratings,
            hint=f"it holds {', '.join(held)}; give {option('ratings_period')} the period whose list is in force.",
        )
    return InputMissingError(
        "not a ratings table elo-batch wrote" if Path(ratings).is_dir() else "no such folder",
        path=ratings,
        hint=f"give {option('ratings')} the ratings folder of an output (OUT/ratings, with period=YYYY-MM folders).",
    )


def read_period(path: str, period: str, version: int | None = None) -> tuple[pl.DataFrame, int]:
    """The rows of ``period`` in the Delta table at ``path`` (at ``version``; None: the latest), with the
    columns that period was written with (others, which other periods brought, are left out), sorted by
    ``player_id``; and the version read.

    Raises:
        InputMissingError: ``path`` is not a Delta table, or has no such period.
    """
    lake = _lake()
    location = objectstore.local_path(path)
    try:
        table = lake.DeltaTable(location, version=version)
    except Exception as exc:  # TableNotFoundError, an unreadable log
        raise InputMissingError(f"cannot read the Delta table ({exc})", path=path) from exc
    written = deltatables.own_commit(table, lambda meta: meta.get(c.PERIOD) == period, upto=version)
    rows = pl.scan_delta(table).filter(pl.col(c.PERIOD) == period)
    names = written[1].get("columns") if written else None
    if isinstance(names, list):
        present = rows.collect_schema().names()
        rows = rows.select(name for name in names if name in present)
    frame = rows.collect()
    if frame.height == 0 and (written is None or written[1].get("run_id") is None):
        held = sorted({part.get(c.PERIOD) or "" for part in table.partitions()})
        raise InputMissingError(
            f"the Delta table has no period {period}",
            path=path,
            hint=f"it holds {', '.join(held) if held else 'no period'}; give {option('ratings_period')} "
            "the period whose list is in force.",
        )
    sortable = c.PLAYER_ID in frame.columns
    return (frame.sort(c.PLAYER_ID, maintain_order=True) if sortable else frame), int(table.version())


def delta_periods(path: str) -> list[tuple[str, pl.DataFrame]]:
    """(period, its rows) of every period of the Delta ``ratings`` table at ``path``, by period (for the chart).

    Raises:
        UsageError: deltalake is not installed.
        InputMissingError: as :func:`read_period`.
    """
    lake = _lake()
    periods = sorted({part.get(c.PERIOD) or "" for part in lake.DeltaTable(objectstore.local_path(path)).partitions()})
    return [(period, read_period(path, period)[0]) for period in periods if period]


def _lake() -> Any:
    try:
        return deltatables.deltalake()
    except UsageError as exc:
        raise UsageError(
            "reading a Delta table needs the deltalake package", option="ratings", hint=deltatables.HINT
        ) from exc
