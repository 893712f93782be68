"""Reading one CSV file in bounded memory: encoding, separator, header, rows, ragged rows; no rating rules.

The file is never held whole as bytes or text. Streamed passes over it, a block at a time, hash it and
check its encoding; a file that is not UTF-8 (or has classic Mac line ends) is transcoded, a block at a
time, into a temporary UTF-8 file. Polars reads the UTF-8 file itself (every cell as text), the fields
of each line are counted from the file too, and the cells are then trimmed a column at a time. A run
holds about the frame (some twice the file's size) and one column more.

What is read, and every message, is as :func:`elo_batch.readers.read_table` describes.
"""

from __future__ import annotations

import codecs
import csv
import functools
import hashlib
import io
import itertools
import operator
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import polars as pl

from elo_batch.columns import SOURCE_ROW
from elo_batch.errors import InputDataError, UsageError
from elo_batch.formulas import ID_COLUMNS, unescape, unescape_name
from elo_batch.readers import (
    _BINARY,
    _UTF8_SEQUENCE,
    RAGGED,
    SEPARATORS,
    _check_unique,
    _no_header,
    _normalise,
)

#: Bytes read at a time.
BLOCK = 1 << 22
#: Rows of a file read by Python's csv module (which polars splits otherwise) turned into a frame at a time.
PYTHON_ROWS = 100_000
#: A character no text file holds, used as the separator to read whole lines.
_UNIT_SEPARATOR = "\x1f"


@dataclass(frozen=True)
class CsvTable:
    """One CSV file as read.

    Attributes:
        frame: Every cell as trimmed text (empty = null), the header's names (unnormalised),
            ``source_row`` and, when a row has more or fewer fields than the header, ``__ragged__``.
        size: Bytes. sha256: Hex digest of the bytes. encoding: The text encoding used.
        separator: The field separator. blank_rows: Blank lines skipped.
    """

    frame: pl.DataFrame
    size: int
    sha256: str
    encoding: str
    separator: str
    blank_rows: int


@dataclass
class _Text:
    """What a decoding pass found in the text."""

    quote: bool = False
    unit: bool = False
    line_feed: bool = False
    carriage_return: bool = False
    text: bool = False
    nul_line: int | None = None


class _BadByte(Exception):
    def __init__(self, byte: int, line: int) -> None:
        self.byte, self.line = byte, line


def read_csv_file(path: str, encoding: str | None) -> CsvTable:
    """Read a CSV file (see :func:`elo_batch.readers.read_table` for what is deliberate).

    Raises:
        OSError: the file cannot be read (the caller names it).
        InputDataError: no header, not text in a known encoding, binary, or two columns of one name.
        UsageError: ``encoding`` is not an encoding Python knows.
    """
    size, sha256, head, nonblank = _hash(path)
    if not nonblank:
        raise _no_header(path, "the file is empty (0 bytes)" if size == 0 else "the file holds only blank lines")
    name, skip, found = _encoding(path, head, encoding)
    if not found.text:
        raise _no_header(path, "the file holds only blank lines")
    mac = found.carriage_return and not found.line_feed
    temporary = None
    try:
        if mac or codecs.lookup(name).name != "utf-8":  # polars reads UTF-8 only
            temporary = _transcode(path, name, skip, mac)
        source = temporary or path
        frame, separator, blank = _read(source, found.quote or found.unit, path)
    finally:
        if temporary:
            os.remove(temporary)
    return CsvTable(frame, size, sha256, "utf-8-sig" if skip else name, separator, blank)


def _hash(path: str) -> tuple[int, str, bytes, bool]:
    """(bytes, SHA-256, the first bytes, whether any byte is not whitespace)."""
    digest, size, head, nonblank = hashlib.sha256(), 0, b"", False
    with open(path, "rb") as handle:
        while block := handle.read(BLOCK):
            digest.update(block)
            head = head or block[:4]
            size += len(block)
            nonblank = nonblank or bool(block.strip())
    return size, digest.hexdigest(), head, nonblank


