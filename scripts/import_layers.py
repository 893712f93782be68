#!/usr/bin/env python3
"""The package's imports of its own modules, from its syntax tree: import cycles and layer violations.

Usage: python scripts/import_layers.py [PACKAGE_DIR] [--json] [--check]
  PACKAGE_DIR  default elo_batch/ of this checkout (nothing is imported: the files are parsed)
  --json       one JSON object on stdout instead of the text report
  --check      exit 1 when there is any cycle (of any kind of import) or layer violation

An import is one module naming another of the package (``from elo_batch.x import y``, ``import
elo_batch.x``, relative imports; ``from elo_batch import api`` names the module ``elo_batch.api``), of one
of three kinds: ``top`` (run when the module is imported), ``typing`` (under ``if TYPE_CHECKING:``) and
``deferred`` (inside a function). The parent packages Python also initialises are not counted.

- Cycles are the strongly connected components of more than one module: over ``top`` imports only (the
  loops Python meets at import time), over ``top`` and ``deferred`` (the loops at run time), and over all
  three kinds (the loops of the design; ``elo_batch/__init__.py`` names its API under TYPE_CHECKING and
  imports it on first use, so a module importing the package's ``__version__`` closes such a loop).
- Layers are those docs/architecture.md draws ("Dependencies point one way": cli -> api -> runner ->
  engine -> rules; inputs and outputs beside the engine, never inside it, storage/ below both; the
  contract's types below all), coarser than the import-linter contracts that CI holds (pyproject.toml,
  ``lint-imports``): :data:`LAYERS` gives each module its layer, :data:`MAY_IMPORT` what each layer may
  import. An import of any kind outside that is a violation; formats/ importing outputs/ is reported
  apart as *sideways* (importers write games files). The CLI may import
  every layer here: which names it may take is ``tests/test_layout.py``'s stricter check.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PACKAGE = ROOT / "elo_batch"
#: Module (or package, for everything below it) -> layer; the longest matching name decides.
LAYERS = {
    "elo_batch": "api",
    "elo_batch.api": "api",
    "elo_batch.apiargs": "api",
    "elo_batch.tools": "api",
    "elo_batch.history": "api",
    "elo_batch.cli": "cli",
    "elo_batch.job": "runner",  # the job layer, below the API
    "elo_batch.options": "runner",
    "elo_batch.spark": "api",  # the API's names for Spark frames (an alias), over the API
    "elo_batch.sparkengine": "spark",
    "elo_batch.engine": "engine",
    "elo_batch.inputs": "inputs",
    "elo_batch.outputs": "outputs",
    "elo_batch.formats": "formats",
    "elo_batch.rules": "rules",
    "elo_batch.config": "config",
    "elo_batch.errors": "base",
    "elo_batch.columns": "base",
    "elo_batch.interrupts": "base",
    "elo_batch.working": "base",
    "elo_batch.choices": "base",
    "elo_batch.contract": "base",
    "elo_batch.storage": "storage",
}
_SHARED = {"rules", "config", "base"}
#: Layer -> the other layers it may import (docs/architecture.md; its own layer always).
MAY_IMPORT = {
    "cli": {"api", "runner", "spark", "engine", "inputs", "outputs", "storage", "formats", *_SHARED},
    "api": {"runner", "spark", "engine", "inputs", "outputs", "storage", "formats", *_SHARED},
    "spark": {"runner", "engine", "inputs", "outputs", "storage", *_SHARED},
    "runner": {"engine", "inputs", "outputs", "storage", *_SHARED},
    "formats": {"inputs", "storage", *_SHARED},
    "engine": _SHARED,
    "inputs": {"storage", *_SHARED},
    "outputs": {"storage", *_SHARED},
    "storage": {"base"},
    "config": {"rules", "base"},
    "rules": {"base"},
    "base": set(),
}
#: Imports between layers drawn side by side: reported, not counted as violations.
SIDEWAYS = {("formats", "outputs")}
KINDS = ("top", "typing", "deferred")


@dataclass(frozen=True, order=True)
class Import:
    """One module's import of another module of the package.

    Attributes:
        source: The importing module (``elo_batch.engine.period``).
        target: The module imported.
        line: The import statement's line in ``source``.
        kind: ``top``, ``typing`` or ``deferred`` (see the module doc).
    """

    source: str
    target: str
    line: int
    kind: str


def module_names(package: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file below ``package`` (a package by its ``__init__``)."""
    found = {}
    for path in sorted(package.resolve().rglob("*.py")):
        parts = list(path.relative_to(package.resolve().parent).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: dict[str, Path]) -> list[str]:
    """The package's modules one import statement names (``from a import b``: ``a.b`` when that is a module)."""
    top = module.split(".")[0]
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name.split(".")[0] == top]
    base = node.module or ""
    if node.level:
        here = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
    if base.split(".")[0] != top:
        return []
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]


def imports_of(module: str, path: Path, known: dict[str, Path]) -> list[Import]:
    """Every import of the package's modules in one file, with its kind (see the module doc)."""
    found: list[Import] = []

    def visit(node: ast.AST, kind: str) -> None:
        """Record the imports below ``node``, whose kind is ``kind`` unless a function or TYPE_CHECKING says."""
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                for target in _targets(child, module, path.name == "__init__.py", known):
                    if target != module:
                        found.append(Import(module, target, child.lineno, kind))
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                visit(child, "deferred")
            elif isinstance(child, ast.If) and kind == "top" and "TYPE_CHECKING" in ast.unparse(child.test):
                for statement in child.body:
                    visit(ast.Module(body=[statement], type_ignores=[]), "typing")
                for statement in child.orelse:
                    visit(ast.Module(body=[statement], type_ignores=[]), kind)
            else:
                visit(child, kind)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)), "top")
    return found


def cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted, largest first.

    >>> cycles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e"), ("e", "d")})
    [['a', 'b', 'c'], ['d', 'e']]
    """
    graph: dict[str, list[str]] = {}
    for source, target in sorted(edges):
        graph.setdefault(source, []).append(target)
        graph.setdefault(target, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        """Tarjan's step: number ``node``, follow its edges, pop its component when it is the root."""
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            connect(node)
    return sorted(found, key=lambda c: (-len(c), c))


def layer_of(module: str) -> str | None:
    """The layer :data:`LAYERS` gives a module (its longest matching name), None for one it does not name."""
    names = [name for name in LAYERS if module == name or module.startswith(name + ".")]
    return LAYERS[max(names, key=len)] if names else None


def measure(package: Path) -> dict:
    """The report of one package folder: modules, imports, cycles, layer violations and sideways imports.

    Returns:
        A JSON-serialisable dict: ``modules``, ``imports`` (distinct module pairs per kind), ``cycles_top``,
        ``cycles_runtime`` (``top`` and ``deferred``) and ``cycles_all`` (lists of modules), ``violations``
        and ``sideways`` (one entry per import statement and module imported: source, target, line, kind,
        and the two layers), ``unlayered`` (modules no layer names).

    Raises:
        SyntaxError: a file does not parse.
    """
    known = module_names(package)
    found = sorted({i for module, path in known.items() for i in imports_of(module, path, known)})
    violations: list[dict] = []
    sideways: list[dict] = []
    for imp in found:
        source, target = layer_of(imp.source), layer_of(imp.target)
        if source is None or target is None or source == target or target in MAY_IMPORT.get(source, set()):
            continue
        entry = {**asdict(imp), "from_layer": source, "to_layer": target}
        (sideways if (source, target) in SIDEWAYS else violations).append(entry)
    return {
        "package": package.resolve().name,
        "modules": len(known),
        "imports": {kind: len({(i.source, i.target) for i in found if i.kind == kind}) for kind in KINDS},
        "cycles_top": cycles({(i.source, i.target) for i in found if i.kind == "top"}),
        "cycles_runtime": cycles({(i.source, i.target) for i in found if i.kind != "typing"}),
        "cycles_all": cycles({(i.source, i.target) for i in found}),
        "violations": violations,
        "sideways": sideways,
        "unlayered": sorted(m for m in known if layer_of(m) is None),
    }


def _pairs(entries: list[dict]) -> list[str]:
    """Import entries as ``source -> target (kind, line N)`` lines, one per statement."""
    return [f"  {e['source']} -> {e['target']} ({e['kind']}, line {e['line']})" for e in entries]


def render(report: dict) -> str:
    """The text report: the counts, then each cycle, violation and sideways import."""
    imports = ", ".join(f"{kind} {n}" for kind, n in report["imports"].items())
    lines = [f"modules: {report['modules']}", f"imports between modules (distinct pairs): {imports}"]
    for key, what in (
        ("cycles_top", "at import time (top-level imports)"),
        ("cycles_runtime", "at run time (top-level and deferred imports)"),
        ("cycles_all", "counting every import (TYPE_CHECKING ones too)"),
    ):
        lines.append(f"cycles {what}: {len(report[key])}")
        lines += [f"  {len(c)} modules: {', '.join(c)}" for c in report[key]]
    pairs = {(e["source"], e["target"]) for e in report["violations"]}
    lines.append(f"layer violations: {len(report['violations'])} imports, {len(pairs)} module pairs")
    lines += _pairs(report["violations"])
    lines.append(f"sideways (inputs/formats -> outputs, not counted): {len(report['sideways'])} imports")
    lines += _pairs(report["sideways"])
    if report["unlayered"]:
        lines.append(f"modules without a layer: {', '.join(report['unlayered'])}")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (``--help``); argparse exits 2 with a usage message on a bad one."""
    parser = argparse.ArgumentParser(
        prog="import_layers.py",
        description="The import cycles and layer violations of a package folder (default: elo_batch/ of "
        "this checkout), read from its syntax tree.",
    )
    parser.add_argument(
        "package", nargs="?", type=Path, default=DEFAULT_PACKAGE, metavar="PACKAGE_DIR",
        help=f"the folder whose .py files are read (default: {DEFAULT_PACKAGE})",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the text report")
    parser.add_argument("--check", action="store_true", help="exit 1 on any cycle or layer violation")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Print the report of ``PACKAGE_DIR``; the exit status (1: ``--check`` found a cycle or violation;
    2: a bad command line; 65: a file that does not parse)."""
    args = parse_args(argv)
    if not args.package.is_dir():
        print(f"import_layers.py: error: {args.package}: not a folder", file=sys.stderr)
        return 2
    try:
        report = measure(args.package)
    except SyntaxError as exc:
        print(f"import_layers.py: error: {exc.filename}, line {exc.lineno}: {exc.msg}", file=sys.stderr)
        return 65
    print(json.dumps(report, indent=2) if args.json else render(report))
    failed = args.check and (report["cycles_all"] or report["violations"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
