"""A FIDE list's raw text fields as the written, typed columns, and the values that are not what their column
holds (all counted, the first :data:`SHOWN` named); no rating rules.

Used by :mod:`elo_batch.formats.fidelist` on each batch of players that :mod:`~elo_batch.formats.fidetxt`
or :mod:`~elo_batch.formats.fidexml` reads.
"""

from __future__ import annotations

import polars as pl

from elo_batch import working as w
from elo_batch.errors import InputDataError
from elo_batch.rules.bounds import FIRST_BIRTH_YEAR, LAST_BIRTH_YEAR, MAX_K, MAX_RATING

#: Bad players shown in the message (all are counted).
SHOWN = 5

#: Written text columns <- raw field.
TEXTS = {"name": "name", "federation": "fed", "sex": "sex", "title": "title", "woman_title": "wtitle",
          "other_titles": "otitle", "foa_title": "foa"}  # fmt: skip
#: Raw number fields: (the most a value may be, what it is) for the message.
NUMBERS = {"id": (None, "a FIDE ID"), "rating": (MAX_RATING - 1, "a rating"), "games": (9999, "a number of games"),
            "k": (MAX_K, "a K-factor"), "byear": (LAST_BIRTH_YEAR, "a birth year"),
            "standard": (MAX_RATING - 1, "a rating")}  # fmt: skip
#: Earliest birth year a list may hold (as :mod:`elo_batch.inputs.ratinglist` checks); an earlier one is written empty.
MIN_BIRTH_YEAR = FIRST_BIRTH_YEAR


class BadValues:
    """Values that are not what their column holds: all counted, the first :data:`SHOWN` kept."""

    def __init__(self) -> None:
        self.count = 0
        self.shown: list[tuple[int, str, str]] = []

    def add(self, found: pl.DataFrame) -> None:
        """Note the rows of ``found`` (``__row``, ``__field``, ``__value``)."""
        self.count += found.height
        self.shown += found.head(max(0, SHOWN - len(self.shown))).rows()

    def raise_if_any(self, source: str, labels: dict[str, str]) -> None:
        """Raise for the values noted, naming each by its row and the file's name of its column."""
        if not self.count:
            return
        hint = "give the list as FIDE published it; a damaged or edited copy cannot be read safely."
        if self.count == 1:
            row, field, value = self.shown[0]
            message = f"{value!r} is not {NUMBERS[field][1]}"
            raise InputDataError(message, path=source, row=row, column=labels[field], value=value, hint=hint)
        lines = [f"row {r}, column {labels[f]}: {v!r} is not {NUMBERS[f][1]}" for r, f, v in self.shown]
        shown = f"the first {SHOWN}" if self.count > SHOWN else "all of them"
        raise InputDataError(
            f"{self.count} values of the list are not valid ({shown} here):\n  " + "\n  ".join(lines),
            path=source,
            hint=hint,
        )


def typed_columns(raw: pl.DataFrame, bad: BadValues) -> pl.DataFrame:
    """The written columns of a batch of players (raw text fields); values that are no number noted in ``bad``."""
    numbers = [name for name in NUMBERS if name in raw.columns]
    if numbers:
        _note_faults(raw, numbers, bad)
    return _written_columns(raw, numbers)


def _value(name: str) -> pl.Expr:
    """A raw field as a number (``Int64``); null where it is none."""
    return pl.col(name).cast(pl.Int64, strict=False)


def _fault(name: str) -> pl.Expr:
    """The field's name where its value is no number of its kind (or over its limit), else null."""
    wrong = ~pl.col(name).str.contains(r"^[0-9]{1,18}$")
    if name != "id":
        wrong = wrong & (pl.col(name) != "")
    limit = NUMBERS[name][0]
    return pl.when(wrong | ((_value(name) > limit) if limit else pl.lit(False))).then(pl.lit(name))


def _note_faults(raw: pl.DataFrame, numbers: list[str], bad: BadValues) -> None:
    """Note in ``bad`` each row whose number fields (``numbers``) hold a value that is no number: its first."""
    field = pl.coalesce(_fault(name) for name in numbers)
    found = raw.with_columns(field.alias(w.BAD_FIELD)).filter(pl.col(w.BAD_FIELD).is_not_null())
    if found.height:
        cell = pl.coalesce(pl.when(pl.col(w.BAD_FIELD) == name).then(pl.col(name)) for name in numbers)
        bad.add(found.select(w.LIST_ROW, w.BAD_FIELD, cell.alias(w.BAD_VALUE)))


def _number(name: str, numbers: list[str]) -> pl.Expr:
    """A number field, null where it is 0 or the list has no such field."""
    return pl.when(_value(name) != 0).then(_value(name)) if name in numbers else pl.lit(None, pl.Int64)


def _text(name: str, columns: list[str]) -> pl.Expr:
    """A text field, null where it is empty or the list has no such field."""
    return pl.when(pl.col(name) != "").then(pl.col(name)) if name in columns else pl.lit(None, pl.String)


def _written_columns(raw: pl.DataFrame, numbers: list[str]) -> pl.DataFrame:
    """The written columns of the raw text fields (``numbers``: the number fields the list has)."""
    flag = _text("flag", raw.columns).str.to_lowercase()
    birth = _number("byear", numbers)
    return raw.select(
        w.LIST_ROW,
        (_value("id") if "id" in numbers else pl.lit(None, pl.Int64)).alias("player_id"),
        _number("rating", numbers).alias("rating"),
        _number("k", numbers).alias("k"),
        pl.when(birth >= MIN_BIRTH_YEAR).then(birth).alias("birth_year"),
        *[_text(field, raw.columns).alias(name) for name, field in TEXTS.items()],
        (_value("games") if "games" in numbers else pl.lit(None, pl.Int64)).alias("fide_games"),
        flag.alias("flag"),
        flag.str.contains("i").fill_null(False).alias("inactive"),
        *([_number("standard", numbers).alias("standard_rating")] if "standard" in numbers else []),
        (birth < MIN_BIRTH_YEAR).fill_null(False).alias(w.OLD_BIRTH),
    )
