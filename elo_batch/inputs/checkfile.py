"""One games file's checks: its shape and column types, then each row to a canonical or a rejected row.

A rejected row carries its column, value and reason (:data:`elo_batch.contract.schemas.REJECTED_SCHEMA`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.contract.mapping import ColumnMap
from elo_batch.contract.names import unescape
from elo_batch.contract.schemas import (
    CANONICAL_SCHEMA,
    FORFEITS,
    INTEGER_IDS,
    ONE_SIDED_FORFEITS,
    PERIOD_PATTERN,
    REJECTED_SCHEMA,
    RESULTS,
    SCORES,
)
from elo_batch.errors import InputDataError
from elo_batch.inputs.byvalue import ByValue
from elo_batch.inputs.cellbound import bound_cells, cut, long_reason, too_long
from elo_batch.inputs.eventcells import attribute, ends_before_start
from elo_batch.inputs.gamechecks import Check, ColumnReader, first_failed, inexact_reason, of_failed, quoted
from elo_batch.inputs.gamerules import GAME_COLUMNS, NESTED, RESULT_HINT, SCORE_HINT
from elo_batch.inputs.raw import raw_json
from elo_batch.inputs.readers import held_names
from elo_batch.inputs.text import column_hints

#: The canonical rating columns, white's and black's.
_RATINGS = (c.WHITE_RATING, c.BLACK_RATING)


class _Cells:
    """The typed views of one file's cells that its checks and its canonical rows read: its shape (two-sided
    or one-sided), its players, ratings and result column, and the expressions several checks share."""

    def __init__(self, table: pl.DataFrame | pl.LazyFrame, schema: pl.Schema, *, one_sided: bool, fractional: bool):
        self.schema, self.names, self.one_sided, self.fractional = schema, set(schema.names()), one_sided, fractional
        self.col = ColumnReader(schema)
        self.white, self.black = (c.PLAYER_ID, c.OPPONENT_ID) if one_sided else (c.WHITE_ID, c.BLACK_ID)
        self.ratings = (c.PLAYER_RATING, c.OPPONENT_RATING) if one_sided else (c.WHITE_RATING, c.BLACK_RATING)
        self.score = c.RESULT if (c.RESULT in self.names) or not one_sided else c.SCORE
        self.tokens = {**SCORES, **ONE_SIDED_FORFEITS} if one_sided else {**RESULTS, **FORFEITS}
        self.limited = [name for name in GAME_COLUMNS if schema.get(name) == pl.String]
        self.table = bound_cells(table, self.limited)  # no long cell is copied after the read
        self.few = ByValue(self.table, [self.score, c.DATE, c.PERIOD, *[n for n in self.ratings if n in self._texts()]])
        self.token = self.few.shared(self.col.text(self.score).str.replace_all(r"\s+", ""), w.TOKEN)  # no whitespace
        self.date_value, self.date_bad, self.date_reason = self.col.date(c.DATE)
        self.date = self.few(self.date_value)
        self.given_period = self.col.text(c.PERIOD)
        self.period = pl.coalesce(
            self.few(pl.when(self.given_period.str.contains(PERIOD_PATTERN)).then(self.given_period)),
            self.few(self.date_value.dt.strftime("%Y-%m")),
        )
        self.events = {name: attribute(schema, name) for name in c.EVENT_COLUMNS}
        self.event_order = ends_before_start(self.events[c.EVENT_START].value, self.events[c.EVENT_END].value)

    @property
    def integers(self) -> bool:
        """Whether the player ids are integers (every id column the file has is of an integer type)."""
        return all(self.schema[name] in INTEGER_IDS for name in (self.white, self.black) if name in self.names)

    @property
    def integer_games(self) -> bool:
        """Whether the file's game_id column is of an integer type."""
        return self.schema.get(c.GAME_ID) in INTEGER_IDS

    def _texts(self) -> list[str]:
        """The file's text columns."""
        return [name for name, dtype in self.schema.items() if dtype == pl.String]

    def untrimmed(self, trimmed: bool) -> list[str]:
        """The text columns the rows trim (none when the table's text is ``trimmed``): those no lookup reads."""
        return [] if trimmed else [n for n in self._texts() if n not in self.few.values and n != c.SOURCE_FILE]


@dataclass(frozen=True)
class _Rule:
    """A row of the checks' table: the columns it checks, and for each the rows failing it and their reason."""

    columns: Callable[[_Cells], tuple[str, ...]]
    bad: Callable[[_Cells, str], pl.Expr]
    reason: Callable[[_Cells, str], pl.Expr]

    def __call__(self, cells: _Cells) -> list[Check]:
        """The rule's checks of the columns the file has."""
        return [Check(n, self.bad(cells, n), self.reason(cells, n)) for n in self.columns(cells) if n in cells.names]


