"""The public Python API (``elo_batch.rate_period`` and kin) on frames and paths, against golden values,
FIDE's published US Championship numbers, and the files ``elo-batch run`` writes."""

from __future__ import annotations

import csv
import json
import shlex
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pytest

import elo_batch
from tests.conftest import ROOT, TESTS, read_table, write_csv

GOLDEN = sorted(p for p in (TESTS / "golden").iterdir() if p.is_dir())
FIDE = TESTS / "data" / "fide-us-championship-2025"
US_GAMES = ROOT / "sample_data" / "us-championship-2025-games.csv"
US_LIST = ROOT / "sample_data" / "ratings-2025-10.csv"

#: How a caller may hold a table read from CSV: as text (what a CSV file gives), with polars' inferred
#: types (integers, dates), lazily, or as pyarrow.
CONSTRUCTORS: dict[str, Callable[[Path], Any]] = {
    "polars-text": lambda path: pl.read_csv(path, infer_schema=False),
    "polars-typed": lambda path: pl.read_csv(path, try_parse_dates=True),
    "lazy": lambda path: pl.scan_csv(path, infer_schema=False),
    "pyarrow": lambda path: pl.read_csv(path, try_parse_dates=True).to_arrow(),
}
#: CLI flags of the golden cases' ``args`` -> the API's keyword and how its value is read.
FLAG_OPTIONS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "--rules": ("rules", str),
    "--rule-set": ("rule_set", str),
    "--list": ("list_kind", str),
    "--expected": ("expected", str),
    "--cap-400": ("cap_400", str),
    "--k": ("k", int),
    "--rounding": ("rounding", str),
    "--period-by": ("period_by", str),
}


def _options(args: str) -> tuple[str, dict[str, Any]]:
    """(period, API keywords) of a golden case's CLI arguments."""
    words, period, options = shlex.split(args), "", {}
    while words:
        flag = words.pop(0)
        if flag == "--period":
            period = words.pop(0)
        elif flag == "--no-700-rule":
            options["rule_700"] = False
        else:
            name, parse = FLAG_OPTIONS[flag]
            options[name] = parse(words.pop(0))
    return period, options


def _exactly(expected: str, got: object) -> bool:
    """An expected.csv cell against an output value, exactly: numbers as decimals, not within a tolerance."""
    expected = expected.strip()
    if expected == "null":
        return got is None
    if expected.lower() in ("true", "false"):
        return got is (expected.lower() == "true")
    if isinstance(got, int | float | Decimal) and not isinstance(got, bool):
        return Decimal(expected) == Decimal(str(got))
    return expected == got


@pytest.mark.parametrize("make", CONSTRUCTORS.values(), ids=CONSTRUCTORS.keys())
@pytest.mark.parametrize("case", GOLDEN, ids=[p.name for p in GOLDEN])
def test_golden_case_from_frames(case: Path, make: Callable[[Path], Any]) -> None:
    period, options = _options((case / "args").read_text())
    ratings = make(case / "ratings.csv") if (case / "ratings.csv").exists() else None
    if (case / "events.csv").exists():
        options["events"] = make(case / "events.csv")

    results = list(elo_batch.rate_periods(make(case / "games.csv"), periods=period, ratings=ratings, **options))

    lists = {r.period: {str(row["player_id"]): row for row in r.ratings.iter_rows(named=True)} for r in results}
    with open(case / "expected.csv", newline="", encoding="utf-8-sig") as handle:
        expected_rows = list(csv.DictReader(handle))
    last = results[-1].period  # a row without a period column: the last month (one month: that one)
    assert all(row["player_id"] in lists[row.get("period") or last] for row in expected_rows)
    got = [lists[row.get("period") or last][row["player_id"]] for row in expected_rows]
    problems = [
        f"{row['player_id']}.{column}: expected {value!r}, got {player[column]!r}"
        for row, player in zip(expected_rows, got, strict=True)
        for column, value in row.items()
        if column != "player_id" and value.strip() and not _exactly(value, player[column])
    ]
    assert not problems, "\n".join(problems)
    assert all(r.counts.reconciles() for r in results)


# --- FIDE's published numbers: the 2025 US Championship (sample_data/) ---------------------------


def _fide_players() -> pl.DataFrame:
    return pl.read_csv(FIDE / "players.csv", infer_schema=False)


