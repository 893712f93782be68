"""OpenLineage run events of ``elo-batch run`` (issue 23): off and not imported unless configured the
standard way (``OPENLINEAGE_CONFIG``, ``openlineage.yml``, ``OPENLINEAGE__TRANSPORT__*``); START, then
COMPLETE built from the manifests or FAIL with the error and its exit code; a lineage failure never
fails the run.

The events go through openlineage-python's file transport. Needs ``pip install 'elo-batch[lineage]'``:
skipped without it, except in CI (``CI=true``), where it fails instead (as the Spark tests do).
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import elo_batch.lineage
from elo_batch.lineage.config import configuration
from tests.conftest import ROOT, write_csv
from tests.engines import IN_CI

SAMPLE = ROOT / "sample_data"
GAMES = SAMPLE / "us-championship-2025-games.csv"
LIST = SAMPLE / "ratings-2025-10.csv"
MISSING = None if importlib.util.find_spec("openlineage") else "openlineage-python is not installed"


@pytest.fixture
def openlineage() -> None:
    """Skip without openlineage-python, except under ``CI=true``, where the test fails instead."""
    if MISSING is not None:
        if IN_CI:
            pytest.fail(f"CI runs the lineage tests, but {MISSING}")
        pytest.skip(f"lineage tests skipped: {MISSING} (pip install 'elo-batch[lineage]')")


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder and home of their own, with no OpenLineage variable set."""
    for name in list(os.environ):
        if name.startswith("OPENLINEAGE"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _file_transport(config: Path, events: Path) -> Path:
    config.write_text(f"transport:\n  type: file\n  log_file_path: {events}\n  append: true\n", encoding="utf-8")
    return config


def _events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _manifest(out: Path, period: str) -> dict:
    return json.loads((out / "manifest" / f"period={period}" / "manifest.json").read_text(encoding="utf-8"))


def _run_sample(cli, out: Path, period: str = "2025-10"):
    return cli("run", GAMES, "--ratings", LIST, "--period", period, "--out", out)


def _probe(place: Path, extra: dict[str, str]) -> list[str]:
    """Run the sample in a fresh interpreter; whether it loaded openlineage and the events module."""
    code = (
        "import sys\nfrom elo_batch.cli.app import console\n"
        f"assert console(['run', {str(GAMES)!r}, '--ratings', {str(LIST)!r}, '--period', '2025-10', "
        f"'--out', {str(place / 'out')!r}]) == 0\n"
        "print('openlineage' in sys.modules, 'elo_batch.lineage.events' in sys.modules, file=sys.stderr)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENLINEAGE")} | {"HOME": str(place)} | extra
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=place, env=env, check=True)
    return done.stderr.split()[-2:]


def test_an_unconfigured_run_imports_nothing_of_openlineage(place: Path) -> None:
    assert _probe(place, {}) == ["False", "False"]
    assert not list(place.glob("*.json*"))


def test_a_configured_run_imports_the_client(openlineage, place: Path) -> None:
    config = _file_transport(place / "elsewhere.yml", place / "events.jsonl")
    assert _probe(place, {"OPENLINEAGE_CONFIG": str(config)}) == ["True", "True"]
    assert [event["eventType"] for event in _events(place / "events.jsonl")] == ["START", "COMPLETE"]


def test_openlineage_yml_in_the_working_folder_gives_start_and_complete_from_the_manifest(
    openlineage, cli, place: Path
) -> None:
    _file_transport(place / "openlineage.yml", place / "events.jsonl")
    out = place / "out"
    assert _run_sample(cli, out).exit_code == 0
    start, complete = _events(place / "events.jsonl")
    manifest = _manifest(out, "2025-10")
    assert (start["eventType"], complete["eventType"]) == ("START", "COMPLETE")
    assert start["run"]["runId"] == complete["run"]["runId"]
    assert complete["job"]["name"] == "elo_batch.run" and complete["job"]["namespace"] == "elo-batch"
    inputs = {d["name"]: d for d in complete["inputs"]}
    assert list(inputs) == [str(GAMES), str(LIST)]
    assert {d["namespace"] for d in complete["inputs"]} == {"file"}
    games = inputs[str(GAMES)]
    assert games["inputFacets"]["inputStatistics"]["rowCount"] == manifest["inputs"]["games"][0]["rows"] == 66
    assert games["facets"]["version"]["datasetVersion"] == manifest["inputs"]["games"][0]["sha256"]
    assert inputs[str(LIST)]["inputFacets"]["inputStatistics"]["rowCount"] == 12
    rows = {d["name"]: d["outputFacets"]["outputStatistics"]["rowCount"] for d in complete["outputs"]}
    assert rows == {str(out / table): manifest["rows_written"][table] for table in ("ratings", "audit", "rejected")}
    assert rows[str(out / "audit")] == 132
    (period,) = complete["run"]["facets"]["elo_batch"]["periods"]
    assert period["counts"] == manifest["counts"]
    assert period["counts"]["counted"] == 66
    assert period["manifest"] == str(out / "manifest" / "period=2025-10" / "manifest.json")
    assert complete["run"]["facets"]["nominalTime"]["nominalStartTime"].startswith("2025-10-01T00:00:00")
    assert [d["name"] for d in start["outputs"]] == list(rows) and start["inputs"] == []


