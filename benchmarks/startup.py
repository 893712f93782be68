#!/usr/bin/env python3
"""Benchmark: ``elo-batch run``'s start-up, from the command line to its first input read (issue 24: at most 0.25 s).

Usage (from the repository root, in the project's environment)::

    python benchmarks/startup.py                      # 10 runs of this checkout: the median and range
    python benchmarks/startup.py --against ../base    # this checkout and another, alternately: both and their ratio
    python benchmarks/startup.py --modules            # what is imported before the first read, and its cost
    python benchmarks/startup.py --against ../base --whole   # the whole run too, to its exit

Each run is the README's first command (``elo-batch run sample_data/us-championship-2025-games.csv
--ratings sample_data/ratings-2025-10.csv --period 2025-10 --out TMP``) in a process of its own, started
as the console script starts it (``from elo_batch.cli.app import console; console()``), with the
checkout first on ``PYTHONPATH``. An audit hook (``sys.addaudithook``, installed before anything else)
sees the first ``open`` of the games or the list file; the process then reports the monotonic clock
(``CLOCK_MONOTONIC``, one clock for every process of the machine) and exits at once (with ``--whole``
it runs on to its end, and the run's whole wall time is reported too: what the start-up's deferred
imports cost later is in it). Start-up is that
time less the clock read before the process was started: Python's own start, the imports and the
command line's parsing, up to the first byte read. The checkouts' modules are byte-compiled first, as
``pip install`` leaves them.

``--against`` alternates the two checkouts run by run (this one first), so that both see the same load
of a shared machine, and prints each one's median and the ratio of the medians. ``--modules`` runs
``python -X importtime`` the same way ``--runs`` times and sums, over the modules imported before the
first read, each module's smallest self time by package (the smallest: the least disturbed by the
machine's other work); the heavy packages not loaded then are listed too.
"""

from __future__ import annotations

import argparse
import collections
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = "sample_data/us-championship-2025-games.csv"
LIST = "sample_data/ratings-2025-10.csv"
#: Packages worth naming when a run did not load them before its first read.
HEAVY = ("polars", "numpy", "pyarrow", "rich", "deltalake", "duckdb", "chess", "pydantic", "typer", "click")
#: The child: the hook first, then the console script's own two lines.
CHILD = """
import os, sys, time
_inputs, _whole = {os.path.abspath(p) for p in sys.argv[1:3]}, sys.argv[4] == "whole"
def _first_read(event, args):
    if event == "open" and _inputs and args and isinstance(args[0], str) and os.path.abspath(args[0]) in _inputs:
        os.write(2, f"\\nfirst-read {time.monotonic()!r} {' '.join(sorted(sys.modules))}\\n".encode())
        _inputs.clear()
        if not _whole:
            os._exit(0)
sys.addaudithook(_first_read)
sys.argv = ["elo-batch", "run", sys.argv[1], "--ratings", sys.argv[2], "--period", "2025-10", "--out", sys.argv[3]]
from elo_batch.cli.app import console
sys.exit(console())
"""


def run_once(checkout: Path, *, importtime: bool = False, whole: bool = False) -> tuple[float, set[str], str, float]:
    """One run of ``checkout``: (seconds to the first read, the modules loaded then, its stderr, seconds
    to its exit; ``whole``: the run goes on past its first read).

    Raises:
        RuntimeError: the run ended without reading an input.
    """
    env = {name: value for name, value in os.environ.items() if not name.startswith("ELO_BATCH_")}
    env["PYTHONPATH"] = os.pathsep.join([str(checkout), *filter(None, [env.get("PYTHONPATH")])])
    flags = ["-X", "importtime"] if importtime else []
    with tempfile.TemporaryDirectory(prefix="elo-batch-startup-") as out:
        command = [sys.executable, *flags, "-c", CHILD, GAMES, LIST, str(Path(out) / "out"), "whole" if whole else "-"]
        started = time.monotonic()
        done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, check=False)
        ended = time.monotonic()
    for line in done.stderr.splitlines():
        if line.startswith("first-read ") and done.returncode == 0:
            _, clock, *modules = line.split(" ")
            return float(clock) - started, set(modules), done.stderr, ended - started
    raise RuntimeError(f"{checkout}: the run read no input (exit {done.returncode}): {done.stderr[-2000:]}")


