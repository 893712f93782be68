"""`elo-batch report` in a real browser: Chromium (Debian's package) driven by Playwright, the site from file://.

FIDE's published calculation of 30953499 at the 2025 US Championship (tests/data/fide-us-championship-2025):
11 games, 5.5 points, K 10, the round-3 loss to 24125890 at -0.40 x 10 = -4.0, in all +15.30, 2605 on the
November list. Chromium is launched by ``executable_path`` (``playwright install`` downloads and is never
run); without it or Playwright the tests skip with the reason, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import polars as pl
import pytest

import elo_batch
from tests.conftest import ROOT
from tests.test_report import LIST, hostile_list, us_out

CHROMIUM = Path(os.environ.get("ELO_BATCH_CHROMIUM", "/usr/bin/chromium"))
DELOITTE = ROOT.parent / "shared" / "data" / "deloitte-fide-chess-rating-challenge-test" / "test.csv"


def _missing() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (pip install 'elo-batch[test]')"
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


@pytest.fixture(scope="module")
def browser():
    missing = _missing()
    if missing is not None:
        if os.environ.get("CI") != "true":
            pytest.skip(f"browser tests skipped: {missing}")
        pytest.fail(f"CI runs the browser tests, but {missing}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield chromium
        chromium.close()


class Visit:
    """A page of the browser that records every request, dialog and script error."""

    def __init__(self, browser, site: Path) -> None:
        self.site = site
        self.page = browser.new_page()
        self.requests: list[str] = []
        self.problems: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda error: self.problems.append(f"script error: {error}"))
        self.page.on("dialog", lambda dialog: (self.problems.append(f"dialog: {dialog.message}"), dialog.dismiss()))

    def open(self, address: str, ready: str):
        self.page.goto(f"{self.site.as_uri()}/{address}")
        self.page.wait_for_selector(ready, timeout=5000)
        return self.page

    def outside(self) -> list[str]:
        return [url for url in self.requests if not url.startswith(self.site.as_uri() + "/")]


def wait_for_rows(page, count: int) -> None:
    """Wait until the list shows ``count`` rows (Playwright's expect: the pages' CSP refuses eval)."""
    from playwright.sync_api import expect

    expect(page.locator("#list tbody tr")).to_have_count(count, timeout=5000)


@pytest.fixture(scope="module")
def us_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of the US Championship run on the sample list (no name, no federation)."""
    from tests.conftest import Cli

    tmp = tmp_path_factory.mktemp("us-site")
    return elo_batch.report(us_out(Cli(tmp), tmp)).parent


