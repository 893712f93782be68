"""One games file's checks: its shape and column types, then each row to a canonical or a rejected row.

A rejected row carries its column, value and reason (:data:`elo_batch.contract.schemas.REJECTED_SCHEMA`).
"""

from __future__ import annotations

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.contract.names import unescape
from elo_batch.contract.schemas import (
    CANONICAL_SCHEMA,
    FORFEITS,
    INTEGER_IDS,
    ONE_SIDED_FORFEITS,
    REJECTED_SCHEMA,
    RESULTS,
    SCORES,
)
from elo_batch.errors import InputDataError
from elo_batch.inputs.byvalue import ByValue
from elo_batch.inputs.cellbound import bound_cells, cut, long_reason, too_long
from elo_batch.inputs.cells import cell_text
from elo_batch.inputs.eventcells import attribute, ends_before_start
from elo_batch.inputs.gamechecks import Check, ColumnReader, first_failed, inexact_reason, of_failed, quoted
from elo_batch.inputs.gamerules import GAME_COLUMNS, NESTED, PERIOD_PATTERN, RESULT_HINT, SCORE_HINT
from elo_batch.inputs.readers import held_names
from elo_batch.inputs.text import column_hints


def raw_json(schema: pl.Schema, columns: list[str]) -> pl.Expr:
    """The ``raw`` of rejected rows: the input row as a JSON object of its values as text (see
    :func:`elo_batch.inputs.cells.cell_text`), under the file's own (unescaped) names; a text cell of a
    used column longer than the limit cut (:func:`elo_batch.inputs.cellbound.cut`)."""

    def text(name: str) -> pl.Expr:
        return (
            cut(cell_text(schema, name))
            if name in GAME_COLUMNS and schema[name] == pl.String
            else cell_text(schema, name)
        )

    return pl.struct([text(name).alias(unescape(name)) for name in columns]).struct.json_encode().alias(c.RAW)