def _fide_changes() -> dict[tuple[str, str, int], Decimal]:
    """FIDE's change of each side of each game: (player, opponent, round) -> chg (before x K)."""
    changes = {}
    for game in pl.read_csv(FIDE / "games.csv", infer_schema=False).iter_rows(named=True):
        rnd = int(game["round"])
        changes[(game["white_fide_id"], game["black_fide_id"], rnd)] = Decimal(game["fide_white_chg"])
        changes[(game["black_fide_id"], game["white_fide_id"], rnd)] = Decimal(game["fide_black_chg"])
    return changes


def _check_against_fide(result: elo_batch.PeriodResult, sides: int) -> None:
    """The period's list and audit are FIDE's: each side's K x chg, the November ratings of the players
    who played no other event in the period, and n, W, Rc, Ro of FIDE's tournament report."""
    audit = result.audit.collect()
    assert audit.height == sides
    assert audit["counted"].all()
    fide = _fide_changes()
    for row in audit.iter_rows(named=True):
        key = (str(row["player_id"]), str(row["opponent_id"]), int(row["round"]))
        assert Decimal(str(row["k_change"])) == fide[key] * row["k_used"], key
    got = {str(row["player_id"]): row for row in result.ratings.iter_rows(named=True)}
    for player in _fide_players().iter_rows(named=True):
        mine = got[player["fide_id"]]
        assert (mine["games"], mine["rating_before"]) == (int(player["fide_n"]), int(player["fide_Ro"]))
        assert Decimal(str(mine["score"])) == Decimal(player["fide_w"])
        assert mine["opponents_average"] == int(player["fide_Rc"])
        if player["other_events_K_chg"] is None:  # the 10 players whose only event of October this was
            assert mine["rating"] == int(player["list_2025_11_rating"]), player["fide_id"]


@pytest.mark.parametrize("make", CONSTRUCTORS.values(), ids=CONSTRUCTORS.keys())
def test_us_championship_from_frames_is_fides_calculation(make: Callable[[Path], Any]) -> None:
    result = elo_batch.rate_period(make(US_GAMES), period="2025-10", ratings=make(US_LIST))

    _check_against_fide(result, sides=132)
    assert (result.period, result.rule_set.name) == ("2025-10", "fide-2025-10")
    assert result.counts == elo_batch.Counts(66, 66, 0, 0, 0)


def test_us_championship_from_paths_and_a_lazy_frame_read_in_chunks() -> None:
    from_paths = elo_batch.rate_period(str(US_GAMES), period="2025-10", ratings=US_LIST)
    in_chunks = elo_batch.rate_period(
        pl.scan_csv(US_GAMES, infer_schema=False), period="2025-10", ratings=str(US_LIST), chunk_rows=7
    )

    _check_against_fide(from_paths, sides=132)
    assert in_chunks.ratings.equals(from_paths.ratings)
    assert in_chunks.audit.collect().drop("source_file").equals(from_paths.audit.collect().drop("source_file"))


def _one_sided(games: pl.DataFrame, rating_list: pl.DataFrame) -> pl.DataFrame:
    """Each game as two one-sided results (a player's card: opponent, opponent's rating, score)."""
    rating = dict(zip(rating_list["player_id"].cast(pl.String), rating_list["rating"], strict=True))
    score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
    cards = [
        {
            "player_id": player,
            "opponent_id": opponent,
            "opponent_rating": rating[opponent],
            "score": score[game["result"]] if player == game["white_id"] else 1 - score[game["result"]],
            "date": game["date"],
            "round": game["round"],
        }
        for game in games.iter_rows(named=True)
        for player, opponent in ((game["white_id"], game["black_id"]), (game["black_id"], game["white_id"]))
    ]
    return pl.DataFrame(cards)


@pytest.mark.parametrize("kind", ["polars", "lazy", "pyarrow"])
def test_us_championship_as_one_sided_results_is_fides_calculation(kind: str) -> None:
    rating_list = pl.read_csv(US_LIST, infer_schema=False)
    cards = _one_sided(pl.read_csv(US_GAMES, infer_schema=False), rating_list)
    games = {"polars": cards, "lazy": cards.lazy(), "pyarrow": cards.to_arrow()}[kind]

    result = elo_batch.rate_period(games, period="2025-10", ratings=rating_list)

    _check_against_fide(result, sides=132)  # one audit row per card: only the player's side is rated
    assert result.counts == elo_batch.Counts(132, 132, 0, 0, 0)


