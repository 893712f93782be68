"""Small text helpers for messages; no data handling."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest_hint(wanted: str, available: Iterable[str]) -> str:
    """A 'did you mean' sentence for a missing column, or '' when nothing is close.

    >>> closest_hint("white_id", ["whiteid", "black_id"])
    "did you mean 'whiteid' for 'white_id'?"
    """
    match = difflib.get_close_matches(wanted, list(available), n=1, cutoff=0.6)
    return f"did you mean {match[0]!r} for {wanted!r}?" if match else ""
