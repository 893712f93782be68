#!/usr/bin/env python3
"""Screenshots of ``elo-batch report``'s two pages for the README: the 2025 US Championship (sample_data/).

Usage (from the repository root, in the project's environment, with Debian's Chromium)::

    python scripts/report_screenshots.py            # writes docs/report-index.png, docs/report-player.png

Rates the sample games against the sample list into a temporary folder, writes the report, and takes both
pages from ``file://`` in headless Chromium (``/usr/bin/chromium``, launched by ``executable_path``;
``playwright install`` is never run): the index (summary and rating list) and player 30953499's calculation.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    from playwright.sync_api import sync_playwright

    import elo_batch

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out"
        sample = ROOT / "sample_data"
        elo_batch.run(sample / "us-championship-2025-games.csv", period="2025-10", out=out,
                      ratings=sample / "ratings-2025-10.csv")  # fmt: skip
        site = elo_batch.report(out).parent
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1100, "height": 800})
            page.goto(f"{site.as_uri()}/index.html")
            page.wait_for_selector("#list tbody tr")
            page.screenshot(path=str(ROOT / "docs" / "report-index.png"), full_page=True)
            page.goto(f"{site.as_uri()}/player.html?id=30953499&period=2025-10")
            page.wait_for_selector("svg.history circle")
            page.screenshot(path=str(ROOT / "docs" / "report-player.png"), full_page=True)
            browser.close()
    print("written: docs/report-index.png, docs/report-player.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
