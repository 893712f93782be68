"""Rust's panic text kept off stderr while polars decodes a file: the process's stderr captured, and given
back without it; no reading here.

A damaged Parquet file can make polars panic. Python gets a ``PanicException``, which the readers turn
into a clean error naming the file, but Rust's panic hook has already written its own text
(``thread '...' panicked at crates/...``, ``note: run with `RUST_BACKTRACE=1` ...``) to file
descriptor 2, above that message. While :func:`quiet_panics` is entered (by any thread: the entries
nest), descriptor 2 is a temporary file; when the last one leaves, everything written there meanwhile
is written to the real stderr, the blocks of panic text left out.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator
from typing import IO

#: The first line of a panic's text, as Rust's default panic hook writes it.
_PANIC = re.compile(rb"^thread '[^'\n]*'(?: \(\d+\))? panicked at ")
#: A line that ends a panic's text (written on it): Rust's note about backtraces.
_NOTE = re.compile(rb"^note: (?:run with `RUST_BACKTRACE|Some details are omitted)")

_lock = threading.Lock()
_entered = 0
_saved: int | None = None
_capture: IO[bytes] | None = None


@contextlib.contextmanager
def quiet_panics() -> Iterator[None]:
    """Keep the panic text Rust writes to stderr meanwhile off it; give back everything else written there.

    Where descriptor 2 cannot be captured (closed, or no temporary file), nothing changes.
    """
    _enter()
    try:
        yield
    finally:
        _leave()


def _enter() -> None:
    global _entered, _saved, _capture
    with _lock:
        if _entered == 0:
            try:
                sys.stderr.flush()
                capture = tempfile.TemporaryFile()  # noqa: SIM115 (closed by _leave)
                saved = os.dup(2)
                os.dup2(capture.fileno(), 2)
            except (OSError, ValueError, AttributeError):
                _saved = _capture = None
            else:
                _saved, _capture = saved, capture
        _entered += 1


def _leave() -> None:
    global _entered, _saved, _capture
    with _lock:
        _entered -= 1
        if _entered or _saved is None or _capture is None:
            return
        with contextlib.suppress(OSError, ValueError, AttributeError):
            sys.stderr.flush()
        os.dup2(_saved, 2)
        os.close(_saved)
        _capture.seek(0)
        rest = without_panics(_capture.read())
        _capture.close()
        _saved = _capture = None
    if rest:
        os.write(2, rest)


def without_panics(text: bytes) -> bytes:
    """``text`` without the blocks of panic text in it: from a panic's first line up to and with the
    note after it, a blank line, or the end.

    >>> without_panics(b"a\\nthread 'x' (7) panicked at f.rs:1:2:\\nboom\\nnote: run with `RUST_BACKTRACE=1` x\\nb\\n")
    b'a\\nb\\n'
    """
    kept, skipping = [], False
    for line in text.splitlines(keepends=True):
        if _PANIC.match(line):
            skipping = True
        elif skipping and (_NOTE.match(line) or not line.strip()):
            skipping = False
        elif not skipping:
            kept.append(line)
    return b"".join(kept)
