"""``elo-batch report``: a static site of what ``run`` wrote to an output folder, a driver of the public API.

``report(out)`` reads the period's tables with :func:`elo_batch.read_period` under ``OUT``'s lock, builds
their data (:mod:`~elo_batch.reportsite.build`) and writes the site, ``SITE/index.html`` (the summary and
the rating list) and ``SITE/player.html?id=...&period=...`` (FIDE's "Individual calculations" of one
player), replaced at once (:mod:`~elo_batch.reportsite.sitefiles`). The site works opened from disk: its
data are classic ``<script>`` files, its pages a small vanilla script and a style sheet, nothing fetched
from elsewhere. This package is named ``reportsite`` so that ``elo_batch.report`` stays the function.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl

import elo_batch
from elo_batch import columns as c
from elo_batch.errors import InputMissingError, UsageError, option
from elo_batch.reportsite import build, pages
from elo_batch.reportsite.sitefiles import SiteWriter, script

__all__ = ["report"]


def report(out: str | os.PathLike[str], period: str | None = None, site: str | os.PathLike[str] | None = None) -> Path:
    """Write the static site of an output folder's period (or range of periods) and return its index.html.

    Args:
        out: A local output folder written by ``elo-batch run`` (hive folders or Delta tables).
        period: A month ``YYYY-MM`` or a range ``YYYY-MM..YYYY-MM`` of the periods ``out`` holds (a
            range: the periods of it that ``out`` holds, a picker on the pages); None: the latest.
        site: The site's folder (default ``out/site``); replaced at once, and only when it is new,
            empty, or a site elo-batch wrote.

    Returns:
        The path of ``SITE/index.html``.

    Raises:
        TypeError: ``out`` or ``site`` is not a path.
        UsageError: ``period`` is not a month or a range of months.
        InputMissingError: ``out`` is missing, or holds none of the periods asked for (exit 66).
        InputDataError: a table cannot be read, or differs from its manifest (exit 65).
        OutputError: the site cannot be written, or is a folder elo-batch did not write (exit 73).
    """
    root = _path(out, "out")
    target = _path(site, "site") if site is not None else root / "site"
    with elo_batch.locked_output(_existing(root)):
        held = elo_batch.output_periods(root)
        chosen = _chosen(held, period, root)
        lists = _history(root, held) if len(held) > 1 else None
        previous = {month: _previous(held, month, lists) for month in chosen}
        history = build.history_texts(lists) if lists is not None else None
        del lists
        buckets = build.buckets_for(max(_players(root, p) for p in chosen))
        with SiteWriter(target) as writer:
            writer.write("data/site.js", script("site", _site_json(chosen, held, buckets)))
            summaries = []
            for month in chosen:
                summary, files = build.period_files(  # the tables are freed once their data are built
                    elo_batch.read_period(root, month), history=history, previous=previous[month], buckets=buckets
                )
                for file in files:
                    writer.write(file.path, script(file.key, file.json_text))
                summaries.append(summary)
            writer.write("index.html", pages.index_html(summaries))
            writer.commit()
    return target / "index.html"


def _path(value: object, name: str) -> Path:
    """``value`` as a Path; a TypeError when it is not text or a path."""
    if not isinstance(value, str | os.PathLike) or not os.fspath(value):
        raise TypeError(f"{name} must be a path, not {type(value).__name__}")
    return Path(os.fspath(value))


def _existing(root: Path) -> Path:
    """``root`` if it is a folder (the lock would create a missing one).

    Raises:
        InputMissingError: no such folder.
    """
    if not root.is_dir():
        raise InputMissingError(
            "no such output folder", path=str(root), hint=f"give the folder a run wrote (its {option('out')})."
        )
    return root


def _chosen(held: tuple[str, ...], period: str | None, root: Path) -> list[str]:
    """The periods to report: ``period`` (a month, or the held months of a range), or the latest held.

    Raises:
        UsageError: not a month or a range. InputMissingError: none of them is held.
    """
    if period is None:
        return [held[-1]]
    if not isinstance(period, str):
        raise TypeError(f"period must be text YYYY-MM or YYYY-MM..YYYY-MM, not {type(period).__name__}")
    first, _, last = period.partition("..")
    last = last or first
    if not (_is_month(first) and _is_month(last)) or first > last:
        raise UsageError(f"{period!r} is not a month or a range of months", option="period",
                         hint="give YYYY-MM or YYYY-MM..YYYY-MM.")  # fmt: skip
    chosen = [month for month in held if first <= month <= last]
    if not chosen:
        raise InputMissingError(
            f"the output folder holds no period {period}", path=str(root), hint=f"it holds {', '.join(held)}."
        )
    return chosen


def _is_month(text: str) -> bool:
    return len(text) == 7 and text[4] == "-" and text[:4].isdigit() and text[5:].isdigit() and "01" <= text[5:] <= "12"


def _players(root: Path, period: str) -> int:
    """The number of players on a period's list, from its manifest (rows written)."""
    manifest = json.loads((root / "manifest" / f"period={period}" / "manifest.json").read_text("utf-8"))
    written = manifest.get("rows_written") if isinstance(manifest, dict) else None
    rows = written.get("ratings") if isinstance(written, dict) else None
    return rows if isinstance(rows, int) and rows >= 0 else 0


def _history(root: Path, held: tuple[str, ...]) -> list[pl.DataFrame]:
    """Each held period's list rows (``player_id``, ``rating_before``, ``rating``, ``change``, ``status``,
    ``band``) in small types (ratings as Int16, status and band as categories); never an audit."""
    frames = []
    wanted = (c.PLAYER_ID, c.RATING_BEFORE, c.RATING, c.CHANGE, c.STATUS, c.BAND)
    for month in held:
        ratings = elo_batch.read_period(root, month, tables=(), ratings_columns=wanted).ratings
        frames.append(
            ratings.select(
                c.PLAYER_ID,  # as read: integer ids join fast (texts where the periods' types differ)
                *[pl.col(n).cast(pl.Int16, strict=False) for n in (c.RATING_BEFORE, c.RATING, c.CHANGE)],
                pl.col(c.STATUS).cast(pl.Categorical),
                (pl.col(c.BAND) if c.BAND in ratings.columns else pl.lit(None)).cast(pl.Categorical).alias(c.BAND),
            )
        )
    if len({frame.schema[c.PLAYER_ID] for frame in frames}) > 1:
        frames = [frame.with_columns(pl.col(c.PLAYER_ID).cast(pl.String)) for frame in frames]
    return frames


def _previous(held: tuple[str, ...], month: str, lists: list[pl.DataFrame] | None) -> pl.DataFrame | None:
    """The list (player_id, band) of the period before ``month`` in ``OUT``, or None."""
    index = held.index(month)
    if index == 0 or lists is None:
        return None
    return lists[index - 1].select(c.PLAYER_ID, c.BAND)


def _site_json(chosen: list[str], held: tuple[str, ...], buckets: int) -> str:
    """The site's own record: the periods it shows, the periods of ``OUT``, the shards' count."""
    return json.dumps(
        {
            "periods": chosen,
            "latest": chosen[-1],
            "history_periods": list(held),
            "buckets": buckets,
            "page_size": build.PAGE_SIZE,
            "tool": f"elo-batch {elo_batch.__version__}",
        }
    )
