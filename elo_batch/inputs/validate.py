"""Input rules as boolean polars expressions: turns raw game rows into typed canonical rows or rejects.

Never drops a row silently: every row read is either a canonical row (possibly flagged as an exact
duplicate) or a rejected row with its file, row number, column, value and reason. No rating rules here.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from elo_batch import columns as c
from elo_batch.errors import InputDataError
from elo_batch.inputs.cells import DATE_RANGE, cell_text, in_date_range, inexact_number, is_date_type, text_column
from elo_batch.inputs.eventcells import attribute, ends_before_start
from elo_batch.inputs.names import READER_COLUMNS, escape, unescape
from elo_batch.inputs.readers import (
    PARQUET_ERRORS,
    PARQUET_SUFFIXES,
    RAGGED,
    FrameInput,
    InputFile,
    expand_paths,
    frame_rows,
    held_names,
    read_frame,
    read_rows,
    read_table,
    reading,
    scan_table,
)
from elo_batch.inputs.text import column_hints
from elo_batch.rules.bounds import RATING_RANGE, rating_out_of_range

if TYPE_CHECKING:
    from elo_batch.engine.events import EventFacts

#: Canonical game row: one per valid input row (two-sided game or one-sided result).
CANONICAL_SCHEMA: dict[str, pl.DataType] = {
    "row_key": pl.Int64(),  # global input order: files in order, rows in order
    c.SOURCE_FILE: pl.String(),
    c.SOURCE_ROW: pl.Int64(),
    "one_sided": pl.Boolean(),
    c.GAME_ID: pl.String(),  # Int64 when every file that has game_ids has integer ones (INTEGER_IDS)
    c.PERIOD: pl.String(),
    c.DATE: pl.Date(),
    c.EVENT_ID: pl.String(),
    c.ROUND: pl.String(),
    c.WHITE_ID: pl.String(),  # player_id of one-sided rows; Int64 when every file's ids are (INTEGER_IDS)
    c.BLACK_ID: pl.String(),  # opponent_id of one-sided rows (may be null); as white_id
    "score100": pl.Int16(),  # white's (player's) score in hundredths: 100, 50, 0
    "forfeit": pl.Boolean(),
    c.WHITE_RATING: pl.Float64(),  # player_rating of one-sided rows
    c.BLACK_RATING: pl.Float64(),  # opponent_rating of one-sided rows
    "duplicate": pl.Boolean(),  # an exact repeat of an earlier row with the same game_id
}

REJECTED_SCHEMA: dict[str, pl.DataType] = {
    c.PERIOD: pl.String(),  # the row's period when it could be read, else null
    c.SOURCE_FILE: pl.String(),
    c.SOURCE_ROW: pl.Int64(),
    c.COLUMN: pl.String(),
    c.VALUE: pl.String(),
    c.REASON: pl.String(),
    c.RAW: pl.String(),
}

#: Player id column types kept as integers (Int64) in the canonical rows when every game file has them:
#: the rating uses them as keys without making 20 million texts; an integer's id is its decimal text.
INTEGER_IDS = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32)
#: Two-sided result tokens -> white's score in hundredths (FIDE 5.1: forfeits are never rated).
RESULTS: dict[str, int] = {
    "1-0": 100, "0-1": 0, "1/2-1/2": 50, "½-½": 50, "0.5-0.5": 50, "0,5-0,5": 50, "=-=": 50,
    "1:0": 100, "0:1": 0, "½:½": 50, "1/2:1/2": 50,
}  # fmt: skip
FORFEITS: dict[str, int] = {"+--": 100, "--+": 0, "+-": 100, "-+": 0, "--": 0}
#: One-sided score tokens -> the player's score in hundredths.
SCORES: dict[str, int] = {
    "1": 100, "1.0": 100, "1.00": 100, "1,0": 100, "1,00": 100,
    "0": 0, "0.0": 0, "0.00": 0, "0,0": 0, "0,00": 0,
    "0.5": 50, "0.50": 50, "0,5": 50, "0,50": 50, ".5": 50, "½": 50, "1/2": 50, "=": 50,
}  # fmt: skip
ONE_SIDED_FORFEITS: dict[str, int] = {"+": 100, "-": 0, "--": 0}

RESULT_HINT = "use 1-0, 0-1, 1/2-1/2 (or ½-½, 0.5-0.5), or +--/--+/-- for forfeits."
SCORE_HINT = "use the player's score 1, 0.5 or 0, or + / - for a forfeit."
#: ``2.000`` or ``2,000``: a rating written with a thousands separator, never the number 2 (or 2.0).
THOUSANDS_SEPARATED = r"^[0-9]{1,3}([.,][0-9]{3})+$"
#: A whole number as text: digits, or digits with a zero fraction (2000.0 from a spreadsheet or pandas),
#: signed or not (-5 is a number, out of range for a rating); "2.000" is caught first by THOUSANDS_SEPARATED.
WHOLE_NUMBER = r"^[+-]?[0-9]+(\.0+)?$"
#: A number as text, with decimals or not (``--rounding none`` ratings).
DECIMAL_NUMBER = r"^[+-]?[0-9]+(\.[0-9]+)?$"
#: A period written YYYY-MM.
PERIOD_PATTERN = r"^[0-9]{4}-(0[1-9]|1[0-2])$"
#: The time after a date: hh:mm, optional :ss(.fff), optional Z or +-hh[:mm] (a real clock time).
_CLOCK = r"([01][0-9]|2[0-3]):[0-5][0-9]"
_SECONDS = r"(:([0-5][0-9]|60)(\.[0-9]+)?)"
_OFFSET = r"([01][0-9]|2[0-3])(:?[0-5][0-9])?"
# Every pattern here spells digits [0-9]: the regex engine's \d also matches other scripts' digits
# (full-width ２０００, Arabic-Indic), which would pass a check and then fail to convert.
THOUSANDS_REASON = "it looks like a number with a thousands separator"
#: Column types a game column may have (anything else cannot be read as text, a number or a date).
_NESTED = (pl.List, pl.Array, pl.Struct, pl.Object, pl.Binary)
_GAME_COLUMNS = (
    c.WHITE_ID, c.BLACK_ID, c.RESULT, c.DATE, c.PERIOD, c.GAME_ID, c.EVENT_ID, c.ROUND, c.WHITE_RATING,
    c.BLACK_RATING, c.PLAYER_ID, c.OPPONENT_ID, c.PLAYER_RATING, c.OPPONENT_RATING, c.SCORE, *c.EVENT_COLUMNS,
)  # fmt: skip
#: The event attributes of game rows, beside the canonical rows (see ``GamesInput.event_rows``): the row,
#: its event, the attributes and the ``period`` the row gives (null when it gives none).
EVENT_ROWS_SCHEMA: dict[str, pl.DataType] = {
    "row_key": pl.Int64(),
    c.EVENT_ID: pl.String(),
    c.EVENT_TYPE: pl.String(),
    c.MATCH_GAMES: pl.Int64(),
    c.RATE_ALL_GAMES: pl.Boolean(),
    c.EVENT_START: pl.Date(),
    c.EVENT_END: pl.Date(),
    c.PERIOD: pl.String(),
}
_EVENT_ROW = "__event_row_"  # prefix of the event columns of a file's checked rows, split off by load_games


@dataclass(frozen=True)
class GamesInput:
    """All game rows of a run, checked.

    Attributes:
        rows: Valid rows in ``CANONICAL_SCHEMA``, in input order: in memory, or a lazy plan that reads
            and checks the files again each time it runs (inputs larger than memory; see
            :func:`load_games`). ``white_id`` and ``black_id`` are Int64 when every file has integer
            player ids (:data:`INTEGER_IDS`), else text; ``game_id`` likewise (files without it aside).
        rejected: Rejected rows in ``REJECTED_SCHEMA``, in input order.
        files: What was read, file by file.
        period_rows: Rows of ``rows`` by period.
        absent: Canonical columns no input file has (null in every row), such as ``event_id``.
        event_rows: The event attributes given on game rows that have an ``event_id`` (in files with an
            event column or ``period``), ``EVENT_ROWS_SCHEMA``; None when no file has them.
        events: The run's event facts, once worked out (:func:`elo_batch.engine.events.settle`).
    """

    rows: pl.DataFrame | pl.LazyFrame
    rejected: pl.DataFrame
    files: tuple[InputFile, ...]
    period_rows: dict[str, int]
    absent: frozenset[str] = frozenset()
    event_rows: pl.DataFrame | None = None
    events: EventFacts | None = None

    @property
    def id_type(self) -> pl.DataType:
        """The type of the player ids in ``rows``: pl.Int64 or pl.String."""
        return self.rows.collect_schema()[c.WHITE_ID]

    @property
    def rows_read(self) -> int:
        """Data rows read over all files."""
        return sum(f.rows for f in self.files)

    def source_file(self, row_key: pl.Expr) -> pl.Expr:
        """The ``source_file`` of rows, from their ``row_key``: the files' rows hold consecutive row keys,
        file after file (see :func:`load_games`). A Categorical of the files' paths (text written
        dictionary-encoded)."""
        names = list(dict.fromkeys(f.source_file for f in self.files))
        paths = pl.Series([f.source_file for f in self.files], dtype=pl.Categorical)
        if len(names) <= 1:
            return pl.lit(paths[0] if len(paths) else None, paths.dtype)
        starts = pl.Series(list(itertools.accumulate((f.rows for f in self.files[:-1]), initial=0)), dtype=pl.Int64)
        return pl.lit(paths).gather(pl.lit(starts).search_sorted(row_key, side="right").cast(pl.Int64) - 1)


@dataclass(frozen=True)
class _Check:
    column: str | None
    bad: pl.Expr
    reason: pl.Expr


def load_games(
    paths: Sequence[str | FrameInput],
    *,
    fractional_ratings: bool = False,
    encoding: str | None = None,
    exclude: tuple[str, ...] = (),
    chunk_rows: int | None = None,
) -> GamesInput:
    """Read and check game files (or frames) of either shape of the contract.

    Args:
        paths: Files, globs or folders (see :func:`elo_batch.inputs.readers.expand_paths`), or frames in
            memory (read as :func:`elo_batch.inputs.readers.read_frame` reads them, then checked as files are).
        fractional_ratings: Accept ratings with decimals (only ``--rounding none`` keeps them).
        encoding: Force the CSV text encoding.
        exclude: Files and folders a folder or glob must not pick up (see ``expand_paths``).
        chunk_rows: When the Parquet inputs (and LazyFrames) hold more rows than this, they are not read into memory:
            ``rows`` is a plan that reads and checks them chunk by chunk each time it runs (the
            rejected rows and repeated game_ids are found here, in passes over the files). None:
            always in memory.

    Returns:
        Canonical rows, rejected rows and the files read.

    Raises:
        InputMissingError: a file is missing or unreadable.
        InputDataError: a file lacks the columns of both shapes, or cannot be parsed at all.
    """
    found = _expand(paths, exclude)
    stream = chunk_rows is not None and sum(_rows_to_stream(source) for source in found) > chunk_rows
    plans: list[tuple[pl.LazyFrame, pl.LazyFrame]] = []  # canonical rows, rejected rows
    checked: list[tuple[pl.DataFrame, pl.DataFrame]] = []
    files: list[InputFile] = []
    absent: set[str] | None = None
    absent_by_file: list[set[str]] = []
    offset = 0
    streamed_bad: list[pl.DataFrame] = []
    event_rows: list[pl.DataFrame] = []
    for source in found:
        frame: pl.DataFrame | pl.LazyFrame
        if stream:  # the plans read what they use
            if isinstance(source, FrameInput):
                frame, info = read_frame(source, trim=False, lazy=True)
            else:
                frame, info = scan_table(source, encoding=encoding, trim=False)
        elif isinstance(source, FrameInput):  # the game columns only, chosen before the frame is converted
            frame, info = read_frame(source, trim=False, columns=_GAME_COLUMNS)
        else:  # the game columns only: a column nobody uses is never read
            frame, info = read_table(source, encoding=encoding, trim=False, columns=_GAME_COLUMNS)
        files.append(_note_ignored_columns(info))  # text trimmed by the checks, where needed
        trimmed = info.encoding not in ("parquet", "frame")
        with reading(info.path):  # a panic or a damaged page of this file: an error naming it
            good, bad, missing = _check_file(frame, info.path, fractional_ratings, trimmed=trimmed, header=info.header)
            good = good.with_columns((pl.col("row_key") + offset).alias("row_key"))
            good, attributes = _split_event_rows(good)
            if stream:  # the rejected rows now, a pass over the file that decodes its rows
                plans.append((good, bad))
                streamed_bad.append(bad.collect(engine="streaming"))
                event_rows += [attributes.collect(engine="streaming")] if attributes is not None else []
            else:  # check the file now, and let its raw rows go
                good_rows, bad_rows, *attribute_rows = pl.collect_all(
                    [good, bad, *([] if attributes is None else [attributes])]
                )
                if bad_rows.height and not set(info.columns) <= set(frame.columns):  # columns not read: whole rows
                    bad_rows = _whole_raw(bad_rows, source, encoding)
                checked.append((good_rows, bad_rows))
                event_rows += attribute_rows
        absent = missing if absent is None else absent & missing
        absent_by_file.append(missing)
        offset += info.rows
    # Integer ids stay integers only when every file has them; else all are text, as CSV gives them.
    # The same for game_ids, among the files that have them; without any game_id, they take the type
    # of the player ids (integer Parquet inputs give integer outputs, whatever the month's files).
    schemas = [good.collect_schema() for good, _ in plans] if stream else [good.schema for good, _ in checked]
    integer_ids = all(schema[c.WHITE_ID] == pl.Int64 for schema in schemas)
    has_game_ids = [c.GAME_ID not in missing for missing in absent_by_file]
    integer_games = all(
        schema[c.GAME_ID] == pl.Int64 for schema, has in zip(schemas, has_game_ids, strict=True) if has
    ) and (any(has_game_ids) or integer_ids)
    id_types = [
        pl.col(c.WHITE_ID, c.BLACK_ID).cast(pl.Int64 if integer_ids else pl.String),
        pl.col(c.GAME_ID).cast(pl.Int64 if integer_games else pl.String),
    ]
    rows: pl.DataFrame | pl.LazyFrame
    if stream:
        rows = pl.concat([good.with_columns(id_types) for good, _ in plans])
        bad_rows = pl.concat(streamed_bad)
    else:
        rows = (
            pl.concat([good.with_columns(id_types) for good, _ in checked])
            if checked
            else pl.DataFrame(schema=CANONICAL_SCHEMA)
        )
        bad_rows = pl.concat([bad for _, bad in checked]) if checked else pl.DataFrame(schema=REJECTED_SCHEMA)
    rows, reused, period_rows = _mark_duplicates(rows)
    return GamesInput(
        rows,
        pl.concat([bad_rows, reused]).sort(c.SOURCE_FILE, c.SOURCE_ROW, maintain_order=True)
        if reused.height
        else bad_rows,
        tuple(files),
        period_rows,
        frozenset(absent or ()),
        pl.concat(event_rows) if event_rows else None,
    )


def _split_event_rows(good: pl.LazyFrame) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:
    """A file's checked rows without their event columns, and those columns (``EVENT_ROWS_SCHEMA``) of
    the rows that give any (None when the file has none)."""
    extras = [name for name in good.collect_schema().names() if name.startswith(_EVENT_ROW)]
    if not extras:
        return good, None
    attributes = (
        good.select("row_key", c.EVENT_ID, *extras)
        .rename({name: name.removeprefix(_EVENT_ROW) for name in extras})
        .filter(pl.col(c.EVENT_ID).is_not_null() & pl.any_horizontal(pl.col(list(EVENT_ROWS_SCHEMA)[2:]).is_not_null()))
        .cast(EVENT_ROWS_SCHEMA)  # type: ignore[arg-type]
    )
    return good.drop(extras), attributes


def _expand(paths: Sequence[str | FrameInput], exclude: tuple[str, ...]) -> list[str | FrameInput]:
    """Files named by paths, globs or folders (see ``expand_paths``), frames in their places."""
    if all(isinstance(path, str) for path in paths):
        return list(expand_paths([path for path in paths if isinstance(path, str)], exclude=exclude))
    found: list[str | FrameInput] = []
    for path in paths:
        found.extend([path] if isinstance(path, FrameInput) else expand_paths([path], exclude=exclude))
    return found


def _rows_to_stream(source: str | FrameInput) -> int:
    """Rows that count towards streaming: a Parquet file's or a LazyFrame's (frames and CSV files in
    memory count 0)."""
    if isinstance(source, FrameInput):
        return frame_rows(source) if isinstance(source.data, pl.LazyFrame) else 0
    return _parquet_rows(source)


def _note_ignored_columns(info: InputFile) -> InputFile:
    """``info`` with a note for each column of the file named like a column elo-batch itself writes
    from every games row (``source_file``, ``source_row``): ignored, as every column the contract does
    not name, but said, since the outputs hold elo-batch's own values under that name."""
    held = info.columns
    notes = [
        f"{info.path}: column {name} is ignored: the audit and rejected rows hold elo-batch's own {name} "
        + ("(the file's path)" if name == c.SOURCE_FILE else "(the row's number in the file)")
        for name in READER_COLUMNS
        if escape(name) in held
    ]
    return dataclasses.replace(info, notes=(*info.notes, *notes)) if notes else info


