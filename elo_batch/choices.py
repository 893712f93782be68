"""The choices a user makes, each one Literal, defined once: the API's keywords and the CLI's flags take
their values from here (typer shows them as ``<a|b>`` and refuses others), and the library checks them
against the same Literal (:func:`typing.get_args`). No imports: every layer may use them."""

from __future__ import annotations

from typing import Literal

#: ``fide``: the FIDE regulations in force for each period; ``elo``: classic Elo.
RulesName = Literal["fide", "elo"]
#: Which FIDE list is rated: standard, rapid or blitz.
ListKind = Literal["standard", "rapid", "blitz"]
#: The expected score: FIDE's table 8.1.2 or the logistic formula.
Expected = Literal["table", "formula"]
#: The 400-point rule (B.02 8.3.1): as the rule set says, always, or never.
CapChoice = Literal["auto", "always", "never"]
#: Rounding of a rating change (B.02 8.3.4): once per period, per game, or not at all (2 decimals).
Rounding = Literal["period", "game", "none"]
#: What decides a game's rating period: its own period, else its date; or its event (B.02 7.1.3).
PeriodBy = Literal["date", "event"]
#: The file type of the tables written.
Format = Literal["parquet", "csv"]
#: How a run's tables are laid out: hive folders per period, or Delta Lake tables.
TableFormat = Literal["parquet", "delta"]
#: CSV text cells a spreadsheet would run as formulas: escaped with a leading quote, or kept.
CsvFormulas = Literal["escape", "keep"]
#: Where a run reads and rates its games: here, or on Spark.
EngineName = Literal["local", "spark"]
