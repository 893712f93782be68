"""Property tests: bad rows mixed into valid games are all accounted for and change nothing that is rated.

The faults of values run in memory, through the API; the faults only CSV text can have (rows with too
few or too many fields, blank lines) need a CSV file, written to a temporary folder.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import elo_batch

PERIOD = "2025-11"
HEADER = ("game_id", "date", "white_id", "black_id", "result", "white_rating", "black_rating")
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
IDS = [f"P{i:02d}" for i in range(10)]
RESULTS = ["1-0", "0-1", "1/2-1/2", "½-½", "0.5-0.5", "=-=", "+--", "--+"]
Row = list[str | None]

#: A bad row's cells given its game_id, one per kind of fault of a value (None: an empty cell).
BAD_ROWS = {
    "bad result": lambda g: [g, "2025-11-03", "P01", "P02", "2-0", None, None],
    "missing id": lambda g: [g, "2025-11-03", None, "P02", "1-0", None, None],
    "self game": lambda g: [g, "2025-11-03", "P03", "P03", "1-0", None, None],
    "bad date": lambda g: [g, "2025-11-31", "P01", "P02", "1-0", None, None],
    "no date": lambda g: [g, None, "P01", "P02", "1-0", None, None],
    "thousands": lambda g: [g, "2025-11-03", "P01", "P02", "1-0", "2,000", None],
    "out of range": lambda g: [g, "2025-11-03", "P01", "P02", "1-0", None, "3500"],
    "not a rating": lambda g: [g, "2025-11-03", "P01", "P02", "1-0", "2000.5", None],
}
#: Faults of CSV text alone: a row's fields given its game_id, fewer or more than the header's 7.
RAGGED_ROWS = {
    "too few fields": lambda g: [g, "2025-11-03", "P01"],
    "too many fields": lambda g: [g, "2025-11-03", "P01", "P02", "1-0", "", "", "extra"],
}


@st.composite
def mixed_rows(draw: st.DrawFn, faults: dict, blank_lines: bool) -> tuple[list[Row | None], list[Row], int, int]:
    """(mixed rows, None for a blank line; the clean rows; bad rows; other-period rows)."""
    n_valid = draw(st.integers(1, 30))
    pairs = st.tuples(st.sampled_from(IDS), st.sampled_from(IDS)).filter(lambda p: p[0] != p[1])
    valid: list[Row] = [
        [str(i), f"{PERIOD}-{draw(st.integers(1, 30)):02d}", *draw(pairs), draw(st.sampled_from(RESULTS)), None, None]
        for i in range(n_valid)
    ]
    kinds = [
        st.sampled_from(sorted(faults)).map(lambda kind: ("bad", kind)),
        st.just(("other period", "")),
        st.just(("repeat", "")),
        *([st.just(("blank", ""))] if blank_lines else []),
    ]
    noise = draw(st.lists(st.one_of(*kinds), max_size=15))
    mixed: list[Row | None] = list(valid)
    bad = other = 0
    for index, (kind, fault) in enumerate(noise):
        position = draw(st.integers(0, len(mixed)))
        row: Row | None
        if kind == "bad":
            row, bad = faults[fault](f"bad{index}"), bad + 1
        elif kind == "other period":
            row, other = [f"o{index}", "2025-12-01", "P01", "P02", "1-0", None, None], other + 1
        elif kind == "repeat":  # an exact repeat of a valid row: audited as a duplicate, never rated twice
            row = list(valid[draw(st.integers(0, n_valid - 1))])
        else:
            row = None
        mixed.insert(position, row)
    return mixed, valid, bad, other


@st.composite
def rating_lists(draw: st.DrawFn) -> pl.DataFrame:
    ratings = draw(st.lists(st.integers(1400, 2700), min_size=len(IDS), max_size=len(IDS)))
    ks = draw(st.lists(st.sampled_from([10, 20, 40]), min_size=len(IDS), max_size=len(IDS)))
    return pl.DataFrame({"player_id": IDS, "rating": ratings, "k": ks})


def _frame(rows: list[Row]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=dict.fromkeys(HEADER, pl.String), orient="row")


def _check(
    mixed: elo_batch.PeriodResult, clean: elo_batch.PeriodResult, rows: list[Row | None], bad: int, other: int
) -> None:
    """Every row is accounted for; the rejected rows are the bad ones; what is rated is the clean run's."""
    counts = mixed.counts
    assert counts.rows_read == sum(1 for row in rows if row is not None)
    assert counts.rows_read == counts.counted + counts.not_counted + counts.other_periods + counts.rejected
    assert (counts.rejected, counts.other_periods) == (bad, other)
    rejected_rows = mixed.rejected["source_row"].to_list()
    assert all(rows[row - 1] is not None and str(rows[row - 1][0]).startswith("bad") for row in rejected_rows)
    assert mixed.ratings.equals(clean.ratings)
    assert _rated_sides(mixed).equals(_rated_sides(clean))


def _rated_sides(result: elo_batch.PeriodResult) -> pl.DataFrame:
    """The audit's rated game sides, without where they stood in the input (a repeat may come first)."""
    audit = result.audit.collect().filter(pl.col("counted"), pl.col("reason").is_null())
    return audit.drop("source_file", "source_row").sort("game_id", "colour")


@SETTINGS
@given(mixed_rows(BAD_ROWS, blank_lines=False), rating_lists())
def test_bad_rows_are_all_accounted_for_and_change_nothing_rated(data, rating_list) -> None:
    rows, valid, bad, other = data

    mixed = elo_batch.rate_period(_frame(rows), period=PERIOD, ratings=rating_list)  # type: ignore[arg-type]
    clean = elo_batch.rate_period(_frame(valid), period=PERIOD, ratings=rating_list)

    _check(mixed, clean, rows, bad, other)


def _line(fields: Row) -> str:
    return ",".join(f'"{f}"' if f and "," in f else f or "" for f in fields)


@settings(SETTINGS, max_examples=20)
@given(mixed_rows({**BAD_ROWS, **RAGGED_ROWS}, blank_lines=True), rating_lists())
def test_ragged_rows_and_blank_lines_of_a_csv_file_are_accounted_for(data, rating_list) -> None:
    rows, valid, bad, other = data
    with tempfile.TemporaryDirectory() as tmp:
        games = {name: Path(tmp) / f"{name}.csv" for name in ("mixed", "clean")}
        for name, lines in (("mixed", rows), ("clean", valid)):
            text = [",".join(HEADER), *(_line(row) if row is not None else "" for row in lines)]
            games[name].write_text("\n".join(text) + "\n", encoding="utf-8")

        mixed = elo_batch.rate_period(games["mixed"], period=PERIOD, ratings=rating_list)
        clean = elo_batch.rate_period(games["clean"], period=PERIOD, ratings=rating_list)

    _check(mixed, clean, rows, bad, other)
