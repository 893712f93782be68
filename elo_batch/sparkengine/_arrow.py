"""Frames between polars, Arrow and Spark: declared schemas, exact casts, closures' bytes, batches to the driver.

A ``mapInArrow`` function must return batches of exactly the declared schema (an ``int32`` column where
Spark declared ``long`` fails at run time, in the middle of a job), so every schema the Spark engine
declares is made here from the polars schema of what the kernels produce (:func:`spark_schema`), and
every batch it returns is cast here to that schema (:func:`to_batches`), in one place.

What the executors need from the driver (the list in force, the finalized K) travels as Arrow IPC
bytes captured in the function's closure (:class:`Shipped`): no SparkContext, no broadcast variable, so
it works under Spark Connect too.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl
import pyarrow as pa

from elo_batch.errors import UsageError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import DataType, StructType

#: The one column of the batches sent to the driver one by one (Arrow IPC streams).
_IPC = "ipc"


def spark_type(dtype: pl.DataType) -> DataType:
    """The Spark type of a polars column type (categorical text is text; unsigned integers widen).

    Raises:
        TypeError: a type Spark has no column for (UInt64 beyond ``long``, Object, Null aside).
    """
    from pyspark.sql import types as t

    simple: dict[Any, DataType] = {
        pl.Boolean: t.BooleanType(), pl.Int8: t.ByteType(), pl.Int16: t.ShortType(), pl.Int32: t.IntegerType(),
        pl.Int64: t.LongType(), pl.UInt8: t.ShortType(), pl.UInt16: t.IntegerType(), pl.UInt32: t.LongType(),
        pl.Float32: t.FloatType(), pl.Float64: t.DoubleType(), pl.String: t.StringType(),
        pl.Categorical: t.StringType(), pl.Enum: t.StringType(), pl.Date: t.DateType(), pl.Binary: t.BinaryType(),
        pl.Null: t.StringType(),
    }  # fmt: skip
    base = dtype.base_type()
    if base in simple:
        return simple[base]
    if isinstance(dtype, pl.Decimal):
        return t.DecimalType(dtype.precision or 38, dtype.scale or 0)
    if isinstance(dtype, pl.Datetime):
        return t.TimestampType() if dtype.time_zone else t.TimestampNTZType()
    if isinstance(dtype, pl.List | pl.Array):
        return t.ArrayType(spark_type(dtype.inner))  # type: ignore[arg-type]
    if isinstance(dtype, pl.Struct):
        return t.StructType([t.StructField(f.name, spark_type(f.dtype)) for f in dtype.fields])  # type: ignore[arg-type]
    raise TypeError(f"a column of type {dtype} has no Spark type")


def spark_schema(schema: Mapping[str, pl.DataType]) -> StructType:
    """The Spark schema of a polars schema (see :func:`spark_type`); every column nullable."""
    from pyspark.sql import types as t

    return t.StructType([t.StructField(name, spark_type(dtype), True) for name, dtype in schema.items()])


def arrow_type(dtype: DataType) -> pa.DataType:
    """The Arrow type Spark expects of a ``mapInArrow`` result column of Spark type ``dtype``."""
    from pyspark.sql import types as t

    simple: dict[type, pa.DataType] = {
        t.BooleanType: pa.bool_(), t.ByteType: pa.int8(), t.ShortType: pa.int16(), t.IntegerType: pa.int32(),
        t.LongType: pa.int64(), t.FloatType: pa.float32(), t.DoubleType: pa.float64(), t.StringType: pa.string(),
        t.DateType: pa.date32(), t.BinaryType: pa.binary(), t.TimestampNTZType: pa.timestamp("us"),
        t.TimestampType: pa.timestamp("us", tz="UTC"),
    }  # fmt: skip
    if type(dtype) in simple:
        return simple[type(dtype)]
    if isinstance(dtype, t.DecimalType):
        return pa.decimal128(dtype.precision, dtype.scale)
    if isinstance(dtype, t.ArrayType):
        return pa.list_(arrow_type(dtype.elementType))
    if isinstance(dtype, t.StructType):
        return pa.struct([pa.field(f.name, arrow_type(f.dataType)) for f in dtype.fields])
    raise TypeError(f"no Arrow type for Spark type {dtype}")


def arrow_schema(schema: StructType) -> pa.Schema:
    """The Arrow schema of the batches of a Spark schema (what ``mapInArrow`` must return)."""
    return pa.schema([pa.field(f.name, arrow_type(f.dataType)) for f in schema.fields])


def to_arrow(frame: pl.DataFrame, schema: pa.Schema) -> pa.Table:
    """``frame``'s columns of ``schema``, cast exactly to it (categorical text decoded, integers widened;
    a column ``frame`` lacks is null)."""
    frame = frame.with_columns(pl.col(pl.Categorical, pl.Enum).cast(pl.String))
    missing = [name for name in schema.names if name not in frame.columns]
    frame = frame.with_columns(pl.lit(None).alias(name) for name in missing).select(schema.names)
    table = frame.to_arrow()
    return pa.Table.from_arrays(
        [column.cast(target.type) for column, target in zip(table.columns, schema, strict=True)], schema=schema
    )


#: Rows of a record batch a ``mapInArrow`` function returns, at most (what one batch holds in memory on
#: the way to the JVM, or as one IPC blob to the driver).
BATCH_ROWS = 1 << 18


def to_batches(frame: pl.DataFrame, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """``frame`` as record batches of exactly ``schema`` (see :func:`to_arrow`), of at most
    :data:`BATCH_ROWS` rows."""
    yield from to_arrow(frame, schema).to_batches(max_chunksize=BATCH_ROWS)


def from_batches(batches: Iterable[pa.RecordBatch]) -> pl.DataFrame | None:
    """The rows of a partition's batches as one polars frame; None for a partition without rows."""
    parts = [batch for batch in batches if batch.num_rows]
    if not parts:
        return None
    frame = pl.from_arrow(pa.Table.from_batches(parts))
    assert isinstance(frame, pl.DataFrame)
    return frame


