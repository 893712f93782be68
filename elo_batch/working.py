"""Every working column's name once: the temporary columns elo-batch's plans add beside the contract's.

A working column is a column of a plan (a polars or Spark frame while a file is read and checked, a
period is rated, a summary is worked out), never written to an output: each output selects the
contract's columns (:mod:`elo_batch.columns`), none of which begins with ``__``. Every working column's
name begins with :data:`PREFIX`, a namespace that a user's columns are escaped out of where a file is
read (:mod:`elo_batch.contract.names`), so that a working column never meets a user's column.

The names are grouped by the modules that use them. Each name has one meaning; a frame that holds a
column under another role (the sums of PD under PD's name) says so with an alias. Types and units are
those of :mod:`elo_batch.engine.schema` (scores and PD in hundredths of a point, ratings in points).
This module sits at the contract's layer, below the inputs, the engine, the formats and the drivers:
it imports nothing of elo-batch.
"""

from __future__ import annotations

from typing import Final

#: Every working column's name starts with this (and no contract column's name does).
PREFIX: Final = "__"

# --- reading a file (inputs/readers.py, frames.py, parquetfile.py, csvfile.py, inputfile.py) -------
ROW_NUMBER: Final = "__source_row"  # Int64: a row's number in its file from 1 (header not counted), made source_row
RAGGED: Final = "__ragged__"  # String: the CSV reader's reason for a row whose field count is not the header's

# --- checking a file's rows (inputs/checkfile.py, gamechecks.py, byvalue.py, eventsfile.py, listchecks.py) ----
CHECK_ROW_KEY: Final = "__row_key"  # Int64: a checked row's place in its table from 0, made row_key
FAILED: Final = "__failed"  # the index of the first check a row fails (null: none; -1: a ragged list row)
FAILED_REASON: Final = "__reason"  # String: that check's reason (events file)
RAGGED_REASON: Final = "__ragged_reason"  # String: the reader's reason of a ragged list row (rating list)
TOKEN: Final = "__token"  # String: a row's result (score) without whitespace, when worked out per row
ROW_SCORE: Final = "__row_score100"  # Int16: white's (the player's) score in hundredths, made score100
ROW_FORFEIT: Final = "__row_forfeit"  # Boolean: the result is a forfeit, made forfeit
RAW_PREFIX: Final = "__raw_"  # + a column's name: its untrimmed text while its values are looked up (ByValue)
INDEX_PREFIX: Final = "__index_"  # + a column's name: each row's index in its distinct values (ByValue)
EVENT_ROW_PREFIX: Final = "__event_row_"  # + an event attribute: its value on a checked row (split off by load_games)

# --- repeated games (inputs/duplicates.py; sanity.py and spark/_check.py) --------------------------
GAME_ID_KEY: Final = "__game_id_key"  # a row's game_id, or its 64-bit hash (null: none)
GAME_KEY_HASH: Final = "__game_key"  # the hash of a row's game key (event, round, players, board)
CONFLICT: Final = "__conflict"  # Boolean: a copy of a game (game_id) whose copies disagree: rejected
PLACES: Final = "__where"  # String: where a conflicting game's rows are ("FILE row N, ...")
GROUP_ROWS: Final = "__group_rows"  # Int64: rows of one game_id, or of one group of rows alike
FIRST_COPY: Final = "__first_copy"  # Int64: the row_key of such a group's first row
VARIANTS: Final = "__variants"  # Int64: different contents among the rows of one game_id
MARKED: Final = "__marked"  # Boolean: a row found a repeat on the driver, joined back to the rows (Spark)
COPY_GAME: Final = "__copy_game"  # UInt64: the hash of a row's content, across files (games in two files)
COPY: Final = "__copy"  # UInt32: a row's file, files of one content hashed as one
COPIES: Final = "__copies"  # UInt32: files a game's content is found in
ALIKE: Final = "__alike"  # UInt64: the hash of a row's file and content (rows alike in one file)

# --- the period table (engine/prepass.py; elo_batch.engine.schema.TABLE) ---------------------------
WHITE: Final = "__w"  # UInt32: dense index of white (the player of a one-sided row)
BLACK: Final = "__b"  # UInt32: dense index of black (the opponent; null when a one-sided row names none)
WHITE_UP: Final = "__w_up"  # Boolean: white's one 400-point upgrade of the event (2022 rule, kernels/upgrades.py)
BLACK_UP: Final = "__b_up"  # Boolean: black's, likewise
# event facts of a row (elo_batch.engine.eventrows), after the pre-pass
EVENT_RULE: Final = "__event_rule"  # UInt8: the event rule of the row (a RULE_* code of the schema; 0: none)
WHITE_LATE: Final = "__w_late"  # Boolean: white had no rating at the event's start (B.02 8.2.4 signal)
BLACK_LATE: Final = "__b_late"  # Boolean: black had none
# pre-pass, while looking players up
ID_KEY: Final = "__id_key"  # a player id, or its 64-bit hash
WHITE_KEY: Final = "__wk"  # white's id key
BLACK_KEY: Final = "__bk"  # black's id key
UNLISTED: Final = "__unlisted"  # Boolean: a player of the row is not on the list in force
COLLISION: Final = "__collision"  # Boolean: a hash matched another id
RATINGS_SEEN: Final = "__ratings_seen"  # UInt32: different ratings of one player on the game rows

