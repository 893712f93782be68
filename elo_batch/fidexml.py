"""FIDE's XML rating list read as a stream of ``<player>`` elements into text batches; no rating rules.

``<playerslist><player><fideid>..</fideid>...</player>...`` (the combined XML is about 860 MB): a pull
parser is fed the file a piece at a time and forgets each player once read, so memory holds one batch.
A DOCTYPE or an entity declaration, which FIDE's file never has, is refused before parsing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO, cast
from xml.etree import ElementTree

import polars as pl

from elo_batch.errors import InputDataError

#: Bytes fed to the parser at a time, and players per batch.
READ_BYTES = 16 * 2**20
BATCH = 200_000
_HINT = "give FIDE's XML list as downloaded."


def player_batches(
    head: bytes, handle: IO[bytes], source: str, layout: Callable[[set[str]], dict[str, str]]
) -> Iterator[pl.DataFrame]:
    """The players of an XML list, :data:`BATCH` at a time, as text columns.

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
    parser: ElementTree.XMLPullParser[ElementTree.Element] = ElementTree.XMLPullParser(events=("start", "end"))
    tags: dict[str, str] = {}
    columns: dict[str, list[object]] = {}
    root: ElementTree.Element | None = None
    players, data = 0, head
    try:
        while data:
            parser.feed(data)
            # only start and end events were asked for: each comes with its element
            for event, element in cast(Iterator[tuple[str, ElementTree.Element]], parser.read_events()):
                if root is None:
                    root = _root(element, source)
                if event != "end" or element.tag != "player":
                    continue
                values = {child.tag: (child.text or "").strip() for child in element}
                if not tags:  # the first player tells the layout
                    tags = layout(set(values))
                    columns = {name: [] for name in ("__row", *tags.values())}
                players += 1
                columns["__row"].append(players)
                for tag, name in tags.items():
                    columns[name].append(values.get(tag, ""))
                root.clear()  # the players read so far are forgotten
                if players % BATCH == 0:
                    yield _frame(columns)
                    columns = {name: [] for name in columns}
            data = handle.read(READ_BYTES)
        parser.close()
    except ElementTree.ParseError as exc:
        line, column = exc.position
        raise InputDataError(
            f"the XML is not well formed at line {line}, column {column + 1}",
            path=source,
            hint=_HINT + " An interrupted download ends mid-file.",
        ) from exc
    if columns.get("__row"):
        yield _frame(columns)


def _root(element: ElementTree.Element, source: str) -> ElementTree.Element:
    if element.tag != "playerslist":
        raise InputDataError(f"the XML's root is <{element.tag}>, not FIDE's <playerslist>", path=source, hint=_HINT)
    return element


def _frame(columns: dict[str, list[object]]) -> pl.DataFrame:
    return pl.DataFrame(columns, schema={name: pl.Int64 if name == "__row" else pl.String for name in columns})
