"""FIDE's rules about events as data: the closing date, the reporting window, long events; each with its clause.

The arithmetic that uses them is in :mod:`elo_batch.engine.events`. Sources: ``fide-rules.md`` section 7
(B.02 7.1.3, 9.1) and U18 (events longer than a month).
"""

from __future__ import annotations

from typing import Final

#: B.02 7.1.3: an event can be rated on a list if it ended on or before the list's closing date, this
#: many days before the list's date (the 1 December list closes on 28 November). An event ending later
#: goes on the next list. (Official FIDE events, which may close the day before, are not told apart:
#: give such an event its ``period``.)
CLOSING_DAYS: Final = 3
#: B.02 9.1: an event whose last day is this many days or fewer before the end of a month "goes to the
#: following list" when its report is not uploaded in time: warned about, never applied (only the
#: federation knows when it reported).
REPORT_DAYS: Final = 5
#: An event lasting more than this many days (first to last day, both counted) is warned about: B.02 does
#: not say which list each of its games uses; FIDE's Title Regulations 1.1.4 use, for events longer
#: than 30 days, the list in force when each game was played (``fide-rules.md`` U18).
LONG_EVENT_DAYS: Final = 30
