#!/usr/bin/env python3
"""Snapshot what a user sees of ``elo-batch`` (exit codes, stdout, stderr, every file written), and compare.

Usage: python scripts/output_snapshot.py write SNAPSHOT.json [--jobs N]
       python scripts/output_snapshot.py compare SNAPSHOT.json [--jobs N] [--only TEXT]
  write        run every case (below) and write the snapshot, JSON
  compare      run every case again and print each difference from SNAPSHOT.json; exit 1 if there is any
  --jobs N     how many commands run at once (default 1; the whole snapshot takes about 90 s on one core)
  --only TEXT  compare only the cases whose name holds TEXT (``golden/fide-``, ``delta/``, ``cli/``)

The command line runs as the console script does (``elo_batch.cli.app:console``, there is no
``python -m elo_batch``), in a process of its own, from the root of this checkout (its folder first on
``PYTHONPATH``, so the checkout is what runs, whatever is installed), each run into a fresh temporary
``--out``. The cases:

- ``golden/<case>/parquet`` and ``golden/<case>/csv``: every case of ``tests/golden`` with the arguments
  ``tests/test_golden.py`` gives it (``games.csv``, ``--ratings ratings.csv`` and ``--events events.csv``
  where the case has them, its ``args``, ``--out``), with the default output format and with
  ``--format csv``;
- ``readme/sample`` and ``readme/sample-csv``: the README's sample command (the US Championship, period
  2025-10), and the README's worked example of it (``--format csv``);
- ``delta/<case>``: three of them with ``--table-format delta`` (the sample; a range of two periods; a
  case with rejected rows);
- ``cli/<name>``: a few more of what a user sees: JSON logs, ``validate``, ``--strict`` refusing rejected
  rows (65), a missing input (66), a bad flag value (2), the ``game`` calculator.

What is recorded per case: the arguments, the exit code, stdout and stderr, and each file under ``--out``
by its relative path: the SHA-256 of its bytes, except

- ``manifest.json`` files, stored as their JSON without ``started_at``, ``finished_at`` (the clock) and
  ``run_id`` (a random uuid, Delta only);
- ``.elo-batch.lock``, the output lock's record of its last holder: all four values (pid, host, start
  time, a random token) are volatile, so only its keys are kept;
- Delta tables (a folder with ``_delta_log``): their log holds the clock and uuids, their data files
  are named by a uuid; stored instead are the table read back (``polars.read_delta``, rows sorted by
  every column) as the SHA-256 of its CSV, its row count, schema, partition columns and version, the
  data files' names with the uuid replaced, and per commit the operation, the kinds of actions and
  elo-batch's own commit metadata (normalised as a manifest is).

In every text kept (stdout, stderr, manifests, Delta commit metadata) the temporary folder is replaced by
``<TMP>``, this checkout's path by ``<ROOT>`` and a uuid in the 8-4-4-4-12 form (in Delta's data file
names) by ``<uuid>``. That is all that is normalised, and all that is volatile, as measured on this code:
two runs of the sample into two folders (Parquet, CSV and Delta output) differed only in the manifest's
``started_at``, ``finished_at``, ``run_id`` and absolute ``outputs`` paths, the lock's record, the Delta
logs (commit times, table ids, locations) and the uuids of Delta's data file names; the bytes of every
Parquet and CSV file, Delta's data files included, were the same (a Delta manifest's SHA-256 of its data
files is kept). Writing the snapshot twice (one command at a time, then two, each process with its own
hash seed) gave the same file. The snapshot also records the versions of Python, polars, pyarrow and
deltalake: Parquet bytes may change with them, so ``compare`` says when they differ from the snapshot's
(it does not count that as a difference).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
#: The console script's entry point, run as ``python -c`` (``sys.argv[0]`` as the console script has it).
CONSOLE = "import sys; from elo_batch.cli.app import console; sys.argv[0] = 'elo-batch'; sys.exit(console())"
#: Where a case's ``--out`` goes in its arguments (replaced by the temporary folder's ``out``).
OUT = "<OUT>"
SAMPLE = [
    "sample_data/us-championship-2025-games.csv",
    "--ratings",
    "sample_data/ratings-2025-10.csv",
    "--period",
    "2025-10",
]
MONTH = ("--period", "2025-10")
#: The golden cases also run with ``--table-format delta``: one range of two periods, one with rejected rows.
DELTA_CASES = ("fide-event-start-list-range", "fide-game-entered-twice")
#: Manifest (and Delta commit metadata) keys whose values differ run to run: the clock and a random id.
VOLATILE_KEYS = frozenset({"started_at", "finished_at", "run_id"})
LOCK_FILE = ".elo-batch.lock"
UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
PACKAGES = ("polars", "pyarrow", "deltalake")


@dataclass(frozen=True)
class Case:
    """One command of the snapshot: its name and its arguments (``<OUT>`` for the temporary ``--out``)."""

    name: str
    args: tuple[str, ...]


def _golden_args(case: Path) -> list[str]:
    """The arguments ``tests/test_golden.py`` runs a golden case with, but ``--out`` and ``--format``."""
    relative = case.relative_to(ROOT).as_posix()
    ratings = ["--ratings", f"{relative}/ratings.csv"] if (case / "ratings.csv").exists() else []
    events = ["--events", f"{relative}/events.csv"] if (case / "events.csv").exists() else []
    return ["run", f"{relative}/games.csv", *ratings, *events, *shlex.split((case / "args").read_text())]


def cases() -> list[Case]:
    """Every case of the snapshot, in the order it records them (see the module doc)."""
    found = []
    for case in sorted(p for p in GOLDEN.iterdir() if p.is_dir()):
        args = _golden_args(case)
        found.append(Case(f"golden/{case.name}/parquet", (*args, "--out", OUT)))
        found.append(Case(f"golden/{case.name}/csv", (*args, "--out", OUT, "--format", "csv")))
    found.append(Case("readme/sample", ("run", *SAMPLE, "--out", OUT)))
    found.append(Case("readme/sample-csv", ("run", *SAMPLE, "--out", OUT, "--format", "csv")))
    found.append(Case("delta/readme-sample", ("run", *SAMPLE, "--out", OUT, "--table-format", "delta")))
    for name in DELTA_CASES:
        found.append(Case(f"delta/{name}", (*_golden_args(GOLDEN / name), "--out", OUT, "--table-format", "delta")))
    twice = _golden_args(GOLDEN / "fide-game-entered-twice")
    found += [
        Case("cli/sample-json-logs", ("run", *SAMPLE, "--out", OUT, "--log-format", "json")),
        Case("cli/validate-sample", ("validate", *SAMPLE)),
        Case("cli/validate-rejected-rows", ("validate", *twice[1:])),
        Case("cli/strict-refuses-rejected-rows", (*twice, "--out", OUT, "--strict")),
        Case("cli/missing-input", ("run", "no-such-games.csv", "--period", "2025-10", "--out", OUT)),
        Case("cli/bad-format", ("run", *SAMPLE, "--out", OUT, "--format", "xlsx")),
        # the README's calculator example, with a period: its default is this month, which would date the snapshot
        Case("cli/game-calculator", ("game", "2700", "2100", "--result", "1", "--k", "10", "--k-b", "20", *MONTH)),
    ]
    return found


def _scrub(text: str, tmp: Path) -> str:
    """``text`` with the temporary folder, this checkout and uuids replaced by placeholders."""
    for path, placeholder in ((tmp.resolve(), "<TMP>"), (tmp, "<TMP>"), (ROOT, "<ROOT>")):
        text = text.replace(str(path), placeholder)
    return UUID.sub("<uuid>", text)


def normalise(value: Any, tmp: Path) -> Any:
    """A manifest's (or Delta commit metadata's) JSON value without its volatile keys, its text scrubbed.

    Args:
        value: Parsed JSON.
        tmp: The run's temporary folder (replaced by ``<TMP>`` in text).

    Returns:
        A copy: :data:`VOLATILE_KEYS` left out of every object, every string passed through :func:`_scrub`.
    """
    if isinstance(value, dict):
        return {_scrub(k, tmp): normalise(v, tmp) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [normalise(v, tmp) for v in value]
    return _scrub(value, tmp) if isinstance(value, str) else value


def _delta_table(folder: Path, tmp: Path) -> dict[str, Any]:
    """What a Delta table holds, without its log's clock and uuids (see the module doc)."""
    import polars as pl  # only here: ``write`` and ``compare`` need it, ``--help`` does not

    table = pl.read_delta(str(folder))
    table = table.sort(table.columns) if table.height else table
    commits, partitions = [], None
    for log in sorted((folder / "_delta_log").glob("*.json")):
        actions = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
        info: dict[str, Any] = next((a["commitInfo"] for a in actions if "commitInfo" in a), {})
        partitions = next((a["metaData"]["partitionColumns"] for a in actions if "metaData" in a), partitions)
        commits.append(
            {
                "log": log.name,
                "operation": info.get("operation"),
                "actions": sorted(key for action in actions for key in action),
                "elo_batch": normalise(json.loads(info["elo_batch"]), tmp) if "elo_batch" in info else None,
            }
        )
    data = sorted(
        _scrub(p.relative_to(folder).as_posix(), tmp)
        for p in folder.rglob("*")
        if p.is_file() and "_delta_log" not in p.relative_to(folder).parts
    )
    return {
        "rows": table.height,
        "schema": [[name, str(dtype)] for name, dtype in table.schema.items()],  # in column order
        "csv_sha256": hashlib.sha256(table.write_csv().encode()).hexdigest(),
        "partition_columns": partitions,
        "version": len(commits) - 1,
        "data_files": data,
        "commits": commits,
    }


