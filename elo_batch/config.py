"""Settings of one run (frozen), and how they turn into the rule set of each period."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from elo_batch.choices import CapChoice, Expected, ListKind, PeriodBy, Rounding, RulesName
from elo_batch.errors import UsageError, option
from elo_batch.rules import bounds
from elo_batch.rules.sets import Cap, RuleSet, rule_set_for

#: Default of ``--chunk-rows``: 20 million game rows take about 5 GB in memory.
CHUNK_ROWS = 20_000_000
_PERIOD = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")
#: Most K a run may force (``k``): FIDE's largest is 40; 100 leaves room for other systems (our bound,
#: the same as a list's K: :data:`elo_batch.rules.bounds.MAX_K`).
MAX_K = bounds.MAX_K


@dataclass(frozen=True, kw_only=True)
class RuleChoices:
    """How a run checks and rates its games, as its options give it and its config keeps it: the fields
    :class:`elo_batch.options.RunOptions` and :class:`RunConfig` share, declared once. ``None`` means "as
    the rule set says".

    Attributes:
        rules: ``fide`` (the FIDE regulations in force for each period) or ``elo`` (classic Elo).
        rule_set: Force a named rule set (``fide-2022-01``, ``fide-2024-03``, ``fide-2025-10``, ``elo``).
        list_kind: ``standard``, ``rapid`` or ``blitz`` (the CLI's ``--list``).
        expected: ``table`` (FIDE table 8.1.2) or ``formula`` (logistic).
        cap_400: The 400-point rule (B.02 8.3.1): ``auto`` (per rule set), ``always`` or ``never``.
        k: One K for every player (1 to :data:`MAX_K`); None: the K rules (B.02 8.3.3).
        rule_700: False: do not reduce K when K x n > 700 (the CLI's ``--no-700-rule``).
        rounding: ``period`` (round once, B.02 8.3.4), ``game`` (each game) or ``none`` (2 decimals).
        strict: Fail (exit 65) before writing anything when any input row of the periods is rejected.
        chunk_rows: Game inputs (Parquet, LazyFrames) of more rows than this are never read into memory
            whole: they are read, checked and rated in chunks of at most this many rows, each time a
            pass over the games needs them (the per-player sums of the chunks are exact integers, so
            the result is that of one chunk).
        max_rejected: Fail (exit 65) before writing anything when more rows are rejected than this: a
            number of rows (``10``, or ``"10"``), or a percentage (``"2.5%"``) of the rows of the
            periods rated (see :func:`rejected_limit`); None: every row rejected fails, unless
            ``strict``. Normalised to an int or a ``"P%"`` text (see :func:`parse_max_rejected`).
        period_by: ``date``: a game's ``period``, else its date, decides its month; ``event``: an event
            is rated whole, in its own period, else in the period its last day falls in by the
            closing-date rule (B.02 7.1.3), with the ratings of its start (docs/guides/events.md).
    """

    rules: RulesName = "fide"
    rule_set: str | None = None
    list_kind: ListKind = "standard"
    expected: Expected | None = None
    cap_400: CapChoice = "auto"
    k: int | None = None
    rule_700: bool | None = None
    rounding: Rounding | None = None
    strict: bool = False
    chunk_rows: int = CHUNK_ROWS
    max_rejected: int | str | None = None
    period_by: PeriodBy = "date"

    def __post_init__(self) -> None:
        if self.max_rejected is not None:
            object.__setattr__(self, "max_rejected", parse_max_rejected(self.max_rejected))


#: The fields of :class:`RuleChoices`, in order.
RULE_CHOICES = tuple(field.name for field in fields(RuleChoices))


@dataclass(frozen=True)
class RunConfig(RuleChoices):
    """What the user asked for: the periods, and the :class:`RuleChoices` (every field of it, by keyword).

    Attributes:
        periods: Months of play to rate, in order (``YYYY-MM``).
        bands: A band table file (columns ``band``, ``min_rating``) for the new list's ``band``; None:
            the default table (``elo_batch/rules/bands.csv``).
        columns, list_columns: The column mappings of the games and of the list (canonical name -> the
            file's own name, checked by :class:`elo_batch.options.RunOptions`), as (name, name) pairs;
            None: none given.
    """

    periods: tuple[str, ...]
    bands: str | None = None
    columns: tuple[tuple[str, str], ...] | None = None
    list_columns: tuple[tuple[str, str], ...] | None = None

    def recorded(self) -> dict[str, object]:
        """The config as a manifest's ``options`` record it: ``periods``, the rule choices, ``bands``, and
        the column mappings where one is given (a run without one records what runs always recorded)."""
        mappings = {name: dict(value) for name in ("columns", "list_columns") if (value := getattr(self, name))}
        return {
            "periods": list(self.periods),
            **{name: getattr(self, name) for name in RULE_CHOICES},
            "bands": self.bands,
            **mappings,
        }

    @property
    def fide_rules(self) -> bool:
        """FIDE's regulations rate the run: ``rules="fide"`` and no forced ``elo`` rule set."""
        return self.rules == "fide" and self.rule_set != "elo"

    @property
    def fractional_ratings(self) -> bool:
        """Ratings stay fractional (2 decimals) in some period of the run: ``rounding="none"``, forced or
        by a period's rule set (what a list is read as).

        Raises:
            UsageError: as :meth:`rules_for`.
        """
        whole = [self.rules_for(period).whole_ratings for period in self.periods]
        return self.rounding == "none" or not all(whole)

    @classmethod
    def from_options(
        cls,
        period: str | None,
        *,
        bands: str | None = None,
        columns: Mapping[str, str] | None = None,
        list_columns: Mapping[str, str] | None = None,
        **chosen: Any,
    ) -> RunConfig:
        """The settings of a run for ``period`` from its options (each checked by
        :class:`elo_batch.options.RunOptions`, which calls this).

        Args:
            period: One month ``YYYY-MM`` or a range ``YYYY-MM..YYYY-MM`` (see :func:`parse_periods`);
                None: no period (``validate`` checks every row).
            bands: The band table's path (a table in memory stays with the options).
            columns, list_columns: The column mappings (see the class), or None.
            **chosen: The other attributes, by name.

        Raises:
            UsageError: ``period`` is not a month or a range of months.

        >>> RunConfig.from_options("2025-10", rounding="game").rules_for("2025-10").name
        'fide-2025-10+rounding=game'
        """
        if period is not None and not isinstance(period, str):
            raise UsageError(f"{period!r} is not a rating period", option="period", hint="give it as text, 'YYYY-MM'.")
        periods = parse_periods(period) if period is not None else ()
        games, listed = (tuple(value.items()) if value else None for value in (columns, list_columns))
        return cls(periods=periods, bands=bands, columns=games, list_columns=listed, **chosen)

    def rules_for(self, period: str) -> RuleSet:
        """The rule set for ``period`` with this run's overrides applied.

        Raises:
            UsageError: as :func:`elo_batch.rules.rule_set_for`.
        """
        if self.rules == "elo" and self.rule_set is not None and self.rule_set != "elo":
            raise UsageError(
                f"{option('rules', 'elo')} and {option('rule_set', self.rule_set)} ask for two different rule sets",
                option="rule_set",
                hint=f"give one: {option('rules', 'elo')}, or {option('rule_set')} with a FIDE rule set.",
            )
        base = rule_set_for(self.rules, period, rule_set=self.rule_set, list_kind=self.list_kind)
        changes = self._changes(base)
        if not changes:
            return base
        suffix = ",".join(f"{key}={value}" for key, value in changes.items())
        return replace(base, name=f"{base.name}+{suffix}", **changes)  # type: ignore[arg-type]

    def _changes(self, base: RuleSet) -> dict[str, object]:
        """The parts of ``base`` this run overrides (field -> value), in the order the rule set's name
        lists them: only those that differ from ``base``."""
        changes: dict[str, object] = {}
        if self.expected is not None and self.expected != base.expected:
            changes["expected"] = self.expected
        cap: Cap | None = None if self.cap_400 == "auto" else self.cap_400
        if cap is not None and cap != base.cap_400:
            changes["cap_400"] = cap
        if self.k is not None and (base.k_rule, base.k_fixed) != ("fixed", self.k):
            changes["k_rule"] = "fixed"
            changes["k_fixed"] = self.k
        if self.rule_700 is not None and self.rule_700 != base.rule_700:
            changes["rule_700"] = self.rule_700
        if self.rounding is not None and self.rounding != base.rounding:
            changes["rounding"] = self.rounding
        return changes


def events_decide_periods(period_by: PeriodBy) -> bool:
    """Whether events decide the rating periods (``period_by="event"``: an event is rated whole, in its
    own period, else in the period of its last day by the closing-date rule, B.02 7.1.3)."""
    return period_by == "event"


def parse_max_rejected(value: int | str) -> int | str:
    """Parse a limit of rejected rows: a number of rows, or a percentage ``P%`` (0 <= P <= 100).

    Args:
        value: ``10``, ``"10"``, ``"2.5%"``.

    Returns:
        The number of rows (int), or the percentage as text ``"P%"`` without redundant zeros.

    Raises:
        UsageError: neither a whole number of rows nor a percentage from 0 to 100 (names the option
            ``max_rejected``).

    >>> parse_max_rejected("10"), parse_max_rejected(" 2.50 %"), parse_max_rejected(3)
    (10, '2.5%', 3)
    """
    hint = "give a number of rows (10) or a percentage of the rows of the periods rated (2.5%)."
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise UsageError(f"{value!r} is not a number of rows", option="max_rejected", hint=hint)
        return value
    text = str(value).strip().replace(" ", "") if isinstance(value, str) else ""
    if re.fullmatch(r"[0-9]+", text):
        return int(text)
    match = re.fullmatch(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)%", text)
    if not match:
        raise UsageError(f"{value!r} is not a number of rows or a percentage", option="max_rejected", hint=hint)
    if float(match.group(1)) > 100:
        raise UsageError(f"{value!r} is a percentage over 100%", option="max_rejected", hint=hint)
    return f"{float(match.group(1)):g}%"


def rejected_limit(max_rejected: int | str, rows: int) -> float:
    """The most rejected rows a limit allows among ``rows`` rows (a fraction for a percentage).

    A percentage is of ``rows``: the rows read that belong to the periods rated (their usable rows,
    and the rows rejected in them or with no readable period).

    >>> rejected_limit(10, 400), rejected_limit("2.5%", 400)
    (10, 10.0)
    """
    if isinstance(max_rejected, int):
        return max_rejected
    return float(max_rejected.rstrip("%")) * rows / 100


def check_k(k: object, name: str = "k") -> None:
    """Refuse a forced K (``k``, or a calculator's ``k_b``) that is not a whole number from 1 to :data:`MAX_K`.

    Raises:
        UsageError: ``k`` is not None and not such a number (a bool or a float is not), naming ``name``.
    """
    check_whole(name, k, 1, high=MAX_K, optional=True)


def check_whole(name: str, value: object, low: int, *, high: int | None, optional: bool = False) -> None:
    """Refuse ``value`` of option ``name`` unless it is a whole number from ``low`` to ``high`` (None: no
    upper bound), or None when ``optional``.

    Raises:
        UsageError: naming ``name``.
    """
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        wanted = f"a whole number from {low} to {high}" if high is not None else f"a whole number of at least {low}"
        raise UsageError(f"{value!r} is not {wanted}", option=name, hint=f"give {wanted}.")


def parse_periods(text: str) -> tuple[str, ...]:
    """Parse ``--period``: one month ``YYYY-MM`` or a range ``YYYY-MM..YYYY-MM``.

    Returns:
        The months in order, both ends included.

    Raises:
        UsageError: not a month or a range of months, or a range that runs backwards.

    >>> parse_periods("2025-11..2026-02")
    ('2025-11', '2025-12', '2026-01', '2026-02')
    """
    first, sep, last = text.strip().partition("..")
    if not sep:
        last = first
    bounds = []
    for part in (first, last):
        match = _PERIOD.match(part.strip())
        if not match:
            raise UsageError(
                f"{text!r} is not a rating period",
                option="period",
                hint="use a month of play YYYY-MM (2025-10) or a range YYYY-MM..YYYY-MM.",
            )
        bounds.append(int(match.group(1)) * 12 + int(match.group(2)) - 1)
    if bounds[1] < bounds[0]:
        raise UsageError(
            f"range {text!r} ends before it starts", option="period", hint="write the earlier month first."
        )
    return tuple(f"{m // 12:04d}-{m % 12 + 1:02d}" for m in range(bounds[0], bounds[1] + 1))


def next_period(period: str) -> str:
    """The month after ``period``.

    >>> next_period("2025-12")
    '2026-01'
    """
    year, month = int(period[:4]), int(period[5:])
    return f"{year + month // 12:04d}-{month % 12 + 1:02d}"
