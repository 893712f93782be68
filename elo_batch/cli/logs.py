"""The summaries the CLI prints on stderr (text or JSON lines): each period, a lock wait, a validation report,
and the library's log records (Spark's own lines) and Python's warnings in the same format."""

from __future__ import annotations

import json
import logging
import os
import shlex
import sys
from typing import TYPE_CHECKING

from elo_batch import columns as c
from elo_batch.cli.options import (
    FLAGS,
    LogFormat,
)
from elo_batch.errors import render_text

if TYPE_CHECKING:
    from elo_batch import Counts, PeriodSummary, ValidationReport


def _reconciliation(counts: Counts, written: bool) -> str:
    where = "see audit" if written else "audited"
    return (
        f"{counts.rows_read} rows read = {counts.counted} counted + {counts.not_counted} not counted ({where})"
        f" + {counts.other_periods} other periods + {counts.rejected} rejected"
    )


def log_period(summary: PeriodSummary, log_format: LogFormat) -> None:
    """Print one period's summary on stderr: a JSON ``period_written`` (or ``period_checked``) event, or text."""
    if log_format is LogFormat.json:
        print(json.dumps(_period_record(summary)), file=sys.stderr)
        return
    _print_period(summary)


def _period_record(summary: PeriodSummary) -> dict[str, object]:
    """A period's summary as its JSON event."""
    counts = summary.counts
    written = bool(summary.outputs)
    return {
        "event": "period_written" if written else "period_checked",
        "period": summary.period,
        "rule_set": summary.rule_set,
        "counts": counts.__dict__,
        "reconciles": counts.reconciles(),
        "players": summary.players,
        "bands": summary.bands,
        "warnings": [render_text(warning, FLAGS) for warning in summary.warnings],
        "outputs": summary.outputs,
        "rejected_reasons": [
            {"column": column, "reason": reason, "rows": rows} for column, reason, rows in summary.rejected_reasons
        ],
        "rejected_more_reasons": summary.rejected_more_reasons,
        "rejected_command": list_command(summary) if written and counts.rejected else None,
    }


def _print_period(summary: PeriodSummary) -> None:
    """A period's summary as text lines: its counts and players, its warnings, where it was written."""
    counts = summary.counts
    written = bool(summary.outputs)
    players = ", ".join(f"{n} {status}" for status, n in summary.players.items()) or "no players"
    bands = f"; bands: {summary.bands['up']} up, {summary.bands['down']} down" if summary.players else ""
    print(
        f"{summary.period} ({summary.rule_set}): {_reconciliation(counts, written)}; players: {players}{bands}",
        file=sys.stderr,
    )
    for warning in summary.warnings:
        print(f"  warning: {render_text(warning, FLAGS)}", file=sys.stderr)
    if written:
        print(f"  written: {os.path.dirname(summary.outputs['ratings'])}", file=sys.stderr)
        _log_rejected(summary)


def _log_rejected(summary: PeriodSummary) -> None:
    """Where a period's rejected rows are; loudly when they are most of its rows."""
    counts = summary.counts
    if not counts.rejected:
        return
    from elo_batch.job.sanity import mostly_rejected  # a period was rated: the engine is loaded already

    where = summary.outputs.get("rejected", "the rejected table")
    if mostly_rejected(counts):
        rows = counts.counted + counts.not_counted + counts.rejected
        print(
            f"elo-batch: WARNING: {summary.period}: {counts.rejected} of {rows} rows were rejected; "
            f"the list is built from the rest. Rejected rows: {where}; by reason:",
            file=sys.stderr,
        )
    else:
        print(f"  rejected: {counts.rejected} row(s), in {where}; by reason:", file=sys.stderr)
    _print_reasons(summary)
    print(f"  list them: {list_command(summary)}", file=sys.stderr)


def _print_reasons(summary: PeriodSummary) -> None:
    """The reasons a period's rows were rejected, with their counts, one a line."""
    for column, reason, count in summary.rejected_reasons:
        print(f"    {count} x {column}: {reason}" if column else f"    {count} x {reason}", file=sys.stderr)
    if summary.rejected_more_reasons:
        more = summary.rejected_more_reasons
        print(f"    and {more} more reason{'s' if more > 1 else ''}", file=sys.stderr)


def list_command(summary: PeriodSummary) -> str:
    """A shell command that lists a written period's rejected rows as CSV (polars, installed with elo-batch)."""
    where = summary.outputs.get("rejected", "")
    path = json.dumps(where)  # a Python string literal in double quotes: the command's single quotes stay whole
    if where.endswith(".parquet"):
        read = f"pl.read_parquet({path})"
    elif where.endswith(".csv"):
        read = f"pl.read_csv({path}, infer_schema=False)"
    else:  # a Delta table: the period's partition
        read = f'pl.read_delta({path}).filter(pl.col("period") == {json.dumps(summary.period)})'
    columns = ", ".join(json.dumps(name) for name in (c.SOURCE_FILE, c.SOURCE_ROW, c.COLUMN, c.VALUE, c.REASON))
    return "python -c " + shlex.quote(f"import sys, polars as pl; {read}.select({columns}).write_csv(sys.stdout)")


