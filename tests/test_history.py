"""Rule sets before March 2024: chosen by the period, each number from its source, worked by hand.

``fide-2022-01`` (FIDE Rating Regulations 1 Jan 2022 - 29 Feb 2024): the 400-point upgrade once per
event, floor 1000, the 2022 initial rating; rapid and blitz with K 20 for everyone before 2022-10; the
one-off raise of the 1 October 2022 rapid and blitz lists; the compression of the 1 March 2024 list.
Arithmetic from the regulation text (``../shared/spec/fide-rules.md``), table 8.1.2 and 8.1.1.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import elo_batch
from elo_batch.engine import prepass
from elo_batch.engine.listinforce import as_list_in_force
from elo_batch.engine.sides import Chunk, rate_chunk
from elo_batch.errors import InternalError, UsageError
from elo_batch.rules.sets import COMPRESSION_2024, RAISE_2022, rule_set_for
from tests.conftest import read_table, write_csv
from tests.test_kernels import games_input


def _games(text: str) -> pl.DataFrame:
    rows = [line.split(",") for line in text.strip().splitlines()]
    return pl.DataFrame(rows[1:], schema=rows[0], orient="row")


def _list(text: str) -> pl.DataFrame:
    return pl.read_csv(text.strip().encode(), infer_schema=False)


def _by_player(result: elo_batch.PeriodResult) -> dict[str, dict]:
    return {row["player_id"]: row for row in result.ratings.iter_rows(named=True)}


# --- which rule set a period gets -------------------------------------------------------------


@pytest.mark.parametrize(
    ("period", "list_kind", "name", "one_off"),
    [
        ("2022-01", "standard", "fide-2022-01", None),
        ("2024-01", "standard", "fide-2022-01", None),
        ("2024-02", "standard", "fide-2022-01", COMPRESSION_2024),
        ("2024-03", "standard", "fide-2024-03", None),
        ("2025-10", "standard", "fide-2025-10", None),
        ("2022-05", "rapid", "fide-2022-01-rapid", None),
        ("2022-09", "blitz", "fide-2022-01-blitz", RAISE_2022),
        ("2022-10", "rapid", "fide-2022-10-rapid", None),
        ("2024-02", "blitz", "fide-2022-10-blitz", COMPRESSION_2024),
        ("2024-03", "rapid", "fide-2024-03-rapid", None),
    ],
)
def test_the_period_chooses_the_rule_set(period: str, list_kind: str, name: str, one_off: object) -> None:
    rules = rule_set_for("fide", period, list_kind=list_kind)  # type: ignore[arg-type]
    assert (rules.name, rules.one_off) == (name, one_off)


def test_2022_numbers() -> None:
    """B.02 (2022): floor 1000; 5 games over 26 months; Ru = Ra + 20 per half point over 50 %, no
    maximum, no fictitious games; the 400-point rule once per event; K 40/20/10 and 700 as in 2024."""
    rules = rule_set_for("fide", "2023-05")
    first = rules.first_rating
    assert (rules.floor, rules.cap_400, rules.cap.limit) == (1000, "once-per-event", 400)
    assert (first.min_games, first.window_months, first.per_half_point, first.maximum) == (5, 26, 20, None)
    assert first.fictitious_games == 0
    assert rules.k == rule_set_for("fide", "2024-03").k


def test_rapid_and_blitz_k_is_20_for_everyone_before_2022_10() -> None:
    before, after = (rule_set_for("fide", p, list_kind="rapid") for p in ("2022-09", "2022-10"))
    assert (before.k_rule, before.k_fixed, before.rule_700) == ("fixed", 20, True)
    assert before.k_next_rule == "fide"  # the 1 October 2022 list prints the standard K
    assert (after.k_rule, after.cap_400) == ("fide", "once-per-event")


def test_before_2022_is_refused_with_the_reason() -> None:
    with pytest.raises(UsageError) as raised:
        rule_set_for("fide", "2021-12")
    message = str(raised.value)
    assert message.startswith("option period: period 2021-12 is before 2022-01; rules='fide' has the FIDE")
    assert "rules/SOURCE.md" in message
    assert "Hint: to rate older games with the 2022 rules, add rule_set='fide-2022-01'." in message


def test_a_forced_rule_set_makes_no_one_time_change() -> None:
    assert rule_set_for("fide", "2024-02", rule_set="fide-2022-01").one_off is None
    assert rule_set_for("elo", "2024-02").one_off is None


def test_periods_before_2024_03_are_rated_with_their_own_rules(cli, tmp_path: Path) -> None:
    """Deliberate change: 2023-05 was refused ('is before 2024-03'); it is rated under fide-2022-01."""
    games = write_csv(tmp_path / "g.csv", "date,white_id,black_id,result\n2023-05-03,A,B,1-0")
    ratings = write_csv(tmp_path / "l.csv", "player_id,rating,k\nA,2000,20\nB,2000,20")

    result = cli("run", games, "--ratings", ratings, "--period", "2023-05", "--out", tmp_path / "out")

    assert result.exit_code == 0, result.output
    assert "2023-05 (fide-2022-01): 1 rows read = 1 counted" in result.stderr


# --- the 400-point upgrade, once per event (B.02 2022 8.3.1) ------------------------------------

LIST = """player_id,rating,k,games_total
A,2600,20,100
B,2100,20,100
C,2150,20,100
D,2100,20,100"""


def _audit(result: elo_batch.PeriodResult) -> list[tuple]:
    return result.audit.collect().select("game_id", "player_id", "rating_diff", "capped", "expected_score").rows()


def test_the_upgrade_is_the_game_of_the_largest_difference_once_per_event() -> None:
    """A 2600 (K 20): E1 beats B (D 500: capped .92) and C (D 450: real, .94); E2 beats D (capped .92):
    0.22 x 20 = 4.4 -> +4. B and C keep the plain cap: -0.08 x 20 = -1.6 -> -2 each."""
    games = _games("""game_id,date,event_id,white_id,black_id,result
