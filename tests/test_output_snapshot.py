"""scripts/output_snapshot.py: what it normalises, what it records, and that a case run twice reads the same."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "output_snapshot.py"


def _load():
    spec = importlib.util.spec_from_file_location("output_snapshot", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["output_snapshot"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


snap = _load()


def _script(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=300, check=False
    )


def test_every_golden_case_runs_in_both_formats() -> None:
    names = {case.name for case in snap.cases()}
    golden = sorted(p.name for p in (ROOT / "tests" / "golden").iterdir() if p.is_dir())

    assert {f"golden/{g}/{fmt}" for g in golden for fmt in ("parquet", "csv")} <= names
    assert {"readme/sample", "readme/sample-csv", "delta/readme-sample"} <= names


def test_normalise_leaves_out_the_clock_and_run_id_and_replaces_paths_and_uuids(tmp_path: Path) -> None:
    manifest = {
        "period": "2025-10",
        "started_at": "2026-01-01T00:00:00+00:00",
        "finished_at": "2026-01-01T00:00:01+00:00",
        "run_id": "0f705f5820d4477f920f93311f060bdb",
        "outputs": {"ratings": f"{tmp_path}/out/ratings/period=2025-10/part-0.parquet"},
        "delta": {"files": ["period=2025-10/part-00000-076e102a-45ec-40af-8436-e3b63e7005a3-c000.zstd.parquet"]},
    }

    assert snap.normalise(manifest, tmp_path) == {
        "period": "2025-10",
        "outputs": {"ratings": "<TMP>/out/ratings/period=2025-10/part-0.parquet"},
        "delta": {"files": ["period=2025-10/part-00000-<uuid>-c000.zstd.parquet"]},
    }


def test_outputs_records_a_manifest_as_json_the_lock_by_its_keys_and_a_file_by_sha256(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "manifest" / "period=2025-10").mkdir(parents=True)
    (out / "manifest" / "period=2025-10" / "manifest.json").write_text('{"period": "2025-10", "started_at": "x"}')
    (out / ".elo-batch.lock").write_text('{"pid": 1, "host": "h", "started_at": "t", "token": "0"}')
    (out / "ratings.csv").write_text("a\n")

    files, tables = snap.outputs(out, tmp_path)

    assert files == {
        ".elo-batch.lock": {"keys": ["host", "pid", "started_at", "token"]},
        "manifest/period=2025-10/manifest.json": {"json": {"period": "2025-10"}},
        "ratings.csv": {"sha256": "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7"},
    }
    assert tables == {}


def test_differences_show_a_changed_text_as_a_unified_diff() -> None:
    found = snap.differences({"c": {"stderr": "a\nb\n"}}, {"c": {"stderr": "a\nB\n"}})

    assert len(found) == 1
    assert found[0].startswith("c.stderr:\n") and "-b\n+B" in found[0]


@pytest.mark.parametrize("name", ["readme/sample", "delta/readme-sample"])
def test_a_case_run_twice_is_recorded_the_same(name: str) -> None:
    case = next(case for case in snap.cases() if case.name == name)

    first, second = snap.run_case(case), snap.run_case(case)

    assert first["exit_code"] == 0, first["stderr"]
    assert first == second
    assert "<TMP>/out" in first["stderr"]


def test_compare_prints_each_difference_and_exits_1(tmp_path: Path) -> None:
    case = next(case for case in snap.cases() if case.name == "cli/missing-input")
    record = snap.run_case(case)
    record["stderr"] = record["stderr"].replace("no such file", "not found")
    saved = tmp_path / "snapshot.json"
    saved.write_text(json.dumps({"environment": snap.environment(), "cases": {case.name: record}}))

    done = _script("compare", saved, "--only", "cli/missing-input")

    assert done.returncode == 1, done.stderr
    assert "cli/missing-input.stderr:" in done.stdout and "+elo-batch: error: no-such-games.csv: no such file" in (
        done.stdout
    )
    assert "1 difference(s) in 1 cases" in done.stdout


def test_compare_without_a_snapshot_exits_66(tmp_path: Path) -> None:
    done = _script("compare", tmp_path / "missing.json")

    assert done.returncode == 66
    assert "missing.json: no such file" in done.stderr
