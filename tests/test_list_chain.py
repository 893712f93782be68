"""Last month's list read from `OUT` (`--ratings OUT/ratings`): a ratings table gives the month before the
first period rated (hive folders as a Delta table), and the list is checked against the sha256 that the
period's manifest recorded before it is read (issue 20, fault 5 and its guards; interface.md's last section)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import polars as pl
import polars.selectors as cs
import pytest
from polars.testing import assert_frame_equal

import elo_batch
from tests.conftest import read_table, write_csv

GAMES = """
game_id,date,white_id,black_id,result
1,2025-11-03,A,B,1-0
2,2025-11-04,A,C,1-0
3,2025-11-05,D,B,1-0
4,2025-12-03,A,B,1/2-1/2
5,2025-12-09,C,D,0-1
6,2026-01-05,A,B,1-0
7,2026-01-06,D,C,1/2-1/2
"""
LIST = """
player_id,rating,k,name
A,2000,20,Alice
B,1900,20,Bob
C,2100,10,Carol
D,1800,40,Dan
"""
#: hive Parquet, hive CSV, Delta: the three ways a run writes OUT/ratings.
KINDS = {"parquet": [], "csv": ["--format", "csv"], "delta": ["--table-format", "delta"]}
NO_MANIFEST = "was not checked against a manifest"
FLIPS = 15  # one-bit flips per part file, spread over it from its first byte to its last


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    return write_csv(tmp_path / "games.csv", GAMES), write_csv(tmp_path / "list.csv", LIST)


def ratings(out: Path, period: str, kind: str) -> pl.DataFrame:
    """The list ``period`` wrote to ``out`` as its rows and values (text as text, whatever the format)."""
    if kind == "delta":
        frame = pl.scan_delta(str(out / "ratings")).filter(pl.col("period") == period).collect()
    else:
        frame = read_table(out, "ratings", period).with_columns(cs.categorical().cast(pl.String))
    return frame.select(sorted(frame.columns)).sort("player_id").cast(pl.String)


def part_file(out: Path, period: str = "2025-11") -> Path:
    (found,) = sorted((out / "ratings" / f"period={period}").glob("part-*"))
    return found


def manifest(out: Path, period: str) -> dict:
    return json.loads((out / "manifest" / f"period={period}" / "manifest.json").read_text())


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def chain(cli, out: Path, games: Path, rating_list: Path, kind: str, months: tuple[str, ...]) -> None:
    """Rate the months one run each: the first from ``rating_list``, each next one from ``OUT/ratings``."""
    for index, month in enumerate(months):
        source = rating_list if index == 0 else out / "ratings"
        result = cli("run", games, "--ratings", source, "--period", month, "--out", out, *KINDS[kind])
        assert result.exit_code == 0, result.output
        assert NO_MANIFEST not in result.output


# --- a ratings table gives the month before the first period -----------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_ratings_table_gives_the_month_before_the_first_period(cli, tmp_path: Path, inputs, kind: str) -> None:
    """Months rated one run each, each from `--ratings OUT/ratings` with no `--ratings-period`, give the rows
    of one run over the range; with two months in OUT the hive folders were read as one list before
    ("player 'A' is listed twice with different data ... keep one row per player")."""
    games, rating_list = inputs
    chained, ranged = tmp_path / "chained", tmp_path / "ranged"

    chain(cli, chained, games, rating_list, kind, ("2025-11", "2025-12", "2026-01"))

    whole = cli("run", games, "--ratings", rating_list, "--period", "2025-11..2026-01", "--out", ranged, *KINDS[kind])
    assert whole.exit_code == 0, whole.output
    for month in ("2025-11", "2025-12", "2026-01"):
        assert_frame_equal(ratings(chained, month, kind), ratings(ranged, month, kind))
    january = manifest(chained, "2026-01")["inputs"]["ratings"]["path"]
    assert "period=2025-12" in january or "period 2025-12" in january


@pytest.mark.parametrize("kind", ["parquet", "delta"])
def test_a_month_the_table_lacks_exits_66_naming_the_months_it_holds(cli, tmp_path: Path, inputs, kind) -> None:
    games, rating_list = inputs
    out = tmp_path / "out"
    chain(cli, out, games, rating_list, kind, ("2025-11", "2025-12"))

    for odd in ("period=../x", "period=2025-13", "period=$(id)"):  # folders that are no month: not listed
        (out / "ratings" / odd).mkdir(parents=True, exist_ok=True)

    result = cli("run", games, "--ratings", out / "ratings", "--period", "2026-03", "--out", out, *KINDS[kind])

    assert result.exit_code == 66, result.output
    assert "has no period 2026-02" in result.stderr
    assert "it holds 2025-11, 2025-12; give --ratings-period" in result.stderr
    assert not (out / "ratings" / "period=2026-03").exists()


def test_the_api_reads_a_hive_ratings_table_as_the_cli_does(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    out = tmp_path / "out"
    chain(cli, out, games, rating_list, "parquet", ("2025-11", "2025-12"))

    january = elo_batch.rate_period(games, period="2026-01", ratings=str(out / "ratings"))
    explicit = elo_batch.rate_period(games, period="2026-01", ratings=out / "ratings", ratings_period="2025-12")

    december = read_table(out, "ratings", "2025-12").sort("player_id")
    got = january.ratings.sort("player_id")
    assert got["rating_before"].to_list() == december["rating"].to_list()
    assert_frame_equal(got, explicit.ratings.sort("player_id"))
    with pytest.raises(elo_batch.InputMissingError, match="has no period 2026-02") as raised:
        elo_batch.rate_period(games, period="2026-03", ratings=out / "ratings")
    assert raised.value.exit_code == 66


def test_validate_without_a_period_asks_which_month_of_the_table(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    out = tmp_path / "out"
    chain(cli, out, games, rating_list, "parquet", ("2025-11",))

    result = cli("validate", games, "--ratings", out / "ratings")
    explicit = cli("validate", games, "--ratings", out / "ratings", "--ratings-period", "2025-11")

    assert result.exit_code == 2, result.output
    assert "a ratings table of several periods" in result.stderr and "--ratings-period" in result.stderr
    assert explicit.exit_code == 0, explicit.output


# --- the list is checked against its period's manifest ------------------------------------------------


def flipped(path: Path, offset: int) -> bytes:
    """Flip one bit of ``path`` at ``offset`` (a different bit at each offset); the bytes it held."""
    held = path.read_bytes()
    damaged = bytearray(held)
    damaged[offset] ^= 1 << (offset % 8)
    path.write_bytes(bytes(damaged))
    return held


@pytest.mark.parametrize("kind", KINDS)
def test_a_one_bit_flip_in_last_months_list_exits_65_naming_the_file(cli, tmp_path: Path, inputs, kind) -> None:
    """Fault 5: before, 13 of 15 such runs exited 0 with changed ratings."""
    games, rating_list = inputs
    out = tmp_path / "out"
    chain(cli, out, games, rating_list, kind, ("2025-11",))
    part = part_file(out)
    recorded = sha256(part)
    size = part.stat().st_size

    codes = []
    for offset in sorted({round(i * (size - 1) / (FLIPS - 1)) for i in range(FLIPS)}):
        held = flipped(part, offset)
        result = cli("run", games, "--ratings", out / "ratings", "--period", "2025-12", "--out", out, *KINDS[kind])
        codes.append(result.exit_code)
        actual = sha256(part)
        part.write_bytes(held)
        assert result.exit_code == 65, (offset, result.output)
        assert str(part) in result.stderr and recorded in result.stderr and actual in result.stderr, result.stderr
        assert "re-run period 2025-11" in result.stderr
        assert "Traceback" not in result.output
    assert codes == [65] * FLIPS
    assert not (out / "manifest" / "period=2025-12").exists()  # nothing written
    chain(cli, out, games, rating_list, kind, ("2025-12",))  # untouched again: the chain goes on


@pytest.mark.parametrize("named", ["folder", "file"])
def test_the_partition_folder_or_file_named_as_the_list_is_checked_too(cli, tmp_path: Path, inputs, named) -> None:
    games, rating_list = inputs
    out = tmp_path / "out"
    chain(cli, out, games, rating_list, "parquet", ("2025-11",))
    part = part_file(out)
    source = part if named == "file" else part.parent

    clean = cli("run", games, "--ratings", source, "--period", "2025-12", "--out", tmp_path / "clean")
    flipped(part, part.stat().st_size // 2)
    damaged = cli("run", games, "--ratings", source, "--period", "2025-12", "--out", tmp_path / "damaged")

    assert clean.exit_code == 0 and NO_MANIFEST not in clean.output, clean.output
    assert damaged.exit_code == 65 and str(part) in damaged.stderr, damaged.output


def test_a_file_the_manifest_does_not_name_in_the_partition_exits_65(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    out = tmp_path / "out"
    chain(cli, out, games, rating_list, "parquet", ("2025-11",))
    planted = part_file(out).with_name("part-1.parquet")
    pl.DataFrame({"player_id": ["Z"], "rating": [2900]}).write_parquet(planted)

    result = cli("run", games, "--ratings", out / "ratings", "--period", "2025-12", "--out", out)

    assert result.exit_code == 65, result.output
    assert str(planted) in result.stderr and "not the file the manifest of period 2025-11 names" in result.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_a_list_without_its_manifest_warns_and_the_run_goes_on(cli, tmp_path: Path, inputs, kind: str) -> None:
    """Into another OUT: in its own, a Delta period whose manifest is gone is rolled back by the next run
    (the manifest is its commit point, see elo_batch.outputs.delta)."""
    games, rating_list = inputs
    checked, bare, out = tmp_path / "checked", tmp_path / "bare", tmp_path / "out"
    chain(cli, checked, games, rating_list, kind, ("2025-11", "2025-12"))
    chain(cli, bare, games, rating_list, kind, ("2025-11",))
    shutil.rmtree(bare / "manifest" / "period=2025-11")

    result = cli("run", games, "--ratings", bare / "ratings", "--period", "2025-12", "--out", out, *KINDS[kind])

    assert result.exit_code == 0, result.output
    assert "not written by elo-batch, or its manifest is missing" in result.stderr
    assert f"{NO_MANIFEST} ({bare / 'manifest' / 'period=2025-11' / 'manifest.json'})" in result.stderr
    assert_frame_equal(ratings(out, "2025-12", kind), ratings(checked, "2025-12", kind))


@pytest.mark.parametrize(
    "damage",
    ['{"objects": {"ratings": ', '{"objects": ' + "[" * 100_000 + "]" * 100_000 + "}", '{"period": "2025-10"}'],
    ids=["cut", "deep", "other-period"],
)
def test_a_damaged_manifest_exits_65_naming_it(cli, tmp_path: Path, inputs, damage: str) -> None:
    """A manifest cut short, nested past Python's recursion limit (was exit 70, RecursionError), or one
    that names another period (moved or copied: was accepted)."""
    games, rating_list = inputs
    out = tmp_path / "out"
    chain(cli, out, games, rating_list, "parquet", ("2025-11",))
    written = out / "manifest" / "period=2025-11" / "manifest.json"
    written.write_text(damage, encoding="utf-8")

    result = cli("run", games, "--ratings", out / "ratings", "--period", "2025-12", "--out", out)

    assert result.exit_code == 65, result.output
    problem = "names period '2025-10', not the period of its folder" if "period" in damage else "cannot be read"
    assert f"{written}: the manifest of period 2025-11 {problem}" in result.stderr


# --- Delta: the manifest names each file's sha256 and the version to read --------------------------


def test_the_delta_manifest_records_each_data_files_sha256(cli, tmp_path: Path, inputs) -> None:
    games, rating_list = inputs
    out = tmp_path / "out"
    chain(cli, out, games, rating_list, "delta", ("2025-11",))

    written = manifest(out, "2025-11")["delta"]

    for table in ("ratings", "audit", "rejected"):
        files = written[table]["files"]
        assert written[table]["sha256"] == {file: sha256(out / table / file) for file in files}
    assert len(written["ratings"]["sha256"]) == 1


def test_a_delta_list_is_read_at_the_version_its_manifest_names(cli, tmp_path: Path, inputs) -> None:
    """Another writer's later commit of the period (here: A made 2999) is not the list that period wrote."""
    games, rating_list = inputs
    out = tmp_path / "out"
    chain(cli, out, games, rating_list, "delta", ("2025-11",))
    written = pl.scan_delta(str(out / "ratings")).filter(pl.col("period") == "2025-11").collect()
    changed = written.with_columns(pl.when(pl.col("player_id") == "A").then(2999).otherwise("rating").alias("rating"))
    changed.write_delta(str(out / "ratings"), mode="overwrite", delta_write_options={"predicate": "period = '2025-11'"})

    result = cli("run", games, "--ratings", out / "ratings", "--period", "2025-12", "--out", tmp_path / "next")

    assert result.exit_code == 0, result.output
    listed = manifest(tmp_path / "next", "2025-12")["inputs"]["ratings"]["path"]
    assert listed == f"{out / 'ratings'} (Delta table, period 2025-11, version 0)"
    before = read_table(tmp_path / "next", "ratings", "2025-12").sort("player_id")
    assert before["rating_before"].to_list() == written.sort("player_id")["rating"].to_list()
    assert (
        "latest version holds other files of period 2025-11 than version 0, which the period's manifest"
        in result.stderr
    )


@pytest.mark.parametrize("kind", ["parquet", "delta"])
def test_a_manifest_an_older_elo_batch_wrote_warns_that_the_list_is_unchecked(cli, tmp_path, inputs, kind) -> None:
    """Manifests without the sha256 (hive: no ``objects``; Delta: no ``sha256`` of the files) are read, with a
    warning, so that an OUT written before is not refused; the Delta version they name is still the one read."""
    games, rating_list = inputs
    checked, old = tmp_path / "checked", tmp_path / "old"
    chain(cli, checked, games, rating_list, kind, ("2025-11", "2025-12"))
    chain(cli, old, games, rating_list, kind, ("2025-11",))
    where = old / "manifest" / "period=2025-11" / "manifest.json"
    record = json.loads(where.read_text())
    if kind == "delta":
        del record["delta"]["ratings"]["sha256"]
    else:
        del record["objects"]
    where.write_text(json.dumps(record))

    result = cli("run", games, "--ratings", old / "ratings", "--period", "2025-12", "--out", old, *KINDS[kind])

    assert result.exit_code == 0, result.output
    assert "(an older elo-batch wrote it)" in result.stderr
    assert_frame_equal(ratings(old, "2025-12", kind), ratings(checked, "2025-12", kind))
