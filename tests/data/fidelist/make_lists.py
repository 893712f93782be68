"""Write the small FIDE-layout lists of this folder (see SOURCE.md); run from the repository root.

Each value starts where its column's name starts in FIDE's header, left-aligned and padded with spaces
to the next column, lines as long as the header, CRLF line ends, as FIDE's TXT files are; the XML is
FIDE's element layout without an XML declaration, one player a line.
"""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
SINGLE = (
    "ID Number      Name                                                         Fed Sex Tit  WTit OTit           FOA "
    "NOV25 Gms K  B-day Flag"
)
COMBINED = (
    "ID Number      Name                                                         Fed Sex Tit  WTit OTit           FOA "
    "SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag"
)
# id, name, fed, sex, tit, wtit, otit, foa, (std, gms, k), (rapid, gms, k), (blitz, gms, k), birth year, flag
PLAYERS = [
    ("90000011", "Adams, Anna", "ENG", "F", "WGM", "WGM", "", "",
     (2301, 4, 20), (2250, 0, 20), (2198, 11, 20), 1995, "w"),
    ("90000022", "Brown, Ben", "USA", "M", "GM", "", "FA", "",
     (2610, 0, 10), (2590, 0, 10), (2620, 0, 10), 1980, "i"),
    ("90000033", "Chen, Chloe", "CHN", "F", "", "", "", "",
     (1845, 9, 40), (0, 0, 0), (1790, 7, 40), 2010, "wi"),
    ("90000044", "Diaz, Dario", "ESP", "M", "", "", "", "",
     (1402, 5, 20), (1550, 3, 20), (0, 0, 0), 0, ""),
    ("90000055", "Evans, Eve", "WLS", "F", "", "", "SI,FI,LSI,SLI,NA", "AFM",  # OTit runs over into FOA
     (2050, 2, 20), (1980, 0, 20), (2001, 0, 20), 1970, "w"),
    ("90000066", "Fox, Finn", "IRL", "M", "", "", "", "",
     (0, 0, 0), (0, 0, 0), (1600, 9, 40), 2012, ""),
]  # fmt: skip


def _line(header: str, values: list[str]) -> str:
    starts = [m.start() for m in re.finditer(r"ID Number|\S+", header)]
    line, shift = "", 0
    for start, value in zip(starts, values, strict=True):
        shift = max(shift, len(line) - start)  # an over-long value pushes the rest of the line on
        line = line.ljust(start + shift) + value
    return line.ljust(len(header) + shift)


def _common(p: tuple) -> list[str]:
    return [p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]]


def main() -> None:
    single, combined = [SINGLE], [COMBINED]
    for p in PLAYERS:
        std, rapid, blitz, born, flag = p[8], p[9], p[10], p[11], p[12]
        if std[0]:  # the standard list holds the players with a standard rating
            single.append(_line(SINGLE, [*_common(p), *map(str, std), str(born), flag]))
        combined.append(_line(COMBINED, [*_common(p), *map(str, std + rapid + blitz), str(born), flag]))
    (HERE / "standard_rating_list.txt").write_bytes(("\r\n".join(single) + "\r\n").encode("ascii"))
    (HERE / "players_list_foa.txt").write_bytes(("\r\n".join(combined) + "\r\n").encode("ascii"))
    tags = ("fideid", "name", "country", "sex", "title", "w_title", "o_title", "foa_title")
    xml_single, xml_combined = ["<playerslist>"], ["<playerslist>"]
    for p in PLAYERS:
        std, rapid, blitz, born, flag = p[8], p[9], p[10], p[11], p[12]
        common = "".join(f"<{t}>{v}</{t}>" for t, v in zip(tags, _common(p), strict=True))
        ratings = "".join(f"<{t}>{v}</{t}>" for t, v in zip(("rating", "games", "k"), std, strict=True))
        rest = f"<birthday>{born}</birthday><flag>{flag}</flag>"
        if std[0]:
            xml_single.append(f"<player>{common}{ratings}{rest}</player>")
        others = "".join(
            f"<{kind}_{t}>{v}</{kind}_{t}>"
            for kind, values in (("rapid", rapid), ("blitz", blitz))
            for t, v in zip(("rating", "games", "k"), values, strict=True)
        )
        xml_combined.append(f"<player>{common}{ratings}{others}{rest}</player>")
    for name, players in (("standard_rating_list.xml", xml_single), ("players_list_xml_foa.xml", xml_combined)):
        (HERE / name).write_text("\n".join([*players, "</playerslist>"]) + "\n", encoding="ascii")


if __name__ == "__main__":
    main()