def _parquet_rows(path: str) -> int:
    """Rows of a Parquet file from its footer (0 for anything else; errors are reported when it is read)."""
    if not path.lower().endswith(PARQUET_SUFFIXES):
        return 0
    try:
        return int(pl.scan_parquet(path).select(pl.len()).collect().item())
    except PARQUET_ERRORS:  # not Parquet after all, or damaged (a panic too): read_table says what is wrong
        return 0


def _whole_raw(rejected: pl.DataFrame, source: str | FrameInput, encoding: str | None) -> pl.DataFrame:
    """Rejected rows of a file (or frame) read for some columns only, with ``raw`` made from every column."""
    whole = read_rows(source, rejected[c.SOURCE_ROW], encoding=encoding)  # trimmed, as the checks trim
    raw = whole.select(c.SOURCE_ROW, _raw(whole.schema, [n for n in whole.columns if n != c.SOURCE_ROW]))
    return rejected.drop(c.RAW).join(raw, on=c.SOURCE_ROW, how="left", maintain_order="left").select(rejected.columns)


def _raw(schema: pl.Schema, columns: list[str]) -> pl.Expr:
    """The ``raw`` of rejected rows: the input row as a JSON object of its values as text (see
    :func:`elo_batch.inputs.cells.cell_text`), under the file's own (unescaped) names."""
    return (
        pl.struct([cell_text(schema, name).alias(unescape(name)) for name in columns]).struct.json_encode().alias(c.RAW)
    )


