"""Small text helpers for messages; no data handling."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable


def closest_hint(wanted: str, available: Iterable[str]) -> str:
    """A 'did you mean' sentence for a missing column, or '' when nothing is close.

    >>> closest_hint("white_id", ["whiteid", "black_id"])
    "did you mean 'whiteid' for 'white_id'?"
    """
    match = difflib.get_close_matches(wanted, list(available), n=1, cutoff=0.6)
    return f"did you mean {match[0]!r} for {wanted!r}?" if match else ""


#: Other spellings of the columns a file must have, as exports write them (compared without case,
#: spaces or punctuation): a close match to one of them is proposed for the missing column.
COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "white_id": ("white player", "white player id", "white fide id", "white id number", "wid", "player 1"),
    "black_id": ("black player", "black player id", "black fide id", "black id number", "bid", "player 2"),
    "result": ("res", "outcome", "game result", "score"),
    "date": ("day", "game date", "date played", "played on", "event date", "utc date", "datetime"),
    "period": ("month", "rating period"),
    "player_id": ("id", "fide id", "fide no", "fide number", "id number", "player"),
    "opponent_rating": ("opponent elo", "opp elo", "opp rating", "opp rtg", "rating opponent"),
    "rating": ("elo", "rtg", "fide rating", "elo rating", "standard", "std", "rating standard"),
}
#: Similarity (difflib's ratio of the compared spellings) from which a column is proposed.
HINT_CUTOFF = 0.8


def column_hints(missing: Iterable[str], available: Iterable[str]) -> str:
    """A 'did you mean' sentence for missing columns, naming the file's columns as the file spells
    them, or '' when nothing is close. Each column is proposed for one missing column at most, the
    closest pairs first; spellings are compared without case, spaces or punctuation, against the
    missing name and its :data:`COLUMN_ALIASES`.

    >>> column_hints(["white_id", "black_id"], ["WhitePlayer", "BlackPlayer", "Result"])
    "did you mean 'WhitePlayer' for 'white_id' and 'BlackPlayer' for 'black_id'?"
    >>> column_hints(["white_id"], ["Weiss", "Ergebnis"])
    ''
    """
    wanted = list(missing)
    columns = [(name, _spelling(name)) for name in available if _spelling(name)]
    pairs = []
    for order, want in enumerate(wanted):
        forms = {_spelling(want), *(_spelling(alias) for alias in COLUMN_ALIASES.get(want, ()))}
        for rank, (name, key) in enumerate(columns):
            score = max(difflib.SequenceMatcher(None, key, form).ratio() for form in forms)
            if score >= HINT_CUTOFF:
                pairs.append((-score, order, rank, want, name))
    chosen: dict[str, str] = {}
    for *_, want, name in sorted(pairs):
        if want not in chosen and name not in chosen.values():
            chosen[want] = name
    proposals = [f"{chosen[want]!r} for {want!r}" for want in wanted if want in chosen]
    return f"did you mean {' and '.join(proposals)}?" if proposals else ""


def _spelling(name: str) -> str:
    return re.sub(r"[\W_]+", "", name.casefold())
