"""The public functions the CLI's commands call: ``run`` (the whole job), the calculators, the
importers and a player's history, called directly as a scheduler's task or a notebook would."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest

import elo_batch

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "sample_data" / "us-championship-2025-games.csv"
LIST = ROOT / "sample_data" / "ratings-2025-10.csv"
TRF = ROOT / "tests" / "data" / "trf" / "tata2022.trf"


def test_run_is_the_job_of_the_cli_run_read_rate_write_under_the_lock(tmp_path: Path) -> None:
    seen: list[elo_batch.PeriodSummary] = []
    steps: list[str] = []

    summaries = elo_batch.run(
        [str(GAMES)], period="2025-10", out=tmp_path / "out", ratings=LIST, on_period=seen.append,
        on_progress=lambda step, done, total: steps.append(step),
    )  # fmt: skip

    assert [s.period for s in summaries] == ["2025-10"] and seen == summaries
    assert steps[0].startswith("reading") and steps[-1] == "done"
    written = pl.read_parquet(tmp_path / "out" / "ratings" / "period=2025-10" / "part-0.parquet")
    in_memory = elo_batch.rate_period(str(GAMES), period="2025-10", ratings=str(LIST)).ratings
    assert written.equals(in_memory)
    assert Path(summaries[0].outputs["manifest"]).is_file()


def test_run_writes_what_the_cli_writes(tmp_path: Path, cli) -> None:
    elo_batch.run(str(GAMES), period="2025-10", out=tmp_path / "api", ratings=str(LIST), format="csv")
    assert (
        cli(
            "run", GAMES, "--period", "2025-10", "--ratings", LIST, "--out", tmp_path / "cli", "--format", "csv"
        ).exit_code
        == 0
    )
    for table in ("ratings", "audit", "rejected"):
        part = Path(table) / "period=2025-10" / "part-0.csv"
        assert (tmp_path / "api" / part).read_bytes() == (tmp_path / "cli" / part).read_bytes(), table


def test_run_refuses_bad_arguments_naming_the_parameter(tmp_path: Path) -> None:
    with pytest.raises(elo_batch.UsageError, match="option format"):
        elo_batch.run(str(GAMES), period="2025-10", out=tmp_path, format="xlsx")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="unknown option"):
        elo_batch.run(str(GAMES), period="2025-10", out=tmp_path, colour="white")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="bands must be a path"):
        elo_batch.run(str(GAMES), period="2025-10", out=tmp_path, bands=pl.DataFrame({"band": ["A"]}))
    assert list(tmp_path.iterdir()) == []


def test_rate_game_as_the_game_command_shows_it() -> None:
    answer = elo_batch.rate_game(2000, 2000, 1, k=20, period="2025-11")
    assert (answer.change_a.rounded, answer.change_b.rounded) == (10, -10)
    assert elo_batch.rate_game(2000, 2000, "1", k=20, period="2025-11") == answer
    with pytest.raises(elo_batch.UsageError) as error:
        elo_batch.rate_game(2000, 2000, "+", period="2025-11")
    assert error.value.render().startswith("option result: a forfeit is not rated")
    assert error.value.render({}).startswith("option --result: a forfeit is not rated")


def test_rate_tournament_reads_text_bytes_a_file_or_a_stream(tmp_path: Path) -> None:
    lines = "opponent_rating | result\n2000 | 1\n2100 | 0.5\n"
    path = tmp_path / "results.txt"
    path.write_text(lines, encoding="utf-8")
    answers = [
        elo_batch.rate_tournament(1850, given, k=20, period="2025-11")
        for given in (lines, lines.encode("cp1252"), path, io.BytesIO(lines.encode()))
    ]
    assert all(answer == answers[0] for answer in answers)

    class Terminal(io.BytesIO):
        def isatty(self) -> bool:
            return True

    with pytest.raises(elo_batch.UsageError, match="no games given"):
        elo_batch.rate_tournament(1850, Terminal(), period="2025-11")
    with pytest.raises(elo_batch.InputMissingError):
        elo_batch.rate_tournament(1850, tmp_path / "missing.txt", period="2025-11")


def test_import_trf_then_history(tmp_path: Path, cli) -> None:
    imported = elo_batch.import_trf(str(TRF), str(tmp_path / "games.parquet"))
    assert (
        imported.written == str(tmp_path / "games.parquet")
        and imported.rows == pl.read_parquet(imported.written).height
    )
    assert imported.lines and all(isinstance(line, str) for line in imported.lines)
    with pytest.raises(elo_batch.UsageError, match="option period"):
        elo_batch.import_trf(str(TRF), str(tmp_path / "g.parquet"), period="2022-01..2022-02")

    elo_batch.run(str(GAMES), period="2025-10", out=tmp_path / "out", ratings=str(LIST))
    history = elo_batch.rating_history(str(tmp_path / "out"), "2020009")
    assert history.player_id == "2020009" and len(history.lists) == 2
