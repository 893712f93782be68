"""Zip archives checked before anything in them is inflated: the import commands' one zip-bomb guard.

``import pgn`` and ``import fide-list`` read zip archives as streams; what a member inflates to is
bounded by the sizes the archive states (zipfile never inflates a member past its stated size: it stops
there and fails the member's checksum). :func:`check_members` refuses, from those sizes alone, a member
compressed otherwise than deflate, one that would inflate more than a text of its kind compresses (a
zip bomb inflates 200 to 1000 times), and members that would inflate past a total. The limits are each
command's own (:class:`Limits`).
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass

from elo_batch.errors import InputDataError

#: A member that would inflate to more than this many times its compressed size is refused by default:
#: text such as PGN or FIDE's lists deflates to a fifth or a tenth (text of few distinct words, a
#: twentieth); a zip bomb inflates 200 to 1000 times.
MAX_RATIO = 100
#: Members that inflate to fewer bytes than this are not checked for their ratio (a small file of
#: repeated text may compress well, and costs nothing).
RATIO_FROM = 1 << 20


@dataclass(frozen=True)
class Limits:
    """What one command accepts in a zip archive.

    Attributes:
        text: What the members hold, in messages (``PGN text``).
        members: The members checked, in messages (``.pgn members``).
        max_ratio: Most times a member may inflate (from ``ratio_from`` bytes up).
        max_inflated: Most bytes the members may inflate to, together.
        hint: What to do instead, when the archive is refused as a likely zip bomb.
        method_hint: What to do with a member compressed otherwise than deflate.
        ratio_from: Members inflating to fewer bytes are not checked for their ratio.
    """

    text: str
    members: str
    max_ratio: int
    max_inflated: int
    hint: str
    method_hint: str
    ratio_from: int = RATIO_FROM


def check_members(members: list[zipfile.ZipInfo], path: str, limits: Limits) -> None:
    """Refuse an archive's members before inflating them.

    Args:
        members: The members that will be read.
        path: The archive, for messages.
        limits: The command's limits.

    Raises:
        InputDataError: a member is compressed otherwise than deflate (or stored), would inflate more
            than ``max_ratio`` times (from ``ratio_from`` bytes up), or the members would inflate past
            ``max_inflated`` bytes together (exit 65).
    """
    for info in members:
        _check_member(info, path, limits)
    total = sum(info.file_size for info in members)
    if total > limits.max_inflated:
        raise InputDataError(
            f"the archive's {limits.members} would inflate to {size(total)}, more than the "
            f"{size(limits.max_inflated)} an archive may hold",
            path=path,
            hint=limits.hint,
        )


def _check_member(info: zipfile.ZipInfo, path: str, limits: Limits) -> None:
    """Refuse one member compressed otherwise than deflate (or stored), or that would inflate too much."""
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise InputDataError(
            f"member {info.filename!r} is compressed with method {info.compress_type}, not deflate",
            path=path,
            hint=limits.method_hint,
        )
    ratio = info.file_size / max(info.compress_size, 1)
    if info.file_size > limits.ratio_from and ratio > limits.max_ratio:
        raise InputDataError(
            f"member {info.filename!r} would inflate from {size(info.compress_size)} to "
            f"{size(info.file_size)} ({ratio:.0f} times; {limits.text} compresses at most about "
            f"{limits.max_ratio} times)",
            path=path,
            hint=limits.hint,
        )


def size(count: int) -> str:
    """Bytes for a message: ``1.0 MiB``, ``4.0 GiB``, ``512 bytes``."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"
