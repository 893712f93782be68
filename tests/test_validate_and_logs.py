"""`elo-batch validate` (checks, writes nothing), JSON logs for schedulers, and the progress bar."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from elo_batch.cli.progress import ProgressBar
from tests.conftest import reconciliation, write_csv

GAMES = """
game_id,date,white_id,black_id,result
1,2025-11-01,A,B,1-0
2,2025-11-02,A,B,2-0
3,2025-12-01,A,B,1-0
4,31.12.2025,A,B,1-0
5,2025-11-03,A,C,+--
"""
LIST = "player_id,rating,k\nA,2000,20\nB,1900,20\nC,2100,10\n"


@pytest.fixture
def files(tmp_path: Path, monkeypatch) -> tuple[Path, Path]:
    monkeypatch.chdir(tmp_path)  # `validate` must not create ./out or anything else
    return write_csv(tmp_path / "g.csv", GAMES), write_csv(tmp_path / "list.csv", LIST)


def _written(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.iterdir() if p.name not in ("g.csv", "list.csv"))


def test_validate_lists_rejected_rows_on_stdout_and_exits_65(cli, tmp_path, files) -> None:
    games, rating_list = files

    result = cli("validate", games, "--ratings", rating_list)

    assert result.exit_code == 65
    assert result.stdout.splitlines() == [
        f"{games}, row 2, column result: '2-0' is not a result. Hint: use 1-0, 0-1, 1/2-1/2 (or ½-½, 0.5-0.5),"
        " or +--/--+/-- for forfeits.",
        f"{games}, row 4, column date: '31.12.2025' is not a date. Hint: use an ISO date YYYY-MM-DD"
        " (a time may follow).",
    ]
    assert "5 rows read = 3 usable (2025-11: 2, 2025-12: 1) + 2 rejected" in result.stderr
    assert "elo-batch: 2 row(s) rejected (listed on stdout); nothing was written" in result.stderr
    assert _written(tmp_path) == []


def test_validate_with_a_period_reports_what_run_would(cli, tmp_path, files) -> None:
    games, rating_list = files

    result = cli("validate", games, "--ratings", rating_list, "--period", "2025-11")

    assert result.exit_code == 65
    # 1 counted, the forfeit audited, 3 December, 2-0 and the unreadable date (period unknown) rejected
    assert reconciliation(result.stderr) == {"read": 5, "counted": 1, "not_counted": 1, "other": 1, "rejected": 2}
    assert _written(tmp_path) == []


def test_validate_of_clean_inputs_exits_0(cli, tmp_path, files) -> None:
    games = write_csv(tmp_path / "g.csv", GAMES.replace(",2-0", ",0-1").replace("31.12.2025", "2025-12-31"))

    result = cli("validate", games, "--ratings", files[1])

    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "5 rows read = 5 usable (2025-11: 3, 2025-12: 2) + 0 rejected" in result.stderr
    assert "elo-batch: no row rejected; nothing was written" in result.stderr


@pytest.mark.parametrize(
    ("args", "code", "text"),
    [
        (["missing.csv"], 66, "missing.csv: no such file"),
        (["{games}", "--period", "2025-13"], 2, "'2025-13' is not a rating period"),
        (["{games}", "--ratings", "{bad_list}"], 65, "player 'A' is listed twice with different data"),
    ],
)
def test_validate_uses_the_exit_codes_of_run(cli, tmp_path, files, args, code, text) -> None:
    bad_list = write_csv(tmp_path / "bad.csv", "player_id,rating\nA,2000\nA,2001")

    result = cli("validate", *[a.format(games=files[0], bad_list=bad_list) for a in args])

    assert result.exit_code == code
    assert text in result.output
    assert "Traceback" not in result.output


def test_json_logs_are_one_object_per_line(cli, tmp_path, files) -> None:
    games, rating_list = files

    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11", "--log-format", "json")

    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stderr.splitlines()]
    assert [r["event"] for r in records] == ["period_written"]
    assert records[0]["counts"] == {"rows_read": 5, "counted": 1, "not_counted": 1, "other_periods": 1, "rejected": 2}
    assert records[0]["reconciles"] is True
    assert records[0]["outputs"]["ratings"] == str(Path("out/ratings/period=2025-11/part-0.parquet"))


def test_json_errors_carry_the_exit_code_and_where(cli, tmp_path, files) -> None:
    result = cli("run", files[0], "--period", "2025-11", "--strict", "--log-format", "json")

    assert result.exit_code == 65
    record = json.loads(result.stderr)
    assert record["event"] == "error"
    assert (record["exit_code"], record["path"], record["row"], record["column"]) == (65, str(files[0]), 2, "result")
    assert "--strict is set; nothing was written" in record["message"]


def test_validate_json_lists_rejected_rows_as_json_lines(cli, tmp_path, files) -> None:
    result = cli("validate", files[0], "--log-format", "json")

    assert result.exit_code == 65
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["source_row"], r["column"], r["value"]) for r in rows] == [
        (2, "result", "2-0"),
        (4, "date", "31.12.2025"),
    ]
    summary = json.loads(result.stderr)
    assert (summary["event"], summary["rows_read"], summary["rejected"], summary["exit_code"]) == (
        "validated",
        5,
        2,
        65,
    )


def test_no_progress_bar_is_drawn_when_stderr_is_not_a_terminal(cli, tmp_path, files) -> None:
    result = cli("run", files[0], "--ratings", files[1], "--period", "2025-11..2025-12")

    assert result.exit_code == 0, result.output
    assert "\x1b[" not in result.stderr
    assert "elo-batch: rating" not in result.stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_shows_the_current_step_on_a_terminal() -> None:
    screen = _Terminal()

    with ProgressBar(screen, delay=0) as bar:
        bar("rating 2025-11", 1, 3)

    assert "elo-batch: rating 2025-11" in screen.getvalue()
    assert "1/3" in screen.getvalue()


@pytest.mark.parametrize("enabled", [True, False])
def test_the_progress_bar_draws_nothing_off_a_terminal_or_when_disabled(enabled) -> None:
    stream = io.StringIO() if enabled else _Terminal()

    with ProgressBar(stream, enabled=enabled, delay=0) as bar:
        bar("rating 2025-11", 1, 3)

    assert stream.getvalue() == ""
