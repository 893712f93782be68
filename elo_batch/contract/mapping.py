"""A table's own names for canonical columns (``--columns``, ``--list-columns``): :class:`ColumnMap`,
checked when the options are made, applied where a table's held names become the canonical ones; reads
no file.

A file's names are held normalised and escaped (:mod:`elo_batch.contract.names`); a mapping's names are
matched the same way, so that ``"White Player"`` finds a column ``white player`` or ``White-Player``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar, cast

from elo_batch.contract.names import READER_COLUMNS, escape, normalise, unescape
from elo_batch.errors import InputDataError, UsageError, option

if TYPE_CHECKING:  # the tables are polars'; a run that maps nothing never imports polars for this
    import polars as pl

#: A table as read: in memory or a plan.
FrameT = TypeVar("FrameT", bound="pl.DataFrame | pl.LazyFrame")


@dataclass(frozen=True)
class ColumnMap:
    """A table's own names for canonical columns (``--columns``, ``--list-columns``): the file's column
    ``theirs`` is held as ``canonical``, where its file's names become held names (:meth:`hold`).

    The names are matched as held names are (:func:`~elo_batch.inputs.inputfile.held_names`: ``"White
    Player"`` matches a column ``white player`` or ``White-Player``). A table that also has a column named
    ``canonical`` drops it.

    Attributes:
        pairs: (canonical name, the table's own name as given), in the order given.
        option: The option it was given as (``columns``, ``list_columns``), for messages.

    >>> games = ColumnMap.of({"white_id": "WhitePlayer"}, option="columns", names=("white_id", "black_id"))
    >>> games.sources, games.reading(("white_id", "black_id"))
    ({'whiteplayer': 'white_id'}, ('white_id', 'black_id', 'whiteplayer'))
    """

    pairs: tuple[tuple[str, str], ...]
    option: str

    @classmethod
    def of(cls, given: object, *, option: str, names: Collection[str]) -> ColumnMap | None:
        """The mapping ``given`` (canonical name -> the table's own name) checked; None when it is None or empty.

        Args:
            given: A mapping of text to text, as the option's value.
            option: The option (``columns``, ``list_columns``), for messages.
            names: The canonical names that may be mapped (a games file's, the list's).

        Raises:
            UsageError: not a mapping of text to non-empty text, a key that is not one of ``names``, or
                two keys mapped to one column.
        """
        if given is None:
            return None
        if not isinstance(given, Mapping):
            raise UsageError(
                f"{given!r} is not a mapping of column names", option=option,
                hint="give canonical name -> the file's own name, as {'white_id': 'WhitePlayer'}.",
            )  # fmt: skip
        pairs = tuple(_pair(key, value, name=option, names=names) for key, value in given.items())
        _check_distinct(pairs, option)
        return cls(pairs, option) if pairs else None

    @property
    def sources(self) -> dict[str, str]:
        """The held name of each mapped column of the table -> the canonical name it is held under."""
        return {escape(normalise(theirs)): canonical for canonical, theirs in self.pairs}

    def reading(self, wanted: tuple[str, ...]) -> tuple[str, ...]:
        """The held names to read when ``wanted`` (held names, canonical) are wanted: those and the mapped columns."""
        return (*wanted, *[held for held in self.sources if held not in wanted])

    def hold(self, table: FrameT, header: tuple[str, ...], path: str) -> FrameT:
        """``table`` (held names, the columns read) with the mapped columns under their canonical names; a
        column of the table named like a mapped canonical name, and not mapped itself, dropped.

        Args:
            table: A table as read (held names).
            header: Every column's name as the file spells it, read or not (empty: the table's columns).
            path: The file, for the message.

        Raises:
            InputDataError: a mapped name is not a column of the file (the message lists its columns).
        """
        present = table.collect_schema().names()
        held = [escape(normalise(name)) for name in header] if header else present  # as the reader held them
        missing = [(canonical, theirs) for canonical, theirs in self.pairs if escape(normalise(theirs)) not in held]
        if missing:
            raise self._missing(missing, header or tuple(unescape(n) for n in present if n not in READER_COLUMNS), path)
        sources = self.sources
        displaced = [name for name in sources.values() if name in present and name not in sources]
        renames = {name: canonical for name, canonical in sources.items() if name in present and name != canonical}
        return cast(FrameT, table.drop(displaced).rename(renames))  # of the kind it was given

    def spelled(self, spelled: Mapping[str, str]) -> dict[str, str]:
        """``spelled`` (held name -> the name as the file spells it, for messages) as :meth:`hold` holds the
        table: a mapped column under its canonical name, a displaced column left out."""
        sources = self.sources
        return {
            sources.get(held, held): written
            for held, written in spelled.items()
            if held in sources or held not in sources.values()
        }

    def recorded(self) -> dict[str, str]:
        """The mapping as given (canonical -> the table's own name), as a manifest records it."""
        return dict(self.pairs)

    def _missing(self, missing: list[tuple[str, str]], columns: tuple[str, ...], path: str) -> InputDataError:
        shown = ", ".join(f"{canonical}={theirs}" for canonical, theirs in missing)
        names = ", ".join(theirs for _, theirs in missing)
        return InputDataError(
            f"no column {names} (mapped by {option(self.option)} {shown}); the file has "
            + (", ".join(columns) if columns else "no columns"),
            path=path,
            hint=f"give {option(self.option)} the file's own column names.",
        )


#: The tables a column mapping's option maps, for messages.
_TABLES = {"columns": "a games file", "list_columns": "the rating list"}


def _pair(key: object, value: object, *, name: str, names: Collection[str]) -> tuple[str, str]:
    """One entry of a column mapping, checked: (canonical name, the table's own name)."""
    if not isinstance(key, str) or not isinstance(value, str) or not value.strip():
        raise UsageError(
            f"{key!r}: {value!r} does not map a column name to a column name", option=name,
            hint="give the canonical name and the file's own name, both as text.",
        )  # fmt: skip
    canonical = normalise(key)
    if canonical not in names:
        raise UsageError(
            f"{key!r} is not a column of {_TABLES.get(name, 'the table')}", option=name,
            hint=f"map one of {', '.join(names)}.",
        )  # fmt: skip
    return canonical, value.strip()


def _check_distinct(pairs: tuple[tuple[str, str], ...], name: str) -> None:
    """Refuse two canonical names mapped to one column (or one canonical name mapped twice)."""
    seen: dict[str, str] = {}
    for canonical, theirs in pairs:
        held = escape(normalise(theirs))
        if held in seen:
            raise UsageError(
                f"{seen[held]!r} and {canonical!r} are both mapped to column {theirs!r}", option=name,
                hint="map each column once.",
            )  # fmt: skip
        seen[held] = canonical
    canonicals = [canonical for canonical, _ in pairs]
    twice = sorted({canonical for canonical in canonicals if canonicals.count(canonical) > 1})
    if twice:
        raise UsageError(f"{', '.join(twice)} mapped twice", option=name, hint="map each column once.")
