"""scripts/import_layers.py: cycles by kind of import and layer violations, on a small synthetic package."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "import_layers.py"
#: A package named as ours, so that the layers apply: file -> text.
FILES = {
    "__init__.py": '__version__ = "1"\n',
    "errors.py": "",
    "engine/__init__.py": "",
    "engine/period.py": "from elo_batch.inputs.readers import read\nfrom elo_batch import errors\n",
    "inputs/__init__.py": "",
    "inputs/readers.py": "import typing\nif typing.TYPE_CHECKING:\n    from elo_batch.engine import period\n",
    "inputs/csvfile.py": "from elo_batch.inputs.textfile import x\n",
    "inputs/textfile.py": "def f():\n    from . import csvfile\n",
    "outputs/__init__.py": "",
    "outputs/a.py": "from .b import y\n",
    "outputs/b.py": "from elo_batch.outputs.a import z\n",
    "formats/__init__.py": "",
    "formats/pgn.py": "from elo_batch.outputs import a\n",
}


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.fixture
def package(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        (tmp_path / "elo_batch" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "elo_batch" / name).write_text(text, encoding="utf-8")
    return tmp_path / "elo_batch"


def _report(package: Path) -> dict:
    done = _run(package, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_cycles_by_kind_of_import(package: Path) -> None:
    report = _report(package)

    assert report["cycles_top"] == [["elo_batch.outputs.a", "elo_batch.outputs.b"]]
    assert report["cycles_runtime"] == [
        ["elo_batch.inputs.csvfile", "elo_batch.inputs.textfile"],
        ["elo_batch.outputs.a", "elo_batch.outputs.b"],
    ]
    assert ["elo_batch.engine.period", "elo_batch.inputs.readers"] in report["cycles_all"]


def test_the_engine_importing_inputs_is_a_violation_and_formats_to_outputs_is_sideways(package: Path) -> None:
    report = _report(package)

    assert [(v["source"], v["target"], v["kind"]) for v in report["violations"]] == [
        ("elo_batch.engine.period", "elo_batch.inputs.readers", "top"),
        ("elo_batch.inputs.readers", "elo_batch.engine.period", "typing"),
    ]
    assert [(s["source"], s["target"]) for s in report["sideways"]] == [
        ("elo_batch.formats.pgn", "elo_batch.outputs.a")
    ]


def test_check_exits_1_on_a_cycle_or_violation(package: Path) -> None:
    assert _run(package).returncode == 0
    assert _run(package, "--check").returncode == 1