@pytest.fixture(scope="module")
def named_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same run on a list with names (one hostile), federations and titles."""
    from tests.conftest import Cli

    tmp = tmp_path_factory.mktemp("named-site")
    return elo_batch.report(us_out(Cli(tmp), tmp, ratings=hostile_list(tmp))).parent


def test_player_page_shows_fides_calculation(browser, us_site: Path) -> None:
    visit = Visit(browser, us_site)
    page = visit.open("player.html?id=30953499&period=2025-10", "section.event")
    blocks = page.locator("section.event")
    assert blocks.count() == 1
    summary = blocks.locator("table.event-summary tbody td").all_inner_texts()
    assert summary == ["2693", "2590", "5.5", "11", "+1.53", "10", "+15.30"]  # Rc Ro w n chg K K*chg
    games = blocks.locator("table.games tbody tr")
    assert games.count() == 11
    third = games.nth(2).locator("td").all_inner_texts()
    # Rd, opponent, Pts, chg, K, K*chg
    assert [third[i] for i in (0, 2, 4, 5, 6, 7)] == ["3", "24125890", "0", "-0.40", "10", "-4.00"]
    totals = page.locator("table.totals tbody td").all_inner_texts()
    assert (totals[0], totals[3], totals[4], totals[5]) == ("2590", "+15.30", "+15", "2605")
    header = page.locator("table.games thead th").all_inner_texts()  # the list has no name, title, federation
    assert header == ["Rd", "", "Opponent", "Rtg", "Pts", "chg", "K", "K*chg"]
    assert visit.problems == [] and visit.outside() == []


def test_search_by_id_finds_the_player_and_the_list_hides_missing_columns(browser, us_site: Path) -> None:
    visit = Visit(browser, us_site)
    page = visit.open("index.html", "#list tbody tr")
    assert page.locator("#list tbody tr").count() == 12
    assert "name" not in page.locator("#list thead th").all_inner_texts()  # the list has no names
    assert page.locator("#filters select").count() == 2  # status and band: what the list has
    page.fill("#search", "30953499")
    page.click("#controls button[type=submit]")
    wait_for_rows(page, 1)
    row = page.locator("#list tbody tr td").all_inner_texts()
    assert row[:3] == ["11", "30953499", "2605"]
    page.click("#list tbody a")
    page.wait_for_selector("section.event")
    assert page.url.endswith("player.html?id=30953499&period=2025-10")
    assert visit.problems == [] and visit.outside() == []


def test_a_hostile_name_is_shown_as_text_and_runs_no_script(browser, named_site: Path) -> None:
    visit = Visit(browser, named_site)
    page = visit.open("index.html", "#list tbody tr")
    assert page.locator("#list tbody tr").first.locator("td").nth(2).inner_text().startswith("<img src=x")
    page.fill("#search", "<img")  # a search by name
    page.click("#controls button[type=submit]")
    wait_for_rows(page, 1)
    page.goto(f"{named_site.as_uri()}/player.html?id=30953499&period=2025-10")
    page.wait_for_selector("section.event")
    assert "<img src=x" in page.locator("table.games").inner_text()
    assert page.locator("table.games thead th").all_inner_texts()[3:6] == ["Name", "Title", "Fed"]
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img").count() == 0
    assert visit.problems == [] and visit.outside() == []


def test_the_federation_filter_keeps_that_federations_players(browser, named_site: Path) -> None:
    listed = pl.read_csv(named_site.parent.parent / "list-with-names.csv", infer_schema=False)
    india = sorted(listed.filter(pl.col("federation") == "IND")["player_id"].to_list())
    visit = Visit(browser, named_site)
    page = visit.open("index.html", "#list tbody tr")
    page.select_option("#filters select[data-column=federation]", label="IND")
    wait_for_rows(page, len(india))
    shown = page.locator("#list tbody tr td:nth-child(2)").all_inner_texts()
    assert sorted(shown) == india
    assert set(page.locator("#list tbody tr td:nth-child(5)").all_inner_texts()) == {"IND"}
    assert visit.problems == [] and visit.outside() == []


@pytest.mark.skipif(not DELOITTE.exists(), reason=f"{DELOITTE} not found (../shared is not beside the repo)")
def test_a_range_shows_the_period_picker_and_the_history_chart(browser, tmp_path: Path) -> None:
    """Three Deloitte months (the first 3,000 games of each) rated as one range."""
    spec = importlib.util.spec_from_file_location("convert_deloitte", ROOT / "scripts" / "convert_deloitte.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    games = module.convert(DELOITTE).group_by("period", maintain_order=True).head(3000)
    games.write_parquet(tmp_path / "games.parquet")
    module.seed_list(games).write_parquet(tmp_path / "ratings.parquet")
    elo_batch.run(tmp_path / "games.parquet", period="2025-10..2025-12", out=tmp_path / "out",
                  ratings=tmp_path / "ratings.parquet")  # fmt: skip
    site = elo_batch.report(tmp_path / "out", period="2025-10..2025-12").parent
    december = elo_batch.read_period(tmp_path / "out", "2025-12", tables=()).ratings
    player = december.filter(pl.col("status") == "rated").sort("games", descending=True)["player_id"][0]
    visit = Visit(browser, site)
    page = visit.open("index.html", "#list tbody tr")
    assert page.locator("#period option").all_inner_texts() == ["2025-10", "2025-11", "2025-12"]
    page.goto(f"{site.as_uri()}/player.html?id={player}")
    page.wait_for_selector("svg.history circle")
    assert page.locator("svg.history circle").count() == 4  # the list before October, then three new lists
    labels = page.locator("svg.history text").all_text_contents()
    assert {"2025-10", "2025-11", "2025-12", "2026-01"} <= set(labels)
    assert visit.problems == [] and visit.outside() == []


@pytest.fixture(scope="module")
def chained_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """October (the US Championship), then November rated from October's list in OUT: a newcomer's
    five games against listed players and a forfeit of 30953499."""
    from tests.conftest import Cli

    tmp = tmp_path_factory.mktemp("chained-site")
    cli = Cli(tmp)
    listed = tmp / "list.csv"
    listed.write_text(LIST.read_text().rstrip("\n") + "\n99000002,2200,20\n99000003,2100,20\n")  # idle in October
    # (99000003 idle in November too: one rating on every list, its history drawn from the list row)
    out = us_out(cli, tmp, ratings=listed)
    opponents = ["2020009", "5202213", "2093596", "13300474", "2040506"]
    rows = [
        f"n{i},2025-11-0{i + 1},OPEN,{i + 1},99000001,{p},{'1/2-1/2' if i % 2 else '0-1'}"
        for i, p in enumerate(opponents)
    ]
    rows.append("f1,2025-11-09,OPEN,6,30953499,24125890,+--")
    rows.append("c1,2025-11-10,OPEN,7,99000002,2020009,0-1")  # D = 2200 - 2797 = -597: -400 for 99000002
    november = tmp / "november.csv"
    november.write_text("game_id,date,event_id,round,white_id,black_id,result\n" + "\n".join(rows) + "\n")
    result = cli("run", november, "--ratings", out / "ratings", "--period", "2025-11", "--out", out)
    assert result.exit_code == 0, result.output
    return elo_batch.report(out, period="2025-10..2025-11").parent


def test_chained_months_show_the_forfeit_the_newcomer_and_the_history(browser, chained_site: Path) -> None:
    visit = Visit(browser, chained_site)
    page = visit.open("player.html?id=30953499", "svg.history circle")  # no period: his latest, 2025-11
    assert "Period 2025-11" in page.inner_text("main")
    missed = page.locator("section.not-counted tbody tr td").all_inner_texts()
    assert missed[0] == "OPEN" and missed[3] == "24125890" and "forfeit" in missed[-1]
    assert page.locator("svg.history circle").count() == 3  # October's list, November's, December's
    assert {"2590", "2605 (+15)"} <= set(page.locator("svg.history text").all_text_contents())
    page = visit.open("player.html?id=99000003", "svg.history circle")
    assert page.locator("svg.history circle").count() == 3
    assert page.locator("svg.history text").all_text_contents().count("2100") == 3
    page = visit.open("player.html?id=99000002&period=2025-11", "section.event")
    row = page.locator("table.games tbody td").all_inner_texts()
    assert (row[2], row[3], row[5]) == ("2020009", "2797 *", "-0.08")  # PD 0.08 for D = -400 (table 8.1.2)
    assert "* Rating difference of more than 400" in page.inner_text("main")
    page = visit.open("player.html?id=2020009&period=2025-11", "section.event")
    row = page.locator("section.event table.games tbody td").all_inner_texts()
    assert (row[3], row[5]) == ("2200", "+0.02")  # 2020009 (2797) is exempt from the 400-point rule: D = 597
    page = visit.open("player.html?id=99000001&period=2025-11", "section.first-rating")
    summary = page.locator("table.event-summary tbody td").all_inner_texts()
    assert page.locator("table.event-summary th").nth(1).inner_text() == "Rp"
    assert summary == ["2743", "2503", "1", "5", "", "", ""]  # unrated: no chg, no K
    first = page.locator("section.first-rating").inner_text()
    # November's list in force is October's new one: (2797 + 2764 + 2729 + 2726 + 2701) / 5 = 2743.4
    assert "Ra (opponents' average): 2743" in first
    assert "Rp (performance): 2503" in first  # 1 of 5 = 0.20, dp -240 (table 8.1.1): 2743 - 240
    assert "2 draws against 1800" in first and "First rating: 2200" in first  # the rule set's maximum
    assert visit.problems == [] and visit.outside() == []
