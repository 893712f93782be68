"""Dated FIDE rule sets and the FIDE tables they use (held as data files with their source)."""

from elo_batch.rules.sets import RULE_SETS, RuleSet, rule_set_for
from elo_batch.rules.tables import dp_by_p100, pd_high_by_diff, table_8_1_1, table_8_1_2

__all__ = [
    "RULE_SETS",
    "RuleSet",
    "dp_by_p100",
    "pd_high_by_diff",
    "rule_set_for",
    "table_8_1_1",
    "table_8_1_2",
]
