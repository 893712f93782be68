"""A player's published ratings list by list, read from an output folder of ``elo-batch run``.

Reads only ``OUT/ratings/period=*/part-0.*`` (Parquet or CSV, local or on an object store) or the
ratings Delta table. No rating rules here; :mod:`elo_batch.cli.chart` draws it.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from elo_batch import working as w
from elo_batch.config import next_period
from elo_batch.errors import InputDataError, InputMissingError, UsageError, option
from elo_batch.inputs.tablelist import delta_periods
from elo_batch.inputs.text import closest_hint
from elo_batch.job.sources import path_arg
from elo_batch.storage import objectstore
from elo_batch.storage.deltatables import is_table

_PARTITION = re.compile(r"period=(\d{4}-\d{2})/part-0\.(parquet|csv)$")


@dataclass(frozen=True)
class History:
    """One player's published ratings, list by list.

    Attributes:
        player_id: The player. name: The ``name`` column of the list, when there is one.
        lists: Date of each rating list (the first day of a month), in order.
        ratings: Rating on that list (None while unrated), rating points.
        changes: The change that produced it (None for the first list and where nothing was rated);
            ``new`` ratings are marked in ``labels``.
        labels: The annotation of each point (``+7``, ``-3``, ``new``, or empty).
    """

    player_id: str
    name: str | None
    lists: tuple[dt.date, ...]
    ratings: tuple[float | None, ...]
    changes: tuple[float | None, ...]
    labels: tuple[str, ...]


def rating_history(out: str | os.PathLike[str], player: str | int) -> History:
    """The player's rating on each list an output folder produced, with the change of each period.

    The first point is the list in force before the first period (``rating_before``); then one point
    per period, on the list it feeds (games of October make the 1 November list).

    Args:
        out: An output folder (or object-store prefix) written by ``elo-batch run`` or :func:`elo_batch.run`.
        player: The ``player_id``, compared as text (``30953499`` and ``"30953499"`` are one player).

    Returns:
        The player's history, ordered by list date.

    Raises:
        TypeError: ``out`` is not a path, or ``player`` neither text nor an integer.
        InputMissingError: ``out`` holds no ``ratings`` partition.
        UsageError: the player is in none of the periods, or ``out`` is empty.
        InputDataError: a partition cannot be read.
    """
    out = path_arg(out, "out")
    player = _player_arg(player)
    frames = [_ratings_of(period, frame) for period, frame in _partitions(out)]
    ratings = pl.concat(frames)
    mine = ratings.filter(pl.col("player_id") == player).sort(w.PARTITION_PERIOD)
    if mine.height == 0:
        known = ratings["player_id"].unique().sort().to_list()
        hint = closest_hint(player, known) or f"player ids there look like {', '.join(map(repr, known[:3]))}."
        raise UsageError(
            f"player {player!r} is in none of the {len(frames)} period(s) in {out}", option="player", hint=hint
        )
    points = _points(mine)
    dates = sorted(points)
    names = mine["name"].drop_nulls()
    return History(
        player_id=player,
        name=names[-1] if names.len() else None,
        lists=tuple(dates),
        ratings=tuple(points[d][0] for d in dates),
        changes=tuple(points[d][1] for d in dates),
        labels=tuple(points[d][2] for d in dates),
    )


def _player_arg(player: object) -> str:
    """The ``player`` argument as the text a ``player_id`` is compared as.

    Raises:
        TypeError: neither text nor an integer.
    """
    if isinstance(player, int) and not isinstance(player, bool):
        return str(player)
    if not isinstance(player, str):
        raise TypeError(f"player must be a player_id as text or an integer, not {type(player).__name__}")
    return player


def _ratings_of(period: str, frame: pl.DataFrame) -> pl.DataFrame:
    """The columns of one ratings partition a history reads, typed alike in every period."""
    return frame.select(
        pl.col("player_id").cast(pl.String),
        pl.lit(period).alias(w.PARTITION_PERIOD),
        *[pl.col(name).cast(pl.Float64, strict=False) for name in ("rating", "rating_before", "change")],
        pl.col("status").cast(pl.String),
        (pl.col("name") if "name" in frame.columns else pl.lit(None)).cast(pl.String).alias("name"),
    )


def _points(mine: pl.DataFrame) -> dict[dt.date, tuple[float | None, float | None, str]]:
    """List date -> (rating, the change that made it, its label) of one player's rows, by period."""
    points: dict[dt.date, tuple[float | None, float | None, str]] = {}
    for row in mine.iter_rows(named=True):
        before = _first_day(row[w.PARTITION_PERIOD])
        if before not in points:
            points[before] = (row["rating_before"], None, "")
        label = "new" if row["status"] == "new" else _signed(row["change"]) if row["rating"] is not None else ""
        points[_first_day(next_period(row[w.PARTITION_PERIOD]))] = (row["rating"], row["change"], label)
    return points


def _partitions(out: str) -> list[tuple[str, pl.DataFrame]]:
    """(period, table) of each ratings partition, by period."""
    found: list[tuple[str, str, str, bytes | str]] = []
    if objectstore.is_object_store(out):
        for uri, data in objectstore.read_objects(out.rstrip("/") + "/ratings", (".parquet", ".csv")):
            match = _PARTITION.search(uri)
            if match:
                found.append((match.group(1), match.group(2), uri, data))
    elif is_table(Path(objectstore.local_path(out)) / "ratings"):  # run --table-format delta
        return delta_periods(str(Path(objectstore.local_path(out)) / "ratings"))
    else:
        for path in sorted((Path(objectstore.local_path(out)) / "ratings").glob("period=*/part-0.*")):
            match = _PARTITION.search(path.as_posix())
            if match:
                found.append((match.group(1), match.group(2), str(path), str(path)))
    if not found:
        raise InputMissingError(
            "no ratings partitions found",
            path=out,
            hint=f"give the output folder ({option('out')}) of a run: it holds ratings/period=YYYY-MM/part-0.parquet.",
        )
    return [(period, _read(data, suffix, where)) for period, suffix, where, data in sorted(found)]


def _read(data: bytes | str, suffix: str, where: str) -> pl.DataFrame:
    source = io.BytesIO(data) if isinstance(data, bytes) else data
    try:
        if suffix == "csv":
            return pl.read_csv(source, infer_schema=False)
        return pl.read_parquet(source)
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise InputDataError(f"cannot read this ratings partition ({exc})", path=where) from exc


def _first_day(period: str) -> dt.date:
    return dt.date(int(period[:4]), int(period[5:7]), 1)


def _signed(change: float | None) -> str:
    if change is None:
        return ""
    text = f"{change:+g}"
    return "0" if change == 0 else text
