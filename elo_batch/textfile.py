"""Streamed passes over a text file's bytes: its hash, its encoding, a UTF-8 copy; nothing held whole.

Each pass reads the file a block at a time (:data:`BLOCK`). The encoding rules, and their messages,
are those of :func:`elo_batch.readers.decode_text`, which decodes bytes already in memory.
"""

from __future__ import annotations

import codecs
import hashlib
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

from elo_batch.errors import InputDataError, UsageError
from elo_batch.readers import _BINARY, _UTF8_SEQUENCE, _no_header

#: Bytes read at a time.
BLOCK = 1 << 22
#: A character no text file holds, used as the separator to read whole lines.
UNIT_SEPARATOR = "\x1f"


@dataclass(frozen=True)
class TextFile:
    """A file's bytes, checked as text.

    Attributes:
        size: Bytes. sha256: Hex digest of the bytes.
        codec: The text encoding. skip: Bytes of a UTF-8 byte-order mark to skip (else 0).
        found: What the text holds.
    """

    size: int
    sha256: str
    codec: str
    skip: int
    found: Found

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


class _BadByte(Exception):
    def __init__(self, byte: int, line: int) -> None:
        self.byte, self.line = byte, line


def check(path: str, forced: str | None) -> TextFile:
    """Hash the file and check that it is text, as :func:`elo_batch.readers.decode_text` does.

    Args:
        path: The file.
        forced: The encoding to use, or None to detect it.

    Raises:
        OSError: the file cannot be read.
        UsageError: ``forced`` is not an encoding Python knows.
        InputDataError: the file is empty, holds only blank lines, is binary or not text.
    """
    size, sha256, head, nonblank = _hash(path)
    if not nonblank:
        raise _no_header(path, "the file is empty (0 bytes)" if size == 0 else "the file holds only blank lines")
    codec, skip, found = _encoding(path, head, forced)
    if not found.text:
        raise _no_header(path, "the file holds only blank lines")
    return TextFile(size, sha256, codec, skip, found)


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


def _encoding(path: str, head: bytes, forced: str | None) -> tuple[str, int, Found]:
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


def decoded(path: str, name: str, skip: int) -> Iterator[str]:
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
            if _UTF8_SEQUENCE.search(tail + block):
                return True
            tail = block[-3:]
    return False


def transcode(path: str, text: TextFile) -> str:
    """A temporary UTF-8 copy of the file (classic Mac line ends as line feeds); its path. The caller
    removes it."""
    handle, temporary = tempfile.mkstemp(prefix="elo-batch-", suffix=".csv")
    with open(handle, "w", encoding="utf-8", newline="") as out:
        for block in decoded(path, text.codec, text.skip):
            out.write(block.replace("\r", "\n") if text.found.mac else block)
    return temporary
