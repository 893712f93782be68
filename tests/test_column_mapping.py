"""Column mapping (``--columns``, ``--list-columns``; API ``columns=``, ``list_columns=``): a raw file rated
without renaming it first.

The 2025 US Championship (sample_data/) with its columns renamed here, as another export would name them,
rates to the same bytes as the original; FIDE published the November ratings checked below
(tests/data/fide-us-championship-2025/players.csv: 5202213 2756 -> 2764, 2093596 2738 -> 2729).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl
import pytest

import elo_batch
from elo_batch.errors import InputDataError, UsageError
from tests.conftest import ROOT, read_table
from tests.engines import IN_CI, MISSING

GAMES = ROOT / "sample_data" / "us-championship-2025-games.csv"
LIST = ROOT / "sample_data" / "ratings-2025-10.csv"
#: The sample's columns as another export names them (matched normalised: "Black Player" is black_player).
THEIRS = {"white_id": "WhitePlayer", "black_id": "Black Player", "result": "Result", "date": "Date", "round": "Round"}
COLUMNS = "white_id=WhitePlayer,black_id=black player,result=Result,date=Date,round=Round"
LIST_THEIRS = {"player_id": "ID", "rating": "Rtg"}
#: FIDE's 1 November 2025 list: players of the sample with no other event in October.
PUBLISHED = {"5202213": 2764, "2093596": 2729}


def _games() -> pl.DataFrame:
    return pl.read_csv(GAMES, infer_schema=False)


def _renamed() -> pl.DataFrame:
    return _games().rename(THEIRS)


def _list() -> pl.DataFrame:
    return pl.read_csv(LIST, infer_schema=False)


def _ratings(result: elo_batch.PeriodResult) -> dict[str, int]:
    return dict(zip(result.ratings["player_id"], result.ratings["rating"], strict=True))


def _same(got: elo_batch.PeriodResult, want: elo_batch.PeriodResult) -> None:
    assert got.ratings.equals(want.ratings)
    assert got.audit.collect().equals(want.audit.collect())
    assert got.audit.collect().height == 132
    assert {player: _ratings(got)[player] for player in PUBLISHED} == PUBLISHED


@pytest.fixture(scope="module")
def original() -> elo_batch.PeriodResult:
    return elo_batch.rate_period(_games(), period="2025-10", ratings=_list())


def _run(cli, folder: Path, games: pl.DataFrame, ratings: pl.DataFrame, *flags: str):
    """``run games.csv`` inside ``folder`` (so that ``source_file`` reads ``games.csv`` either way)."""
    folder.mkdir()
    os.chdir(folder)  # the test's monkeypatch.chdir puts the working folder back
    games.write_csv(folder / "games.csv")
    ratings.write_csv(folder / "list.csv")
    return cli("run", "games.csv", "--ratings", "list.csv", "--period", "2025-10", "--out", folder / "out", *flags)


def test_renamed_csv_files_rate_to_the_same_bytes_with_columns_and_list_columns(cli, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    plain = _run(cli, tmp_path / "plain", _games(), _list(), "--format", "csv")
    mapped = _run(
        cli, tmp_path / "mapped", _renamed(), _list().rename(LIST_THEIRS), "--format", "csv",
        "--columns", COLUMNS, "--list-columns", "player_id=ID,rating=Rtg",
    )  # fmt: skip

    assert plain.exit_code == 0 and mapped.exit_code == 0, mapped.output
    for table in ("ratings", "audit", "rejected"):
        part = Path(table) / "period=2025-10" / "part-0.csv"
        assert (tmp_path / "mapped" / "out" / part).read_bytes() == (tmp_path / "plain" / "out" / part).read_bytes()
    ratings = read_table(tmp_path / "mapped" / "out", "ratings", "2025-10")
    assert {p: int(r) for p, r in zip(ratings["player_id"], ratings["rating"], strict=True) if p in PUBLISHED} == (
        PUBLISHED
    )


def test_the_manifest_records_a_mapping_and_nothing_new_without_one(cli, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    _run(cli, tmp_path / "plain", _games(), _list())
    _run(cli, tmp_path / "mapped", _renamed(), _list().rename(LIST_THEIRS), "--columns", COLUMNS,
         "--list-columns", "Player ID=ID,rating=Rtg")  # fmt: skip

    def options(folder: str) -> dict[str, object]:
        path = tmp_path / folder / "out" / "manifest" / "period=2025-10" / "manifest.json"
        return json.loads(path.read_text(encoding="utf-8"))["options"]

    plain, mapped = options("plain"), options("mapped")
    assert "columns" not in plain and "list_columns" not in plain
    assert mapped["columns"] == {**THEIRS, "black_id": "black player"}
    assert mapped["list_columns"] == LIST_THEIRS  # the canonical name normalised: "Player ID" is player_id
    assert {k: v for k, v in mapped.items() if k not in ("columns", "list_columns")} == plain


def test_a_parquet_file_and_a_frame_rate_as_the_original(tmp_path, original) -> None:
    parquet = tmp_path / "games.parquet"
    _renamed().write_parquet(parquet)
    from_file = elo_batch.rate_period(str(parquet), period="2025-10", ratings=_list(), columns=THEIRS)
    from_frame = elo_batch.rate_period(_renamed(), period="2025-10", ratings=_list(), columns=THEIRS)
    lazy = elo_batch.rate_period(_renamed().lazy(), period="2025-10", ratings=_list(), columns=THEIRS)

    _same(from_frame, original)
    _same(lazy, original)
    assert from_file.ratings.equals(original.ratings)  # the audit's source_file names the Parquet file
    assert from_file.audit.collect().drop("source_file").equals(original.audit.collect().drop("source_file"))


def test_streamed_parquet_inputs_are_mapped_too(tmp_path, original) -> None:
    """Over ``chunk_rows`` the file is scanned, never read whole: the mapping applies to the plan."""
    parquet = tmp_path / "games.parquet"
    _renamed().write_parquet(parquet)
    streamed = elo_batch.rate_period(str(parquet), period="2025-10", ratings=_list(), columns=THEIRS, chunk_rows=10)

    assert streamed.ratings.equals(original.ratings)
    assert streamed.audit.collect().drop("source_file").equals(original.audit.collect().drop("source_file"))


def test_a_file_with_the_canonical_column_too_uses_the_mapped_one(original) -> None:
    """The file's own ``white_id`` (every cell ``X``: it would rate one player against everyone) is dropped."""
    both = _renamed().with_columns(pl.lit("X").alias("white_id"))
    result = elo_batch.rate_period(both, period="2025-10", ratings=_list(), columns=THEIRS)

    _same(result, original)
    assert "X" not in result.ratings["player_id"].to_list()