1,2023-05-02,E1,A,B,1-0
2,2023-05-03,E1,C,A,0-1
3,2023-05-10,E2,A,D,1-0""")

    result = elo_batch.rate_period(games, period="2023-05", ratings=_list(LIST))

    players = _by_player(result)
    assert {p: players[p]["change"] for p in "ABCD"} == {"A": 4, "B": -2, "C": -2, "D": -2}
    assert _audit(result) == [
        ("1", "A", 400, True, 0.92),
        ("1", "B", -400, True, 0.08),
        ("2", "C", -400, True, 0.08),
        ("2", "A", 450, False, 0.94),
        ("3", "A", 400, True, 0.92),
        ("3", "D", -400, True, 0.08),
    ]


def test_the_2024_rules_cap_every_game() -> None:
    """The same games under fide-2024-03 (forced): 0.24 x 20 = 4.8 -> +5; and --cap-400 always likewise."""
    games = _games("""game_id,date,event_id,white_id,black_id,result
1,2023-05-02,E1,A,B,1-0
2,2023-05-03,E1,C,A,0-1
3,2023-05-10,E2,A,D,1-0""")
    forced = elo_batch.rate_period(games, period="2023-05", ratings=_list(LIST), rule_set="fide-2024-03")
    always = elo_batch.rate_period(games, period="2023-05", ratings=_list(LIST), cap_400="always")
    assert _by_player(forced)["A"]["change"] == _by_player(always)["A"]["change"] == 5


@pytest.mark.parametrize("first", ["B", "D"])
def test_a_tie_gives_the_upgrade_to_the_earliest_game_and_the_same_change(first: str) -> None:
    """A beats B and D (both 2100: D 500) in one event: one upgrade, on the earlier game; .92 + .96 ->
    0.12 x 20 = 2.4 -> +2 whichever game comes first."""
    second = "D" if first == "B" else "B"
    games = _games(f"""game_id,date,event_id,white_id,black_id,result
1,2023-05-02,E1,A,{first},1-0
2,2023-05-03,E1,A,{second},1-0""")

    result = elo_batch.rate_period(games, period="2023-05", ratings=_list(LIST))

    assert _by_player(result)["A"]["change"] == 2
    sides = [row for row in _audit(result) if row[1] == "A"]
    assert sides == [("1", "A", 400, True, 0.92), ("2", "A", 500, False, 0.96)]


def test_rows_without_event_id_are_one_event_of_the_period() -> None:
    """No event_id: A's games against B (D 500) and C (D 450) are one event: .92 + .94 -> 0.14 x 20 =
    2.8 -> +3 (each its own event would give 0.16 x 20 = 3.2 -> +3 too: the audit tells)."""
    games = _games("""game_id,date,white_id,black_id,result
1,2023-05-02,A,B,1-0
2,2023-05-03,A,C,1-0""")

    result = elo_batch.rate_period(games, period="2023-05", ratings=_list(LIST))

    assert [row[2:4] for row in _audit(result) if row[1] == "A"] == [(400, True), (450, False)]
    assert _by_player(result)["A"]["change"] == 3


def test_a_forfeited_game_is_not_the_upgrade() -> None:
    """The largest difference (B, D 500) is a forfeit, not rated: the upgrade goes to C (D 450, capped
    .92): +0.08 x 20 = 1.6 -> +2 (with C uncapped, .94: 1.2 -> +1)."""
    games = _games("""game_id,date,event_id,white_id,black_id,result