def _encoding(path: str, head: bytes, forced: str | None) -> tuple[str, int, _Text]:
    """(codec, BOM bytes to skip, what the text holds): the forced encoding, else UTF-8 (BOM or not) or
    UTF-16 with a BOM, else Windows-1252 when it reads every byte and nothing in the file is UTF-8."""
    if forced:
        try:
            return forced, 0, _decode_pass(path, forced, 0)
        except LookupError as exc:
            raise UsageError(f"{forced!r} is not a text encoding", column="--encoding") from exc
        except _BadByte as bad:
            raise InputDataError(
                f"byte 0x{bad.byte:02X} on line {bad.line} is not {forced}",
                path=path,
                hint="name the encoding the file was saved in (utf-8, cp1252, latin-1, ...).",
            ) from None
    for magic, kind in _BINARY.items():
        if head.startswith(magic):
            raise InputDataError(f"the file is {kind}, not CSV text", path=path, hint="export it as CSV text.")
    name, skip = "utf-8", 0
    if head.startswith(codecs.BOM_UTF8):
        skip = len(codecs.BOM_UTF8)
    elif head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        name = "utf-16"
    try:
        found = _decode_pass(path, name, skip)
    except _BadByte as bad:
        where = f"byte 0x{bad.byte:02X} on line {bad.line}"
        if name == "utf-8" and not skip and _any_utf8(path):
            raise InputDataError(
                f"the file mixes encodings: {where} is not UTF-8, while other characters are UTF-8",
                path=path,
                hint="fix or re-save the file as UTF-8; if it really is one legacy encoding, name it with "
                "--encoding (for example cp1252).",
            ) from None
        try:
            name, skip, found = "cp1252", 0, _decode_pass(path, "cp1252", 0)
        except _BadByte:
            raise InputDataError(
                f"the file is not UTF-8 or Windows-1252 text ({where})",
                path=path,
                hint="save it as UTF-8, or name its encoding with --encoding (for example latin-1).",
            ) from None
    if found.nul_line is not None:
        raise InputDataError(
            f"the file holds NUL characters (line {found.nul_line}): it is binary, or UTF-16 text without a "
            "byte-order mark",
            path=path,
            hint="save it as UTF-8 CSV, or name its encoding with --encoding (for example utf-16-le).",
        )
    return name, skip, found


def _decoded(path: str, name: str, skip: int) -> Iterator[str]:
    """The text of the file's bytes after ``skip``, a block at a time.

    Raises:
        _BadByte: a byte is not ``name`` (its value and line).
        LookupError: ``name`` is not a codec.
    """
    decoder = codecs.getincrementaldecoder(name)()
    line_feeds = 0  # in the bytes given to the decoder so far
    with open(path, "rb") as handle:
        handle.seek(skip)
        while True:
            block = handle.read(BLOCK)
            pending = decoder.getstate()[0]
            try:
                yield decoder.decode(block, final=not block)
            except UnicodeDecodeError as exc:
                before = line_feeds - pending.count(b"\n") + exc.object.count(b"\n", 0, exc.start)
                raise _BadByte(exc.object[exc.start], before + 1) from None
            if not block:
                return
            line_feeds += block.count(b"\n")


def _decode_pass(path: str, name: str, skip: int) -> _Text:
    found, line_feeds = _Text(), 0
    for text in _decoded(path, name, skip):
        found.quote = found.quote or '"' in text
        found.unit = found.unit or _UNIT_SEPARATOR in text
        found.line_feed = found.line_feed or "\n" in text
        found.carriage_return = found.carriage_return or "\r" in text
        found.text = found.text or bool(text.strip())
        if found.nul_line is None and "\x00" in text:
            found.nul_line = line_feeds + text.count("\n", 0, text.index("\x00")) + 1
        line_feeds += text.count("\n")
    return found


def _any_utf8(path: str) -> bool:
    """Whether two or more bytes of the file form a UTF-8 character."""
    tail = b""
    with open(path, "rb") as handle:
        while block := handle.read(BLOCK):
            if _UTF8_SEQUENCE.search(tail + block):
                return True
            tail = block[-3:]
    return False


def _transcode(path: str, name: str, skip: int, mac: bool) -> str:
    """A temporary UTF-8 copy of the file (classic Mac line ends as line feeds); its path."""
    handle, temporary = tempfile.mkstemp(prefix="elo-batch-", suffix=".csv")
    with open(handle, "w", encoding="utf-8", newline="") as out:
        for text in _decoded(path, name, skip):
            out.write(text.replace("\r", "\n") if mac else text)
    return temporary