def test_two_columns_can_swap_names(original) -> None:
    """A file whose colours are swapped: white_id holds black's ids and black_id white's."""
    swapped = _games().rename({"white_id": "black_id", "black_id": "white_id"})
    result = elo_batch.rate_period(
        swapped, period="2025-10", ratings=_list(), columns={"white_id": "black_id", "black_id": "white_id"}
    )
    unmapped = elo_batch.rate_period(swapped, period="2025-10", ratings=_list())

    _same(result, original)
    assert _ratings(unmapped)["5202213"] != PUBLISHED["5202213"]  # the mapping is what made it right


def test_the_list_is_mapped_with_list_columns(original) -> None:
    listed = _list().rename(LIST_THEIRS).with_columns(pl.lit("0").alias("rating"))  # its own rating dropped
    result = elo_batch.rate_period(_games(), period="2025-10", ratings=listed, list_columns=LIST_THEIRS)

    _same(result, original)


def test_a_rejected_rows_raw_keeps_the_files_own_names() -> None:
    games = _renamed().with_columns(
        pl.when(pl.col("Round") == "1").then(pl.lit("2-0")).otherwise("Result").alias("Result")
    )
    result = elo_batch.rate_period(games, period="2025-10", ratings=_list(), columns=THEIRS)

    assert result.rejected.height == 6  # the six games of round 1
    assert result.rejected["column"].unique().to_list() == ["result"]
    raw = json.loads(result.rejected["raw"][0])  # under the file's names as held (normalised), not as mapped
    assert raw["result"] == "2-0" and raw["whiteplayer"] == "1126881" and "white_id" not in raw


@pytest.mark.parametrize(
    ("flag", "value", "text"),
    [
        ("--columns", "white=WhitePlayer", "'white' is not a column of a games file"),
        ("--columns", "white_id", "'white_id' is not a list of CANONICAL=THEIRS pairs"),
        ("--columns", "white_id=", "is not a list of CANONICAL=THEIRS pairs"),
        (
            "--columns",
            "white_id=Player,black_id=player",
            "'white_id' and 'black_id' are both mapped to column 'player'",
        ),
        ("--columns", "white_id=A,white_id=B", "white_id mapped twice"),
        ("--list-columns", "white_id=ID", "'white_id' is not a column of the rating list"),
    ],
)
def test_a_bad_mapping_is_a_usage_error_before_anything_is_read(cli, tmp_path, flag, value, text) -> None:
    result = cli("run", tmp_path / "missing.csv", "--period", "2025-10", "--out", tmp_path / "out", flag, value)

    assert result.exit_code == 2, result.output  # not 66: the missing file is never looked at
    assert f"option {flag}: " in result.output and text in result.output
    assert "Traceback" not in result.output