def _ratings(cells: _Cells) -> list[Check]:
    """The checks of the two rating columns (:meth:`ColumnReader.rating_checks`), looked up by value."""
    return [
        Check(check.column, cells.few(check.bad), check.reason)
        for name in cells.ratings
        for check in cells.col.rating_checks(name, cells.fractional)
    ]


def _not_a_result(cells: _Cells, name: str) -> pl.Expr:
    """The reason of a result (or score) that is no token of the file's shape."""
    what, hint = ("score", SCORE_HINT) if cells.one_sided else ("result", RESULT_HINT)
    return pl.format("{} is not a " + what + ". Hint: " + hint, quoted(cells.col.text(name)))


def _missing(cells: _Cells, name: str) -> pl.Expr:
    """The reason of an empty cell of a required column."""
    return pl.lit(f"missing {name}")


#: The checks of a games row, in order: a row is rejected for the first it fails (after a ragged row's).
_RULES: tuple[Callable[[_Cells], list[Check]], ...] = (
    _Rule(
        lambda f: tuple(f.limited), lambda f, n: too_long(pl.col(f.few.hidden().get(n, n))), lambda _, n: long_reason(n)
    ),
    _Rule(lambda f: (f.white,) if f.one_sided else (f.white, f.black), lambda f, n: f.col.missing(n), _missing),
    _Rule(
        lambda f: (f.white, f.black, c.GAME_ID),
        lambda f, n: f.col.inexact_id(n),
        lambda f, n: inexact_reason(f.col.text(n)),
    ),
    _Rule(
        lambda f: (f.black,),
        lambda f, _: f.col.same_text(f.white, f.black),
        lambda *_: pl.lit("a player cannot play themselves"),
    ),
    _Rule(lambda f: (f.score,), lambda f, n: f.few(f.col.missing(n)), _missing),
    _Rule(lambda f: (f.score,), lambda f, _: f.few(~f.token.is_in(list(f.tokens))), _not_a_result),
    _Rule(
        lambda _: (c.PERIOD,),
        lambda f, _: f.few(f.given_period.is_not_null() & ~f.given_period.str.contains(PERIOD_PATTERN)),
        lambda f, _: pl.format("{} is not a period. Hint: use YYYY-MM.", quoted(f.given_period)),
    ),
    _Rule(lambda _: (c.DATE,), lambda f, _: f.few(f.date_bad), lambda f, _: f.date_reason),
    _Rule(
        lambda f: (c.DATE if c.DATE in f.names else c.PERIOD,),
        lambda f, _: f.few(f.given_period.is_null()) & f.date.is_null(),
        lambda *_: pl.lit("no date and no period"),
    ),
    _ratings,
    _Rule(lambda _: c.EVENT_COLUMNS, lambda f, n: f.events[n].problem.is_not_null(), lambda f, n: f.events[n].problem),
    _Rule(lambda _: (c.EVENT_END,), lambda f, _: f.event_order.is_not_null(), lambda f, _: f.event_order),
)


def check_file(
    table: pl.DataFrame | pl.LazyFrame,
    path: str,
    fractional: bool,
    *,
    trimmed: bool,
    header: tuple[str, ...] = (),
    columns: ColumnMap | None = None,
) -> tuple[pl.LazyFrame, pl.LazyFrame, set[str]]:
    """Plans of the canonical rows and of the rejected rows of one file, and the canonical columns
    the file does not have. ``trimmed``: the table's text is trimmed (False: Parquet text as written).
    ``header``: the column names as the file spells them, for messages (default: as held).
    ``columns``: the games' column mapping (``--columns``), applied here, the one place a games table's
    held names become the canonical ones (see :meth:`~elo_batch.inputs.inputfile.ColumnMap.hold`); a
    rejected row's ``raw`` keeps the file's own names.

    Raises:
        InputDataError: a column missing (a mapped one too: the message lists the file's columns), or of
            a nested type.
    """
    spelled = _spelled(table.collect_schema().names(), header, path)
    raw_names: dict[str, str] = {}
    if columns is not None:
        table, spelled = columns.hold(table, header, path), columns.spelled(spelled)
        raw_names = {canonical: unescape(held) for held, canonical in columns.sources.items()}
    schema = table.collect_schema()
    one_sided = _shape(schema, spelled, path)
    cells = _Cells(table, schema, one_sided=one_sided, fractional=fractional)
    ragged = [Check(None, pl.col(w.RAGGED).is_not_null(), pl.col(w.RAGGED))] if w.RAGGED in cells.names else []
    checks = ragged + [check for rule in _RULES for check in rule(cells)]
    flagged = _flagged(cells, checks, trimmed=trimmed)
    good = flagged.filter(pl.col(w.FAILED).is_null()).select(_canonical_columns(cells))
    bad = _rejected(flagged, cells, checks, raw_names=raw_names)
    return good.cast(_canonical_schema(cells)), bad.cast(REJECTED_SCHEMA), _absent(cells)  # type: ignore[arg-type]


