"""The options of a run, defined once: :class:`RunOptions`.

How a run reads, checks and rates its games; what the API's keywords build (``rate_period(games,
period=..., rounding="game")`` is ``rate_period(games, period=..., options=RunOptions(rounding="game"))``),
what the CLI's flags of ``run`` and ``validate`` map onto (``elo_batch.cli.runcmd.run_options``), and
what a run's config (:class:`elo_batch.config.RunConfig`, the manifest's ``options``) is made from. Each
choice is one Literal: of the rule sets (:mod:`elo_batch.rules.sets`) or of the run
(:mod:`elo_batch.config`).
"""

from __future__ import annotations

import dataclasses
import enum
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

from elo_batch.choices import CapChoice, Expected, ListKind, PeriodBy, Rounding, RulesName
from elo_batch.config import MAX_K, RULE_CHOICES, RuleChoices, RunConfig, check_whole
from elo_batch.contract.mapping import ColumnMap
from elo_batch.errors import UsageError
from elo_batch.inputs.encoding import check_encoding

if TYPE_CHECKING:  # polars is imported by a caller that hands over one of its frames (a calculator never)
    import polars as pl
    import pyarrow as pa


class NotGiven(enum.Enum):
    """The default of ``ratings``: not passed. The run then needs a rating on a game row of its periods
    (:class:`~elo_batch.errors.NoRatingSourceError` otherwise); ``ratings=None`` says there is no list."""

    NOT_GIVEN = "NOT_GIVEN"

    def __repr__(self) -> str:
        return "NOT_GIVEN"


#: ``ratings`` not passed (see :class:`NotGiven`).
NOT_GIVEN: Final = NotGiven.NOT_GIVEN


@dataclass(frozen=True, kw_only=True)
class RunOptions(RuleChoices):
    """How a run reads, checks and rates its games: every option of ``run`` and ``validate`` but the
    periods, the inputs and where the outputs go. Each value is checked when the options are made.

    How the games are checked and rated (``rules``, ``rule_set``, ``list_kind``, ``expected``, ``cap_400``,
    ``k``, ``rule_700``, ``rounding``, ``strict``, ``chunk_rows``, ``max_rejected``, ``period_by``) are the
    fields of :class:`elo_batch.config.RuleChoices`, where they are declared; ``expected``, ``rule_700``
    and ``rounding`` None: the rule set's.

    Attributes:
        bands: The band table of the new list's ``band``: a CSV or Parquet path, or a polars DataFrame
            with columns ``band`` and ``min_rating``; None: ``elo_batch/rules/bands.csv``.
        encoding: Force the text encoding of CSV inputs; None: detect it.
        source_name: What the rows of a games frame get in ``source_file``; None: null.
        events: The events, one row per ``event_id``: a table (polars, pyarrow; the Spark engine also
            takes a Spark DataFrame) or a CSV/Parquet path.
        ratings_period: ``ratings`` is a ratings table elo-batch wrote: take the list of this period
            (``YYYY-MM``); None: the month before the first period rated.
        columns: The games' own names of canonical columns: canonical name -> the file's name
            (``{"white_id": "WhitePlayer"}``), for every games file and frame; names matched as the
            files' names are (trimmed, lower case, spaces and dashes as underscores); a file's own
            column of a mapped canonical name is dropped. Kept with its keys normalised; None: none.
        list_columns: The same for the rating list (``{"player_id": "ID", "rating": "Rtg"}``).

    Raises:
        UsageError: a value that is not one of its option's choices or of its type, or an encoding
            Python does not know, naming the option; a column mapping that is not text to text, maps a
            name that is not a games column (a list column), or maps two names to one column.
        TypeError: ``bands`` neither a path nor a polars DataFrame, ``source_name`` not text.

    >>> RunOptions(rounding="game", max_rejected="2.50%").max_rejected
    '2.5%'
    """

    bands: str | pl.DataFrame | None = None
    encoding: str | None = None
    source_name: str | None = None
    events: pl.DataFrame | pl.LazyFrame | pa.Table | str | None = None
    ratings_period: str | None = None
    columns: Mapping[str, str] | None = None
    list_columns: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            _choice(name, getattr(self, name), choices)
        check_whole("k", self.k, 1, high=MAX_K, optional=True)
        check_whole("chunk_rows", self.chunk_rows, 1, high=None)
        _flag("strict", self.strict, optional=False)
        _flag("rule_700", self.rule_700, optional=True)
        if self.rule_set is not None and not isinstance(self.rule_set, str):
            raise UsageError(
                f"{self.rule_set!r} is not a rule set name", option="rule_set", hint="give its name as text."
            )
        if self.source_name is not None and not isinstance(self.source_name, str):
            raise TypeError(f"source_name must be text or None, not {type(self.source_name).__name__}")
        check_encoding(self.encoding)
        for name in _MAPPINGS:
            mapping = self.column_map(name)  # checked; kept as a plain dict, keys normalised
            object.__setattr__(self, name, mapping.recorded() if mapping is not None else None)
        super().__post_init__()
        for name in ("bands", "events"):
            value = getattr(self, name)
            if isinstance(value, os.PathLike):
                object.__setattr__(self, name, os.fspath(value))
        if self.bands is not None and not isinstance(self.bands, str) and not _is_frame(self.bands):
            raise TypeError(f"bands must be a path or a polars DataFrame, not {type(self.bands).__name__}")

    def config(self, periods: str | None, *, name: str = "period") -> RunConfig:
        """The run's config for ``periods`` (one month ``YYYY-MM`` or a range; None: no period, as
        ``validate`` checks every row); a bad period's error names the parameter it came in (``name``).

        Raises:
            UsageError: ``periods`` is not a month or a range of months.
        """
        chosen = {field: getattr(self, field) for field in RULE_CHOICES}
        bands = self.bands if isinstance(self.bands, str) else None
        mappings = {name: getattr(self, name) for name in _MAPPINGS}
        try:
            return RunConfig.from_options(periods, bands=bands, **mappings, **chosen)
        except UsageError as exc:
            if exc.option == "period" and name != "period":
                exc.option = name
                exc.args = (exc.render(),)
            raise

    def column_map(self, name: Literal["columns", "list_columns"]) -> ColumnMap | None:
        """The column mapping of the games (``columns``) or of the list (``list_columns``), or None.

        Raises:
            UsageError: as :meth:`ColumnMap.of <elo_batch.inputs.inputfile.ColumnMap.of>`.
        """
        given = getattr(self, name)
        if given is None:  # the usual run: the column lists (and polars with them) not imported for it
            return None
        from elo_batch.inputs.gamerules import GAME_COLUMNS
        from elo_batch.inputs.listchecks import LIST_COLUMNS

        return ColumnMap.of(given, option=name, names=GAME_COLUMNS if name == "columns" else LIST_COLUMNS)

    def bands_frame(self) -> pl.DataFrame | None:
        """The band table when it was given as a frame (a path goes through the run's config)."""
        return self.bands if _is_frame(self.bands) else None  # type: ignore[return-value]

    @classmethod
    def of(
        cls,
        function: str,
        base: RunOptions | None,
        keywords: Mapping[str, Any],
        *,
        allowed: tuple[str, ...] | None = None,
    ) -> RunOptions:
        """The options of an API call: ``base`` (the ``options=`` argument; None: the defaults) with the
        keywords given beside it replacing its fields.

        Args:
            function: The function called, for the messages.
            base: The options passed whole, or None.
            keywords: The options passed as keywords (``rules`` among them).
            allowed: The keywords ``function`` takes (None: every field).

        Raises:
            TypeError: a keyword that is not an option of ``function``, or ``base`` not a RunOptions.
            UsageError: a bad value (see :class:`RunOptions`).
        """
        names = allowed if allowed is not None else FIELDS
        unknown = [name for name in keywords if name not in names]
        if unknown:
            raise TypeError(
                f"{function}() got unknown option(s) {', '.join(map(repr, unknown))}; "
                f"the options are: {', '.join(names)}"
            )
        if base is None:
            return cls(**keywords)
        if not isinstance(base, RunOptions):
            raise TypeError(f"options must be a RunOptions, not {type(base).__name__}")
        return dataclasses.replace(base, **keywords) if keywords else base