def test_an_unknown_name_is_refused_naming_the_valid_ones(cli, tmp_path) -> None:
    result = cli("run", GAMES, "--period", "2025-10", "--out", tmp_path / "out", "--columns", "whiteid=WhitePlayer")
    listed = cli("run", GAMES, "--period", "2025-10", "--out", tmp_path / "out", "--list-columns", "elo=Rtg")

    assert result.exit_code == 2 and "map one of white_id, black_id, result, date, period," in result.output
    assert listed.exit_code == 2 and "map one of player_id, rating, k, birth_year" in listed.output


def test_a_mapped_name_missing_from_a_file_is_exit_65_listing_its_columns(cli, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = _run(cli, tmp_path / "run", _renamed(), _list(), "--columns", "white_id=White,black_id=Black Player")
    missing_list = _run(cli, tmp_path / "list", _games(), _list(), "--list-columns", "rating=Rtg")

    assert result.exit_code == 65, result.output
    assert "games.csv: no column White (mapped by --columns white_id=White); the file has game_id, Date, " in (
        result.output
    )
    assert "Hint: give --columns the file's own column names." in result.output
    assert missing_list.exit_code == 65
    assert "list.csv: no column Rtg (mapped by --list-columns rating=Rtg); the file has player_id, rating, k" in (
        missing_list.output
    )
    assert not (tmp_path / "run" / "out").exists()


def test_the_api_raises_the_same_errors() -> None:
    with pytest.raises(UsageError, match="'white' is not a column of a games file") as unknown:
        elo_batch.rate_period(_renamed(), period="2025-10", ratings=_list(), columns={"white": "WhitePlayer"})
    with pytest.raises(UsageError, match=r"'white_id': 3 does not map a column name") as not_text:
        elo_batch.rate_period(_renamed(), period="2025-10", ratings=_list(), columns={"white_id": 3})  # type: ignore[dict-item]
    with pytest.raises(UsageError, match="is not a mapping of column names"):
        elo_batch.validate(_renamed(), ratings=_list(), columns=["white_id"])  # type: ignore[arg-type]
    with pytest.raises(InputDataError, match=r"games: no column White \(mapped by columns white_id=White\)") as gone:
        elo_batch.rate_period(_renamed(), period="2025-10", ratings=_list(), columns={"white_id": "White"})

    assert unknown.value.exit_code == not_text.value.exit_code == 2 and unknown.value.option == "columns"
    assert gone.value.exit_code == 65 and gone.value.path == "games"


def test_rate_periods_and_validate_take_the_mapping(original) -> None:
    months = list(elo_batch.rate_periods(_renamed(), periods="2025-10..2025-11", ratings=_list(), columns=THEIRS))
    report = elo_batch.validate(_renamed(), ratings=_list(), period="2025-10", columns=THEIRS)

    assert months[0].ratings.equals(original.ratings)
    assert report.rows_read == 66 and report.rejected.height == 0


def test_validate_takes_the_flags(cli, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    _renamed().write_csv("games.csv")
    _list().rename(LIST_THEIRS).write_csv("list.csv")
    good = cli("validate", "games.csv", "--ratings", "list.csv", "--period", "2025-10", "--columns", COLUMNS,
               "--list-columns", "player_id=ID,rating=Rtg")  # fmt: skip
    bad = cli("validate", "games.csv", "--ratings", "list.csv", "--list-columns", "player_id=ID,rating=Rtg")

    assert good.exit_code == 0, good.output
    assert "66 rows read = 66 counted" in good.output
    assert (
        bad.exit_code == 65
        and "games.csv: missing columns white_id, black_id; the file has columns game_id, Date" in (bad.output)
    )


@pytest.mark.slow
@pytest.mark.skipif(MISSING is not None and not IN_CI, reason=f"Spark tests skipped: {MISSING}")
def test_the_spark_engine_maps_its_frames_and_its_files(spark, tmp_path, original) -> None:
    from elo_batch import spark as on_spark
    from tests.engines import spark_frame

    frame = on_spark.rate_period(
        spark_frame(spark, _renamed().with_columns(pl.lit("X").alias("white_id")), 2), period="2025-10",
        ratings=_list(), columns=THEIRS,
    )  # fmt: skip
    _renamed().write_csv(tmp_path / "games.csv")
    files = elo_batch.run(
        str(tmp_path / "games.csv"), period="2025-10", out=tmp_path / "out", ratings=_list().rename(LIST_THEIRS),
        columns=THEIRS, list_columns=LIST_THEIRS, engine="spark",
    )  # fmt: skip

    assert pl.from_arrow(frame.ratings.toArrow()).equals(original.ratings)
    assert files[0].counts.rows_read == 66
    written = read_table(tmp_path / "out", "ratings", "2025-10")
    assert written.select("player_id", "rating").equals(original.ratings.select("player_id", "rating"))
