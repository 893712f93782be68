"""Loading each rated period into a DuckDB database file (``run --duckdb``); no rating rules.

Tables ``ratings``, ``audit`` and ``rejected`` hold the same rows as the partitions, with their
``period`` column. Loading a period deletes that period's rows and inserts the new ones in one
transaction, so re-running a period leaves exactly one copy of its rows and a reader never sees the
period half loaded. Columns that a later period brings (a list's pass-through columns) are added to
the table; rows of other periods get nulls there.

No SQL is ever built from data: values are bound parameters, the rows come in as a registered Arrow
table, every identifier (a pass-through column's name is the list's, whatever it holds) is quoted by
:func:`quote_identifier`, column types are DuckDB's own spelling re-read by its type parser, and every
statement is checked to parse as exactly one statement before it runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import polars as pl
import polars.selectors as cs

from elo_batch import columns as c
from elo_batch.errors import InternalError, OutputError, UsageError, option

TABLES = ("ratings", "audit", "rejected")


def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError as exc:
        raise UsageError(
            f"{option('duckdb')} needs the duckdb package",
            option="duckdb",
            hint="install elo-batch with DuckDB support: pip install 'elo-batch[duckdb]'.",
        ) from exc
    return duckdb


def check_available(database: str | None = None) -> None:
    """Fail early, before any rating, when ``--duckdb`` cannot be used.

    Args:
        database: The DuckDB file to check (opened and closed; created if missing), or None to check
            only that duckdb is installed.

    Raises:
        UsageError: duckdb is not installed.
        OutputError: the database cannot be opened (missing folder, not a DuckDB file, locked).
    """
    duckdb = _duckdb()
    if database is not None:
        _connect(duckdb, database).close()


def _connect(duckdb: Any, database: str) -> Any:
    try:
        return duckdb.connect(database)
    except duckdb.Error as exc:
        raise OutputError(
            f"cannot open the DuckDB database ({_first_line(exc)})",
            path=database,
            hint="check that the folder exists, that the file is a DuckDB database and that no other process "
            "holds it open.",
        ) from exc


def load_period(
    database: str, period: str, tables: Mapping[str, pl.DataFrame | pl.LazyFrame], *, note: str = ""
) -> None:
    """Replace one period's rows in the database's tables (created on first use) in one transaction.

    Args:
        database: Path of the DuckDB file (created if missing).
        period: Month of play, ``YYYY-MM``; the value of every row's ``period`` column.
        tables: ``ratings``, ``audit`` and ``rejected`` frames of the period (lazy ones are collected).
        note: Added to the hint of every error: what happened to the period's other outputs.

    Raises:
        UsageError: duckdb is not installed.
        OutputError: the database cannot be opened (missing folder, locked by another process), a
            table has a column of another type than the period's (say a text ``rating``, or a
            ``--rounding none`` run into whole-point tables), or a statement fails; the transaction is
            rolled back and the database keeps its previous rows. Integer ids go into a table of text
            ids as text, and text ids into a table of integer ids turn its ids into text (the same ids:
            ids are compared as text).
    """
    load = PeriodLoad(database, period, tables, note=note)
    load.prepare()
    load.commit()


class PeriodLoad:
    """One period's rows replaced in a transaction left open until :meth:`commit`.

    The database's side of a commit shared with the partitions (``companion`` of
    :func:`elo_batch.outputs.writers.write_period`): :meth:`prepare` once the partitions are staged (every
    statement runs, nothing is committed), :meth:`commit` once they are swapped in and before their
    own commit, :meth:`abort` if anything fails. A failure raises :class:`OutputError` after rolling
    back, so the database keeps its previous rows.

    Args:
        database: Path of the DuckDB file (created if missing).
        period: Month of play, ``YYYY-MM``.
        tables: ``ratings``, ``audit`` and ``rejected`` frames of the period (lazy ones are collected
            in :meth:`prepare`).
        note: Added to the hint of every error: what happened to the period's other outputs.
    """

    def __init__(
        self, database: str, period: str, tables: Mapping[str, pl.DataFrame | pl.LazyFrame], *, note: str = ""
    ) -> None:
        self.database, self.period, self.tables, self.note = database, period, tables, note
        self.name = f"the DuckDB database {database}"
        self.committed = False
        self._connection: Any = None

    def prepare(self) -> None:
        """Open the database, begin, replace the period's rows in every table; commit nothing."""
        duckdb = _duckdb()
        try:
            self._connection = _connect(duckdb, self.database)
            self._connection.begin()
            for name, frame in self.tables.items():
                _replace(
                    self._connection,
                    name,
                    self.period,
                    frame=frame.collect() if isinstance(frame, pl.LazyFrame) else frame,
                )
        except (duckdb.Error, OutputError) as exc:
            self.abort()
            raise self._error(exc, "load") from exc

    def commit(self) -> None:
        """Commit the transaction :meth:`prepare` left open."""
        duckdb = _duckdb()
        try:
            self._connection.commit()
        except duckdb.Error as exc:
            self.abort()
            raise self._error(exc, "commit") from exc
        self.committed = True
        self._close()

    def abort(self) -> None:
        """Roll back whatever :meth:`prepare` did (nothing when it did nothing or all is committed)."""
        if self._connection is not None:
            with contextlib.suppress(Exception):  # a failed commit has rolled back already
                self._connection.rollback()
            self._close()

    def _close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def _error(self, exc: BaseException, step: str) -> OutputError:
        note = f" {self.note}" if self.note else ""
        if isinstance(exc, OutputError):
            return OutputError(exc.message, path=exc.path, column=exc.column, hint=f"{exc.hint}{note}")
        return OutputError(
            f"cannot {step} period {self.period} into the DuckDB database ({_first_line(exc)})",
            path=self.database,
            hint=f"the database keeps its previous rows; re-run the period once the cause is fixed.{note}",
        )