# --- a range of periods ----------------------------------------------------------------------------

RANGE_GAMES = """
game_id,date,event_id,white_id,black_id,result
1,2025-11-02,E1,P,Q,1-0
2,2025-11-20,E2,R,P,0-1
3,2025-12-05,E3,Q,R,1-0
"""
RANGE_LIST = pl.DataFrame({"player_id": ["P", "Q", "R"], "rating": [2000, 2200, 2200], "k": [10, 20, 20]})


def test_a_range_rates_each_month_from_the_list_the_month_before() -> None:
    """November is the golden case fide-round-once-per-period (P +15, Q and R -15 each). December:
    Q (2185) beats R (2185): D 0, PD 0.50; their new list prints K 20 (established adults under 2400),
    so Q +10 = 2195 and R -10 = 2175; P, who did not play, keeps 2015 with change 0."""
    games = pl.read_csv(RANGE_GAMES.strip().encode(), infer_schema=False)

    november, december = elo_batch.rate_periods(games, periods="2025-11..2025-12", ratings=RANGE_LIST)

    assert november.ratings.select("player_id", "rating", "change").rows() == [
        ("P", 2015, 15),
        ("Q", 2185, -15),
        ("R", 2185, -15),
    ]
    assert december.ratings.select("player_id", "rating", "rating_before", "change", "k_used").rows() == [
        ("P", 2015, 2015, 0, None),
        ("Q", 2195, 2185, 10, 20),
        ("R", 2175, 2185, -10, 20),
    ]
    assert (november.counts.other_periods, december.counts.other_periods) == (1, 2)
    chained = elo_batch.rate_period(games, period="2025-12", ratings=november.ratings)
    assert chained.ratings.equals(december.ratings)


def test_a_range_gives_what_run_writes_for_it(cli, tmp_path: Path) -> None:
    games, rating_list = write_csv(tmp_path / "g.csv", RANGE_GAMES), tmp_path / "list.csv"
    RANGE_LIST.write_csv(rating_list)
    run = cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out", tmp_path / "out")
    assert run.exit_code == 0, run.output

    results = list(elo_batch.rate_periods(games, periods="2025-11..2025-12", ratings=rating_list))

    assert [r.period for r in results] == ["2025-11", "2025-12"]
    for result in results:
        assert result.ratings.equals(read_table(tmp_path / "out", "ratings", result.period))
        assert result.audit.collect().equals(read_table(tmp_path / "out", "audit", result.period))


# --- rejected rows of a frame ----------------------------------------------------------------------

BAD_GAMES = {
    "game_id": ["1", "2", "3", "4", "5"],
    "date": ["2025-11-03", "2025-11-03", "2025-11-31", "2025-11-04", "2025-12-01"],
    "white_id": ["A", "A", "A", "B", "A"],
    "black_id": ["B", "B", "C", "C", "B"],
    "result": ["1-0", "2-0", "1-0", "1/2-1/2", "1-0"],
}
LIST = pl.DataFrame({"player_id": ["A", "B", "C"], "rating": [2000, 1900, 2100], "k": [20, 20, 10]})


@pytest.mark.parametrize(
    ("kind", "name"), [("polars", None), ("polars", "club-games"), ("lazy", None), ("pyarrow", "club-games")]
)
def test_rejected_rows_of_a_frame_name_its_rows(kind: str, name: str | None) -> None:
    frame = pl.DataFrame(BAD_GAMES)
    games = {"polars": frame, "lazy": frame.lazy(), "pyarrow": frame.to_arrow()}[kind]

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST, source_name=name)

    assert result.rejected.select("source_file", "source_row", "column", "value").rows() == [
        (name, 2, "result", "2-0"),
        (name, 3, "date", "2025-11-31"),
    ]
    assert result.rejected["reason"][0].startswith("'2-0' is not a result. Hint: use 1-0, 0-1, 1/2-1/2")
    assert result.counts == elo_batch.Counts(5, 2, 0, 1, 2)
    audit = result.audit.collect()
    assert audit.select("source_file", "source_row").unique(maintain_order=True).rows() == [(name, 1), (name, 4)]
    assert result.ratings.filter(pl.col("player_id") == "A")["change"].item() == 7  # beat B: 20 x (1 - 0.64)


