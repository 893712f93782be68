"""Unit tests of the rating arithmetic, one rule each, written from the regulations (B.02 2024)."""

from __future__ import annotations

import polars as pl
import pytest

from elo_batch.engine import expressions as engine
from elo_batch.rules.sets import ELO, FIDE_2024_03, FIDE_2025_10


def _one(expr: pl.Expr, **columns: list) -> list:
    return pl.DataFrame(columns).select(expr.alias("x"))["x"].to_list()


# --- table 8.1.2: every row edge, both columns ------------------------------------------------
# (lowest D of the row, highest D of the row, PD of the higher-rated player in hundredths), B.02 table 8.1.2
ROWS = [
    (0, 3, 50), (4, 10, 51), (11, 17, 52), (18, 25, 53), (26, 32, 54), (33, 39, 55), (40, 46, 56),
    (47, 53, 57), (54, 61, 58), (62, 68, 59), (69, 76, 60), (77, 83, 61), (84, 91, 62), (92, 98, 63),
    (99, 106, 64), (107, 113, 65), (114, 121, 66), (122, 129, 67), (130, 137, 68), (138, 145, 69),
    (146, 153, 70), (154, 162, 71), (163, 170, 72), (171, 179, 73), (180, 188, 74), (189, 197, 75),
    (198, 206, 76), (207, 215, 77), (216, 225, 78), (226, 235, 79), (236, 245, 80), (246, 256, 81),
    (257, 267, 82), (268, 278, 83), (279, 290, 84), (291, 302, 85), (303, 315, 86), (316, 328, 87),
    (329, 344, 88), (345, 357, 89), (358, 374, 90), (375, 391, 91), (392, 411, 92), (412, 432, 93),
    (433, 456, 94), (457, 484, 95), (485, 517, 96), (518, 559, 97), (560, 619, 98), (620, 735, 99),
]  # fmt: skip


@pytest.mark.parametrize(("low", "high", "pd_high"), ROWS)
def test_table_row_edges_give_the_rows_pd_for_both_players(low: int, high: int, pd_high: int) -> None:
    d = [low, high, -low, -high]
    got = _one(engine.expected_score_100(pl.col("d"), FIDE_2025_10), d=d)
    assert got == [pd_high, pd_high, 100 - pd_high, 100 - pd_high]


def test_table_beyond_735_is_certainty() -> None:
    got = _one(engine.expected_score_100(pl.col("d"), FIDE_2025_10), d=[735, 736, 800, 1026, -736])
    assert got == [99, 100, 100, 100, 0]


def test_formula_is_the_logistic_curve() -> None:
    got = _one(engine.expected_score_100(pl.col("d"), ELO), d=[0, 200, -200])
    assert got == pytest.approx([50.0, 75.97469, 24.02531], abs=1e-4)


# --- 400-point rule (8.3.1, amended 1 Oct 2025) ------------------------------------------------
def test_cap_applies_below_2650_and_not_from_2650() -> None:
    d = engine.capped_difference(pl.col("ro"), pl.col("rc"), FIDE_2025_10)
    # the 2150 side is under 2650 whatever its opponent is rated, so its -500 counts as -400
    assert _one(d, ro=[2649, 2650, 2149, 2150], rc=[2149, 2150, 2649, 2650]) == [400, 500, -400, -400]


def test_cap_before_october_2025_applies_to_everyone() -> None:
    d = engine.capped_difference(pl.col("ro"), pl.col("rc"), FIDE_2024_03)
    assert _one(d, ro=[2813, 2100, 2300], rc=[2400, 2700, 2000]) == [400, -400, 300]


def test_two_sides_of_one_game_use_their_own_difference() -> None:
    """TV-05: 2700 beats 2100 -> the 2700 uses 600 (PD .98), the 2100 uses -400 (PD .08)."""
    d = engine.capped_difference(pl.col("ro"), pl.col("rc"), FIDE_2025_10)
    pd = _one(engine.expected_score_100(d, FIDE_2025_10), ro=[2700, 2100], rc=[2100, 2700])
    assert pd == [98, 8]


def test_2650_threshold_vector() -> None:
    """TV-08: 2650 vs 2150 win +0.4, 2649 vs 2149 win +0.8 at K 10."""
    d = engine.capped_difference(pl.col("ro"), pl.col("rc"), FIDE_2025_10)
    pd = _one(engine.expected_score_100(d, FIDE_2025_10), ro=[2650, 2649], rc=[2150, 2149])
    assert [10 * (100 - p) for p in pd] == [40, 80]


# --- rounding (8.3.4) -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("hundredths", "points"),
    [
        (250, 3),
        (-250, -3),
        (-50, -1),
        (50, 1),
        (49, 0),
        (-49, 0),
        (150, 2),
        (-150, -2),
        (9248, 92),
        (0, 0),
        (449, 4),
        (450, 5),
        (-450, -5),
        (-451, -5),
    ],
)
def test_round_half_away_from_zero(hundredths: int, points: int) -> None:
    assert _one(engine.round_half_away_100(pl.col("x")), x=[hundredths]) == [points]


