"""FIDE's XML rating list read as a stream of ``<player>`` elements into text batches; no rating rules.

``<playerslist><player><fideid>..</fideid>...</player>...`` (the combined XML is about 860 MB): the
hardened parser of defusedxml (``DefusedXMLParser``: a DOCTYPE, an entity declaration or an external
reference raises, wherever it is and in whatever encoding) is fed the file :data:`READ_BYTES` at a time
and hands each element to a target that keeps only the text of each player's known child elements,
so no tree is built and memory holds one batch. What a reader would otherwise hold is bounded: an
element's text (:data:`MAX_TEXT`), the nesting (:data:`MAX_DEPTH`), the bytes expat holds unparsed
(:data:`MAX_STALL`: a token, such as a comment, is held until it ends), and a
batch (:data:`BATCH` players, :data:`BATCH_BYTES` bytes read).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import IO
from xml.etree import ElementTree

import defusedxml
import polars as pl
from defusedxml.ElementTree import DefusedXMLParser

from elo_batch import working as w
from elo_batch.errors import InputDataError
from elo_batch.formats.archives import size

#: Bytes fed to the parser at a time, and players per batch (at most: a feed may end a batch early).
READ_BYTES = 1 << 20
BATCH = 50_000
#: Bytes fed after which a batch ends (after the feed that reaches it): its text is at most that.
BATCH_BYTES = 8 << 20
#: Most characters a player's element may hold (FIDE's longest, a name, is 60).
MAX_TEXT = 1000
#: Most elements open at once (FIDE's list: 3, ``<playerslist><player><name>``).
MAX_DEPTH = 8
#: Most bytes expat may hold unparsed: a token not yet ended (a comment, a tag, a declaration).
MAX_STALL = 16 << 20
_HINT = "give FIDE's XML list as downloaded."


def player_batches(
    head: bytes, handle: IO[bytes], source: str, *, tags: Collection[str], layout: Callable[[set[str]], dict[str, str]]
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

    players = _Players(source, frozenset(tags), lambda: int(expat.CurrentLineNumber))
    parser = DefusedXMLParser(target=players, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    expat = parser.parser  # its DTD, entity and external reference handlers refuse; ours take the elements
    expat.StartElementHandler, expat.EndElementHandler = players.start, players.end
    expat.CharacterDataHandler = players.data  # (direct: ElementTree's adaptor per event doubles the time)
    try:
        yield from _batches(_feeds(parser, head, handle, source=source), players, layout)
    except ElementTree.ParseError as exc:
        at, column = exc.position
        raise InputDataError(
            f"the XML is not well formed at line {at}, column {column + 1}",
            path=source,
            hint=_HINT + " An interrupted download ends mid-file.",
        ) from exc
    except defusedxml.DefusedXmlException as exc:
        raise _refused(
            f"the XML declares a DOCTYPE or entities (line {int(expat.CurrentLineNumber)}), which FIDE's list "
            "never does; refused before anything in it is read",
            source,
        ) from exc


def _feeds(parser: DefusedXMLParser, head: bytes, handle: IO[bytes], *, source: str) -> Iterator[tuple[int, bool]]:
    """Feeds the parser the file :data:`READ_BYTES` at a time, and closes it after the last; after each
    feed, the bytes fed so far and whether that feed was the last."""
    expat = parser.parser
    data, fed = head or handle.read(READ_BYTES), 0
    while data:
        parser.feed(data)
        fed += len(data)
        if fed - expat.CurrentByteIndex > MAX_STALL:  # expat holds the bytes of a token not ended
            raise _refused(
                f"no element starts or ends in {size(MAX_STALL)} of XML (from line {int(expat.CurrentLineNumber)}): "
                "a comment, tag or declaration that long is not FIDE's list",
                source,
            )
        data = handle.read(READ_BYTES)
        if not data:
            parser.close()
        yield fed, not data


def _batches(
    feeds: Iterator[tuple[int, bool]], players: _Players, layout: Callable[[set[str]], dict[str, str]]
) -> Iterator[pl.DataFrame]:
    """The players parsed as frames (:func:`_frame`), a batch after a feed once :data:`BATCH` players or
    :data:`BATCH_BYTES` bytes are there, and the rest after the last feed."""
    kept: dict[str, str] = {}
    batched = 0
    for fed, last in feeds:
        while players.rows and (last or len(players.rows) >= BATCH or fed - batched >= BATCH_BYTES):
            rows, batched = players.rows[:BATCH], fed
            del players.rows[:BATCH]
            if not kept:  # the first player tells the layout
                kept = layout(set(rows[0]))
            yield _frame(rows, kept, players.done)
            players.done += len(rows)


def _refused(message: str, source: str) -> InputDataError:
    """The error for XML that is not FIDE's list."""
    return InputDataError(message, path=source, hint=_HINT)


class _Players:
    """The parser's handlers: the text of the known children of each ``<player>`` under the root, as a dict
    in :attr:`rows`. The handlers are closures (an attribute per event costs a third more time)."""

    def __init__(self, source: str, tags: frozenset[str], line: Callable[[], int]) -> None:
        self.rows: list[dict[str, str]] = []
        self.done = 0  # players handed on in batches before the rows
        rows, depth, text, length = self.rows, 0, [""], 0
        player: dict[str, str] | None = None
        tag: str | None = None  # the known child element open, whose text is kept

        def start(name: str, attrib: list[str]) -> None:
            nonlocal depth, player, tag, text, length
            depth += 1
            if depth == 3:  # a player's element (the most frequent)
                if player is not None and name in tags:
                    tag, text, length = name, [], 0
            elif depth == 2:
                player = {} if name == "player" else None
            elif depth == 1 and name != "playerslist":
                raise _refused(f"the XML's root is <{name}>, not FIDE's <playerslist>", source)
            elif depth > MAX_DEPTH:
                raise _refused(f"elements nested more than {MAX_DEPTH} deep at line {line()}: not FIDE's list", source)
            else:
                tag = None  # an element within a player's element: its text is not the player's

        def data(chunk: str) -> None:
            nonlocal length
            if tag is None:
                return  # text between elements (or in unknown ones): not kept
            length += len(chunk)
            if length > MAX_TEXT:
                raise _refused(
                    f"player {self.done + len(rows) + 1}: its <{tag}> is longer than {MAX_TEXT:,} characters "
                    f"(line {line()})",
                    source,
                )
            text.append(chunk)

        def end(name: str) -> None:
            nonlocal depth, player, tag
            depth -= 1
            if depth == 2:
                if tag is not None and player is not None:
                    player[tag] = "".join(text).strip()
                    tag = None
            elif depth == 1 and player is not None:
                rows.append(player)
                player = None

        self.start, self.data, self.end = start, data, end

    def close(self) -> None:
        """The end of the document (the parser's target protocol)."""
        return None


def _frame(rows: list[dict[str, str]], tags: dict[str, str], done: int) -> pl.DataFrame:
    frame = pl.from_dicts(rows, schema=dict.fromkeys(tags, pl.String)).fill_null("").rename(tags)
    return frame.select((pl.int_range(pl.len()) + done + 1).alias(w.LIST_ROW), *tags.values())
