"""Fuzzing the inputs: random bytes, random cells in valid files, odd column names, huge, negative and NaN
numbers, random dates, damaged Parquet, in games files and rating lists, CSV and Parquet.

Whatever the file, ``elo-batch run`` exits 0 (bad rows rejected), 65 (bad input) or 66 (unreadable),
prints no traceback, leaves no staging folder in OUT, and every period it wrote is complete: the three
tables and the manifest, each file as the manifest records it. A seeded loop, a few seconds in all;
``ELO_BATCH_FUZZ_CASES=500`` runs more cases of each kind (and ``ELO_BATCH_FUZZ_SEED`` others).
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import io
import json
import os
import random
import re
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from elo_batch.cli.app import app
from elo_batch.outputs.atomic import STAGING_PREFIX
from tests.conftest import reconciliation

CASES = int(os.environ.get("ELO_BATCH_FUZZ_CASES", "4"))
SEED = int(os.environ.get("ELO_BATCH_FUZZ_SEED", "20261201"))
TABLES = ("ratings", "audit", "rejected")

#: Column names a file may have: the contract's, elo-batch's own working names, and odd ones.
NAMES = [
    "white_id", "black_id", "result", "date", "period", "game_id", "event_id", "round", "white_rating",
    "black_rating", "player_id", "opponent_id", "opponent_rating", "player_rating", "score", "rating", "k",
    "birth_year", "games_total", "reached_2400", "reached_2300", "pending", "source_row", "source_file",
    "row_key", "__ragged__", "__raw_result", "__index_date", "__failed", "__idx", "__token", "score100",
    "~x", "", " ", "White ID", "RESULT", "Date ", "\ufeffwhite_id", 'a"b', "a,b", "é", "column_1", "__", "~",
]  # fmt: skip
#: Cell values: valid ones and traps (huge, negative, NaN, odd dates, separators, quotes, control bytes).
CELLS = [
    "A", "B", "C", "0123", "123", "1-0", "0-1", "1/2-1/2", "½-½", "+--", "--", "1", "0.5", "0", "2000", "1900",
    "2000.0", "2.000", "-5", "+2000", "0", "3500", "1e308", "-1e308", "NaN", "nan", "inf", "-inf",
    "99999999999999999999", "9223372036854775808", "-9223372036854775809", "2025-11-03", "2025-11-31",
    "2025-02-30", "9999-12-31", "0000-01-01", "10000-01-01", "-001-01-01", "2025-11-03T23:59:60Z",
    "2025-11-03T25:00", "2025-11", "2025-13", "0000-00", "", " ", '"', '""', "a,b", "a;b", "\t", "x\ny",
    "=cmd", "true", "no", "2025-11:1:1:1800", "2025-13:1:1:1800", "\x00", "\x1f", "\u202e", "🂡",
]  # fmt: skip
GAMES = "game_id,date,white_id,black_id,result,white_rating,black_rating\n" + "\n".join(
    f"{i},2025-11-{1 + i % 28:02d},{'ABC'[i % 3]},{'BCA'[i % 3]},{['1-0', '0-1', '1/2-1/2'][i % 3]},2000,1900"
    for i in range(12)
)
LIST = "player_id,rating,k,birth_year,games_total,name\nA,2000,20,1990,100,Ann\nB,1900,20,2010,5,Bob\nC,2100,10,,,"


def _csv_cells(rng: random.Random, text: str) -> str:
    """A valid CSV with random cells (and sometimes random header names) replaced."""
    lines = [line.split(",") for line in text.split("\n")]
    for _ in range(rng.randint(1, 8)):
        row = rng.randrange(len(lines))
        col = rng.randrange(len(lines[row]))
        lines[row][col] = rng.choice(NAMES if row == 0 else CELLS)
    if rng.random() < 0.2:
        lines[0].append(rng.choice(NAMES))
    return "\n".join(",".join(cells) for cells in lines)


def _random_bytes(rng: random.Random) -> bytes:
    head = rng.choice([b"", b"white_id,black_id,result,date\n", b"PAR1", b"\x1f\x8b", b"PK\x03\x04", b"\xef\xbb\xbf"])
    return head + rng.randbytes(rng.randint(0, 300))


def _typed_column(rng: random.Random, rows: int) -> pl.Series:
    """A Parquet column of a random type holding random (often hostile) values, sometimes one value in
    every row (a file of the largest date32 only, ...)."""
    values = _typed_values(rng, rows)
    return values.gather([0] * rows) if rng.random() < 0.3 else values


def _typed_values(rng: random.Random, rows: int) -> pl.Series:
    kind = rng.choice(["float", "int", "date", "datetime", "text", "bool", "null", "list", "categorical"])
    if kind == "float":
        pool = [0.0, 1.0, 1.5, -5.0, 2.0**53, 2.0**63, 1e308, float("nan"), float("inf"), 2000.0, None]
        return pl.Series([rng.choice(pool) for _ in range(rows)], dtype=pl.Float64)
    if kind == "int":
        return pl.Series([rng.choice([0, 1, -1, 2000, 2**62, -(2**63), None]) for _ in range(rows)], dtype=pl.Int64)
    if kind == "date":
        pool = [20_395, 2**31 - 1, -(2**31), 2_932_896, 2_932_897, -719_529, None]
        return pl.Series([rng.choice(pool) for _ in range(rows)], dtype=pl.Int32).cast(pl.Date)
    if kind == "datetime":
        pool = [1_762_128_000_000_000, 2**62, -(2**62), 2**63 - 1, None]
        unit = rng.choice(["us", "ms", "ns"])
        zone = rng.choice([None, "Europe/Berlin", "America/New_York"])
        values = pl.Series([rng.choice(pool) for _ in range(rows)], dtype=pl.Int64)
        return values.cast(pl.Datetime(unit, zone))
    if kind == "bool":
        return pl.Series([rng.choice([True, False, None]) for _ in range(rows)], dtype=pl.Boolean)
    if kind == "null":
        return pl.Series([None] * rows, dtype=pl.Null)
    if kind == "list":
        return pl.Series([[rng.choice(CELLS)] for _ in range(rows)], dtype=pl.List(pl.String))
    texts = pl.Series([rng.choice(CELLS) for _ in range(rows)], dtype=pl.String)
    return texts.cast(pl.Categorical) if kind == "categorical" else texts


def _parquet(frame: pl.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.write_parquet(buffer)
    return buffer.getvalue()


def _typed_parquet(rng: random.Random, text: str) -> bytes:
    """A valid table as Parquet, some of its columns replaced by (or added as) random typed columns."""
    frame = pl.read_csv(io.StringIO(text), infer_schema=False)
    for _ in range(rng.randint(1, 4)):
        name = rng.choice([*frame.columns, *NAMES[:30]])
        if name.strip():
            frame = frame.with_columns(_typed_column(rng, frame.height).alias(name))
    return _parquet(frame)


def _damaged_parquet(rng: random.Random, text: str) -> bytes:
    data = bytearray(_parquet(pl.read_csv(io.StringIO(text), infer_schema=False)))
    for _ in range(rng.randint(1, 4)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


#: kind -> (file suffix, maker of the file's bytes from a random generator and a valid CSV text).
KINDS: dict[str, tuple[str, Callable[[random.Random, str], bytes]]] = {
    "csv-cells": (".csv", lambda rng, text: _csv_cells(rng, text).encode()),
    "csv-gz-cells": (".csv.gz", lambda rng, text: gzip.compress(_csv_cells(rng, text).encode(), mtime=0)),
    "csv-bytes": (".csv", lambda rng, text: _random_bytes(rng)),
    "parquet-typed": (".parquet", _typed_parquet),
    "parquet-damaged": (".parquet", _damaged_parquet),
    "parquet-bytes": (".parquet", lambda rng, text: _random_bytes(rng)),
}


def _assert_out_is_whole(out: Path) -> None:
    """No staging folder; every period written has its three tables and its manifest, each file as the
    manifest records it (size, sha256, rows)."""
    if not out.exists():
        return
    assert not [p.name for p in out.iterdir() if p.name.startswith(STAGING_PREFIX)], "a staging folder is left"
    manifests = {p.parent.name: p for p in out.glob("manifest/period=*/manifest.json")}
    for table in TABLES:
        assert {p.name for p in out.glob(f"{table}/period=*")} == set(manifests), f"{table} partitions differ"
    for manifest_file in manifests.values():
        manifest = json.loads(manifest_file.read_text())
        for table in TABLES:
            [part] = (out / table / manifest_file.parent.name).iterdir()
            record = manifest["objects"][table]
            data = part.read_bytes()
            assert (len(data), hashlib.sha256(data).hexdigest()) == (record["size"], record["sha256"]), part
            frame = pl.read_csv(part, infer_schema=False) if part.suffix == ".csv" else pl.read_parquet(part)
            assert frame.height == record["rows"], part


@pytest.mark.parametrize("role", ["games", "ratings"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_any_input_file_ends_in_0_65_or_66_and_leaves_out_whole(tmp_path: Path, kind: str, role: str) -> None:
    suffix, make = KINDS[kind]
    rng = random.Random(f"{SEED}-{kind}-{role}")
    runner = CliRunner()
    seen: set[int] = set()
    for case in range(CASES):
        data = make(rng, GAMES if role == "games" else LIST)
        games = tmp_path / f"games-{case}{suffix if role == 'games' else '.csv'}"
        games.write_bytes(data if role == "games" else GAMES.encode())
        rating_list = tmp_path / f"list-{case}{suffix if role == 'ratings' else '.csv'}"
        rating_list.write_bytes(data if role == "ratings" else LIST.encode())
        out = tmp_path / f"out-{case}"
        with_list = role == "ratings" or rng.random() < 0.5
        options = [
            *rng.choice([["--period", "2025-11"], ["--period", "2025-10..2025-12"]]),
            *rng.choice([[], ["--chunk-rows", "1"]]),
            *rng.choice([[], ["--format", "csv"]]),
            *(["--ratings", str(rating_list)] if with_list else []),
        ]
        argv = ["run", str(games), *options, "--out", str(out)]

        result = runner.invoke(app, argv)

        where = f"case {case} of {kind}/{role}: {argv}\nfile bytes: {data[:400]!r}\noutput:\n{result.output}"
        assert not isinstance(result.exception, BaseException) or isinstance(result.exception, SystemExit), (
            f"{where}\n{result.exception!r}"
        )
        assert result.exit_code in (0, 65, 66), where
        assert "Traceback" not in result.output and "internal error" not in result.output, where
        if result.exit_code == 0:
            reconciliation(result.output)  # every row accounted for
        else:
            assert re.search(r"^elo-batch: error: .+", result.output, re.MULTILINE), where
        _assert_out_is_whole(out)
        seen.add(result.exit_code)
    if CASES >= 4 and role == "games" and kind in ("csv-cells", "parquet-typed"):
        assert 0 in seen, "no case ran through: the fuzzing tests nothing but refusals"


def test_the_fuzzed_values_include_the_hostile_ones() -> None:
    """The pools hold what the issue names: huge, negative and NaN numbers, dates out of range."""
    assert {"1e308", "-5", "NaN", "99999999999999999999", "10000-01-01", "0000-01-01"} <= set(CELLS)
    assert {"row_key", "__ragged__", "__raw_result", "source_row"} <= set(NAMES)
    assert dt.date(9999, 12, 31) == pl.Series([2_932_896], dtype=pl.Int32).cast(pl.Date).item()
