"""The layout stays as docs/architecture.md draws it: modules that say what they own, a CLI that drives the
public API only, a Spark engine that uses the library's public names only, working columns named in one
module, at most three parameters a function takes positionally. The layers themselves (who may import
whom, no circle) are import-linter's contracts in pyproject.toml, run by ``lint-imports`` (.ci/run)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import elo_batch

PACKAGE = Path(elo_batch.__file__).resolve().parent
MODULES = sorted(PACKAGE.rglob("*.py"))
#: What the CLI may import besides ``elo_batch``'s public names (``__all__``), its own modules, the
#: errors and the contract's column names: module -> names, each for a reason.
CLI_ALLOWED = {
    "elo_batch.engine.calculator": {"Change", "SideResult"},  # rendering: the parts of a calculator's result
    "elo_batch.job.sanity": {"mostly_rejected"},  # rendering: when the rejected rows are told loudly
    "elo_batch.config": {"CHUNK_ROWS"},  # the default of --chunk-rows, shown in --help
    "elo_batch.outputs.outlock": {"DEFAULT_TIMEOUT"},  # the default of --lock-timeout, shown in --help
    "elo_batch.storage.objectstore": {"local_path"},  # the chart's PNG may be a file: URL
    "elo_batch.interrupts": {"Terminated", "clear", "record", "stopping"},  # the signal handler records signals
}
CLI_FREE = ("elo_batch.errors", "elo_batch.columns", "elo_batch.choices", "elo_batch.options")  # contract and options


def _name(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_every_module_says_what_it_owns(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if path.name != "__init__.py" or text.count("\n") > 1:
        docstring = ast.get_docstring(ast.parse(text))
        assert docstring and docstring.splitlines()[0].strip(), f"{_name(path)} has no docstring saying what it owns"


def _imports(path: Path) -> list[tuple[int, str, str]]:
    """(line, module, name) of every elo_batch import in a file, function-level ones too."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "elo_batch":
            found += [(node.lineno, node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, "") for alias in node.names if alias.name.split(".")[0] == "elo_batch"]
    return found


def cli_violations(folder: Path) -> list[str]:
    """The imports of the CLI's modules in ``folder`` that reach past the public API."""
    public = set(elo_batch.__all__)
    bad = []
    for path in sorted(folder.glob("*.py")):
        for line, module, name in _imports(path):
            if module.startswith("elo_batch.cli") or module in CLI_FREE:
                ok = not name.startswith("_") or module.startswith("elo_batch.cli")
            elif module == "elo_batch":
                ok = name == "" or name in public or (name == "columns")
            else:
                ok = name in CLI_ALLOWED.get(module, set())
            if not ok:
                bad.append(f"{path.name}:{line}: from {module} import {name or '*'}")
    return bad


def test_the_cli_calls_the_public_api_only() -> None:
    assert cli_violations(PACKAGE / "cli") == []


def test_the_import_check_catches_a_private_import(tmp_path: Path) -> None:
    (tmp_path / "cmd.py").write_text(
        '"""x"""\nimport elo_batch\nfrom elo_batch import rate_period\nfrom elo_batch.job.runner import run\n'
        "def f():\n    from elo_batch.engine.calculator import rate_game\n    from elo_batch.errors import _resolve\n",
        encoding="utf-8",
    )
    assert cli_violations(tmp_path) == [
        "cmd.py:4: from elo_batch.job.runner import run",
        "cmd.py:6: from elo_batch.engine.calculator import rate_game",
        "cmd.py:7: from elo_batch.errors import _resolve",
    ]


def spark_violations(folder: Path) -> list[str]:
    """Private names of the library outside ``elo_batch.sparkengine`` that the Spark engine's modules in
    ``folder`` import or reach through a module (``prepass._period_table``)."""
    bad = []
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = set()  # names bound to the library's other modules and objects
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "elo_batch":
                if node.module == "elo_batch.sparkengine" or node.module.startswith("elo_batch.sparkengine."):
                    continue
                for alias in node.names:
                    if alias.name.startswith("_"):
                        bad.append(f"{path.name}:{node.lineno}: from {node.module} import {alias.name}")
                    modules.add(alias.asname or alias.name)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                bad.append(f"{path.name}:{node.lineno}: {node.value.id}.{node.attr}")
    return bad


