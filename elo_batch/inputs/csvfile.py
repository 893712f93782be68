"""Reading one CSV file in bounded memory: separator, header, rows, ragged rows; no rating rules.

The file is never held whole as bytes or text (:mod:`elo_batch.inputs.textfile` hashes it, inflates a gzip
file into a temporary file, checks its encoding and makes a UTF-8 copy of a file that is not UTF-8).
Polars reads the UTF-8 file itself, every cell as text and only the columns asked for; the fields of
each line are counted from the file too; the cells are trimmed a column at a time. The whole of a
row (the ``raw`` of a rejected row, the reason of a ragged one) is read again for those rows only
(:func:`read_csv_rows`).

What is read, and every message, is as :func:`elo_batch.inputs.readers.read_table` describes.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import io
import itertools
import operator
import os
import re
from array import array
from collections.abc import Collection, Iterator
from dataclasses import dataclass

import polars as pl

from elo_batch import working as w
from elo_batch.columns import SOURCE_ROW
from elo_batch.contract.names import normalise
from elo_batch.errors import InputDataError
from elo_batch.inputs import textfile
from elo_batch.inputs.inputfile import held_names
from elo_batch.inputs.raw import RAGGED_RAW_SCHEMA, WholeRows, fields_raw
from elo_batch.storage.formulas import ID_COLUMNS, unescape, unescape_name

#: Rows of a file read by Python's csv module (which polars splits otherwise) turned into a frame at a time.
PYTHON_ROWS = 100_000


#: The field separators a CSV file may use (the one its header line holds is used).
SEPARATORS = (",", ";", "\t", "|")


def check_header_line(text: str, path: str, *, line: int) -> None:
    """Refuse a CSV text whose header line (``line`` of the file) is blank: the names would be read from
    nowhere and every row would shift by one."""
    if not re.split(r"\r\n|\r|\n", text, maxsplit=1)[0].strip():
        raise InputDataError(
            f"line {line} is blank: the header (the column names) must be the first line",
            path=path,
            hint="remove the blank line(s) above the header.",
        )


@dataclass(frozen=True)
class CsvTable:
    """One CSV file as read.

    Attributes:
        frame: The columns read, every cell as trimmed text (empty = null), under their held names
            (:func:`elo_batch.inputs.inputfile.held_names`); ``source_row``; and, when a row has more or fewer
            fields than the header, ``__ragged__`` (the reason).
        header: Every column's name as the file spells it (a formula escape undone), read or not.
        text: The file's size, hash and encoding.
        separator: The field separator. blank_rows: Blank lines skipped.
    """

    frame: pl.DataFrame
    header: tuple[str, ...]
    text: textfile.TextFile
    separator: str
    blank_rows: int

    @property
    def encoding(self) -> str:
        """The encoding as the manifest records it (``utf-8-sig``: UTF-8 with a byte-order mark)."""
        return "utf-8-sig" if self.text.skip else self.text.codec


@dataclass(frozen=True)
class _Layout:
    """Where a UTF-8 file's rows are: ``skip`` characters before the header (an Excel ``sep=`` line);
    ``header``: the columns' held names, ``written``: as the file spells them."""

    source: str
    path: str
    separator: str
    skip: int
    header: list[str]
    written: tuple[str, ...]
    quoted: bool  # it holds a quote or a unit separator: its lines are not always its rows

    def scan(self) -> pl.LazyFrame:
        """The rows as polars reads them (header as given, every cell as text)."""
        return pl.scan_csv(
            self.source,
            separator=self.separator,
            new_columns=self.header,
            infer_schema=False,
            raise_if_empty=False,
            truncate_ragged_lines=True,
            skip_rows=1 if self.skip else 0,
        )


def read_csv_file(file: textfile.Stored, encoding: str | None, columns: Collection[str] | None = None) -> CsvTable:
    """Read a CSV file (see :func:`elo_batch.inputs.readers.read_table` for what is deliberate).

    Args:
        file: The file, hashed (see :func:`elo_batch.inputs.textfile.stored`).
        encoding: Force a text encoding.
        columns: Held names of the columns to read (the others cost no memory); None: all.

    Raises:
        OSError: the file cannot be read (the caller names it).
        InputDataError: no header (or a blank first line), not text in a known encoding, binary, or two
            columns of one name.
        UsageError: ``encoding`` is not an encoding Python knows.
    """
    text = textfile.check(file, encoding)
    with _utf8(file.path, text) as layout:
        keep = [i for i, name in enumerate(layout.header) if columns is None or name in columns] or [0]
        frame, fields = _rows(layout, keep)
        blank_lines = fields.pop("blank") if len(keep) < len(layout.header) else None
        frame, blank = _cells(frame, fields["fields"], blank_lines)
        if w.RAGGED in frame.columns:  # the reasons, from the fields each row has
            frame = _ragged_reasons(frame, layout)
    return CsvTable(frame, layout.written, text, layout.separator, blank)


