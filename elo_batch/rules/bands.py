"""Rating bands: approximate strength labels of a rating (never titles), as a table of lowest ratings.

A band table is one row per band: its label (``band``) and the lowest rating in it (``min_rating``); a
rating belongs to the band with the highest ``min_rating`` at or below it, and a rating under the lowest
``min_rating`` (or no rating) to none. The default table is ``bands.csv`` beside this module (see
``SOURCE.md``); a federation gives its own with ``--bands FILE`` (:mod:`elo_batch.inputs.bandsfile`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

import polars as pl

from elo_batch import columns as c

MIN_RATING = "min_rating"


@dataclass(frozen=True)
class Bands:
    """A band table, sorted by ``min_rating``.

    Attributes:
        labels: The bands' labels, lowest band first.
        mins: The lowest rating of each band, increasing.
        source: Where the table came from (``default`` or the file), for the manifest.
    """

    labels: tuple[str, ...]
    mins: tuple[float, ...]
    source: str

    @staticmethod
    def of(table: pl.DataFrame, source: str) -> Bands:
        """A checked table (columns ``band``, ``min_rating``, distinct minimums) as :class:`Bands`."""
        ordered = table.sort(MIN_RATING)
        return Bands(tuple(ordered[c.BAND].to_list()), tuple(float(v) for v in ordered[MIN_RATING].to_list()), source)

    def index(self, rating: pl.Expr) -> pl.Expr:
        """The band of ``rating`` as its position in :attr:`labels` (UInt32; null: none).

        >>> bands = default_bands()
        >>> pl.select(bands.index(pl.lit(pl.Series([999.0, 1000.0, 2699.0, 2700.0, None])))).to_series().to_list()
        [0, 1, 9, 10, None]
        """
        after = pl.lit(pl.Series(self.mins, dtype=pl.Float64)).search_sorted(rating.cast(pl.Float64), side="right")
        return pl.when(rating.is_not_null() & (after > 0)).then(after - 1).cast(pl.UInt32)

    def label(self, rating: pl.Expr) -> pl.Expr:
        """The band label of ``rating`` (Categorical: text, gathered from the table's few labels and written
        dictionary-encoded, as the audit's text columns are; null for no rating or one under the lowest band).

        >>> pl.select(default_bands().label(pl.lit(pl.Series([2450, 1399, None])))).to_series().to_list()
        ['international master', 'average amateur', None]
        """
        return pl.lit(pl.Series(self.labels, dtype=pl.Categorical)).gather(self.index(rating))


@cache
def default_bands() -> Bands:
    """The default band table (``bands.csv``; source in ``SOURCE.md``): 2700+ elite grandmaster down to
    beginner under 1000."""
    data = resources.files("elo_batch.rules").joinpath("bands.csv").read_bytes()
    return Bands.of(pl.read_csv(data, schema={c.BAND: pl.String, MIN_RATING: pl.Int64}), "default")


def moves(before: pl.Expr, after: pl.Expr, bands: Bands) -> tuple[pl.Expr, pl.Expr]:
    """Players whose band went up and down: (up, down) counts over the players with a band before and after.

    Args:
        before: The rating on the list in force (``rating_before``). after: The new rating.
        bands: The band table.
    """
    was, now = bands.index(before), bands.index(after)
    both = was.is_not_null() & now.is_not_null()
    return (both & (now > was)).sum().alias("up"), (both & (now < was)).sum().alias("down")