#: Id columns: integers and text are the same ids (compared as text), so either may join the other.
_IDS = (c.PLAYER_ID, c.OPPONENT_ID, c.GAME_ID)
_INTEGER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT")


def quote_identifier(name: str) -> str:
    """``name`` as one SQL identifier: in double quotes, each double quote inside doubled (SQL's rule).

    >>> print(quote_identifier('x" INTEGER; DELETE FROM audit; --'))
    "x"" INTEGER; DELETE FROM audit; --"
    """
    return '"' + name.replace('"', '""') + '"'


def _execute(connection: Any, statement: str, parameters: list[Any] | None = None) -> Any:
    """Run ``statement`` once it parses as exactly one statement (a guard behind the quoting)."""
    if len(_duckdb().extract_statements(statement)) != 1:
        raise InternalError(f"refused to run SQL that parses as several statements: {statement!r}")
    return connection.execute(statement, parameters)


def _column_type(spelled: str) -> str:
    """DuckDB's spelling of a type, as its type parser reads it back (a type and nothing else)."""
    return str(_duckdb().sqltype(spelled))


def _replace(connection: Any, name: str, period: str, *, frame: pl.DataFrame) -> None:
    """Replace ``period``'s rows of table ``name`` by ``frame`` (the table made, or its columns added, first)."""
    untyped = {column for column, dtype in frame.schema.items() if dtype == pl.Null}
    incoming = _incoming(frame, _held_types(connection, name))
    connection.register("incoming", incoming.to_arrow())
    table = quote_identifier(name)
    try:
        _execute(connection, f"CREATE TABLE IF NOT EXISTS {table} AS SELECT * FROM incoming LIMIT 0")
        _align_columns(connection, name, period, columns=incoming.columns, untyped=untyped)
        _execute(connection, f"DELETE FROM {table} WHERE {quote_identifier(c.PERIOD)} = ?", [period])
        _execute(connection, f"INSERT INTO {table} BY NAME SELECT * FROM incoming")
    finally:
        connection.unregister("incoming")


def _held_types(connection: Any, name: str) -> dict[str, str]:
    """Column -> its data type in table ``name`` of the database (nothing when there is no such table)."""
    return dict(
        connection.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ?", [name]
        ).fetchall()
    )


def _incoming(frame: pl.DataFrame, existing: dict[str, str]) -> pl.DataFrame:
    """The period's rows as the table takes them: text for all-null and categorical columns, and for integer
    ids going into a table of text ids."""
    incoming = frame.with_columns(
        pl.col(pl.Null).cast(pl.String),  # all-null columns: no type to give
        cs.categorical().cast(pl.String),  # dictionary-encoded text is text in the tables
    )
    # Integer ids into a table of text ids (an earlier run read them from CSV): the same ids, as text.
    return incoming.with_columns(
        pl.col(column).cast(pl.String)
        for column, dtype in incoming.schema.items()
        if column in _IDS and dtype.is_integer() and existing.get(column) == "VARCHAR"
    )


def _align_columns(connection: Any, name: str, period: str, *, columns: list[str], untyped: set[str]) -> None:
    """Add to table ``name`` the registered rows' columns it lacks and turn its integer ids into text for
    text ids; refuse a column of another type (``untyped``: all-null columns, which take the table's)."""
    table = quote_identifier(name)
    existing = _held_types(connection, name)
    types = dict(connection.execute("SELECT column_name, column_type FROM (DESCRIBE incoming)").fetchall())
    for column in columns:
        quoted = quote_identifier(column)
        if column not in existing:
            _execute(connection, f"ALTER TABLE {table} ADD COLUMN {quoted} {_column_type(types[column])}")
        elif column in _IDS and types[column] == "VARCHAR" and existing[column] in _INTEGER_TYPES:
            # text ids into a table of integer ids: the table's ids become their text (the same ids,
            # since ids compare as text; 0123 stays apart from 123)
            _execute(connection, f"ALTER TABLE {table} ALTER COLUMN {quoted} TYPE VARCHAR")
        elif column not in untyped and existing[column] != types[column]:
            raise OutputError(
                f"table {name}, column {column}: the database holds {existing[column]}, this period writes "
                f"{types[column]}; nothing of period {period} was loaded",
                option="duckdb",
                hint=f"load runs of one kind into one database ({option('rounding', 'none')} runs apart), or "
                "start a new database file.",
            )


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