@contextlib.contextmanager
def job() -> Iterator[None]:
    """Run a Spark job: a Python worker that cannot import elo-batch is an error that says so.

    Raises:
        UsageError: the executors' Python does not have elo-batch installed.
    """
    try:
        yield
    except Exception as exc:
        if "No module named 'elo_batch'" not in str(exc):
            raise
        raise UsageError(
            "the Spark executors cannot import elo_batch: their Python workers do not see the driver's sys.path",
            hint="install the same elo-batch on every executor (a wheel or a cluster library: docs/guides/spark.md, "
            "'On a cluster'), or point spark.pyspark.python at a Python that has it.",
        ) from None


def from_spark(frame: DataFrame, schema: Mapping[str, pl.DataType] | None = None) -> pl.DataFrame:
    """A (small) Spark frame collected to the driver as polars, cast to ``schema`` where given."""
    with job():
        table = frame.toArrow()
    result = pl.from_arrow(table) if table.num_rows else pl.DataFrame(schema=dict(_polars_schema(table.schema)))
    assert isinstance(result, pl.DataFrame)
    return result.cast(dict(schema)) if schema else result  # type: ignore[arg-type]


def _polars_schema(schema: pa.Schema) -> pl.Schema:
    return pl.DataFrame(pa.Table.from_batches([], schema=schema)).schema


def ipc_bytes(frame: pl.DataFrame) -> bytes:
    """``frame`` as the bytes of an Arrow IPC file (lz4): how a frame travels inside a closure or a row."""
    buffer = io.BytesIO()
    frame.write_ipc(buffer, compression="lz4")
    return buffer.getvalue()


def from_ipc(data: bytes) -> pl.DataFrame:
    """The frame of :func:`ipc_bytes`."""
    return pl.read_ipc(io.BytesIO(data))


