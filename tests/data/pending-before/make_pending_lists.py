"""Write this folder's lists and December outputs with the build given by PYTHONPATH (see SOURCE.md).

Run from the repository root, with the build before the change on the path, e.g.
``git archive 0d48fa4 elo_batch | tar -x -C /tmp/before && PYTHONPATH=/tmp/before python
tests/data/pending-before/make_pending_lists.py``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _run(*args: str | Path) -> None:
    command = "from elo_batch.cli.app import console; console()"  # the elo-batch command of the build on the path
    subprocess.run([sys.executable, "-c", command, "run", *map(str, args)], check=True)


def main() -> None:
    """November's lists (CSV and Parquet) from ``october.csv``, and December rated on each of them."""
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in ("csv", "parquet"):
            out = Path(tmp) / fmt
            _run(HERE / "games.csv", "--ratings", HERE / "october.csv", "--period", "2025-11", "--out", out,
                 "--format", fmt)  # fmt: skip
            shutil.copy(out / "ratings" / "period=2025-11" / f"part-0.{fmt}", HERE / f"november.{fmt}")
            december = Path(tmp) / f"{fmt}-december"
            _run(HERE / "games.csv", "--ratings", HERE / f"november.{fmt}", "--period", "2025-12", "--out",
                 december, "--format", fmt)  # fmt: skip
            shutil.copy(december / "ratings" / "period=2025-12" / f"part-0.{fmt}", HERE / f"december.{fmt}")


if __name__ == "__main__":
    main()