def _read(source: str, quoted: bool, path: str) -> tuple[pl.DataFrame, str, int]:
    """(the rows, the separator, blank rows skipped) of a UTF-8 file; ``quoted``: it holds a quote or a
    unit separator, so that its lines are not always its rows."""
    first = _first_line(source)
    named = re.fullmatch(r"\s*sep=(.)\s*", first, flags=re.IGNORECASE)
    if named:
        separator, skip = named.group(1), len(first) + 1  # the header is the next line
    else:
        counts = {sep: len(re.sub(r'"[^"]*"', "", first).split(sep)) - 1 for sep in SEPARATORS}
        best = max(SEPARATORS, key=lambda sep: counts[sep])
        separator, skip = best if counts[best] else ",", 0
    header = _header(source, skip, separator, path)
    frame: pl.DataFrame | None = None
    try:
        frame = pl.read_csv(
            source,
            separator=separator,
            new_columns=header,
            infer_schema=False,
            raise_if_empty=False,
            truncate_ragged_lines=True,
            skip_rows=1 if named else 0,
        )
        fields = _field_counts(source, skip, separator, quoted, frame.height)
    except pl.exceptions.PolarsError:  # a stray quote: Python's csv reads on, the row is then ragged
        fields = None
    if frame is None or fields is None:  # polars and Python's csv disagree on where rows end: trust the csv module
        frame = None  # let polars' rows go first
        frame, fields = _read_python(source, skip, separator, header, path)
    rows, blank = _cells(frame, header, fields, separator)
    return rows, separator, blank


def _text_after(source: str, skip: int) -> io.TextIOWrapper:
    """The file as text from character ``skip`` on (a BOM is not text), lines as written."""
    handle = open(source, encoding="utf-8-sig", newline="")  # noqa: SIM115 (the caller closes it)
    handle.read(skip)
    return handle


def _first_line(source: str) -> str:
    """The first line, without its line feed (a line runs to a line feed, as polars reads lines)."""
    parts = []
    with _text_after(source, 0) as handle:
        while block := handle.read(1 << 16):
            end = block.find("\n")
            parts.append(block if end < 0 else block[:end])
            if end >= 0:
                break
    return "".join(parts)


def _header(source: str, skip: int, separator: str, path: str) -> list[str]:
    """Header names (a formula escape undone); unnamed columns (a trailing separator) are called
    ``column_<n>``. A quoted name may hold a line break."""
    with _text_after(source, skip) as handle:
        first = _first_line_of(handle)
        if first.count('"') % 2:  # a quoted name with a line break in it: the csv module reads on
            handle.seek(0)
            handle.read(skip)
            lines: Iterator[str] = handle
        else:
            lines = iter([first])
        try:
            names = next(csv.reader(lines, delimiter=separator))
        except (csv.Error, StopIteration) as exc:
            raise InputDataError(f"cannot read the header line ({exc})", path=path) from exc
    names = [unescape_name(name) if name.strip() else f"column_{i}" for i, name in enumerate(names, 1)]
    _check_unique(names, [_normalise(name) for name in names], path)
    return names


def _first_line_of(handle: io.TextIOWrapper) -> str:
    """The next line of ``handle`` with its line feed (the text up to and with the first line feed)."""
    parts = []
    while block := handle.read(1 << 16):
        end = block.find("\n")
        parts.append(block if end < 0 else block[: end + 1])
        if end >= 0:
            break
    return "".join(parts)


def _field_counts(source: str, skip: int, separator: str, quoted: bool, rows: int) -> pl.Series | None:
    """Fields per data row (0 for a blank line), or None when the counts do not line up with ``rows``."""
    if not quoted:  # no quoting: a line is a row, fields = separators + 1; counted by polars, streamed
        line = pl.col("line")
        counts = (
            pl.scan_csv(
                source,
                has_header=False,
                separator=_UNIT_SEPARATOR,
                quote_char=None,
                new_columns=["line"],
                infer_schema=False,
                raise_if_empty=False,
                skip_rows=1 if skip else 0,
            )
            .select(pl.when(line.is_not_null()).then(line.str.count_matches(separator, literal=True) + 1).otherwise(0))
            .collect(engine="streaming")
            .to_series()
            .slice(1)
        )
    else:
        with _text_after(source, skip) as handle:
            try:
                counts = pl.Series(np.fromiter(map(len, csv.reader(handle, delimiter=separator)), dtype=np.int64))
            except csv.Error:
                return None
        counts = counts.slice(1)
    return counts.cast(pl.Int64) if counts.len() == rows else None


