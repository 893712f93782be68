#!/usr/bin/env python3
"""Benchmark: ``elo-batch report`` on the list-heavy shape (200k games, 1.6M players), against issue 22's targets.

Usage (from the repository root, in the project's environment)::

    python benchmarks/report.py                                  # 200k games, 1.6M players
    python benchmarks/report.py --games 20000 --players 160000   # a quick look
    python benchmarks/report.py --months 3                       # three chained months in OUT

Builds under ``--data`` (default ``bench-data/report/``, git-ignored; built once, reused) the games and
list of ``../shared/bench/make_games.py`` with a 20-character ``name`` and a ``federation`` column added
to the list, runs ``elo-batch run`` once (``--months N``: N chained months, the same games a month later
each time, each month's list read from ``OUT``; the report is of the last, its history over all), then
``elo-batch report`` in a process of its own, and reads that process's peak resident memory from
``wait4`` (``ru_maxrss``). Then, in headless Chromium (Debian's, ``/usr/bin/chromium``) from ``file://``:
the first page (navigation until the list's first rows are drawn), a search by id (until the one row is
drawn), a player's page (until the event block is drawn).

Targets (issue 22): report under 15 s and 1 GB; the site under 300 MB and at most 10,000 files; the first
page under 2 s and a search under 1 s. Prints one JSON line (with the machine's load average, for a shared
machine's numbers are noisy) and appends it to ``<data>/results.jsonl``; exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = ROOT.parent / "shared" / "bench" / "make_games.py"
CHROMIUM = "/usr/bin/chromium"
TARGETS = {"report_s": 15, "report_peak_mb": 1024, "site_mb": 300, "site_files": 10_000, "first_page_s": 2,
           "search_s": 1}  # fmt: skip


def build(data: Path, games: int, players: int) -> Path:
    """The inputs and OUT of one run (reused when already built)."""
    out = data / "out"
    if (out / "manifest").is_dir():
        return out
    data.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, str(GENERATOR), str(games), str(players), str(data)], check=True)
    script = (
        "import polars as pl, sys; d = sys.argv[1]; r = pl.read_parquet(d + '/ratings.parquet');"
        "r.with_columns(name=pl.format('Player {}', pl.col('player_id')).str.pad_end(20, 'x').str.slice(0, 20),"
        "federation=pl.lit(['USA','IND','GER','FRA','ESP','RUS','CHN','ENG']).list.get(pl.int_range(pl.len()) % 8))"
        ".write_parquet(d + '/list.parquet')"
    )
    subprocess.run([sys.executable, "-c", script, str(data)], check=True)
    subprocess.run([sys.executable, "-m", "elo_batch.cli.app", "run", str(data / "games.parquet"), "--ratings",
                    str(data / "list.parquet"), "--period", "2026-10", "--out", str(out)], check=True)  # fmt: skip
    return out


def chain(data: Path, out: Path, months: int) -> str:
    """Rate ``months - 1`` more months into ``out`` (the first month's games a month later each time, the
    list read from ``out``, as a monthly job does); the last period."""
    period = "2026-10"
    for shift in range(1, months):
        later = f"{2026 + (9 + shift) // 12}-{(9 + shift) % 12 + 1:02d}"
        games = data / f"games-{later}.parquet"
        if not (out / "manifest" / f"period={later}").is_dir():
            script = (
                "import polars as pl, sys; g = pl.read_parquet(sys.argv[1]);"
                "g.with_columns(pl.col('date').dt.offset_by(sys.argv[3] + 'mo')).write_parquet(sys.argv[2])"
            )
            subprocess.run(
                [sys.executable, "-c", script, str(data / "games.parquet"), str(games), str(shift)], check=True
            )
            command = ["run", str(games), "--ratings", str(out / "ratings"), "--period", later, "--out", str(out)]
            subprocess.run([sys.executable, "-m", "elo_batch.cli.app", *command], check=True)
        period = later
    return period


def timed_report(out: Path, site: Path, period: str) -> tuple[float, float, float]:
    """Seconds, CPU seconds (user and system) and peak resident MB of ``elo-batch report`` in its own
    process (on a loaded machine the CPU time says more than the wall-clock time)."""
    started = time.perf_counter()
    command = [sys.executable, "-m", "elo_batch.cli.app", "report", str(out), "--period", period, "--site", str(site)]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"elo-batch report failed: status {status}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def site_size(site: Path) -> tuple[float, int]:
    files = [p for p in site.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files) / 1e6, len(files)


def browser_times(site: Path, player: str) -> dict[str, float]:
    """First page, search by id and a player's page in headless Chromium, seconds each."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        started = time.perf_counter()
        page.goto(f"{site.as_uri()}/index.html")
        page.wait_for_selector("#list tbody tr", timeout=30_000)
        first = time.perf_counter() - started
        page.fill("#search", player)
        started = time.perf_counter()
        page.click("#controls button[type=submit]")
        expect(page.locator("#list tbody tr")).to_have_count(1, timeout=30_000)
        search = time.perf_counter() - started
        started = time.perf_counter()
        page.goto(f"{site.as_uri()}/player.html?id={player}")
        page.wait_for_selector("section.event", timeout=30_000)
        player_page = time.perf_counter() - started
        browser.close()
    return {"first_page_s": round(first, 3), "search_s": round(search, 3), "player_page_s": round(player_page, 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=1_600_000)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--months", type=int, default=1, help="months chained in OUT (the report: the last one)")
    args = parser.parse_args()
    shape = f"{args.games}-{args.players}" + (f"-{args.months}months" if args.months > 1 else "")
    data = args.data or ROOT / "bench-data" / "report" / shape
    out = build(data, args.games, args.players)
    last = chain(data, out, args.months)
    site = data / "site"
    if site.exists():  # the first report of the site: no old one to delete
        shutil.rmtree(site)
    seconds, cpu, peak = timed_report(out, site, last)
    size, files = site_size(site)
    import polars as pl

    player = pl.scan_parquet(out / "ratings" / f"period={last}" / "part-0.parquet").filter(pl.col("games") > 0)
    result = {
        "games": args.games, "players": args.players, "months": args.months, "report_s": round(seconds, 2),
        "report_cpu_s": round(cpu, 2), "report_peak_mb": round(peak), "site_mb": round(size, 1), "site_files": files,
        "load_average": os.getloadavg(), "cpus": os.cpu_count(),
        **browser_times(site, str(player.select("player_id").head(1).collect().item())),
    }  # fmt: skip
    result["missed"] = [name for name, limit in TARGETS.items() if result[name] > limit]
    print(json.dumps(result))
    with open(data.parent / "results.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps(result) + "\n")
    return 1 if result["missed"] else 0


if __name__ == "__main__":
    sys.exit(main())
