"""The period engine's kernels: cut into chunks, a period gives the result of the whole run.

Split invariance (a property test, in memory, no files): a period's table cut into random runs of
rows, mapped chunk by chunk (rate the sides, partial sums), the partial sums reduced in a random order,
finalized, and each chunk audited, gives the same new list and the same audit as the whole run
(:func:`elo_batch.engine.period.rate_period`), under every kind of rule set: FIDE table and the logistic
formula, rounding by period, by game or none (fractional ratings), the rapid 600/2600 rule, the 2022
rules (the 400-point upgrade once per event, a pre-pass fact; the 2022 first ratings), the compression
of 1 March 2024 and the rapid seed from the standard rating (R&B 7.2.1); with game ids repeated in
other chunks, newcomers' pools (from the list and from this period, first events scored zero),
forfeits, and without a list (ratings from the game rows); with events, by date and by event: a match
(B.02 6.1, 6.2 and its waiver, rows anywhere in the file), events moved into or out of the period by
their last day (7.1.3), game-row ratings with empty cells (8.2.4). The event columns of a chunk are
those of the whole table (:func:`elo_batch.engine.eventrows.event_columns` reads one chunk).
"""

from __future__ import annotations

import dataclasses
import itertools
from unittest import mock

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from elo_batch.config import RunConfig
from elo_batch.contract import pending
from elo_batch.contract.schemas import list_schema
from elo_batch.contract.tables import GamesInput, InputFile
from elo_batch.engine import eventrows, listchanges, prepass
from elo_batch.engine.audit import audit
from elo_batch.engine.events import settle
from elo_batch.engine.finish import finalize
from elo_batch.engine.period import rate_period
from elo_batch.engine.sides import Chunk, rate_chunk
from elo_batch.engine.sums import SUM_ROWS, partial_sums, reduce_sums
from elo_batch.errors import InternalError
from elo_batch.inputs.checkfile import check_file
from elo_batch.inputs.duplicates import mark_duplicates
from elo_batch.inputs.validate import split_event_rows
from elo_batch.rules.sets import COMPRESSION_2024, FIDE_2022_01, RuleSet

PERIOD = "2025-11"
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: Rule sets by name: each kind of arithmetic the kernels do differently.
RULES = {
    "fide": RunConfig(periods=(PERIOD,)),
    "fide-rounding-game": RunConfig(periods=(PERIOD,), rounding="game"),
    "fide-formula": RunConfig(periods=(PERIOD,), expected="formula"),
    "fide-formula-rounding-game": RunConfig(periods=(PERIOD,), expected="formula", rounding="game"),
    "fide-rounding-none": RunConfig(periods=(PERIOD,), rounding="none"),
    "fide-rapid-600": RunConfig(periods=(PERIOD,), list_kind="rapid"),
    "elo": RunConfig(periods=(PERIOD,), rules="elo"),
    "elo-rounding-none": RunConfig(periods=(PERIOD,), rules="elo", rounding="none"),
    "fide-2022": RunConfig(periods=(PERIOD,), rule_set="fide-2022-01"),
    "fide-2022-rounding-game": RunConfig(periods=(PERIOD,), rule_set="fide-2022-01", rounding="game"),
    "fide-2022-compression": dataclasses.replace(FIDE_2022_01, one_off=COMPRESSION_2024),
    "fide-rapid-seed": RunConfig(periods=(PERIOD,), list_kind="rapid"),
}


def rules_of(name: str) -> RuleSet:
    """The rule set of a name of :data:`RULES`."""
    chosen = RULES[name]
    return chosen if isinstance(chosen, RuleSet) else chosen.rules_for(PERIOD)


POOLS = [None, "2025-09:2:2:3400", "2025-10:3:1:5100", "2025-10:0:0:0", "2024-01:4:8:8000"]


