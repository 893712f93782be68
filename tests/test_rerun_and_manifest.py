"""Re-runs are idempotent (byte-identical files, only the manifest's timestamps differ) and touch only
their period; the manifest records inputs, options, rule set, counts, version and times."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from elo_batch import __version__
from tests.conftest import write_csv

GAMES = """
game_id,date,white_id,black_id,result,event_id
1,2025-11-01,A,B,1-0,open
1,2025-11-01,A,B,1-0,open
2,2025-11-02,C,A,1/2-1/2,open
3,2025-11-03,B,C,+--,open
4,2025-11-04,A,D,0-1,open
5,2025-11-05,A,B,2-0,open
6,2025-12-01,A,C,1-0,open
"""
LIST = "player_id,rating,k,name\nA,2000,20,Ann\nB,1900,20,Bo\nC,2100,10,Cy\n"
TIMESTAMPS = ("started_at", "finished_at")


def _files(out: Path, period: str) -> dict[str, bytes]:
    return {
        table: next((out / table / f"period={period}").iterdir()).read_bytes()
        for table in ("ratings", "audit", "rejected")
    }


def _manifest(out: Path, period: str) -> dict:
    return json.loads((out / "manifest" / f"period={period}" / "manifest.json").read_text())


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_the_same_inputs_give_byte_identical_outputs(cli, tmp_path, fmt) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)
    rating_list = write_csv(tmp_path / "list.csv", LIST)
    args = ["run", games, "--ratings", rating_list, "--period", "2025-11", "--format", fmt]

    assert cli(*args, "--out", tmp_path / "out").exit_code == 0
    first, first_manifest = _files(tmp_path / "out", "2025-11"), _manifest(tmp_path / "out", "2025-11")
    assert cli(*args, "--out", tmp_path / "out").exit_code == 0
    assert cli(*args, "--out", tmp_path / "elsewhere").exit_code == 0

    assert _files(tmp_path / "out", "2025-11") == first
    assert _files(tmp_path / "elsewhere", "2025-11") == first
    second_manifest = _manifest(tmp_path / "out", "2025-11")
    assert {k: v for k, v in second_manifest.items() if k not in TIMESTAMPS} == {
        k: v for k, v in first_manifest.items() if k not in TIMESTAMPS
    }
    assert first["rejected"] and first["audit"]  # every table has rows: the check covers them all


def test_outputs_do_not_depend_on_the_number_of_threads(tmp_path) -> None:
    rows = ["game_id,date,white_id,black_id,result"]
    results = ("1-0", "0-1", "1/2-1/2", "+--", "bad")
    rows += [f"{i},2025-11-{1 + i % 28:02d},P{i % 97},P{(i * 7 + 3) % 101},{results[i % 5]}" for i in range(3000)]
    games = write_csv(tmp_path / "g.csv", "\n".join(rows))
    rating_list = write_csv(
        tmp_path / "l.csv", "player_id,rating\n" + "\n".join(f"P{i},{1500 + 9 * i}" for i in range(101))
    )
    outputs = []
    for threads in ("1", "4"):
        out = tmp_path / f"out{threads}"
        command = [sys.executable, "-m", "elo_batch.cli.app", "run", str(games), "--ratings", str(rating_list)]
        env = {**os.environ, "POLARS_MAX_THREADS": threads}
        done = subprocess.run([*command, "--period", "2025-11", "--out", str(out)], env=env, capture_output=True)
        assert done.returncode == 0, done.stderr
        outputs.append(_files(out, "2025-11"))

    assert outputs[0] == outputs[1]


def test_rerunning_a_period_replaces_only_that_period(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)
    rating_list = write_csv(tmp_path / "list.csv", LIST)
    out = tmp_path / "out"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out", out).exit_code == 0
    december = {p: (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes()) for p in out.glob("*/period=2025-12/*")}
    november = _files(out, "2025-11")

    write_csv(tmp_path / "g.csv", GAMES.replace("5,2025-11-05,A,B,2-0", "5,2025-11-05,A,B,0-1"))
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out).exit_code == 0

    assert len(december) == 4
    assert {p: (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes()) for p in out.glob("*/period=2025-12/*")} == (
        december
    )
    assert _files(out, "2025-11")["ratings"] != november["ratings"]


def test_the_manifest_records_inputs_options_rules_counts_version_and_times(cli, tmp_path) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES)
    rating_list = write_csv(tmp_path / "list.csv", LIST)
    out = tmp_path / "out"
    before = dt.datetime.now(dt.UTC)

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--out", out)

    assert result.exit_code == 0, result.output
    manifest = _manifest(out, "2025-11")
    assert (manifest["tool"], manifest["version"], manifest["period"]) == ("elo-batch", __version__, "2025-11")
    assert manifest["rule_set"]["name"] == "fide-2025-10"
    assert manifest["options"]["periods"] == ["2025-11"]
    assert manifest["options"]["format"] == "parquet"
    for record, path in ((manifest["inputs"]["games"][0], games), (manifest["inputs"]["ratings"], rating_list)):
        assert record["path"] == str(path)
        assert record["size"] == path.stat().st_size
        assert record["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert manifest["inputs"]["games"][0]["rows"] == 7
    # 7 rows: 1 and 2 counted; the repeat of 1, the forfeit 3 and 4 (D unrated) audited; 5 rejected; 6 December
    assert manifest["counts"] == {
        "rows_read": 7,
        "counted": 2,
        "not_counted": 3,
        "other_periods": 1,
        "rejected": 1,
        "reconciles": True,
    }
    assert sorted(manifest["objects"]) == ["audit", "ratings", "rejected"]
    for table, record in manifest["objects"].items():
        path = out / table / "period=2025-11" / "part-0.parquet"
        assert manifest["outputs"][table] == str(path)
        assert record["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert record["size"] == path.stat().st_size
    assert manifest["objects"]["rejected"]["rows"] == 1
    started, finished = (dt.datetime.fromisoformat(manifest[key]) for key in TIMESTAMPS)
    assert before <= started <= finished <= dt.datetime.now(dt.UTC)
