"""The scripts beside the package (benchmarks/, scripts/) run as ``python benchmarks/X.py``: their folder is
then first on ``sys.path``, so a file named as a standard-library module would be imported in its place."""

from __future__ import annotations

import subprocess
import sys

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