def compile_checkout(checkout: Path) -> None:
    """Byte-compile the checkout's package, as ``pip install`` does (no run then compiles a module)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(checkout / "elo_batch")], check=True)


def timings(checkouts: list[Path], runs: int, *, whole: bool = False) -> dict[Path, list[tuple[float, float]]]:
    """Each checkout's (start-up, whole run) seconds over ``runs`` runs, the checkouts alternating run by run
    (the whole run's time is the start-up's without ``whole``)."""
    found: dict[Path, list[tuple[float, float]]] = {checkout: [] for checkout in checkouts}
    for _ in range(runs):
        for checkout in checkouts:
            first, _, _, total = run_once(checkout, whole=whole)
            found[checkout].append((first, total))
    return found


def module_costs(checkout: Path, runs: int) -> tuple[collections.Counter[str], set[str]]:
    """(package -> the summed smallest self time, seconds, of its modules imported before the first read;
    the modules loaded then) over ``runs`` runs of ``python -X importtime``."""
    least: dict[str, int] = {}
    loaded: set[str] = set()
    for _ in range(runs):
        _, loaded, stderr, _ = run_once(checkout, importtime=True)
        for line in stderr.splitlines():
            if line.startswith("import time:") and "|" in line and "self [us]" not in line:
                own, _, name = (part.strip() for part in line.removeprefix("import time:").split("|"))
                least[name] = min(least.get(name, int(own)), int(own))
    costs: collections.Counter[str] = collections.Counter()
    for name, micros in least.items():
        parts = name.split(".")
        costs[".".join(parts[:2]) if parts[0] == "elo_batch" else parts[0]] += micros / 1e6
    return costs, loaded


def report_modules(checkout: Path, runs: int) -> None:
    costs, loaded = module_costs(checkout, runs)
    print(f"imported before the first read ({len(loaded)} modules), smallest self time of {runs} runs, by package:")
    for package, seconds in costs.most_common(25):
        print(f"  {seconds:6.3f} s  {package}")
    print(f"  {sum(costs.values()):6.3f} s  in all")
    absent = [name for name in HEAVY if name not in loaded]
    print(f"not loaded before the first read: {', '.join(absent) or 'none of ' + ', '.join(HEAVY)}")


def report_timings(checkouts: list[Path], runs: int, *, whole: bool = False) -> None:
    found = timings(checkouts, runs, whole=whole)
    for index, what in enumerate(
        ("start-up to the first read", "the whole run") if whole else ("start-up to the first read",)
    ):
        medians = {checkout: statistics.median(run[index] for run in found[checkout]) for checkout in checkouts}
        for checkout in checkouts:
            seconds = [run[index] for run in found[checkout]]
            print(f"{checkout}: {what} {medians[checkout]:.3f} s (median of {runs}; "
                  f"{min(seconds):.3f}-{max(seconds):.3f})")  # fmt: skip
        if len(checkouts) == 2:
            mine, theirs = (medians[checkout] for checkout in checkouts)
            print(f"  ratio {checkouts[0].name} / {checkouts[1].name}: {mine / theirs:.2f}")
    print(f"load average: {' '.join(f'{value:.1f}' for value in os.getloadavg())}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10, help="runs of each checkout (default 10)")
    parser.add_argument("--against", type=Path, help="another checkout, run alternately with this one")
    parser.add_argument("--modules", action="store_true", help="what is imported before the first read")
    parser.add_argument("--whole", action="store_true", help="run on to the end: the whole run's time too")
    args = parser.parse_args(argv)
    checkouts = [ROOT, *([args.against.resolve()] if args.against else [])]
    for checkout in checkouts:
        compile_checkout(checkout)
    if args.modules:
        report_modules(ROOT, args.runs)
    else:
        report_timings(checkouts, args.runs, whole=args.whole)
    return 0


if __name__ == "__main__":
    sys.exit(main())