# --- a game side: one player's view of a table row (engine/sides.py, the map) ----------------------
SIDE: Final = "__side"  # Int8 or UInt32: 0 white (the player of a one-sided row), 1 black
KEY: Final = "__key"  # Int64: 2 x row_key + side, a game side's identity across the whole run
IDX: Final = "__idx"  # UInt32: the side's player
OPP: Final = "__opp"  # UInt32: the opponent
SIDE_SCORE: Final = "__score100"  # Int16: the side's score in hundredths
RO_GAME: Final = "__ro_game"  # Float64: the player's rating written on the game row (null: none)
RC_GAME: Final = "__rc_game"  # Float64: the opponent's rating written on the game row
RO_LIST: Final = "__ro_list"  # the player's rating on the list in force (null: unrated)
RC_LIST: Final = "__rc_list"  # the opponent's rating on the list in force
CODE: Final = "__code"  # UInt8: why the side does not count (0: it counts; the schema's codes)
PD: Final = "__pd100"  # PD in hundredths: Int8 (table 8.1.2) or Float64 (formula); null when not rated
RATED: Final = "__rated"  # Boolean: the side counts for a rated player (CODE == 0)
UPGRADE: Final = "__upgrade"  # Boolean: the side's one 400-point upgrade of the event (WHITE_UP / BLACK_UP)
HAS_SIDE: Final = "__has_side"  # Boolean: the row has this side (a one-sided row has no black side)
OWN_LATE: Final = "__late"  # Boolean: the side's player had no rating at the event's start (8.2.4)
OPP_LATE: Final = "__opp_late"  # Boolean: the opponent had none
DEV: Final = "__dev100"  # score - PD in hundredths (Int or Float64)

# --- per-player sums (engine/sums.py, reduce) ------------------------------------------------------
N: Final = "__n"  # Int64: rated games of the period
W2: Final = "__w2"  # Int64: score over them, half points (in the partial sums of a chunk)
W100: Final = "__w100"  # Int64: score over them, hundredths
PD_SUM: Final = PD  # sum of PD over them, hundredths (Int64 exact; Float64 for the formula)
OPP_SUM: Final = OPP  # sum of the opponents' ratings used (Int64; Float64 for fractional ratings)
DEV_SUM: Final = DEV  # sum of score - PD, hundredths (Int64 exact; Float64 for the formula)
COUNT: Final = "__count"  # UInt32: rated sides of one player with one value of score - PD (rounding by game)

# --- finalize (engine/finish.py, listchanges.py) ---------------------------------------------------
PERF_N: Final = "__perf_n"  # games of the performance rating: rated, or pending for an unrated player
PERF_OPP: Final = "__perf_opp"  # their opponents' rating sum
PERF_W2: Final = "__perf_w2"  # their score in half points
PENDING_N: Final = "__pending_n"  # pending sides of a player this period
PENDING_OPP: Final = "__pending_opp"
PENDING_W2: Final = "__pending_w2"
POOLED: Final = "__pooled"  # Boolean: the player has a pool (a row of the pools)
OUTPUT: Final = "__output"  # Boolean: the player is on the new list
X100: Final = "__x100"  # K x sum(score - PD), hundredths
GAME_CHANGE: Final = "__game_change"  # Int64: sum over games of each game's rounded K x (score - PD)
RATING_AFTER: Final = "__rating_after"  # the new rating (null: unrated on the new list)
REACHED_2400_BEFORE: Final = "__reached_2400_before"  # a published rating reached 2400 (list in force)
REACHED_2300_BEFORE: Final = "__reached_2300_before"  # ... 2300, or 2400 (the junior rule's "under 2300")
REACHED_2400_AFTER: Final = "__reached_2400"  # ... the new rating included
REACHED_2300_AFTER: Final = "__reached_2300"
GAMES_TOTAL: Final = "__games_total"  # rated games including this period's
SEEDED: Final = "__seeded"  # Boolean: rated at the standard rating this period (R&B 7.2.1, kernels/listchanges.py)
ADJUSTMENT: Final = "__adjustment"  # points the one-time list change added (kernels/listchanges.py)
SUMS_ROW: Final = "__sums_row"  # UInt32: a player index's row of the period's sums (null: no rated side)
POOLS_ROW: Final = "__pools_row"  # UInt32: a player index's row of the pools (null: no pool)

