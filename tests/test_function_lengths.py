"""scripts/function_lengths.py: body lengths counted by hand on a small synthetic package, and its limits."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "function_lengths.py"

#: A module whose function bodies were counted by hand (the lengths in ``EXPECTED``).
MODULE = '''\
"""A module."""


def only_doc():
    """Nothing but this."""


def one():
    return 1


def multi_line():
    """A docstring,
    of two lines."""
    total = (
        1
        + 2
    )
    return total


def outer():
    def inner():
        x = 1
        return x

    return inner


class Box:
    def method(self):
        # a comment before the first statement is not counted
        a = 1
        b = 2
        return a + b  # nor a comment after the last


async def decorated_first():
    @staticmethod
    def helper():
        return 1
    return helper
'''
EXPECTED = {
    "only_doc": 0,
    "one": 1,
    "multi_line": 5,  # the assignment's 4 lines, then the return
    "outer": 5,  # inner's span (3), the blank line, the return
    "outer.inner": 2,
    "Box.method": 3,
    "decorated_first": 4,  # from the decorator
    "decorated_first.helper": 1,
}
#: One more module: a function of 30 one-line statements (over 20 and over 25, not over 60).
LONG = "def long():\n" + "".join(f"    x{i} = {i}\n" for i in range(30))


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.fixture
def package(tmp_path: Path) -> Path:
    folder = tmp_path / "pkg"
    (folder / "sub").mkdir(parents=True)
    (folder / "__init__.py").write_text("", encoding="utf-8")
    (folder / "sub" / "shapes.py").write_text(MODULE, encoding="utf-8")
    return folder


def _report(package: Path) -> dict:
    done = _run(package, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_body_lengths_are_counted_as_by_hand(package: Path) -> None:
    report = _report(package)

    assert {f["name"]: f["length"] for f in report["lengths"]} == EXPECTED
    assert {f["name"]: f["line"] for f in report["lengths"]}["Box.method"] == 31
    assert {f["path"] for f in report["lengths"]} == {"pkg/sub/shapes.py"}


def test_modules_lines_and_percentiles(package: Path) -> None:
    report = _report(package)

    assert (report["modules"], report["lines"], report["functions"]) == (2, MODULE.count("\n"), 8)
    # lengths 0 1 1 2 3 4 5 5: nearest rank 50 % is the 4th, 90 % the 8th
    assert (report["p50"], report["p90"], report["max"]) == (2, 5, 5)
    assert report["longest"][0] == {"path": "pkg/sub/shapes.py", "line": 12, "name": "multi_line", "length": 5}


def test_counts_over_the_thresholds(package: Path) -> None:
    (package / "long.py").write_text(LONG, encoding="utf-8")

    report = _report(package)

    assert report["over"] == {"20": 1, "25": 1, "60": 0}
    assert report["longest"][0]["name"] == "long" and report["longest"][0]["length"] == 30


def test_text_report_names_the_longest_as_path_line_name_length(package: Path) -> None:
    done = _run(package)

    assert done.returncode == 0, done.stderr
    assert "functions: 8" in done.stdout and "body lines: p50 2, p90 5, max 5" in done.stdout
    assert "  pkg/sub/shapes.py:12 multi_line 5" in done.stdout


@pytest.mark.parametrize(
    ("args", "status"),
    [(("--max", "5"), 0), (("--max", "4"), 1), (("--max-p90", "5"), 0), (("--max-p90", "4"), 1)],
    ids=["max-met", "max-exceeded", "p90-met", "p90-exceeded"],
)
def test_limits_exit_1_only_when_exceeded(package: Path, args: tuple[str, str], status: int) -> None:
    done = _run(package, *args)

    assert done.returncode == status, done.stderr
    assert ("is over" in done.stderr) == (status == 1)


def test_max_names_each_function_over_it(package: Path) -> None:
    done = _run(package, "--max", "3")

    assert done.returncode == 1
    assert "pkg/sub/shapes.py:12 multi_line 5 is over --max 3" in done.stderr
    assert "pkg/sub/shapes.py:22 outer 5 is over --max 3" in done.stderr
    assert "decorated_first 4 is over --max 3" in done.stderr


def test_a_file_that_does_not_parse_exits_65(package: Path) -> None:
    (package / "broken.py").write_text("def f(:\n", encoding="utf-8")

    done = _run(package)

    assert done.returncode == 65
    assert "broken.py, line 1" in done.stderr


def test_the_package_keeps_its_function_bodies_short() -> None:
    """Issue 21's limits on elo_batch/ itself: p90 of the body lengths at most 20 lines, none over 60."""
    done = _run(ROOT / "elo_batch", "--max-p90", "20", "--max", "60")

    assert done.returncode == 0, done.stderr
