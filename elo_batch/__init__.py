"""elo-batch: FIDE rating changes for whole populations of players at once.

The public API (everything in ``__all__``; see docs/reference/api.md)::

    import elo_batch

    result = elo_batch.rate_period(games, period="2025-10", ratings=rating_list)
    result.ratings, result.rejected, result.audit, result.counts
    elo_batch.write_period(result, "out")
    elo_batch.run(["games/"], period="2025-10", out="out", ratings="list.parquet")   # the job of `elo-batch run`
    elo_batch.read_period("out", "2025-10").audit   # what a run wrote; elo_batch.report("out"): its pages
    with elo_batch.locked_output("out"):   # read last month's list from "out", then write to it
        ...
"""

__version__ = "0.1.0"

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from elo_batch.api import (
        Frame,
        Options,
        PeriodResult,
        Source,
        locked_output,
        rate_period,
        rate_periods,
        run,
        validate,
        write_period,
    )
    from elo_batch.engine.calculator import GameResult, TournamentResult
    from elo_batch.engine.period import Counts
    from elo_batch.errors import (
        EloBatchError,
        InputDataError,
        InputMissingError,
        InternalError,
        NoRatingSourceError,
        OutputError,
        StrictRejectError,
        UsageError,
    )
    from elo_batch.history import History, rating_history
    from elo_batch.job.runner import PeriodSummary, ValidationReport
    from elo_batch.options import RunOptions
    from elo_batch.reportsite import report
    from elo_batch.rules.sets import RuleSet
    from elo_batch.tables import OutputTables, output_periods, read_period
    from elo_batch.tools import Imported, import_fide_list, import_pgn, import_trf, rate_game, rate_tournament

#: Where each public name lives: imported on first use (PEP 562), so that ``import elo_batch`` and a
#: command that needs little (``elo-batch --version``, a calculator) never load polars and the engine.
_HOMES = {
    name: module
    for module, names in (
        ("elo_batch.api", ("Frame", "Options", "PeriodResult", "Source", "locked_output", "rate_period")),
        ("elo_batch.api", ("rate_periods", "run", "validate", "write_period")),
        ("elo_batch.options", ("RunOptions",)),
        ("elo_batch.engine.calculator", ("GameResult", "TournamentResult")),
        ("elo_batch.engine.period", ("Counts",)),
        ("elo_batch.errors", ("EloBatchError", "InputDataError", "InputMissingError", "InternalError")),
        ("elo_batch.errors", ("NoRatingSourceError", "OutputError", "StrictRejectError", "UsageError")),
        ("elo_batch.history", ("History", "rating_history")),
        ("elo_batch.tables", ("OutputTables", "output_periods", "read_period")),
        ("elo_batch.reportsite", ("report",)),
        ("elo_batch.rules.sets", ("RuleSet",)),
        ("elo_batch.job.runner", ("PeriodSummary", "ValidationReport")),
        ("elo_batch.tools", ("Imported", "import_fide_list", "import_pgn", "import_trf", "rate_game")),
        ("elo_batch.tools", ("rate_tournament",)),
    )
    for name in names
}


def __getattr__(name: str) -> object:
    """A public name, imported from its module on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'elo_batch' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "Counts",
    "EloBatchError",
    "Frame",
    "GameResult",
    "History",
    "Imported",
    "InputDataError",
    "InputMissingError",
    "InternalError",
    "NoRatingSourceError",
    "Options",
    "OutputError",
    "OutputTables",
    "PeriodResult",
    "PeriodSummary",
    "RuleSet",
    "RunOptions",
    "Source",
    "StrictRejectError",
    "TournamentResult",
    "UsageError",
    "ValidationReport",
    "__version__",
    "import_fide_list",
    "import_pgn",
    "import_trf",
    "locked_output",
    "output_periods",
    "rate_game",
    "rate_period",
    "rate_periods",
    "rate_tournament",
    "rating_history",
    "read_period",
    "report",
    "run",
    "validate",
    "write_period",
]
