"""FIDE's XML rating list read as a stream of ``<player>`` elements into text batches; no rating rules.

``<playerslist><player><fideid>..</fideid>...</player>...`` (the combined XML is about 860 MB): the
hardened parser of defusedxml (``DefusedXMLParser``: a DOCTYPE, an entity declaration or an external
reference raises, wherever it is and in whatever encoding) is fed the file :data:`READ_BYTES` at a time
and hands each element to a target that keeps only the text of each player's known child elements,
so no tree is built and memory holds one batch. What a reader would otherwise hold is bounded: an
element's text (:data:`MAX_TEXT`), the nesting (:data:`MAX_DEPTH`), the bytes fed without one element
starting or ending (:data:`MAX_STALL`: expat holds a token, such as a comment, until it ends), and a
batch (:data:`BATCH` players, :data:`BATCH_CHARS` characters).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import IO
from xml.etree import ElementTree

import defusedxml
import polars as pl
from defusedxml.ElementTree import DefusedXMLParser

from elo_batch.errors import InputDataError
from elo_batch.formats.archives import size

#: Bytes fed to the parser at a time, and players per batch (at most: a feed may end a batch early).
READ_BYTES = 1 << 20
BATCH = 50_000
#: Characters of kept text after which a batch ends (after the feed that reaches it).
BATCH_CHARS = 8 << 20
#: Most characters a player's element may hold (FIDE's longest, a name, is 60).
MAX_TEXT = 1000
#: Most elements open at once (FIDE's list: 3, ``<playerslist><player><name>``).
MAX_DEPTH = 8
#: Most bytes expat may hold unparsed: a token not yet ended (a comment, a tag, a declaration).
MAX_STALL = 16 << 20
_HINT = "give FIDE's XML list as downloaded."


def player_batches(
    head: bytes, handle: IO[bytes], source: str, tags: Collection[str], layout: Callable[[set[str]], dict[str, str]]
) -> Iterator[pl.DataFrame]:
    """The players of an XML list, as text columns, a batch at a time.

    Args:
        head: The first bytes of the file, already read; ``handle`` the rest.
        source: The file, for messages.
        tags: The child elements of a player that may be kept (others are skipped unread).
        layout: Given the first player's kept tags, the tags to keep and their column names (it may raise).

    Yields:
        Frames of ``__row`` (the player's place in the file, from 1) and the kept columns (text,
        stripped; an absent or empty element is ``""``).

    Raises:
        InputDataError: a DOCTYPE, an entity declaration or an external reference; a root other than
            ``<playerslist>``; XML that is not well formed; or past one of the module's bounds (each
            message names its line).
    """
    players = _Players(source, frozenset(tags))
    parser = DefusedXMLParser(target=players, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    expat = parser.parser  # its DTD, entity and external reference handlers refuse; ours take the elements
    expat.StartElementHandler, expat.EndElementHandler = players.start, players.end
    expat.CharacterDataHandler = players.data  # (direct: ElementTree's adaptor per event doubles the time)
    players.line = lambda: int(expat.CurrentLineNumber)
    kept: dict[str, str] = {}
    data, fed = head or handle.read(READ_BYTES), 0
    try:
        while data:
            parser.feed(data)
            fed += len(data)
            if fed - expat.CurrentByteIndex > MAX_STALL:  # expat holds the bytes of a token not ended
                raise InputDataError(
                    f"no element starts or ends in {size(MAX_STALL)} of XML (from line {players.line()}): a "
                    "comment, tag or declaration that long is not FIDE's list",
                    path=source,
                    hint=_HINT,
                )
            data = handle.read(READ_BYTES)
            if not data:
                parser.close()
            while players.rows and (not data or len(players.rows) >= BATCH or players.chars >= BATCH_CHARS):
                rows, players.rows, players.chars = players.rows[:BATCH], players.rows[BATCH:], 0
                if not kept:  # the first player tells the layout
                    kept = layout(set(rows[0]))
                yield _frame(rows, kept, players.done)
                players.done += len(rows)
    except ElementTree.ParseError as exc:
        line, column = exc.position
        raise InputDataError(
            f"the XML is not well formed at line {line}, column {column + 1}",
            path=source,
            hint=_HINT + " An interrupted download ends mid-file.",
        ) from exc
    except defusedxml.DefusedXmlException as exc:
        raise InputDataError(
            f"the XML declares a DOCTYPE or entities (line {players.line()}), which FIDE's list never does; "
            "refused before anything in it is read",
            path=source,
            hint=_HINT,
        ) from exc


class _Players:
    """The parser's target: the text of the known children of each ``<player>`` under the root, as a dict."""

    def __init__(self, source: str, tags: frozenset[str]) -> None:
        self.source, self.tags = source, tags
        self.line: Callable[[], int] = lambda: 0
        self.rows: list[dict[str, str]] = []
        self.chars = 0  # of the rows' text
        self.done = 0  # players handed on in batches before the rows
        self._depth = 0
        self._player: dict[str, str] | None = None
        self._tag: str | None = None  # the known child element open, whose text is kept
        self._text: list[str] = []
        self._length = 0

    def start(self, tag: str, attrib: list[str]) -> None:
        self._depth += 1
        if self._depth == 3:  # a player's element (the most frequent)
            if self._player is not None and tag in self.tags:
                self._tag, self._text, self._length = tag, [], 0
        elif self._depth == 2:
            self._player = {} if tag == "player" else None
        elif self._depth == 1 and tag != "playerslist":
            raise InputDataError(f"the XML's root is <{tag}>, not FIDE's <playerslist>", path=self.source, hint=_HINT)
        elif self._depth > MAX_DEPTH:
            raise InputDataError(
                f"elements nested more than {MAX_DEPTH} deep at line {self.line()}: not FIDE's list",
                path=self.source,
                hint=_HINT,
            )
        else:
            self._tag = None  # an element within a player's element: its text is not the player's

    def data(self, data: str) -> None:
        if self._tag is None:
            return  # text between elements (or in unknown ones): not kept
        self._length += len(data)
        if self._length > MAX_TEXT:
            raise InputDataError(
                f"player {self.done + len(self.rows) + 1}: its <{self._tag}> is longer than {MAX_TEXT:,} "
                f"characters (line {self.line()})",
                path=self.source,
                hint=_HINT,
            )
        self._text.append(data)

    def end(self, tag: str) -> None:
        self._depth -= 1
        if self._depth == 2:
            if self._tag is not None and self._player is not None:
                text = "".join(self._text).strip()
                self._player[self._tag] = text
                self.chars += len(text)
                self._tag = None
        elif self._depth == 1 and self._player is not None:
            self.rows.append(self._player)
            self._player = None

    def close(self) -> None:
        return None


def _frame(rows: list[dict[str, str]], tags: dict[str, str], done: int) -> pl.DataFrame:
    frame = pl.from_dicts(rows, schema=dict.fromkeys(tags, pl.String)).fill_null("").rename(tags)
    return frame.select((pl.int_range(pl.len()) + done + 1).alias("__row"), *tags.values())