def read_csv_rows(file: textfile.Stored, encoding: str | None, rows: pl.Series) -> WholeRows:
    """Whole rows of a CSV file, for the ``raw`` of rows rejected after the file was read for some columns
    only: the rows whose fields are the header's, every column, as :func:`read_csv_file` reads them (cells
    trimmed), with their ``source_row``; the rows with more or fewer fields, as ``raw`` from their own
    fields (:func:`elo_batch.inputs.raw.fields_raw`). The file is streamed and only these rows are kept.

    Raises:
        As :func:`read_csv_file`.
    """
    text = textfile.check(file, encoding)
    with _utf8(file.path, text) as layout:
        counts = _field_counts(layout, with_blank=False)
        try:
            python = counts is None or counts["fields"].len() != layout.scan().select(pl.len()).collect().item()
        except pl.exceptions.PolarsError:  # as when the file was read
            python = True
        numbers = rows.cast(pl.Int64)
        ragged = _ragged_rows(numbers, counts, len(layout.header))
        regular = numbers.filter(~numbers.is_in(ragged.implode()))
        whole = _trimmed(_whole_rows(layout, regular, python)) if regular.len() else _no_rows(layout.header)
        return WholeRows(whole, _ragged_raw(layout, ragged))


def _no_rows(header: list[str]) -> pl.DataFrame:
    """No whole rows (each row wanted is ragged): the file's columns and ``source_row``, not read again."""
    return pl.DataFrame(schema={**dict.fromkeys(header, pl.String), SOURCE_ROW: pl.Int64})


def _ragged_rows(rows: pl.Series, counts: dict[str, pl.Series] | None, width: int) -> pl.Series:
    """Those of ``rows`` (source_row numbers) with more or fewer fields than the header's ``width``."""
    if counts is None:  # Python's csv cannot read the file: every row is read as polars reads it
        return rows.clear()
    fields = counts["fields"]
    known = rows.filter(rows.is_between(1, fields.len()))
    return known.filter(~fields.gather(known - 1).is_in([0, width]))


def _ragged_raw(layout: _Layout, rows: pl.Series) -> pl.DataFrame:
    """The ``raw`` of rows ``rows`` (ragged ones) from their own fields, :data:`PYTHON_ROWS` rows at a
    time: a line split at the separator where no field can be quoted, else Python's csv module."""
    lines = _split_lines(layout, rows) if not layout.quoted else _csv_fields(layout, rows)
    parts = [pl.DataFrame(schema=RAGGED_RAW_SCHEMA)]
    for at in range(0, lines.height, PYTHON_ROWS):
        parts.append(fields_raw(_long_fields(lines.slice(at, PYTHON_ROWS), layout.header)))
    return pl.concat(parts)


def _split_lines(layout: _Layout, rows: pl.Series) -> pl.DataFrame:
    """Rows ``rows`` of a file without quotes: (``source_row``, ``fields``), a line per row, streamed."""
    return (
        _lines(layout)
        .with_row_index(w.ROW_NUMBER)  # the header is line 0, as _line_counts counts
        .filter(pl.col(w.ROW_NUMBER).cast(pl.Int64).is_in(rows.implode()))
        .select(pl.col(w.ROW_NUMBER).cast(pl.Int64).alias(SOURCE_ROW), pl.col("line").str.split(layout.separator))
        .collect(engine="streaming")
        .rename({"line": "fields"})
    )


def _csv_fields(layout: _Layout, rows: pl.Series) -> pl.DataFrame:
    """Rows ``rows`` as Python's csv module reads them: (``source_row``, ``fields``), streamed."""
    wanted, numbers, fields, start = set(rows.to_list()), [], [], 1
    for body in _python_rows(layout):
        kept = [(number, row) for number, row in enumerate(body, start) if number in wanted]
        numbers += [number for number, _ in kept]
        fields += [row for _, row in kept]
        start += len(body)
    return pl.DataFrame(
        {SOURCE_ROW: numbers, "fields": fields}, schema={SOURCE_ROW: pl.Int64, "fields": pl.List(pl.String)}
    )


