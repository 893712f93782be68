"""Reading and checking a rating list (the list in force); no rating rules.

A list problem stops the run (exit 65): the list is the base of every new rating, so a guessed value
would publish a wrong rating. Columns written by an earlier run that describe that run's period
(``change``, ``games``, ...) are dropped; the player state (``k``, ``games_total``, ...) is kept, and
any other column passes through to the new list unchanged. A ``rating`` of 0 is "no rating" (FIDE's own
list download and pairing programs write unrated so), as an empty cell is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from elo_batch import columns as c
from elo_batch.errors import InputDataError
from elo_batch.inputs.cells import (
    SHOWN_ROWS,
    cell_text,
    in_date_range,
    inexact_number,
    is_date_type,
    rows_not_valid,
    text_column,
)
from elo_batch.inputs.checkfile import check_types
from elo_batch.inputs.gamerules import DECIMAL_NUMBER, INTEGER_IDS, THOUSANDS_REASON, THOUSANDS_SEPARATED, WHOLE_NUMBER
from elo_batch.inputs.names import escape, unescape
from elo_batch.inputs.readers import RAGGED, FrameInput, InputFile, expand_paths, read_frame, read_table
from elo_batch.inputs.text import column_hints
from elo_batch.rules.bounds import RATING_RANGE, birth_year_out_of_range, k_out_of_range, rating_out_of_range

#: Typed list columns the engine reads. ``player_id`` is text, or Int64 when the list's id column is
#: an integer one (:data:`INTEGER_IDS`); see :func:`list_schema`.
LIST_SCHEMA: dict[str, pl.DataType] = {
    c.PLAYER_ID: pl.String(),
    c.RATING: pl.Float64(),
    c.K: pl.Int64(),
    c.BIRTH_YEAR: pl.Int64(),
    c.GAMES_TOTAL: pl.Int64(),
    c.REACHED_2400: pl.Boolean(),
    c.REACHED_2300: pl.Boolean(),
    c.PENDING: pl.String(),
}

#: Columns of an earlier run's output that describe its own period; not carried forward.
PERIOD_OUTPUT = (
    c.PERIOD, c.RATING_BEFORE, c.CHANGE, c.K_USED, c.GAMES, c.SCORE, c.EXPECTED_SCORE, c.STATUS,
    c.PERFORMANCE_RATING, c.OPPONENTS_AVERAGE, c.ADJUSTMENT, c.BAND,
)  # fmt: skip

#: Most rated games a list may give a player (a count above it is a damaged cell, not a career).
MAX_GAMES_TOTAL = 1_000_000
_TRUE = ("true", "t", "yes", "y", "1")
_FALSE = ("false", "f", "no", "n", "0")


def list_schema(id_type: pl.DataType) -> dict[str, pl.DataType]:
    """:data:`LIST_SCHEMA` with ``player_id`` of ``id_type`` (pl.String or pl.Int64)."""
    return {**LIST_SCHEMA, c.PLAYER_ID: id_type}


def load_rating_list(
    path: str | Sequence[str] | FrameInput, *, fractional_ratings: bool = False, encoding: str | None = None
) -> tuple[pl.DataFrame, InputFile]:
    """Read and check the list in force.

    Args:
        path: One CSV or Parquet file (or a folder or glob of them, or several, read as one list), or a frame in
            memory (read as :func:`elo_batch.inputs.readers.read_frame` reads it, then checked as a file is).
        fractional_ratings: Accept ratings with decimals (``--rounding none``).
        encoding: Force the CSV text encoding.

    Returns:
        The list with ``LIST_SCHEMA`` columns first (absent ones null), then the pass-through
        columns; one row per player (exact repeats removed). ``player_id`` is Int64 when every list
        file has an integer id column, else text. And what the manifest records.

    Raises:
        InputMissingError: the file is missing or unreadable.
        InputDataError: a required column is missing, a value is not valid (the message names the
            file, row, column, value and what was expected), or a player appears twice with
            different data.
    """
    frames, infos = [], []
    given = [path] if isinstance(path, str) else [] if isinstance(path, FrameInput) else list(path)
    for one in [path.where] if isinstance(path, FrameInput) else expand_paths(given):
        if isinstance(path, FrameInput):
            whole, info = read_frame(path)
            frame = whole.lazy().with_columns(pl.lit(one).alias(c.SOURCE_FILE)).collect()  # named in messages
        else:
            frame, info = read_table(one, encoding=encoding)
        dropped = [name for name in PERIOD_OUTPUT if name in frame.columns]
        if dropped and c.RATING_BEFORE not in frame.columns:  # not a list written by elo-batch
            note = f"{one}: list column(s) {', '.join(dropped)} name outputs of a period and were not carried"
            info = dataclasses.replace(info, notes=(*info.notes, note))
        frames.append(_check(frame, one, fractional_ratings, info.header))
        infos.append(info)
    table = pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]
    table = _one_row_per_player(table)
    info = (
        infos[0]
        if len(infos) == 1
        else InputFile(
            ", ".join(given),
            sum(i.size for i in infos),
            ",".join(i.sha256 for i in infos),
            sum(i.rows for i in infos),
            infos[0].encoding,
            infos[0].separator,
            notes=tuple(note for i in infos for note in i.notes),
        )
    )
    return table.drop(c.SOURCE_FILE, c.SOURCE_ROW), info


def check_pending(table: pl.DataFrame, first_period: str | None, path: str) -> None:
    """Check the pooled games of unrated players against the first period to rate.

    Args:
        table: The list in force (``pending`` column: ``YYYY-MM:n:w2:opponents_sum`` entries joined by ``;``).
        first_period: The first month the run rates (None: not known, as in ``validate`` without a period).
        path: The list's file, for the message.

    Raises:
        InputDataError: an entry for ``first_period`` or later (those games would be counted twice),
            or two entries for one month of one player.
    """
    entries = (
        table.filter(pl.col(c.PENDING).is_not_null())
        .select(c.PLAYER_ID, pl.col(c.PENDING).str.split(";").alias("entry"))
        .explode("entry")
        .with_columns(pl.col("entry").str.slice(0, 7).alias("month"))
    )
    late = entries.filter(pl.col("month") >= first_period) if first_period else entries.clear()
    if late.height:
        player, entry = late.row(0)[:2]
        raise InputDataError(
            f"player {player!r} has pooled games of {entry[:7]} ({entry!r}), not before the first period "
            f"rated, {first_period}",
            path=path,
            column=c.PENDING,
            value=entry,
            hint="feed each period the list written by the period before it.",
        )
    repeated = entries.filter(pl.struct(c.PLAYER_ID, "month").is_duplicated())
    if repeated.height:
        player, entry = repeated.row(0)[:2]
        raise InputDataError(
            f"player {player!r} has two pooled-games entries for {entry[:7]}",
            path=path,
            column=c.PENDING,
            value=entry,
            hint="keep one entry per month, as elo-batch writes it.",
        )


#: Players named in the warning about list ratings under the floor (the warning counts them all).
FLOOR_SHOWN = 5


def unrate_below_floor(
    table: pl.DataFrame | None, floor: int | None, period: str
) -> tuple[pl.DataFrame | None, list[str]]:
    """The list in force with every rating under the rule set's floor made empty: such a player is unrated.

    FIDE's list holds no rating under the floor (1400 since 1 March 2024, B.02 7.1.2): a player whose
    rating fell under it is unrated on the next list and needs a new initial rating (7.2.1). A copy of the
    list that still holds such a rating (third-party copies of FIDE's data do) is read as FIDE publishes
    it: the player is unrated, in his own calculation and in his opponents'.

    Args:
        table: The list in force (``LIST_SCHEMA`` columns first), or None (no list: nothing to do).
        floor: The period's rule set's floor (:attr:`elo_batch.rules.sets.RuleSet.floor`); None: no floor.
        period: The period rated, for the warning.

    Returns:
        The list (unchanged when no rating is under the floor), and a warning counting the ratings made
        empty (none when there are none).
    """
    if table is None or floor is None:
        return table, []
    under = pl.col(c.RATING) < floor
    found = table.filter(under).select(c.PLAYER_ID, c.RATING)
    if not found.height:
        return table, []
    shown = ", ".join(f"{player} ({rating:g})" for player, rating in found.head(FLOOR_SHOWN).iter_rows())
    warning = (
        f"{period}: {found.height} list rating(s) under the floor {floor} are unrated, as FIDE's list holds no "
        f"rating under it (B.02 7.1.2): {shown}{', ...' if found.height > FLOOR_SHOWN else ''}"
    )
    return table.with_columns(pl.when(~under).then(pl.col(c.RATING)).alias(c.RATING)), [warning]


def as_list_in_force(new_list: pl.DataFrame) -> pl.DataFrame:
    """A rating list written by a period, as the next period reads it (what ``--ratings`` would load).

    Args:
        new_list: The ``ratings`` output of a period.

    Returns:
        ``LIST_SCHEMA`` columns first, then the pass-through columns (under the names a read list holds
        them, :func:`elo_batch.inputs.names.escape`); the columns that describe the finished period
        (``change``, ``games``, ...) dropped.
    """
    frame = new_list.drop([name for name in PERIOD_OUTPUT if name in new_list.columns])
    extras = [name for name in frame.columns if name not in LIST_SCHEMA]
    return frame.select(
        *[
            (pl.col(name) if name in frame.columns else pl.lit(None)).cast(dtype).alias(name)
            for name, dtype in list_schema(_id_type(frame.schema)).items()
        ],
        *[pl.col(name).alias(escape(name)) for name in extras],
    )


def _check(frame: pl.DataFrame, path: str, fractional: bool, header: tuple[str, ...] = ()) -> pl.DataFrame:
    missing = [name for name in (c.PLAYER_ID, c.RATING) if name not in frame.columns]
    if missing:
        held = [n for n in frame.columns if n not in (c.SOURCE_FILE, c.SOURCE_ROW, RAGGED)]
        names = list(header) if len(header) == len(held) else [unescape(n) for n in held]
        unused = [name for name, one in zip(names, held, strict=True) if one not in LIST_SCHEMA]
        hints = column_hints(missing, unused)
        raise InputDataError(
            f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}; the list has "
            + (", ".join(names) if names else "no columns"),
            path=path,
            hint=(hints + " " if hints else "") + "a rating list needs player_id and rating (empty = unrated).",
        )
    check_types(frame.schema, path, list(LIST_SCHEMA))
    ragged = frame[RAGGED] if RAGGED in frame.columns else None
    frame = frame.drop(RAGGED, strict=False)
    frame = frame.drop([name for name in PERIOD_OUTPUT if name in frame.columns])
    id_type = _id_type(frame.schema)
    rating = _number(frame, c.RATING, fractional)
    parsed = {
        c.PLAYER_ID: pl.col(c.PLAYER_ID) if id_type == pl.Int64 else text_column(frame.schema, c.PLAYER_ID),
        c.RATING: pl.when(rating != 0).then(rating),  # 0: no rating
        c.K: _number(frame, c.K, False),
        c.BIRTH_YEAR: _number(frame, c.BIRTH_YEAR, False),
        c.GAMES_TOTAL: _number(frame, c.GAMES_TOTAL, False),
        c.REACHED_2400: _flag(frame, c.REACHED_2400),
        c.REACHED_2300: _flag(frame, c.REACHED_2300),
        c.PENDING: text_column(frame.schema, c.PENDING),
    }
    rules: list[tuple[str, Callable[[], pl.Expr], str]] = [
        (
            c.PLAYER_ID,
            lambda: inexact_number(frame.schema, c.PLAYER_ID),
            "is not an id: the column holds numbers with decimals (floats are exact ids only for whole numbers "
            "below 2^53); store ids as integers or as text",
        ),
        (c.PLAYER_ID, lambda: parsed[c.PLAYER_ID].is_null(), "a player id is required"),
        (
            c.RATING,
            lambda: (
                text_column(frame.schema, c.RATING).str.contains(THOUSANDS_SEPARATED)
                if frame.schema[c.RATING] == pl.String
                else _never()
            ),
            f"is not a rating: {THOUSANDS_REASON}; expected plain digits (2000)",
        ),
        (
            c.RATING,
            lambda: _bad_number(frame, c.RATING, fractional),
            "is not a rating; expected "
            + ("a number" if fractional else "a whole number")
            + " of rating points, or empty for unrated",
        ),
        (
            c.RATING,
            lambda: rating_out_of_range(parsed[c.RATING]),
            f"is out of range; expected {RATING_RANGE} (0 or empty = unrated)",
        ),
        (
            c.K,
            lambda: _bad_number(frame, c.K, False) | k_out_of_range(parsed[c.K]),
            "is not a K-factor; expected a whole number such as 10, 20 or 40",
        ),
        (
            c.BIRTH_YEAR,
            lambda: _bad_number(frame, c.BIRTH_YEAR, False) | birth_year_out_of_range(parsed[c.BIRTH_YEAR]),
            "is not a birth year; expected a four-digit year",
        ),
        (
            c.GAMES_TOTAL,
            lambda: (
                _bad_number(frame, c.GAMES_TOTAL, False)
                | (parsed[c.GAMES_TOTAL] < 0)
                | (parsed[c.GAMES_TOTAL] > MAX_GAMES_TOTAL)
            ),
            f"is not a number of games; expected a whole number from 0 to {MAX_GAMES_TOTAL:,}",
        ),
        (c.REACHED_2400, lambda: _bad_flag(frame, c.REACHED_2400), "is not true or false"),
        (c.REACHED_2300, lambda: _bad_flag(frame, c.REACHED_2300), "is not true or false"),
        (c.PENDING, lambda: _bad_pending(parsed[c.PENDING]), "is not a pending-games record written by elo-batch"),
    ]
    extras = [
        n for n in frame.columns if n not in LIST_SCHEMA and n not in (c.SOURCE_FILE, c.SOURCE_ROW, c.STANDARD_RATING)
    ]
    if c.STANDARD_RATING in frame.columns:  # rapid and blitz lists: a rating, checked as one (R&B 7.2.1)
        parsed[c.STANDARD_RATING] = _number(frame, c.STANDARD_RATING, fractional)
        rules += [
            (
                c.STANDARD_RATING,
                lambda: _bad_number(frame, c.STANDARD_RATING, fractional),
                "is not a standard rating; expected "
                + ("a number" if fractional else "a whole number")
                + " of rating points, or empty for none",
            ),
            (
                c.STANDARD_RATING,
                lambda: rating_out_of_range(parsed[c.STANDARD_RATING]),
                f"is out of range; expected {RATING_RANGE}",
            ),
        ]
    rules += [  # a pass-through date is written to the new list: polars cannot write one out of range
        (name, _date_out_of_range(frame, name), "is out of range; expected a date from 0000-01-01 to 9999-12-31")
        for name in extras
        if is_date_type(frame.schema[name])
    ]
    _refuse_bad_rows(frame, path, ragged, [(col, rule(), msg) for col, rule, msg in rules if col in frame.columns])
    standard = pl.Float64() if fractional else pl.Int64()
    return frame.select(
        *[expr.cast(list_schema(id_type).get(name, standard)).alias(name) for name, expr in parsed.items()],
        *extras,
        c.SOURCE_FILE,
        c.SOURCE_ROW,
    )


#: Bad list rows shown in the message, when there are several.


def _refuse_bad_rows(
    frame: pl.DataFrame, path: str, ragged: pl.Series | None, rules: list[tuple[str, pl.Expr, str]]
) -> None:
    """Raise for the rows of the list that break a rule (each row's first rule; a ragged row is reported
    as ragged only: its values are not trusted): all of them counted, the first :data:`SHOWN_ROWS`
    shown with their row numbers.

    Raises:
        InputDataError: a row breaks a rule.
    """
    is_ragged = pl.lit(ragged).is_not_null() if ragged is not None else pl.lit(False)
    first: Any = pl.when(is_ragged).then(-1)
    for index, (_, bad, _) in enumerate(rules):
        first = first.when(bad.fill_null(False)).then(index)
    hits = frame.with_columns(
        first.otherwise(None).alias("__rule"), (pl.lit(ragged) if ragged is not None else pl.lit(None)).alias("__why")
    ).filter(pl.col("__rule").is_not_null())
    if not hits.height:
        return
    hint = "fix the rating list; nothing was rated."
    lines = []
    for shown in hits.head(SHOWN_ROWS).iter_slices(1):
        row, rule = int(shown[c.SOURCE_ROW][0]), int(shown["__rule"][0])
        if rule < 0:  # a ragged row: its reason and hint were written by the reader
            reason, _, ragged_hint = str(shown["__why"][0]).partition(" Hint: ")
            if hits.height == 1:
                raise InputDataError(reason, path=path, row=row, hint=ragged_hint or None)
            lines.append(f"row {row}: {reason}")
            continue
        name, _, message = rules[rule]
        value = shown.select(cell_text(frame.schema, name)).item()
        reason = f"{value!r} {message}" if value is not None else f"empty cell: {message}"
        if hits.height == 1:
            raise InputDataError(reason, path=path, row=row, column=name, value=value, hint=hint)
        lines.append(f"row {row}, column {name}: {reason}")
    raise rows_not_valid("the list", hits.height, lines, path, hint)


def _date_out_of_range(frame: pl.DataFrame, name: str) -> Callable[[], pl.Expr]:
    return lambda: pl.col(name).is_not_null() & ~in_date_range(pl.col(name), frame.schema[name])


def _id_type(schema: pl.Schema) -> pl.DataType:
    """Int64 for an integer id column (ids keep their type through to the outputs), else text."""
    return pl.Int64() if schema.get(c.PLAYER_ID) in INTEGER_IDS else pl.String()


def _one_row_per_player(table: pl.DataFrame) -> pl.DataFrame:
    if table.select(pl.col(c.PLAYER_ID).n_unique()).item() == table.height:  # the usual list: nothing to drop
        return table
    content = [n for n in table.columns if n not in (c.SOURCE_FILE, c.SOURCE_ROW)]
    unique = table.unique(subset=content, keep="first", maintain_order=True)
    clash = unique.filter(pl.col(c.PLAYER_ID).is_duplicated())
    if clash.height:
        player = clash[c.PLAYER_ID][0]
        rows = clash.filter(pl.col(c.PLAYER_ID) == player)
        where = ", ".join(f"{f} row {r}" for f, r in zip(rows[c.SOURCE_FILE], rows[c.SOURCE_ROW], strict=True))
        raise InputDataError(
            f"player {player!r} is listed twice with different data ({where})",
            path=str(rows[c.SOURCE_FILE][0]),
            column=c.PLAYER_ID,
            value=player,
            hint="keep one row per player in the rating list.",
        )
    return unique


def _number(frame: pl.DataFrame, name: str, fractional: bool) -> pl.Expr:
    """The column as a Float64 number; null when absent, and for a type that holds no numbers (such a
    column is refused by :func:`_bad_number`)."""
    dtype = frame.schema.get(name)
    if dtype is None or not (dtype == pl.String or dtype.is_numeric()):
        return pl.lit(None, pl.Float64)
    return (
        text_column(frame.schema, name).cast(pl.Float64, strict=False)
        if dtype == pl.String
        else pl.col(name).cast(pl.Float64, strict=False).fill_nan(None)  # NaN: pandas' missing value
    )


def _bad_number(frame: pl.DataFrame, name: str, fractional: bool) -> pl.Expr:
    dtype = frame.schema[name]
    if dtype == pl.String:
        text = text_column(frame.schema, name)
        return text.is_not_null() & ~text.str.contains(DECIMAL_NUMBER if fractional else WHOLE_NUMBER)
    if not dtype.is_numeric():
        return pl.col(name).is_not_null()
    value = pl.col(name).cast(pl.Float64)
    return _never() if fractional else value.is_not_null() & (value != value.round(0))


def _flag(frame: pl.DataFrame, name: str) -> pl.Expr:
    if name not in frame.columns:
        return pl.lit(None, pl.Boolean)
    if frame.schema[name] == pl.Boolean:
        return pl.col(name)
    text = text_column(frame.schema, name).str.to_lowercase()
    return pl.when(text.is_in(_TRUE)).then(True).when(text.is_in(_FALSE)).then(False)


def _never() -> pl.Expr:
    # a full-length False column: polars 2.1 can fail to filter a frame by a scalar literal predicate
    return pl.repeat(False, pl.len())


def _bad_flag(frame: pl.DataFrame, name: str) -> pl.Expr:
    if frame.schema[name] == pl.Boolean:
        return _never()
    text = text_column(frame.schema, name).str.to_lowercase()
    return text.is_not_null() & ~text.is_in((*_TRUE, *_FALSE))


def _bad_pending(pending: pl.Expr) -> pl.Expr:
    entry = r"[0-9]{4}-(0[1-9]|1[0-2]):[0-9]+:[0-9]+:[0-9]+"
    return pending.is_not_null() & ~pending.str.contains(rf"^{entry}(;{entry})*$")