def test_openlineage_config_names_the_file_and_a_range_counts_every_period(
    openlineage, cli, place: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (place / "conf").mkdir()
    config = _file_transport(place / "conf" / "lineage.yml", place / "events.jsonl")
    monkeypatch.setenv("OPENLINEAGE_CONFIG", str(config))
    out = place / "out"
    assert _run_sample(cli, out, "2025-10..2025-11").exit_code == 0
    _, complete = _events(place / "events.jsonl")
    periods = complete["run"]["facets"]["elo_batch"]["periods"]
    assert [p["period"] for p in periods] == ["2025-10", "2025-11"]
    assert [p["counts"] for p in periods] == [_manifest(out, "2025-10")["counts"], _manifest(out, "2025-11")["counts"]]
    ratings = next(d for d in complete["outputs"] if d["name"] == str(out / "ratings"))
    assert ratings["outputFacets"]["outputStatistics"]["rowCount"] == 24  # 12 players, two lists
    assert complete["run"]["facets"]["nominalTime"]["nominalEndTime"].startswith("2025-12-01T00:00:00")


def test_last_months_list_read_from_out_is_the_table_the_run_before_wrote(openlineage, cli, place: Path) -> None:
    _file_transport(place / "openlineage.yml", place / "events.jsonl")
    out = place / "out"
    assert _run_sample(cli, out).exit_code == 0
    assert cli("run", GAMES, "--ratings", out / "ratings", "--period", "2025-11", "--out", out).exit_code == 0
    _, first, _, second = _events(place / "events.jsonl")
    assert first["run"]["runId"] != second["run"]["runId"]
    written = {d["name"] for d in first["outputs"]}
    read = [d["name"] for d in second["inputs"]]
    assert read == [str(GAMES), str(out / "ratings")]
    assert read[1] in written
    statistics = second["inputs"][1]["inputFacets"]["inputStatistics"]
    assert statistics["rowCount"] == _manifest(out, "2025-11")["inputs"]["ratings"]["rows"] == 12


def test_a_failing_run_gives_start_and_fail_with_the_exit_code(openlineage, cli, place: Path) -> None:
    _file_transport(place / "openlineage.yml", place / "events.jsonl")
    games = write_csv(place / "bad.csv", "date,white_id,black_id,result\n2025-10-03,A,B,2-0")
    result = cli("run", games, "--ratings", LIST, "--period", "2025-10", "--out", place / "out")
    assert result.exit_code == 65
    start, fail = _events(place / "events.jsonl")
    assert (start["eventType"], fail["eventType"]) == ("START", "FAIL")
    assert start["run"]["runId"] == fail["run"]["runId"]
    facets = fail["run"]["facets"]
    assert facets["elo_batch"]["exitCode"] == 65
    assert "rejected" in facets["errorMessage"]["message"]
    assert facets["errorMessage"]["programmingLanguage"] == "python"
    assert "stackTrace" not in facets["errorMessage"]  # a user's mistake has no traceback
    assert fail["inputs"] == [] and not (place / "out" / "ratings").exists()


def _stop(error: BaseException):
    def on_period(summary) -> None:
        raise error

    return on_period


@pytest.mark.parametrize(
    ("error", "state", "code"), [(RuntimeError("boom"), "FAIL", 70), (KeyboardInterrupt(), "ABORT", None)]
)
def test_a_run_stopped_after_a_period_reports_what_it_wrote(
    openlineage, place: Path, error: BaseException, state: str, code: int | None
) -> None:
    _file_transport(place / "openlineage.yml", place / "events.jsonl")
    out = place / "out"
    with pytest.raises(type(error)):
        elo_batch.run(GAMES, ratings=LIST, period="2025-10..2025-11", out=out, on_period=_stop(error))
    start, end = _events(place / "events.jsonl")
    assert (start["eventType"], end["eventType"]) == ("START", state)
    facets = end["run"]["facets"]
    assert [p["period"] for p in facets["elo_batch"]["periods"]] == ["2025-10"]  # written before the stop
    assert facets["elo_batch"].get("exitCode") == code
    if code == 70:  # a fault of elo-batch: its stack trace
        assert facets["errorMessage"]["message"] == "RuntimeError: boom"
        assert "Traceback (most recent call last)" in facets["errorMessage"]["stackTrace"]
    else:
        assert "errorMessage" not in facets
    assert [d["name"] for d in end["inputs"]] == [str(GAMES), str(LIST)]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_collector_down_warns_once_and_the_run_still_succeeds(
    openlineage, cli, place: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__TYPE", "http")
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__URL", f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__RETRY", '{"total": 0, "connect": 0, "read": 0}')
    result = _run_sample(cli, place / "out")
    assert result.exit_code == 0
    assert result.stderr.count("OpenLineage (configured by OPENLINEAGE__TRANSPORT__TYPE): ConnectionError") == 1
    assert "this run emits no more lineage events (the rating goes on)" in result.stderr
    assert _manifest(place / "out", "2025-10")["counts"]["counted"] == 66


def test_a_transport_that_cannot_write_warns_once(openlineage, cli, place: Path) -> None:
    _file_transport(place / "openlineage.yml", place / "no" / "such" / "folder" / "events.jsonl")
    result = _run_sample(cli, place / "out")
    assert result.exit_code == 0
    assert result.stderr.count(f"OpenLineage (configured by {place / 'openlineage.yml'})") == 1


def test_configured_without_the_client_warns_with_the_extra(cli, place: Path, monkeypatch) -> None:
    _file_transport(place / "openlineage.yml", place / "events.jsonl")
    for name in list(sys.modules):
        if name == "openlineage" or name.startswith("openlineage.") or name == "elo_batch.lineage.events":
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.delattr(elo_batch.lineage, "events", raising=False)  # else `from ... import events` finds it
    monkeypatch.setitem(sys.modules, "openlineage", None)  # `import openlineage` raises ImportError
    result = _run_sample(cli, place / "out")
    assert result.exit_code == 0
    assert "OpenLineage is configured" in result.stderr
    assert "pip install 'elo-batch[lineage]'" in result.stderr
    assert not (place / "events.jsonl").exists()


def test_configuration_is_found_in_the_clients_order(place: Path) -> None:
    home = place / "home"
    (home / ".openlineage").mkdir(parents=True)
    in_home = _file_transport(home / ".openlineage" / "openlineage.yml", place / "e")
    assert configuration({}, cwd=place, home=home) == str(in_home)
    in_cwd = _file_transport(place / "openlineage.yml", place / "e")
    assert configuration({}, cwd=place, home=home) == str(in_cwd)
    named = _file_transport(place / "named.yml", place / "e")
    assert configuration({"OPENLINEAGE_CONFIG": str(named)}, cwd=place, home=home) == str(named)
    assert configuration({"OPENLINEAGE_CONFIG": str(place / "missing.yml")}, cwd=place, home=home) == str(in_cwd)
    assert configuration({"OPENLINEAGE_DISABLED": "TRUE"}, cwd=place, home=home) is None
    assert configuration({}, cwd=home, home=place / "nowhere") is None
    nowhere = place / "nowhere"
    variables = {"OPENLINEAGE__TRANSPORT__URL": "http://x", "OPENLINEAGE__TRANSPORT__TYPE": "http"}
    assert configuration(variables, cwd=nowhere, home=nowhere) == "OPENLINEAGE__TRANSPORT__TYPE"
    assert configuration({"OPENLINEAGE__TRANSPORT__URL": "x"}, cwd=nowhere, home=nowhere) == (
        "OPENLINEAGE__TRANSPORT__URL"
    )
