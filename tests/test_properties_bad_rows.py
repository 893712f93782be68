"""Property tests: bad rows mixed into valid games are all accounted for and change nothing that is rated."""

from __future__ import annotations

import tempfile
from pathlib import Path

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elo_batch.config import RunConfig
from elo_batch.runner import PeriodSummary, run
from tests.conftest import read_table

PERIOD = "2025-11"
HEADER = ("game_id", "date", "white_id", "black_id", "result", "white_rating", "black_rating")
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
IDS = [f"P{i:02d}" for i in range(10)]
RESULTS = ["1-0", "0-1", "1/2-1/2", "½-½", "0.5-0.5", "=-=", "+--", "--+"]

#: A bad row's fields given its game_id, one per kind of fault (all rows have the file's 7 fields
#: except the ragged ones).
BAD_ROWS = {
    "bad result": lambda g: [g, "2025-11-03", "P01", "P02", "2-0", "", ""],
    "missing id": lambda g: [g, "2025-11-03", "", "P02", "1-0", "", ""],
    "self game": lambda g: [g, "2025-11-03", "P03", "P03", "1-0", "", ""],
    "bad date": lambda g: [g, "2025-11-31", "P01", "P02", "1-0", "", ""],
    "no date": lambda g: [g, "", "P01", "P02", "1-0", "", ""],
    "thousands": lambda g: [g, "2025-11-03", "P01", "P02", "1-0", "2,000", ""],
    "out of range": lambda g: [g, "2025-11-03", "P01", "P02", "1-0", "", "3500"],
    "not a rating": lambda g: [g, "2025-11-03", "P01", "P02", "1-0", "2000.5", ""],
    "too few fields": lambda g: [g, "2025-11-03", "P01"],
    "too many fields": lambda g: [g, "2025-11-03", "P01", "P02", "1-0", "", "", "extra"],
}


def _line(fields: list[str]) -> str:
    return ",".join(f'"{f}"' if "," in f else f for f in fields)


@st.composite
def mixed_files(draw: st.DrawFn) -> tuple[list[str], list[str], int, int, pl.DataFrame]:
    """(mixed file lines, clean file lines, bad rows, other-period rows, rating list)."""
    n_valid = draw(st.integers(1, 30))
    pairs = st.tuples(st.sampled_from(IDS), st.sampled_from(IDS)).filter(lambda p: p[0] != p[1])
    valid = [
        [str(i), f"{PERIOD}-{draw(st.integers(1, 30)):02d}", *draw(pairs), draw(st.sampled_from(RESULTS)), "", ""]
        for i in range(n_valid)
    ]
    noise = draw(
        st.lists(
            st.one_of(
                st.sampled_from(sorted(BAD_ROWS)).map(lambda kind: ("bad", kind)),
                st.just(("other period", "")),
                st.just(("repeat", "")),
                st.just(("blank", "")),
            ),
            max_size=15,
        )
    )
    mixed, clean, bad, other = [_line(row) for row in valid], [_line(row) for row in valid], 0, 0
    for index, (kind, fault) in enumerate(noise):
        position = draw(st.integers(0, len(mixed)))
        if kind == "bad":
            line, bad = _line(BAD_ROWS[fault](f"bad{index}")), bad + 1
        elif kind == "other period":
            line, other = _line([f"o{index}", "2025-12-01", "P01", "P02", "1-0", "", ""]), other + 1
        elif kind == "repeat":  # an exact repeat of a valid row: audited as a duplicate, never rated twice
            line = _line(valid[draw(st.integers(0, n_valid - 1))])
        else:
            line = ""
        mixed.insert(position, line)
    ratings = draw(st.lists(st.integers(1400, 2700), min_size=len(IDS), max_size=len(IDS)))
    ks = draw(st.lists(st.sampled_from([10, 20, 40]), min_size=len(IDS), max_size=len(IDS)))
    return mixed, clean, bad, other, pl.DataFrame({"player_id": IDS, "rating": ratings, "k": ks})


def _rate(root: Path, name: str, lines: list[str], rating_list: pl.DataFrame) -> tuple[PeriodSummary, Path]:
    games = root / f"{name}.csv"
    games.write_text("\n".join([",".join(HEADER), *lines]) + "\n", encoding="utf-8")
    rating_list.write_csv(root / "list.csv")
    out = root / f"out-{name}"
    [summary] = run(
        [str(games)], config=RunConfig(periods=(PERIOD,)), ratings_path=str(root / "list.csv"), out=str(out)
    )
    return summary, out


@SETTINGS
@given(mixed_files())
def test_bad_rows_are_all_accounted_for_and_change_nothing_rated(data) -> None:
    mixed, clean, bad, other, rating_list = data
    with tempfile.TemporaryDirectory() as tmp:
        summary, out = _rate(Path(tmp), "mixed", mixed, rating_list)
        _, clean_out = _rate(Path(tmp), "clean", clean, rating_list)

        counts = summary.counts
        assert counts.rows_read == sum(1 for line in mixed if line)
        assert counts.rows_read == counts.counted + counts.not_counted + counts.other_periods + counts.rejected
        assert (counts.rejected, counts.other_periods) == (bad, other)
        rejected_rows = read_table(out, "rejected", PERIOD)["source_row"].to_list()
        data_rows = [row for row, line in enumerate(mixed, 1) if line]
        assert all(row in data_rows and mixed[row - 1].split(",")[0].startswith("bad") for row in rejected_rows)
        assert read_table(out, "ratings", PERIOD).equals(read_table(clean_out, "ratings", PERIOD))
        assert _rated_sides(out).equals(_rated_sides(clean_out))


def _rated_sides(out: Path) -> pl.DataFrame:
    """The audit's rated game sides, without where they stood in the file (a repeat may come first)."""
    audit = read_table(out, "audit", PERIOD).filter(pl.col("counted"), pl.col("reason").is_null())
    return audit.drop("source_file", "source_row").sort("game_id", "colour")