def test_a_game_id_reused_in_a_frame_names_the_rows() -> None:
    games = pl.DataFrame({**{k: v[:4] for k, v in BAD_GAMES.items()}, "result": ["1-0", "0-1", "1-0", "1-0"]})
    games = games.with_columns(pl.Series("game_id", ["1", "1", "3", "4"]), pl.Series("date", ["2025-11-03"] * 4))

    unnamed = elo_batch.rate_period(games, period="2025-11", ratings=LIST)
    named = elo_batch.rate_period(games, period="2025-11", ratings=LIST, source_name="g")

    assert unnamed.rejected["reason"][0].startswith("game_id '1' is used by rows with different content (row 1, row 2)")
    assert named.rejected["reason"][0].startswith(
        "game_id '1' is used by rows with different content (g row 1, g row 2)"
    )
    assert unnamed.rejected["source_row"].to_list() == [1, 2]


def test_a_frame_is_not_changed() -> None:
    games = pl.DataFrame({"White ID": [" A "], "Black-ID": ["B"], "Result": ["1-0"], "Date": ["2025-11-03"]})
    before = games.clone()

    result = elo_batch.rate_period(games, period="2025-11", ratings=LIST)

    assert games.equals(before)
    assert result.ratings.filter(pl.col("player_id") == "A")["rating"].item() == 2007  # names and text normalised


# --- the frames are what `run` writes --------------------------------------------------------------

MIXED = """
game_id,date,white_id,black_id,result,white_rating
1,2025-11-03,A,B,1-0,
2,2025-11-03,A,C,2-0,
3,2025-11-04,C,B,1/2-1/2,
3,2025-11-04,C,B,1/2-1/2,
4,2025-11-05,B,A,+--,
5,2025-11-06,A,X,0-1,
6,2025-12-01,A,B,1-0,
7,2025-11-07,A,B,1-0,"2,000"
"""


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_the_frames_and_files_are_those_run_writes(cli, tmp_path: Path, fmt: str) -> None:
    games, rating_list = write_csv(tmp_path / "g.csv", MIXED), tmp_path / "list.csv"
    LIST.write_csv(rating_list)
    cli_out, api_out = tmp_path / "cli", tmp_path / "api"
    run = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", cli_out, "--format", fmt)
    assert run.exit_code == 0, run.output

    result = elo_batch.rate_period(games, period="2025-11", ratings=rating_list)
    written = elo_batch.write_period(result, api_out, format=fmt)  # type: ignore[arg-type]

    if fmt == "parquet":  # the frames are the written tables, column types included
        assert result.ratings.equals(read_table(cli_out, "ratings", "2025-11"))
        assert result.audit.collect().equals(read_table(cli_out, "audit", "2025-11"))
        assert result.rejected.equals(read_table(cli_out, "rejected", "2025-11"))
        assert result.rejected.height == 2
    for table in ("ratings", "audit", "rejected"):  # and written the same, byte for byte
        part = Path("period=2025-11") / f"part-0.{fmt}"
        assert (cli_out / table / part).read_bytes() == (api_out / table / part).read_bytes(), table
        assert written[table] == str(api_out / table / part)
    manifests = [json.loads((out / "manifest/period=2025-11/manifest.json").read_text()) for out in (cli_out, api_out)]
    for manifest in manifests:
        for key in ("started_at", "finished_at", "outputs"):
            manifest.pop(key)
    assert manifests[0] == manifests[1]
    assert result.warnings == tuple(manifests[1]["warnings"])


def test_write_period_replaces_only_its_period(tmp_path: Path) -> None:
    games = pl.read_csv(RANGE_GAMES.strip().encode(), infer_schema=False)
    november, december = elo_batch.rate_periods(games, periods="2025-11..2025-12", ratings=RANGE_LIST)
    elo_batch.write_period(november, tmp_path)
    elo_batch.write_period(december, tmp_path)
    before = (tmp_path / "ratings/period=2025-11/part-0.parquet").read_bytes()

    elo_batch.write_period(december, tmp_path)

    assert (tmp_path / "ratings/period=2025-11/part-0.parquet").read_bytes() == before
    lake = pl.scan_parquet(tmp_path / "ratings", hive_partitioning=True).collect()
    assert lake.group_by("period").len().sort("period").rows() == [("2025-11", 3), ("2025-12", 3)]
    manifest = json.loads((tmp_path / "manifest/period=2025-12/manifest.json").read_text())
    assert manifest["inputs"]["games"] == [
        {"path": "games", "size": 0, "sha256": "", "rows": 3, "encoding": "frame", "separator": None,
         "blank_rows": 0, "notes": [], "unnamed": True}
    ]  # fmt: skip