def _long_fields(lines: pl.DataFrame, header: list[str]) -> pl.DataFrame:
    """(``source_row``, ``fields``) as a row per field (:data:`elo_batch.inputs.raw.FIELDS_SCHEMA`), each
    cell as :func:`_trimmed_column` keeps the cells of its column."""
    names = pl.DataFrame({"field": range(1, len(header) + 1), "name": header}).cast({"field": pl.Int64})
    fields = pl.col("fields")
    long = (
        lines.select(SOURCE_ROW, pl.int_ranges(1, fields.list.len() + 1).alias("field"), fields.alias("value"))
        .explode("field", "value")
        .join(names, on="field", how="left", maintain_order="left")
    )
    return long.select(SOURCE_ROW, "field", "name", _kept_cell(pl.col("value"), pl.col("name").is_in(ID_COLUMNS)))


def _trimmed(whole: pl.DataFrame) -> pl.DataFrame:
    """Whole rows (with ``source_row``) with their cells as :func:`_cells` makes them."""
    return _cells(whole.drop(SOURCE_ROW), None, None)[0].with_columns(whole[SOURCE_ROW])


@contextlib.contextmanager
def _utf8(path: str, text: textfile.TextFile) -> Iterator[_Layout]:
    """The file's layout, read from the file itself (or what a gzip file holds) when it is UTF-8, else
    from a temporary UTF-8 copy (removed on leaving)."""
    temporary = None if text.utf8 else textfile.transcode(text)
    try:
        yield _layout(temporary or text.source, path, text.found.quote or text.found.unit)
    finally:
        if temporary:
            os.remove(temporary)


def _layout(source: str, path: str, quoted: bool) -> _Layout:
    """The separator (an Excel ``sep=`` first line's, else the header's most frequent) and the header.

    Raises:
        InputDataError: the header line is blank, or cannot be read.
    """
    first = _line(source, 0).rstrip("\n")
    named = re.fullmatch(r"\s*sep=(.)\s*", first, flags=re.IGNORECASE)
    if named:  # the header is the next line
        separator, skip = named.group(1), len(first) + 1
    else:
        counts = {sep: len(re.sub(r'"[^"]*"', "", first).split(sep)) - 1 for sep in SEPARATORS}
        best = max(SEPARATORS, key=lambda sep: counts[sep])
        separator, skip = best if counts[best] else ",", 0
    written, held = _header(source, skip, separator, path=path)
    return _Layout(source, path, separator, skip, held, written, quoted)


def _text_after(source: str, skip: int) -> io.TextIOWrapper:
    """The file as text from character ``skip`` on (a BOM is not text), line ends as written."""
    handle = open(source, encoding="utf-8-sig", newline="")  # noqa: SIM115 (the caller closes it)
    handle.read(skip)
    return handle


def _line(source: str, skip: int) -> str:
    """The text from character ``skip`` up to and with the next line feed (as polars ends lines)."""
    parts = []
    with _text_after(source, skip) as handle:
        while block := handle.read(1 << 16):
            end = block.find("\n")
            parts.append(block if end < 0 else block[: end + 1])
            if end >= 0:
                break
    return "".join(parts)


def _header(source: str, skip: int, separator: str, *, path: str) -> tuple[tuple[str, ...], list[str]]:
    """Header names as written (a formula escape undone) and as held; unnamed columns (a trailing
    separator) are called ``column_<n>``. A quoted name may hold a line break."""
    first = _line(source, skip)
    check_header_line(first, path, line=2 if skip else 1)
    with _text_after(source, skip) as handle:
        odd = first.count('"') % 2  # a quoted name with a line break: the csv module reads on
        lines: Iterator[str] = handle if odd else io.StringIO(first, newline="")
        try:
            names = next(csv.reader(lines, delimiter=separator))
        except (csv.Error, StopIteration) as exc:
            raise InputDataError(f"cannot read the header line ({exc})", path=path) from exc
    names = [unescape_name(name) if name.strip() else "" for name in names]
    names = _named(names)
    return tuple(names), held_names(names, path)


