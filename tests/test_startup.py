"""A command imports only what it needs: the CLI, ``import elo_batch`` and ``elo-batch --version`` start
without polars, numpy or rich (issue 13: start-up was 0.2 s of every run, 0.5 s for ``--version``)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("polars", "numpy", "rich", "duckdb", "elo_batch.engine.period")


def _loaded_after(code: str) -> list[str]:
    """The heavy modules loaded after running ``code`` in a fresh interpreter."""
    probe = f"import sys\n{code}\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return done.stderr.split()


def test_importing_the_package_and_the_cli_loads_no_dataframe_library() -> None:
    assert _loaded_after("import elo_batch, elo_batch.cli.app") == []


def test_the_version_is_printed_without_polars() -> None:
    code = "from elo_batch.cli.app import console\nassert console(['--version']) == 0"
    assert _loaded_after(code) == []


def test_a_public_name_is_imported_when_first_used() -> None:
    assert _loaded_after("import elo_batch\nelo_batch.rate_period") == ["polars", "numpy", "elo_batch.engine.period"]
    assert _loaded_after("from elo_batch import UsageError") == []
