"""Opening PGN inputs as streams: files, globs and zip archives within their limits; no parsing.

Nothing is read whole: a file or an archive's member is a binary stream, decoded as it is read
(:func:`text`). A zip archive is checked before anything in it is inflated (:func:`check_archive`):
an archive that would inflate past :data:`MAX_RATIO` times its size or :data:`MAX_INFLATED` bytes (a
zip bomb), or compressed otherwise than deflate, is refused with exit 65.
"""

from __future__ import annotations

import codecs
import glob
import io
import os
import zipfile
from collections.abc import Iterator
from typing import IO

from elo_batch.errors import InputDataError, InputMissingError
from elo_batch.formats import archives
from elo_batch.inputs.readers import unreadable

#: A zip member that would inflate to more than this many times its compressed size is refused: PGN
#: deflates to about a fifth (text of few distinct tags, a tenth); a zip bomb inflates 200 to 1000 times.
MAX_RATIO = archives.MAX_RATIO
#: Members that inflate to fewer bytes than this are not checked for their ratio (a small file of
#: repeated tags may compress well, and costs nothing).
RATIO_FROM = archives.RATIO_FROM
#: Most bytes the ``.pgn`` members of one zip archive may inflate to, together (4 GiB, about ten
#: million games).
MAX_INFLATED = 4 << 30
#: Most characters one game may take (its tags, moves and comments, blank lines too: a comment holds them).
MAX_GAME_CHARS = 16 << 20
_ZIP_HINT = (
    "the archive looks like a zip bomb and was not read. If you trust it, unzip it and import its .pgn "
    "files: a .pgn file is read a game at a time, whatever its size."
)


def sources(paths: list[str] | tuple[str, ...]) -> Iterator[tuple[str, str, IO[bytes]]]:
    """Every PGN file named by ``paths``, opened.

    Args:
        paths: ``.pgn`` files, ``.zip`` archives (every ``.pgn`` member, in name order) or glob patterns.

    Yields:
        (label, path, binary stream): the label is the file's name (its path when two files share a
        name), ``archive.zip:member.pgn`` for an archive's member. Each stream is closed when the next
        one is asked for.

    Raises:
        InputMissingError: a path does not exist or cannot be read, or a glob matches nothing.
        InputDataError: an archive is not a readable zip archive, holds no ``.pgn`` member, or fails
            :func:`check_archive`.
    """
    files = _files(paths)
    names = [os.path.basename(f) for f in files]
    use_path = len(set(names)) != len(names)  # two files of one name: label them by path
    for path, name in zip(files, names, strict=True):
        label = path if use_path else name
        try:
            handle = open(path, "rb")  # noqa: SIM115 (closed below, after its games are read)
        except OSError as exc:
            raise unreadable(exc, path) from exc
        with handle:
            if zipfile.is_zipfile(handle):
                yield from _archive_members(handle, path, label)
            else:
                handle.seek(0)
                yield label, path, handle


def _files(paths: list[str] | tuple[str, ...]) -> list[str]:
    """The files that ``paths`` name, each glob pattern expanded (sorted) unless a file has its name."""
    files: list[str] = []
    for given in paths:
        if glob.has_magic(given) and not os.path.exists(given):
            matched = sorted(glob.glob(given, recursive=True))
            if not matched:
                raise InputMissingError("no file matches this pattern", path=given)
            files.extend(matched)
        else:
            files.append(given)
    return files


def _archive_members(handle: IO[bytes], path: str, label: str) -> Iterator[tuple[str, str, IO[bytes]]]:
    try:
        with zipfile.ZipFile(handle) as archive:
            members = sorted(
                (info for info in archive.infolist() if info.filename.lower().endswith(".pgn") and not info.is_dir()),
                key=lambda info: info.filename,
            )
            if not members:
                raise InputDataError(
                    "the zip archive holds no .pgn file", path=path, hint="only members ending in .pgn are read."
                )
            check_archive(members, path)
            for info in members:
                with archive.open(info) as member:
                    yield f"{label}:{info.filename}", path, member
    except zipfile.BadZipFile as exc:
        raise InputDataError(f"not a readable zip archive ({exc})", path=path) from exc


def check_archive(members: list[zipfile.ZipInfo], path: str) -> None:
    """Refuse an archive's ``.pgn`` members before inflating them (:func:`elo_batch.formats.archives.check_members`
    with this module's limits): a member compressed otherwise than deflate (or stored), a member that would
    inflate more than :data:`MAX_RATIO` times (from :data:`RATIO_FROM` bytes up), or more than
    :data:`MAX_INFLATED` bytes in all.

    Raises:
        InputDataError: the archive is refused (exit 65).
    """
    limits = archives.Limits(
        text="PGN text",
        members=".pgn members",
        max_ratio=MAX_RATIO,
        max_inflated=MAX_INFLATED,
        hint=_ZIP_HINT,
        method_hint="zip the .pgn files again with the usual (deflate) compression, or import them unzipped.",
        ratio_from=RATIO_FROM,
    )
    archives.check_members(members, path, limits)


def text(binary: IO[bytes], label: str) -> GameText:
    """PGN text of a binary stream (see :func:`sources`), decoded as it is read.

    UTF-16 with a BOM; else UTF-8 (with or without BOM) wherever the bytes are UTF-8, and Windows-1252,
    as many older PGN files are, where they are not (so a collection mixing the two keeps every name;
    an undefined byte becomes U+FFFD). ``label``: the source, for messages (see :class:`GameText`).
    """
    head = binary.peek(2)[:2] if hasattr(binary, "peek") else b""
    if head in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return GameText(binary, label, encoding="utf-16", errors="replace")  # type: ignore[type-var]
    return GameText(binary, label, encoding="utf-8-sig", errors=_CP1252_FALLBACK)  # type: ignore[type-var]


class GameText(io.TextIOWrapper):
    """PGN text read a line at a time, each game at most :data:`MAX_GAME_CHARS` characters.

    python-chess holds what it reads of one game (a comment whole, every tag); :meth:`next_game`, called
    before each game is read, starts the count, and a longer game is refused. Blank lines count too:
    python-chess keeps those of a comment (a comment of a gigabyte of blank lines ran out of memory).
    """

    def __init__(self, binary: IO[bytes], label: str, **options: str) -> None:
        super().__init__(binary, **options)  # type: ignore[arg-type]
        self.label = label
        self.game = 0
        self.chars = 0

    def next_game(self) -> None:
        """Count the next game's characters from here."""
        self.game += 1
        self.chars = 0

    def readline(self, size: int | None = -1, /) -> str:  # type: ignore[override]  # (the stubs: bytes, from _IOBase)
        """The next line, or :data:`MAX_GAME_CHARS` characters of it; raises InputDataError past the game's limit."""
        line = super().readline(MAX_GAME_CHARS + 1 if size is None or size < 0 else size)
        self.chars += len(line)
        if self.chars > MAX_GAME_CHARS:
            raise InputDataError(
                f"game {self.game} is longer than {archives.size(MAX_GAME_CHARS)} of text",
                path=self.label,
                hint="a game's tags, moves and comments take a few kilobytes; is this a PGN file?",
            )
        return line


def _as_cp1252(error: UnicodeError) -> tuple[str, int]:
    """Codec error handler: bytes that are not UTF-8, read as Windows-1252."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    return error.object[error.start : error.end].decode("cp1252", errors="replace"), error.end


_CP1252_FALLBACK = "elo_batch.formats.pgn.cp1252"
codecs.register_error(_CP1252_FALLBACK, _as_cp1252)
