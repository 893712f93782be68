"""Warnings about likely mistakes that do not stop a run, and the limit on rejected rows (``max_rejected``).

A run can exit 0 with a list that looks fine and is wrong: no player rated (``--ratings none`` and no
game-row rating), most rows rejected (all of them refuse the run unless ``max_rejected`` allows it),
ids written unlike the list's (``0100`` for ``100``), the same games delivered in two files, a past
period re-run under later ones, a list without ``k`` or ``games_total``.
Each check is a whole-column polars query over what the run already has (the checked game rows, the
list, a period's result); only a handful of examples are then looked at in Python. Library code: it
returns texts or raises :class:`~elo_batch.errors.StrictRejectError`; it never prints.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.config import RunConfig, next_period, rejected_limit
from elo_batch.contract.tables import GamesInput, InputFile
from elo_batch.errors import OutputError, StrictRejectError, Text, option
from elo_batch.job.guards import reasons_text, rejected_reasons
from elo_batch.outputs import delta
from elo_batch.storage import objectstore

if TYPE_CHECKING:  # the engine (numpy among its imports) is loaded once the inputs are read
    from elo_batch.engine.period import Counts, RatedPeriod

#: Examples a warning shows (ids, rejected rows).
EXAMPLES = 5
#: Rejected rows a "most rows were rejected" warning shows.
FIRST_REJECTED = 3
#: Most listed ids difflib compares with one unlisted id (see :func:`closest_id`).
_CANDIDATES = 200
#: Lowest difflib ratio of a close match: one character changed in a 7-digit id scores 0.86.
_CUTOFF = 0.8
#: Characters of an id compared at each end when choosing the candidates.
_ENDS = 24
#: What makes two game rows the same game (the canonical columns but position and file).
GAME_CONTENT = (
    c.PERIOD, c.DATE, c.EVENT_ID, c.ROUND, c.BOARD, c.WHITE_ID, c.BLACK_ID, "one_sided", "score100", "forfeit",
    c.WHITE_RATING, c.BLACK_RATING,
)  # fmt: skip
_PARTITION = re.compile(r"/period=([0-9]{4}-(?:0[1-9]|1[0-2]))/part-0\.[A-Za-z0-9]+$")


def check_rejected_limit(rejected: pl.DataFrame, games: GamesInput, config: RunConfig) -> None:
    """Refuse a run in which more rows are rejected than ``config.max_rejected`` allows.

    A percentage is of the rows of the periods rated: their usable rows plus ``rejected`` (the rows
    rejected in them and those whose period cannot be read). Rows of other periods count in neither.

    Args:
        rejected: The run's rejected rows (``REJECTED_SCHEMA``), in input order.
        games: The run's checked game rows.
        config: The run's settings.

    Without a limit and without ``config.strict`` (neither given), the default limit refuses a run whose
    rows are all rejected (at least one row): a list carried forward unchanged; a run without rows (a
    header-only file) passes.

    Raises:
        StrictRejectError: over the limit (exit 65); the caller must write nothing.
    """
    rows = sum(games.period_rows.get(period, 0) for period in config.periods) + rejected.height
    if config.max_rejected is None:
        if not config.strict and rejected.height and rejected.height == rows:
            _all_rejected(rejected)
        return
    if rejected.height <= rejected_limit(config.max_rejected, rows):
        return
    first = rejected.row(0, named=True)
    raise rejected_error(
        first,
        f"{rejected.height} of {rows} rows of the period(s) rated were rejected ({_share(rejected.height, rows)}), "
        f"more than {option('max_rejected', config.max_rejected)} allows; nothing was written. "
        f"First: {_reason(first[c.REASON])}",
        hint=f"fix the rejected rows (`elo-batch validate` lists them), or raise {option('max_rejected')}.",
    )


def rejected_error(first: dict[str, Any], message: str, *, hint: str) -> StrictRejectError:
    """The error of a run refused for its rejected rows, pointing at ``first`` (the first rejected row, as
    a dict of the rejected schema's columns): its file, row, column and value."""
    return StrictRejectError(
        message,
        path=first[c.SOURCE_FILE],
        row=first[c.SOURCE_ROW],
        column=first[c.COLUMN],
        value=first[c.VALUE],
        hint=hint,
    )


def _all_rejected(rejected: pl.DataFrame) -> None:
    reasons, more = rejected_reasons(rejected)
    raise StrictRejectError(
        f"all {rejected.height} rows of the period(s) rated were rejected: no game would be rated and the list "
        f"would be carried forward unchanged; nothing was written. Reasons: {reasons_text(reasons, more)}",
        hint=f"fix the rejected rows (`elo-batch validate` lists them), or give {option('max_rejected', '100%')} "
        "to write them to rejected and carry the list forward.",
    )


def input_notes(
    games: GamesInput,
    rating_list: pl.DataFrame | None,
    list_info: InputFile | None,
    *,
    config: RunConfig,
    alike: Callable[[tuple[str, ...]], Alike | None] | None = None,
) -> tuple[str, ...]:
    """Warnings about the inputs as a whole: the same games in two files, rows alike that may be one game
    entered twice, a list that gives everyone K 20.

    Args:
        games, rating_list, list_info, config: The run's inputs and settings.
        alike: An engine's own search for rows alike (:func:`alike_rows` over rows it holds, given the
            periods rated); default: over ``games.rows``.
    """
    found = (alike or (lambda periods: alike_rows(games, periods)))(config.periods)
    return (
        *_identical_files(games.files),
        *_repeated_games(games, config.periods),
        *([alike_note(found)] if found else []),
        *_k20(rating_list, list_info, config),
    )


def period_notes(result: RatedPeriod, *, list_given: bool, stale: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Warnings about one rated period: nothing rated, most rows rejected, ids not on the list, later
    periods of the output left stale.

    Args:
        result: The period as rated.
        list_given: A rating list was given (without one, every player comes from the games).
        stale: Later periods in the output that were rated from the list this period replaces.
    """
    counts, period, ratings = result.counts, result.period, result.ratings
    in_period = counts.counted + counts.not_counted
    nothing = _nothing_rated(result, list_given=list_given)
    notes = [nothing] if nothing else []
    if mostly_rejected(counts):
        shown = "; ".join(_where(row) for row in result.rejected.head(FIRST_REJECTED).iter_rows(named=True))
        rows = in_period + counts.rejected
        notes.append(
            f"{period}: most rows were rejected: {counts.rejected} of {rows} ({_share(counts.rejected, rows)}); "
            f"the list is built from the other {in_period} row(s). First: {shown}"
        )
    if list_given and result.unlisted.len():
        notes.append(unlisted_note(result.unlisted, ratings[c.PLAYER_ID], period))
    if stale:
        months = next_period(period) if stale[-1] == next_period(period) else f"{next_period(period)}..{stale[-1]}"
        notes.append(
            f"later period(s) in the output were rated from the list this run replaced and are now stale: "
            f"{', '.join(stale)}. Hint: re-run {months} from the new list of {period}."
        )
    return tuple(notes)


def _nothing_rated(result: RatedPeriod, *, list_given: bool) -> str | None:
    """Why no game of the period was rated, when none was: no player has a rating, every row of the period
    is not counted, or the inputs hold no row of the period; None when a game was rated."""
    counts, period, ratings = result.counts, result.period, result.ratings
    in_period = counts.counted + counts.not_counted
    if not list_given and ratings.height and ratings[c.RATING_BEFORE].null_count() == ratings.height:
        return Text(
            f"{period}: no player has a rating: no rating list was given and the game rows carry no ratings, "
            "so every player is unrated and no game is rated. Hint: give the list in force with "
            f"{option('ratings')}."
        )
    if counts.counted == 0 and in_period:
        return (
            f"{period}: no game was rated: all {in_period} row(s) of the period are audited as not counted "
            "(the audit gives each reason)"
        )
    if counts.counted == 0 and not counts.rejected:
        read = f"{counts.rows_read} row(s) read, all of other periods" if counts.rows_read else "no rows read"
        return f"{period}: no game of this period in the inputs ({read}): the list is carried forward unchanged"
    return None


def mostly_rejected(counts: Counts) -> bool:
    """More than half of the period's rows (counted, not counted, rejected) were rejected."""
    return counts.rejected * 2 > counts.counted + counts.not_counted + counts.rejected


def unlisted_note(unlisted: pl.Series, listed: pl.Series, period: str) -> str:
    """The warning about players of the games absent from the list, with the closest listed id of a
    few: the same id but for spaces, case and leading zeros, else difflib's closest (see
    :func:`closest_id`).

    Args:
        unlisted: Ids of the period's players absent from the list in force (text or Int64).
        listed: Ids of the new list (the list in force and the players who gained a rating).
        period: The period, for the message.

    >>> unlisted_note(pl.Series(["0100", "Z9"]), pl.Series(["100", "200", "0100", "Z9"]), "2025-10")
    "2025-10: 2 player id(s) of the games are not on the rating list and are unrated newcomers; 1 of \
them match a listed id once spaces, case and leading zeros are ignored: '0100' (listed as '100'), 'Z9'. \
Hint: ids are compared as text ('0100' is not '100'): write them as the list does."
    """
    ids = unlisted.cast(pl.String)
    on_list = listed.cast(pl.String)
    on_list = on_list.filter(~on_list.is_in(ids.implode()))
    found = _listed_alike(ids, on_list)
    same = found.filter(pl.col(w.LISTED_ID).is_not_null())
    examples = pl.concat([same, found.filter(pl.col(w.LISTED_ID).is_null())]).head(EXAMPLES)
    pairs = examples.select(w.UNLISTED_ID, w.LISTED_ID).iter_rows()
    shown = [_example(example, match, on_list) for example, match in pairs]
    text = f"{period}: {ids.len()} player id(s) of the games are not on the rating list and are unrated newcomers"
    if same.height:
        text += f"; {same.height} of them match a listed id once spaces, case and leading zeros are ignored"
    more = ", ..." if ids.len() > EXAMPLES else ""
    hint = "Hint: ids are compared as text ('0100' is not '100'): write them as the list does."
    return f"{text}: {', '.join(shown)}{more}. {hint}"


def _listed_alike(ids: pl.Series, on_list: pl.Series) -> pl.DataFrame:
    """Each unlisted id (``UNLISTED_ID``) with the first listed id (``LISTED_ID``, else null) that is the
    same once spaces, case and leading zeros are ignored, in the order of ``ids``."""
    keys = pl.DataFrame({w.LISTED_ID: on_list}).with_columns(_normalised(pl.col(w.LISTED_ID)).alias(w.NORMALISED_ID))
    return (
        pl.DataFrame({w.UNLISTED_ID: ids})
        .with_columns(_normalised(pl.col(w.UNLISTED_ID)).alias(w.NORMALISED_ID))
        .join(
            keys.unique(w.NORMALISED_ID, keep="first", maintain_order=True),
            on=w.NORMALISED_ID,
            how="left",
            maintain_order="left",
        )
    )


def _example(example: str, match: str | None, on_list: pl.Series) -> str:
    """One unlisted id as the warning shows it: with the listed id it matches, else the closest one."""
    if match is not None:
        return f"{example!r} (listed as {match!r})"
    closest = closest_id(example, on_list)
    return f"{example!r} (closest listed id: {closest!r})" if closest else repr(example)


def closest_id(wanted: str, listed: pl.Series) -> str | None:
    """The listed id closest to ``wanted`` by difflib, among a bounded sample of ``listed``; None when
    none is close.

    The sample: ids of about its length that keep its first or its last few characters (one typo,
    a changed, added, dropped or swapped character, keeps one of them whole), those sharing the most
    leading and trailing characters with it first.

    >>> closest_id("2020090", pl.Series(["2020009", "5202213", "2020091"]))
    '2020091'
    """
    candidates = _candidates(wanted, listed.cast(pl.String).alias(w.LISTED_ID).to_frame())
    match = difflib.get_close_matches(wanted, candidates[w.LISTED_ID].to_list(), n=1, cutoff=_CUTOFF)
    return match[0] if match else None


def _candidates(wanted: str, listed: pl.DataFrame) -> pl.DataFrame:
    """The sample of :func:`closest_id`: ids (``LISTED_ID``) of about the length of ``wanted`` keeping its
    first or last few characters, those sharing the most of its ends first, at most ``_CANDIDATES``."""
    end = max(1, (len(wanted) - 2) // 2)
    head, tail = wanted[:_ENDS], wanted[-_ENDS:]
    name = pl.col(w.LISTED_ID)
    return (
        listed.filter(
            ((name.str.len_chars().cast(pl.Int64) - len(wanted)).abs() <= 1)
            & (name.str.starts_with(wanted[:end]) | name.str.ends_with(wanted[-end:]))
        )
        .with_columns(
            pl.sum_horizontal(
                *(name.str.starts_with(head[:k]) for k in range(1, len(head) + 1)),
                *(name.str.ends_with(tail[-k:]) for k in range(1, len(tail) + 1)),
            ).alias(w.SHARED_ENDS)
        )
        .sort(w.SHARED_ENDS, w.LISTED_ID, descending=[True, False])
        .head(_CANDIDATES)
    )


def later_periods(out: str, periods: tuple[str, ...]) -> tuple[str, ...]:
    """Periods with a ratings partition in ``out`` later than every period of ``periods``, in order.

    None are found where an object store refuses the listing: the writes that follow report why.
    """
    if not periods:
        return ()
    if not objectstore.is_object_store(out) and delta.is_table(Path(objectstore.local_path(out)) / "ratings"):
        return delta.later_periods(out, periods)
    if objectstore.is_object_store(out):
        try:
            names = objectstore.list_objects(out.rstrip("/") + "/ratings")
        except OutputError:
            return ()
    else:
        names = [path.as_posix() for path in (Path(out) / "ratings").glob("period=*/part-0.*")]
    found = {match.group(1) for match in map(_PARTITION.search, names) if match}
    return tuple(sorted(period for period in found if period > max(periods)))


def _identical_files(files: tuple[InputFile, ...]) -> list[str]:
    by_digest: dict[str, list[str]] = {}
    for info in files:
        if info.rows:
            by_digest.setdefault(info.sha256, []).append(info.path)
    return [
        f"{', '.join(paths)}: identical files (sha256 {digest[:16]}...): rows without a game_id are rated once "
        "per copy, unless an event_id and round name their game. Hint: give the games once (or give each game a "
        "game_id, or its event_id and round: a game entered twice then counts once)."
        for digest, paths in by_digest.items()
        if len(paths) > 1
    ]


def _repeated_games(games: GamesInput, periods: tuple[str, ...]) -> list[str]:
    """Games without a game_id found, identical, in two different files (identical files aside)."""
    copy_of: dict[str, int] = {}
    digests: dict[str, int] = {}
    for info in games.files:
        copy_of[info.path] = digests.setdefault(info.sha256, len(digests))
    if len({copy_of[info.path] for info in games.files if info.rows}) < 2:
        return []
    keyed = _copies_keyed(games, periods, copy_of)
    engine: Literal["in-memory", "streaming"] = "in-memory" if isinstance(games.rows, pl.DataFrame) else "streaming"
    repeated = (
        keyed.group_by(w.COPY_GAME)
        .agg(pl.col(w.COPY).n_unique().alias(w.COPIES), pl.col("row_key").min())
        .filter(pl.col(w.COPIES) > 1)
        .sort("row_key")
        .collect(engine=engine)
    )
    if repeated.height == 0:
        return []
    where = (
        keyed.filter(pl.col(w.COPY_GAME) == repeated[w.COPY_GAME][0])
        .group_by(w.COPY)
        .agg(pl.col("row_key", c.SOURCE_FILE, c.SOURCE_ROW).sort_by("row_key").first())
        .sort("row_key")
        .head(2)
        .collect(engine=engine)
    )
    return [_repeated_note(repeated, where)]


def _copies_keyed(games: GamesInput, periods: tuple[str, ...], copy_of: dict[str, int]) -> pl.LazyFrame:
    """The rows without a game_id (of ``periods``, when given), each with its content's hash and the
    number of its file's distinct content (``copy_of``: file -> the first file of the same sha256)."""
    rows = games.rows.lazy().filter(pl.col(c.GAME_ID).is_null() & ~pl.col("duplicate"))
    if periods:
        rows = rows.filter(pl.col(c.PERIOD).is_in(list(periods)))
    content = [name for name in GAME_CONTENT if name not in games.absent]  # absent columns are null in every row
    return rows.select(
        pl.struct(content).hash().alias(w.COPY_GAME),
        pl.col(c.SOURCE_FILE).cast(pl.String).replace_strict(copy_of, return_dtype=pl.UInt32).alias(w.COPY),
        "row_key",
        c.SOURCE_FILE,
        c.SOURCE_ROW,
    )


def _repeated_note(repeated: pl.DataFrame, where: pl.DataFrame) -> str:
    """The warning about games repeated across files: how many, the first one's two rows, the extra copies."""
    example = " and ".join(f"{file} row {row}" for file, row in where.select(c.SOURCE_FILE, c.SOURCE_ROW).iter_rows())
    extra = int(repeated[w.COPIES].sum()) - repeated.height
    return (
        f"{repeated.height} game(s) without a game_id appear identically in two or more files (first: {example}): "
        f"each copy is rated, {extra} game(s) too many. Hint: give the games once, or give each game a game_id "
        "(an exact repeat then counts once)."
    )


@dataclass(frozen=True)
class Alike:
    """Rows alike in every column to an earlier row of their file (see :func:`alike_rows`).

    Attributes:
        extra: Rows beyond the first of each such group.
        file: The file of the first group (None: a frame).
        rows: The first two rows' numbers in it.
    """

    extra: int
    file: str | None
    rows: tuple[int, int]


def alike_filter(absent: frozenset[str]) -> tuple[list[str], pl.Expr]:
    """The columns that make rows alike (``GAME_CONTENT`` less the absent ones), and the rows that are
    judged so: no ``game_id``, no ``event_id`` or no ``round``, not a ``duplicate``."""
    content = [name for name in GAME_CONTENT if name not in absent]
    judged = pl.col(c.GAME_ID).is_null() & (pl.col(c.EVENT_ID).is_null() | pl.col(c.ROUND).is_null())
    return content, judged & ~pl.col("duplicate")


def alike_rows(games: GamesInput, periods: tuple[str, ...]) -> Alike | None:
    """Rows without a game_id and without an event_id or round that are alike in every column to an earlier
    row of their file: rated as games of their own (two games can look alike), which a game entered twice
    is not (rows that name their game, with an event_id and a round, count once: inputs/duplicates.py).

    Args:
        games: The run's checked rows.
        periods: The periods rated (none: every row).

    Returns:
        What was found, or None.
    """
    content, judged = alike_filter(games.absent)
    rows = games.rows.lazy().filter(judged)
    if periods:
        rows = rows.filter(pl.col(c.PERIOD).is_in(list(periods)))
    game = pl.struct(c.SOURCE_FILE, *content).hash().alias(w.ALIKE)  # alike, in one file
    engine: Literal["in-memory", "streaming"] = "in-memory" if isinstance(games.rows, pl.DataFrame) else "streaming"
    hashes = rows.select(game).collect(engine=engine).to_series()
    if hashes.n_unique() == hashes.len():  # the usual case, seen from the hashes alone
        return None
    repeated = hashes.filter(hashes.is_duplicated()).unique()
    groups = (
        rows.filter(game.is_in(repeated.implode()))
        .group_by(game)
        .agg(pl.len().alias(w.GROUP_ROWS), pl.col("row_key").min())
        .filter(pl.col(w.GROUP_ROWS) > 1)
        .sort("row_key")
        .collect(engine=engine)
    )
    if groups.height == 0:
        return None
    first = rows.filter(game == groups[w.ALIKE][0]).sort("row_key").head(2)
    shown = first.select(c.SOURCE_FILE, c.SOURCE_ROW).collect(engine=engine)
    one, two = shown[c.SOURCE_ROW]
    return Alike(int((groups[w.GROUP_ROWS] - 1).sum()), shown[c.SOURCE_FILE][0], (one, two))


def alike_note(found: Alike) -> str:
    """The warning about rows alike (:func:`alike_rows`)."""
    place = f"{found.file + ' ' if found.file else ''}row {found.rows[0]} and row {found.rows[1]}"
    return (
        f"{found.extra} row(s) without a game_id, event_id or round are alike in every column to an earlier row "
        f"of their file (first: {place}): each is rated as a game of its own (two games of the same players, "
        "result and day look alike). Hint: if a game was entered twice, delete the copy, or give the games "
        "their event_id and round (or a game_id): a game entered twice then counts once."
    )


def _k20(rating_list: pl.DataFrame | None, list_info: InputFile | None, config: RunConfig) -> list[str]:
    """A list without k and games_total: every adult under 2400 gets K 20 (FIDE's K 40 until 30 games
    cannot be seen)."""
    if rating_list is None or rating_list[c.RATING].null_count() == rating_list.height:
        return []
    fide_k = (
        any(not config.rules_for(period).fixed_k for period in config.periods)
        if config.periods
        else config.k is None and config.fide_rules
    )
    unknown = all(rating_list[name].null_count() == rating_list.height for name in (c.K, c.GAMES_TOTAL))
    if not (fide_k and unknown):
        return []
    where = f"{list_info.path}: " if list_info else ""
    return [
        f"{where}the rating list has neither k nor games_total: every rated player under 2400 who is not a junior "
        "gets K 20, also one with fewer than 30 rated games (K 40 by FIDE 8.3.3). Hint: add the k FIDE prints "
        "on the list, or games_total."
    ]


def _normalised(ids: pl.Expr) -> pl.Expr:
    """An id without spaces, in lower case, without leading zeros (``' 0100 '`` -> ``'100'``)."""
    return ids.str.replace_all(r"\s+", "").str.to_lowercase().str.strip_chars_start("0")


def _where(row: dict[str, object]) -> str:
    column = f", column {row[c.COLUMN]}" if row[c.COLUMN] else ""
    return f"{row[c.SOURCE_FILE]} row {row[c.SOURCE_ROW]}{column}: {_reason(str(row[c.REASON]))}"


def _reason(reason: str) -> str:
    """A rejected row's reason without its hint."""
    return reason.split(". Hint:")[0]


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "0%"
