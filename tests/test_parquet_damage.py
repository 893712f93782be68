"""A damaged Parquet file (truncated, a garbage footer, a bad page, one that makes polars panic) is exit 65
naming the file, and nothing of Rust's panic text reaches stderr (issue 20, "Also": it printed
``thread '...' panicked at ...`` above the clean message). Games files and rating lists, read whole
or streamed.
"""

from __future__ import annotations

import random
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import write_csv

DAMAGED = Path(__file__).parent / "data" / "damaged"
GAMES = "white_id,black_id,result,date\nA,B,1-0,2025-10-03\n"


def _list_file(tmp_path: Path) -> Path:
    path = tmp_path / "whole.parquet"
    rows = 20_000
    pl.DataFrame({"player_id": [f"w{i}" for i in range(rows)], "rating": [2000] * rows}).write_parquet(path)
    return path


def _damaged(tmp_path: Path, how: str) -> Path:
    """A file damaged ``how``: one of the test data's (they make polars panic), or a generated one."""
    if how.endswith(".parquet"):
        return DAMAGED / how
    data = bytearray(_list_file(tmp_path).read_bytes())
    if how == "truncated":
        data = data[: len(data) // 2]
    elif how == "garbage-footer":
        data[-200:-8] = bytes((b * 7 + 3) & 255 for b in data[-200:-8])
    elif how == "bytes-changed":  # 20 random bytes: makes polars panic in its reader of byte ranges
        rng = random.Random(0)
        for _ in range(20):
            at = rng.randrange(4, len(data) - 8)
            data[at] = rng.randrange(256)
    path = tmp_path / f"{how}.parquet"
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("how", ["footer-panic.parquet", "page-panic.parquet", "truncated", "garbage-footer",
                                 "bytes-changed"])  # fmt: skip
@pytest.mark.parametrize("role", ["games", "ratings"])
@pytest.mark.parametrize("stream", [False, True])
def test_a_damaged_parquet_file_is_exit_65_without_panic_text(cli, tmp_path, capfd, how, role, stream) -> None:
    damaged = _damaged(tmp_path, how)
    games = damaged if role == "games" else write_csv(tmp_path / "g.csv", GAMES)
    extra = ["--ratings", damaged] if role == "ratings" else []
    capfd.readouterr()

    result = cli(
        "run", games, "--period", "2025-10", "--out", tmp_path / "out", *extra,
        *(["--chunk-rows", "1"] if stream else []),
    )  # fmt: skip

    err = capfd.readouterr().err
    assert result.exit_code == 65, result.output
    assert f"elo-batch: error: {damaged}: " in result.output
    assert "panicked" not in err and "RUST_BACKTRACE" not in err, err
    assert not (tmp_path / "out").exists()