def test_formula_pd_has_the_same_digits_in_a_frame_of_one_row() -> None:
    """polars divides a one-row column by a number with a true division, a longer one by multiplying by
    the reciprocal: PD must not depend on how many games a chunk holds (the kernels' split invariance)."""
    pd = engine.expected_score_100(pl.col("d"), ELO)
    assert _one(pd, d=[-190]) == _one(pd, d=[-190, 0])[:1] == [25.091693712246432]


def test_rounding_works_on_float_hundredths_of_the_formula() -> None:
    assert _one(engine.round_half_away_100(pl.col("x")), x=[480.5, -250.0, 1818.1]) == [5, -3, 18]


# --- K (8.3.3) and the 700 rule ----------------------------------------------------------------
def _k(year: int, **cols: list) -> list:
    r2400 = engine.reached(pl.col("reached_2400"), pl.col("rating"), 2400, k_list=pl.col("k"))
    r2300 = r2400 | engine.reached(pl.col("reached_2300"), pl.col("rating"), 2300)
    expr = engine.k_factor(
        year=year,
        rating=pl.col("rating"),
        k_list=pl.col("k"),
        birth_year=pl.col("birth_year"),
        games_total=pl.col("games_total"),
        reached_2400=r2400,
        reached_2300=r2300,
    )
    frame = pl.DataFrame(
        cols,
        schema={
            "rating": pl.Int64,
            "k": pl.Int64,
            "birth_year": pl.Int64,
            "games_total": pl.Int64,
            "reached_2400": pl.Boolean,
            "reached_2300": pl.Boolean,
        },
    )
    return frame.select(expr.alias("x"))["x"].to_list()


def test_k_from_attributes_tv24() -> None:
    """TV-24: junior 2250 born 2008 -> 40 in 2026, 20 in 2027; once 2400 -> 10; 12 career games -> 40."""
    cols = dict(
        rating=[2250, 2250, 2390, 1900, 2000],
        k=[None] * 5,
        birth_year=[2008, 2008, 1980, 1990, 1985],
        games_total=[80, 80, 400, 12, 200],
        reached_2400=[None, None, True, None, None],
        reached_2300=[None] * 5,
    )
    assert _k(2026, **cols)[0] == 40
    assert _k(2027, **cols) == [20, 20, 10, 40, 20]


def test_k_printed_on_the_list_wins() -> None:
    assert _k(
        2026, rating=[2250], k=[20], birth_year=[2010], games_total=[3], reached_2400=[None], reached_2300=[None]
    ) == [20]


def test_k_junior_who_was_published_at_2300_is_not_40() -> None:
    assert _k(
        2026, rating=[2250], k=[None], birth_year=[2010], games_total=[100], reached_2400=[None], reached_2300=[True]
    ) == [20]


def test_k_unknown_attributes_count_as_established_adult() -> None:
    assert _k(
        2026,
        rating=[1800, 2450],
        k=[None, None],
        birth_year=[None, None],
        games_total=[None, None],
        reached_2400=[None, None],
        reached_2300=[None, None],
    ) == [20, 10]


def test_k_thirtieth_game_ends_new_player_k() -> None:
    assert _k(
        2026,
        rating=[1800, 1800],
        k=[None, None],
        birth_year=[1990, 1990],
        games_total=[29, 30],
        reached_2400=[None, None],
        reached_2300=[None, None],
    ) == [40, 20]


@pytest.mark.parametrize(
    ("k", "n", "used"),
    [(40, 17, 40), (40, 18, 38), (20, 35, 20), (20, 36, 19), (20, 39, 17), (10, 70, 10), (10, 71, 9), (40, 19, 36)],
)
def test_700_rule_tv11(k: int, n: int, used: int) -> None:
    assert _one(engine.k_after_700_rule(pl.col("k"), pl.col("n")), k=[k], n=[n]) == [used]


# --- initial rating (8.2) and performance rating (Title Regulations 1.4.8) ---------------------
@pytest.mark.parametrize(
    ("opponents_sum", "n", "w2", "ru"),
    [
        (9507, 5, 6, 1922),  # TV-16, FIDE's published first rating F-N01
        (8500, 5, 6, 1779),  # TV-17
        (10500, 5, 10, 2200),  # TV-18: 2323 capped at 2200
        (7500, 5, 1, 1356),  # TV-19: under 1400 (not published; decided by the caller)
        (9000, 5, 6, 1850),  # TV-20 (second event only)
    ],
)
def test_initial_rating_vectors(opponents_sum: int, n: int, w2: int, ru: int) -> None:
    expr = engine.initial_rating(pl.col("s"), pl.col("n"), pl.col("w2"))
    assert _one(expr, s=[opponents_sum], n=[n], w2=[w2]) == [ru]


def test_performance_rating_tv21() -> None:
    rp, ra = engine.performance_rating(pl.col("s"), pl.col("n"), pl.col("w2"))
    frame = pl.DataFrame({"s": [1850 * 9, 9505, 2000 * 4, 2000 * 4], "n": [9, 5, 4, 4], "w2": [12, 6, 8, 0]})
    got = frame.select(rp.alias("rp"), ra.alias("ra"))
    assert got["rp"].to_list() == [1975, 1973, 2800, 1200]
    assert got["ra"].to_list() == [1850, 1901, 2000, 2000]
