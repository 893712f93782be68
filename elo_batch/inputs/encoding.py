"""Which text encoding an input is in: one decision for bytes in memory and for files read in a stream.

UTF-8 (with or without BOM) or UTF-16 with a BOM; else Windows-1252 when every byte is defined there and
nothing in the file is UTF-8; an encoding the caller names forces one. :func:`detect` decides, given a
way to decode the content once in an encoding (:func:`decode_text` for bytes in memory,
:mod:`elo_batch.inputs.textfile` for a file read a block at a time), so both say the same in the same words.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from elo_batch.errors import InputDataError, UsageError, option

#: Two or more bytes that form a UTF-8 character: their presence means the file is (partly) UTF-8.
UTF8_SEQUENCE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
#: First bytes of files that are not text at all.
BINARY = {b"PK\x03\x04": "a zip archive or an Excel workbook", b"\x1f\x8b": "gzip-compressed"}


class BadByte(Exception):
    """A byte that is not text in the encoding tried: its value and its line (1-based)."""

    def __init__(self, byte: int, line: int) -> None:
        self.byte, self.line = byte, line


class Decoded(Protocol):
    """What a decoding pass found: at least the line of the first NUL character."""

    @property
    def nul_line(self) -> int | None:
        """The line (1-based) of the first NUL character; None: there is none."""


D = TypeVar("D", bound=Decoded)


def check_encoding(name: str | None) -> None:
    """Refuse an ``--encoding`` that Python does not know, before anything is read.

    Raises:
        UsageError: ``name`` is not a text encoding.

    >>> check_encoding("latin-1")
    """
    if name is None:
        return
    try:
        codecs.lookup(name)
    except (LookupError, TypeError):  # TypeError: not text (bytes, a number)
        raise UsageError(
            f"{name!r} is not a text encoding",
            option="encoding",
            hint="use a Python codec name such as utf-8, cp1252, latin-1 or utf-16.",
        ) from None


def detect(
    head: bytes, path: str, forced: str | None, *, decode: Callable[[str, int], D], any_utf8: Callable[[], bool]
) -> tuple[str, int, D]:
    """The encoding of a text input, and what decoding it found.

    Args:
        head: The content's first bytes (at least 4).
        path: What messages name.
        forced: The encoding to use, or None to detect it.
        decode: Decodes the whole content once: ``decode(codec, bytes_to_skip)``; raises
            :class:`BadByte` at the first byte that is not text in the codec (LookupError: no codec).
        any_utf8: Whether two or more bytes of the content form a UTF-8 character.

    Returns:
        (codec, bytes of a UTF-8 byte-order mark to skip, what ``decode`` returned).

    Raises:
        UsageError: ``forced`` is not an encoding Python knows.
        InputDataError: the content is binary (zip, Excel, gzip, NUL characters), mixes encodings, or
            is not text in any of these encodings; the message names the line of the first bad byte.
    """
    if forced:
        return _forced(forced, path, decode)
    for magic, kind in BINARY.items():
        if head.startswith(magic):
            raise InputDataError(f"the file is {kind}, not CSV text", path=path, hint="export it as CSV text.")
    name, skip = _by_bom(head)
    try:
        found = decode(name, skip)
    except BadByte as bad:
        mixed = name == "utf-8" and not skip and any_utf8()  # UTF-8 elsewhere: no legacy encoding
        name, skip, found = "cp1252", 0, _cp1252(bad, path, mixed=mixed, decode=decode)
    if found.nul_line is not None:
        raise InputDataError(
            f"the file holds NUL characters (line {found.nul_line}): it is binary, or UTF-16 text without a "
            "byte-order mark",
            path=path,
            hint=f"save it as UTF-8 CSV, or name its encoding with {option('encoding')} (for example utf-16-le).",
        )
    return name, skip, found


def _by_bom(head: bytes) -> tuple[str, int]:
    """The codec a byte-order mark says (UTF-8 without one), and the bytes of a UTF-8 mark to skip."""
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8", len(codecs.BOM_UTF8)
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16", 0
    return "utf-8", 0


def _forced(forced: str, path: str, decode: Callable[[str, int], D]) -> tuple[str, int, D]:
    """:func:`detect`'s answer for an encoding the caller names.

    Raises:
        UsageError: ``forced`` is not an encoding Python knows.
        InputDataError: the content is not text in it.
    """
    try:
        return forced, 0, decode(forced, 0)
    except LookupError as exc:
        raise UsageError(f"{forced!r} is not a text encoding", option="encoding") from exc
    except BadByte as bad:
        raise InputDataError(
            f"byte 0x{bad.byte:02X} on line {bad.line} is not {forced}",
            path=path,
            hint="name the encoding the file was saved in (utf-8, cp1252, latin-1, ...).",
        ) from None


def _cp1252(bad: BadByte, path: str, *, mixed: bool, decode: Callable[[str, int], D]) -> D:
    """The content decoded as Windows-1252, after ``bad`` was found not UTF-8 (or UTF-16).

    Raises:
        InputDataError: other characters are UTF-8 (``mixed``), or the content is not Windows-1252 either.
    """
    where = f"byte 0x{bad.byte:02X} on line {bad.line}"
    if mixed:
        raise InputDataError(
            f"the file mixes encodings: {where} is not UTF-8, while other characters are UTF-8",
            path=path,
            hint="fix or re-save the file as UTF-8; if it really is one legacy encoding, name it with "
            f"{option('encoding')} (for example cp1252).",
        ) from None
    try:
        return decode("cp1252", 0)
    except BadByte:
        raise InputDataError(
            f"the file is not UTF-8 or Windows-1252 text ({where})",
            path=path,
            hint=f"save it as UTF-8, or name its encoding with {option('encoding')} (for example latin-1).",
        ) from None


@dataclass(frozen=True)
class _Text:
    """Bytes in memory, decoded."""

    text: str
    nul_line: int | None


def decode_text(data: bytes, path: str, encoding: str | None = None) -> tuple[str, str]:
    """Bytes of a text input file as text, as every reader of elo-batch decodes them (see :func:`detect`).

    Returns:
        The text and the encoding used (``utf-8-sig`` for UTF-8 after a byte-order mark).

    Raises:
        UsageError: ``encoding`` is not a known encoding.
        InputDataError: as :func:`detect`.
    """

    def decode(name: str, skip: int) -> _Text:
        try:
            text = data[skip:].decode(name)
        except UnicodeDecodeError as exc:
            raise BadByte(data[skip + exc.start], data.count(b"\n", 0, skip + exc.start) + 1) from None
        nul = text.find("\x00")
        return _Text(text, None if nul < 0 else text.count("\n", 0, nul) + 1)

    name, skip, decoded = detect(
        data[:4], path, encoding, decode=decode, any_utf8=lambda: bool(UTF8_SEQUENCE.search(data))
    )
    return decoded.text, "utf-8-sig" if skip else name
