"""Settings of one run (frozen), and how they turn into the rule set of each period."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from elo_batch.errors import UsageError
from elo_batch.rules.sets import Cap, Expected, ListKind, Rounding, RuleSet, rule_set_for

#: Default of ``--chunk-rows``: 20 million game rows take about 5 GB in memory.
CHUNK_ROWS = 20_000_000
_PERIOD = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")


@dataclass(frozen=True)
class RunConfig:
    """What the user asked for; ``None`` means "as the rule set says".

    Attributes:
        periods: Months of play to rate, in order (``YYYY-MM``).
        rules: ``fide`` or ``elo``.
        rule_set: Force a named rule set (``fide-2024-03``, ``fide-2025-10``, ``elo``).
        list_kind: ``standard``, ``rapid`` or ``blitz``.
        expected, cap_400, k, rule_700, rounding: Overrides of single parts of the rule set.
        strict: Fail (exit 65) before writing anything when any input row is rejected.
        chunk_rows: Game inputs (Parquet) of more rows than this are never read into memory whole:
            they are read, checked and rated in chunks of at most this many rows, each time a pass
            over the games needs them (the per-player sums of the chunks are exact integers, so the
            result is that of one chunk).
    """

    periods: tuple[str, ...]
    rules: Literal["fide", "elo"] = "fide"
    rule_set: str | None = None
    list_kind: ListKind = "standard"
    expected: Expected | None = None
    cap_400: Literal["auto", "always", "never"] = "auto"
    k: int | None = None
    rule_700: bool | None = None
    rounding: Rounding | None = None
    strict: bool = False
    chunk_rows: int = CHUNK_ROWS

    def rules_for(self, period: str) -> RuleSet:
        """The rule set for ``period`` with this run's overrides applied.

        Raises:
            UsageError: as :func:`elo_batch.rules.rule_set_for`.
        """
        if self.rules == "elo" and self.rule_set is not None and self.rule_set != "elo":
            raise UsageError(
                f"--rules elo and --rule-set {self.rule_set} ask for two different rule sets",
                column="--rule-set",
                hint="give one: --rules elo, or --rule-set with a FIDE rule set.",
            )
        base = rule_set_for(self.rules, period, rule_set=self.rule_set, list_kind=self.list_kind)
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
        if not changes:
            return base
        suffix = ",".join(f"{key}={value}" for key, value in changes.items())
        return replace(base, name=f"{base.name}+{suffix}", **changes)  # type: ignore[arg-type]


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
                column="--period",
                hint="use a month of play YYYY-MM (2025-10) or a range YYYY-MM..YYYY-MM.",
            )
        bounds.append(int(match.group(1)) * 12 + int(match.group(2)) - 1)
    if bounds[1] < bounds[0]:
        raise UsageError(
            f"range {text!r} ends before it starts", column="--period", hint="write the earlier month first."
        )
    return tuple(f"{m // 12:04d}-{m % 12 + 1:02d}" for m in range(bounds[0], bounds[1] + 1))


def next_period(period: str) -> str:
    """The month after ``period``.

    >>> next_period("2025-12")
    '2026-01'
    """
    year, month = int(period[:4]), int(period[5:])
    return f"{year + month // 12:04d}-{month % 12 + 1:02d}"
