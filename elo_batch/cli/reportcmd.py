"""The ``report`` command: an output folder's period as a static site, through :func:`elo_batch.report`.

Prints the path of the site's ``index.html`` on stdout; errors become exit codes in
:func:`elo_batch.cli.guard.guard` (66 a missing output folder or period, 73 a site that cannot be written).
No rating rules here.
"""

from __future__ import annotations

from typing import Annotated

import typer

import elo_batch
from elo_batch.cli.guard import guard


def report_command(
    out_dir: Annotated[str, typer.Argument(help="Output folder of `elo-batch run` (hive folders or Delta tables).")],
    period: Annotated[
        str | None,
        typer.Option(
            help="YYYY-MM or YYYY-MM..YYYY-MM of the periods OUT holds (default: the latest).", show_default=False
        ),
    ] = None,
    site: Annotated[
        str | None, typer.Option(help="The site's folder (default: OUT/site), replaced at once.", show_default=False)
    ] = None,
) -> None:
    """A static site of the period: its summary, the rating list and each player's calculation (file://)."""

    def work() -> None:
        index = elo_batch.report(out_dir, period=period, site=site)
        typer.echo(str(index))

    guard(work)