# --- first ratings (engine/lifecycle.py): one row per unrated player with pooled games -------------
PUBLISHED: Final = "__published"  # Boolean: a first rating is published this period
RU: Final = "__ru"  # Int64: Ru, rating points (null when not published)
POOL_N: Final = "__pool_n"  # Int64: games in the pool, all periods
PERIOD_N: Final = "__period_n"  # Int64: pooled games of this period
PERIOD_W2: Final = "__period_w2"  # Int64: their score in half points
PERIOD_OPP: Final = "__period_opp"  # pooled games of this period: opponents' rating sum
PENDING: Final = "__pending"  # List(Struct): the pool carried to the next list (null when published)
IGNORED_EVENTS: Final = "__ignored_events"  # List(String): events ignored as a first event scored zero
# ... and while pooling
ENTRY: Final = "__entry"  # one entry of a list's pending column (elo_batch.contract.pending.ENTRY)
ENTRY_N: Final = "__entry_n"  # an event's pooled games, score (half points), opponents' rating sum
ENTRY_W2: Final = "__entry_w2"
ENTRY_OPP: Final = "__entry_opp"
PRIOR_N: Final = "__prior_n"  # the earlier pool within the window: games, score, opponents' sum, entries
PRIOR_W2: Final = "__prior_w2"
PRIOR_OPP: Final = "__prior_opp"
PRIOR_ENTRIES: Final = "__prior_entries"
MARKER: Final = "__marker"  # the entry that keeps "a first event was seen" while the pool is empty
EVENT: Final = "__event"  # an event of this period (the empty text for rows without event_id)
START: Final = "__start"  # its first date
FIRST_ROW: Final = "__first_row"  # its first row_key
SEEN_BEFORE: Final = "__seen_before"  # Boolean: the player had an event before this period
EVENT_RANK: Final = "__event_rank"  # the event's rank among the player's events of the period
IGNORED: Final = "__ignored"  # Boolean: the event is ignored (first event scored zero)

# --- the audit (engine/audit.py) -------------------------------------------------------------------
AUDIT_ROW: Final = "__j"  # the audit row: side j % 2 of table row j // 2
AT: Final = "__at"  # the table row of an audit row
OWN_AT: Final = "__own_at"  # the audit row's side among the white sides then the black sides: AT + SIDE x rows
OTHER_AT: Final = "__other_at"  # its opponent's side there: AT + (1 - SIDE) x rows
BLACK_SCORE: Final = "__black_score100"  # Int16: black's score, hundredths
K_AUDIT: Final = "__k"  # K used for a rated side

# --- events (engine/events.py, eventchecks.py, eventrows.py; spark/_events.py) ---------------------
MONTH: Final = "__month"  # the month of a row's date (YYYY-MM; null without a date)
ROWS: Final = "__rows"  # Int64: rows of an event's group (event, period, month)
FIRST_DATE: Final = "__first"  # Date: a group's first game date
LAST_DATE: Final = "__last"  # Date: its last
SOURCE: Final = "__source"  # UInt8: how the event's period was decided (events.BY_DATE, ...)
START_PERIOD: Final = "__start_period"  # the month of the event's first day: its list in force
WAIVED: Final = "__waived"  # Boolean: the match asked for the 6.2 waiver
MATCH_PLAYER_A: Final = "__a"  # String: a match's first player id (in text order): whose score decides it
FILE_VALUE: Final = "__file"  # an event attribute as the events file gives it
ROWS_VALUE: Final = "__rows_value"  # ... as the event's rows give it (their one value)
VALUES: Final = "__values"  # List: the different values of an attribute on an event's rows
MATCH_PLAYER: Final = "__player"  # String: a player id of a match's game (one per side)
MATCH_RULE: Final = "__match_rule"  # UInt8: 6.1 of an event (or 0), 6.2 or its waiver of a row after the decision
EVENT_INDEX: Final = "__event_index"  # UInt32: a row's event, its row in PeriodEvents.events
NOW_PREFIX: Final = "__now_"  # + w / b: white's / black's rating on the period's list
START_LIST_PREFIX: Final = "__start_list"  # + the list's number, _, w / b: the rating on a start month's list
CLOSING: Final = "__closing"  # String: the closing-date period of an event that ends near a month's end
DAYS: Final = "__days"  # Int64: an event's length in days
MOVED: Final = "__moved"  # String: why rows are rated in another period: closing, event or period

