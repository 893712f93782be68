"""examples/dagster/ (issue 23): one monthly partition materialised in-process through the public API, the
manifest's counts as its metadata; an elo-batch error fails the partition with its exit code.

Dagster runs with ``DAGSTER_HOME`` a folder of the test's own, telemetry off. Needs dagster (``pip install
-r examples/dagster/requirements.txt``): skipped without it, except in CI (``CI=true``), where it fails.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT
from tests.engines import IN_CI

DEFINITIONS = ROOT / "examples" / "dagster" / "definitions.py"
MISSING = None if importlib.util.find_spec("dagster") else "dagster is not installed"


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The example's definitions, loaded from their file, with a Dagster home in ``tmp_path``."""
    if MISSING is not None:
        if IN_CI:
            pytest.fail(f"CI runs the Dagster example, but {MISSING}")
        pytest.skip(f"Dagster example skipped: {MISSING} (pip install -r examples/dagster/requirements.txt)")
    home = tmp_path / "dagster_home"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    monkeypatch.setenv("DAGSTER_DISABLE_TELEMETRY", "1")
    spec = importlib.util.spec_from_file_location("dagster_example_definitions", DEFINITIONS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _materialize(example: ModuleType, partition: str, out: Path):
    import dagster as dg

    config = dg.RunConfig({"fide_ratings": example.RatingRun(out=str(out))})
    return dg.materialize([example.fide_ratings], partition_key=partition, run_config=config,
                          instance=dg.DagsterInstance.get(), raise_on_error=False)  # fmt: skip


def test_a_partition_is_its_period_with_the_manifests_counts(example: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = _materialize(example, "2025-10-01", out)
    assert result.success
    (materialization,) = result.asset_materializations_for_node("fide_ratings")
    assert materialization.partition == "2025-10-01"
    values = {name: entry.value for name, entry in materialization.metadata.items()}
    manifest = json.loads((out / "manifest" / "period=2025-10" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["period"] == "2025-10"
    assert {name: values[name] for name in manifest["counts"]} == manifest["counts"]
    assert (values["rows_read"], values["counted"], values["rejected"]) == (66, 66, 0)
    assert values["rows_ratings"] == values["dagster/row_count"] == manifest["rows_written"]["ratings"] == 12
    assert values["rows_audit"] == 132
    assert values["manifest"] == str(out / "manifest" / "period=2025-10" / "manifest.json")
    assert not list((tmp_path / "dagster_home").glob("logs/event.log*"))  # telemetry off: no telemetry log


def test_a_month_without_the_list_before_it_fails_its_partition(example: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = _materialize(example, "2025-11-01", out)  # nothing rated for 2025-10 in out yet
    assert not result.success
    assert result.asset_materializations_for_node("fide_ratings") == []
    (failure,) = [event for event in result.all_events if event.is_step_failure]
    data = failure.step_failure_data.user_failure_data
    assert data.metadata["exit_code"].value == 66
    assert data.description.startswith(f"{out / 'ratings'}: no such file")
    assert not (out / "ratings").exists()