def _shape(schema: pl.Schema, spelled: dict[str, str], path: str) -> bool:
    """Whether the file is one-sided, after its columns are checked (both shapes' columns, a date or a
    period, no nested type); ``spelled``: the file's columns, for the messages (see :func:`_spelled`).

    Raises:
        InputDataError: a column missing, or of a nested type.
    """
    names = set(schema.names())
    if set(c.TWO_SIDED_REQUIRED) <= names:
        one_sided = False
    elif c.PLAYER_ID in names and ({c.OPPONENT_RATING, c.OPPONENT_ID} & names) and ({c.RESULT, c.SCORE} & names):
        one_sided = True
    else:
        raise _missing_columns_error(names, spelled, path)
    if not ({c.DATE, c.PERIOD} & names):
        raise _missing_date_error(spelled, path)
    check_types(schema, path)
    return one_sided


def _flagged(cells: _Cells, checks: list[Check], *, trimmed: bool) -> pl.LazyFrame:
    """The plan of the file's rows with the index of the first check each fails, its score and forfeit."""
    few = cells.few
    # Each check runs once per row (or once per distinct value, see ByValue); the index of the first
    # one failed is kept, and the messages are made for the failing rows only. The score is worked out
    # beside the checks, so that a row's result text is cleaned once. Text as written (Parquet read
    # untrimmed) is trimmed here where no lookup reads it.
    forfeits = ONE_SIDED_FORFEITS if cells.one_sided else FORFEITS
    return (
        cells.table.lazy()
        .with_row_index(w.CHECK_ROW_KEY)  # working columns beside the user's: all named __ (elo_batch.contract.names)
        .with_columns(pl.col(w.CHECK_ROW_KEY).cast(pl.Int64), *few.indices())
        .rename(few.hidden())
        .with_columns(pl.col(cells.untrimmed(trimmed)).str.strip_chars())
        .with_columns(few.computed)
        .with_columns(
            first_failed(checks).alias(w.FAILED),
            few(cells.token.replace_strict(cells.tokens, default=None, return_dtype=pl.Int16)).alias(w.ROW_SCORE),
            few(cells.token.is_in(list(forfeits))).alias(w.ROW_FORFEIT),
        )
    )


def _rejected(flagged: pl.LazyFrame, cells: _Cells, checks: list[Check], *, raw_names: dict[str, str]) -> pl.LazyFrame:
    """The plan of the rejected rows: each row's first failed check's column, the value and its reason;
    ``raw_names``: the file's own names of mapped columns (held name -> the name ``raw`` gives it)."""
    original = [name for name in cells.schema.names() if name not in (c.SOURCE_FILE, c.SOURCE_ROW, w.RAGGED)]
    null = pl.lit(None, pl.String)
    return (
        flagged.filter(pl.col(w.FAILED).is_not_null())
        .with_columns(cells.few.restore())
        .select(
            cells.period.alias(c.PERIOD),
            pl.col(c.SOURCE_FILE),
            pl.col(c.SOURCE_ROW),
            of_failed(checks, lambda ch: pl.lit(ch.column)).alias(c.COLUMN),
            of_failed(checks, lambda ch: cut(cells.col.text(ch.column)) if ch.column in cells.names else null).alias(
                c.VALUE
            ),
            of_failed(checks, lambda ch: ch.reason).alias(c.REASON),
            raw_json(cells.schema, original, raw_names),
        )
    )


def _canonical_columns(cells: _Cells) -> list[pl.Expr]:
    """The canonical columns of the rows that pass the checks (before their types are cast)."""
    col, few = cells.col, cells.few
    return [
        pl.col(w.CHECK_ROW_KEY).alias("row_key"),
        pl.col(c.SOURCE_FILE),
        pl.col(c.SOURCE_ROW),
        pl.lit(cells.one_sided).alias("one_sided"),
        (pl.col(c.GAME_ID) if cells.integer_games else col.text(c.GAME_ID)).alias(c.GAME_ID),
        cells.period.alias(c.PERIOD),
        cells.date.alias(c.DATE),
        *[col.text(name).alias(name) for name in (c.EVENT_ID, c.ROUND, c.BOARD)],
        col.player(cells.white, cells.integers).alias(c.WHITE_ID),
        col.player(cells.black, cells.integers).alias(c.BLACK_ID),
        pl.col(w.ROW_SCORE).alias("score100"),
        pl.col(w.ROW_FORFEIT).alias("forfeit"),
        *[few(col.rating(name)).alias(alias) for name, alias in zip(cells.ratings, _RATINGS, strict=True)],
        pl.lit(False).alias("duplicate"),
        *_event_columns(cells),
    ]


