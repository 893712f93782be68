"""What an input table is: its file's record (:class:`InputFile`) and the names its columns are held under.

Names are normalised (trimmed, lower case, spaces and dashes as underscores), then escaped out of
elo-batch's reserved names (:mod:`elo_batch.inputs.names`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import polars as pl
import polars.selectors as cs

from elo_batch.errors import InputDataError
from elo_batch.inputs.names import escape, unescape


@dataclass(frozen=True)
class InputFile:
    """One input file as read: what the manifest records about it.

    Attributes:
        path: The path as given (or as found in a folder or glob); for a frame, the name messages give
            it (see :class:`FrameInput`).
        size: Bytes (0 for a frame: nothing was read from a file).
        sha256: Hex digest of the file's bytes (empty for a frame).
        rows: Data rows read (header not counted).
        encoding: Text encoding used (CSV), ``parquet``, or ``frame``.
        separator: Field separator (CSV), or None.
        blank_rows: Blank CSV lines skipped (not counted in ``rows``).
        notes: What the user should know about how the file was read (shown as warnings).
        unnamed: A frame given without a name: its rows' ``source_file`` is null (see :attr:`source_file`).
        header: The column names as the file spells them (for messages).
    """

    path: str
    size: int
    sha256: str
    rows: int
    encoding: str
    separator: str | None
    blank_rows: int = 0
    notes: tuple[str, ...] = ()
    unnamed: bool = False
    header: tuple[str, ...] = ()

    @property
    def source_file(self) -> str | None:
        """What the rows read have in ``source_file``: ``path``, or null for a frame without a name."""
        return None if self.unnamed else self.path

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column of the file as the tables hold it (normalised and escaped, see
        :func:`held_names`), read or not (see ``columns`` of :func:`read_table`)."""
        return tuple(escape(_normalise(name)) for name in self.header)


#: Categorical and Enum columns (text a writer dictionary-encoded) read as the text they hold, so that
#: they are checked, trimmed and compared as every other text is.
DICTIONARY_AS_TEXT = (cs.categorical() | cs.enum()).cast(pl.String)


def normalise_names(frame: pl.DataFrame, path: str) -> pl.DataFrame:
    return frame.rename(dict(zip(frame.columns, held_names(frame.columns, path), strict=True)))


def held_names(written: list[str] | tuple[str, ...], path: str) -> list[str]:
    """The names a file's columns are held under: normalised (trimmed, lower case, spaces and dashes as
    underscores), then escaped out of elo-batch's reserved names (:mod:`elo_batch.inputs.names`).

    Raises:
        InputDataError: two columns have the same normalised name.
    """
    names = [escape(_normalise(name)) for name in written]
    _check_unique(list(written), names, path)
    return names


def _check_unique(originals: list[str], names: list[str], path: str) -> None:
    seen: dict[str, str] = {}
    for original, name in zip(originals, names, strict=True):
        if name in seen:
            raise InputDataError(
                f"columns {seen[name]!r} and {original!r} both mean {unescape(name)!r}",
                path=path,
                hint="remove or rename one of them.",
            )
        seen[name] = original


def _normalise(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lstrip("\ufeff").strip().lower())
