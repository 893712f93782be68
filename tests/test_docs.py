"""The documentation: the README's first block and length, every relative link, the references generated
from the code (docs/hooks/reference.py) against the code itself, the getting-started examples run on the
sample data, and the site's strict build.

The getting-started page's ``bash`` and ``python`` blocks are run in order in a temporary folder holding
``sample_data/`` and ``tests/data/fidelist/``; a ``text`` block right after a ``bash`` block is that
block's output, and every line of it must be in what the block printed. ``console`` blocks (installs)
are not run.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FIRST_BLOCK = [
    "pip install . && elo-batch run sample_data/us-championship-2025-games.csv --ratings "
    "sample_data/ratings-2025-10.csv --period 2025-10 --out out",
    "pip install '.[test]' && python -m pytest -n auto --dist worksteal",
]
LINK = re.compile(r"\]\(([^)\s]+)\)")
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_reference_hook", DOCS / "hooks" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


# --- the README ---------------------------------------------------------------------------------------


def test_the_readmes_first_block_is_the_two_commands_ci_runs() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")

    first = BLOCK.search(text)

    assert first is not None and first.group(1) == ""
    assert first.group(2).splitlines() == FIRST_BLOCK


def test_the_readme_is_a_short_front_page() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()

    assert len(lines) <= 200
    assert any("docs/getting-started.md" in line for line in lines)


# --- links ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", _pages(), ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    text = BLOCK.sub("", page.read_text(encoding="utf-8"))
    targets = [target for target in LINK.findall(text) if not re.match(r"^(https?|mailto):|^#", target)]

    missing = [target for target in targets if not (page.parent / target.split("#")[0]).exists()]

    assert not missing, f"{page.relative_to(ROOT)}: links to nothing: {missing}"


def test_no_page_links_outside_the_checkout() -> None:
    outside = [
        (page.relative_to(ROOT).as_posix(), target)
        for page in _pages()
        for target in LINK.findall(page.read_text(encoding="utf-8"))
        if not re.match(r"^(https?|mailto):|^#", target)
        and not (page.parent / target.split("#")[0]).resolve().is_relative_to(ROOT)
    ]

    assert not outside  # ../shared is not in a clone


def test_architecture_is_linked_from_the_readme_and_the_site() -> None:
    assert "docs/architecture.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "architecture.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


# --- the generated references -------------------------------------------------------------------------


def _commands() -> list[tuple[str, object]]:
    import typer.main

    from elo_batch.cli.app import app

    return list(_hook()._commands(typer.main.get_command(app), "elo-batch"))


def _sections(markdown: str) -> dict[str, str]:
    """The generated CLI reference cut at its ``## `command``` headings."""
    parts = re.split(r"^## `([^`]+)`$", markdown, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_the_cli_reference_lists_every_command_and_each_of_its_options() -> None:
    sections = _sections(_hook().cli_reference())

    commands = _commands()

    assert {"elo-batch run", "elo-batch validate", "elo-batch import fide-list", "elo-batch report"} <= {
        path for path, _ in commands
    }
    assert list(sections) == [path for path, _ in commands]
    for path, command in commands:
        for param in command.params:  # type: ignore[attr-defined]
            names = [*param.opts, *param.secondary_opts] if param.param_type_name == "option" else [param.name.upper()]
            for name in names:
                assert f"`{name}" in sections[path], f"{path}: {name} is not in the reference"
            if param.param_type_name == "option" and param.help:
                assert " ".join(param.help.split()[:4]).replace("\\[", "[") in sections[path]


def test_the_cli_reference_gives_each_options_choices_and_default() -> None:
    run = _sections(_hook().cli_reference())["elo-batch run"]

    row = next(line for line in run.splitlines() if line.startswith("| `--format` |"))

    assert row.startswith("| `--format` | `parquet` \\| `csv` | `parquet` | Output file type. |")
    assert "| `--period` | text | required |" in run
    assert "| `--lock-timeout` | number (0 <= x) | `600.0` |" in run


def test_the_output_columns_reference_lists_every_column_of_each_table_with_its_meaning() -> None:
    from elo_batch import columns as c

    text = _hook().output_columns()
    tables = dict(zip(*[iter(re.split(r"^### `(\w+)`$", text, flags=re.MULTILINE)[1:])] * 2, strict=True))

    assert list(tables) == ["ratings", "audit", "rejected"]
    for table, names in (("ratings", c.RATINGS_OUTPUT), ("audit", c.AUDIT_OUTPUT), ("rejected", c.REJECTED_OUTPUT)):
        rows = [line for line in tables[table].splitlines() if line.startswith("| `")]
        assert [row.split("`")[1] for row in rows] == list(names)
        assert all(not row.endswith("|  |") for row in rows), f"{table}: a column without its meaning"


def test_every_column_name_of_the_contract_is_in_the_column_reference() -> None:
    from elo_batch import columns as c

    hook = _hook()
    text = hook.input_columns() + hook.output_columns() + hook.audit_values()
    names = {value for name, value in vars(c).items() if name.isupper() and isinstance(value, str)}

    assert names == set(hook.column_meanings())
    assert not [name for name in names - {c.TOURNAMENT, c.MATCH} if f"`{name}`" not in text]


def test_the_input_reference_holds_every_result_token() -> None:
    from elo_batch.contract import schemas

    text = _hook().input_columns()

    for token in [*schemas.RESULTS, *schemas.FORFEITS, *schemas.SCORES, *schemas.ONE_SIDED_FORFEITS]:
        assert f"| `{token}` |" in text
    assert "| `+--` | 1 | no (forfeit, B.02 5.1) |" in text
    assert "| `1/2-1/2` | 0.5 | yes |" in text


def test_the_fide_list_reference_names_every_column_written_and_the_headers_read(tmp_path: Path) -> None:
    import polars as pl

    import elo_batch

    text = _hook().fide_list()
    data = ROOT / "tests" / "data" / "fidelist"
    written = set()
    for name, kind in (("standard_rating_list.txt", None), ("players_list_foa.txt", "rapid")):
        imported = elo_batch.import_fide_list(data / name, tmp_path / f"{name}.parquet", list_kind=kind)
        written |= set(pl.read_parquet(imported.written).columns)

    assert len(written) == 15 and all(f"| `{column}` |" in text for column in written)
    header = (data / "players_list_foa.txt").read_text(encoding="ascii").splitlines()[0]
    labels = ["ID Number", *header.replace("ID Number", "").split()]
    assert [label for label in labels if f"`{label}`" not in text] == []
    assert "the month, such as `NOV25`" in text


def test_the_rule_tables_are_the_csv_files_the_rule_sets_read() -> None:
    hook = _hook()

    assert "| 43 | 392-411 | 0.92 | 0.08 |" in hook.table_8_1_2()
    assert "| 51 | more than 735 | 1.00 | 0.00 |" in hook.table_8_1_2()
    assert "| 0.57 | 50 |" in hook.table_8_1_1() and "| 0.00 | -800 |" in hook.table_8_1_1()
    assert hook.table_8_1_2().count("\n") == 2 + len(hook._csv_rows("table_8_1_2.csv"))
    assert "| international master | 2400 |" in hook.bands()


def test_every_marker_in_the_pages_has_a_generator() -> None:
    hook = _hook()
    markers = {name for page in DOCS.rglob("*.md") for name in hook.MARKER.findall(page.read_text(encoding="utf-8"))}

    assert markers == set(hook.GENERATORS)


def test_sphinx_roles_of_docstrings_are_shown_as_code() -> None:
    html = "see :func:<code>~elo_batch.api.rate_period</code> and :class:<code>PeriodResult</code>"

    assert _hook().on_page_content(html) == "see <code>rate_period</code> and <code>PeriodResult</code>"


# --- the getting-started examples run -------------------------------------------------------------------


def _examples() -> list[tuple[str, str, list[str]]]:
    """(language, code, the lines of the text block shown as its output) for each block that runs."""
    text = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    blocks = [(found.group(1), found.group(2), found.start(), found.end()) for found in BLOCK.finditer(text)]
    examples = []
    for (language, code, _, end), after in zip(blocks, [*blocks[1:], None], strict=True):
        if language not in ("bash", "python"):
            continue
        follows = after is not None and after[0] == "text" and not text[end : after[2]].strip()
        examples.append((language, code, after[1].splitlines() if follows and after else []))
    return examples


@pytest.mark.slow
def test_the_getting_started_examples_run_and_print_what_the_page_shows(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "sample_data", tmp_path / "sample_data")
    shutil.copytree(ROOT / "tests" / "data" / "fidelist", tmp_path / "tests" / "data" / "fidelist")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHON": sys.executable}
    command_line = 'elo-batch() { "$PYTHON" -m elo_batch.cli.app "$@"; }\nset -euo pipefail\n'
    examples = _examples()

    for language, code, shown in examples:
        args = ["bash", "-c", command_line + code] if language == "bash" else [sys.executable, "-c", code]
        done = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        printed = done.stdout + done.stderr
        assert done.returncode == 0, f"{code}\n{printed}"
        assert [line for line in shown if line.strip() not in printed] == [], f"{code}\n{printed}"

    assert sum(1 for language, _, _ in examples if language == "bash") >= 6
    assert sum(1 for _, _, shown in examples if shown) >= 4
    assert (tmp_path / "range" / "ratings" / "period=2025-11" / "part-0.parquet").exists()


# --- the site builds ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="the docs extra is not installed: pip install '.[docs]'")
    pytest.importorskip("mkdocstrings")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"}

    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )

    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "--lock-timeout" in cli and "<!-- generated" not in cli