def _event_columns(cells: _Cells) -> list[pl.Expr]:
    """The rows' event attributes and period, split off by load_games (split_event_rows); none when the
    file has no event_id, or neither attributes nor a period."""
    if not (c.EVENT_ID in cells.names and cells.names & {*c.EVENT_COLUMNS, c.PERIOD}):
        return []
    return [
        *[cell.value.alias(w.EVENT_ROW_PREFIX + name) for name, cell in cells.events.items()],
        cells.few(cells.given_period).alias(w.EVENT_ROW_PREFIX + c.PERIOD),
    ]


def _canonical_schema(cells: _Cells) -> dict[str, pl.DataType]:
    """The canonical schema of the file's rows: integer ids where its id columns are integers."""
    return {
        **CANONICAL_SCHEMA,
        **dict.fromkeys((c.WHITE_ID, c.BLACK_ID), pl.Int64() if cells.integers else pl.String()),
        c.GAME_ID: pl.Int64() if cells.integer_games else pl.String(),
    }


def _absent(cells: _Cells) -> set[str]:
    """The canonical columns the file does not give (its columns of them absent)."""
    sources = {
        c.GAME_ID: c.GAME_ID, c.EVENT_ID: c.EVENT_ID, c.ROUND: c.ROUND, c.BOARD: c.BOARD,
        **dict(zip(_RATINGS, cells.ratings, strict=True)),
    }  # fmt: skip
    return {canonical for canonical, source in sources.items() if source not in cells.names}


def _spelled(columns: list[str], header: tuple[str, ...], path: str) -> dict[str, str]:
    """The file's own columns, read or not: held name -> the name as the file spells it (``header``, in
    order); without a header, the table's ``columns``, as held, unescaped."""
    if header:
        return dict(zip(held_names(header, path), header, strict=True))
    own = [n for n in columns if n not in (c.SOURCE_FILE, c.SOURCE_ROW, w.RAGGED)]
    return {n: unescape(n) for n in own}


def _unused(spelled: dict[str, str]) -> list[str]:
    """The spellings of the columns that are not columns of the contract (candidates for a hint)."""
    return [written for held, written in spelled.items() if held not in GAME_COLUMNS]


def _listing(spelled: dict[str, str]) -> str:
    return "columns " + ", ".join(spelled.values()) if spelled else "no columns"


def check_types(schema: pl.Schema, path: str, names: tuple[str, ...] | list[str] = GAME_COLUMNS) -> None:
    """Refuse a column of ``names`` (default: the games columns) of a nested or binary type (a Parquet
    file of another shape), naming it.

    Raises:
        InputDataError: such a column.
    """
    for name, dtype in schema.items():
        if name in names and isinstance(dtype, NESTED):
            raise InputDataError(
                f"column {name} has type {dtype}; expected text, a number or a date",
                path=path,
                column=name,
                hint="write one plain value per cell (for example the id as text).",
            )


def _missing_date_error(spelled: dict[str, str], path: str) -> InputDataError:
    """The error of a file with neither a date nor a period column."""
    close = column_hints([c.DATE, c.PERIOD], _unused(spelled))
    return InputDataError(
        "missing column 'date' (or 'period')",
        path=path,
        hint=f"the file has {_listing(spelled)}. "
        + (f"{close[0].upper()}{close[1:]} " if close else "")
        + "A games file needs the date of each game (YYYY-MM-DD), or the period it is rated in (YYYY-MM).",
    )


def _missing_columns_error(names: set[str], spelled: dict[str, str], path: str) -> InputDataError:
    if {c.PLAYER_ID, c.OPPONENT_RATING, c.SCORE} & names and not {c.WHITE_ID, c.BLACK_ID} & names:
        missing = [
            wanted
            for wanted, present in (
                (c.PLAYER_ID, {c.PLAYER_ID}),
                (c.OPPONENT_RATING, {c.OPPONENT_RATING, c.OPPONENT_ID}),
                (c.RESULT, {c.RESULT, c.SCORE}),
            )
            if not present & names
        ]
    else:
        missing = [name for name in c.TWO_SIDED_REQUIRED if name not in names]
    hint_text = column_hints(missing, _unused(spelled))
    return InputDataError(
        f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}; the file has {_listing(spelled)}",
        path=path,
        hint=(hint_text + " " if hint_text else "")
        + "a games file needs white_id, black_id, result and date (or period); a one-sided results file "
        "needs player_id, opponent_rating, result (or score) and date (or period).",
    )