def test_the_spark_engine_uses_the_librarys_public_names_only() -> None:
    """What the Spark engine needs of the checks and kernels is a documented function of their module."""
    assert spark_violations(PACKAGE / "sparkengine") == []


def test_the_spark_check_catches_a_private_name(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        '"""x"""\nfrom elo_batch.engine import prepass\nfrom elo_batch.inputs.validate import _check_file\n'
        "from elo_batch.sparkengine import _arrow\nfrom elo_batch.spark import _options\nprepass._period_table()\n"
        "_arrow._own()\n",
        encoding="utf-8",
    )
    assert spark_violations(tmp_path) == [
        "m.py:3: from elo_batch.inputs.validate import _check_file",
        "m.py:5: from elo_batch.spark import _options",
        "m.py:6: prepass._period_table",
    ]


#: The most parameters a function takes positionally (``self``/``cls`` aside); the rest are keyword-only.
MOST_POSITIONAL = 3
#: Functions that may take more, each for a reason: file (relative to the package) -> names.
POSITIONAL_ALLOWED = {
    "cli/calccmd.py": {"game_command", "tournament_command"},  # typer commands: typer passes keywords
    "cli/importcmd.py": {"import_trf_command"},
    "cli/runcmd.py": {"run_command", "validate_command"},
    "sparkengine/_arrow.py": {"source"},  # polars' register_io_source calls it with four positional arguments
}


def positional_overflows(folder: Path, allowed: dict[str, set[str]] = POSITIONAL_ALLOWED) -> list[str]:
    """``file:line: name takes N positionally`` for each function under ``folder`` that takes more than
    :data:`MOST_POSITIONAL` parameters positionally and is not in ``allowed``."""
    bad = []
    for path in sorted(folder.rglob("*.py")):
        where = path.relative_to(folder).as_posix()
        functions = [
            node
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        ]
        for node in sorted(functions, key=lambda node: node.lineno):
            given = [a for a in node.args.posonlyargs + node.args.args if a.arg not in ("self", "cls")]
            if len(given) > MOST_POSITIONAL and node.name not in allowed.get(where, set()):
                bad.append(f"{where}:{node.lineno}: {node.name} takes {len(given)} positionally")
    return bad


def test_no_function_takes_more_than_three_parameters_positionally() -> None:
    """Past the third, a call names its arguments (``rate_period(games, list, rules, period=...)``)."""
    assert positional_overflows(PACKAGE) == []


def test_the_positional_check_catches_a_fourth_parameter(tmp_path: Path) -> None:
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "m.py").write_text(
        "def ok(self, a, b, c, *, d): ...\nclass C:\n    def f(self, a, b, c, d): ...\n"
        "def run_command(a, b, c, d): ...\n",
        encoding="utf-8",
    )
    assert positional_overflows(tmp_path) == [
        "cli/m.py:3: f takes 4 positionally",
        "cli/m.py:4: run_command takes 4 positionally",
    ]
    assert positional_overflows(tmp_path, {"cli/m.py": {"f", "run_command"}}) == []


#: The one module that names working columns (its docstring says what a working column is).
WORKING = PACKAGE / "working.py"
#: Python's own dunder names, the only ``__`` strings allowed elsewhere, and only where Python reads them
#: as such: ``if __name__ == "__main__"``, ``getattr(module, "__file__", ...)``, ``__all__`` naming
#: ``__version__``.
PYTHON_DUNDERS = frozenset({"__main__", "__file__", "__version__"})
_ATTRIBUTE_CALLS = ("getattr", "hasattr", "setattr", "delattr")


