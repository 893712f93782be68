"""Property tests: invariants of a rating period that hold for any valid input (in memory, through the API)."""

from __future__ import annotations

from typing import Literal

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import elo_batch

PERIOD = "2025-11"
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def periods(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    n_players = draw(st.integers(2, 12))
    ids = [f"P{i:02d}" for i in range(n_players)]
    ratings = draw(st.lists(st.integers(1400, 2850), min_size=n_players, max_size=n_players))
    ks = draw(st.lists(st.sampled_from([10, 20, 40]), min_size=n_players, max_size=n_players))
    pairs = st.tuples(st.integers(0, n_players - 1), st.integers(0, n_players - 1)).filter(lambda p: p[0] != p[1])
    games = draw(
        st.lists(
            st.tuples(pairs, st.sampled_from(["1-0", "0-1", "1/2-1/2"]), st.integers(1, 30)), min_size=1, max_size=60
        )
    )
    game_rows = pl.DataFrame(
        {
            "game_id": [str(i) for i in range(len(games))],
            "date": [f"{PERIOD}-{day:02d}" for _, _, day in games],
            "white_id": [ids[w] for (w, _), _, _ in games],
            "black_id": [ids[b] for (_, b), _, _ in games],
            "result": [r for _, r, _ in games],
        }
    )
    rating_list = pl.DataFrame({"player_id": ids, "rating": ratings, "k": ks})
    return game_rows, rating_list


def _rate(
    games: pl.DataFrame, rating_list: pl.DataFrame, kind: Literal["text", "typed"] = "typed"
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The new list and the audit. ``text``: every cell as text, as a CSV file gives it; ``typed``: the
    columns' own types (integer ratings and K), as a Parquet file keeps them, handed over as pyarrow."""
    if kind == "text":
        games_in, list_in = games.cast(pl.String), rating_list.cast(pl.String)
    else:
        games_in, list_in = games.to_arrow(), rating_list.to_arrow()
    result = elo_batch.rate_period(games_in, period=PERIOD, ratings=list_in)
    return result.ratings, result.audit.collect()


def _list_only(ratings: pl.DataFrame) -> pl.DataFrame:
    return ratings.select("player_id", "rating", "change", "k_used", "games", "score", "expected_score").sort(
        "player_id"
    )


@SETTINGS
@given(periods(), st.randoms(use_true_random=False))
def test_row_order_does_not_matter(data, rnd) -> None:
    games, rating_list = data
    order = list(range(games.height))
    rnd.shuffle(order)
    shuffled = games[order]
    assert _list_only(_rate(games, rating_list, "text")[0]).equals(_list_only(_rate(shuffled, rating_list, "text")[0]))


@SETTINGS
@given(periods())
def test_text_and_typed_tables_agree(data) -> None:
    games, rating_list = data
    assert _list_only(_rate(games, rating_list, "text")[0]).equals(_list_only(_rate(games, rating_list, "typed")[0]))


@SETTINGS
@given(periods())
def test_change_is_bounded_by_k_times_games(data) -> None:
    games, rating_list = data
    ratings, _ = _rate(games, rating_list)
    rated = ratings.filter(pl.col("games") > 0)
    assert (rated["change"].abs() <= rated["k_used"] * rated["games"]).all()
    assert (rated["k_used"] * rated["games"] <= 700).all()


@SETTINGS
@given(periods())
def test_changes_cancel_per_game_when_both_under_2650_with_the_same_k(data) -> None:
    games, rating_list = data
    _, audit = _rate(games, rating_list)
    per_game = audit.group_by("game_id").agg(
        pl.col("k_change").sum().alias("total"),
        pl.col("rating").max().alias("top"),
        pl.col("k_used").n_unique().alias("ks"),
    )
    same = per_game.filter((pl.col("top") < 2650) & (pl.col("ks") == 1))
    assert (same["total"].abs() < 1e-9).all()


@SETTINGS
@given(periods())
def test_new_rating_is_old_rating_plus_rounded_sum_of_audit(data) -> None:
    games, rating_list = data
    ratings, audit = _rate(games, rating_list)
    sums = audit.group_by("player_id").agg((pl.col("k_change") * 100).round(0).cast(pl.Int64).sum().alias("x100"))
    joined = ratings.join(sums, on="player_id", how="left").with_columns(pl.col("x100").fill_null(0))
    for row in joined.iter_rows(named=True):
        x = row["x100"]
        expected = (1 if x >= 0 else -1) * ((abs(x) + 50) // 100)
        assert row["change"] == expected
        if row["rating"] is not None:
            assert row["rating"] == row["rating_before"] + expected
