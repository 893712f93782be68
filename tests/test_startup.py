"""A command imports only what it needs: the CLI, ``import elo_batch`` and ``elo-batch --version`` start
without polars, numpy or rich (issue 13: start-up was 0.2 s of every run, 0.5 s for ``--version``)."""

from __future__ import annotations

import os
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
    """The API's module loads polars; the engine (and numpy) wait for the first period rated."""
    assert _loaded_after("import elo_batch\nelo_batch.rate_period") == ["polars"]
    assert _loaded_after("from elo_batch import UsageError") == []


def test_a_run_reads_its_first_input_before_loading_the_engine(tmp_path) -> None:
    """Start-up is what comes before the first read (issue 24, ``benchmarks/startup.py``): at the first
    ``open`` of an input, polars is loaded and none of numpy, pyarrow, rich, deltalake, duckdb or the
    engine; the run then goes on and rates (the engine loaded)."""
    games = tmp_path / "games.csv"
    games.write_text("date,white_id,black_id,result,white_rating,black_rating\n2025-11-03,A,B,1-0,2000,1900\n")
    heavy = ("polars", "numpy", "pyarrow", "rich", "deltalake", "duckdb", "elo_batch.engine.period")
    code = (
        "import os, sys\n"
        "seen = []\n"
        "def first_read(event, args):\n"
        f"    if event == 'open' and not seen and args and str(args[0]).endswith('games.csv'):\n"
        f"        seen.append([m for m in {heavy!r} if m in sys.modules])\n"
        "sys.addaudithook(first_read)\n"
        "from elo_batch.cli.app import console\n"
        f"code = console(['run', {str(games)!r}, '--period', '2025-11', '--out', {str(tmp_path / 'out')!r}])\n"
        "print(code, *seen[0], file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr.split()[-2:] == ["0", "polars"], done.stderr


def _allocator_options(code: str, env: dict[str, str]) -> tuple[str, list[str]]:
    """``_RJEM_MALLOC_CONF`` after running ``code`` in a fresh interpreter, and the heavy modules loaded."""
    probe = (
        f"import os, sys\n{code}\n"
        f"print(os.environ.get('_RJEM_MALLOC_CONF', ''), file=sys.stdout)\n"
        f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
    )
    clean = {name: value for name, value in os.environ.items() if name != "_RJEM_MALLOC_CONF"}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env={**clean, **env}
    )
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "", done.stderr.split()


def test_the_command_line_sets_polars_allocator_options_before_polars_loads() -> None:
    from elo_batch.cli.app import ALLOCATOR_OPTIONS

    code = "from elo_batch.cli.app import console\nassert console(['--version']) == 0"
    options, loaded = _allocator_options(code, {})
    assert (options, loaded) == (
        "dirty_decay_ms:30000,muzzy_decay_ms:30000,oversize_threshold:65536",
        [],
    )  # set, and polars not yet read it
    assert options == ALLOCATOR_OPTIONS
    # the user's own options are kept; importing the library alone changes nothing
    assert _allocator_options(code, {"_RJEM_MALLOC_CONF": "narenas:1"})[0] == "narenas:1"
    assert _allocator_options("import elo_batch, elo_batch.cli.app", {})[0] == ""


def test_a_local_run_loads_neither_pydantic_nor_a_network_client(tmp_path) -> None:
    """typer 0.29 coerces every option through a pydantic TypeAdapter built at each invocation (0.11 s of
    every run, 28 options of ``run``): the pinned typer reads them as click does. ``urllib.request``
    (ssl, http: 0.03 s) is loaded only for a ``file:`` URL."""
    code = (
        "from elo_batch.cli.app import console\n"
        f"assert console(['run', {str(tmp_path / 'missing.csv')!r}, '--period', '2026-10', "
        f"'--out', {str(tmp_path / 'out')!r}]) == 66\n"
        "print(*(name in sys.modules for name in ('pydantic', 'urllib.request', 'ssl')), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", f"import sys\n{code}"], capture_output=True, text=True, check=True)
    assert done.stderr.split()[-3:] == ["False", "False", "False"], done.stderr
