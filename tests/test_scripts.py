"""The scripts beside the package (benchmarks/, scripts/) run as ``python benchmarks/X.py``: their folder is
then first on ``sys.path``, so a file named as a standard-library module would be imported in its place."""

from __future__ import annotations

import subprocess
import sys

import polars as pl
import pytest

from tests.conftest import ROOT

FOLDERS = ("benchmarks", "scripts")


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_script_is_named_as_a_standard_library_module(folder: str) -> None:
    shadowing = sorted(path.name for path in (ROOT / folder).glob("*.py") if path.stem in sys.stdlib_module_names)
    assert shadowing == []


@pytest.mark.parametrize("folder", FOLDERS)
def test_cprofile_imports_with_the_scripts_folder_first_on_the_path(folder: str) -> None:
    """What Spark's start needs (``cProfile`` imports ``profile``), with the folder first as when a script
    of it runs."""
    code = f"import sys; sys.path.insert(0, {str(ROOT / folder)!r}); import cProfile; cProfile.Profile"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


#: The scripts whose docstrings hold examples (doctests run on the package only, by pyproject).
DOCTESTED = ("function_lengths.py", "import_layers.py", "output_snapshot.py")


@pytest.mark.parametrize("script", DOCTESTED)
def test_the_examples_in_a_scripts_docstrings_hold(script: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "doctest", str(ROOT / "scripts" / script)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip

    assert done.returncode == 0, done.stdout + done.stderr


CONVERT = ROOT / "scripts" / "convert_deloitte.py"
#: The challenge's test.csv shape: two real games, one decoy (WhiteScore -1), three months.
DELOITTE = "TEID,MonthID,WhitePlayer,BlackPlayer,WhiteScore\n1,133,11,12,1\n2,134,12,13,0.5\n3,135,13,11,-1\n"


def _convert(*args: str, cwd) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CONVERT), *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def test_convert_deloitte_help_names_its_arguments(tmp_path) -> None:
    done = _convert("--help", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert "--out DIR" in done.stdout and "SOURCE_CSV" in done.stdout
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_convert_deloitte_writes_only_into_the_folder_given(tmp_path) -> None:
    source = tmp_path / "test.csv"
    source.write_text(DELOITTE, encoding="utf-8")
    work = tmp_path / "cwd"  # where the command runs (the checkout, say): nothing may appear there
    work.mkdir()

    done = _convert(str(source), "--out", str(tmp_path / "converted"), cwd=work)

    assert done.returncode == 0, done.stderr
    assert list(work.iterdir()) == []
    assert sorted(p.name for p in (tmp_path / "converted").iterdir()) == ["games.parquet", "ratings-2025-09.parquet"]
    games = pl.read_parquet(tmp_path / "converted" / "games.parquet")
    assert games.rows() == [("1", "2025-10", "11", "12", "1-0"), ("2", "2025-11", "12", "13", "1/2-1/2")]
    assert pl.read_parquet(tmp_path / "converted" / "ratings-2025-09.parquet")["player_id"].to_list() == [
        "11",
        "12",
        "13",
    ]


def test_convert_deloitte_without_an_output_folder_writes_nothing(tmp_path) -> None:
    source = tmp_path / "test.csv"
    source.write_text(DELOITTE, encoding="utf-8")
    work = tmp_path / "cwd"
    work.mkdir()

    done = _convert(str(source), cwd=work)

    assert done.returncode == 2
    assert "--out" in done.stderr and "Traceback" not in done.stderr
    assert list(work.iterdir()) == []


def test_convert_deloitte_names_a_missing_source(tmp_path) -> None:
    done = _convert(str(tmp_path / "nothing.csv"), "--out", str(tmp_path / "out"), cwd=tmp_path)

    assert done.returncode == 66
    assert "nothing.csv: no such file" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_spark_profile_reads_each_jobs_tasks_from_the_event_log(tmp_path) -> None:
    """benchmarks/spark_profile.py: a job's tasks are those of its stages, their metrics added up; the job
    keeps the name the engine's step gave it."""
    import importlib.util
    import json

    spec = importlib.util.spec_from_file_location("spark_profile", ROOT / "benchmarks" / "spark_profile.py")
    assert spec is not None and spec.loader is not None
    profile = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(profile)
    start = {"Event": "SparkListenerJobStart", "Job ID": 0, "Submission Time": 1000, "Stage IDs": [3, 4],
             "Properties": {"spark.job.description": "reduce < _reduced < rate_period"}}  # fmt: skip
    task = {"Event": "SparkListenerTaskEnd", "Executor Run Time": 0, "Task Metrics": {
        "Executor Run Time": 1500, "Executor CPU Time": 2_000_000_000, "Result Size": 100,
        "Shuffle Write Metrics": {"Shuffle Bytes Written": 7}}}  # fmt: skip
    events = [start, {**task, "Stage ID": 3}, {**task, "Stage ID": 4}, {**task, "Stage ID": 9},
              {"Event": "SparkListenerJobEnd", "Job ID": 0, "Completion Time": 3500}]  # fmt: skip
    log = tmp_path / "events_1_local"
    log.write_text("".join(json.dumps(event) + "\n" for event in events))

    (job,) = profile.read_log(log)

    assert job["name"] == "reduce < _reduced < rate_period" and job["end"] - job["start"] == 2500
    assert (job["tasks"], job["run_ms"], job["cpu_ms"], job["shuffle"], job["result"]) == (2, 3000, 4000, 14, 200)