def test_locked_output_recovers_a_killed_commit_before_the_list_is_read(tmp_path: Path) -> None:
    games = pl.read_csv(RANGE_GAMES.strip().encode(), infer_schema=False)
    november = elo_batch.rate_period(games, period="2025-11", ratings=RANGE_LIST)
    elo_batch.write_period(november, tmp_path)
    listed = tmp_path / "ratings/period=2025-11"
    # a run killed inside its commit: the period moved aside into a staging folder, journal kept
    staging = tmp_path / ".elo-batch-staging-run-0123456789ab"
    (staging / "old").mkdir(parents=True)
    (staging / "new").mkdir()
    listed.rename(staging / "old" / "0")
    (staging / "journal.json").write_text(json.dumps({"targets": {"ratings/period=2025-11": 1}}))

    with elo_batch.locked_output(tmp_path) as out:
        december = elo_batch.rate_period(games, period="2025-12", ratings=out / "ratings/period=2025-11")
        elo_batch.write_period(december, out)  # uses the lock already held

    assert not staging.exists()
    chained = list(elo_batch.rate_periods(games, periods="2025-11..2025-12", ratings=RANGE_LIST))[1]
    assert december.ratings.equals(chained.ratings)


def test_locked_output_refuses_an_object_store() -> None:
    with pytest.raises(elo_batch.UsageError, match="option out: 's3://bucket/x' is an object store"):
        elo_batch.locked_output("s3://bucket/x").__enter__()


# --- validate ------------------------------------------------------------------------------------


def test_validate_reports_the_rejected_rows_of_a_frame_without_rating() -> None:
    report = elo_batch.validate(pl.DataFrame(BAD_GAMES), ratings=LIST, source_name="club")

    assert isinstance(report, elo_batch.ValidationReport)
    assert (report.rows_read, report.rejected.height) == (5, 2)
    assert report.rejected["source_file"].to_list() == ["club", "club"]
    assert report.usable_by_period == {"2025-11": 2, "2025-12": 1}
    assert report.periods == ()


def test_validate_with_a_period_counts_as_run_would() -> None:
    report = elo_batch.validate(pl.DataFrame(BAD_GAMES), ratings=LIST, period="2025-11")

    [summary] = report.periods
    assert summary.counts == elo_batch.Counts(5, 2, 0, 1, 2)
    assert summary.players == {"rated": 3}


# --- errors: classes with exit codes, messages that name parameters --------------------------------

GAMES = pl.DataFrame({"white_id": ["A"], "black_id": ["B"], "result": ["1-0"], "date": ["2025-11-03"]})


def test_every_error_class_is_exported_with_its_exit_code() -> None:
    codes = {
        name: getattr(elo_batch, name).exit_code
        for name in elo_batch.__all__
        if isinstance(getattr(elo_batch, name), type) and issubclass(getattr(elo_batch, name), Exception)
    }

    assert codes == {
        "EloBatchError": 70,
        "UsageError": 2,
        "InputDataError": 65,
        "StrictRejectError": 65,
        "NoRatingSourceError": 65,
        "InputMissingError": 66,
        "OutputError": 73,
        "InternalError": 70,
    }


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"period": "2025-13"}, "option period: '2025-13' is not a rating period\nHint: use a month of play YYYY-MM"),
        ({"period": "2025-10..2025-11"}, "option period: '2025-10..2025-11' is a range of periods\nHint: give one"),
        (
            {"period": "2025-11", "rules": "elo", "rule_set": "fide-2024-03"},
            "option rule_set: rules='elo' and rule_set='fide-2024-03' ask for two different rule sets\n"
            "Hint: give one: rules='elo', or rule_set with a FIDE rule set.",
        ),
        (
            {"period": "2021-12"},
            "option period: period 2021-12 is before 2022-01; rules='fide' has the FIDE rating regulations from "
            "1 January 2022 on",
        ),
        ({"period": "2025-11", "rule_set": "fide-1999"}, "option rule_set: unknown rule set 'fide-1999'"),
        ({"period": "2025-11", "expected": "tabel"}, "option expected: 'tabel' is not one of 'table', 'formula'"),
        ({"period": "2025-11", "k": 0}, "option k: 0 is not a whole number from 1 to 100"),
        ({"period": "2025-11", "rule_700": "no"}, "option rule_700: 'no' is not True or False"),
        ({"period": "2025-11", "encoding": "klingon"}, "option encoding: 'klingon' is not a text encoding"),
    ],
)
def test_a_bad_option_is_a_usage_error_that_names_the_parameter(options: dict[str, Any], message: str) -> None:
    with pytest.raises(elo_batch.UsageError) as raised:
        elo_batch.rate_period(str(US_GAMES), **options)

    assert str(raised.value).startswith(message)
    assert "--" not in str(raised.value)
    assert raised.value.exit_code == 2


