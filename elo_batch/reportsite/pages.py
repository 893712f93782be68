"""The index page's HTML: each period's summary written as static HTML (readable without JavaScript).

Every value from ``OUT`` (warnings, reasons, ids, names) goes through :func:`html.escape`; the rating list
below the summary is drawn by ``assets/site.js`` from the data files.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from importlib import resources
from typing import Any
from urllib.parse import quote

_SLOT = "<!-- summaries -->"
_COUNTS = (
    ("rows_read", "rows read"), ("counted", "counted"), ("not_counted", "not counted (see the audit)"),
    ("other_periods", "other periods"), ("rejected", "rejected"),
)  # fmt: skip
_RULES = ("name", "list_kind", "expected", "cap_400", "k_rule", "rule_700", "rounding", "floor")


def index_html(summaries: Sequence[dict[str, Any]]) -> str:
    """index.html: the package's template with one summary section per period (the latest shown)."""
    template = resources.files("elo_batch.reportsite").joinpath("assets", "index.html").read_text("utf-8")
    latest = summaries[-1]["period"]
    sections = "\n".join(summary_html(summary, shown=summary["period"] == latest) for summary in summaries)
    return template.replace(_SLOT, sections)


def summary_html(summary: dict[str, Any], *, shown: bool) -> str:
    """One period's summary as a ``<section>``: rule set, reconciliation, warnings, moves, rejected rows."""
    period = _e(summary["period"])
    parts = [
        f'<section class="summary" data-period="{period}"{"" if shown else " hidden"}>',
        f"<h2>Period {period}</h2>",
        _rules(summary.get("rule_set") or {}, summary.get("table_format")),
        _reconciliation(summary.get("counts") or {}, summary),
        _list_items("Warnings", summary.get("warnings") or [], empty="none"),
        _moves(summary),
        _table("Biggest gains", summary["columns"], summary["gains"], kind="gains", period=summary["period"]),
        _table("Biggest losses", summary["columns"], summary["losses"], kind="losses", period=summary["period"]),
        _table("Rejected rows by reason", ["reason", "rows"], summary["rejected"], kind="rejected"),
        "</section>",
    ]
    return "\n".join(parts)


def _rules(rule_set: dict[str, Any], table_format: object) -> str:
    shown = ", ".join(f"{name}: {_e(rule_set[name])}" for name in _RULES if name in rule_set)
    return f'<p class="rules">Rule set {shown}; tables: {_e(table_format)}.</p>'


def _reconciliation(counts: dict[str, Any], summary: dict[str, Any]) -> str:
    shown = " + ".join(f"{_e(counts.get(key, 0))} {label}" for key, label in _COUNTS[1:])
    ok = "reconciles" if counts.get("reconciles") else "does not reconcile"
    status = ", ".join(f"{_e(count)} {_e(value)}" for value, count in summary.get("status") or [])
    return (
        f'<p class="reconciliation">{_e(counts.get("rows_read", 0))} rows read = {shown} ({ok}).</p>'
        f'<p class="players">Players on the list: {_e(summary["players"])} ({status}).</p>'
    )


def _moves(summary: dict[str, Any]) -> str:
    moves = summary.get("band_moves")
    if moves is None:
        return '<p class="bands">Band moves: no earlier period in the output folder to compare with.</p>'
    return f'<p class="bands">Band moves: {_e(moves["up"])} up, {_e(moves["down"])} down.</p>'


def _list_items(title: str, items: Iterable[object], *, empty: str) -> str:
    rows = "".join(f"<li>{_e(item)}</li>" for item in items)
    return f"<h3>{_e(title)}</h3>" + (f"<ul>{rows}</ul>" if rows else f"<p>{_e(empty)}</p>")


def _table(
    title: str, header: Sequence[str], rows: Sequence[Sequence[object]], *, kind: str, period: str | None = None
) -> str:
    """A table of ``rows``; with ``period``, the first cell (a player_id) links to the player's page."""
    if not rows:
        return f"<h3>{_e(title)}</h3><p>none</p>"
    head = "".join(f"<th>{_e(name)}</th>" for name in header)
    body = "".join(
        "<tr>"
        + "".join(_td(v, _link(v, period) if i == 0 and period else _cell(v)) for i, v in enumerate(row))
        + "</tr>"
        for row in rows
    )
    return f'<h3>{_e(title)}</h3><table class="{kind}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _link(player: object, period: str) -> str:
    """A link to ``player.html?id=...&period=...``, the id percent-encoded."""
    href = f"player.html?id={quote(str(player), safe='')}&period={quote(period, safe='')}"
    return f'<a href="{_e(href)}">{_e(player)}</a>'


def _cell(value: object) -> str:
    return "" if value is None else _e(value)


def _td(value: object, inner: str) -> str:
    """A cell: numbers aligned right (the style sheet's default), text left."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return f"<td>{inner}</td>" if number else f'<td class="text">{inner}</td>'


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)
