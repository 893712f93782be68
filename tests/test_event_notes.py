"""The summary's notes on rows rated in another period than their date's month say why, kind by kind:
deferred by the closing date (B.02 7.1.3), rated whole with an event that ends in a later month, or
moved by a ``period`` given on the rows (or, by event, the events file)."""

from __future__ import annotations

import io

import polars as pl

import elo_batch

LIST = pl.read_csv(io.StringIO("player_id,rating,k\nA,2000,20\nB,2000,20\nC,1900,20\n"), infer_schema=False)
#: T ends on 29 November 2025, after the closing date of the 1 December list (28 November): deferred to
#: 2025-12. L runs 27 November - 2 December: rated whole in 2025-12. G's rows give it period 2025-12.
GAMES = pl.read_csv(
    io.StringIO(
        """white_id,black_id,result,date,event_id,period
A,B,1-0,2025-11-28,T,
B,C,1-0,2025-11-29,T,
A,C,0-1,2025-11-27,L,
B,A,1-0,2025-12-02,L,
A,B,1-0,2025-11-10,G,2025-12
B,C,0-1,2025-11-10,G,2025-12
C,A,1-0,2025-11-11,G,2025-12
"""
    ),
    infer_schema=False,
)
CLOSING = (
    "of events that end after 2025-11-28, the closing date of period 2025-11 (3 days before the "
    "1 December 2025 list, B.02 7.1.3), are deferred to 2025-12"
)


def _note(result: elo_batch.PeriodResult, start: str) -> str:
    found = [warning for warning in result.warnings if warning.startswith(start)]
    assert len(found) == 1, result.warnings
    return found[0]


def test_rows_rated_later_are_explained_kind_by_kind() -> None:
    november = elo_batch.rate_period(GAMES, period="2025-11", ratings=LIST, period_by="event")

    assert november.counts.other_periods == 7
    assert _note(november, "2025-11: 6 row(s) dated in 2025-11") == (
        "2025-11: 6 row(s) dated in 2025-11 are rated in a later period (2025-12: 6): "
        f"2 {CLOSING}; "
        "1 of events that end in a later month are rated whole in the period of their end (2025-12: 1); "
        "3 are given a later period by `period` (the row's or its event's) (2025-12: 3). "
        "A monthly run must hand these rows in again with the games of that period."
    )


def test_rows_dated_earlier_are_explained_kind_by_kind() -> None:
    december = elo_batch.rate_period(GAMES, period="2025-12", ratings=LIST, period_by="event")

    assert december.counts.counted == 7
    assert _note(december, "2025-12: 6 row(s) dated before 2025-12") == (
        "2025-12: 6 row(s) dated before 2025-12 are rated in it: "
        f"2 {CLOSING}; "
        "1 of events that end in a later month than their date's are rated whole in the period of their end "
        "(dated 2025-11: 1); "
        "3 are given 2025-12 by `period` (the row's or its event's) (dated 2025-11: 3)"
    )


def test_by_date_only_a_rows_period_moves_it() -> None:
    by_date = elo_batch.rate_period(GAMES, period="2025-11", ratings=LIST)

    assert by_date.counts.counted == 3  # T and L's November rows; G's rows are given 2025-12
    assert _note(by_date, "2025-11: 3 row(s) dated in 2025-11") == (
        "2025-11: 3 row(s) dated in 2025-11 are rated in a later period (2025-12: 3): "
        "3 are given a later period by their `period` (2025-12: 3). "
        "A monthly run must hand these rows in again with the games of that period."
    )
