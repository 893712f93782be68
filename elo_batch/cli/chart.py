"""The ``chart`` command: a player's rating over the periods of an output folder, drawn as a PNG.

The history comes from :func:`elo_batch.rating_history`; drawn with matplotlib's object API on the Agg
canvas (no display, no pyplot state). No rating rules here.
"""

from __future__ import annotations

import math
import re
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

import elo_batch
from elo_batch.cli.guard import guard
from elo_batch.errors import OutputError, UsageError

if TYPE_CHECKING:
    from elo_batch import History, rating_history

__all__ = ["chart_command", "plot_history", "rating_history", "write_chart"]


def __getattr__(name: str) -> object:
    """``rating_history``, from the public API on first use (the CLI starts without polars)."""
    if name == "rating_history":
        return elo_batch.rating_history
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def plot_history(history: History) -> Any:
    """Draw the history: one point per list, each annotated with the change that produced it.

    Returns:
        A ``matplotlib.figure.Figure`` on the Agg canvas (no display needed).

    Raises:
        UsageError: matplotlib is not installed.
    """
    mdates, FigureCanvasAgg, Figure, MaxNLocator = _matplotlib()
    figure = Figure(figsize=(8, 4.5), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    _plot_points(axes, history)
    span = (history.lists[-1].year - history.lists[0].year) * 12 + history.lists[-1].month - history.lists[0].month
    axes.xaxis.set_major_locator(mdates.MonthLocator(interval=max(1, math.ceil((span + 1) / 12))))
    axes.xaxis.set_major_formatter(mdates.DateFormatter("%Y-%m"))
    axes.margins(x=0.05, y=0.2)
    axes.set_xlabel("rating list")
    axes.set_ylabel("rating")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))  # ratings are whole points
    axes.set_title(f"{history.player_id} {history.name or ''}".strip())
    axes.grid(True, alpha=0.3)
    figure.autofmt_xdate()
    figure.tight_layout()
    return figure


def _matplotlib() -> tuple[Any, Any, Any, Any]:
    """matplotlib's ``dates`` module, Agg canvas, ``Figure`` and ``MaxNLocator``; a UsageError without it."""
    try:
        import matplotlib.dates as mdates
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    except ImportError as exc:
        raise UsageError(
            "the chart needs matplotlib", hint="install elo-batch with charts: pip install 'elo-batch[chart]'."
        ) from exc
    return mdates, FigureCanvasAgg, Figure, MaxNLocator


def _plot_points(axes: Any, history: History) -> None:
    """One point per list (no rating: a gap), each annotated with the change that produced it."""
    values = [math.nan if r is None else r for r in history.ratings]
    axes.plot(list(history.lists), values, marker="o", color="#1f4e79")
    for when, rating, label in zip(history.lists, history.ratings, history.labels, strict=True):
        if rating is not None and label:
            axes.annotate(label, (when, rating), textcoords="offset points", xytext=(0, 8), ha="center", fontsize=8)


def write_chart(out: str, player: str, png: str) -> tuple[History, Any]:
    """Read the history, draw it and save it as a PNG.

    Returns:
        The history and the figure drawn.

    Raises:
        As :func:`rating_history` and :func:`plot_history`; UsageError: ``png`` does not end in
        ``.png``; OutputError: the PNG cannot be written.
    """
    if not png.lower().endswith(".png"):
        raise UsageError(f"the chart is a PNG; {png!r} does not end in .png", column="-o", hint="name it chart.png.")
    from elo_batch.storage.objectstore import local_path

    history = elo_batch.rating_history(out, player)
    figure = plot_history(history)
    try:
        figure.savefig(local_path(png), format="png")
    except OSError as exc:
        raise OutputError(f"cannot write the chart ({exc.strerror or exc})", path=png) from exc
    return history, figure


def chart_command(
    out_dir: Annotated[str, typer.Argument(help="Output folder (or s3:// prefix) of `elo-batch run`.")],
    player: Annotated[str, typer.Option(help="The player_id to draw.", show_default=False)],
    output: Annotated[
        str | None, typer.Option("-o", "--output", help="PNG to write (default: rating-PLAYER.png).")
    ] = None,
) -> None:
    """A player's rating list by list, as a PNG, with each period's change annotated."""

    def work() -> None:
        png = output or f"rating-{re.sub(r'[^A-Za-z0-9_.-]+', '_', player)}.png"
        history, _ = write_chart(out_dir, player, png)
        shown = [f"{d:%Y-%m}: {r:g}" if r is not None else f"{d:%Y-%m}: unrated" for d, r in
                 zip(history.lists, history.ratings, strict=True)]  # fmt: skip
        print(f"{player}: " + ", ".join(shown), file=sys.stderr)
        print(f"  written: {png}", file=sys.stderr)

    guard(work)
