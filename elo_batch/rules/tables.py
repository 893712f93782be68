"""FIDE tables 8.1.1 and 8.1.2 loaded from the CSV files beside this module (see SOURCE.md)."""

from __future__ import annotations

from functools import cache
from importlib import resources

import polars as pl

#: |D| at and above which table 8.1.2 gives PD 1.00 / 0.00 ("more than 735").
TABLE_TAIL = 736


def _read(name: str) -> pl.DataFrame:
    data = resources.files("elo_batch.rules").joinpath(name).read_bytes()
    return pl.read_csv(data)


@cache
def table_8_1_2() -> pl.DataFrame:
    """Table 8.1.2 as published: one row per band of rating differences.

    Returns:
        51 rows with columns ``row`` (1..51), ``d_min``, ``d_max`` (inclusive rating points; ``d_max`` null
        on the last row, "more than 735"), ``pd_high`` and ``pd_low`` (PD in hundredths for the
        higher- and lower-rated player).

    References:
        FIDE Rating Regulations (B.02, 2024), table 8.1.2; ``fide-rules.md`` section 1.
    """
    return _read("table_8_1_2.csv")


@cache
def pd_high_by_diff() -> pl.Series:
    """Table 8.1.2 expanded to one entry per whole rating difference, for a dense lookup.

    Returns:
        Int64 series of length 737: entry ``d`` (0..735) is PD in hundredths of the higher-rated
        player for |D| = d; entry 736 stands for every |D| > 735 (PD 100).

    References:
        FIDE Rating Regulations (B.02, 2024), table 8.1.2.
    """
    table = table_8_1_2()
    d_max = table["d_max"].fill_null(TABLE_TAIL)
    counts = (d_max - table["d_min"] + 1).cast(pl.Int64)
    return table["pd_high"].cast(pl.Int64).repeat_by(counts).explode().rename("pd_high")


@cache
def table_8_1_1() -> pl.DataFrame:
    """Table 8.1.1: fractional score p to rating difference dp.

    Returns:
        101 rows, columns ``p100`` (p in hundredths, 0..100) and ``dp`` (rating points, -800..800).

    References:
        FIDE Rating Regulations (B.02, 2024), table 8.1.1 (= Title Regulations table 1.4.9).
    """
    return _read("table_8_1_1.csv")


@cache
def dp_by_p100() -> pl.Series:
    """Table 8.1.1 as a dense Int64 series indexed by p in hundredths (0..100), rating points."""
    return table_8_1_1().sort("p100")["dp"].cast(pl.Int64)
