"""`elo-batch chart`: a player's rating list by list, the plotted points, and a valid PNG."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tests.conftest import write_csv

matplotlib_image = pytest.importorskip("matplotlib.image")

GAMES = """
game_id,date,white_id,black_id,result
1,2025-11-03,A,B,1-0
2,2025-12-03,A,B,1/2-1/2
"""
LIST = """
player_id,rating,k,name
A,2000,20,Alice
B,1900,20,Bob
C,2100,10,Carol
"""


@pytest.fixture
def out(cli, tmp_path: Path) -> Path:
    games, rating_list = write_csv(tmp_path / "g.csv", GAMES), write_csv(tmp_path / "l.csv", LIST)
    folder = tmp_path / "out"
    result = cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out", folder)
    assert result.exit_code == 0, result.output
    return folder


def test_history_has_one_point_per_list_with_the_changes(out: Path) -> None:
    from elo_batch.cli.chart import rating_history

    history = rating_history(str(out), "A")

    # 1 Nov list 2000; November: D 100 -> .64, +7.2 -> 2007 (1 Dec); December: D 114 -> .66, draw -3.2 -> 2004
    assert history.lists == (dt.date(2025, 11, 1), dt.date(2025, 12, 1), dt.date(2026, 1, 1))
    assert history.ratings == (2000, 2007, 2004)
    assert history.labels == ("", "+7", "-3")
    assert history.name == "Alice"


def test_chart_command_writes_a_png_of_those_points(cli, out: Path, tmp_path: Path) -> None:
    from elo_batch.cli.chart import plot_history, rating_history

    png = tmp_path / "alice.png"
    result = cli("chart", out, "--player", "A", "-o", png)

    assert result.exit_code == 0, result.output
    assert "A: 2025-11: 2000, 2025-12: 2007, 2026-01: 2004" in result.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert matplotlib_image.imread(png).shape == (450, 800, 4)
    figure = plot_history(rating_history(str(out), "A"))
    axes = figure.axes[0]
    assert list(axes.lines[0].get_ydata()) == [2000, 2007, 2004]
    assert [text.get_text() for text in axes.texts] == ["+7", "-3"]
    assert axes.get_title() == "A Alice"


def test_a_player_without_games_is_a_flat_line(out: Path) -> None:
    from elo_batch.cli.chart import rating_history

    history = rating_history(str(out), "C")
    assert history.ratings == (2100, 2100, 2100)
    assert history.labels == ("", "0", "0")


def test_csv_outputs_chart_the_same(cli, tmp_path: Path) -> None:
    from elo_batch.cli.chart import rating_history

    games, rating_list = write_csv(tmp_path / "g.csv", GAMES), write_csv(tmp_path / "l.csv", LIST)
    folder = tmp_path / "csv"
    assert cli("run", games, "--ratings", rating_list, "--period", "2025-11..2025-12", "--out", folder,
               "--format", "csv").exit_code == 0  # fmt: skip
    assert rating_history(str(folder), "A").ratings == (2000, 2007, 2004)


def test_unknown_player_exits_2_with_a_hint(cli, out: Path, tmp_path: Path) -> None:
    result = cli("chart", out, "--player", "a", "-o", tmp_path / "x.png")
    assert result.exit_code == 2
    assert "player 'a' is in none of the 2 period(s)" in result.stderr
    assert "Hint:" in result.stderr
    assert not (tmp_path / "x.png").exists()


def test_folder_without_outputs_exits_66(cli, tmp_path: Path) -> None:
    result = cli("chart", tmp_path / "empty", "--player", "A")
    assert result.exit_code == 66
    assert "no ratings partitions found" in result.stderr


def test_the_chart_is_a_png_by_name(cli, out: Path, tmp_path: Path) -> None:
    result = cli("chart", out, "--player", "A", "-o", tmp_path / "chart.jpg")
    assert result.exit_code == 2
    assert "option -o: the chart is a PNG" in result.output
