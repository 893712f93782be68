#!/usr/bin/env python3
"""Count the modules, lines and function body lengths of the package (``elo_batch/``), from its syntax tree.

Usage: python scripts/function_lengths.py [PACKAGE_DIR] [--max-p90 N] [--max N] [--json]
  PACKAGE_DIR  default elo_batch/ of this checkout: every ``.py`` file below it is read (nothing is imported)
  --max-p90 N  exit 1 when the 90th percentile of the body lengths is over N
  --max N      exit 1 when any function's body is over N lines
  --json       one JSON object on stdout instead of the text report

What is counted:
- a module is a ``.py`` file; its lines are all its physical lines (blank, comment and docstring lines too);
- a function is every ``def`` and ``async def``: module functions, methods, and functions nested in
  functions (counted on their own, and also inside their parent's span); lambdas are not functions here;
- a function's body length is the lines from its first statement after the docstring to the last line
  of its last statement (a statement over several lines counts to its last line; a decorated statement
  starts at its first decorator); a function that is only a docstring counts 0;
- p50 and p90 are nearest-rank percentiles: the smallest length that at least 50 % (90 %) of the
  functions do not exceed.

The exit status: 0, or 1 when ``--max-p90`` or ``--max`` is exceeded (the report is printed first, then
one line per limit exceeded on stderr), 2 for a bad command line, 65 when a file does not parse.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PACKAGE = ROOT / "elo_batch"
#: The body lengths whose counts the report gives: functions over 20, over 25 and over 60 lines.
THRESHOLDS = (20, 25, 60)
#: How many of the longest functions the report names.
LONGEST = 15


@dataclass(frozen=True)
class Function:
    """One ``def`` of the package: where it is, its name and its body length.

    Attributes:
        path: The module, relative to the package folder's parent (``elo_batch/cli/app.py``).
        line: The line of the ``def`` keyword (1-based).
        name: The qualified name within its module (``Class.method``, ``outer.inner``).
        length: The body length in lines (see the module doc).
    """

    path: str
    line: int
    name: str
    length: int


def body_length(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The body length of one function: its first statement after the docstring to its last line.

    Args:
        node: The function's node, as :func:`ast.parse` gives it (with line numbers).

    Returns:
        Lines, 0 for a function that is only a docstring.

    >>> body_length(ast.parse('def f():\\n    "Doc."\\n    x = 1\\n    return (x,\\n        2)\\n').body[0])
    3
    """
    body = list(node.body)
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        body = body[1:]
    if not body:
        return 0
    first = body[0]
    start = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", [])])
    end = body[-1].end_lineno or body[-1].lineno
    return end - start + 1


def functions_of(tree: ast.Module, path: str) -> list[Function]:
    """Every function and method of one parsed module, nested ones included, in source order.

    Args:
        tree: The module's syntax tree.
        path: The name recorded for the module in each :class:`Function`.

    Returns:
        One :class:`Function` per ``def`` and ``async def``, named by its enclosing classes and functions.
    """
    found: list[Function] = []

    def visit(node: ast.AST, prefix: str) -> None:
        """Record the functions below ``node``, whose enclosing names are ``prefix``."""
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                found.append(Function(path, child.lineno, prefix + child.name, body_length(child)))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def percentile(lengths: list[int], percent: int) -> int:
    """The nearest-rank percentile: the smallest length that ``percent`` % of ``lengths`` do not exceed.

    Args:
        lengths: Body lengths, in any order.
        percent: 1 to 100.

    Returns:
        The percentile, 0 for no lengths.

    >>> percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90), percentile([5, 1, 3], 50)
    (9, 3)
    """
    if not lengths:
        return 0
    ordered = sorted(lengths)
    return ordered[max(math.ceil(percent / 100 * len(ordered)), 1) - 1]