def log_lock_wait(out: str, holder: str, timeout: float, *, log_format: LogFormat) -> None:
    if log_format is LogFormat.json:
        print(json.dumps({"event": "lock_wait", "out": out, "holder": holder, "timeout_s": timeout}), file=sys.stderr)
        return
    print(f"elo-batch: waiting up to {timeout:g} s for the lock of {out}: held by {holder}", file=sys.stderr)


def log_validation(report: ValidationReport, log_format: LogFormat) -> int:
    """Print a validation report (rejected rows on stdout, counts on stderr); the exit code."""
    rejected = report.rejected.height
    code = 65 if rejected else 0
    _print_rejected_rows(report, log_format)
    for summary in report.periods:
        log_period(summary, log_format)
    if log_format is LogFormat.json:
        print(json.dumps(_validated_record(report, code)), file=sys.stderr)
        return code
    if not report.periods:
        _print_usable(report)
    verdict = f"{rejected} row(s) rejected (listed on stdout)" if rejected else "no row rejected"
    print(f"elo-batch: {verdict}; nothing was written", file=sys.stderr)
    return code


def _print_rejected_rows(report: ValidationReport, log_format: LogFormat) -> None:
    """The rejected rows on stdout: JSON ``rejected`` events, or ``file, row N, column C: reason`` lines."""
    for row in report.rejected.iter_rows(named=True):
        if log_format is LogFormat.json:
            print(json.dumps({"event": "rejected", **{k: row[k] for k in REJECTED_FIELDS}}))
        else:
            where = ", ".join(
                part
                for part in (
                    str(row[c.SOURCE_FILE]),
                    f"row {row[c.SOURCE_ROW]}",
                    f"column {row[c.COLUMN]}" if row[c.COLUMN] else "",
                )
                if part
            )
            print(f"{where}: {row[c.REASON]}")


def _validated_record(report: ValidationReport, code: int) -> dict[str, object]:
    """A validation's counts as its JSON ``validated`` event."""
    return {
        "event": "validated",
        "rows_read": report.rows_read,
        "rejected": report.rejected.height,
        "usable_by_period": report.usable_by_period,
        "warnings": [render_text(warning, FLAGS) for warning in report.warnings],
        "exit_code": code,
    }


def _print_usable(report: ValidationReport) -> None:
    """A validation's rows as text when no period was checked: read, usable by period, rejected; its warnings."""
    usable = sum(report.usable_by_period.values())
    by_period = ", ".join(f"{period}: {n}" for period, n in report.usable_by_period.items())
    print(
        f"{report.rows_read} rows read = {usable} usable ({by_period or 'none'}) + {report.rejected.height} rejected",
        file=sys.stderr,
    )
    for warning in report.warnings:
        print(f"  warning: {render_text(warning, FLAGS)}", file=sys.stderr)


REJECTED_FIELDS = (c.PERIOD, c.SOURCE_FILE, c.SOURCE_ROW, c.COLUMN, c.VALUE, c.REASON)


class _StderrLines(logging.Handler):
    """Log records on stderr, one line each: the message as it is (text), or a JSON ``log`` event.

    A line is written to stderr's file descriptor in one call, never through ``sys.stderr``'s buffer:
    records come from another thread (the Spark JVM's relay), and a line of theirs written between the
    two writes of a ``print`` (the text, then its newline) would split a summary line in two.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.log_format = LogFormat.text

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage().rstrip("\n")
            if self.log_format is LogFormat.json:
                fields = {"event": "log", "logger": record.name, "level": record.levelname, "message": message}
                message = json.dumps(fields)
            _write_line(message + "\n")
        except Exception:
            self.handleError(record)


_HANDLER = _StderrLines()
_ROUTED = ("elo_batch", "py.warnings", "openlineage")  # openlineage: its client's warnings (docs/guides/lineage.md)


def route_logs(log_format: LogFormat) -> None:
    """Print the library's log records (logger ``elo_batch``: Spark's JVM lines, ``elo_batch.spark``; and
    OpenLineage's client, logger ``openlineage``, where a run emits lineage events) at warning and above
    on stderr in ``log_format``; with json, Python's warnings too, as ``log`` events, so that every line
    on stderr is one JSON object. Idempotent: each command sets the format again."""
    _HANDLER.log_format = log_format
    for name in _ROUTED:
        logger = logging.getLogger(name)
        if _HANDLER not in logger.handlers:
            logger.addHandler(_HANDLER)
    logging.captureWarnings(log_format is LogFormat.json)


def _write_line(text: str) -> None:
    stream = sys.stderr
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's captured stream): its own write
        stream.write(text)
        stream.flush()
        return
    data = text.encode("utf-8", "replace")
    while data:
        data = data[os.write(fd, data) :]
