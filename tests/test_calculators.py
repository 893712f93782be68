"""`elo-batch game` and `elo-batch tournament`: FIDE's calculator numbers, the regulations' test vectors,
and the golden cases whose flags a calculator has, all through the CLI."""

from __future__ import annotations

import csv
import json
import shlex
import tempfile
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from elo_batch.cli.app import app
from tests.conftest import TESTS


def _json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# --- game -------------------------------------------------------------------------------------


def test_equal_ratings_k20_win_draw_loss_table(cli) -> None:
    """The issue's example: 1500 vs 1500, K 20: +10 / 0 / -10."""
    answer = _json(cli("game", "1500", "1500", "--k", "20", "--json"))
    outcomes = answer["outcomes_a"]
    assert [outcomes[o]["change"] for o in ("win", "draw", "loss")] == [10, 0, -10]
    assert answer["players"]["a"]["expected_percent"] == 50.0


def test_elo_rules_1600_beats_1400(cli) -> None:
    """Seed case seed-single-game-formula: E = 0.760, 20 x (1 - 0.760) = 4.8 -> +5; 1605 and 1395."""
    answer = _json(cli("game", "1600", "1400", "--result", "1", "--rules", "elo", "--json"))
    a, b = answer["players"]["a"], answer["players"]["b"]
    assert a["expected"] == pytest.approx(0.76, abs=0.0005)
    assert a["change_exact"] == pytest.approx(4.8, abs=0.01)
    assert (a["change"], a["new_rating"]) == (5, 1605)
    assert (b["change"], b["new_rating"]) == (-5, 1395)


def test_game_text_shows_percentages_and_the_outcome_table(cli) -> None:
    result = cli("game", "1600", "1400", "--result", "1", "--rules", "elo")
    assert result.exit_code == 0, result.output
    assert "75.97%" in result.stdout
    assert "+4.81 -> +5" in result.stdout
    assert "1605" in result.stdout and "1395" in result.stdout
    assert "Player A's change: win +4.81 -> +5   draw -5.19 -> -5   loss -15.19 -> -15" in result.stdout


@pytest.mark.parametrize(
    ("own", "opponent", "result", "k", "expected_change"),
    [
        # FIDE online calculator, row edges of table 8.1.2 (fide-rules.md section 10, F-C probes)
        (2003, 2000, "1", 10, 5.0),
        (2004, 2000, "1", 10, 4.9),
        (2010, 2000, "1", 10, 4.9),
        (2011, 2000, "1", 10, 4.8),
        (2206, 2000, "1", 10, 2.4),
        (2207, 2000, "1", 10, 2.3),
        (2391, 2000, "1", 10, 0.9),
        (2392, 2000, "1", 10, 0.8),
        (1656, 2000, "0", 10, -1.2),
        (1655, 2000, "0", 10, -1.1),
        (1500, 2000, "0.5", 20, 8.4),
        (2092, 2000, "1", 15, 5.55),
    ],
)
def test_fide_calculator_row_edges(cli, own, opponent, result, k, expected_change) -> None:
    answer = _json(cli("game", str(own), str(opponent), "--result", result, "--k", str(k), "--json"))
    assert answer["players"]["a"]["change_exact"] == pytest.approx(expected_change, abs=1e-9)


def test_fide_default_is_the_2650_exemption_in_force_today(cli) -> None:
    """TV-05: 2700 (K 10) beats 2100: +0.2 today; before October 2025 the plain cap gave +0.8."""
    today = _json(cli("game", "2700", "2100", "--result", "1", "--k", "10", "--json"))
    assert today["rule_set"] == "fide-2025-10"
    assert today["players"]["a"]["change_exact"] == pytest.approx(0.2)
    assert today["players"]["a"]["capped"] is False
    assert today["players"]["b"]["rating_diff"] == -400
    before = _json(cli("game", "2700", "2100", "--result", "1", "--k", "10", "--period", "2025-09", "--json"))
    assert before["rule_set"] == "fide-2024-03"
    assert before["players"]["a"]["change_exact"] == pytest.approx(0.8)
    forced = _json(cli("game", "2700", "2100", "--result", "1", "--k", "10", "--cap-400", "always", "--json"))
    assert forced["players"]["a"]["change_exact"] == pytest.approx(0.8)