def test_the_cli_names_the_same_errors_by_their_flags(cli, tmp_path: Path) -> None:
    games = write_csv(tmp_path / "g.csv", "white_id,black_id,result,date\nA,B,1-0,2021-12-01")

    result = cli("run", games, "--period", "2021-12", "--out", tmp_path / "out")

    assert result.exit_code == 2
    assert "option --period: period 2021-12 is before 2022-01; --rules fide has" in result.output
    assert "add --rule-set fide-2022-01." in result.output


def test_the_cli_json_error_names_the_flag(cli, tmp_path: Path) -> None:
    games = write_csv(tmp_path / "g.csv", "white_id,black_id,result,date\nA,B,1-0,2025-05-01")

    result = cli("run", games, "--period", "2025-13", "--out", tmp_path / "out", "--log-format", "json")

    record = json.loads(result.output.strip().splitlines()[-1])
    assert (record["exit_code"], record["column"]) == (2, "--period")
    assert record["message"].startswith("option --period: '2025-13' is not a rating period")


def test_an_unknown_encoding_is_refused_before_anything_is_read() -> None:
    with pytest.raises(elo_batch.UsageError, match="option encoding: 'klingon' is not a text encoding"):
        elo_batch.rate_period(GAMES, period="2025-11", encoding="klingon")  # a frame: nothing decoded


def test_a_missing_or_reversed_range_names_its_parameter() -> None:
    with pytest.raises(elo_batch.UsageError, match=r"^option period: no period given"):
        elo_batch.rate_period(GAMES, period=None)  # type: ignore[arg-type]
    with pytest.raises(
        elo_batch.UsageError, match=r"^option periods: range '2025-12\.\.2025-10' ends before it starts"
    ):
        elo_batch.rate_periods(GAMES, periods="2025-12..2025-10")


def test_an_unknown_option_is_a_type_error_naming_the_options() -> None:
    with pytest.raises(TypeError, match=r"got unknown option\(s\) 'no_700_rule'; the options are: rules, rule_set"):
        elo_batch.rate_period(GAMES, period="2025-11", no_700_rule=True)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"validate\(\) got unknown option\(s\) 'strict'"):
        elo_batch.validate(GAMES, strict=True)


@pytest.mark.parametrize("games", [42, [], [GAMES], {"white_id": ["A"]}])
def test_games_that_are_neither_a_table_nor_paths_are_a_type_error(games: object) -> None:
    with pytest.raises(TypeError, match="games must be a polars DataFrame or LazyFrame, a pyarrow Table, or paths"):
        elo_batch.rate_period(games, period="2025-11")  # type: ignore[arg-type]


def test_input_errors_name_the_frame_by_its_parameter(tmp_path: Path) -> None:
    with pytest.raises(elo_batch.InputDataError) as no_result:
        elo_batch.rate_period(GAMES.drop("result"), period="2025-11")
    with pytest.raises(elo_batch.InputDataError) as bad_list:
        elo_batch.rate_period(GAMES, period="2025-11", ratings=pa.table({"player_id": ["A"], "rating": [4000]}))
    with pytest.raises(elo_batch.InputMissingError) as missing:
        elo_batch.rate_period(tmp_path / "nowhere.csv", period="2025-11")

    assert str(no_result.value).startswith("games: missing column result; the file has columns white_id, black_id")
    assert str(bad_list.value).startswith("ratings, row 1, column rating: '4000' is out of range")
    assert (no_result.value.exit_code, bad_list.value.exit_code, missing.value.exit_code) == (65, 65, 66)