def _named(names: list[str]) -> list[str]:
    """Header names with each empty one called ``column_<n>`` (its position), with ``_`` added while the
    header has that name too (a header of ``,column_6`` is not two columns of one name)."""
    taken = {normalise(name) for name in names if name}
    named = []
    for position, name in enumerate(names, 1):
        if not name:
            name = f"column_{position}"
            while normalise(name) in taken:
                name += "_"
            taken.add(normalise(name))
        named.append(name)
    return named


def _rows(layout: _Layout, keep: list[int]) -> tuple[pl.DataFrame, dict[str, pl.Series]]:
    """(the columns ``keep`` of every row, the fields per row and whether each line is blank): polars,
    unless its rows are not those of Python's csv (a stray quote)."""
    projected = len(keep) < len(layout.header)
    frame: pl.DataFrame | None = None
    try:
        frame = layout.scan().select(pl.nth(keep)).collect()
        fields = _field_counts(layout, with_blank=projected)
        if fields is not None and fields["fields"].len() == frame.height:
            return frame, fields
    except pl.exceptions.PolarsError:  # a stray quote: Python's csv reads on, the row is then ragged
        pass
    frame = None
    return _read_python(layout, keep)


def _field_counts(layout: _Layout, *, with_blank: bool) -> dict[str, pl.Series] | None:
    """Per data row: ``fields`` (0 for a blank line) and, ``with_blank``, ``blank`` (every cell is empty
    or whitespace, read or not); None when Python's csv cannot read the file."""
    if not layout.quoted:  # a line is a row, fields = separators + 1: counted by polars, streamed
        return _line_counts(layout, with_blank=with_blank)
    return _csv_counts(layout, with_blank=with_blank)


def _line_counts(layout: _Layout, *, with_blank: bool) -> dict[str, pl.Series]:
    """:func:`_field_counts` of a file without quotes: each line's separators counted by polars."""
    line = pl.col("line")
    cells = line.str.replace_all(layout.separator, "", literal=True).str.strip_chars()
    stats = (
        _lines(layout)
        .select(
            pl.when(line.is_not_null()).then(line.str.count_matches(layout.separator, literal=True) + 1)
            .otherwise(0).cast(pl.Int64).alias("fields"),
            *([(line.is_null() | (cells.str.len_bytes() == 0)).alias("blank")] if with_blank else []),
        )
        .collect(engine="streaming")
        .slice(1)
    )  # fmt: skip
    return {name: stats[name] for name in stats.columns}


def _lines(layout: _Layout) -> pl.LazyFrame:
    """The file's lines (from its header line on) as one text column ``line``, streamed."""
    return pl.scan_csv(
        layout.source,
        has_header=False,
        separator=textfile.UNIT_SEPARATOR,
        quote_char=None,
        new_columns=["line"],
        infer_schema=False,
        raise_if_empty=False,
        skip_rows=1 if layout.skip else 0,
    )


def _csv_counts(layout: _Layout, *, with_blank: bool) -> dict[str, pl.Series] | None:
    """:func:`_field_counts` of a file with quotes, as Python's csv reads it (None: it cannot)."""
    counts, blanks = array("q"), array("b")
    with _text_after(layout.source, layout.skip) as handle:
        reader = csv.reader(handle, delimiter=layout.separator)
        try:
            if with_blank:
                for row in reader:
                    counts.append(len(row))
                    blanks.append(not "".join(row).strip())
            else:
                counts.extend(map(len, reader))
        except csv.Error:
            return None
    import numpy as np  # only for a file with quotes: a run's start-up loads no numpy

    found = {"fields": pl.Series(np.frombuffer(counts, dtype=np.int64)).slice(1)}
    if with_blank:
        found["blank"] = pl.Series(np.frombuffer(blanks, dtype=np.int8)).cast(pl.Boolean).slice(1)
    return found


def _python_rows(layout: _Layout) -> Iterator[list[list[str]]]:
    """The data rows as Python's csv module reads them, :data:`PYTHON_ROWS` at a time.

    Raises:
        InputDataError: the csv module cannot read the file.
    """
    with _text_after(layout.source, layout.skip) as handle:
        reader = csv.reader(handle, delimiter=layout.separator)
        try:
            next(reader, None)  # the header
            while body := list(itertools.islice(reader, PYTHON_ROWS)):
                yield body
        except csv.Error as exc:
            raise InputDataError(f"not a readable CSV file ({exc})", path=layout.path) from exc


