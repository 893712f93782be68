"""Exit codes exactly as the contract says (0, 2, 65, 66, 70, 73), and never a traceback for a user mistake."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import write_csv

GAMES = "date,white_id,black_id,result,white_rating,black_rating\n2025-11-03,A,B,1-0,2000,1900"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture
def games(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "g.csv", GAMES)


def _invoke(cli, *args: str | Path):
    result = cli(*args)
    assert "Traceback" not in result.output
    return result


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (["--period", "2025-13"], "'2025-13' is not a rating period"),
        (["--period", "2025-11", "--nonsense"], "No such option: --nonsense"),
        (["--period", "2025-11", "--format", "xlsx"], "xlsx"),
        (["--period", "2025-11", "--k", "0"], "--k"),
        (["--period", "2025-11", "--encoding", "klingon"], "'klingon' is not a text encoding"),
        (["--period", "2025-11", "--rule-set", "fide-1999"], "fide-1999"),
        ([], "Missing option '--period'"),
    ],
)
def test_a_bad_flag_is_a_usage_error(cli, tmp_path, games, args, text) -> None:
    result = _invoke(cli, "run", games, *args, "--out", tmp_path / "out")

    assert result.exit_code == 2
    assert text in result.output
    assert not (tmp_path / "out").exists()


def test_a_missing_file_is_exit_66(cli, tmp_path) -> None:
    result = _invoke(cli, "run", tmp_path / "nope.csv", "--period", "2025-11", "--out", tmp_path / "out")

    assert result.exit_code == 66
    assert f"{tmp_path / 'nope.csv'}: no such file\nHint: check the path" in result.output


def test_the_games_error_comes_before_the_lists_though_both_are_read_at_once(cli, tmp_path, games) -> None:
    bad_list = write_csv(tmp_path / "list.csv", "player_id,rating\nA,abc")
    missing = tmp_path / "nope.csv"

    both_bad = _invoke(cli, "run", missing, "--ratings", bad_list, "--period", "2025-11", "--out", tmp_path / "out")
    list_bad = _invoke(cli, "run", games, "--ratings", bad_list, "--period", "2025-11", "--out", tmp_path / "out")

    assert (both_bad.exit_code, list_bad.exit_code) == (66, 65)
    assert f"{missing}: no such file" in both_bad.output and "abc" not in both_bad.output
    assert f"{bad_list}, row 1, column rating: 'abc' is not a rating" in list_bad.output
    assert not (tmp_path / "out").exists()


def test_a_folder_without_data_files_is_exit_66(cli, tmp_path) -> None:
    folder = tmp_path / "games"
    (folder / ".hidden").mkdir(parents=True)
    (folder / ".hidden" / "old.csv").write_text(GAMES)  # hidden folders are not data, as in a warehouse
    (folder / "README.md").write_text("no games here")

    result = _invoke(cli, "run", folder, "--period", "2025-11", "--out", tmp_path / "out")

    assert result.exit_code == 66
    assert f"{folder}: folder holds no .csv or .parquet file" in result.output


def test_a_glob_that_matches_nothing_is_exit_66(cli, tmp_path) -> None:
    result = _invoke(cli, "run", str(tmp_path / "*.csv"), "--period", "2025-11", "--out", tmp_path / "out")

    assert result.exit_code == 66
    assert "no file matches this pattern" in result.output


def test_a_file_that_cannot_be_read_is_exit_66(cli, tmp_path, games, monkeypatch) -> None:
    real_open = open

    def refuse(path, *args, **kwargs):
        if str(path) == str(games):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", refuse)

    result = _invoke(cli, "run", games, "--period", "2025-11", "--out", tmp_path / "out")

    assert result.exit_code == 66
    assert f"{games}: cannot read the file (Permission denied)" in result.output


@pytest.mark.skipif(IS_ROOT or not hasattr(os, "geteuid"), reason="root reads files without read permission")
def test_a_file_without_read_permission_is_exit_66(cli, tmp_path, games) -> None:
    games.chmod(0o200)

    result = _invoke(cli, "run", games, "--period", "2025-11", "--out", tmp_path / "out")

    assert result.exit_code == 66
    assert "cannot read the file (Permission denied)" in result.output


@pytest.mark.skipif(IS_ROOT or not hasattr(os, "geteuid"), reason="root lists folders without permission")
def test_a_folder_without_read_permission_is_exit_66(cli, tmp_path) -> None:
    folder = tmp_path / "games"
    (folder / "inner").mkdir(parents=True)
    write_csv(folder / "inner" / "g.csv", GAMES)
    (folder / "inner").chmod(0o000)
    try:
        result = _invoke(cli, "run", folder, "--period", "2025-11", "--out", tmp_path / "out")
    finally:
        (folder / "inner").chmod(0o700)

    assert result.exit_code == 66
    assert "cannot list the folder (Permission denied)" in result.output


@pytest.mark.parametrize("where", ["out", "out/ratings"])
def test_an_output_path_that_is_a_file_is_exit_73_before_any_rating(cli, tmp_path, games, where) -> None:
    (tmp_path / where).parent.mkdir(exist_ok=True)
    (tmp_path / where).write_text("not a folder")

    result = _invoke(cli, "run", games, "--period", "2025-11", "--out", tmp_path / "out")

    assert result.exit_code == 73
    assert f"{tmp_path / where}: is a file, not a folder\nHint: --out names the folder" in result.output


def _read_only_folder(tmp_path: Path) -> Path:
    if not IS_ROOT:
        folder = tmp_path / "locked"
        folder.mkdir()
        folder.chmod(0o500)
        return folder / "out"
    probe = Path("/sys/elo-batch-probe")  # read-only even for root
    try:
        probe.mkdir()
    except OSError:
        return probe
    probe.rmdir()
    pytest.skip("no read-only folder available to this user")


def test_a_read_only_output_folder_is_exit_73(cli, tmp_path, games) -> None:
    out = _read_only_folder(tmp_path)

    result = _invoke(cli, "run", games, "--period", "2025-11", "--out", out)

    assert result.exit_code == 73
    assert f"{out}: cannot write the outputs (" in result.output


def test_a_fault_of_elo_batch_is_exit_70_with_a_hint_and_no_traceback(cli, tmp_path, games, monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr("elo_batch.engine.period.rate_periods", broken)

    result = _invoke(cli, "run", games, "--period", "2025-11", "--out", tmp_path / "out")

    assert result.exit_code == 70
    assert "internal error: ZeroDivisionError: division by zero\nHint: this is a bug in elo-batch" in result.output


def _installed() -> str:
    beside = Path(sys.executable).with_name("elo-batch")
    found = str(beside) if beside.exists() else shutil.which("elo-batch")
    assert found, "elo-batch is not installed: pip install '.[test]'"
    return found


@pytest.mark.parametrize(
    ("args", "code", "text"),
    [
        (["run", "{games}", "--period", "2025-11", "--out", "{tmp}/out"], 0, "1 counted"),
        (["run", "{tmp}/missing.csv", "--period", "2025-11"], 66, "no such file"),
        (["run", "{games}", "--period", "11/2025"], 2, "is not a rating period"),
        (["run", "{games}", "--period", "2025-11", "--bogus"], 2, "No such option"),
        (["run", "{bad}", "--period", "2025-11", "--out", "{tmp}/out"], 65, "missing columns white_id"),
        (["run", "{games}", "--period", "2025-11", "--out", "{games}"], 73, "is a file, not a folder"),
        (["validate", "{bad}"], 65, "missing columns white_id"),
        (["validate", "{tmp}"], 65, "missing columns white_id"),
    ],
)
def test_the_installed_command_exits_with_the_contract_code_and_no_traceback(tmp_path, games, args, code, text):
    bad = write_csv(tmp_path / "bad.csv", "date,w,b,r\n2025-11-01,A,B,1-0")
    argv = [a.format(games=games, tmp=tmp_path, bad=bad) for a in args]

    done = subprocess.run([_installed(), *argv], capture_output=True, text=True, timeout=120, cwd=tmp_path)

    assert done.returncode == code, done.stderr
    assert text in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
