"""Checks worked out once per distinct value of a column (results, dates, periods) and looked up per row."""

from __future__ import annotations

import polars as pl

from elo_batch import working as w
from elo_batch.inputs.cells import DATE_RANGE


class ByValue:
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
        if dtype == pl.Date and self._look_up_days(column, limit):
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

    def _look_up_days(self, column: pl.LazyFrame, limit: int) -> bool:
        """Keep every day from a date column's first to its last (the day number is the index), unless
        they are more than ``limit`` or out of the date range: whether it did."""
        [name] = column.collect_schema().names()
        days = pl.col(name).to_physical()
        first, last = column.select(days.min(), days.max().alias("last")).collect(engine="streaming").row(0)
        low, high = DATE_RANGE  # days out of it are no dates (and the day after 2^31 - 1 is no Int32)
        if not (
            isinstance(first, int) and isinstance(last, int) and last - first < limit and low <= first <= last <= high
        ):
            return False
        every_day = pl.int_range(first, last + 1, dtype=pl.Int32, eager=True).cast(pl.Date)
        self.values[name] = pl.concat([every_day, pl.Series([None], dtype=pl.Date)]).alias(name)
        self.index[name] = (days - first).cast(pl.UInt32).fill_null(last - first + 1)
        return True

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
        return {name: w.RAW_PREFIX + name for name, values in self.values.items() if values.dtype == pl.String}

    def restore(self) -> list[pl.Expr]:
        """The hidden columns, trimmed, under their own names."""
        return [pl.col(raw).str.strip_chars().alias(name) for name, raw in self.hidden().items()]

    @staticmethod
    def _index(name: str) -> str:
        return w.INDEX_PREFIX + name