def test_strict_refuses_a_frame_with_a_rejected_row() -> None:
    with pytest.raises(elo_batch.StrictRejectError) as raised:
        elo_batch.rate_period(pl.DataFrame(BAD_GAMES), period="2025-11", ratings=LIST, strict=True, source_name="g")

    assert str(raised.value).startswith("g, row 2, column result: 2 row(s) rejected and strict is set; nothing was")
    assert "run without strict" in str(raised.value)


def test_write_period_names_out_when_it_is_a_file(tmp_path: Path) -> None:
    result = elo_batch.rate_period(GAMES, period="2025-11", ratings=None)
    (tmp_path / "file").write_text("x")

    with pytest.raises(elo_batch.OutputError) as raised:
        elo_batch.write_period(result, tmp_path / "file")
    with pytest.raises(elo_batch.UsageError, match="option format: 'xlsx' is not an output format"):
        elo_batch.write_period(result, tmp_path / "out", format="xlsx")  # type: ignore[arg-type]

    assert "Hint: out names the folder that receives" in str(raised.value)
    assert raised.value.exit_code == 73


# --- the documentation's Python API example runs (docs/getting-started.md) ----------------------------


def _readme_example() -> str:
    text = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    section = text[text.index("\n## The Python API\n") :]
    start = section.index("```python\n") + len("```python\n")
    return section[start : section.index("\n```", start)]


def test_the_getting_started_python_api_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sample_data").mkdir()
    for path in (US_GAMES, US_LIST):
        (tmp_path / "sample_data" / path.name).write_bytes(path.read_bytes())
    monkeypatch.chdir(tmp_path)

    exec(compile(_readme_example(), "docs/getting-started.md", "exec"), {})

    assert (
        read_table(tmp_path / "out", "ratings", "2025-10").filter(pl.col("player_id") == 30953499)["rating"].item()
        == 2605
    )


def test_importing_elo_batch_does_not_import_pyarrow() -> None:
    """The CLI starts without pyarrow (0.1-0.5 s); the API recognises a pyarrow table once its caller imported it."""
    import subprocess
    import sys

    code = "import sys, elo_batch, elo_batch.cli.app; sys.exit('pyarrow' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_the_public_api_never_imports_pyspark_for_other_frames() -> None:
    """``elo_batch.rate_period`` and ``rate_periods`` of a polars frame, and the module of the API's
    Spark names (``elo_batch.spark``) imported, leave pyspark out of ``sys.modules``: the engine is
    chosen by the frame's type, looked for only where pyspark is already imported."""
    import os
    import subprocess
    import sys

    code = (
        "import sys, polars as pl, elo_batch\n"
        "games = pl.DataFrame({'white_id': ['A'], 'black_id': ['B'], 'result': ['1-0'], 'date': ['2025-11-03']})\n"
        "result = elo_batch.rate_period(games, period='2025-11', ratings=None)\n"
        "assert type(result) is elo_batch.PeriodResult, type(result)\n"
        "list(elo_batch.rate_periods(games, periods='2025-11', ratings=None))\n"
        "import elo_batch.spark\n"
        "assert not [name for name in sys.modules if name.startswith('pyspark')]\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_spark_names_refuse_games_that_are_not_a_spark_frame() -> None:
    """``elo_batch.spark.rate_period`` (and ``rate_periods``) is the API's call for Spark frames only: a
    polars frame is a TypeError pointing to ``elo_batch.rate_period`` (without pyspark: how to install
    it); ``chunk_rows`` is refused first, naming it."""
    import importlib.util

    from elo_batch import spark

    installed = all(importlib.util.find_spec(name) is not None for name in ("pyspark", "pandas"))
    games = pl.DataFrame({"white_id": ["A"], "black_id": ["B"], "result": ["1-0"], "date": ["2025-11-03"]})
    for call in (
        lambda: spark.rate_period(games, period="2025-11"),  # type: ignore[arg-type]
        lambda: spark.rate_periods(games, periods="2025-11"),  # type: ignore[arg-type]
    ):
        if installed:
            with pytest.raises(TypeError, match=r"games must be a Spark DataFrame, not DataFrame \(use elo_batch"):
                call()
        else:
            with pytest.raises(elo_batch.UsageError, match="the Spark engine needs"):
                call()
    with pytest.raises(elo_batch.UsageError, match="chunk_rows does not apply to the Spark engine"):
        spark.rate_period(games, period="2025-11", chunk_rows=10)  # type: ignore[arg-type]
