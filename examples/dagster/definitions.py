"""A Dagster project that rates one month per partition with elo-batch's public API (``elo_batch.run``).

Each monthly partition of the asset ``fide_ratings`` is one rating period (``--period YYYY-MM``): the
first from the list in force given, each later one from the list the month before wrote under ``out``
(the asset depends on its own previous partition, so a backfill rates the months in order). The
manifest's counts become the materialisation's metadata; an elo-batch error fails the partition with
its message and exit code. Run it with ``dagster dev -f definitions.py`` (see README.md).
"""

import datetime as dt
from pathlib import Path
from typing import Any

import dagster as dg

import elo_batch

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"

#: The months rated: October 2025 (the sample's games) onwards.
monthly = dg.MonthlyPartitionsDefinition(start_date="2025-10-01", end_offset=1)


class RatingRun(dg.Config):
    """Where the games, the first list and the outputs are (paths or object-store URIs)."""

    games: str = str(SAMPLE / "us-championship-2025-games.csv")
    first_list: str = str(SAMPLE / "ratings-2025-10.csv")
    first_period: str = "2025-10"
    out: str = "out"


def period_of(start: dt.datetime) -> str:
    """The rating period (``--period``) of the partition that starts at ``start``."""
    return start.strftime("%Y-%m")


@dg.asset(
    partitions_def=monthly,
    deps=[dg.AssetDep("fide_ratings", partition_mapping=dg.TimeWindowPartitionMapping(start_offset=-1, end_offset=-1))],
)
def fide_ratings(context: dg.AssetExecutionContext, config: RatingRun) -> dg.MaterializeResult:
    """The new rating list, audit and rejected rows of the partition's month, written under ``config.out``."""
    period = period_of(context.partition_time_window.start)
    # the first month starts from the given list, every later one from the ratings table under out
    # (without ratings_period, elo-batch reads the period before the one rated)
    ratings = config.first_list if period == config.first_period else f"{config.out}/ratings"
    try:
        (summary,) = elo_batch.run(config.games, period=period, out=config.out, ratings=ratings)
    except elo_batch.EloBatchError as error:
        raise dg.Failure(description=str(error), metadata={"exit_code": error.exit_code}) from error
    manifest = elo_batch.read_period(config.out, period, tables=("ratings",)).manifest  # the public reader
    context.log.info("%s: %s", period, manifest["counts"])
    return dg.MaterializeResult(metadata=metadata(manifest, summary.outputs["manifest"]))


def metadata(manifest: dict[str, Any], manifest_file: str) -> dict[str, object]:
    """The materialisation's metadata: the manifest's counts and rows written, and where it lies."""
    return {
        **manifest["counts"],
        **{f"rows_{table}": rows for table, rows in manifest["rows_written"].items()},
        "dagster/row_count": manifest["rows_written"]["ratings"],
        "rule_set": manifest["rule_set"]["name"],
        "manifest": dg.MetadataValue.path(manifest_file),
    }


defs = dg.Definitions(assets=[fide_ratings])