@dataclass(frozen=True)
class Shipped:
    """Frames the driver hands to the executors as Arrow IPC bytes inside a function's closure.

    Each executor's Python worker decodes them once per closure (workers are reused between tasks):
    the decoded frames are kept by the bytes' digest.
    """

    frames: dict[str, bytes]
    digest: str = field(default="")

    @staticmethod
    def of(**frames: pl.DataFrame | pl.Series) -> Shipped:
        encoded = {name: ipc_bytes(frame.to_frame() if isinstance(frame, pl.Series) else frame)
                   for name, frame in frames.items()}  # fmt: skip
        digest = hashlib.sha256(b"".join(encoded[name] for name in sorted(encoded))).hexdigest()
        return Shipped(encoded, digest)

    def frame(self, name: str) -> pl.DataFrame:
        key = (self.digest, name)
        if key not in _DECODED:
            if len(_DECODED) > 16:
                _DECODED.clear()
            _DECODED[key] = from_ipc(self.frames[name])
        return _DECODED[key]

    def series(self, name: str) -> pl.Series:
        return self.frame(name).to_series()

    @property
    def size(self) -> int:
        """Bytes shipped with each task."""
        return sum(map(len, self.frames.values()))


_DECODED: dict[tuple[str, str], pl.DataFrame] = {}


def _ipc_blobs(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Each batch of a partition as one row holding its Arrow IPC stream, zstd-compressed (a quarter to a
    seventh of the bytes of an audit: sent to the driver in order)."""
    options = pa.ipc.IpcWriteOptions(compression="zstd")
    for batch in batches:
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, batch.schema, options=options) as writer:
            writer.write_batch(batch)
        yield pa.RecordBatch.from_arrays([pa.array([sink.getvalue().to_pybytes()], pa.binary())], names=[_IPC])


@dataclass(frozen=True)
class _AsBlobs:
    """A ``mapInArrow`` function whose batches go to the driver as Arrow IPC blobs (see :func:`_ipc_blobs`)."""

    function: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        yield from _ipc_blobs(self.function(batches))


def _identity(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    yield from batches


def driver_batches(
    frame: DataFrame, function: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]] | None = None
) -> Iterator[pa.RecordBatch]:
    """The batches of ``frame`` (or of ``function``, a ``mapInArrow`` function, over each of its partitions),
    partition after partition in order, to the driver one partition at a time (``toLocalIterator`` over
    Arrow IPC blobs, the next partition computed while one is read: never the whole frame in the driver's
    memory; ``function``'s batches never become Spark rows)."""
    with job():
        blobs = frame.mapInArrow(_AsBlobs(function or _identity), f"{_IPC} binary")
        for row in blobs.toLocalIterator(prefetchPartitions=True):
            with pa.ipc.open_stream(row[_IPC]) as reader:
                yield from reader


def partitions_in_order(frame: DataFrame, key: str) -> bool:
    """Whether the partitions of ``frame``, in their order, hold ever greater ranges of ``key`` (one small
    job: each partition's least and greatest key): then rows sorted within each partition are in ``key``
    order partition after partition, and no shuffle is needed to read them so."""
    from pyspark.sql import functions as F

    ranges = from_spark(
        frame.groupBy(F.spark_partition_id().alias("part")).agg(F.min(key).alias("low"), F.max(key).alias("high"))
    ).sort("part")
    return bool(ranges.select((pl.col("low").shift(-1) > pl.col("high")).all()).item())


def streamed(batches: Callable[[], Iterator[pa.RecordBatch]], schema: Mapping[str, pl.DataType]) -> pl.LazyFrame:
    """The record batches ``batches()`` gives (:func:`driver_batches` of a frame, say) as a polars LazyFrame
    of ``schema`` that reads them anew each time it runs: the local writers sink it to a file without
    holding it whole."""
    from polars.io.plugins import register_io_source

    wanted = pl.Schema(dict(schema))

    def source(
        with_columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None, batch_size: int | None
    ) -> Iterator[pl.DataFrame]:
        left = n_rows
        for batch in batches():
            part = pl.DataFrame(pl.from_arrow(batch)).select(list(wanted)).cast(dict(wanted))  # type: ignore[arg-type]
            if predicate is not None:
                part = part.filter(predicate)
            if with_columns is not None:
                part = part.select(with_columns)
            if left is not None:
                part = part.head(left)
                left -= part.height
            yield part
            if left is not None and left <= 0:
                return

    return register_io_source(io_source=source, schema=wanted)