def _read_python(
    source: str, skip: int, separator: str, header: list[str], path: str
) -> tuple[pl.DataFrame, pl.Series]:
    """Python's csv module for files whose rows polars splits differently or refuses, a batch of rows at
    a time."""
    frames, counts = [pl.DataFrame(schema=dict.fromkeys(header, pl.String))], []
    with _text_after(source, skip) as handle:
        reader = csv.reader(handle, delimiter=separator)
        try:
            next(reader, None)  # the header
            while body := list(itertools.islice(reader, PYTHON_ROWS)):
                columns = {
                    name: [row[i] if i < len(row) and row[i] != "" else None for row in body]
                    for i, name in enumerate(header)
                }
                frames.append(pl.DataFrame(columns, schema=dict.fromkeys(header, pl.String)))
                counts.append(pl.Series([len(row) for row in body], dtype=pl.Int64))
        except csv.Error as exc:
            raise InputDataError(f"not a readable CSV file ({exc})", path=path) from exc
    return pl.concat(frames), pl.concat(counts) if counts else pl.Series([], dtype=pl.Int64)


def _cells(frame: pl.DataFrame, header: list[str], fields: pl.Series, separator: str) -> tuple[pl.DataFrame, int]:
    """Cells trimmed (empty = null; a formula escape undone, ids aside), a column at a time so that the
    frame is never held twice; blank rows skipped; ragged rows marked. (rows, blank rows)."""
    for name in header:
        raw, identifier = pl.col(name), _normalise(name) in ID_COLUMNS
        changes = raw.str.contains(r"^\s|\s$") | (raw.str.len_bytes() == 0)
        if not frame.select((changes if identifier else changes | raw.str.starts_with("'")).any()).item():
            continue  # as read: no new column
        cell = raw.str.strip_chars() if identifier else unescape(raw.str.strip_chars())
        frame = frame.with_columns(pl.when(cell.str.len_bytes() > 0).then(cell).alias(name))
    frame = frame.with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias(SOURCE_ROW), fields.alias(RAGGED))
    blank = 0
    if all(frame.get_column(name).null_count() for name in header):  # some rows may be blank: all cells null
        blank_rows = functools.reduce(operator.and_, (frame.get_column(name).is_null() for name in header))
        blank = int(blank_rows.sum())
    if blank:  # a column at a time, each freed once filtered
        kept = ~blank_rows
        filtered = {}
        for name in frame.columns:
            filtered[name] = frame.get_column(name).filter(kept)
            frame = frame.drop(name)
        frame = pl.DataFrame(filtered)
    width = len(header)
    ragged = frame.get_column(RAGGED) != width
    if not ragged.any():
        return frame.drop(RAGGED), blank
    reasons = frame.filter(ragged).select(_ragged_reason(header, width, separator)).to_series()
    marked = (
        pl.repeat(None, frame.height, dtype=pl.String, eager=True).alias(RAGGED).scatter(ragged.arg_true(), reasons)
    )
    return frame.with_columns(marked), blank


def _ragged_reason(header: list[str], width: int, separator: str) -> pl.Expr:
    reason = pl.format(
        f"the row has {{}} field{{}} where the header has {width}. Hint: a value that holds the separator "
        f"{separator!r} must be in double quotes.",
        pl.col(RAGGED),
        pl.when(pl.col(RAGGED) == 1).then(pl.lit("")).otherwise(pl.lit("s")),
    )
    spans_lines = pl.any_horizontal(pl.col(header).str.contains("\n", literal=True))
    return (
        pl.when(spans_lines)
        .then(
            pl.format(
                "{} A quoted value in it runs over {} lines: is a closing quote missing?",
                reason,
                pl.max_horizontal(pl.col(header).str.count_matches("\n", literal=True)) + 1,
            )
        )
        .otherwise(reason)
    )