def games_input(frame: pl.DataFrame, *, fractional: bool, period_by: str | None = "date") -> GamesInput:
    """Game rows in memory checked as a file's are (one file, ``games``), repeated game_ids flagged, with
    their event facts (:func:`elo_batch.engine.events.settle`; ``period_by`` None: without)."""
    table = frame.with_columns(
        pl.lit("games").alias("source_file"), pl.int_range(1, pl.len() + 1, dtype=pl.Int64).alias("source_row")
    )
    good, bad, absent = check_file(table, "games", fractional, trimmed=True)
    good, attributes = split_event_rows(good)
    rows, reused, period_rows = mark_duplicates(good.collect())
    info = InputFile("games", 0, "", frame.height, "utf-8", ",")
    event_rows = attributes.collect() if attributes is not None else None
    games = GamesInput(rows, pl.concat([bad.collect(), reused]), (info,), period_rows, frozenset(absent), event_rows)
    return games if period_by is None else settle(games, None, period_by)  # type: ignore[arg-type]


@st.composite
def periods(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame | None, str, str]:
    """A period's games (two-sided, with repeats, events and a match), the list in force (or None), the
    rules' name and what decides the periods."""
    rules = draw(st.sampled_from(sorted(RULES)))
    fractional = rules.endswith("rounding-none")
    n_players = draw(st.integers(3, 8))
    ids = [f"P{i}" for i in range(n_players)]
    with_list = draw(st.booleans()) or not draw(st.booleans())  # three times in four
    listed = draw(st.integers(1, n_players)) if with_list else 0  # the others are newcomers, absent from it
    rating = st.integers(1400, 2850).map(float)
    if fractional:
        rating = st.integers(5600, 11400).map(lambda quarters: quarters / 4)
    mostly = st.sampled_from([True, True, True, True, False])  # four times in five
    rated_or_not = st.tuples(mostly, rating).map(lambda pair: pair[1] if pair[0] else None)
    ratings = draw(st.lists(rated_or_not, min_size=listed, max_size=listed))
    rating_list = pl.DataFrame(
        {
            "player_id": ids[:listed],
            "rating": ratings,
            "k": draw(st.lists(st.sampled_from([None, 10, 20, 40]), min_size=listed, max_size=listed)),
            "birth_year": draw(st.lists(st.sampled_from([None, 1990, 2008]), min_size=listed, max_size=listed)),
            "games_total": draw(st.lists(st.sampled_from([None, 4, 29, 100]), min_size=listed, max_size=listed)),
            "reached_2400": [None] * listed,
            "reached_2300": [None] * listed,
            "pending": [None if r is not None else draw(st.sampled_from(POOLS)) for r in ratings],
        },
        schema={**list_schema(pl.String()), "pending": pl.String()},
    ).with_columns(pending.parse(pl.col("pending")))  # the pools as a list read holds them
    if rules == "fide-rapid-seed":  # some unrated players have a standard rating (R&B 7.2.1)
        standard = draw(st.lists(st.sampled_from([None, 1700.0, 2450.0]), min_size=listed, max_size=listed))
        rating_list = rating_list.with_columns(pl.Series("standard_rating", standard, pl.Float64))
    pairs = st.tuples(st.integers(0, n_players - 1), st.integers(0, n_players - 1)).filter(lambda p: p[0] != p[1])
    game = st.tuples(
        pairs,
        st.sampled_from(["1-0", "0-1", "1/2-1/2", "1-0", "0-1", "1/2-1/2", "1-0", "+--", "--+"]),
        st.integers(1, 30),
        st.sampled_from([None, "E1", "E2", "E3"]),
        rated_or_not,
        rated_or_not,
    )
    games = draw(st.lists(game, min_size=12, max_size=60))
    # a match of P0 and P1 (3 or 4 games scheduled, maybe the 6.2 waiver), its rounds anywhere in the file
    match_games = draw(st.integers(3, 4))
    waiver = draw(st.sampled_from([None, "false", "true"]))
    played = draw(st.lists(st.sampled_from(["1-0", "0-1", "1/2-1/2", "+--"]), min_size=0, max_size=6))
    matches = [((0, 1) if r % 2 else (1, 0), result, 10 + r, "M", None, None) for r, result in enumerate(played)]
    games = games + matches
    order = draw(st.permutations(range(len(games))))
    days = ["2025-10-28", "2025-10-31"] + [f"{PERIOD}-{day:02d}" for day in range(1, 31)]
    rows = [
        {
            "game_id": f"g{i}",
            "date": days[day % len(days)] if event != "M" else f"{PERIOD}-{day:02d}",
            "event_id": event,
            "round": str(day - 9) if event == "M" else None,
            "event_type": "match" if event == "M" else None,
            "match_games": str(match_games) if event == "M" else None,
            "rate_all_games": waiver if event == "M" else None,
            "white_id": ids[w],
            "black_id": ids[b],
            "result": result,
            "white_rating": wr,
            "black_rating": br,
        }
        for i, ((w, b), result, day, event, wr, br) in ((i, games[i]) for i in order)
    ]
    for repeat in draw(st.lists(st.integers(0, len(rows) - 1), max_size=4)):  # exact repeats, anywhere later
        rows.insert(draw(st.integers(repeat + 1, len(rows))), dict(rows[repeat]))
    frame = pl.DataFrame(
        rows,
        schema_overrides={
            "white_rating": pl.Float64, "black_rating": pl.Float64, "round": pl.String, "event_type": pl.String,
            "match_games": pl.String, "rate_all_games": pl.String,
        },
    )  # fmt: skip
    if with_list and draw(st.booleans()):  # else the game rows' ratings, empty cells among them (8.2.4)
        frame = frame.drop("white_rating", "black_rating")
    period_by = draw(st.sampled_from(["date", "event"]))
    return frame, rating_list if with_list else None, rules, period_by


