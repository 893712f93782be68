"""The ``import`` commands: PGN, TRF and FIDE's list download into the files ``run`` reads
(:func:`elo_batch.import_pgn`, :func:`elo_batch.import_trf`, :func:`elo_batch.import_fide_list`)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

import elo_batch
from elo_batch.choices import ListKind
from elo_batch.cli.guard import guard
from elo_batch.cli.options import (
    CsvFormulasOpt,
    ImportOut,
)

import_app = typer.Typer(
    name="import",
    help="Convert PGN or TRF files into a games file, or FIDE's list download into a rating list, for `elo-batch run`.",
    no_args_is_help=True,
)


def _report(lines: tuple[str, ...], out: str, rows: int) -> None:
    for line in lines:
        print(line, file=sys.stderr)
    print(f"  written: {out} ({rows} rows)", file=sys.stderr)


@import_app.command("pgn")
def import_pgn_command(
    files: Annotated[list[str], typer.Argument(help="PGN files or zip archives of PGN files.", show_default=False)],
    out: ImportOut,
    csv_formulas: CsvFormulasOpt = "escape",
) -> None:
    """PGN games: FideId tags as ids (names only without one, flagged), Elo tags as game ratings; forfeits marked."""

    def work() -> None:
        imported = elo_batch.import_pgn(files, out, csv_formulas=csv_formulas)
        _report(imported.lines, out, imported.rows)

    guard(work)


@import_app.command("trf")
def import_trf_command(
    file: Annotated[str, typer.Argument(help="A FIDE Tournament Report File (TRF-16).", show_default=False)],
    out: ImportOut,
    period: Annotated[
        str | None, typer.Option(help="YYYY-MM for games whose round has no date on line 132.", show_default=False)
    ] = None,
    csv_formulas: CsvFormulasOpt = "escape",
) -> None:
    """TRF player lines (001) as games, each once; forfeits marked, byes counted (they are not games)."""

    def work() -> None:
        imported = elo_batch.import_trf(file, out, period=period, csv_formulas=csv_formulas)
        _report(imported.lines, imported.written, imported.rows)

    guard(work)


@import_app.command("fide-list")
def import_fide_list_command(
    file: Annotated[str, typer.Argument(help="FIDE's list download: TXT or XML, or its zip.", show_default=False)],
    out: Annotated[
        str,
        typer.Option("-o", "--out", help="Rating list to write: .parquet or .csv (or s3://).", show_default=False),
    ],
    list_kind: Annotated[
        ListKind | None,
        typer.Option("--list", help="Which rating of a combined list (default standard); a single list's own."),
    ] = None,
) -> None:
    """FIDE's rating list (TXT or XML, zipped or not) as a --ratings list; FIDE's flag (i: inactive) passes through."""

    def work() -> None:
        imported = elo_batch.import_fide_list(file, out, list_kind=list_kind)
        print("\n".join(imported.lines), file=sys.stderr)
        print(f"  written: {imported.written} ({imported.rows} players)", file=sys.stderr)

    guard(work)
