#!/usr/bin/env python3
"""Turn ../shared/data/fide-us-championship-2025 into the contract's games and list files.

Usage (from the project root): python sample_data/build_us_championship.py [SHARED_DATA_DIR]

Writes sample_data/us-championship-2025-games.csv and sample_data/ratings-2025-10.csv. Rounds 1-11
were played 12-24 October 2025; each round gets a date in that span (two rest days assumed, which
does not change any rating: every game of a period uses the list in force).
"""

import csv
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent.parent / "shared/data/fide-us-championship-2025"
ROUND_DATES = {
    1: "2025-10-12",
    2: "2025-10-13",
    3: "2025-10-14",
    4: "2025-10-15",
    5: "2025-10-17",
    6: "2025-10-18",
    7: "2025-10-19",
    8: "2025-10-20",
    9: "2025-10-22",
    10: "2025-10-23",
    11: "2025-10-24",
}
EVENT_ID = "432532"  # FIDE event id of the 2025 US Championship

with open(SOURCE / "games.csv", newline="") as f:
    games = list(csv.DictReader(f))
with open(HERE / "us-championship-2025-games.csv", "w", newline="") as f:
    out = csv.writer(f, lineterminator="\n")
    out.writerow(["game_id", "date", "event_id", "round", "white_id", "black_id", "result"])
    board: dict[int, int] = {}
    for g in games:
        rnd = int(g["round"])
        board[rnd] = board.get(rnd, 0) + 1
        out.writerow(
            [
                f"{EVENT_ID}-{rnd}.{board[rnd]}",
                ROUND_DATES[rnd],
                EVENT_ID,
                rnd,
                g["white_fide_id"],
                g["black_fide_id"],
                g["result"],
            ]
        )

with open(SOURCE / "players.csv", newline="") as f:
    players = list(csv.DictReader(f))
with open(HERE / "ratings-2025-10.csv", "w", newline="") as f:
    out = csv.writer(f, lineterminator="\n")
    out.writerow(["player_id", "rating", "k"])
    for p in players:
        out.writerow([p["fide_id"], p["list_2025_10_rating"], p["list_2025_10_k"]])
print(f"{len(games)} games, {len(players)} players -> {HERE}")
