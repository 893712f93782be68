"""FIDE's XML rating list read as a stream of ``<player>`` elements into text batches; no rating rules.

``<playerslist><player><fideid>..</fideid>...</player>...`` (the combined XML is about 860 MB): expat is
fed the file a piece at a time and hands each element to a target that keeps only the text of each
player's child elements, so no tree is built and memory holds one batch. A DOCTYPE or an entity
declaration, which FIDE's file never has, is refused before parsing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO
from xml.etree import ElementTree

import polars as pl

from elo_batch.errors import InputDataError

#: Bytes fed to the parser at a time, and players per batch (at most: a feed may end a batch early).
READ_BYTES = 16 * 2**20
BATCH = 200_000
_HINT = "give FIDE's XML list as downloaded."


def player_batches(
    head: bytes, handle: IO[bytes], source: str, layout: Callable[[set[str]], dict[str, str]]
) -> Iterator[pl.DataFrame]:
    """The players of an XML list, as text columns, a batch at a time.

    Args:
        head: The first bytes of the file, already read; ``handle`` the rest.
        source: The file, for messages.
        layout: Given the first player's tags, the tags to keep and their column names (it may raise).

    Yields:
        Frames of ``__row`` (the player's place in the file, from 1) and the kept columns (text,
        stripped; an absent or empty element is ``""``).

    Raises:
        InputDataError: a DOCTYPE or entity declaration, a root other than ``<playerslist>``, or XML
            that is not well formed (the message names its line and column).
    """
    prolog = head.split(b"<playerslist", 1)[0].upper()
    if b"<!DOCTYPE" in prolog or b"<!ENTITY" in prolog:
        raise InputDataError(
            "the XML declares a DOCTYPE or entities, which FIDE's list never does; refused unread",
            path=source,
            hint=_HINT,
        )
    players = _Players()
    parser = ElementTree.XMLParser(target=players)
    tags: dict[str, str] = {}
    done, data = 0, head
    try:
        while data:
            parser.feed(data)
            data = handle.read(READ_BYTES)
            if not data:
                parser.close()
            if players.root not in (None, "playerslist"):
                raise InputDataError(
                    f"the XML's root is <{players.root}>, not FIDE's <playerslist>", path=source, hint=_HINT
                )
            while len(players.rows) >= (BATCH if data else 1):
                rows, players.rows = players.rows[:BATCH], players.rows[BATCH:]
                if not tags:  # the first player tells the layout
                    tags = layout(set(rows[0]))
                yield _frame(rows, tags, done)
                done += len(rows)
    except ElementTree.ParseError as exc:
        line, column = exc.position
        raise InputDataError(
            f"the XML is not well formed at line {line}, column {column + 1}",
            path=source,
            hint=_HINT + " An interrupted download ends mid-file.",
        ) from exc


class _Players:
    """The parser's target: the text of the children of each ``<player>`` under the root, as a dict."""

    def __init__(self) -> None:
        self.root: str | None = None
        self.rows: list[dict[str, str]] = []
        self._depth = 0
        self._player: dict[str, str] | None = None
        self._text: list[str] = []

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if self._depth == 0:
            self.root = tag
        self._depth += 1
        if self._depth == 2 and tag == "player":
            self._player = {}
        self._text = []

    def data(self, data: str) -> None:
        self._text.append(data)

    def end(self, tag: str) -> None:
        self._depth -= 1
        if self._depth == 2 and self._player is not None:
            self._player[tag] = "".join(self._text).strip()
        elif self._depth == 1 and self._player is not None:
            self.rows.append(self._player)
            self._player = None

    def close(self) -> None:
        return None


def _frame(rows: list[dict[str, str]], tags: dict[str, str], done: int) -> pl.DataFrame:
    frame = pl.from_dicts(rows, schema=dict.fromkeys(tags, pl.String)).fill_null("").rename(tags)
    return frame.select((pl.int_range(pl.len()) + done + 1).alias("__row"), *tags.values())
