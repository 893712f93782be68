"""`elo-batch report` without a browser: the public reader of OUT, the command's exit codes, the site's files.

The 2025 US Championship (sample_data/) is checked against FIDE's published numbers
(tests/data/fide-us-championship-2025): 30953499 went 2590 -> 2605 (+15, K 10, 5.5 of 11).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import polars as pl
import pytest

import elo_batch
from elo_batch.reportsite import sitefiles
from elo_batch.reportsite.jsontext import id_hash
from tests.conftest import ROOT

GAMES = ROOT / "sample_data" / "us-championship-2025-games.csv"
LIST = ROOT / "sample_data" / "ratings-2025-10.csv"
HOSTILE = '<img src=x onerror="window.__pwned=1">\u2028</script><script>window.__pwned=2</script>'


def us_out(cli, tmp_path: Path, *, extra: tuple[str, ...] = (), ratings: Path = LIST, name: str = "out") -> Path:
    """OUT of the US Championship run (``extra``: more flags of ``run``)."""
    out = tmp_path / name
    result = cli("run", GAMES, "--ratings", ratings, "--period", "2025-10", "--out", out, *extra)
    assert result.exit_code == 0, result.output
    return out


def hostile_list(tmp_path: Path) -> Path:
    """The sample list with a name (hostile for 2020009), a federation, a title and a sex column."""
    players = pl.read_csv(LIST, infer_schema=False)
    feds = ["USA" if i % 3 else "IND" for i in range(players.height)]
    players = players.with_columns(
        pl.when(pl.col("player_id") == "2020009")
        .then(pl.lit(HOSTILE))
        .otherwise("Player " + pl.col("player_id"))
        .alias("name"),
        pl.Series("federation", feds),
        pl.lit("GM").alias("title"),
    )  # fmt: skip
    path = tmp_path / "list-with-names.csv"
    players.write_csv(path)
    return path


def site_record(site: Path) -> dict:
    """The value data/site.js hands ELO.put."""
    return json.loads((site / "data/site.js").read_text().split(",", 1)[1].removesuffix(");\n"))


def test_read_period_gives_the_tables_the_run_wrote(cli, tmp_path: Path) -> None:
    out = us_out(cli, tmp_path)
    assert elo_batch.output_periods(out) == ("2025-10",)
    tables = elo_batch.read_period(out, "2025-10")
    assert (tables.ratings.height, tables.audit.height, tables.rejected.height) == (12, 132, 0)
    me = tables.ratings.filter(pl.col("player_id") == "30953499").row(0, named=True)
    assert (me["rating_before"], me["rating"], me["change"], me["k_used"], me["games"], me["score"]) == (
        2590, 2605, 15, 10, 11, 5.5
    )  # fmt: skip
    loss = tables.audit.filter((pl.col("player_id") == "30953499") & (pl.col("round") == "3")).row(0, named=True)
    got = (loss["opponent_id"], loss["score"], loss["expected_score"], loss["k_change"])
    assert got == ("24125890", 0.0, 0.4, -4.0)
    assert tables.manifest["counts"]["rows_read"] == 66
    assert tables.table_format == "parquet"
    narrow = elo_batch.read_period(out, "2025-10", tables=(), ratings_columns=("player_id", "rating", "name"))
    assert (narrow.ratings.columns, narrow.audit, narrow.rejected) == (["player_id", "period", "rating"], None, None)


def test_read_period_of_a_delta_output_reads_the_versions_the_manifest_names(cli, tmp_path: Path) -> None:
    out = us_out(cli, tmp_path, extra=("--table-format", "delta"))
    tables = elo_batch.read_period(out, "2025-10", tables=("audit",))
    assert tables.table_format == "delta"
    assert tables.rejected is None
    assert tables.audit.height == 132
    assert dict(zip(tables.ratings["player_id"], tables.ratings["rating"], strict=True))["30953499"] == 2605
    site = elo_batch.report(out).parent
    shard = site / "data/2025-10/players" / f"{id_hash(pl.Series(['30953499']), 16)[0]:x}.js"
    assert '"24125890"' in shard.read_text() and "-4.0" in shard.read_text()  # his round-3 loss, from the Delta audit


def test_read_period_refuses_a_missing_folder_and_a_missing_period(tmp_path: Path) -> None:
    with pytest.raises(elo_batch.InputMissingError, match="no such output folder"):
        elo_batch.read_period(tmp_path / "nowhere", "2025-10")
    assert not (tmp_path / "nowhere").exists()  # the lock never created it
    (tmp_path / "empty").mkdir()
    with pytest.raises(elo_batch.InputMissingError, match="holds no period"):
        elo_batch.output_periods(tmp_path / "empty")
    with pytest.raises(elo_batch.UsageError, match="not a month"):
        elo_batch.read_period(tmp_path / "empty", "2025-13")


def test_report_prints_the_index_and_writes_no_file_named_by_an_id(cli, tmp_path: Path) -> None:
    out = us_out(cli, tmp_path)
    result = cli("report", out)
    assert result.exit_code == 0, result.output
    site = out / "site"
    assert result.stdout.strip() == str(site / "index.html")
    files = [p for p in site.rglob("*") if p.is_file()]
    names = {p.relative_to(site).as_posix() for p in files}
    assert {"index.html", "player.html", "site.js", "site.css", "data/site.js", "data/2025-10/summary.js"} <= names
    assert not any(re.search(r"\d{6,}", name) for name in names)  # shards are named by a hash, never an id
    assert len([n for n in names if n.startswith("data/2025-10/players/")]) == 16
    index = (site / "index.html").read_text()
    assert "66 rows read = 66 counted" in index and 'href="player.html?id=30953499&amp;period=2025-10"' in index


def test_the_hostile_name_is_escaped_in_the_data_and_the_static_summary(cli, tmp_path: Path) -> None:
    out = us_out(cli, tmp_path, ratings=hostile_list(tmp_path))
    site = elo_batch.report(out, site=tmp_path / "site").parent
    for path in (site / "data").rglob("*.js"):
        text = path.read_text()
        assert "<" not in text and "\u2028" not in text and "\u2029" not in text, path
    assert "<img" not in (site / "index.html").read_text().split("<main>")[1].replace("<!--", "")
    bucket = id_hash(pl.Series(["2020009"]), 16)[0]
    shard = site / "data/2025-10/players" / f"{bucket:x}.js"
    payload = json.loads(shard.read_text().split(",", 1)[1].removesuffix(");\n"))
    assert payload["2020009"][0] == 0  # the top of the list


def test_report_exit_codes(cli, tmp_path: Path) -> None:
    assert cli("report", tmp_path / "missing").exit_code == 66
    out = us_out(cli, tmp_path)
    missing = cli("report", out, "--period", "2024-01")
    assert missing.exit_code == 66 and "holds 2025-10" in missing.output
    assert cli("report", out, "--period", "2025-1").exit_code == 2
    (tmp_path / "a-file").write_text("x")
    assert cli("report", out, "--site", tmp_path / "a-file").exit_code == 73
    foreign = tmp_path / "documents"
    foreign.mkdir()
    (foreign / "thesis.txt").write_text("keep me")
    refused = cli("report", out, "--site", foreign)
    assert refused.exit_code == 73 and "did not write" in refused.output
    assert (foreign / "thesis.txt").read_text() == "keep me"
    unwritable = cli("report", out, "--site", tmp_path / "a-file" / "site")  # its parent is a file
    assert unwritable.exit_code == 73 and "cannot write the site" in unwritable.output


def test_the_site_is_replaced_at_once_and_kept_when_a_report_fails(cli, tmp_path: Path, monkeypatch) -> None:
    out = us_out(cli, tmp_path)
    site = tmp_path / "site"
    elo_batch.report(out, site=site)
    (site / "data" / "old-file.js").write_text("left by an older report")
    elo_batch.report(out, site=site)
    assert not (site / "data" / "old-file.js").exists()
    before = sorted(p.relative_to(site) for p in site.rglob("*"))

    def broken(*args, **kwargs):
        raise elo_batch.OutputError("disk full", path=str(site))

    monkeypatch.setattr(sitefiles.SiteWriter, "commit", broken)
    with pytest.raises(elo_batch.OutputError):
        elo_batch.report(out, site=site)
    assert sorted(p.relative_to(site) for p in site.rglob("*")) == before
    assert [p.name for p in tmp_path.iterdir() if ".staging-" in p.name] == []


def test_report_of_a_range_of_chained_monthly_runs(cli, tmp_path: Path) -> None:
    """November rated from October's list in OUT: the site holds both periods and each player's history."""
    out = us_out(cli, tmp_path)
    november = tmp_path / "november.csv"
    november.write_text(
        "game_id,date,event_id,round,white_id,black_id,result\nn1,2025-11-03,E2,1,30953499,2020009,1-0\n"
    )
    result = cli("run", november, "--ratings", out / "ratings", "--period", "2025-11", "--out", out)
    assert result.exit_code == 0, result.output
    site = elo_batch.report(out, period="2025-10..2025-11").parent
    assert site_record(site)["periods"] == ["2025-10", "2025-11"]
    shards = "".join(p.read_text() for p in (site / "data/2025-11/players").iterdir())
    assert "[0,2590,2605,15,0]" in shards  # October (the first period of OUT): 2590 -> 2605, +15, not new
    assert '"1126881":[11,[[0,2577,2579,2,0],[1,2579,2579,0,0]],0,0]' in shards  # played in October only
    assert elo_batch.report(out).parent == site  # the default period: the latest, alone
    assert site_record(site)["periods"] == ["2025-11"]


def test_read_period_of_a_csv_output_undoes_the_formula_escape(cli, tmp_path: Path) -> None:
    players = pl.read_csv(LIST, infer_schema=False).with_columns(
        pl.when(pl.col("player_id") == "30953499").then(pl.lit("=HYPERLINK(1)")).otherwise(pl.lit("x")).alias("name")
    )
    players.write_csv(tmp_path / "list.csv")
    out = us_out(cli, tmp_path, ratings=tmp_path / "list.csv", extra=("--format", "csv"))
    assert "'=HYPERLINK(1)" in (out / "ratings/period=2025-10/part-0.csv").read_text()
    tables = elo_batch.read_period(out, "2025-10")
    me = tables.ratings.filter(pl.col("player_id") == "30953499").row(0, named=True)
    assert (me["name"], me["rating"], me["change"]) == ("=HYPERLINK(1)", 2605, 15)
    assert tables.audit.filter(pl.col("round") == "3", pl.col("player_id") == "30953499")["k_change"].item() == -4.0


def test_a_killed_reports_leftovers_are_removed_by_the_next_one_when_old(cli, tmp_path: Path) -> None:
    out = us_out(cli, tmp_path)
    old, fresh, foreign = (tmp_path / ".site.staging-old", tmp_path / ".site.staging-new", tmp_path / ".site.old-x")
    for folder in (old, fresh):
        folder.mkdir()
        (folder / sitefiles.MARKER).write_text("")
    foreign.mkdir()  # no marker: not elo-batch's
    os.utime(old / sitefiles.MARKER, (1, 1))
    elo_batch.report(out, site=tmp_path / "site")
    assert (not old.exists(), fresh.exists(), foreign.exists()) == (True, True, True)


def test_a_file_that_cannot_be_written_is_exit_73_and_the_old_site_stays(cli, tmp_path: Path, monkeypatch) -> None:
    out = us_out(cli, tmp_path)
    site = elo_batch.report(out).parent
    before = (site / "data/site.js").read_text()
    real = Path.write_bytes

    def full_disk(self: Path, data: bytes) -> int:
        if "players" in self.parts:
            raise OSError(28, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full_disk)
    result = cli("report", out)
    assert result.exit_code == 73 and "No space left on device" in result.output
    assert (site / "data/site.js").read_text() == before
    assert [p.name for p in out.iterdir() if ".staging-" in p.name] == []
