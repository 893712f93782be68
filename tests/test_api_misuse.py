"""The public API and the CLI misused as a new user would: wrong kinds of arguments, frames whose plan
fails, paths that are not what a parameter takes. Each gives an error of the right class that names the
parameter (the CLI: the flag), before anything is written, never a raw exception of another kind."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import elo_batch

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "sample_data" / "us-championship-2025-games.csv"
LIST = ROOT / "sample_data" / "ratings-2025-10.csv"
PGN = ROOT / "tests" / "data" / "pgn"


def _games() -> pl.DataFrame:
    return pl.read_csv(GAMES, infer_schema=False)


def _failing(frame: pl.DataFrame, column: str) -> pl.LazyFrame:
    """A LazyFrame whose plan raises a Python exception (a mapped function divides by zero) when run."""
    return frame.lazy().with_columns(pl.col(column).map_elements(lambda _: 1 // 0, return_dtype=pl.String))


@pytest.mark.parametrize("chunk_rows", [None, 10], ids=["in-memory", "streamed"])
def test_a_lazyframe_whose_plan_raises_is_an_input_data_error_naming_the_frame(chunk_rows: int | None) -> None:
    options = {} if chunk_rows is None else {"chunk_rows": chunk_rows}
    with pytest.raises(elo_batch.InputDataError, match=r"^games: the frame cannot be read: its plan fails") as caught:
        elo_batch.rate_period(_failing(_games(), "white_id"), period="2025-10", **options)
    assert caught.value.exit_code == 65 and "ZeroDivisionError" in str(caught.value)
    assert isinstance(caught.value.__cause__, ZeroDivisionError)  # the caller's own error, chained


def test_a_lazyframe_over_a_missing_file_is_an_input_missing_error(tmp_path: Path) -> None:
    with pytest.raises(elo_batch.InputMissingError, match=r"^games: the frame cannot be read") as caught:
        elo_batch.rate_period(pl.scan_csv(tmp_path / "gone.csv"), period="2025-10")
    assert caught.value.exit_code == 66


def test_failing_plans_of_the_list_and_the_events_name_their_parameter() -> None:
    ratings = pl.read_csv(LIST).with_columns(pl.col("rating").cast(pl.String))
    with pytest.raises(elo_batch.InputDataError, match=r"^ratings: the frame cannot be read"):
        elo_batch.rate_period(_games(), period="2025-10", ratings=_failing(ratings, "rating"))
    with pytest.raises(elo_batch.InputDataError, match=r"^events: the frame cannot be read"):
        elo_batch.rate_period(
            _games(), period="2025-10", events=_failing(pl.DataFrame({"event_id": ["1"]}), "event_id")
        )


def _result() -> elo_batch.PeriodResult:
    return elo_batch.rate_period(_games(), period="2025-10", ratings=pl.read_csv(LIST))


#: (what is called, the error class, the start of its message): a wrong kind is a TypeError naming the
#: parameter, a wrong value a UsageError of that option.
MISUSES: dict[str, tuple[Callable[[Path], object], type[Exception], str]] = {
    "write_period result None": (
        lambda out: elo_batch.write_period(None, out),
        TypeError,
        "result must be a PeriodResult",
    ),
    "write_period out None": (lambda out: elo_batch.write_period(_result(), None), TypeError, "out must be a path"),
    "write_period out ''": (
        lambda out: elo_batch.write_period(_result(), ""),
        elo_batch.UsageError,
        "option out: an empty path",
    ),
    "locked_output out 5": (lambda out: elo_batch.locked_output(5).__enter__(), TypeError, "out must be a path"),
    "run out None": (lambda out: elo_batch.run(GAMES, period="2025-10", out=None), TypeError, "out must be a path"),
    "run duckdb 5": (
        lambda out: elo_batch.run(GAMES, period="2025-10", out=out, duckdb=5),
        TypeError,
        "duckdb must be a path",
    ),
    "run on_period 5": (
        lambda out: elo_batch.run(GAMES, period="2025-10", out=out, on_period=5),
        TypeError,
        "on_period must be a function",
    ),
    "run lock_timeout 'x'": (
        lambda out: elo_batch.run(GAMES, period="2025-10", out=out, lock_timeout="x"),
        elo_batch.UsageError,
        "option lock_timeout: 'x' is not a number of seconds",
    ),
    "run lock_timeout -1": (
        lambda out: elo_batch.run(GAMES, period="2025-10", out=out, lock_timeout=-1),
        elo_batch.UsageError,
        "option lock_timeout: -1",
    ),
    "validate on_progress 5": (
        lambda out: elo_batch.validate(GAMES, on_progress=5),
        TypeError,
        "on_progress must be a function",
    ),
    "rate_period encoding 8": (
        lambda out: elo_batch.rate_period(GAMES, period="2025-10", encoding=8),
        elo_batch.UsageError,
        "option encoding: 8 is not a text encoding",
    ),
    "rate_game rating_a '2000'": (
        lambda out: elo_batch.rate_game("2000", 2000, 1),
        TypeError,
        "rating_a must be a number",
    ),
    "rate_game rating_b True": (lambda out: elo_batch.rate_game(2000, True, 1), TypeError, "rating_b must be a number"),
    "rate_game k 0": (
        lambda out: elo_batch.rate_game(2000, 2000, 1, k=0),
        elo_batch.UsageError,
        "option k: 0 is not a whole number from 1 to 100",
    ),
    "rate_game k 500": (lambda out: elo_batch.rate_game(2000, 2000, 1, k=500), elo_batch.UsageError, "option k: 500"),
    "rate_game k_b 20.5": (
        lambda out: elo_batch.rate_game(2000, 2000, 1, k_b=20.5),
        elo_batch.UsageError,
        "option k_b: 20.5",
    ),
    "rate_tournament rating None": (
        lambda out: elo_batch.rate_tournament(None, "2000 | 1"),
        TypeError,
        "rating must be a number",
    ),
    "rate_tournament k '20'": (
        lambda out: elo_batch.rate_tournament(2000, "2000 | 1", k="20"),
        elo_batch.UsageError,
        "option k: '20'",
    ),
    "rate_tournament results list": (
        lambda out: elo_batch.rate_tournament(2000, [(2000, 1)]),
        TypeError,
        "results must be text, bytes, a path or a binary stream",
    ),
    "import_pgn files None": (lambda out: elo_batch.import_pgn(None, out / "g.csv"), TypeError, "files must be a path"),
    "import_pgn files []": (
        lambda out: elo_batch.import_pgn([], out / "g.csv"),
        elo_batch.UsageError,
        "option files: no file given",
    ),
    "import_pgn csv_formulas": (
        lambda out: elo_batch.import_pgn(PGN / "tatamast22.pgn", out / "g.csv", csv_formulas="esc"),
        elo_batch.UsageError,
        "option csv_formulas: 'esc'",
    ),
    "import_trf file 5": (lambda out: elo_batch.import_trf(5, out / "g.csv"), TypeError, "file must be a path"),
    "import_fide_list file 5": (
        lambda out: elo_batch.import_fide_list(5, out / "l.csv"),
        TypeError,
        "file must be a path",
    ),
    "import_fide_list list_kind": (
        lambda out: elo_batch.import_fide_list(GAMES, out / "l.csv", list_kind="Rapid"),
        elo_batch.UsageError,
        "option list_kind: 'Rapid'",
    ),
    "rating_history out None": (lambda out: elo_batch.rating_history(None, "1"), TypeError, "out must be a path"),
    "rating_history player 1.5": (
        lambda out: elo_batch.rating_history(out, 1.5),
        TypeError,
        "player must be a player_id",
    ),
}


@pytest.mark.parametrize("case", list(MISUSES))
def test_a_misused_argument_is_an_error_naming_it_and_nothing_is_written(case: str, tmp_path: Path) -> None:
    call, kind, start = MISUSES[case]
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(kind) as caught:
        call(out)
    assert str(caught.value).startswith(start), str(caught.value)
    assert not any(out.iterdir()) and not (Path.cwd() / "ratings").exists()


def test_import_pgn_takes_one_path_as_well_as_a_list(tmp_path: Path) -> None:
    pgn = PGN / "tatamast22.pgn"
    one = elo_batch.import_pgn(pgn, tmp_path / "one.csv")
    listed = elo_batch.import_pgn([str(pgn)], tmp_path / "listed.csv")
    assert one.rows == listed.rows > 0
    assert (tmp_path / "one.csv").read_text() == (tmp_path / "listed.csv").read_text()


def test_rating_history_takes_an_integer_player_id(tmp_path: Path) -> None:
    elo_batch.run(GAMES, period="2025-10", out=tmp_path / "out", ratings=LIST)
    assert elo_batch.rating_history(tmp_path / "out", 30953499) == elo_batch.rating_history(
        tmp_path / "out", "30953499"
    )


def test_a_ratings_period_of_a_list_file_is_a_usage_error(cli, tmp_path: Path) -> None:
    with pytest.raises(elo_batch.UsageError, match=r"^option ratings_period: .* is a file"):
        elo_batch.rate_period(GAMES, period="2025-10", ratings=LIST, ratings_period="2025-09")
    result = cli.run(f"run {GAMES} --period 2025-10 --ratings {LIST} --ratings-period 2025-09")
    assert result.exit_code == 2 and "option --ratings-period:" in result.stderr
    assert "leave out --ratings-period" in result.stderr


def test_a_ratings_period_the_table_lacks_names_the_periods_it_holds(tmp_path: Path) -> None:
    elo_batch.run(GAMES, period="2025-10", out=tmp_path / "out", ratings=LIST)
    with pytest.raises(elo_batch.InputMissingError, match="the ratings table has no period 2025-07") as caught:
        elo_batch.rate_period(GAMES, period="2025-08", ratings=tmp_path / "out" / "ratings", ratings_period="2025-07")
    assert caught.value.hint is not None and caught.value.hint.startswith("it holds 2025-10")


def test_a_parquet_file_with_two_columns_of_one_name_says_so(cli, tmp_path: Path) -> None:
    table = _games().to_arrow()
    doubled = pa.Table.from_arrays([*table.columns, table.column("result")], names=[*table.column_names, "result"])
    pq.write_table(doubled, tmp_path / "doubled.parquet")
    with pytest.raises(elo_batch.InputDataError, match="columns 'result' and 'result' both mean 'result'"):
        elo_batch.rate_period(tmp_path / "doubled.parquet", period="2025-10")
    result = cli.run(f"run {tmp_path / 'doubled.parquet'} --period 2025-10")
    assert result.exit_code == 65 and "not a readable Parquet file" not in result.stderr


def test_the_run_help_shows_the_delta_extra(cli) -> None:
    result = cli("run", "--help")
    assert "elo-batch[delta]" in re.sub(r"\s+", "", result.stdout)


def test_a_warning_names_the_parameter_in_the_library_and_the_flag_in_the_cli(cli) -> None:
    games = _games()
    rated = elo_batch.rate_period(games, period="2025-10", ratings=None)
    warning = next(w for w in rated.warnings if "no player has a rating" in w)
    assert warning.endswith("Hint: give the list in force with ratings.") and "--" not in warning
    result = cli.run(f"run {GAMES} --ratings none --period 2025-10 --log-format json")
    assert "Hint: give the list in force with --ratings." in result.stderr


def _flags_in_library_text() -> list[str]:
    """String constants outside ``cli/`` (docstrings aside) that name a CLI flag (``--ratings``)."""
    flag = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
    found = []
    for path in sorted((ROOT / "elo_batch").rglob("*.py")):
        if "cli" in path.relative_to(ROOT / "elo_batch").parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        documented = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        found += [
            f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:80]!r}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in documented
            and flag.search(node.value)
        ]  # fmt: skip
    return found


def test_library_messages_name_parameters_never_cli_flags() -> None:
    """A library message names an option through ``errors.option`` (the CLI renders it as the flag)."""
    assert _flags_in_library_text() == []
