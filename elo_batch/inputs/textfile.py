"""Streamed passes over a text file's bytes: its hash, what a gzip file holds, its encoding, a UTF-8
copy; nothing held whole.

Each pass reads the file a block at a time (:data:`BLOCK`). A gzip-compressed file is inflated once, in
a stream, into a temporary file (up to :data:`GZIP_RATIO` times its size, at least :data:`GZIP_FLOOR`),
which the other passes read. The encoding rules, and their messages, are those of
:func:`elo_batch.inputs.encoding.detect`, which :func:`~elo_batch.inputs.encoding.decode_text` uses for
bytes already in memory.
"""

from __future__ import annotations

import codecs
import contextlib
import gzip
import hashlib
import os
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from elo_batch.errors import InputDataError
from elo_batch.inputs.encoding import UTF8_SEQUENCE, BadByte, detect

#: Bytes read at a time.
BLOCK = 1 << 22
#: A character no text file holds, used as the separator to read whole lines.
UNIT_SEPARATOR = "\x1f"


#: What a file of no bytes is told.
EMPTY = "the file is empty (0 bytes)"


#: First bytes of a gzip stream.
GZIP_MAGIC = b"\x1f\x8b"


#: A gzip-compressed input may inflate to this many times its size (past :data:`GZIP_FLOOR`); more is
#: refused as a likely decompression bomb (a CSV export compresses 5 to 20 times).
GZIP_RATIO = 100


#: Inflated bytes any gzip-compressed input may reach, whatever its ratio.
GZIP_FLOOR = 64 * 2**20


def no_header(path: str, what: str) -> InputDataError:
    """The error of a CSV file without a header line (``what``: empty, or only blank lines)."""
    return InputDataError(
        what,
        path=path,
        hint="a CSV file needs at least its header line (a month with no games, or a list with no players, "
        "is the header alone); was the export interrupted?",
    )


@dataclass(frozen=True)
class Stored:
    """A file as stored, and where its content is read from.

    Attributes:
        path: The file (what messages name). source: Where its content is: the file itself, or the
            temporary file a gzip-compressed file was inflated into.
        size: Bytes of the file as stored. sha256: Hex digest of them (what the manifest records).
        head: The content's first 4 bytes. content_size: Bytes of the content.
        nonblank: Whether any byte of the content is not whitespace.
    """

    path: str
    source: str
    size: int
    sha256: str
    head: bytes
    content_size: int
    nonblank: bool

    @property
    def compressed(self) -> bool:
        """Whether the content is what a gzip file holds."""
        return self.source != self.path


@contextlib.contextmanager
def stored(path: str) -> Iterator[Stored]:
    """The file hashed, and its content: a gzip-compressed file inflated into a temporary file, in a
    stream (removed on leaving), anything else as it is.

    Raises:
        OSError: the file cannot be read (or the temporary file written).
        InputDataError: a gzip file that is not readable, or that inflates past the limit.
    """
    with open(path, "rb") as handle:
        magic = handle.read(len(GZIP_MAGIC))
    if magic != GZIP_MAGIC:
        size, sha256, head, nonblank = _hash(path)
        yield Stored(path, path, size, sha256, head, size, nonblank)
        return
    size, sha256, _, _ = _hash(path)
    handle_out, temporary = tempfile.mkstemp(prefix="elo-batch-", suffix=".inflated")
    try:
        with open(handle_out, "wb") as out:
            content_size, head, nonblank = _inflate(path, size, out)
        yield Stored(path, temporary, size, sha256, head, content_size, nonblank)
    finally:
        os.remove(temporary)


def _inflate(path: str, size: int, out: IO[bytes]) -> tuple[int, bytes, bool]:
    """Inflate the gzip file (every member of it) into ``out``, a block at a time; (bytes, the first 4,
    whether any is not whitespace).

    Raises:
        InputDataError: not a readable gzip stream, or more than the limit inflated (refused then:
            no more is inflated).
    """
    floor, ratio = GZIP_FLOOR, GZIP_RATIO  # read here: a test may lower them
    limit = max(floor, ratio * size)
    total, head, nonblank = 0, b"", False
    with gzip.open(path, "rb") as stream:
        while True:
            try:
                block = stream.read(BLOCK)
            except (OSError, EOFError, zlib.error) as exc:
                raise InputDataError(
                    f"not a readable gzip file ({exc})",
                    path=path,
                    hint="the file may be truncated (an interrupted copy?); compress it again, or give it "
                    "uncompressed.",
                ) from exc
            if not block:
                return total, head, nonblank
            total += len(block)
            if total > limit:
                raise InputDataError(
                    f"the gzip file inflates to more than {limit:,} bytes (the limit: {ratio} times its size, at "
                    f"least {floor // 2**20} MiB); refused as a likely decompression bomb",
                    path=path,
                    hint="give the file uncompressed if it really is this large.",
                )
            head = head if len(head) >= 4 else (head + block)[:4]
            nonblank = nonblank or bool(block.strip())
            out.write(block)