1,2023-05-02,E1,A,B,+--
2,2023-05-03,E1,A,C,1-0""")

    result = elo_batch.rate_period(games, period="2023-05", ratings=_list(LIST))

    assert _by_player(result)["A"]["change"] == 2


def test_the_tournament_calculator_applies_the_upgrade_once(cli) -> None:
    """`elo-batch tournament` is one event: 2600 (K 10) beats 2100, 2150, 2100: .92, .94, .96 -> 0.18
    x 10 = 1.8 -> +2 (the first of the two D 500 games is the upgrade)."""
    result = cli.runner.invoke(
        elo_batch.cli.app.app, ["tournament", "--rating", "2600", "--k", "10", "--period", "2023-05"],
        input="2100 | 1\n2150 | 1\n2100 | 1\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "400-point rule once per event for the higher-rated player" in result.output
    assert "Change +1.80 -> +2; new rating 2602" in result.output


# --- first ratings and the floor of 2022 ---------------------------------------------------------


def test_a_2022_first_rating_rounds_ra_plus_20_per_half_point() -> None:
    """Opponents 1801 + 4 x 1800 = 9001, Ra = 1800.2; 3 of 5 is one half point over 50 %: Ru = 1820.2 ->
    1820, published with K 40."""
    games = _games("""game_id,date,event_id,white_id,black_id,result
1,2023-05-02,E1,N,O1,1-0
2,2023-05-03,E1,N,O2,1-0
3,2023-05-04,E1,N,O3,1-0
4,2023-05-05,E1,N,O4,0-1
5,2023-05-06,E1,N,O5,0-1""")
    ratings = _list("player_id,rating,k\nO1,1801,20\nO2,1800,20\nO3,1800,20\nO4,1800,20\nO5,1800,20\nN,,")

    n = _by_player(elo_batch.rate_period(games, period="2023-05", ratings=ratings))["N"]

    assert (n["rating"], n["status"], n["k"]) == (1820, "new", 40)


def test_a_2022_first_rating_under_1000_is_not_published() -> None:
    """Five games against 1000s, 1 point: p = .20 -> dp -240 -> Ru 760 < 1000: the pool waits."""
    games = _games(
        "game_id,date,white_id,black_id,result\n"
        + "\n".join(f"{i},2023-05-0{i},N,O{i},{'1-0' if i == 1 else '0-1'}" for i in range(1, 6))
    )
    ratings = _list("player_id,rating,k\n" + "\n".join(f"O{i},1000,20" for i in range(1, 6)) + "\nN,,")

    n = _by_player(elo_batch.rate_period(games, period="2023-05", ratings=ratings))["N"]

    assert (n["rating"], n["status"], n["pending"]) == (None, "unrated", "2023-05:5:2:5000")


# --- rapid and blitz: K 20 before 2022-10, the standard K from then --------------------------------


def test_from_2022_10_rapid_k_follows_the_standard_rules() -> None:
    """A junior (born 2008) printed with K 20 on a rapid list before October 2022: in 2022-09 K 20 (+10
    for a win against an equal); the 1 October 2022 list prints the standard K, 40 for a junior, so in
    2022-10 the win of 2010 against 1990 (D 20 -> .53) is 0.47 x 40 = 18.8 -> +19."""
    games = _games("""game_id,date,white_id,black_id,result