def _cuts(data: st.DataObject, rows: int) -> list[tuple[int, int]]:
    """The period table (``rows`` rows) cut into runs of consecutive rows at random places."""
    inner = data.draw(st.lists(st.integers(0, rows), max_size=6)) if rows else []
    bounds = sorted({0, rows, *inner})
    return list(itertools.pairwise(bounds)) or [(0, 0)]


@pytest.mark.slow
@SETTINGS
@given(periods(), st.data())
def test_a_period_cut_into_chunks_gives_the_whole_run(case, data) -> None:
    frame, rating_list, name, period_by = case
    rules = rules_of(name)
    games = games_input(frame, fractional=rules.rounding == "none", period_by=period_by)
    block = data.draw(st.sampled_from([SUM_ROWS, 1, 2, 3, 7]), label="block_rows")
    audit_rows = data.draw(st.sampled_from([250_000, 1, 2, 5]), label="audit part rows")
    with (
        mock.patch("elo_batch.engine.period._SUM_ROWS", block),
        mock.patch("elo_batch.engine.period._AUDIT_ROWS", audit_rows),
    ):
        whole = rate_period(games, rating_list, rules, period=PERIOD)

    seeded, _ = listchanges.seed_from_standard(rating_list, games, rules, period=PERIOD)
    prepared = prepass.prepare(games, seeded, PERIOD, rules=rules)
    table = prepared.table
    chunks = [Chunk(start, table.slice(start, stop - start)) for start, stop in _cuts(data, table.height)]
    assert pl.concat([eventrows.event_columns(chunk.rows, prepared.events) for chunk in chunks]).equals(table)
    rated = [rate_chunk(chunk, prepared.list_rating, rules) for chunk in chunks]
    partials = [
        partial_sums(chunk, sides, rules, players=prepared.players) for chunk, sides in zip(chunks, rated, strict=True)
    ]
    order = data.draw(st.permutations(range(len(partials))), label="reduce order")
    totals = reduce_sums(
        [partials[i] for i in order], rules, players=prepared.players, rows=table.height, block_rows=block
    )
    finished = finalize(prepared, totals, rules, period=PERIOD)
    source_file = games.source_file(pl.col("row_key"))
    audits = [
        audit(
            chunk,
            sides,
            finished,
            ids=prepared.ids,
            source_file=source_file,
            absent=games.absent,
            rules=rules,
            period=PERIOD,
        ).collect()
        for chunk, sides in zip(chunks, rated, strict=True)
    ]

    assert finished.ratings.equals(whole.ratings), (finished.ratings, whole.ratings)
    assert pl.concat(audits).equals(whole.audit.collect())
    assert finished.counted_rows == whole.counts.counted