def _python_frame(body: list[list[str]], header: list[str], keep: list[int]) -> pl.DataFrame:
    columns = {header[i]: [row[i] if i < len(row) and row[i] != "" else None for row in body] for i in keep}
    return pl.DataFrame(columns, schema=dict.fromkeys(columns, pl.String))


def _read_python(layout: _Layout, keep: list[int]) -> tuple[pl.DataFrame, dict[str, pl.Series]]:
    """Python's csv module for files whose rows polars splits differently or refuses."""
    frames = [_python_frame([], layout.header, keep)]
    counts: list[pl.Series] = [pl.Series([], dtype=pl.Int64)]
    blanks: list[pl.Series] = [pl.Series([], dtype=pl.Boolean)]
    for body in _python_rows(layout):
        frames.append(_python_frame(body, layout.header, keep))
        counts.append(pl.Series([len(row) for row in body], dtype=pl.Int64))
        blanks.append(pl.Series([not "".join(row).strip() for row in body], dtype=pl.Boolean))
    return pl.concat(frames), {"fields": pl.concat(counts), "blank": pl.concat(blanks)}


def _whole_rows(layout: _Layout, rows: pl.Series, python: bool) -> pl.DataFrame:
    """Rows ``rows`` (source_row numbers), every column as read (untrimmed), and ``source_row``."""
    wanted = rows.cast(pl.Int64).implode()
    if not python:
        return (
            layout.scan()
            .with_row_index(w.ROW_NUMBER, offset=1)
            .filter(pl.col(w.ROW_NUMBER).cast(pl.Int64).is_in(wanted))
            .with_columns(pl.col(w.ROW_NUMBER).cast(pl.Int64).alias(SOURCE_ROW))
            .drop(w.ROW_NUMBER)
            .collect(engine="streaming")
        )
    every = list(range(len(layout.header)))
    frames, start, kept = [_python_frame([], layout.header, every)], 1, set(rows.to_list())
    numbers: list[int] = []
    for body in _python_rows(layout):
        chosen = [row for number, row in enumerate(body, start) if number in kept]
        numbers += [number for number in range(start, start + len(body)) if number in kept]
        frames.append(_python_frame(chosen, layout.header, every))
        start += len(body)
    return pl.concat(frames).with_columns(pl.Series(SOURCE_ROW, numbers, dtype=pl.Int64))


def _cells(frame: pl.DataFrame, fields: pl.Series | None, blank_lines: pl.Series | None) -> tuple[pl.DataFrame, int]:
    """Cells trimmed (empty = null; a formula escape undone, ids aside), a column at a time and only
    where a cell needs it, so that the frame is never held twice; blank rows skipped (every cell null,
    and with ``blank_lines`` every cell not read empty too); rows whose ``fields`` differ from the
    header's marked. (rows, blank rows).

    ``frame`` is changed in place (its columns replaced), so that the caller's name for it does not
    keep the untrimmed text alive. Each step works on one column by its position, never on the whole
    frame: a frame of many columns (a wide header) costs time linear in its cells.
    """
    width = frame.width
    _trim_columns(frame)
    if fields is None:
        return frame, 0
    frame.insert_column(frame.width, pl.int_range(1, frame.height + 1, dtype=pl.Int64, eager=True).alias(SOURCE_ROW))
    frame.insert_column(frame.width, fields.alias(w.RAGGED))
    blank_rows = _blank_rows(frame.get_columns()[:width], blank_lines)
    blank = int(blank_rows.sum()) if blank_rows is not None else 0
    if blank_rows is not None and blank:  # a column at a time, each freed once filtered
        kept, filtered = ~blank_rows, []
        for name in reversed(frame.columns):  # the last first: each found at once
            filtered.append(frame.drop_in_place(name).filter(kept))
        frame = pl.DataFrame(filtered[::-1])
    return frame, blank


def _trim_columns(frame: pl.DataFrame) -> None:
    """The text columns of ``frame`` replaced, in place, by their cells as :func:`_cells` keeps them."""
    names = frame.columns
    changing = [
        changes
        for at in range(0, len(names), _BATCH_COLUMNS)
        for changes in frame.select(_changes(name).any() for name in names[at : at + _BATCH_COLUMNS]).row(0)
    ]  # a pass over the cells, a batch of columns at a time (see _BATCH_COLUMNS)
    for index in range(len(names)):  # one chunk per column, a column at a time: polars would copy the
        column = frame.to_series(index).rechunk()  # frame whole to align the new columns
        frame.replace_column(index, _trimmed_column(column) if changing[index] else column)  # the old one freed


