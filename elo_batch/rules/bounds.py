"""Our own bounds on input values (not FIDE's): the range of a rating, a K, a birth year; one check each.

The games, the rating list and the calculators check their values against these, so that a value one
refuses the others refuse too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # the checks are polars expressions, but every command reads the bounds: no polars here
    import polars as pl

#: A rating is a number of rating points with 0 < rating < MAX_RATING (FIDE's highest ever is below 2900).
MAX_RATING: Final = 3500
#: The allowed range of a rating, as messages write it.
RATING_RANGE: Final = f"0 < rating < {MAX_RATING}"
#: A K printed on a list: a whole number with 0 < K <= MAX_K.
MAX_K: Final = 100
#: A year of birth: from FIRST_BIRTH_YEAR to LAST_BIRTH_YEAR.
FIRST_BIRTH_YEAR: Final = 1850
LAST_BIRTH_YEAR: Final = 2100


def rating_out_of_range(value: pl.Expr) -> pl.Expr:
    """True where a rating (rating points) is outside ``0 < rating < MAX_RATING`` (null stays null).

    >>> import polars as pl
    >>> pl.select(rating_out_of_range(pl.lit(pl.Series([1.0, 3499.0, 0.0, 3500.0, None])))).to_series().to_list()
    [False, False, True, True, None]
    """
    return (value <= 0) | (value >= MAX_RATING)


def k_out_of_range(k: pl.Expr) -> pl.Expr:
    """True where a K is outside ``0 < K <= MAX_K`` (null stays null)."""
    return (k <= 0) | (k > MAX_K)


def birth_year_out_of_range(year: pl.Expr) -> pl.Expr:
    """True where a year of birth is outside ``FIRST_BIRTH_YEAR .. LAST_BIRTH_YEAR`` (null stays null)."""
    return (year < FIRST_BIRTH_YEAR) | (year > LAST_BIRTH_YEAR)
