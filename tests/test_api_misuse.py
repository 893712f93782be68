"""The public API and the CLI misused as a new user would: wrong kinds of arguments, frames whose plan
fails, paths that are not what a parameter takes. Each gives an error of the right class that names the
parameter (the CLI: the flag), before anything is written, never a raw exception of another kind."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import elo_batch

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "sample_data" / "us-championship-2025-games.csv"
LIST = ROOT / "sample_data" / "ratings-2025-10.csv"


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