# --- the Spark engine (spark/) ---------------------------------------------------------------------
MAP_KIND: Final = "__kind"  # Int8: which frame a row of a map's output belongs to (the map's kinds)
PART: Final = "__part"  # Int32: the unit (partition) a row of the check's output comes from
SPARK_FILE: Final = "__elo_batch_file"  # String: the file a row of a frame Spark read comes from
UNIT_ROWS: Final = "__unit_rows"  # Int64: rows counted in a unit: read of a file, checked of a period
BLOB: Final = "__blob"  # Binary: a pickled record of a file's check (what was read, or the error)
SIDE_ROWS: Final = "__side_rows"  # Binary: a unit's rows of the check other than its checked rows (Arrow IPC)
ORDER: Final = "__order"  # Int64: an audit row's place, 2 x row_key + side
TERMS: Final = "__terms"  # Array: a player's floating-point terms in the fixed order of their sum
OFFSET: Final = "__offset"  # Int64: the rows of a file in earlier units
BASE: Final = "__base"  # Int64: what makes a row's row_key from its source_row (the file's place)
RANK: Final = "__rank"  # a file's place among the files (by path, or by unit)
SIDE_PLAYER: Final = "__p"  # the id of a game side's player
ANY_SIDE: Final = "__any"  # Int64: a player's first side of any kind (2 x row_key + side)
MAKES_PLAYER: Final = "__makes"  # Boolean: the side makes a player (white, black of a two-sided row)
BUCKET: Final = "__bucket"  # Int64: row_key shifted right: a bucket of rows in input order

# --- the run's warnings and summaries (sanity.py, guards.py, history.py) ---------------------------
UNLISTED_ID: Final = "__unlisted_id"  # String: a player id of the games absent from the list
LISTED_ID: Final = "__listed"  # String: an id of the list
NORMALISED_ID: Final = "__normalised_id"  # String: an id without spaces, case and leading zeros
SHARED_ENDS: Final = "__shared"  # a listed id's leading and trailing characters shared with an id wanted
ELIDED_REASON: Final = "__elided_reason"  # String: a rejected row's reason, its values elided
REASON_ROWS: Final = "__reason_rows"  # UInt32: rejected rows with that reason
REASON_FIRST: Final = "__reason_first"  # UInt32: the first of them
PARTITION_PERIOD: Final = "__partition_period"  # String: the period of an output's partition (history)

# --- the report's site (reportsite/) ---------------------------------------------------------------
SITE_POSITION: Final = "__site_position"  # Int64: a player's place in the rating list as the site shows it, from 0
SITE_PAGE: Final = "__site_page"  # Int64: the list page (data file) of that place
SITE_BUCKET: Final = "__site_bucket"  # Int64: the player shard of an id (a hash of the id, never the id)
SITE_JSON: Final = "__site_json"  # String: a row's (or a group's) JSON text in a data file
SITE_HISTORY: Final = "__site_history"  # String: a player's history points as JSON text
SITE_GAMES: Final = "__site_games"  # String: a player's audit rows as JSON text
SITE_CODE: Final = "__site_code"  # UInt32: a filter value's index among the values a list column holds
SITE_STEADY: Final = "__site_steady"  # Boolean: a player on every list so far at one rating, unchanged, never new
SITE_POINT_STEADY: Final = "__site_point_steady"  # Boolean: this list's row unchanged (change 0), not new
SITE_FIRST: Final = "__site_first"  # Int16: a player's rating on the first list of OUT
SITE_POINT_RATING: Final = "__site_point_rating"  # Int16: the player's rating on this list

# --- importing a FIDE file (formats/) --------------------------------------------------------------
LIST_ROW: Final = "__row"  # Int64: a player's line (record) in a rating list file, from 1
BAD_FIELD: Final = "__field"  # String: the first field of a record that is not a number
BAD_VALUE: Final = "__value"  # String: its text
OLD_BIRTH: Final = "__old_birth"  # Boolean: a birth year before the earliest taken (dropped, counted)
TRF_CODE: Final = "__trf_code"  # String: a TRF game's result code (forfeits and unplayed games counted)
PGN_FORFEIT: Final = "__forfeit"  # Boolean: a PGN game without moves with a decisive result (B.02 5.1)
PGN_UNPLAYED_DRAW: Final = "__unplayed_draw"  # Boolean: a draw without a move by both players
PGN_UNKNOWN_RESULT: Final = "__unknown_result"  # Boolean: no final result
PGN_UNKNOWN_DATE: Final = "__unknown_date"  # Boolean: no month of play
PGN_DATE_FROM_EVENT: Final = "__date_from_event"  # Boolean: the event's date is used
PGN_BAD_DATE: Final = "__bad_date"  # Boolean: a full date that is not a calendar date
PGN_MONTH_ONLY: Final = "__month_only"  # Boolean: a date without a day