def _blank_rows(columns: list[pl.Series], blank_lines: pl.Series | None) -> pl.Series | None:
    """Where a row is blank: every cell of ``columns`` null (and with ``blank_lines`` every cell not read
    empty too); None when no row can be (a column without nulls)."""
    if not all(column.null_count() for column in columns):
        return None
    masks = [column.is_null() for column in columns]
    return functools.reduce(operator.and_, masks if blank_lines is None else [*masks, blank_lines])


#: Columns whose cells one query checks: a query's planning holds some 20 KB per expression, so a wide
#: header (10,000 names) checked in one query took 230 MB; in batches, 20 MB, in the same time.
_BATCH_COLUMNS = 256


def _changes(name: str) -> pl.Expr:
    """Where a cell of column ``name`` is not kept as read: blank, padded, or (ids aside) escaped."""
    raw = pl.col(name)
    changes = raw.str.contains(r"^\s|\s$") | (raw.str.len_bytes() == 0)
    return changes if name in ID_COLUMNS else changes | raw.str.starts_with("'")


def _trimmed_column(column: pl.Series) -> pl.Series:
    """One text column as :func:`_cells` makes it."""
    return column.to_frame().select(_kept_cell(pl.col(column.name), column.name in ID_COLUMNS)).to_series()


def _kept_cell(raw: pl.Expr, is_id: bool | pl.Expr) -> pl.Expr:
    """A cell as read kept: trimmed, a formula escape undone (not in an id: ``is_id``, for a column or per
    cell), empty = null; named as ``raw``."""
    cell = raw.str.strip_chars()
    if isinstance(is_id, bool):  # a whole column: the escape is looked for only where it can be
        cell = cell if is_id else unescape(cell)
    else:
        cell = pl.when(is_id).then(cell).otherwise(unescape(cell))
    return pl.when(cell.str.len_bytes() > 0).then(cell).alias(raw.meta.output_name())


def _ragged_reasons(frame: pl.DataFrame, layout: _Layout) -> pl.DataFrame:
    """``__ragged__``: the reason for each row whose field count differs from the header's (null for
    the others). Worked out from the fields each row has, never a frame of the header's width: a wide
    header over many short rows costs the file's size, not rows x width (20,000 rows of 4 fields under
    10,004 names: 10.9 GB and 62 s before)."""
    width = len(layout.header)
    ragged = frame.get_column(w.RAGGED) != width
    if not ragged.any():
        return frame.drop(w.RAGGED)
    rows = frame.filter(ragged).select(SOURCE_ROW, w.RAGGED)
    spanned = pl.Series("lines", _lines_spanned(layout, rows[SOURCE_ROW]) if layout.quoted else [1] * rows.height)
    reason = _field_count_reason(width, layout.separator)
    lines = pl.col("lines")
    reasons = (
        rows.with_columns(spanned.cast(pl.Int64))
        .select(
            pl.when(lines > 1)
            .then(pl.format("{} A quoted value in it runs over {} lines: is a closing quote missing?", reason, lines))
            .otherwise(reason)
        )
        .to_series()
    )
    marked = pl.repeat(None, frame.height, dtype=pl.String, eager=True).alias(w.RAGGED)
    return frame.with_columns(marked.scatter(ragged.arg_true(), reasons))


def _lines_spanned(layout: _Layout, rows: pl.Series) -> list[int]:
    """Per row of ``rows`` (source_row numbers, ascending), the lines its longest value runs over once
    trimmed (1 for a value on one line), from the fields Python's csv module reads, streamed."""
    wanted, spanned, start = set(rows.to_list()), [], 1
    for body in _python_rows(layout):
        spanned += [
            max((cell.strip().count("\n") for cell in row), default=0) + 1
            for number, row in enumerate(body, start)
            if number in wanted
        ]
        start += len(body)
    return spanned


def _field_count_reason(width: int, separator: str) -> pl.Expr:
    """The reason of a row of ``__ragged__`` fields where the header has ``width``."""
    return pl.format(
        f"the row has {{}} field{{}} where the header has {width}. Hint: a value that holds the separator "
        f"{separator!r} must be in double quotes.",
        pl.col(w.RAGGED),
        pl.when(pl.col(w.RAGGED) == 1).then(pl.lit("")).otherwise(pl.lit("s")),
    )
