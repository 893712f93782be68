"""Reading and checking an events file (one row per ``event_id``, CSV or Parquet); no rating rules.

A problem in it stops the run (exit 65), as one in the rating list does: an event's attributes decide how
every game of it is rated, so a guessed value would rate a whole event wrong. Columns besides the
event's attributes (its name, site) are ignored.
"""

from __future__ import annotations

from typing import Any, Final

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.contract.schemas import EVENT_ATTRIBUTE_TYPES, PERIOD_PATTERN
from elo_batch.contract.tables import InputFile
from elo_batch.errors import InputDataError
from elo_batch.inputs.cells import SHOWN_ROWS, cell_text, rows_not_valid, text_column
from elo_batch.inputs.checkfile import check_types
from elo_batch.inputs.eventcells import Cell, attribute, ends_before_start
from elo_batch.inputs.readers import FrameInput, read_frame, read_table

#: An event as the run holds it: the attributes (null where not given) and the event's own period.
EVENTS_SCHEMA: Final[dict[str, pl.DataType]] = {c.EVENT_ID: pl.String(), **EVENT_ATTRIBUTE_TYPES, c.PERIOD: pl.String()}
#: Bad rows shown in the message, when there are several.
_HINT: Final = "fix the events file; nothing was rated."


def load_events(source: str | FrameInput, *, encoding: str | None = None) -> tuple[pl.DataFrame, InputFile]:
    """Read and check an events file.

    Args:
        source: A CSV or Parquet file, or a frame in memory (read as a file of its columns would be).
        encoding: Force the CSV text encoding.

    Returns:
        One row per event, columns :data:`EVENTS_SCHEMA` (an exact repeat of a row counts once), and
        what the manifest records about the file.

    Raises:
        InputMissingError: the file is missing or unreadable.
        InputDataError: no ``event_id`` column, a bad value (the message names the file, row, column
            and value), or one event_id on two rows with different attributes.
    """
    frame, info, path = _read(source, encoding=encoding)
    if c.EVENT_ID not in frame.columns:
        raise InputDataError(
            "missing column event_id; the events file has "
            + (", ".join(n for n in info.header) if info.header else "no columns"),
            path=path,
            hint="an events file has one row per event: event_id, and any of event_type, match_games, "
            "rate_all_games, event_start, event_end, period.",
        )
    check_types(frame.schema, path, list(EVENTS_SCHEMA))
    schema = frame.schema
    cells = {name: attribute(schema, name) for name in EVENT_ATTRIBUTE_TYPES}
    period = text_column(schema, c.PERIOD).str.strip_chars()
    _refuse_bad_rows(frame, path, _checks(frame, cells, period))
    events = frame.select(
        text_column(schema, c.EVENT_ID).str.strip_chars().alias(c.EVENT_ID),
        *[cell.value.alias(name) for name, cell in cells.items()],
        pl.when(period.str.contains(PERIOD_PATTERN)).then(period).alias(c.PERIOD),
        pl.col(c.SOURCE_ROW),
    )
    return _one_row_per_event(events, path), info


def _read(source: str | FrameInput, *, encoding: str | None) -> tuple[pl.DataFrame, InputFile, str]:
    """The events file (or frame) read: its rows, what the manifest records of it, what messages name."""
    if isinstance(source, FrameInput):
        frame, info = read_frame(source)
        assert isinstance(frame, pl.DataFrame)
        return frame, info, source.where
    frame, info = read_table(source, encoding=encoding)
    return frame, info, source


def _checks(frame: pl.DataFrame, cells: dict[str, Cell], period: pl.Expr) -> list[tuple[str | None, pl.Expr]]:
    """The checks of an events row, in order: (the column, the reason where a row fails it, else null)."""
    return [
        (None, pl.col(w.RAGGED) if w.RAGGED in frame.columns else pl.lit(None, pl.String)),
        (c.EVENT_ID, pl.when(text_column(frame.schema, c.EVENT_ID).is_null()).then(pl.lit("an event_id is required"))),
        *[(name, cell.problem) for name, cell in cells.items()],
        (
            c.PERIOD,
            pl.when(period.is_not_null() & ~period.str.contains(PERIOD_PATTERN)).then(
                pl.format("'{}' is not a period. Hint: use YYYY-MM.", period)
            ),
        ),
        (c.EVENT_END, ends_before_start(cells[c.EVENT_START].value, cells[c.EVENT_END].value)),
    ]


def _refuse_bad_rows(frame: pl.DataFrame, path: str, checks: list[tuple[str | None, pl.Expr]]) -> None:
    """Raise for the rows that fail a check (each row's first), the first :data:`SHOWN_ROWS` shown."""
    hits = _failed(frame, checks)
    if not hits.height:
        return
    lines = []
    for row, index, text in hits.select(c.SOURCE_ROW, w.FAILED, w.FAILED_REASON).head(SHOWN_ROWS).iter_rows():
        column = checks[index][0]
        message, _, hint = str(text).partition(" Hint: ")
        if hits.height == 1:
            value = hits.select(cell_text(frame.schema, column)).item() if column else None
            raise InputDataError(message, path=path, row=row, column=column, value=value, hint=hint or _HINT)
        lines.append(f"row {row}{f', column {column}' if column else ''}: {message}")
    raise rows_not_valid("the events file", hits.height, lines, path=path, hint=_HINT)


def _failed(frame: pl.DataFrame, checks: list[tuple[str | None, pl.Expr]]) -> pl.DataFrame:
    """The rows that fail a check, with the index of the first (:data:`~elo_batch.working.FAILED`) and its reason."""
    first: Any = pl.when(checks[0][1].is_not_null()).then(0)
    for index, (_, problem) in enumerate(checks[1:], start=1):
        first = first.when(problem.is_not_null()).then(index)
    reason: Any = pl.when(pl.col(w.FAILED) == 0).then(checks[0][1])
    for index, (_, problem) in enumerate(checks[1:], start=1):
        reason = reason.when(pl.col(w.FAILED) == index).then(problem)
    return (
        frame.with_columns(first.otherwise(None).alias(w.FAILED))
        .filter(pl.col(w.FAILED).is_not_null())
        .with_columns(reason.alias(w.FAILED_REASON))
    )


def _one_row_per_event(events: pl.DataFrame, path: str) -> pl.DataFrame:
    content = list(EVENTS_SCHEMA)
    unique = events.unique(subset=content, keep="first", maintain_order=True)
    clash = unique.filter(pl.col(c.EVENT_ID).is_duplicated())
    if clash.height:
        event = clash[c.EVENT_ID][0]
        rows = ", ".join(str(row) for row in clash.filter(pl.col(c.EVENT_ID) == event)[c.SOURCE_ROW])
        raise InputDataError(
            f"event {event!r} is on rows {rows} with different attributes",
            path=path,
            column=c.EVENT_ID,
            value=event,
            hint="keep one row per event in the events file.",
        )
    return unique.select(content).cast(EVENTS_SCHEMA)  # type: ignore[arg-type]
