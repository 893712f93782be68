"""Dated FIDE rule sets and the FIDE tables they use (held as data files with their source)."""

from typing import TYPE_CHECKING

from elo_batch.rules.sets import RULE_SETS, RuleSet, rule_set_for

if TYPE_CHECKING:
    from elo_batch.rules.tables import dp_by_p100, pd_high_by_diff, table_8_1_1, table_8_1_2

_TABLES = ("dp_by_p100", "pd_high_by_diff", "table_8_1_1", "table_8_1_2")


def __getattr__(name: str) -> object:
    """The tables' functions, from :mod:`elo_batch.rules.tables` (polars) on first use: the rule sets
    alone are read by every command."""
    if name in _TABLES:
        from elo_batch.rules import tables

        return getattr(tables, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "RULE_SETS",
    "RuleSet",
    "dp_by_p100",
    "pd_high_by_diff",
    "rule_set_for",
    "table_8_1_1",
    "table_8_1_2",
]
