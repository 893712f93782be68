"""The CLI's shared option definitions: the choices (StrEnum), the typed options of several commands, flag names."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from elo_batch.choices import CapChoice, CsvFormulas, Expected, ListKind, PeriodBy, Rounding, RulesName


class LogFormat(StrEnum):
    text = "text"
    json = "json"


# Options shared by `run` and `validate` (so that validate checks exactly what run would).
GamesArg = Annotated[list[str], typer.Argument(help="Game files (CSV or Parquet), globs or folders.")]


RatingsOpt = Annotated[
    str | None,
    typer.Option(
        help="The rating list in force (CSV or Parquet), or a ratings table elo-batch wrote (--ratings-period); "
        "none: no list, a new rating pool (needed when no game row carries a rating)."
    ),
]


RatingsPeriodOpt = Annotated[
    str | None,
    typer.Option(
        metavar="YYYY-MM",
        help="Take the list from this period of the ratings table --ratings (OUT/ratings: a Delta table, or hive "
        "folders); the default is the month before --period.",
    ),
]


RulesOpt = Annotated[RulesName, typer.Option(help="fide: FIDE regulations in force for the period; elo: classic Elo.")]


RuleSetOpt = Annotated[
    str | None, typer.Option(help="Force a rule set: fide-2022-01, fide-2024-03, fide-2025-10 or elo.")
]


BandsOpt = Annotated[
    str | None,
    typer.Option(metavar="FILE", help="Band table (columns band, min_rating) for the new list's band column."),
]


ListOpt = Annotated[ListKind, typer.Option("--list", help="Which FIDE list: standard, rapid or blitz.")]


ExpectedOpt = Annotated[Expected | None, typer.Option(help="Expected score: FIDE table 8.1.2 or the logistic formula.")]


CapOpt = Annotated[CapChoice, typer.Option("--cap-400", help="400-point rule: auto (per rule set), always or never.")]


KOpt = Annotated[int | None, typer.Option("--k", min=1, max=100, help="One K for every player.")]


No700Opt = Annotated[bool, typer.Option("--no-700-rule", help="Do not reduce K when K x n > 700.")]


RoundingOpt = Annotated[
    Rounding | None, typer.Option(help="period (round once), game (each game) or none (2 decimals).")
]


EncodingOpt = Annotated[str | None, typer.Option(help="Text encoding of CSV inputs (default: detect).")]


ColumnsOpt = Annotated[
    str | None,
    typer.Option(
        metavar="CANONICAL=THEIRS,...",
        help="The games files' own names of canonical columns (white_id=WhitePlayer,date=Date): the files are "
        "read as if renamed.",
    ),
]


ListColumnsOpt = Annotated[
    str | None,
    typer.Option(
        metavar="CANONICAL=THEIRS,...",
        help="The rating list's own names of canonical columns (player_id=ID,rating=Rtg).",
    ),
]


EventsOpt = Annotated[
    str | None, typer.Option(help="Events file (CSV or Parquet): one row per event_id with its attributes.")
]


PeriodByOpt = Annotated[
    PeriodBy,
    typer.Option(
        help="date: a game's period, else its date, decides its month; event: an event is rated whole, in "
        "its period, else by the closing date (B.02 7.1.3), with the ratings of its start."
    ),
]


LogFormatOpt = Annotated[LogFormat, typer.Option(help="Summary on stderr as text or JSON lines.")]


CsvFormulasOpt = Annotated[
    CsvFormulas,
    typer.Option(
        "--csv-formulas",
        help="CSV output: escape (a quote before text cells a spreadsheet would run as formulas: = + - @) "
        "or keep them as they are.",
    ),
]


ChunkRowsOpt = Annotated[
    int,
    typer.Option(
        min=1,
        help="Game inputs (Parquet) of more rows than this are streamed from their files in chunks of at most "
        "this many rows instead of being read into memory.",
    ),
]


#: Options whose flag is not ``--`` plus the keyword with dashes (library messages name keywords).
FLAGS = {"list_kind": "--list"}


CalcPeriodOption = Annotated[
    str | None, typer.Option(help="Month of play YYYY-MM whose rules apply (default: this month).", show_default=False)
]


JsonOption = Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")]


ImportOut = Annotated[
    str,
    typer.Option(
        "-o", "--out", help="Games file to write: .parquet (default) or .csv, or an s3:// URI.", show_default=False
    ),
]
