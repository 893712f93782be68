"""elo-batch: FIDE rating changes for whole populations of players at once.

The public API (everything in ``__all__``; see the README section "Python API")::

    import elo_batch

    result = elo_batch.rate_period(games, period="2025-10", ratings=rating_list)
    result.ratings, result.rejected, result.audit, result.counts
    elo_batch.write_period(result, "out")
    with elo_batch.locked_output("out"):   # read last month's list from "out", then write to it
        ...
"""

__version__ = "0.1.0"

from elo_batch.api import (
    Frame,
    Options,
    PeriodResult,
    Source,
    locked_output,
    rate_period,
    rate_periods,
    validate,
    write_period,
)
from elo_batch.engine.period import Counts
from elo_batch.errors import (
    EloBatchError,
    InputDataError,
    InputMissingError,
    InternalError,
    OutputError,
    StrictRejectError,
    UsageError,
)
from elo_batch.rules.sets import RuleSet
from elo_batch.runner import PeriodSummary, ValidationReport

__all__ = [
    "Counts",
    "EloBatchError",
    "Frame",
    "InputDataError",
    "InputMissingError",
    "InternalError",
    "Options",
    "OutputError",
    "PeriodResult",
    "PeriodSummary",
    "RuleSet",
    "Source",
    "StrictRejectError",
    "UsageError",
    "ValidationReport",
    "__version__",
    "locked_output",
    "rate_period",
    "rate_periods",
    "validate",
    "write_period",
]