@dataclass(frozen=True)
class TextFile:
    """A file's bytes, checked as text.

    Attributes:
        size: Bytes. sha256: Hex digest of the bytes (of the file as stored).
        codec: The text encoding. skip: Bytes of a UTF-8 byte-order mark to skip (else 0).
        found: What the text holds. source: Where the text's bytes are (see :class:`Stored`).
    """

    size: int
    sha256: str
    codec: str
    skip: int
    found: Found
    source: str

    @property
    def utf8(self) -> bool:
        """Whether the bytes after ``skip`` are UTF-8 text with line feeds, as polars reads them."""
        return codecs.lookup(self.codec).name == "utf-8" and not self.found.mac


@dataclass
class Found:
    """What a decoding pass found in the text: quotes, unit separators, line ends, any text that is not
    whitespace, the line of the first NUL character."""

    quote: bool = False
    unit: bool = False
    line_feed: bool = False
    carriage_return: bool = False
    text: bool = False
    nul_line: int | None = None

    @property
    def mac(self) -> bool:
        """Classic Mac line ends: carriage returns and no line feed."""
        return self.carriage_return and not self.line_feed


def check(file: Stored, forced: str | None) -> TextFile:
    """Check that a file's content (see :func:`stored`) is text, as :func:`elo_batch.inputs.readers.decode_text`
    does.

    Args:
        file: The file, hashed.
        forced: The encoding to use, or None to detect it.

    Raises:
        OSError: the file cannot be read.
        UsageError: ``forced`` is not an encoding Python knows.
        InputDataError: the file is empty, holds only blank lines, is binary or not text.
    """
    path = file.path
    if not file.nonblank:
        raise no_header(path, EMPTY if file.content_size == 0 else "the file holds only blank lines")
    codec, skip, found = _encoding(file.source, path, file.head, forced=forced)
    if not found.text:
        raise no_header(path, "the file holds only blank lines")
    return TextFile(file.size, file.sha256, codec, skip, found, file.source)


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


def _encoding(source: str, path: str, head: bytes, *, forced: str | None) -> tuple[str, int, Found]:
    """(codec, BOM bytes to skip, what the text holds) of the bytes in ``source`` (messages name
    ``path``), as :func:`elo_batch.inputs.encoding.detect` decides, a pass over the file per codec tried."""
    return detect(
        head,
        path,
        forced,
        decode=lambda name, skip: _decode_pass(source, name, skip),
        any_utf8=lambda: _any_utf8(source),
    )


def decoded(path: str, name: str, skip: int) -> Iterator[str]:
    """The text of the file's bytes after ``skip``, a block at a time.

    Raises:
        BadByte: a byte is not ``name`` (its value and line).
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
                raise BadByte(exc.object[exc.start], before + 1) from None
            if not block:
                return
            line_feeds += block.count(b"\n")


def _decode_pass(path: str, name: str, skip: int) -> Found:
    found, line_feeds = Found(), 0
    for text in decoded(path, name, skip):
        found.quote = found.quote or '"' in text
        found.unit = found.unit or UNIT_SEPARATOR in text
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
            if UTF8_SEQUENCE.search(tail + block):
                return True
            tail = block[-3:]
    return False


def transcode(text: TextFile) -> str:
    """A temporary UTF-8 copy of the file's text (classic Mac line ends as line feeds); its path. The
    caller removes it."""
    handle, temporary = tempfile.mkstemp(prefix="elo-batch-", suffix=".csv")
    with open(handle, "w", encoding="utf-8", newline="") as out:
        for block in decoded(text.source, text.codec, text.skip):
            out.write(block.replace("\r", "\n") if text.found.mac else block)
    return temporary