1,2022-09-05,J,P,1-0
2,2022-10-05,J,P,1-0""")
    ratings = _list("player_id,rating,k,birth_year,games_total\nJ,2000,20,2008,100\nP,2000,20,1990,100")

    september, october = elo_batch.rate_periods(games, periods="2022-09..2022-10", ratings=ratings, list_kind="rapid")

    j9, j10 = _by_player(september)["J"], _by_player(october)["J"]
    assert (j9["k_used"], j9["change"], j9["k"]) == (20, 10, 40)
    assert (j10["k_used"], j10["change"]) == (40, 19)


def test_the_2022_raise_needs_standard_ratings() -> None:
    """Without standard_rating on the list the raise of the 1 October 2022 list cannot be made: said."""
    games = _games("game_id,date,white_id,black_id,result\n1,2022-09-05,A,B,1-0")
    result = elo_batch.rate_period(
        games, period="2022-09", ratings=_list("player_id,rating,k\nA,2000,20\nB,2000,20"), list_kind="rapid"
    )
    assert any("raise needs the list's standard_rating" in w for w in result.warnings)
    assert _by_player(result)["A"]["adjustment"] == 0


# --- the compression of the 1 March 2024 list -----------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [(1000, 1400), (1001, 1401), (1234, 1540), (1500, 1700), (1600, 1760), (1650, 1790), (1950, 1970),
     (1998, 1999), (1999, 1999), (2000, 2000), (2650, 2650)],
)  # fmt: skip
def test_the_1_march_2024_list_is_compressed(before: int, after: int) -> None:
    """TV-22 and FIDE's examples: R + 0.4 x (2000 - R), rounded (1001: +399.6 -> +400; 1998: +0.8 ->
    +1; 1999: +0.4 -> 0; 1600: +160; 1950: +20), on the list written for period 2024-02."""
    games = _games("game_id,date,white_id,black_id,result\n1,2024-02-05,X,Y,1/2-1/2")
    ratings = _list(f"player_id,rating,k\nP,{before},20\nX,2000,20\nY,2000,20")

    player = _by_player(elo_batch.rate_period(games, period="2024-02", ratings=ratings))["P"]

    assert (player["rating"], player["rating_before"], player["adjustment"]) == (after, before, after - before)


def test_other_periods_have_no_adjustment() -> None:
    games = _games("game_id,date,white_id,black_id,result\n1,2024-01-05,X,Y,1/2-1/2")
    ratings = _list("player_id,rating,k\nX,1500,20\nY,1500,20")
    result = elo_batch.rate_period(games, period="2024-01", ratings=ratings)
    assert result.ratings["adjustment"].to_list() == [None, None]
    assert result.ratings["rating"].to_list() == [1500, 1500]


GOLDEN = Path(__file__).parent / "golden" / "history-compression-2024-03"


def test_a_range_equals_month_by_month_runs() -> None:
    """2024-01..2024-03 (the rule change and the compression, checked by hand in the golden case) gives
    the lists of three single-month runs, each fed the list the one before wrote."""
    games, ratings = str(GOLDEN / "games.csv"), str(GOLDEN / "ratings.csv")
    ranged = list(elo_batch.rate_periods(games, periods="2024-01..2024-03", ratings=ratings))

    current: str | pl.DataFrame = ratings
    for month, expected in zip(("2024-01", "2024-02", "2024-03"), ranged, strict=True):
        single = elo_batch.rate_period(games, period=month, ratings=current)
        assert single.rule_set.name == expected.rule_set.name
        assert single.ratings.equals(expected.ratings), month
        current = single.ratings

    by_player = {row["player_id"]: row for row in ranged[1].ratings.iter_rows(named=True)}
    assert (by_player["A"]["rating"], by_player["B"]["rating"], by_player["N"]["pending"]) == (
        1711, 1689, "2024-02:3:4:4500",
    )  # fmt: skip
    assert _by_player(ranged[2])["N"]["rating"] == 1693


def test_a_single_month_run_writes_the_compressed_list_too(cli, tmp_path: Path) -> None:
    """12 ratings move: A, B, C, E, F, G, K, L, M, O1, O2, O3 (H 1999 gains 0.4 -> 0; D, I are 2000+)."""
    out = tmp_path / "out"
    result = cli(
        "run", GOLDEN / "games.csv", "--ratings", GOLDEN / "ratings.csv", "--period", "2024-02", "--out", out,
        "--format", "csv",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "warning: the 1 March 2024 compression: 12 rating(s) under 2000 raised by 0.4 x (2000 - R)" in result.stderr
    got = dict(read_table(out, "ratings", "2024-02").select("player_id", "rating").iter_rows())
    assert (got["C"], got["E"], got["J"], got["L"]) == ("1540", "1400", None, "1400")


def test_chunks_without_the_upgrade_marks_are_a_clear_internal_error() -> None:
    """An engine that cuts the period table without the pre-pass fact would rate the 2022 rule wrongly:
    refused (exit 70) with what to do, not a polars error."""
    games = games_input(_games("game_id,date,white_id,black_id,result\n1,2023-05-02,A,B,1-0"), fractional=False)
    ratings = as_list_in_force(_list(LIST).with_columns(pl.col("rating").cast(pl.Float64)))
    rules = rule_set_for("fide", "2023-05")
    prepared = prepass.prepare(games, ratings, "2023-05")  # no rules: no marks

    with pytest.raises(InternalError, match="the period table has no 400-point upgrade marks"):
        rate_chunk(Chunk(0, prepared.table), prepared.list_rating, rules)
