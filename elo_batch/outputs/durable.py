"""The system calls a folder swap needs: an exchange of two paths in one step, fsync of files and folders.

Where the system cannot exchange (Windows, some file systems), :func:`exchanger` gives None and the
swap of :mod:`elo_batch.outputs.atomic` uses two renames.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
from collections.abc import Callable
from pathlib import Path

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2  # Linux <linux/fs.h>
_RENAME_SWAP = 2  # macOS <stdio.h>
#: errno of a system or file system that cannot exchange two paths (then two renames are used)
CANNOT_EXCHANGE = {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP}


def exchanger() -> Callable[[bytes, bytes], int] | None:
    """Swap two existing paths in one step (0, or the errno), where the C library can."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if sys.platform.startswith("linux"):  # glibc 2.28 and later (an older C library has none)
            renameat2 = libc.renameat2
            renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
            renameat2.restype = ctypes.c_int
            return lambda a, b: renameat2(_AT_FDCWD, a, _AT_FDCWD, b, _RENAME_EXCHANGE) and ctypes.get_errno()
        if sys.platform == "darwin":  # pragma: no cover - macOS 10.12+
            renamex_np = libc.renamex_np
            renamex_np.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint]
            renamex_np.restype = ctypes.c_int
            return lambda a, b: renamex_np(a, b, _RENAME_SWAP) and ctypes.get_errno()
    except (OSError, AttributeError, TypeError):  # no C library to load (Windows), or no such function
        pass
    return None


def write_synced(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


def fsync_tree(folder: Path) -> None:
    for path in folder.iterdir():
        if path.is_file():
            with open(path, "rb") as handle:
                os.fsync(handle.fileno())
    fsync_dir(folder)


def fsync_dir(folder: Path) -> None:
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms that cannot open a folder (Windows)
        return
    try:
        os.fsync(descriptor)
    except OSError:  # pragma: no cover - file systems that refuse fsync on a folder
        pass
    finally:
        os.close(descriptor)
