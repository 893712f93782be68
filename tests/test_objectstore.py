"""`--out s3://...` against a local S3-compatible fake (moto's server on a free localhost port)."""

from __future__ import annotations

import hashlib
import io
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import write_csv

moto_server = pytest.importorskip("moto.server")
boto3 = pytest.importorskip("boto3")

GAMES = """
game_id,date,white_id,black_id,result
1,2025-11-03,A,B,1-0
2,2025-12-03,A,B,1/2-1/2
"""
LIST = """
player_id,rating,k
A,2000,20
B,1900,20
"""


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture
def bucket(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> str:
    """A fresh bucket on the fake, and the environment a user would set for an S3-compatible store."""
    for name, value in {
        "AWS_ENDPOINT_URL": s3_endpoint,
        "AWS_ALLOW_HTTP": "true",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    name = "lake-" + hashlib.sha256(request.node.name.encode()).hexdigest()[:12]
    boto3.client("s3", endpoint_url=s3_endpoint).create_bucket(Bucket=name)
    return name


def _keys(bucket: str, prefix: str = "") -> list[str]:
    listing = boto3.client("s3").list_objects_v2(Bucket=bucket, Prefix=prefix)
    return sorted(item["Key"] for item in listing.get("Contents", []))


def _body(bucket: str, key: str) -> bytes:
    return boto3.client("s3").get_object(Bucket=bucket, Key=key)["Body"].read()


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    return write_csv(tmp_path / "games.csv", GAMES), write_csv(tmp_path / "list.csv", LIST)


def test_run_writes_hive_partitions_that_polars_reads_back(cli, bucket: str, inputs) -> None:
    games, rating_list = inputs
    out = f"s3://{bucket}/elo"

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out", out)

    assert result.exit_code == 0, result.output
    assert f"written: {out}/ratings/period=2025-11" in result.stderr
    assert _keys(bucket) == sorted(
        f"elo/{table}/period={period}/{name}"
        for table, name in (
            ("audit", "part-0.parquet"),
            ("manifest", "manifest.json"),
            ("ratings", "part-0.parquet"),
            ("rejected", "part-0.parquet"),
        )
        for period in ("2025-11", "2025-12")
    )
    lake = pl.scan_parquet(f"{out}/ratings/**/*.parquet", hive_partitioning=True).collect()
    # November: D 100 -> PD .64, 0.36 x 20 = 7.2 -> 2007. December: 2007 vs 1893, D 114 -> .66, draw:
    # -0.16 x 20 = -3.2 -> 2004.
    assert lake.filter(pl.col("player_id") == "A").sort("period")["rating"].to_list() == [2007, 2004]
    # the audit's objects leave period to the partition; a hive read shows it (November's win: +0.36 x 20)
    audit = pl.scan_parquet(f"{out}/audit/**/*.parquet", hive_partitioning=True).sort("period", "player_id").collect()
    assert audit.select("period", "player_id", "k_change").rows()[:2] == [("2025-11", "A", 7.2), ("2025-11", "B", -7.2)]
    assert "period" not in pl.read_parquet(io.BytesIO(_body(bucket, "elo/audit/period=2025-11/part-0.parquet"))).columns


def test_manifest_is_written_last_and_names_each_object_with_its_hash(cli, bucket: str, inputs) -> None:
    games, rating_list = inputs
    out = f"s3://{bucket}/elo"

    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out).exit_code == 0

    manifest = json.loads(_body(bucket, "elo/manifest/period=2025-11/manifest.json"))
    for table in ("ratings", "audit", "rejected"):
        key = f"elo/{table}/period=2025-11/part-0.parquet"
        assert manifest["outputs"][table] == f"s3://{bucket}/{key}"
        assert manifest["objects"][table]["sha256"] == hashlib.sha256(_body(bucket, key)).hexdigest()
    assert manifest["counts"]["reconciles"] is True


def test_rerun_replaces_only_that_period_and_removes_its_stale_objects(cli, bucket: str, inputs) -> None:
    games, rating_list = inputs
    out = f"s3://{bucket}/elo"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out", out).exit_code == 0
    december = {key: _body(bucket, key) for key in _keys(bucket, "elo/ratings/period=2025-12/")}

    rerun = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out, "--format", "csv")

    assert rerun.exit_code == 0, rerun.output
    assert _keys(bucket, "elo/ratings/period=2025-11/") == ["elo/ratings/period=2025-11/part-0.csv"]
    assert _keys(bucket, "elo/audit/period=2025-11/") == ["elo/audit/period=2025-11/part-0.csv"]
    assert {key: _body(bucket, key) for key in _keys(bucket, "elo/ratings/period=2025-12/")} == december


def test_rerunning_a_past_period_names_the_later_periods_left_stale_in_the_store(cli, bucket: str, inputs) -> None:
    games, rating_list = inputs
    out = f"s3://{bucket}/elo"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out", out).exit_code == 0

    rerun = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out)

    assert rerun.exit_code == 0, rerun.output
    assert "now stale: 2025-12. Hint: re-run 2025-12 from the new list of 2025-11." in rerun.stderr
    assert json.loads(_body(bucket, "elo/manifest/period=2025-11/manifest.json"))["stale_periods"] == ["2025-12"]


def test_missing_bucket_exits_73_with_a_hint(cli, bucket: str, inputs) -> None:
    games, rating_list = inputs
    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", "s3://no-such-bucket/x")
    assert result.exit_code == 73
    assert "s3://no-such-bucket/x: cannot write period 2025-11" in result.stderr
    assert "Hint: check the bucket name and the credentials" in result.stderr


def test_unknown_scheme_is_a_usage_error(cli, inputs) -> None:
    games, rating_list = inputs
    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", "ftp://host/x")
    assert result.exit_code == 2
    assert "cannot open 'ftp://host/x'" in result.stderr


def test_import_writes_the_games_file_to_the_store(cli, bucket: str) -> None:
    pgn = Path(__file__).parent / "data" / "pgn" / "tatamast22.pgn"
    uri = f"s3://{bucket}/imports/tata.parquet"

    result = cli("import", "pgn", pgn, "-o", uri)

    assert result.exit_code == 0, result.output
    assert pl.read_parquet(uri).height == 91


def test_chart_reads_the_partitions_from_the_store(cli, bucket: str, inputs, tmp_path: Path) -> None:
    games, rating_list = inputs
    out = f"s3://{bucket}/elo"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out", out).exit_code == 0

    result = cli("chart", out, "--player", "A", "-o", tmp_path / "a.png")

    assert result.exit_code == 0, result.output
    assert "A: 2025-11: 2000, 2025-12: 2007, 2026-01: 2004" in result.stderr