def _period_of(text: str, ratings: tuple[float, ...] = (1900.0, 2000.0, 2100.0)) -> tuple[GamesInput, pl.DataFrame]:
    rows = [line.split(",") for line in text.strip().splitlines()]
    frame = pl.DataFrame(rows[1:], schema=rows[0], orient="row")
    rating_list = pl.DataFrame({"player_id": ["A", "B", "C"], "rating": list(ratings)}).select(
        pl.col(name) if name in ("player_id", "rating") else pl.lit(None).cast(dtype).alias(name)
        for name, dtype in list_schema(pl.String()).items()
    )
    return games_input(frame, fractional=False), rating_list


GAMES = """game_id,date,white_id,black_id,result
g1,2025-11-01,A,B,1-0
g2,2025-11-02,B,C,1/2-1/2
g1,2025-11-01,A,B,1-0
g3,2025-11-03,C,A,0-1"""


def test_the_formula_rated_a_row_at_a_time_has_the_digits_of_one_pass() -> None:
    """A chunk of one row computes PD as a longer one does (D = -190: polars' one-row division differs)."""
    games, rating_list = _period_of(GAMES, ratings=(1900.0, 2090.0, 2100.0))
    rules = rules_of("elo")
    whole = rate_period(games, rating_list, rules, period=PERIOD)
    with mock.patch("elo_batch.engine.period._SUM_ROWS", 1):
        by_row = rate_period(games, rating_list, rules, period=PERIOD)

    assert whole.audit.collect()["expected_score"][0] == 0.2509169371224643
    assert by_row.audit.collect().equals(whole.audit.collect())
    assert by_row.ratings.equals(whole.ratings)


def test_a_repeated_game_id_in_another_chunk_stays_a_duplicate() -> None:
    """The repeat of g1 (row 3) is flagged before the cut: in a chunk of its own it is still not rated."""
    games, rating_list = _period_of(GAMES)
    rules = rules_of("fide")
    prepared = prepass.prepare(games, rating_list, PERIOD)
    chunks = [Chunk(i, prepared.table.slice(i, 1)) for i in range(prepared.table.height)]
    rated = [rate_chunk(chunk, prepared.list_rating, rules) for chunk in chunks]

    partials = [
        partial_sums(chunk, sides, rules, players=prepared.players) for chunk, sides in zip(chunks, rated, strict=True)
    ]

    assert [p.rated_rows for p in partials] == [1, 1, 0, 1]
    assert rated[2].white["__code"].to_list() == [1]  # duplicate row


def test_chunks_that_leave_rows_out_are_refused() -> None:
    games, rating_list = _period_of(GAMES)
    rules = rules_of("fide-formula")
    prepared = prepass.prepare(games, rating_list, PERIOD)
    chunk = Chunk(0, prepared.table.slice(0, 2))
    partial = partial_sums(chunk, rate_chunk(chunk, prepared.list_rating, rules), rules, players=prepared.players)

    with pytest.raises(InternalError, match="the chunks hold 2 rows of a period of 4"):
        reduce_sums([partial], rules, players=prepared.players, rows=prepared.table.height)


def test_rounding_by_game_scales_past_the_group_by_limit() -> None:
    """70,000 players with one game each: K used is gathered per row, not inside the group-by (where
    each of the 70,000 groups would gather all 70,000 K values: 4.9e9 rows, over polars' 2^32 limit)."""
    players = 70_000
    ids = [f"P{i}" for i in range(players)]
    frame = pl.DataFrame(
        {
            "game_id": [f"g{i}" for i in range(players // 2)],
            "date": f"{PERIOD}-05",
            "white_id": ids[0::2],
            "black_id": ids[1::2],
            "result": "1-0",
        }
    )
    rating_list = pl.DataFrame({"player_id": ids, "rating": 2000.0, "k": 20}).select(
        pl.col(name) if name in ("player_id", "rating", "k") else pl.lit(None).cast(dtype).alias(name)
        for name, dtype in list_schema(pl.String()).items()
    )
    rules = rules_of("fide-rounding-game")

    result = rate_period(games_input(frame, fractional=False), rating_list, rules, period=PERIOD)

    assert sorted(result.ratings["change"].value_counts().rows()) == [(-10, 35_000), (10, 35_000)]
