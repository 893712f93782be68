"""The Spark engine's reading of game files (``elo-batch run --engine spark``): one task per file, the library's reader.

Each file is read on an executor by elo-batch's own reader (:func:`elo_batch.inputs.readers.read_table`: the
same encodings, separators, header names, blank lines and ragged rows as the local engine) and checked
by the library's checks: the rows, ``source_file`` (the path as given) and ``source_row`` are those of
the local engine. The executors must see the paths (local mode, or a file system shared with the
cluster); a file must fit in an executor's memory (larger ones: read them with Spark and call
:func:`elo_batch.rate_period`).

What the driver must know before the rows can be typed (does every file have integer ids?) comes back
with the check: the ids travel as text and are cast to integers in Spark when every file has them, as
:func:`elo_batch.inputs.validate.load_games` decides.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl
import pyarrow as pa

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.contract.mapping import ColumnMap
from elo_batch.contract.schemas import CANONICAL_SCHEMA
from elo_batch.contract.tables import InputFile
from elo_batch.errors import EloBatchError, InternalError
from elo_batch.inputs.checkfile import check_file
from elo_batch.inputs.readers import read_table, reading
from elo_batch.inputs.validate import note_ignored_columns, split_event_rows, whole_raw
from elo_batch.sparkengine import _arrow
from elo_batch.sparkengine._check import GOOD, SparkGames, check_unit, finish, output_schema, side_rows

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

#: Kinds of the file check's own rows: what was read of a file, or the error that stopped it.
INFO, ERROR = 4, 5
_IDS = (c.WHITE_ID, c.BLACK_ID, c.GAME_ID)
#: The checked rows as they travel: ids as text until every file is known.
_TEXT_IDS: dict[str, pl.DataType] = {**CANONICAL_SCHEMA, **dict.fromkeys(_IDS, pl.String())}


@dataclass(frozen=True)
class _Read:
    """What a file's check tells the driver: the file, the columns it lacks, its id types."""

    info: InputFile
    missing: frozenset[str]
    integer_ids: bool
    integer_games: bool | None  # None: the file has no game_id


@dataclass(frozen=True)
class _FileChecker:
    """The map of the check: the files whose numbers a partition holds, each read and checked whole."""

    paths: tuple[str, ...]
    encoding: str | None
    fractional: bool
    output: pa.Schema
    columns: ColumnMap | None = None

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for number in batch.column(0).to_pylist():
                yield from _arrow.to_batches(self._file(int(number)), self.output)

    def _file(self, number: int) -> pl.DataFrame:
        path = self.paths[number]
        try:
            with reading(path):
                table, info = read_table(path, encoding=self.encoding, trim=False)
                info = note_ignored_columns(info)
                trimmed = info.encoding not in ("parquet", "frame")
                plan, _, missing = check_file(
                    table, info.path, self.fractional, trimmed=trimmed, header=info.header, columns=self.columns
                )
                schema = split_event_rows(plan)[0].collect_schema()
                read = _Read(
                    info,
                    frozenset(missing),
                    schema[c.WHITE_ID] == pl.Int64,
                    None if c.GAME_ID in missing else schema[c.GAME_ID] == pl.Int64,
                )
                rows = check_unit(
                    number,
                    table,
                    info.path,
                    fractional=self.fractional,
                    header=info.header,
                    canonical=_TEXT_IDS,
                    trimmed=trimmed,
                    columns=self.columns,
                    whole=lambda bad: whole_raw(bad, path, self.encoding, frame=table, info=info),
                )
        except EloBatchError as exc:
            return _blob(number, ERROR, (type(exc), exc.__dict__, exc.args))
        return pl.concat([rows, _blob(number, INFO, read)], how="diagonal_relaxed")


def _blob(number: int, kind: int, value: object) -> pl.DataFrame:
    return pl.DataFrame(
        {w.MAP_KIND: [kind], w.PART: [number], w.BLOB: [pickle.dumps(value)]},
        schema={w.MAP_KIND: pl.Int8, w.PART: pl.Int32, w.BLOB: pl.Binary},
    )


def check_files(
    spark: SparkSession,
    paths: Sequence[str],
    *,
    encoding: str | None,
    fractional: bool,
    columns: ColumnMap | None = None,
) -> SparkGames:
    """Read and check game files on the executors, one task per file (see the module's docstring);
    ``columns``: the games' column mapping, applied to each file where it is checked.

    Raises:
        InputMissingError, InputDataError: as :func:`elo_batch.inputs.validate.load_games`, for the first file
            (in the order given) that cannot be read or checked.
    """
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    spark_output = _arrow.spark_schema(output_schema(_TEXT_IDS, **{w.BLOB: pl.Binary()}))
    checker = _FileChecker(tuple(paths), encoding, fractional, _arrow.arrow_schema(spark_output), columns)
    numbers = spark.range(0, len(paths), 1, max(1, len(paths)))
    checked = numbers.mapInArrow(checker, spark_output).persist(StorageLevel.MEMORY_AND_DISK)
    side = side_rows(checked, w.BLOB)
    reads = _reads(side, checked, files=len(paths))
    canonical = _canonical(reads)
    typed = [F.col(name).cast("bigint") if canonical[name] != _TEXT_IDS[name] else F.col(name) for name in _TEXT_IDS]
    good: DataFrame = checked.where(F.col(w.MAP_KIND) == GOOD).select(*typed, w.PART)
    absent = frozenset.intersection(*(read.missing for read in reads)) if reads else frozenset()
    return finish(
        checked, good, side.drop(w.BLOB), canonical=canonical, absent=absent,
        files=tuple(read.info for read in reads), by_path=False,
    )  # fmt: skip


def _reads(side: pl.DataFrame, checked: DataFrame, *, files: int) -> list[_Read]:
    """What each file's check told the driver, in the order of the files; the first file's error raised.

    Raises:
        InputMissingError, InputDataError: the error that stopped the first file that failed (``checked``,
            the check's cached output, released first).
        InternalError: a file's check told nothing.
    """
    errors = side.filter(pl.col(w.MAP_KIND) == ERROR).sort(w.PART)
    if errors.height:
        checked.unpersist()
        kind, state, args = pickle.loads(errors[w.BLOB][0])
        error = kind.__new__(kind)
        error.__dict__.update(state)
        error.args = args
        raise error
    reads: list[_Read] = [pickle.loads(blob) for blob in side.filter(pl.col(w.MAP_KIND) == INFO).sort(w.PART)[w.BLOB]]
    if len(reads) != files:
        raise InternalError(f"{len(reads)} of {files} game files were checked", hint="please report it.")
    return reads


def _canonical(reads: list[_Read]) -> dict[str, pl.DataType]:
    """The types of the checked rows, as load_games decides them: integer ids only when every file has
    them; game_ids likewise, among the files with them."""
    integer_ids = all(read.integer_ids for read in reads)
    with_games = [read.integer_games for read in reads if read.integer_games is not None]
    integer_games = all(with_games) and (bool(with_games) or integer_ids)
    return {
        **CANONICAL_SCHEMA,
        **dict.fromkeys((c.WHITE_ID, c.BLACK_ID), pl.Int64() if integer_ids else pl.String()),
        c.GAME_ID: pl.Int64() if integer_games else pl.String(),
    }