def outputs(out: Path, tmp: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The files of one run's ``out``: (relative path -> record, Delta table path -> :func:`_delta_table`).

    A manifest is recorded as ``{"json": ...}`` (normalised), the lock as ``{"keys": [...]}``, any other
    file as ``{"sha256": ...}``; the files inside a Delta table are described by the table only.
    """
    if not out.exists():
        return {}, {}
    tables = sorted(log.parent for log in out.rglob("_delta_log") if log.is_dir())
    files: dict[str, Any] = {}
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        if any(path.is_relative_to(table) for table in tables):
            continue
        relative = path.relative_to(out).as_posix()
        if path.name == "manifest.json":
            files[relative] = {"json": normalise(json.loads(path.read_text(encoding="utf-8")), tmp)}
        elif path.name == LOCK_FILE:
            files[relative] = {"keys": sorted(json.loads(path.read_text(encoding="utf-8")))}
        else:
            files[relative] = {"sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    return files, {table.relative_to(out).as_posix(): _delta_table(table, tmp) for table in tables}


def run_case(case: Case) -> dict[str, Any]:
    """Run one case in a fresh temporary folder; what the snapshot records of it (see the module doc)."""
    with tempfile.TemporaryDirectory(prefix="elo-batch-snapshot-") as name:
        tmp = Path(name)
        out = tmp / "out"
        args = [str(out) if a == OUT else a for a in case.args]
        env = {k: v for k, v in os.environ.items() if not k.startswith("ELO_BATCH_")}
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
        done = subprocess.run(
            [sys.executable, "-c", CONSOLE, *args],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        files, tables = outputs(out, tmp)
        record: dict[str, Any] = {
            "args": list(case.args),
            "exit_code": done.returncode,
            "stdout": _scrub(done.stdout, tmp),
            "stderr": _scrub(done.stderr, tmp),
            "files": files,
        }
        if tables:
            record["delta_tables"] = tables
        return record


def environment() -> dict[str, str]:
    """The versions the file bytes may depend on: Python's and those of :data:`PACKAGES`."""
    versions = {"python": platform.python_version()}
    for package in PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions


def snapshot(jobs: int = 1, only: str | None = None) -> dict[str, Any]:
    """Run every case (``jobs`` at a time; ``only``: those whose name holds it); the snapshot: its
    environment and each case's record."""
    every = [case for case in cases() if only is None or only in case.name]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        records = list(pool.map(run_case, every))
    return {
        "about": "what elo-batch shows a user, case by case; written by scripts/output_snapshot.py (see its doc)",
        "environment": environment(),
        "cases": {case.name: record for case, record in zip(every, records, strict=True)},
    }


def differences(before: Any, after: Any, where: str = "") -> list[str]:
    """Every difference between two JSON values, one entry each, named by its path (``a.b.c``).

    Texts of several lines are shown as a unified diff; a key on one side only is named as such.

    >>> differences({"a": 1, "b": [1, 2]}, {"a": 2, "b": [1, 2], "c": 0})
    ['a: 1 -> 2', 'c: only after (0)']
    """
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(set(before) | set(after)):
            path = f"{where}.{key}" if where else key
            if key not in after:
                found.append(f"{path}: only before ({json.dumps(before[key])[:200]})")
            elif key not in before:
                found.append(f"{path}: only after ({json.dumps(after[key])[:200]})")
            else:
                found += differences(before[key], after[key], path)
        return found
    if before == after:
        return []
    if isinstance(before, str) and isinstance(after, str) and "\n" in before + after:
        diff = difflib.unified_diff(before.splitlines(), after.splitlines(), "before", "after", lineterm="")
        return [f"{where}:\n" + "\n".join(diff)]
    return [f"{where}: {json.dumps(before)[:200]} -> {json.dumps(after)[:200]}"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (``--help``); argparse exits 2 with a usage message on a bad one."""
    parser = argparse.ArgumentParser(
        prog="output_snapshot.py",
        description="Run elo-batch over the golden cases, the README's sample and a few more, and write "
        "what a user sees as a JSON snapshot (write), or compare a new run with one (compare: exit 1 on "
        "any difference).",
    )
    parser.add_argument("action", choices=("write", "compare"), help="write a snapshot, or compare with one")
    parser.add_argument("snapshot", type=Path, metavar="SNAPSHOT.json", help="the snapshot written or compared")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="commands run at once (default 1)")
    parser.add_argument(
        "--only", metavar="TEXT", help="compare: only the cases whose name holds TEXT (golden/bug-700-rule/, cli/)"
    )
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs takes a whole number from 1")
    if args.only is not None and args.action == "write":
        parser.error("--only goes with compare: a snapshot holds every case")
    return args


def main(argv: list[str] | None = None) -> int:
    """Write or compare a snapshot; the exit status (1: ``compare`` found differences; 66: no snapshot)."""
    args = parse_args(argv)
    if args.action == "compare" and not args.snapshot.is_file():
        print(f"output_snapshot.py: error: {args.snapshot}: no such file", file=sys.stderr)
        return 66
    now = snapshot(args.jobs, args.only)
    if args.action == "write":
        args.snapshot.parent.mkdir(parents=True, exist_ok=True)
        args.snapshot.write_text(json.dumps(now, indent=1, sort_keys=True, ensure_ascii=False) + "\n", "utf-8")
        print(f"{len(now['cases'])} cases -> {args.snapshot}")
        return 0
    before = json.loads(args.snapshot.read_text(encoding="utf-8"))
    if before.get("environment") != now["environment"]:
        print(f"note: environment {before.get('environment')} -> {now['environment']} (file bytes may differ)")
    cases_before = {k: v for k, v in before.get("cases", {}).items() if args.only is None or args.only in k}
    found = differences(cases_before, now["cases"])
    for line in found:
        print(line)
    print(f"{len(found)} difference(s) in {len(now['cases'])} cases against {args.snapshot}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
