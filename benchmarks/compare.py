"""Compare elo-batch's new list with the DuckDB yardstick's, player by player (polars only, no DuckDB).

The yardstick (``../shared/bench/duckdb_reference.py``) applies no 1400 floor, so ratings may differ
where a player fell under 1400; the rating change and the K used may not.
"""

from __future__ import annotations

import polars as pl


def compare_changes(ours: pl.DataFrame, theirs: pl.DataFrame) -> list[str]:
    """Differences between two new lists in ``change`` and ``k_used``, one line each (empty: the same).

    Args:
        ours: elo-batch's ``ratings`` table (``player_id`` text or integer, ``games``, ``change``, ``k_used``).
        theirs: The yardstick's ``ratings.parquet`` (``player_id`` of any type, ``games``, ``change``,
            ``k_used``), one row per player with at least one game.

    Returns:
        Up to 10 lines naming a player and what differs, then a count of the rest; a player with games
        in one list and not in the other is a difference too.
    """
    mine = ours.filter(pl.col("games") > 0).select(
        pl.col("player_id").cast(pl.String), "games", "change", "k_used", pl.lit(True).alias("in_ours")
    )
    yard = theirs.select(
        pl.col("player_id").cast(pl.String),
        pl.col("games").cast(pl.Int64).alias("games_yardstick"),
        pl.col("change").cast(pl.Int64).alias("change_yardstick"),
        pl.col("k_used").cast(pl.Int64).alias("k_used_yardstick"),
        pl.lit(True).alias("in_yardstick"),
    )
    both = mine.join(yard, on="player_id", how="full", coalesce=True)
    differs = (
        pl.col("in_ours").is_null()
        | pl.col("in_yardstick").is_null()
        | (pl.col("games") != pl.col("games_yardstick"))
        | (pl.col("change") != pl.col("change_yardstick"))
        | (pl.col("k_used") != pl.col("k_used_yardstick"))
    )
    bad = both.filter(differs).sort("player_id")
    lines = [
        f"player {row['player_id']}: elo-batch games={row['games']} change={row['change']} k_used={row['k_used']}; "
        f"yardstick games={row['games_yardstick']} change={row['change_yardstick']} k_used={row['k_used_yardstick']}"
        for row in bad.head(10).iter_rows(named=True)
    ]
    if bad.height > 10:
        lines.append(f"... and {bad.height - 10} more players differ")
    return lines