def test_fractional_ratings_with_rounding_none(cli) -> None:
    """Seed case seed-fractional-formula: 1500 beats 1700 under elo, K 20 -> +15.19."""
    answer = _json(cli("game", "1500", "1700", "--result", "1", "--rules", "elo", "--rounding", "none", "--json"))
    assert answer["players"]["a"]["new_rating"] == pytest.approx(1515.19)
    assert answer["players"]["b"]["new_rating"] == pytest.approx(1684.81)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("game 1500 1500 --result 2", "'2' is not a result for player A"),
        ("game 1500 1500 --result +", "a forfeit is not rated"),
        ("game 1500 4000 --result 1", "rating 4000 is out of range"),
        ("game 1500 1500 --period 2025-13", "'2025-13' is not a rating period"),
        ("game 1500 1500 --period 2025-01..2025-02", "is a range of periods"),
        ("game 1500 1500 --rule-set fide-1999", "unknown rule set 'fide-1999'"),
        ("game 1500 1500 --period 2021-12", "is before 2022-01"),
    ],
)
def test_game_usage_errors_exit_2(cli, args, message) -> None:
    result = cli(*shlex.split(args))
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Hint:" in result.stderr
    assert "Traceback" not in result.output


# --- tournament -------------------------------------------------------------------------------


def test_tournament_sums_then_rounds_once(cli) -> None:
    """TV-14: 1850 (K 20): W 1900, D 1700, L 2300 (capped), D 1800, W 1950: sum 0.86 x 20 = 17.2 -> +17."""
    lines = "1900 | 1\n1700 | 0.5\n2300 | 0\n1800 | 0.5\n1950 | 1\n"
    answer = _json(cli.runner.invoke(app, ["tournament", "--rating", "1850", "--k", "20", "--json"], input=lines))
    assert (answer["change_exact"], answer["change"], answer["new_rating"]) == (pytest.approx(17.2), 17, 1867)
    assert [g["k_change"] for g in answer["games"]] == pytest.approx([11.4, -4.0, -1.6, -1.4, 12.8])
    assert answer["games"][2]["capped"] is True
    assert answer["expected_score"] == pytest.approx(2.14)


def test_tournament_performance_rating_tv21(cli, tmp_path: Path) -> None:
    """TV-21: 3/5 vs 1700, 1900, 2000, 1800, 2105: Ra 1901, p .60 -> dp 72 -> Rp 1973."""
    results = tmp_path / "event.txt"
    results.write_text("opponent_rating | result\n1700 | 1\n1900 | 0.5\n2000 | 1\n1800 | 0\n2105 | 0.5\n")
    answer = _json(cli("tournament", "--rating", "1900", "--results", results, "--json"))
    assert (answer["performance_rating"], answer["opponents_average"], answer["score"]) == (1973, 1901, 3.0)


def test_tournament_700_rule_reduces_k(cli) -> None:
    """Golden case bug-700-rule: K 40 junior draws nineteen 2200s: K = floor(700/19) = 36 -> +178."""
    lines = "2200 | 0.5\n" * 19
    result = cli.runner.invoke(app, ["tournament", "--rating", "2000", "--k", "40"], input=lines)
    assert result.exit_code == 0, result.output
    assert "K 36 (700 rule: 19 games x K 40 > 700)" in result.stdout
    assert "Change +177.84 -> +178; new rating 2178" in result.stdout


def test_tournament_forfeit_line_is_listed_not_rated(cli) -> None:
    lines = "1900 | 1\n1800 | +\n"
    answer = _json(cli.runner.invoke(app, ["tournament", "--rating", "1850", "--json"], input=lines))
    assert answer["n"] == 1
    assert [g["counted"] for g in answer["games"]] == [True, False]
    assert answer["change"] == 11  # 0.57 x 20 = 11.4


