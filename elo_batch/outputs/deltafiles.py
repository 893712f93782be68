"""One commit of a Delta Lake table: a period's rows written as Parquet files by polars, then committed by
deltalake (delta-rs) in one transaction; types mapped and the schema merged. No manifest, no repair
(:mod:`elo_batch.outputs.delta`), no rating rules.

Why not ``deltalake.write_deltalake``: fed a stream, delta-rs 1.6 holds the whole input in memory
before its files are done (measured: 12M audit rows, +1.1 GB), and writes the stream's batches in
parallel, out of order. polars' streaming ``sink_parquet`` writes the period's file in bounded memory and in
order, the same way the hive writer does; delta-rs then commits the file
(``create_write_transaction(mode="overwrite", partition_filters=[("period", "=", P)])``: the period's
old files are removed and the new one added in one commit, which is Delta's ``replaceWhere`` on the
partition column).

Types (Delta has no categorical, null or unsigned types): categorical and enum columns are written as
text, all-null columns as the table's type (text in a new table), unsigned integers as the next wider
signed type. Integer ids (``player_id``, ``opponent_id``, ``game_id``) going into a table of text ids
are written as text; text ids going into a table of integer ids make the commit rewrite the whole table
with those ids as text (the same ids: ids compare as text). Any other column whose type differs from the
table's, a type Delta has not, or a name that differs from another only in case (Delta's names are
case-insensitive) is refused before anything is written. Columns a period brings are added to the
table's schema; its rows of other periods read them as null.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from elo_batch import columns as c
from elo_batch.errors import OutputError, option
from elo_batch.outputs.deltalog import open_table
from elo_batch.outputs.encode import PARQUET, ROW_GROUP_ROWS, incomplete, no_room, os_error
from elo_batch.storage.deltatables import KEY, deltalake, is_month, is_table, own_commit

_IDS = (c.PLAYER_ID, c.OPPONENT_ID, c.GAME_ID)
_INTEGER = ("byte", "short", "integer", "long")
_SIGNED: dict[type[pl.DataType], type[pl.DataType]] = {
    pl.UInt8: pl.Int16, pl.UInt16: pl.Int32, pl.UInt32: pl.Int64, pl.UInt64: pl.Int64,
}  # fmt: skip
#: Column statistics recorded for data skipping: those exact in a Parquet footer (no float: NaN).
_STATS = ("byte", "short", "integer", "long", "date", "string")
_STRING_STATS = 32  # longer min/max strings are left out (Spark's stats truncate there)
#: The columns whose statistics a table's add actions record, where not every column's: the audit's are
#: those a warehouse filters it on (a game, an event, a date range, a player's games, the rows of an input
#: row; its ``period`` is the partition, which the log holds as a value). Its other 14 columns are read,
#: not filtered on.
STATS_COLUMNS: dict[str, frozenset[str]] = {
    "audit": frozenset({c.GAME_ID, c.EVENT_ID, c.DATE, c.PLAYER_ID, c.OPPONENT_ID, c.SOURCE_ROW}),
}


#: The table folders whose format :func:`check_format` checks.
TABLE_FOLDERS = ("rejected", "audit", "ratings")


def check_format(root: Path, table_format: str) -> None:
    """Refuse an output folder ``root`` whose table folders hold the other format: hive partitions when
    Delta tables (``table_format="delta"``) are to be written, a Delta table when hive partitions are.
    Writers call it while they hold the folder's lock, so that two runs of different formats started
    together into a new folder never both write (the second would break the first's tables).

    Raises:
        OutputError: a table folder holds the other format; it names the folder.
    """
    for name in TABLE_FOLDERS:
        folder = root / name
        if table_format == "delta" and not is_table(folder) and any(folder.glob("period=*/part-0.*")):
            found, other = "hive Parquet/CSV partitions", "parquet"
        elif table_format != "delta" and is_table(folder):
            found, other = "a Delta table", "delta"
        else:
            continue
        raise OutputError(
            f"holds {found}; {'Delta tables' if other == 'parquet' else 'hive partitions'} cannot be written into it",
            path=str(folder),
            hint=f"write this output folder with {option('table_format', other)}, or give another output folder.",
        )


@dataclass(frozen=True)
class Plan:
    """What one commit writes into a table.

    Attributes:
        rows: Period -> its rows as the table takes them (one period; every period of the table when
            ``whole``).
        schema: The table's schema after the commit (a deltalake Schema).
        columns: The columns of the period written (without those other periods brought).
        whole: The commit replaces every period (text ids into a table of integer ids).
    """

    rows: dict[str, pl.LazyFrame]
    schema: Any
    columns: list[str]
    whole: bool


def plan(path: Path, period: str, frame: pl.DataFrame | pl.LazyFrame) -> Plan:
    """``frame``, the rows of ``period``, as the table at ``path`` takes them (see the module on types).

    Raises:
        OutputError: a type Delta cannot hold, a name that differs from another only in case, or a
            column whose type differs from the table's; nothing was written.
    """
    lake = deltalake()
    lazy = frame.lazy()
    given = lazy.collect_schema()
    held = _held(lake, path)
    casts = _casts(given, held, path=path, period=period)
    lazy = lazy.with_columns(casts) if casts else lazy
    written = lazy.collect_schema()
    incoming = _delta_fields(lake, written, path, period=period)
    as_text, to_text = _id_changes(incoming, given, held, written=written, path=path, period=period)
    lazy = lazy.with_columns(pl.col(as_text).cast(pl.String)) if as_text else lazy
    text = lake.schema.PrimitiveType("string")
    merged = [lake.Field(f.name, text, nullable=True) if f.name in to_text else f for f in held.fields]
    merged += [field for column, field in incoming.items() if column not in held.kinds]
    rows = {period: lazy}
    if to_text and held.table is not None:  # one commit rewrites the table: its other periods as they are, ids as text
        rows = _rewritten(held.table, to_text, path=path, period=period) | rows
    return Plan(rows, lake.Schema(merged), list(incoming), bool(to_text))


@dataclass(frozen=True)
class _Held:
    """What a table holds before a commit: the table (None: no table yet), its fields, each field's Delta
    type's name (:func:`_kind`) and its type as polars reads it."""

    table: Any
    fields: list[Any]
    kinds: dict[str, str]
    readable: dict[str, pl.DataType]


def _held(lake: Any, path: Path) -> _Held:
    """What the table at ``path`` holds (nothing when there is no table)."""
    table = open_table(lake, path) if is_table(path) else None
    fields = list(table.schema().fields) if table is not None else []
    kinds = {field.name: _kind(field.type) for field in fields}
    readable = dict(pl.scan_delta(table).collect_schema()) if table is not None else {}
    return _Held(table=table, fields=fields, kinds=kinds, readable=readable)


def _casts(given: pl.Schema, held: _Held, *, path: Path, period: str) -> list[pl.Expr]:
    """The casts of the period's columns to types Delta has (categorical, null and unsigned types); a name
    that differs from another only in case refused."""
    by_case = {column.lower(): column for column in held.kinds}
    casts = []
    for column, dtype in given.items():
        twin = by_case.setdefault(column.lower(), column)
        if twin != column:
            raise _type_error(path, period, column, problem=f"its name differs only in case from the column {twin!r}")
        if isinstance(dtype, pl.Categorical | pl.Enum):
            casts.append(pl.col(column).cast(pl.String))
        elif dtype == pl.Null:
            casts.append(pl.col(column).cast(held.readable.get(column, pl.String)))
        elif type(dtype) in _SIGNED:
            casts.append(pl.col(column).cast(_SIGNED[type(dtype)]))
    return casts


def _id_changes(
    incoming: dict[str, Any],
    given: pl.Schema,
    held: _Held,
    *,
    written: pl.Schema,
    path: Path,
    period: str,
) -> tuple[list[str], list[str]]:
    """(the integer ids written as text into a table of text ids, the table's integer ids that become text);
    any other column whose type differs from the table's refused (``written``: the period's schema as cast)."""
    as_text, to_text = [], []
    for column, field in incoming.items():
        kind = _kind(field.type)
        if column not in held.kinds or held.kinds[column] == kind or given[column] == pl.Null:
            continue
        if column in _IDS and kind in _INTEGER and held.kinds[column] == "string":
            as_text.append(column)  # integer ids into a table of text ids: the same ids, as text
        elif column in _IDS and kind == "string" and held.kinds[column] in _INTEGER:
            to_text.append(column)  # text ids into a table of integer ids: the table's ids become text
        else:
            problem = (
                f"the Delta table holds {held.readable.get(column, held.kinds[column])}, "
                f"this period writes {written[column]}"
            )
            raise _type_error(path, period, column, problem=problem)
    return as_text, to_text


def _rewritten(table: Any, to_text: list[str], *, path: Path, period: str) -> dict[str, pl.LazyFrame]:
    """The table's other periods as they are, the ``to_text`` ids as text; a partition that is not a month refused."""
    others = sorted({part.get(c.PERIOD) or "" for part in table.partitions()} - {period})
    for other in others:
        if not is_month(other):  # a partition this rewrite would have to name as a folder
            problem = f"the table holds a partition {c.PERIOD}={other!r}, which is not a month of play"
            raise _type_error(path, period, c.PERIOD, problem=problem)
    every = pl.scan_delta(table).with_columns(pl.col(to_text).cast(pl.String))
    return {other: every.filter(pl.col(c.PERIOD) == other) for other in others}


def _kind(delta_type: Any) -> str:
    """A Delta type's name (``long``, ``string``); nested types as delta-rs spells them."""
    return str(getattr(delta_type, "type", delta_type))


def _delta_fields(lake: Any, schema: pl.Schema, path: Path, *, period: str) -> dict[str, Any]:
    """Column -> the Delta field it is written as, or the refusal of a type Delta has not."""
    fields = {}
    for column, dtype in schema.items():
        try:
            arrow = pl.DataFrame(schema={column: dtype}).to_arrow(compat_level=pl.CompatLevel.oldest()).schema
            fields[column] = lake.Schema.from_arrow(arrow).fields[0]
        except Exception as exc:  # deltalake's own error: the Arrow type has no Delta type
            raise _type_error(path, period, column, problem=f"Delta Lake has no type for {dtype}") from exc
    return fields


def _type_error(path: Path, period: str, column: str, *, problem: str) -> OutputError:
    return OutputError(
        f"{problem}; nothing of period {period} was written",
        path=str(path),
        column=column,
        hint=f"write runs of one kind into one table ({option('rounding', 'none')} runs apart), rename or drop "
        "the list's column, or give another output folder.",
    )


def commit(path: Path, period: str, planned: Plan, *, meta: dict[str, Any]) -> dict[str, Any]:
    """Write the planned rows (one file per period) and commit them in one transaction that replaces
    ``period`` (every period when ``planned.whole``), with ``meta`` as elo-batch's record in the commit.

    Returns:
        The commit's ``version``, and the ``rows`` and ``files`` (paths in the table) of ``period`` it added.

    Raises:
        OSError: a file cannot be written (a full disk): the files written are removed.
        OutputError: delta-rs refuses the commit (the files written are removed).
    """
    lake = deltalake()
    added: list[Any] = []
    try:
        for each, rows in planned.rows.items():
            added.append(_write_file(lake, path, each, rows=rows))
        rows_of = {action.path: json.loads(action.stats)["numRecords"] for action in added}
        _drop_empty(path, added, rows_of)
        _transaction(lake, path, planned, added=added, period=period, meta=meta)
    except BaseException as exc:
        for action in added:
            (path / action.path).unlink(missing_ok=True)
        error = _commit_error(exc, path, period)
        if error is None:
            raise
        raise error from exc
    found = own_commit(open_table(lake, path), lambda record: record.get("run_id") == meta.get("run_id"))
    if found is None:  # pragma: no cover - the commit just made is in the history
        raise OutputError("the commit just written is not in the table's history", path=str(path))
    mine = [action.path for action in added if action.partition_values[c.PERIOD] == period]
    return {"version": found[0], "rows": sum(rows_of[file] for file in mine), "files": mine}


def _drop_empty(path: Path, added: list[Any], rows_of: dict[str, int]) -> None:
    """Remove the files of no rows, and their add actions from ``added`` (no file for no rows)."""
    for action in [action for action in added if rows_of[action.path] == 0]:
        (path / action.path).unlink()
        with contextlib.suppress(OSError):  # the period's folder, when it holds nothing else
            (path / action.path).parent.rmdir()
        added.remove(action)


def _transaction(lake: Any, path: Path, planned: Plan, *, added: list[Any], period: str, meta: dict[str, Any]) -> None:
    """Commit the ``added`` files in one transaction that replaces ``period`` (every period when
    ``planned.whole``), into the table at ``path`` or as a new table."""
    properties = lake.CommitProperties(custom_metadata={KEY: json.dumps(meta, default=str)})
    replaced = None if planned.whole else [(c.PERIOD, "=", period)]
    if is_table(path):
        open_table(lake, path).create_write_transaction(
            added, "overwrite", planned.schema, [c.PERIOD], replaced, commit_properties=properties
        )
    else:
        lake.transaction.create_table_with_add_actions(
            str(path), planned.schema, added, "error", [c.PERIOD], commit_properties=properties
        )


def _commit_error(exc: BaseException, path: Path, period: str) -> OutputError | OSError | None:
    """The error to raise for what stopped a commit: the operating system's error inside it, else an
    ``OutputError``; None: raise it as it is (an ``OutputError``, an ``OSError``, an interrupt)."""
    if isinstance(exc, OutputError | OSError) or not isinstance(exc, Exception):
        return None
    error = os_error(exc, str(path))
    if error is not None:
        return error
    problem = f"cannot commit period {period} to the Delta table ({_first_line(exc)})"
    return OutputError(problem, path=str(path))


def _write_file(lake: Any, path: Path, period: str, *, rows: pl.LazyFrame) -> Any:
    """One period's rows as a Parquet file of the table (streamed by polars, as the hive writer does, without
    the partition column: Delta keeps it in the log); its add action, with statistics from the footer."""
    relative = f"{c.PERIOD}={period}/part-00000-{uuid.uuid4()}-c000.zstd.parquet"
    target = path / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        rows.drop(c.PERIOD).sink_parquet(target, **PARQUET, row_group_size=ROW_GROUP_ROWS)
    except pl.exceptions.PolarsError as exc:
        error = os_error(exc, str(target)) or no_room(target)  # before the partial file is removed
        target.unlink(missing_ok=True)
        if error is None:
            raise
        raise error from exc
    short = incomplete(target, "parquet")  # a footer's failed write that polars did not report
    if short is not None:
        target.unlink(missing_ok=True)
        raise short
    stat = target.stat()
    return lake.transaction.AddAction(
        relative,
        stat.st_size,
        {c.PERIOD: period},
        int(stat.st_mtime * 1000),
        True,
        json.dumps(_stats(target, STATS_COLUMNS.get(path.name))),
    )


def _stats(file: Path, columns: frozenset[str] | None = None) -> dict[str, Any]:
    """Delta's file statistics: rows, nulls per column, and min/max where the footer holds them exactly; of
    ``columns`` only (None: of every column)."""
    import pyarrow.parquet as pq

    metadata = pq.read_metadata(file)
    schema = metadata.schema.to_arrow_schema()
    nulls: dict[str, int] = {}
    least: dict[str, Any] = {}
    most: dict[str, Any] = {}
    for index, field in enumerate(schema):
        kind = _arrow_kind(field.type) if columns is None or field.name in columns else None
        chunks = [metadata.row_group(group).column(index).statistics for group in range(metadata.num_row_groups)]
        if kind is None or not all(chunk is not None and chunk.has_null_count for chunk in chunks):
            continue
        nulls[field.name] = sum(chunk.null_count for chunk in chunks)
        bounds = [(chunk.min, chunk.max) for chunk in chunks if chunk.has_min_max]
        if kind in _STATS and bounds and len(bounds) == sum(chunk.num_values > 0 for chunk in chunks):
            low, high = min(bound[0] for bound in bounds), max(bound[1] for bound in bounds)
            if kind != "string" or max(len(low), len(high)) <= _STRING_STATS:
                least[field.name], most[field.name] = _json(low), _json(high)
    return {"numRecords": metadata.num_rows, "minValues": least, "maxValues": most, "nullCount": nulls}


def _arrow_kind(arrow_type: Any) -> str | None:
    import pyarrow as pa

    if pa.types.is_integer(arrow_type):
        return "long"
    if pa.types.is_date32(arrow_type):
        return "date"
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "string"
    if pa.types.is_boolean(arrow_type) or pa.types.is_floating(arrow_type):
        return "other"  # null counts only
    return None


def _json(value: Any) -> Any:
    return value.isoformat() if isinstance(value, dt.date) else value


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
