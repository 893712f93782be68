"""The published output schemas (elo_batch.schemas, dataframely): a real month passes them in every format,
a tampered table fails with the rule it breaks, and a run never imports dataframely.

Every other test that runs the CLI or the engines checks its outputs with them too (tests/conftest.py
``Cli.run`` and ``read_table``, tests/engines.py ``valid``).
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import dataframely as dy
import polars as pl
import pytest

import elo_batch
from elo_batch import columns as c
from elo_batch.schemas import SCHEMAS, Audit, Ratings, Rejected
from tests.conftest import ROOT

GAMES = ROOT / "sample_data" / "us-championship-2025-games.csv"
LIST = ROOT / "sample_data" / "ratings-2025-10.csv"


@pytest.fixture(scope="module")
def month(tmp_path_factory: pytest.TempPathFactory) -> elo_batch.OutputTables:
    """The 2025 US Championship rated as ``elo-batch run`` writes it (Parquet), its list carrying a
    column of its own (``federation``), and one game row that cannot be used (a result ``2-0``)."""
    folder = tmp_path_factory.mktemp("schemas")
    ratings = pl.read_csv(LIST).with_columns(pl.lit("USA").alias("federation"))
    ratings.write_csv(folder / "list.csv")
    games = pl.read_csv(GAMES, infer_schema=False)
    bad = games.head(1).with_columns(pl.lit("bad-1").alias(c.GAME_ID), pl.lit("2-0").alias(c.RESULT))
    pl.concat([games, bad]).write_csv(folder / "games.csv")
    elo_batch.run([folder / "games.csv"], period="2025-10", ratings=folder / "list.csv", out=folder / "out")
    return elo_batch.read_period(folder / "out", "2025-10")


def test_a_real_month_passes_every_schema(month: elo_batch.OutputTables) -> None:
    ratings = Ratings.validate(month.ratings)
    audit = Audit.validate(month.audit)
    rejected = Rejected.validate(month.rejected)
    assert ratings.height == 12 and set(ratings[c.STATUS].cast(pl.String)) == {"rated"}
    assert ratings.columns == list(c.RATINGS_OUTPUT)  # the list's own federation allowed, not returned
    assert month.ratings["federation"].to_list() == ["USA"] * 12
    assert audit.height == 132 and audit[c.COUNTED].all()
    assert rejected.rows() == [
        ("2025-10", rejected[c.SOURCE_FILE][0], 67, c.RESULT, "2-0", rejected[c.REASON][0], rejected[c.RAW][0])
    ]
    assert rejected[c.SOURCE_FILE][0].endswith("games.csv") and '"2-0"' in rejected[c.RAW][0]


def test_the_schemas_hold_the_contracts_columns_in_order() -> None:
    assert Ratings.column_names() == list(c.RATINGS_OUTPUT)
    assert Audit.column_names() == list(c.AUDIT_OUTPUT)
    assert Rejected.column_names() == list(c.REJECTED_OUTPUT)
    assert Ratings.primary_key() == [c.PLAYER_ID, c.PERIOD]
    assert dict(SCHEMAS) == {"ratings": Ratings, "audit": Audit, "rejected": Rejected}


def _failures(schema: type[dy.Schema], frame: pl.DataFrame) -> dict[str, int]:
    """The rules ``frame`` fails, with how many rows fail each (``validate`` raises naming the same)."""
    with pytest.raises(dy.exc.ValidationError):
        schema.validate(frame)
    _, failed = schema.filter(frame)
    return failed.counts()


def _first_row(name: str, value: object, dtype: pl.DataType | None = None) -> pl.Expr:
    """Column ``name`` with ``value`` in the first row, the others as they are."""
    return pl.when(pl.int_range(pl.len()) == 0).then(pl.lit(value, dtype)).otherwise(pl.col(name)).alias(name)


def test_a_status_outside_the_contracts_values_fails(month: elo_batch.OutputTables) -> None:
    retired = month.ratings.with_columns(_first_row(c.STATUS, "retired"))
    assert _failures(Ratings, retired) == {"status|check__values": 1}


def test_a_colour_and_a_reason_outside_the_contracts_values_fail(month: elo_batch.OutputTables) -> None:
    audit = month.audit.with_columns(_first_row(c.COLOUR, "red"), _first_row(c.COUNTED, False))
    audit = audit.with_columns(_first_row(c.REASON, "bye"))
    assert _failures(Audit, audit) == {"colour|check__values": 1, "reason|check__values": 1}


def test_a_period_that_is_not_a_month_fails(month: elo_batch.OutputTables) -> None:
    assert _failures(Rejected, month.rejected.with_columns(_first_row(c.PERIOD, "2025-13"))) == {
        "period|check__month": 1
    }


def test_a_null_in_a_required_column_fails(month: elo_batch.OutputTables) -> None:
    no_games = month.ratings.with_columns(_first_row(c.GAMES, None, pl.Int64()))
    assert _failures(Ratings, no_games) == {"games|nullability": 1}
    no_reason = month.rejected.with_columns(_first_row(c.REASON, None, pl.String()))
    assert _failures(Rejected, no_reason) == {"reason|nullability": 1}


def test_a_rating_and_an_unrated_status_contradicting_each_other_fail(month: elo_batch.OutputTables) -> None:
    no_rating = month.ratings.with_columns(_first_row(c.RATING, None, pl.Int64()))
    assert _failures(Ratings, no_rating) == {"rating_unless_unrated": 1}


def test_a_counted_side_with_a_reason_fails(month: elo_batch.OutputTables) -> None:
    audit = month.audit.with_columns(_first_row(c.REASON, c.FORFEIT))
    assert _failures(Audit, audit) == {"reason_unless_counted": 1}


def test_a_player_twice_in_a_period_fails(month: elo_batch.OutputTables) -> None:
    twice = pl.concat([month.ratings, month.ratings.head(1)])
    assert _failures(Ratings, twice) == {"primary_key": 2}
    next_month = month.ratings.with_columns(pl.lit("2025-11").alias(c.PERIOD))
    assert Ratings.is_valid(pl.concat([month.ratings, next_month]))  # the key is player and period


def test_a_wrong_type_fails_naming_the_column(month: elo_batch.OutputTables) -> None:
    with pytest.raises(dy.exc.SchemaError, match=r"'games', got: Float64, expected: int64"):
        Ratings.validate(month.ratings.with_columns(pl.col(c.GAMES).cast(pl.Float64)))
    with pytest.raises(dy.exc.SchemaError, match=r"'player_id', got: Float64, expected: string or int64"):
        Audit.validate(month.audit.with_columns(pl.col(c.PLAYER_ID).cast(pl.Float64)))
    with pytest.raises(dy.exc.SchemaError, match=r"missing columns for schema 'Rejected': 'raw'"):
        Rejected.validate(month.rejected.drop(c.RAW))


def test_ids_may_be_int64_or_text_and_text_string_or_categorical(month: elo_batch.OutputTables) -> None:
    as_ints = month.ratings.with_columns(pl.col(c.PLAYER_ID).cast(pl.Int64))
    assert Ratings.validate(as_ints)[c.PLAYER_ID].dtype == pl.Int64
    as_categories = month.audit.with_columns(pl.col(c.PERIOD, c.REASON).cast(pl.Categorical))
    assert Audit.validate(as_categories)[c.PERIOD].dtype == pl.Categorical
    assert not Ratings.is_valid(month.ratings.with_columns(pl.col(c.PLAYER_ID).cast(pl.Int32)))


def test_integer_ids_fractional_ratings_and_the_api_result_pass() -> None:
    games = pl.read_csv(GAMES)  # integer player ids
    result = elo_batch.rate_period(games, period="2025-10", ratings=pl.read_csv(LIST), rounding="none")
    ratings = Ratings.validate(result.ratings)
    assert ratings.schema[c.PLAYER_ID] == pl.Int64 and ratings.schema[c.RATING] == pl.Decimal(12, 2)
    audit = Audit.validate(result.audit.collect())
    assert audit.schema[c.OPPONENT_ID] == pl.Int64 and audit.schema[c.CAPPED] == pl.Boolean
    Rejected.validate(result.rejected)


def test_a_csv_month_reads_back_as_the_parquet_month_with_fractional_ratings(tmp_path: Path) -> None:
    """read_period typed a CSV output's ratings as Int64 only: ``rounding="none"``'s 2579.10 read as null."""
    months = {}
    for format in ("parquet", "csv"):
        out = tmp_path / format
        elo_batch.run([GAMES], period="2025-10", ratings=LIST, out=out, format=format, rounding="none")
        months[format] = elo_batch.read_period(out, "2025-10")
    parquet, csv = months["parquet"], months["csv"]
    for name, schema in SCHEMAS.items():
        schema.validate(getattr(csv, name))
    first = csv.ratings.filter(pl.col(c.PLAYER_ID) == "1126881").row(0, named=True)
    assert (first[c.RATING], first[c.RATING_BEFORE], first[c.CHANGE]) == (
        Decimal("2579.10"), Decimal("2577.00"), Decimal("2.10")
    )  # fmt: skip
    kept = [n for n in c.RATINGS_OUTPUT if n not in (c.STATUS, c.BAND, c.PERIOD)]  # Categorical in Parquet
    assert csv.ratings.select(kept).equals(parquet.ratings.select(kept))
    assert csv.audit[c.RATING].dtype == pl.Decimal(12, 2)
    assert csv.audit[c.K_CHANGE].to_list() == parquet.audit[c.K_CHANGE].to_list()


def test_without_dataframely_the_import_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "elo_batch.schemas")
    monkeypatch.setitem(sys.modules, "dataframely", None)  # makes `import dataframely` raise ImportError
    with pytest.raises(ImportError, match=r"elo_batch\.schemas needs dataframely: pip install 'elo-batch\[schemas\]'"):
        importlib.import_module("elo_batch.schemas")


def test_a_run_never_imports_dataframely(tmp_path: Path) -> None:
    out = str(tmp_path / "out")
    script = (
        "import sys, elo_batch\n"
        f"elo_batch.run([{str(GAMES)!r}], period='2025-10', ratings={str(LIST)!r}, out={out!r})\n"
        f"elo_batch.read_period({out!r}, '2025-10')\n"
        "print(sorted(m for m in sys.modules if m.startswith(('dataframely', 'pydantic', 'elo_batch.schemas'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == "[]"