def test_tournament_bad_line_names_the_line(cli, tmp_path: Path) -> None:
    results = tmp_path / "event.txt"
    results.write_text("1900 | 1\n19OO | 0\n")
    result = cli("tournament", "--rating", "1850", "--results", results)
    assert result.exit_code == 65
    assert f"{results}, row 2, column opponent_rating: '19OO' is not a rating" in result.stderr
    assert "Hint:" in result.stderr


def test_tournament_missing_results_file_exits_66(cli, tmp_path: Path) -> None:
    result = cli("tournament", "--rating", "1850", "--results", tmp_path / "nope.txt")
    assert result.exit_code == 66
    assert "nope.txt: cannot read the file" in result.stderr


def test_tournament_without_games_is_a_usage_error(cli) -> None:
    result = cli.runner.invoke(app, ["tournament", "--rating", "1850"], input="")
    assert result.exit_code == 2
    assert "no games to rate" in result.stderr


# --- golden cases whose flags a calculator has --------------------------------------------------

CALCULATOR_CASES = [
    "seed-fide-table-1800-vs-1900",
    "seed-formula-cap-always",
    "seed-fractional-formula",
    "seed-single-game-formula",
    "fide-2650-rule-two-sides",
    "fide-beyond-735",
    "fide-round-once-per-period",
    "fide-period-two-events",
    "bug-700-rule",
    "bug-exact-hundredths",
    "bug-not-bankers-rounding",
    "bug-round-half-away-negative",
    "bug-round-sum-not-each-game",
    "bug-table-tail-eleven-wins",
]
#: Cases where every player plays one game: each game goes through `game` as well.
GAME_CASES = [
    "seed-fide-table-1800-vs-1900",
    "seed-formula-cap-always",
    "seed-fractional-formula",
    "seed-single-game-formula",
    "fide-2650-rule-two-sides",
    "fide-beyond-735",
    "bug-not-bankers-rounding",
    "bug-round-half-away-negative",
]
SCORE_OF_WHITE = {"1-0": "1", "0-1": "0", "1/2-1/2": "0.5"}
FLIP = {"1": "0", "0": "1", "0.5": "0.5"}


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


def _case_games(case: Path) -> tuple[list[str], dict[str, list[tuple[str, str, str, str]]]]:
    """The case's flags, and per player: (own rating, opponent rating, own score, own K) per game."""
    args = shlex.split((case / "args").read_text())
    listed = {r["player_id"]: r for r in _rows(case / "ratings.csv")} if (case / "ratings.csv").exists() else {}
    fixed_k = args[args.index("--k") + 1] if "--k" in args else None
    games: dict[str, list[tuple[str, str, str, str]]] = {}
    for g in _rows(case / "games.csv"):
        white_score = SCORE_OF_WHITE[g["result"]]
        for me, them, my_score, colour in (
            (g["white_id"], g["black_id"], white_score, "white"),
            (g["black_id"], g["white_id"], FLIP[white_score], "black"),
        ):
            other = "black" if colour == "white" else "white"
            mine = g.get(f"{colour}_rating") or listed[me]["rating"]
            theirs = g.get(f"{other}_rating") or listed[them]["rating"]
            k = fixed_k or (listed[me].get("k") if me in listed else None) or "20"
            games.setdefault(me, []).append((mine, theirs, my_score, k))
    flags = [a for a in args if a != "--k" and a != fixed_k]
    return flags, games


@pytest.mark.parametrize("name", CALCULATOR_CASES)
def test_golden_case_through_the_tournament_calculator(name: str, cli) -> None:
    """Each player of the case as one `tournament` run: the new rating and change of expected.csv."""
    case = TESTS / "golden" / name
    flags, games = _case_games(case)
    problems = []
    for row in _rows(case / "expected.csv"):
        player_games = games[row["player_id"]]
        own, k = player_games[0][0], player_games[0][3]
        lines = "".join(f"{theirs} | {score}\n" for _, theirs, score, _ in player_games)
        result = cli.runner.invoke(
            app, ["tournament", "--rating", own, "--k", k, *flags, "--json"], input=lines, catch_exceptions=False
        )
        answer = _json(result)
        for column, got in (("rating", answer["new_rating"]), ("change", answer["change"])):
            if row.get(column) and abs(float(row[column]) - got) > 0.006:
                problems.append(f"{row['player_id']}.{column}: expected {row[column]}, got {got}")
        if row.get("k_used") and int(row["k_used"]) != answer["k_used"]:
            problems.append(f"{row['player_id']}.k_used: expected {row['k_used']}, got {answer['k_used']}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", GAME_CASES)
