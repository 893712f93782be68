"""Reading and checking a rating list (the list in force); no rating rules.

A list problem stops the run (exit 65): the list is the base of every new rating, so a guessed value
would publish a wrong rating. Columns written by an earlier run that describe that run's period
(``change``, ``games``, ...) are dropped; the player state (``k``, ``games_total``, ...) is kept, and
any other column passes through to the new list unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import polars as pl

from elo_batch import columns as c
from elo_batch.errors import InputDataError
from elo_batch.readers import RAGGED, InputFile, expand_paths, read_table
from elo_batch.rules.bounds import RATING_RANGE, birth_year_out_of_range, k_out_of_range, rating_out_of_range
from elo_batch.text import closest_hint
from elo_batch.validate import INTEGER_IDS, THOUSANDS_REASON, THOUSANDS_SEPARATED, WHOLE_NUMBER, text_column

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
    c.PERFORMANCE_RATING, c.OPPONENTS_AVERAGE,
)  # fmt: skip

_TRUE = ("true", "t", "yes", "y", "1")
_FALSE = ("false", "f", "no", "n", "0")


def list_schema(id_type: pl.DataType) -> dict[str, pl.DataType]:
    """:data:`LIST_SCHEMA` with ``player_id`` of ``id_type`` (pl.String or pl.Int64)."""
    return {**LIST_SCHEMA, c.PLAYER_ID: id_type}


def load_rating_list(
    path: str, *, fractional_ratings: bool = False, encoding: str | None = None
) -> tuple[pl.DataFrame, InputFile]:
    """Read and check the list in force.

    Args:
        path: One CSV or Parquet file (or a folder or glob of them, read as one list).
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
    for one in expand_paths([path]):
        frame, info = read_table(one, encoding=encoding)
        dropped = [name for name in PERIOD_OUTPUT if name in frame.columns]
        if dropped and c.RATING_BEFORE not in frame.columns:  # not a list written by elo-batch
            note = f"{one}: list column(s) {', '.join(dropped)} name outputs of a period and were not carried"
            info = dataclasses.replace(info, notes=(*info.notes, note))
        frames.append(_check(frame, one, fractional_ratings))
        infos.append(info)
    table = pl.concat(frames, how="diagonal_relaxed") if len(frames) > 1 else frames[0]
    table = _one_row_per_player(table)
    info = (
        infos[0]
        if len(infos) == 1
        else InputFile(
            path,
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


def as_list_in_force(new_list: pl.DataFrame) -> pl.DataFrame:
    """A rating list written by a period, as the next period reads it (what ``--ratings`` would load).

    Args:
        new_list: The ``ratings`` output of a period.

    Returns:
        ``LIST_SCHEMA`` columns first, then the pass-through columns; the columns that describe the
        finished period (``change``, ``games``, ...) dropped.
    """
    frame = new_list.drop([name for name in PERIOD_OUTPUT if name in new_list.columns])
    extras = [name for name in frame.columns if name not in LIST_SCHEMA]
    return frame.select(
        *[
            (pl.col(name) if name in frame.columns else pl.lit(None)).cast(dtype).alias(name)
            for name, dtype in list_schema(_id_type(frame.schema)).items()
        ],
        *extras,
    )


def _check(frame: pl.DataFrame, path: str, fractional: bool) -> pl.DataFrame:
    missing = [name for name in (c.PLAYER_ID, c.RATING) if name not in frame.columns]
    if missing:
        names = [n for n in frame.columns if n not in (c.SOURCE_FILE, c.SOURCE_ROW, RAGGED)]
        hints = " ".join(h for h in (closest_hint(m, names) for m in missing) if h)
        raise InputDataError(
            f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}; the list has "
            + (", ".join(names) if names else "no columns"),
            path=path,
            hint=(hints + " " if hints else "") + "a rating list needs player_id and rating (empty = unrated).",
        )
    if RAGGED in frame.columns:
        ragged = frame.filter(pl.col(RAGGED).is_not_null())
        if ragged.height:
            more = f" ({ragged.height - 1} more rows like it)" if ragged.height > 1 else ""
            reason, _, hint = str(ragged[RAGGED][0]).partition(" Hint: ")
            raise InputDataError(reason + more, path=path, row=int(ragged[c.SOURCE_ROW][0]), hint=hint or None)
        frame = frame.drop(RAGGED)
    frame = frame.drop([name for name in PERIOD_OUTPUT if name in frame.columns])
    id_type = _id_type(frame.schema)
    parsed = {
        c.PLAYER_ID: pl.col(c.PLAYER_ID) if id_type == pl.Int64 else text_column(frame.schema, c.PLAYER_ID),
        c.RATING: _number(frame, c.RATING, fractional),
        c.K: _number(frame, c.K, False),
        c.BIRTH_YEAR: _number(frame, c.BIRTH_YEAR, False),
        c.GAMES_TOTAL: _number(frame, c.GAMES_TOTAL, False),
        c.REACHED_2400: _flag(frame, c.REACHED_2400),
        c.REACHED_2300: _flag(frame, c.REACHED_2300),
        c.PENDING: text_column(frame.schema, c.PENDING),
    }
    rules: list[tuple[str, Callable[[], pl.Expr], str]] = [
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
            f"is out of range; expected {RATING_RANGE}",
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
            lambda: _bad_number(frame, c.GAMES_TOTAL, False) | (parsed[c.GAMES_TOTAL] < 0),
            "is not a number of games; expected a whole number >= 0",
        ),
        (c.REACHED_2400, lambda: _bad_flag(frame, c.REACHED_2400), "is not true or false"),
        (c.REACHED_2300, lambda: _bad_flag(frame, c.REACHED_2300), "is not true or false"),
        (c.PENDING, lambda: _bad_pending(parsed[c.PENDING]), "is not a pending-games record written by elo-batch"),
    ]
    for column, rule, message in rules:
        if column not in frame.columns:
            continue
        bad = rule()
        hits = frame.filter(bad.fill_null(False))
        if hits.height:
            value = hits[column].cast(pl.String)[0]
            more = f" ({hits.height - 1} more rows like it)" if hits.height > 1 else ""
            raise InputDataError(
                f"{value!r} {message}{more}" if value is not None else f"empty cell: {message}{more}",
                path=path,
                row=int(hits[c.SOURCE_ROW][0]),
                column=column,
                hint="fix the rating list; nothing was rated.",
            )
    extras = [n for n in frame.columns if n not in LIST_SCHEMA and n not in (c.SOURCE_FILE, c.SOURCE_ROW)]
    return frame.select(
        *[expr.cast(list_schema(id_type)[name]).alias(name) for name, expr in parsed.items()],
        *extras,
        c.SOURCE_FILE,
        c.SOURCE_ROW,
    )


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
    if name not in frame.columns:
        return pl.lit(None, pl.Float64)
    return (
        text_column(frame.schema, name).cast(pl.Float64, strict=False)
        if frame.schema[name] == pl.String
        else pl.col(name).cast(pl.Float64, strict=False).fill_nan(None)  # NaN: pandas' missing value
    )


def _bad_number(frame: pl.DataFrame, name: str, fractional: bool) -> pl.Expr:
    dtype = frame.schema[name]
    if dtype == pl.String:
        text = text_column(frame.schema, name)
        return text.is_not_null() & ~text.str.contains(r"^[0-9]+(\.[0-9]+)?$" if fractional else WHOLE_NUMBER)
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