#: Every option, in the order of :class:`RunOptions`.
FIELDS = tuple(field.name for field in dataclasses.fields(RunOptions))
_CHOICES = {
    name: get_args(kind)
    for name, kind in (
        ("rules", RulesName), ("list_kind", ListKind), ("expected", Expected), ("cap_400", CapChoice),
        ("rounding", Rounding), ("period_by", PeriodBy),
    )
}  # fmt: skip
_OPTIONAL_CHOICES = ("expected", "rounding")
#: The column mappings: of the games, of the list.
_MAPPINGS: tuple[Literal["columns", "list_columns"], ...] = ("columns", "list_columns")


def _is_frame(value: object) -> bool:
    """``value`` is a polars DataFrame (there is none unless polars was imported)."""
    polars = sys.modules.get("polars")
    return polars is not None and isinstance(value, polars.DataFrame)


def _choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value is None and name in _OPTIONAL_CHOICES:
        return
    check_choice(value, name, choices)


def check_choice(value: object, parameter: str, choices: tuple[str, ...]) -> None:
    """Refuse a value of ``parameter`` that is not one of ``choices``.

    Raises:
        UsageError: ``value`` is not one of ``choices``.
    """
    if not isinstance(value, str) or value not in choices:
        raise UsageError(
            f"{value!r} is not one of {', '.join(map(repr, choices))}",
            option=parameter,
            hint=f"use one of {', '.join(choices)}.",
        )


def _flag(name: str, value: object, *, optional: bool) -> None:
    if not isinstance(value, bool) and not (optional and value is None):
        raise UsageError(f"{value!r} is not True or False", option=name, hint="give a bool.")


def given(periods: str, name: str) -> str:
    """``periods``, which must be given (None means "every period" to ``validate`` only)."""
    if periods is None:
        raise UsageError("no period given", option=name, hint="give a month of play, 'YYYY-MM'.")
    return periods
