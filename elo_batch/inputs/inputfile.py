"""The names an input table's columns are held under (its file's record, ``InputFile``, is the contract's:
:mod:`elo_batch.contract.tables`).

Names are normalised (trimmed, lower case, spaces and dashes as underscores), then escaped out of
elo-batch's reserved names (:mod:`elo_batch.contract.names`).
"""

from __future__ import annotations

import polars as pl
import polars.selectors as cs

from elo_batch.contract.names import escape, normalise, unescape
from elo_batch.errors import InputDataError

#: Categorical and Enum columns (text a writer dictionary-encoded) read as the text they hold, so that
#: they are checked, trimmed and compared as every other text is.
DICTIONARY_AS_TEXT = (cs.categorical() | cs.enum()).cast(pl.String)


def normalise_names(frame: pl.DataFrame, path: str) -> pl.DataFrame:
    return frame.rename(dict(zip(frame.columns, held_names(frame.columns, path), strict=True)))


def held_names(written: list[str] | tuple[str, ...], path: str) -> list[str]:
    """The names a file's columns are held under: normalised (trimmed, lower case, spaces and dashes as
    underscores), then escaped out of elo-batch's reserved names (:mod:`elo_batch.contract.names`).

    Raises:
        InputDataError: two columns have the same normalised name.
    """
    names = [escape(normalise(name)) for name in written]
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