def _check_file(
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
    col = _ColumnReader(schema)
    white, black = (c.PLAYER_ID, c.OPPONENT_ID) if one_sided else (c.WHITE_ID, c.BLACK_ID)
    white_rating, black_rating = (c.PLAYER_RATING, c.OPPONENT_RATING) if one_sided else (c.WHITE_RATING, c.BLACK_RATING)
    integers = all(schema[name] in INTEGER_IDS for name in (white, black) if name in names)
    score_col = c.RESULT if (c.RESULT in names) or not one_sided else c.SCORE
    tokens = {**SCORES, **ONE_SIDED_FORFEITS} if one_sided else {**RESULTS, **FORFEITS}
    forfeit_tokens = ONE_SIDED_FORFEITS if one_sided else FORFEITS
    text_columns = [name for name, dtype in schema.items() if dtype == pl.String]
    text_ratings = [name for name in (white_rating, black_rating) if name in text_columns]
    few = _ByValue(table, [score_col, c.DATE, c.PERIOD, *text_ratings])
    token = few.shared(col.text(score_col).str.replace_all(r"\s+", ""), "__token")  # the result without whitespace
    date_value, date_bad = col.date(c.DATE)
    date = few(date_value)
    given_period = col.text(c.PERIOD)
    event_cells = {name: attribute(schema, name) for name in c.EVENT_COLUMNS}
    event_order = ends_before_start(event_cells[c.EVENT_START].value, event_cells[c.EVENT_END].value)
    candidates: list[_Check | None] = [
        _Check(None, pl.col(RAGGED).is_not_null(), pl.col(RAGGED)) if RAGGED in names else None,
        _Check(white, col.missing(white), pl.lit(f"missing {white}")),
        _Check(black, col.missing(black), pl.lit(f"missing {black}")) if not one_sided else None,
        *[_Check(name, col.inexact_id(name), _inexact_reason(col.text(name))) for name in (white, black, c.GAME_ID)],
        _Check(black, col.same_text(white, black), pl.lit("a player cannot play themselves")),
        _Check(score_col, few(col.missing(score_col)), pl.lit(f"missing {score_col}")),
        _Check(
            score_col,
            few(~token.is_in(list(tokens))),
            pl.format(
                "{} is not a "
                + ("score" if one_sided else "result")
                + ". Hint: "
                + (SCORE_HINT if one_sided else RESULT_HINT),
                _quoted(col.text(score_col)),
            ),
        ),
        _Check(
            c.PERIOD,
            few(given_period.is_not_null() & ~given_period.str.contains(PERIOD_PATTERN)),
            pl.format("{} is not a period. Hint: use YYYY-MM.", _quoted(given_period)),
        ),
        _Check(
            c.DATE,
            few(date_bad),
            pl.format(
                "date {} is out of range. Hint: expected a date from 0000-01-01 to 9999-12-31."
                if is_date_type(schema.get(c.DATE, pl.String()))
                else "{} is not a date. Hint: use an ISO date YYYY-MM-DD (a time may follow).",
                _quoted(col.text(c.DATE)),
            ),
        ),
        _Check(
            c.DATE if c.DATE in names else c.PERIOD,
            few(given_period.is_null()) & date.is_null(),
            pl.lit("no date and no period"),
        ),
        *[_Check(ch.column, few(ch.bad), ch.reason) for ch in col.rating_checks(white_rating, fractional)],
        *[_Check(ch.column, few(ch.bad), ch.reason) for ch in col.rating_checks(black_rating, fractional)],
        *[_Check(name, cell.problem.is_not_null(), cell.problem) for name, cell in event_cells.items()],
        _Check(c.EVENT_END, event_order.is_not_null(), event_order),
    ]
    checks = [check for check in candidates if check is not None and (check.column is None or check.column in names)]
    period = pl.coalesce(
        few(pl.when(given_period.str.contains(PERIOD_PATTERN)).then(given_period)),
        few(date_value.dt.strftime("%Y-%m")),
    )
    white_value, black_value = few(col.rating(white_rating)), few(col.rating(black_rating))
    # Text as written (Parquet read untrimmed) is trimmed here where no lookup reads it.
    untrimmed = [] if trimmed else [n for n in text_columns if n not in few.values and n != c.SOURCE_FILE]
    # Each check runs once per row (or once per distinct value, see _ByValue); the index of the first
    # one failed is kept, and the messages are made for the failing rows only. The score is worked out
    # beside the checks, so that a row's result text is cleaned once.
    flagged = (
        table.lazy()
        .with_row_index("__row_key")  # working columns beside the user's: all named __ (elo_batch.inputs.names)
        .with_columns(pl.col("__row_key").cast(pl.Int64), *few.indices())
        .rename(few.hidden())
        .with_columns(pl.col(untrimmed).str.strip_chars())
        .with_columns(few.computed)
        .with_columns(
            _first_failed(checks).alias("__failed"),
            few(token.replace_strict(tokens, default=None, return_dtype=pl.Int16)).alias("__score100"),
            few(token.is_in(list(forfeit_tokens))).alias("__forfeit"),
        )
    )
    original = [name for name in schema.names() if name not in (c.SOURCE_FILE, c.SOURCE_ROW, RAGGED)]
    bad = (
        flagged.filter(pl.col("__failed").is_not_null())
        .with_columns(few.restore())
        .select(
            period.alias(c.PERIOD),
            pl.col(c.SOURCE_FILE),
            pl.col(c.SOURCE_ROW),
            _of_failed(checks, lambda ch: pl.lit(ch.column)).alias(c.COLUMN),
            _of_failed(checks, lambda ch: col.text(ch.column) if ch.column in names else pl.lit(None, pl.String)).alias(
                c.VALUE
            ),
            _of_failed(checks, lambda ch: ch.reason).alias(c.REASON),
            _raw(schema, original),
        )
    )
    good = flagged.filter(pl.col("__failed").is_null()).select(
        pl.col("__row_key").alias("row_key"),
        pl.col(c.SOURCE_FILE),
        pl.col(c.SOURCE_ROW),
        pl.lit(one_sided).alias("one_sided"),
        (pl.col(c.GAME_ID) if schema.get(c.GAME_ID) in INTEGER_IDS else col.text(c.GAME_ID)).alias(c.GAME_ID),
        period.alias(c.PERIOD),
        date.alias(c.DATE),
        col.text(c.EVENT_ID).alias(c.EVENT_ID),
        col.text(c.ROUND).alias(c.ROUND),
        col.player(white, integers).alias(c.WHITE_ID),
        col.player(black, integers).alias(c.BLACK_ID),
        pl.col("__score100").alias("score100"),
        pl.col("__forfeit").alias("forfeit"),
        white_value.alias(c.WHITE_RATING),
        black_value.alias(c.BLACK_RATING),
        pl.lit(False).alias("duplicate"),
        *(  # split off by load_games (_split_event_rows)
            [
                *[cell.value.alias(_EVENT_ROW + name) for name, cell in event_cells.items()],
                few(given_period).alias(_EVENT_ROW + c.PERIOD),
            ]
            if c.EVENT_ID in names and names & {*c.EVENT_COLUMNS, c.PERIOD}
            else []
        ),
    )
    sources = {
        c.GAME_ID: c.GAME_ID, c.EVENT_ID: c.EVENT_ID, c.ROUND: c.ROUND,
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


class _ByValue:
    """Expressions of one column, worked out once per distinct value of the column and looked up per row.

    Results, dates, periods and ratings written as text take few values (three results, thirty dates
    in a month): their checks and conversions (trimming, regular expressions, date parsing) then run
    on those values only, and each row gathers its answers by the index of its value. The rows keep
    such a text column under another name (:meth:`hidden`), so that nothing reads its untrimmed text
    per row; :meth:`restore` gives it back, trimmed, to the rows that need it (rejected rows).

    A streamed file is read for this once more, the named columns only, before the rows are checked.

    Anything else runs per row, with the same answers: an expression of several columns or of none,
    a column not named, a column of floats (0.0 and -0.0 are one value to polars, not to every
    expression) or of many values.
    """

    #: Most distinct values a column may have for its answers to be looked up; up to half the rows of
    #: a file in memory too.
    MAX_VALUES = 1000

    def __init__(self, table: pl.DataFrame | pl.LazyFrame, names: list[str]) -> None:
        self.values: dict[str, pl.Series] = {}  # the distinct values of the columns looked up
        self.index: dict[str, pl.Expr] = {}  # each row's value index (UInt32) in those columns
        self.computed: list[pl.Expr] = []  # shared expressions worked out per row
        schema = table.collect_schema()
        wanted = [name for name in names if name in schema and not schema[name].is_float()]
        if isinstance(table, pl.DataFrame):
            limit = max(self.MAX_VALUES, table.height // 2)
        elif wanted:  # a streamed file: a first pass estimates the number of values, in little memory
            limit = self.MAX_VALUES
            estimates = table.select(pl.col(wanted).approx_n_unique()).collect(engine="streaming").row(0)
            wanted = [name for name, estimate in zip(wanted, estimates, strict=True) if estimate <= 2 * limit]
        for name in wanted:
            self._look_up(table.lazy().select(name), schema[name], limit)

    def _look_up(self, column: pl.LazyFrame, dtype: pl.DataType, limit: int) -> None:
        """Keep the column's distinct values (null among them) and the expression of each row's index
        in them, unless it has more than ``limit`` values."""
        [name] = column.collect_schema().names()
        if dtype == pl.Date:  # every day from the first to the last: the day number is the index
            days = pl.col(name).to_physical()
            first, last = column.select(days.min(), days.max().alias("last")).collect(engine="streaming").row(0)
            low, high = DATE_RANGE  # days out of it are no dates (and the day after 2^31 - 1 is no Int32)
            if (
                isinstance(first, int)
                and isinstance(last, int)
                and last - first < limit
                and low <= first <= last <= high
            ):
                every_day = pl.int_range(first, last + 1, dtype=pl.Int32, eager=True).cast(pl.Date)
                self.values[name] = pl.concat([every_day, pl.Series([None], dtype=pl.Date)]).alias(name)
                self.index[name] = (days - first).cast(pl.UInt32).fill_null(last - first + 1)
                return
        values = column.unique().collect(engine="streaming").to_series()
        if values.len() > limit:
            return
        if dtype == pl.String:  # an Enum of the texts: a faster index than a lookup of each text
            texts = values.drop_nulls()
            self.values[name] = pl.concat([texts, pl.Series([None], dtype=pl.String)])
            self.index[name] = pl.col(name).cast(pl.Enum(texts)).to_physical().cast(pl.UInt32).fill_null(texts.len())
        else:
            self.values[name] = values
            self.index[name] = pl.col(name).replace_strict(values, pl.int_range(values.len(), dtype=pl.UInt32))

    def __call__(self, expr: pl.Expr) -> pl.Expr:
        """``expr``, or the lookup of its answer (same name and type) by the index of each row's value;
        the expression sees the values trimmed."""
        roots = set(expr.meta.root_names())
        if len(roots) != 1 or not roots <= self.values.keys():
            return expr
        [name] = roots
        if expr.meta.is_column() and name not in self.hidden():
            return expr  # the rows have the column as it is
        values = self.values[name]
        answers = (values.str.strip_chars() if values.dtype == pl.String else values).to_frame().select(expr)
        return pl.lit(answers.to_series()).gather(pl.col(self._index(name)))

    def shared(self, expr: pl.Expr, name: str) -> pl.Expr:
        """``expr``, which several expressions use: as it is when its column's values are looked up, else
        a column ``name`` worked out once per row (polars does not share it between expressions)."""
        roots = set(expr.meta.root_names())
        if len(roots) == 1 and roots <= self.values.keys():
            return expr
        self.computed.append(expr.alias(name))
        return pl.col(name)

    def indices(self) -> list[pl.Expr]:
        """Each row's value index (UInt32) in the columns looked up: add them to the rows first."""
        return [index.alias(self._index(name)) for name, index in self.index.items()]

    def hidden(self) -> dict[str, str]:
        """New names of the text columns looked up, whose text may be untrimmed (rename the rows'
        columns after :meth:`indices`)."""
        return {name: f"__raw_{name}" for name, values in self.values.items() if values.dtype == pl.String}

    def restore(self) -> list[pl.Expr]:
        """The hidden columns, trimmed, under their own names."""
        return [pl.col(raw).str.strip_chars().alias(name) for name, raw in self.hidden().items()]

    @staticmethod
    def _index(name: str) -> str:
        return f"__index_{name}"


def _first_failed(checks: list[_Check]) -> pl.Expr:
    """The index of the first check a row fails (UInt16), null when it passes them all."""
    expr: Any = pl.when(checks[0].bad).then(0)
    for index, check in enumerate(checks[1:], start=1):
        expr = expr.when(check.bad).then(index)
    return expr.otherwise(None).cast(pl.UInt16)


def _of_failed(checks: list[_Check], pick: Callable[[_Check], pl.Expr]) -> pl.Expr:
    """``pick`` of the check each row failed first (``__failed``), as text."""
    expr: Any = pl.when(pl.col("__failed") == 0).then(pick(checks[0]))
    for index, check in enumerate(checks[1:], start=1):
        expr = expr.when(pl.col("__failed") == index).then(pick(check))
    return expr.otherwise(None).cast(pl.String)


def _inexact_reason(text: pl.Expr) -> pl.Expr:
    return pl.format(
        "{} is not an id: the column holds numbers with decimals (floats are exact ids only for whole numbers "
        "below 2^53). Hint: store ids as integers or as text.",
        _quoted(text),
    )


def _quoted(expr: pl.Expr) -> pl.Expr:
    return pl.format("'{}'", expr)


class _ColumnReader:
    """Typed views of a raw column, whatever its source type (CSV text or a Parquet type)."""

    def __init__(self, schema: pl.Schema) -> None:
        self.schema = schema

    def text(self, name: str) -> pl.Expr:
        """The column as trimmed text (see :func:`text_column`)."""
        return text_column(self.schema, name)

    def player(self, name: str, integers: bool) -> pl.Expr:
        """A player id column as text (:meth:`text`), or as Int64 with ``integers`` (an integer column,
        or absent)."""
        return (pl.col(name) if name in self.schema else pl.lit(None)).cast(pl.Int64) if integers else self.text(name)

    def missing(self, name: str) -> pl.Expr:
        """``text(name).is_null()``, without making the text of typed columns."""
        dtype = self.schema.get(name)
        if dtype is None or dtype == pl.String:
            return self.text(name).is_null()
        if dtype.is_float():  # NaN is missing too (see text_column)
            return pl.col(name).is_null() | pl.col(name).is_nan()
        return pl.col(name).is_null()

    def inexact_id(self, name: str) -> pl.Expr:
        """True where an id column of floats or decimals holds no exact whole number (see
        :func:`elo_batch.inputs.cells.inexact_number`)."""
        return inexact_number(self.schema, name)

    def same_text(self, left: str, right: str) -> pl.Expr:
        """``text(left) == text(right)``; integer columns compare as integers (the same answer)."""
        types = self.schema.get(left), self.schema.get(right)
        if all(dtype is not None and dtype.is_integer() for dtype in types):
            return pl.col(left) == pl.col(right)
        return self.text(left) == self.text(right)

    def date(self, name: str) -> tuple[pl.Expr, pl.Expr]:
        """(local date as written, row is not a date) for a date or date-time column; a Date or Datetime
        value outside the years 0000-9999 is not a date (:data:`elo_batch.inputs.cells.DATE_RANGE`)."""
        dtype = self.schema.get(name)
        if dtype is None:
            return pl.lit(None, pl.Date), pl.lit(False)
        expr = pl.col(name)
        if is_date_type(dtype):
            in_range = in_date_range(expr, dtype)
            kept: pl.Expr = pl.when(in_range).then(expr)  # out-of-range values never reach a date operation
            return (kept if dtype == pl.Date else kept.dt.date()), expr.is_not_null() & ~in_range
        text = self.text(name)
        value = text.str.slice(0, 10).str.strptime(pl.Date, "%Y-%m-%d", strict=False)
        rest_ok = text.str.slice(10).str.contains(f"^([T ]{_CLOCK}{_SECONDS}?\\s*(Z|[+-]{_OFFSET})?)?$")
        well_formed = text.str.contains(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}")
        bad = text.is_not_null() & (value.is_null() | ~rest_ok | ~well_formed)
        return pl.when(~bad).then(value), bad

    def rating(self, name: str) -> pl.Expr:
        """The column as rating points (Float64), null when absent, empty or 0: a rating of 0 is "no
        rating", as pairing programs export it and as TRF and PGN files write it."""
        dtype = self.schema.get(name)
        if dtype is None:
            return pl.lit(None, pl.Float64)
        if dtype == pl.String:
            value = self.text(name).cast(pl.Float64, strict=False)
        else:
            value = pl.col(name).cast(pl.Float64, strict=False).fill_nan(None)  # NaN: pandas' missing value
        return pl.when(value != 0).then(value)

    def rating_checks(self, name: str, fractional: bool) -> list[_Check]:
        """Checks of a rating column: a number, whole unless ``fractional``, within ``RATING_RANGE``; 0 is no
        rating (see :meth:`rating`)."""
        dtype = self.schema.get(name)
        if dtype is None:
            return []
        text, value = self.text(name), self.rating(name)
        checks = []
        if dtype == pl.String:
            checks.append(
                _Check(
                    name,
                    text.str.contains(THOUSANDS_SEPARATED),
                    pl.format(
                        "{} is not a rating: " + THOUSANDS_REASON + ". Hint: write ratings as plain digits (2000).",
                        _quoted(text),
                    ),
                )
            )
            pattern = DECIMAL_NUMBER if fractional else WHOLE_NUMBER
            checks.append(
                _Check(
                    name,
                    text.is_not_null() & ~text.str.contains(pattern),
                    pl.format(
                        "{} is not a rating. Hint: "
                        + (
                            "a number of rating points."
                            if fractional
                            else "a whole number of rating points (ratings are integers)."
                        ),
                        _quoted(text),
                    ),
                )
            )
        elif not dtype.is_numeric():
            checks.append(
                _Check(
                    name, pl.col(name).is_not_null(), pl.lit(f"a rating must be a number, the column type is {dtype}")
                )
            )
        else:
            checks.append(
                _Check(
                    name,
                    value.is_not_null() & ~value.is_finite(),
                    pl.format("{} is not a rating. Hint: a number of rating points.", _quoted(text)),
                )
            )
        if dtype.is_numeric() and not fractional:
            checks.append(
                _Check(
                    name,
                    value.is_not_null() & (value != value.round(0)),
                    pl.format("{} is not a whole number. Hint: ratings are integers.", _quoted(text)),
                )
            )
        checks.append(
            _Check(
                name,
                value.is_not_null() & rating_out_of_range(value),
                pl.format(f"rating {{}} is out of range. Hint: expected {RATING_RANGE} (0 or empty: no rating).", text),
            )
        )
        return checks


def _mark_duplicates(
    rows: pl.DataFrame | pl.LazyFrame,
) -> tuple[pl.DataFrame | pl.LazyFrame, pl.DataFrame, dict[str, int]]:
    """Flag exact repeats of a game_id and reject game_ids reused with different content; count the
    rows kept by period.

    Only rows whose game_id occurs more than once are compared, content against content; all game_ids
    distinct (the usual case) is seen from the ids alone (integers) or their 64-bit hashes (text), in
    the same pass as the counts.
    """
    engine: Literal["in-memory", "streaming"] = "in-memory" if isinstance(rows, pl.DataFrame) else "streaming"
    plan = rows.lazy()
    game_id = pl.col(c.GAME_ID)
    key = game_id if plan.collect_schema()[c.GAME_ID].is_integer() else game_id.hash()
    seen, by_period = pl.collect_all(
        [plan.select(pl.when(game_id.is_not_null()).then(key).alias("__key")), plan.group_by(c.PERIOD).len()],
        engine=engine,
    )
    period_rows = collections.Counter(dict(by_period.iter_rows()))
    keys = seen["__key"].drop_nulls()
    if keys.n_unique() == keys.len():  # distinct keys: distinct game_ids
        return rows, pl.DataFrame(schema=REJECTED_SCHEMA), dict(period_rows)
    repeated = keys.filter(keys.is_duplicated()).unique()
    candidates = plan.filter(game_id.is_not_null() & key.is_in(repeated.implode()))
    flagged, reused = _compare_repeats(candidates.collect(engine=engine))
    period_rows.subtract(_by_period(flagged.filter("__conflict")))
    marked = plan.with_columns(
        pl.col("row_key").is_in(flagged.filter("duplicate")["row_key"].implode()).alias("duplicate")
    ).filter(~pl.col("row_key").is_in(flagged.filter("__conflict")["row_key"].implode()))
    return (marked.collect() if engine == "in-memory" else marked), reused, dict(period_rows)


def _by_period(rows: pl.DataFrame) -> dict[str, int]:
    return dict(rows.group_by(c.PERIOD).len().iter_rows())  # type: ignore[arg-type]


def _compare_repeats(rows: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``duplicate`` and ``__conflict`` of rows whose game_ids repeat, and the rejected conflicting rows."""
    content = [name for name in CANONICAL_SCHEMA if name not in ("row_key", c.SOURCE_FILE, c.SOURCE_ROW, "duplicate")]
    has_id = pl.col(c.GAME_ID).is_not_null()
    flagged = rows.with_columns(
        (has_id & (pl.struct(content).n_unique().over(c.GAME_ID) > 1)).alias("__conflict"),
        (has_id & ~pl.struct(content).is_first_distinct()).alias("duplicate"),
    )
    conflict = flagged.filter("__conflict")
    if conflict.height == 0:
        return flagged, pl.DataFrame(schema=REJECTED_SCHEMA)
    row = pl.format("row {}", c.SOURCE_ROW)
    place = pl.when(pl.col(c.SOURCE_FILE).is_null()).then(row).otherwise(pl.format("{} {}", c.SOURCE_FILE, row))
    where = conflict.group_by(c.GAME_ID, maintain_order=True).agg(place.str.join(", ").alias("__where"))
    reused = conflict.join(where, on=c.GAME_ID, how="left", maintain_order="left").select(
        pl.col(c.PERIOD),
        pl.col(c.SOURCE_FILE),
        pl.col(c.SOURCE_ROW),
        pl.lit(c.GAME_ID).alias(c.COLUMN),
        pl.col(c.GAME_ID).alias(c.VALUE),
        pl.format(
            "game_id '{}' is used by rows with different content ({}). Hint: give each game its own game_id.",
            c.GAME_ID,
            "__where",
        ).alias(c.REASON),
        pl.struct(content)
        .struct.with_fields(*(pl.field(name).cast(pl.String) for name in (c.WHITE_ID, c.BLACK_ID, c.GAME_ID)))
        .struct.json_encode()
        .alias(c.RAW),  # ids as text, as a CSV file gives them
    )
    return flagged, reused.cast(REJECTED_SCHEMA)  # type: ignore[arg-type]


def _spelled(frame: pl.DataFrame, header: tuple[str, ...], path: str) -> dict[str, str]:
    """The file's own columns, read or not: held name -> the name as the file spells it (``header``, in
    order); without a header, the table's columns, as held, unescaped."""
    if header:
        return dict(zip(held_names(header, path), header, strict=True))
    own = [n for n in frame.columns if n not in (c.SOURCE_FILE, c.SOURCE_ROW, RAGGED)]
    return {n: unescape(n) for n in own}


def _unused(spelled: dict[str, str]) -> list[str]:
    """The spellings of the columns that are not columns of the contract (candidates for a hint)."""
    return [written for held, written in spelled.items() if held not in _GAME_COLUMNS]


def _listing(spelled: dict[str, str]) -> str:
    return "columns " + ", ".join(spelled.values()) if spelled else "no columns"


def check_types(schema: pl.Schema, path: str, names: tuple[str, ...] | list[str] = _GAME_COLUMNS) -> None:
    """Refuse a column of ``names`` (default: the games columns) of a nested or binary type (a Parquet
    file of another shape), naming it.

    Raises:
        InputDataError: such a column.
    """
    for name, dtype in schema.items():
        if name in names and isinstance(dtype, _NESTED):
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