def measure(package: Path) -> dict:
    """The report of one package folder: modules, lines, functions and their body lengths.

    Args:
        package: The folder whose ``.py`` files (at any depth) are read.

    Returns:
        A JSON-serialisable dict: ``package``, ``modules``, ``lines``, ``functions``, ``p50``, ``p90``,
        ``max``, ``over`` (threshold as text -> count of longer bodies), ``longest`` (the longest first,
        ties by path and line) and ``lengths`` (every function, in path and line order).

    Raises:
        SyntaxError: a file does not parse.
    """
    base = package.resolve().parent
    modules = sorted(package.resolve().rglob("*.py"))
    lines = 0
    functions: list[Function] = []
    for module in modules:
        text = module.read_text(encoding="utf-8")
        lines += len(text.splitlines())
        functions += functions_of(ast.parse(text, filename=str(module)), module.relative_to(base).as_posix())
    lengths = [f.length for f in functions]
    longest = sorted(functions, key=lambda f: (-f.length, f.path, f.line))[:LONGEST]
    return {
        "package": package.resolve().relative_to(base).as_posix(),
        "modules": len(modules),
        "lines": lines,
        "functions": len(functions),
        "p50": percentile(lengths, 50),
        "p90": percentile(lengths, 90),
        "max": max(lengths, default=0),
        "over": {str(t): sum(n > t for n in lengths) for t in THRESHOLDS},
        "longest": [asdict(f) for f in longest],
        "lengths": [asdict(f) for f in functions],
    }


def render(report: dict) -> str:
    """The text report: the counts, one per line, then the longest functions as ``path:line name length``."""
    over = ", ".join(f"over {t}: {n}" for t, n in report["over"].items())
    head = [
        f"package: {report['package']}/",
        f"modules: {report['modules']}",
        f"lines: {report['lines']}",
        f"functions: {report['functions']}",
        f"body lines: p50 {report['p50']}, p90 {report['p90']}, max {report['max']}",
        f"functions {over}",
        f"the {len(report['longest'])} longest:",
    ]
    rows = [f"  {f['path']}:{f['line']} {f['name']} {f['length']}" for f in report["longest"]]
    return "\n".join(head + rows)


def exceeded(report: dict, max_p90: int | None, max_length: int | None) -> list[str]:
    """The limits the report exceeds, one line each (empty: within them, or no limit given)."""
    problems = []
    if max_p90 is not None and report["p90"] > max_p90:
        problems.append(f"body-length p90 {report['p90']} is over --max-p90 {max_p90}")
    if max_length is not None:
        over = [f for f in report["lengths"] if f["length"] > max_length]
        problems += [f"{f['path']}:{f['line']} {f['name']} {f['length']} is over --max {max_length}" for f in over]
    return problems


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (``--help``); argparse exits 2 with a usage message on a bad one."""
    parser = argparse.ArgumentParser(
        prog="function_lengths.py",
        description="Count the modules, lines and function body lengths of a package folder (default: "
        "elo_batch/ of this checkout); exit 1 when --max-p90 or --max is exceeded.",
    )
    parser.add_argument(
        "package", nargs="?", type=Path, default=DEFAULT_PACKAGE, metavar="PACKAGE_DIR",
        help=f"the folder whose .py files are read (default: {DEFAULT_PACKAGE})",
    )  # fmt: skip
    parser.add_argument("--max-p90", type=int, metavar="N", help="exit 1 when the body-length p90 is over N")
    parser.add_argument("--max", type=int, metavar="N", dest="max_length", help="exit 1 when any body is over N")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the text report")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Print the report of ``PACKAGE_DIR``; the exit status (see the module doc)."""
    args = parse_args(argv)
    if not args.package.is_dir():
        print(f"function_lengths.py: error: {args.package}: not a folder", file=sys.stderr)
        return 2
    try:
        report = measure(args.package)
    except SyntaxError as exc:
        print(f"function_lengths.py: error: {exc.filename}, line {exc.lineno}: {exc.msg}", file=sys.stderr)
        return 65
    print(json.dumps(report, indent=2) if args.json else render(report))
    problems = exceeded(report, args.max_p90, args.max_length)
    for problem in problems:
        print(f"function_lengths.py: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
