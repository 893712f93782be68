"""Compare elo-batch's new list with the DuckDB yardstick's, player by player (polars only, no DuckDB).

Usage (``benchmarks/run.py`` runs it after every pair of runs, in a process of its own)::

    compare.py OURS_RATINGS.parquet OURS_AUDIT.parquet YARDSTICK_OUT_DIR GAMES

prints one line per difference (and exits 1), nothing when the two agree.

Both lists hold every listed player: those who did not play with 0 games, change 0 and no K used. The
yardstick (``../shared/bench/duckdb_reference.py``) applies no 1400 floor, so ratings may differ where a
player fell under 1400; the games, the rating change and the K used may not.
"""

from __future__ import annotations

import sys

import polars as pl


def compare_changes(ours: pl.DataFrame, theirs: pl.DataFrame) -> list[str]:
    """Differences between two new lists in ``games``, ``change`` and ``k_used``, one line each (empty: the same).

    Every player of either list is compared: both lists hold every listed player, and a player who did
    not play has 0 games, change 0 and no ``k_used`` (null) in both.

    Args:
        ours: elo-batch's ``ratings`` table (``player_id`` text or integer, ``games``, ``change``, ``k_used``).
        theirs: The yardstick's ``ratings.parquet`` (``player_id`` of any type, ``games``, ``change``,
            ``k_used``).

    Returns:
        Up to 10 lines naming a player and what differs, then a count of the rest; a player in one list
        and absent from the other is a difference too (shown with ``None`` on the side that lacks them).
    """
    mine = ours.select(
        pl.col("player_id").cast(pl.String),
        pl.col("games").cast(pl.Int64),
        pl.col("change").cast(pl.Int64),
        pl.col("k_used").cast(pl.Int64),
        pl.lit(True).alias("in_ours"),
    )
    yard = theirs.select(
        pl.col("player_id").cast(pl.String),
        pl.col("games").cast(pl.Int64).alias("games_yardstick"),
        pl.col("change").cast(pl.Int64).alias("change_yardstick"),
        pl.col("k_used").cast(pl.Int64).alias("k_used_yardstick"),
        pl.lit(True).alias("in_yardstick"),
    )
    both = mine.join(yard, on="player_id", how="full", coalesce=True)
    differs = pl.col("in_ours").is_null() | pl.col("in_yardstick").is_null()
    for name in ("games", "change", "k_used"):  # null = null: no K used by a player who did not play
        differs = differs | pl.col(name).ne_missing(pl.col(f"{name}_yardstick"))
    bad = both.filter(differs).sort("player_id")
    lines = [
        f"player {row['player_id']}: elo-batch games={row['games']} change={row['change']} k_used={row['k_used']}; "
        f"yardstick games={row['games_yardstick']} change={row['change_yardstick']} k_used={row['k_used_yardstick']}"
        for row in bad.head(10).iter_rows(named=True)
    ]
    if bad.height > 10:
        lines.append(f"... and {bad.height - 10} more players differ")
    return lines


def audit_rows(ours_audit: str, theirs_audit: str, games: int) -> list[str]:
    """A difference when either audit has other than one row per game side (``2 x games``)."""
    mine = pl.scan_parquet(ours_audit).select(pl.len()).collect().item()
    yard = pl.scan_parquet(theirs_audit).select(pl.len()).collect().item()
    if mine == 2 * games and yard == 2 * games:
        return []
    return [f"audit rows: elo-batch {mine:,}, yardstick {yard:,}, games x 2 = {2 * games:,}"]


def main(argv: list[str]) -> int:
    ours, ours_audit, yardstick, games = argv
    problems = compare_changes(pl.read_parquet(ours), pl.read_parquet(f"{yardstick}/ratings.parquet"))
    problems += audit_rows(ours_audit, f"{yardstick}/audit.parquet", int(games))
    if problems:
        print("\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
