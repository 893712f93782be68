"""FIDE's fixed-width TXT rating list sliced into text batches by its header's columns; no rating rules.

A header line, then one line per player. A column runs from where its name starts in the header to where
the next name starts (``ID Number`` at 1, ``Name`` at 16, ``Fed`` at 77, ...); values are left-aligned in
it. A line longer than the header is one whose ``OTit`` text ran over its column (FIDE's combined list
of October 2026 has three, such as ``SI,FI,LSI,SLI,NAAFM``): ``OTit`` takes the excess and the columns
after it are read that much further on. The file is read a chunk of whole lines at a time and each chunk
is sliced by polars, :data:`BATCH_LINES` lines at a time, never a Python loop per player.
"""

from __future__ import annotations

import codecs
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO

import polars as pl

from elo_batch import working as w
from elo_batch.errors import InputDataError

#: Bytes read at a time (cut at the last line break), and lines sliced at a time (short lines are many).
CHUNK_BYTES = 4 * 2**20
BATCH_LINES = 65_536
#: The column whose text may run over (see the module's docstring).
OVERFLOWING = "otit"


@dataclass
class TxtStats:
    """What the slicing skipped or read specially: blank lines, and lines longer than the header."""

    blank_lines: int = 0
    long_lines: int = 0


def line_batches(
    head: bytes, handle: IO[bytes], source: str, *, layout: Callable[[list[str], str], dict[str, str]], stats: TxtStats
) -> Iterator[pl.DataFrame]:
    """The players of a TXT list, a chunk of lines at a time, as text columns.

    Args:
        head: The first bytes of the file, already read; ``handle`` the rest.
        source: The file, for messages.
        layout: Given the header's column names (as spelled, in order) and the header, the columns to
            keep and the names to give them (it may raise).
        stats: Counted into.

    Yields:
        Frames of ``__row`` (the line's number less one: the header is line 1) and the kept columns
        (text, stripped); blank lines are skipped.

    Raises:
        InputDataError: no line break in the first chunk, or bytes that are not text.
    """
    chunks = _chunks(head, handle, source)
    first = next(chunks, b"").removeprefix(codecs.BOM_UTF8)
    header_bytes, _, rest = first.partition(b"\n")
    decode = _Decoder(source)
    columns = _header_columns(decode(header_bytes, 1).rstrip(), layout)
    row = 1
    for piece in itertools.chain([rest] if rest else [], chunks):
        lines = _lines(decode(piece, row + 1), row)
        row += lines.height
        empty = pl.col("line").str.strip_chars() == ""
        stats.blank_lines += lines.filter(empty).height
        for batch in lines.filter(~empty).iter_slices(BATCH_LINES):
            yield columns.cut(batch, stats)


def _lines(chunk: str, row: int) -> pl.DataFrame:
    """A chunk's lines (``line``, without the line break) and their rows (``__row``, from ``row``)."""
    lines = pl.DataFrame({"line": [chunk.removesuffix("\n")]}).select(pl.col("line").str.split("\n"))
    return lines.explode("line").select(
        (pl.int_range(pl.len()) + row).alias(w.LIST_ROW), pl.col("line").str.strip_chars_end("\r")
    )


@dataclass(frozen=True)
class _Columns:
    """Where the kept columns lie on a line: each one's span (by its header label) and the name it is
    given, where the overflowing column starts, and the header's width."""

    spans: dict[str, tuple[int, int | None]]
    kept: dict[str, str]
    overflowing: int
    width: int

    def cut(self, batch: pl.DataFrame, stats: TxtStats) -> pl.DataFrame:
        """The kept columns of a batch of lines (text, stripped); its lines longer than the header counted."""
        long = batch.filter(pl.col("line").str.len_chars() > self.width).height
        stats.long_lines += long
        width = self.width if long else None
        cut = [
            _cut(*self.spans[label], self.overflowing, width=width).str.strip_chars().alias(self.kept[label])
            for label in self.kept
        ]
        return batch.select(w.LIST_ROW, *cut)


def _header_columns(header: str, layout: Callable[[list[str], str], dict[str, str]]) -> _Columns:
    """The columns of the header's names, those kept as ``layout`` tells."""
    names = [(m.group(), m.start()) for m in re.finditer(r"ID Number|\S+", header, re.IGNORECASE)]
    kept = layout([label for label, _ in names], header)
    ends: list[int | None] = [start for _, start in names[1:]] + [None]  # the last column: to the line's end
    spans = {label: (start, end) for (label, start), end in zip(names, ends, strict=True)}
    overflowing = next((start for label, start in names if label.lower() == OVERFLOWING), len(header))
    return _Columns(spans=spans, kept=kept, overflowing=overflowing, width=len(header))


def _cut(start: int, end: int | None, overflowing: int, *, width: int | None) -> pl.Expr:
    """The column from ``start`` to ``end`` (0-based; None: to the line's end). ``width``: the header's,
    when some line of the chunk is longer."""
    length = None if end is None else end - start
    line = pl.col("line")
    if width is None or start < overflowing:
        return line.str.slice(start, length)
    excess = (line.str.len_chars() - width).clip(0)
    if start == overflowing:
        return line.str.slice(start, excess + (length or 0))
    return line.str.slice(excess + start, length)


class _Decoder:
    """Bytes of the list as text, a chunk at a time: ASCII as FIDE writes it, else UTF-8, else Windows-1252,
    the one the first chunk that is not ASCII needs, and that one for the rest of the file."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.encoding: str | None = None

    def __call__(self, data: bytes, line: int) -> str:
        """``data`` as text; ``line``: the number of its first line, for messages."""
        text = data.decode("ascii") if data.isascii() else self._decoded(data, line)
        if "\x00" in text:
            at = line + text.count("\n", 0, text.index("\x00"))
            raise InputDataError(f"line {at} holds a NUL character: the file is not text", path=self.source)
        return text

    def _decoded(self, data: bytes, line: int) -> str:
        """``data``, not ASCII, as text: in the file's encoding once one is taken, else UTF-8 or Windows-1252."""
        for encoding in [self.encoding] if self.encoding else ["utf-8", "cp1252"]:
            try:
                text, self.encoding = data.decode(encoding), encoding
                break
            except UnicodeDecodeError as exc:
                error = exc
        else:
            at = line + data.count(b"\n", 0, error.start)
            where = f"byte 0x{data[error.start]:02X} on line {at}"
            raise InputDataError(
                f"{where} is not {self.encoding} as the lines before it are"
                if self.encoding
                else f"{where} is not UTF-8 or Windows-1252 text",
                path=self.source,
                hint="give the list as FIDE published it (ASCII text).",
            )
        return text


def _chunks(head: bytes, handle: IO[bytes], source: str) -> Iterator[bytes]:
    """The file's bytes in pieces of whole lines (the last piece may end without a line break)."""
    rest = head
    while True:
        block = handle.read(CHUNK_BYTES)
        if not block:
            if rest:
                yield rest
            return
        rest += block
        cut = rest.rfind(b"\n")
        if cut < 0:
            if len(rest) > CHUNK_BYTES:
                raise InputDataError(
                    f"no line break in the first {len(rest):,} bytes: not a FIDE rating list", path=source
                )
            continue
        yield rest[: cut + 1]
        rest = rest[cut + 1 :]