def check_file(
    table: pl.DataFrame | pl.LazyFrame, path: str, fractional: bool, *, trimmed: bool, header: tuple[str, ...] = ()
) -> tuple[pl.LazyFrame, pl.LazyFrame, set[str]]:
    """Plans of the canonical rows and of the rejected rows of one file, and the canonical columns
    the file does not have. ``trimmed``: the table's text is trimmed (False: Parquet text as written).
    ``header``: the column names as the file spells them, for messages (default: as held)."""
    schema = table.collect_schema()
    frame = pl.DataFrame(schema=schema)  # the columns, for the messages
    names = set(frame.columns)
    spelled = _spelled(frame, header, path)
    if set(c.TWO_SIDED_REQUIRED) <= names:
        one_sided = False
    elif c.PLAYER_ID in names and ({c.OPPONENT_RATING, c.OPPONENT_ID} & names) and ({c.RESULT, c.SCORE} & names):
        one_sided = True
    else:
        raise _missing_columns_error(names, spelled, path)
    if not ({c.DATE, c.PERIOD} & names):
        close = column_hints([c.DATE, c.PERIOD], _unused(spelled))
        raise InputDataError(
            "missing column 'date' (or 'period')",
            path=path,
            hint=f"the file has {_listing(spelled)}. "
            + (f"{close[0].upper()}{close[1:]} " if close else "")
            + "A games file needs the date of each game (YYYY-MM-DD), or the period it is rated in (YYYY-MM).",
        )
    check_types(schema, path)
    limited = [name for name in GAME_COLUMNS if schema.get(name) == pl.String]
    table = bound_cells(table, limited)  # no long cell is copied after the read
    col = ColumnReader(schema)
    white, black = (c.PLAYER_ID, c.OPPONENT_ID) if one_sided else (c.WHITE_ID, c.BLACK_ID)
    white_rating, black_rating = (c.PLAYER_RATING, c.OPPONENT_RATING) if one_sided else (c.WHITE_RATING, c.BLACK_RATING)
    integers = all(schema[name] in INTEGER_IDS for name in (white, black) if name in names)
    score_col = c.RESULT if (c.RESULT in names) or not one_sided else c.SCORE
    tokens = {**SCORES, **ONE_SIDED_FORFEITS} if one_sided else {**RESULTS, **FORFEITS}
    forfeit_tokens = ONE_SIDED_FORFEITS if one_sided else FORFEITS
    text_columns = [name for name, dtype in schema.items() if dtype == pl.String]
    text_ratings = [name for name in (white_rating, black_rating) if name in text_columns]
    few = ByValue(table, [score_col, c.DATE, c.PERIOD, *text_ratings])
    token = few.shared(col.text(score_col).str.replace_all(r"\s+", ""), w.TOKEN)  # the result without whitespace
    date_value, date_bad, date_reason = col.date(c.DATE)
    date = few(date_value)
    given_period = col.text(c.PERIOD)
    event_cells = {name: attribute(schema, name) for name in c.EVENT_COLUMNS}
    event_order = ends_before_start(event_cells[c.EVENT_START].value, event_cells[c.EVENT_END].value)
    candidates: list[Check | None] = [
        Check(None, pl.col(w.RAGGED).is_not_null(), pl.col(w.RAGGED)) if w.RAGGED in names else None,
        *[Check(name, too_long(pl.col(few.hidden().get(name, name))), long_reason(name)) for name in limited],
        Check(white, col.missing(white), pl.lit(f"missing {white}")),
        Check(black, col.missing(black), pl.lit(f"missing {black}")) if not one_sided else None,
        *[Check(name, col.inexact_id(name), inexact_reason(col.text(name))) for name in (white, black, c.GAME_ID)],
        Check(black, col.same_text(white, black), pl.lit("a player cannot play themselves")),
        Check(score_col, few(col.missing(score_col)), pl.lit(f"missing {score_col}")),
        Check(
            score_col,
            few(~token.is_in(list(tokens))),
            pl.format(
                "{} is not a "
                + ("score" if one_sided else "result")
                + ". Hint: "
                + (SCORE_HINT if one_sided else RESULT_HINT),
                quoted(col.text(score_col)),
            ),
        ),
        Check(
            c.PERIOD,
            few(given_period.is_not_null() & ~given_period.str.contains(PERIOD_PATTERN)),
            pl.format("{} is not a period. Hint: use YYYY-MM.", quoted(given_period)),
        ),
        Check(c.DATE, few(date_bad), date_reason),
        Check(
            c.DATE if c.DATE in names else c.PERIOD,
            few(given_period.is_null()) & date.is_null(),
            pl.lit("no date and no period"),
        ),
        *[Check(ch.column, few(ch.bad), ch.reason) for ch in col.rating_checks(white_rating, fractional)],
        *[Check(ch.column, few(ch.bad), ch.reason) for ch in col.rating_checks(black_rating, fractional)],
        *[Check(name, cell.problem.is_not_null(), cell.problem) for name, cell in event_cells.items()],
        Check(c.EVENT_END, event_order.is_not_null(), event_order),
    ]
    checks = [check for check in candidates if check is not None and (check.column is None or check.column in names)]
    period = pl.coalesce(
        few(pl.when(given_period.str.contains(PERIOD_PATTERN)).then(given_period)),
        few(date_value.dt.strftime("%Y-%m")),
    )
    white_value, black_value = few(col.rating(white_rating)), few(col.rating(black_rating))
    # Text as written (Parquet read untrimmed) is trimmed here where no lookup reads it.
    untrimmed = [] if trimmed else [n for n in text_columns if n not in few.values and n != c.SOURCE_FILE]
    # Each check runs once per row (or once per distinct value, see ByValue); the index of the first
    # one failed is kept, and the messages are made for the failing rows only. The score is worked out
    # beside the checks, so that a row's result text is cleaned once.
    flagged = (
        table.lazy()
        .with_row_index(w.CHECK_ROW_KEY)  # working columns beside the user's: all named __ (elo_batch.contract.names)
        .with_columns(pl.col(w.CHECK_ROW_KEY).cast(pl.Int64), *few.indices())
        .rename(few.hidden())
        .with_columns(pl.col(untrimmed).str.strip_chars())
        .with_columns(few.computed)
        .with_columns(
            first_failed(checks).alias(w.FAILED),
            few(token.replace_strict(tokens, default=None, return_dtype=pl.Int16)).alias(w.ROW_SCORE),
            few(token.is_in(list(forfeit_tokens))).alias(w.ROW_FORFEIT),
        )
    )
    original = [name for name in schema.names() if name not in (c.SOURCE_FILE, c.SOURCE_ROW, w.RAGGED)]
    bad = (
        flagged.filter(pl.col(w.FAILED).is_not_null())
        .with_columns(few.restore())
        .select(
            period.alias(c.PERIOD),
            pl.col(c.SOURCE_FILE),
            pl.col(c.SOURCE_ROW),
            of_failed(checks, lambda ch: pl.lit(ch.column)).alias(c.COLUMN),
            of_failed(
                checks, lambda ch: cut(col.text(ch.column)) if ch.column in names else pl.lit(None, pl.String)
            ).alias(c.VALUE),
            of_failed(checks, lambda ch: ch.reason).alias(c.REASON),
            raw_json(schema, original),
        )
    )
    good = flagged.filter(pl.col(w.FAILED).is_null()).select(
        pl.col(w.CHECK_ROW_KEY).alias("row_key"),
        pl.col(c.SOURCE_FILE),
        pl.col(c.SOURCE_ROW),
        pl.lit(one_sided).alias("one_sided"),
        (pl.col(c.GAME_ID) if schema.get(c.GAME_ID) in INTEGER_IDS else col.text(c.GAME_ID)).alias(c.GAME_ID),
        period.alias(c.PERIOD),
        date.alias(c.DATE),
        col.text(c.EVENT_ID).alias(c.EVENT_ID),
        col.text(c.ROUND).alias(c.ROUND),
        col.text(c.BOARD).alias(c.BOARD),
        col.player(white, integers).alias(c.WHITE_ID),
        col.player(black, integers).alias(c.BLACK_ID),
        pl.col(w.ROW_SCORE).alias("score100"),
        pl.col(w.ROW_FORFEIT).alias("forfeit"),
        white_value.alias(c.WHITE_RATING),
        black_value.alias(c.BLACK_RATING),
        pl.lit(False).alias("duplicate"),
        *(  # split off by load_games (split_event_rows)
            [
                *[cell.value.alias(w.EVENT_ROW_PREFIX + name) for name, cell in event_cells.items()],
                few(given_period).alias(w.EVENT_ROW_PREFIX + c.PERIOD),
            ]
            if c.EVENT_ID in names and names & {*c.EVENT_COLUMNS, c.PERIOD}
            else []
        ),
    )
    sources = {
        c.GAME_ID: c.GAME_ID, c.EVENT_ID: c.EVENT_ID, c.ROUND: c.ROUND, c.BOARD: c.BOARD,
        c.WHITE_RATING: white_rating, c.BLACK_RATING: black_rating,
    }  # fmt: skip
    absent = {canonical for canonical, source in sources.items() if source not in names}
    integer_games = schema.get(c.GAME_ID) in INTEGER_IDS
    canonical = {
        **CANONICAL_SCHEMA,
        **dict.fromkeys((c.WHITE_ID, c.BLACK_ID), pl.Int64() if integers else pl.String()),
        c.GAME_ID: pl.Int64() if integer_games else pl.String(),
    }
    return good.cast(canonical), bad.cast(REJECTED_SCHEMA), absent  # type: ignore[arg-type]


def _spelled(frame: pl.DataFrame, header: tuple[str, ...], path: str) -> dict[str, str]:
    """The file's own columns, read or not: held name -> the name as the file spells it (``header``, in
    order); without a header, the table's columns, as held, unescaped."""
    if header:
        return dict(zip(held_names(header, path), header, strict=True))
    own = [n for n in frame.columns if n not in (c.SOURCE_FILE, c.SOURCE_ROW, w.RAGGED)]
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