def _is_python_dunder(node: ast.Constant, parents: dict[ast.AST, ast.AST]) -> bool:
    """``node`` is one of :data:`PYTHON_DUNDERS` used as Python uses it (see there)."""
    if node.value not in PYTHON_DUNDERS:
        return False
    parent = parents.get(node)
    if isinstance(parent, ast.Compare):
        return any(isinstance(side, ast.Name) and side.id == "__name__" for side in (parent.left, *parent.comparators))
    if isinstance(parent, ast.Call):
        called = parent.func.id if isinstance(parent.func, ast.Name) else ""
        return called in _ATTRIBUTE_CALLS and parent.args[1:2] == [node]
    if isinstance(parent, (ast.List, ast.Tuple)):
        assigned = parents.get(parent)
        targets = assigned.targets if isinstance(assigned, ast.Assign) else []
        return any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets)
    return False


def working_literals(folder: Path, one_module: Path = WORKING) -> list[str]:
    """``file:line: 'text'`` of every string constant (an f-string's literal parts too) of the modules
    under ``folder`` that begins with ``__``, outside ``one_module``, Python's own dunders aside: a
    working column's name written where it is not defined."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        if path == one_module:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        strings = [node for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]
        for node in sorted(strings, key=lambda node: (node.lineno, node.col_offset)):
            if node.value.startswith("__") and not _is_python_dunder(node, parents):
                found.append(f"{path.relative_to(folder.parent).as_posix()}:{node.lineno}: {node.value!r}")
    return found


def test_working_columns_are_named_in_one_module() -> None:
    """Every working column's name is a constant of ``elo_batch/working.py``: none is spelled elsewhere."""
    found = working_literals(PACKAGE)
    assert found == [], f"{len(found)} working column name(s) outside elo_batch/working.py:\n" + "\n".join(found)


def test_the_working_column_check_catches_a_literal(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "working.py").write_text('"""x"""\nIDX = "__idx"\n', encoding="utf-8")
    (package / "m.py").write_text(
        '"""x"""\n__all__ = ["__version__", "f"]\nimport sys\n'
        'def f(name):\n    return getattr(sys, "__file__", None), f"__raw_{name}", "__" + name, "__ragged__"\n'
        'if __name__ == "__main__":\n    print("__main__", {"__file__": 1})\n',
        encoding="utf-8",
    )
    assert working_literals(package, package / "working.py") == [
        "pkg/m.py:5: '__raw_'",
        "pkg/m.py:5: '__'",
        "pkg/m.py:5: '__ragged__'",
        "pkg/m.py:7: '__main__'",
        "pkg/m.py:7: '__file__'",
    ]


def _working_names() -> dict[str, str]:
    """The working module's constants that name a column or a prefix: constant -> its text."""
    tree = ast.parse(WORKING.read_text(encoding="utf-8"))
    names = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0], node.value
        else:
            continue
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            names[target.id] = value.value
    return names


def test_each_working_column_has_one_name_and_one_meaning() -> None:
    """No two constants of the working module share a text (one name, one meaning; a column used under
    a second constant's name is an alias, assigned from the first), every text begins with ``__``, and
    no name begins with a prefix that makes other names (``..._PREFIX``)."""
    names = _working_names()
    assert names and all(text.startswith("__") for text in names.values())
    texts = list(names.values())
    assert sorted(text for text in texts if texts.count(text) > 1) == []
    prefixes = {name: text for name, text in names.items() if name.endswith("_PREFIX")}
    clashes = [(name, other) for other, text in names.items() for name, prefix in prefixes.items()
               if other != name and text.startswith(prefix)]  # fmt: skip
    assert clashes == []


def test_no_output_column_is_named_like_a_working_column() -> None:
    """The outputs' columns are the contract's, never ``__...``: a working column cannot reach a file."""
    from elo_batch import columns as c

    written = {*c.RATINGS_OUTPUT, *c.AUDIT_OUTPUT, *c.REJECTED_OUTPUT}
    assert [name for name in written if name.startswith("__")] == []
