#!/usr/bin/env python3
"""Convert the Deloitte/FIDE Chess Rating Challenge test games to elo-batch's games file, with a seed list.

Usage: python scripts/convert_deloitte.py [SOURCE_CSV] --out DIR   (``--help`` for the options)
  SOURCE_CSV  default ../shared/data/deloitte-fide-chess-rating-challenge-test/test.csv
  --out DIR   required: the folder written (created if missing): games.parquet and ratings-2025-09.parquet,
              nothing else and nowhere else

The conversion (see the source's SOURCE.md):
- MonthID 133, 134, 135 become periods 2025-10, 2025-11, 2025-12 (column ``period``);
- WhiteScore 1 / 0.5 / 0 becomes ``result`` 1-0 / 1/2-1/2 / 0-1;
- rows scored -1 are the decoys Kaggle planted in the data ("Spurious"): left out;
- TEID becomes ``game_id``, WhitePlayer / BlackPlayer become ``white_id`` / ``black_id`` (text).

The seed list (the data has no ratings): one row per player id seen in the games, made from the
player id alone by SHA-256, so it is the same on every machine and Python version:
- 1 player in 10 is unrated (empty rating), so that first ratings and pools are exercised;
- the others get a rating 1400..2799 (uniform), a birth year 1950..2014 and games_total 0..199
  (so juniors, new players with K 40, K 20 and K 10 all occur); no ``k`` column, so K follows the
  rules (FIDE B.02 8.3.3).
It stands for "the list in force before October 2025"; nothing about the real players is implied.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = ROOT.parent / "shared" / "data" / "deloitte-fide-chess-rating-challenge-test" / "test.csv"
PERIODS = {133: "2025-10", 134: "2025-11", 135: "2025-12"}
RESULTS = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}


def convert(source: Path) -> pl.DataFrame:
    """The real games of the source file in the contract's two-sided shape (decoys left out)."""
    raw = pl.read_csv(source, schema_overrides={"WhiteScore": pl.Float64})
    real = raw.filter(pl.col("WhiteScore") >= 0)
    return real.select(
        pl.col("TEID").cast(pl.String).alias("game_id"),
        pl.col("MonthID").replace_strict(PERIODS, return_dtype=pl.String).alias("period"),
        pl.col("WhitePlayer").cast(pl.String).alias("white_id"),
        pl.col("BlackPlayer").cast(pl.String).alias("black_id"),
        pl.col("WhiteScore").replace_strict(RESULTS, return_dtype=pl.String).alias("result"),
    )


def _draw(player_id: str, what: str, modulo: int) -> int:
    digest = hashlib.sha256(f"{what}:{player_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % modulo


def seed_list(games: pl.DataFrame) -> pl.DataFrame:
    """A documented, deterministic list in force for every player in ``games`` (see the module doc)."""
    ids = sorted(set(games["white_id"]) | set(games["black_id"]), key=lambda x: (len(x), x))
    return pl.DataFrame(
        {
            "player_id": ids,
            "rating": [None if _draw(i, "unrated", 10) == 0 else 1400 + _draw(i, "rating", 1400) for i in ids],
            "birth_year": [1950 + _draw(i, "born", 65) for i in ids],
            "games_total": [_draw(i, "games", 200) for i in ids],
        },
        schema={"player_id": pl.String, "rating": pl.Int64, "birth_year": pl.Int64, "games_total": pl.Int64},
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (``--help``); argparse exits 2 with a usage message on a bad one."""
    parser = argparse.ArgumentParser(
        prog="convert_deloitte.py",
        description="Convert the Deloitte/FIDE Chess Rating Challenge test games to an elo-batch games file "
        "(games.parquet, periods 2025-10..2025-12) and a deterministic seed list (ratings-2025-09.parquet).",
    )
    parser.add_argument(
        "source", nargs="?", type=Path, default=DEFAULT_SOURCE, metavar="SOURCE_CSV",
        help=f"the challenge's test.csv (default: {DEFAULT_SOURCE})",
    )  # fmt: skip
    parser.add_argument(
        "-o", "--out", type=Path, required=True, metavar="DIR",
        help="the folder to write games.parquet and ratings-2025-09.parquet into (created if missing); "
        "nothing is written elsewhere",
    )  # fmt: skip
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Convert ``SOURCE_CSV`` into ``--out``; the exit status (66: the source unreadable, 73: ``--out``
    not writable; 0 otherwise)."""
    args = parse_args(argv)
    source, out = args.source, args.out
    if not source.is_file():
        print(f"convert_deloitte.py: error: {source}: no such file (the challenge's test.csv)", file=sys.stderr)
        return 66
    games = convert(source)
    try:
        out.mkdir(parents=True, exist_ok=True)
        games.write_parquet(out / "games.parquet")
        seed_list(games).write_parquet(out / "ratings-2025-09.parquet")
    except OSError as exc:
        print(f"convert_deloitte.py: error: cannot write into {out}: {exc.strerror or exc}", file=sys.stderr)
        return 73
    counts = dict(games.group_by("period").len().sort("period").iter_rows())
    print(f"{games.height} games {counts} -> {out}/games.parquet; seed list -> {out}/ratings-2025-09.parquet")
    return 0


if __name__ == "__main__":
    sys.exit(main())
