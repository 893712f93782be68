"""How tata2022.trf was derived from ../pgn/tatamast22.pgn (run once; the .trf is the data, see SOURCE.md).

Reads the PGN with python-chess only (not with elo-batch), builds the crosstable and writes TRF-16
columns: starting ranks by January 2022 rating (highest first, then name), a game without moves is a
forfeit (+ / -), round dates on line 132.

    python tests/data/trf/derive_tata2022.py > tests/data/trf/tata2022.trf
"""

from __future__ import annotations

from pathlib import Path

import chess.pgn

HERE = Path(__file__).resolve().parent
SCORE = {"1-0": ("1", "0"), "0-1": ("0", "1"), "1/2-1/2": ("=", "=")}
FORFEIT = {"1-0": ("+", "-"), "0-1": ("-", "+")}
POINTS = {"1": 1.0, "+": 1.0, "=": 0.5, "0": 0.0, "-": 0.0}


def main() -> None:
    players: dict[str, dict] = {}
    entries: dict[tuple[str, int], tuple[str, str, str]] = {}
    dates: dict[int, str] = {}
    with open(HERE.parent / "pgn" / "tatamast22.pgn", encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            h = game.headers
            for side in ("White", "Black"):
                players[h[f"{side}FideId"]] = {
                    "name": h[side],
                    "rating": int(h[f"{side}Elo"]),
                    "title": h.get(f"{side}Title", ""),
                }
            round_number = int(h["Round"].split(".")[0])
            dates[round_number] = h["Date"][2:].replace(".", "/")
            played = len(list(game.mainline_moves())) >= 2
            white_code, black_code = (SCORE if played else FORFEIT)[h["Result"]]
            entries[(h["WhiteFideId"], round_number)] = (h["BlackFideId"], "w", white_code)
            entries[(h["BlackFideId"], round_number)] = (h["WhiteFideId"], "b", black_code)
    order = sorted(players, key=lambda fid: (-players[fid]["rating"], players[fid]["name"]))
    rank = {fid: number for number, fid in enumerate(order, start=1)}
    rounds = max(dates)
    points = {fid: sum(POINTS[entries[(fid, r)][2]] for r in range(1, rounds + 1)) for fid in order}
    place = {fid: 1 + sum(points[o] > points[fid] for o in order) for fid in order}
    print("012 84th Tata Steel Masters")
    print("022 Wijk aan Zee")
    print("032 NED")
    print("042 2022/01/15")
    print("052 2022/01/30")
    print(f"062 {len(order)}")
    print(f"072 {len(order)}")
    print("092 Individual: round robin")
    print("122 100 minutes for 40 moves, 50 minutes for 20 moves, 15 minutes, 30 seconds per move from move 1")
    print("132" + " " * 88 + "  ".join(f"{dates[r]:>8}" for r in range(1, rounds + 1)))
    for fid in order:
        p = players[fid]
        line = (
            f"001 {rank[fid]:>4} m{p['title']:>3} {p['name']:<33} {p['rating']:>4} {'':3} {fid:>11} {'':10} "
            f"{points[fid]:>4.1f} {place[fid]:>4}"
        )
        for r in range(1, rounds + 1):
            opponent, colour, code = entries[(fid, r)]
            line += f"  {rank[opponent]:>4} {colour} {code}"
        print(line)


if __name__ == "__main__":
    main()
