"""JSON text built by polars expressions, row by row and page by page: no Python loop over players or games.

A string column becomes JSON string literals through polars' own JSON encoder (``struct.json_encode``),
numbers and booleans their text, null ``null``; rows become JSON arrays, groups of rows one JSON text
each. The escapes a ``<script>`` file needs are :func:`elo_batch.reportsite.sitefiles.escaped`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

_WRAP = len('{"v":')


def literal(name: str, dtype: pl.DataType, *, plain: bool = False) -> pl.Expr:
    """The JSON literal of column ``name`` (of ``dtype``) as text, one per row (null: ``null``).

    ``plain``: the text column holds no character JSON escapes (``"``, ``\\``, U+0000 to U+001F; see
    :func:`needs_escapes`), so each value is only quoted.
    """
    if dtype.is_numeric() or dtype == pl.Boolean:
        text = pl.col(name).cast(pl.String)
        if dtype.is_float():
            text = pl.when(pl.col(name).is_nan()).then(None).otherwise(text)
        return text.fill_null("null")
    value = pl.col(name).cast(pl.String)
    if plain:
        return pl.concat_str([pl.lit('"'), value, pl.lit('"')]).fill_null("null")
    encoded = pl.struct(value.alias("v")).struct.json_encode()
    return encoded.str.slice(_WRAP).str.strip_suffix("}")


def needs_escapes(column: pl.Series) -> bool:
    """True when a text column holds a character that JSON escapes (``"``, ``\\``, U+0000 to U+001F)."""
    return bool(column.cast(pl.String).str.contains(r'["\\\x00-\x1f]').any())


def plain_columns(frame: pl.DataFrame, names: Sequence[str]) -> frozenset[str]:
    """The text columns of ``names`` that hold no character to escape (:func:`needs_escapes`): checked
    once for a frame whose rows are then made a group at a time."""
    texts = [n for n in names if not (frame.schema[n].is_numeric() or frame.schema[n] == pl.Boolean)]
    return frozenset(n for n in texts if not needs_escapes(frame[n]))


def array(frame: pl.DataFrame, names: Sequence[str], *, plain: frozenset[str] | None = None) -> pl.Expr:
    """Each row's values of ``names`` as one JSON array's text (a String column); a text column without
    a character to escape (``plain``, by default :func:`plain_columns` of ``frame``) is only quoted
    (polars' JSON encoder is for the others)."""
    schema = frame.schema
    plain = plain_columns(frame, names) if plain is None else plain
    parts = [literal(name, schema[name], plain=name in plain) for name in names]
    return pl.concat_str([pl.lit("["), pl.concat_str(parts, separator=","), pl.lit("]")])


def joined(text: pl.Expr, opener: str = "[", closer: str = "]") -> pl.Expr:
    """An aggregation: the group's texts joined by commas between ``opener`` and ``closer``."""
    return pl.concat_str([pl.lit(opener), text.str.join(","), pl.lit(closer)])


def id_hash(ids: pl.Series, buckets: int) -> pl.Series:
    """The bucket of each id: h = h * 31 + byte over its UTF-8 bytes, modulo 2**32, then ``h % buckets``
    (``buckets`` a power of two); site.js computes the same. Horner's rule with numpy, one step per byte
    position (a loop over the longest id's bytes, not over the ids).

    >>> id_hash(pl.Series(["a", "ab", ""]), 1 << 32).to_list()
    [97, 3105, 0]
    """
    binary = ids.cast(pl.String).fill_null("").cast(pl.Binary).rechunk().to_arrow()
    buffers = binary.buffers()
    kind = np.int64 if str(binary.type).startswith("large") else np.int32
    offsets = np.frombuffer(buffers[1], dtype=kind)[binary.offset : binary.offset + len(ids) + 1].astype(np.int64)
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(1, np.uint8)
    starts, lengths = offsets[:-1], np.diff(offsets)
    hashes = np.zeros(len(ids), dtype=np.uint64)
    for position in range(int(lengths.max()) if lengths.size else 0):
        more = lengths > position
        step = hashes[more] * np.uint64(31) + data[starts[more] + position]
        hashes[more] = step & np.uint64(0xFFFFFFFF)
    return pl.Series(hashes % np.uint64(buckets), dtype=pl.UInt64).cast(pl.Int64)