def test_golden_case_through_the_game_calculator(name: str, cli) -> None:
    """Each game of the case through `game`: both players' rows of expected.csv."""
    case = TESTS / "golden" / name
    flags, games = _case_games(case)
    expected = {r["player_id"]: r for r in _rows(case / "expected.csv")}
    for g in _rows(case / "games.csv"):
        white, black = g["white_id"], g["black_id"]
        assert len(games[white]) == len(games[black]) == 1, "a case for `game` has one game per player"
        (rw, rb, score, kw), (_, _, _, kb) = games[white][0], games[black][0]
        answer = _json(cli("game", rw, rb, "--result", score, "--k", kw, "--k-b", kb, *flags, "--json"))
        for player, side in ((white, "a"), (black, "b")):
            row = expected[player]
            got = answer["players"][side]
            if row.get("rating"):
                assert got["new_rating"] == pytest.approx(float(row["rating"]), abs=0.006), player
            if row.get("change"):
                assert got["change"] == pytest.approx(float(row["change"]), abs=0.006), player


@settings(max_examples=25, deadline=None)
@given(
    rating_a=st.integers(1400, 2900),
    rating_b=st.integers(1400, 2900),
    result=st.sampled_from(["1-0", "1/2-1/2", "0-1"]),
    k_a=st.sampled_from([10, 20, 40]),
    k_b=st.sampled_from([10, 20, 40]),
)
def test_game_calculator_agrees_with_run_on_one_game(rating_a, rating_b, result, k_a, k_b) -> None:
    """The calculator is `run` on one game: same expressions, same rule set (2650 exemption, 2026-10)."""
    runner = CliRunner()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        (base / "g.csv").write_text(f"date,white_id,black_id,result\n2026-10-05,A,B,{result}\n")
        (base / "l.csv").write_text(f"player_id,rating,k\nA,{rating_a},{k_a}\nB,{rating_b},{k_b}\n")
        ran = runner.invoke(app, ["run", str(base / "g.csv"), "--ratings", str(base / "l.csv"), "--period",
                                  "2026-10", "--out", str(base / "out"), "--format", "csv"])  # fmt: skip
        assert ran.exit_code == 0, ran.output
        changes = dict(
            zip(*[pl.read_csv(base / "out/ratings/period=2026-10/part-0.csv")[c] for c in ("player_id", "change")],
                strict=True)
        )  # fmt: skip
    score = SCORE_OF_WHITE[result]
    answer = _json(runner.invoke(app, ["game", str(rating_a), str(rating_b), "--result", score, "--k", str(k_a),
                                       "--k-b", str(k_b), "--period", "2026-10", "--json"]))  # fmt: skip
    assert (answer["players"]["a"]["change"], answer["players"]["b"]["change"]) == (changes["A"], changes["B"])


@pytest.mark.parametrize("encoding", ["cp1252", "utf-16"])
def test_tournament_results_file_in_a_legacy_encoding(tmp_path: Path, encoding: str) -> None:
    """1850 (K 20) draws 1900 (written ½: D -50, PD .43, +0.07) and beats 1800 (D 50, PD .57, +0.43):
    20 x 0.50 = +10."""
    results = tmp_path / "results.txt"
    results.write_bytes("1900 | ½\n1800 | 1\n".encode(encoding))
    result = CliRunner().invoke(app, ["tournament", "--rating", "1850", "--k", "20", "--results", str(results),
                                      "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["change"] == 10
