"""Every column name of the contract once, with its unit and meaning; no logic.

Input columns are those of ``../shared/spec/interface.md``; output columns extend them. Working
columns that elo-batch adds beside a file's own are named ``__...``; a file's column named like them, or
like ``source_file`` and ``source_row``, is held escaped (:mod:`elo_batch.contract.names`).
"""

from __future__ import annotations

# --- games file, two-sided shape (one row per game) -------------------------------------------
WHITE_ID = "white_id"  # player id, text
BLACK_ID = "black_id"  # player id, text
RESULT = "result"  # 1-0, 0-1, 1/2-1/2 (and variants), forfeits +-- --+ +- -+ --
DATE = "date"  # ISO date or date-time; the local date as written decides the month
PERIOD = "period"  # YYYY-MM: the period a game is rated in (overrides date); in the outputs the period rated
GAME_ID = "game_id"  # unique id of the game
EVENT_ID = "event_id"  # the event (tournament or match) the game belongs to
ROUND = "round"  # round within the tournament
BOARD = "board"  # board within the round (optional, text): tells games of one round apart
WHITE_RATING = "white_rating"  # rating used for this game (rating points)
BLACK_RATING = "black_rating"  # as white_rating, for black

# --- event attributes: columns of the games file, or of an events file (one row per event_id) ---
EVENT_TYPE = "event_type"  # tournament (default) | match
MATCH_GAMES = "match_games"  # games scheduled in a match
RATE_ALL_GAMES = "rate_all_games"  # true: the B.02 6.2 waiver (games after a match is decided are rated)
EVENT_START = "event_start"  # date (default: the event's first game date)
EVENT_END = "event_end"  # date (default: the event's last game date)
#: The attributes an event has besides its ``period`` (which is also a column of every game row).
EVENT_COLUMNS = (EVENT_TYPE, MATCH_GAMES, RATE_ALL_GAMES, EVENT_START, EVENT_END)
TOURNAMENT = "tournament"
MATCH = "match"

# --- games file, one-sided shape (a player's results against opponents known by rating) ----------
PLAYER_ID = "player_id"  # player id, text: a one-sided row's player, a list's player, the player of an output row
OPPONENT_ID = "opponent_id"  # the opponent's id (optional in one-sided rows); in the audit the other side
PLAYER_RATING = "player_rating"  # the player's rating used for this game (one-sided rows)
OPPONENT_RATING = "opponent_rating"  # the opponent's rating (one-sided rows); in the audit the one used
SCORE = "score"  # points: 1, 0.5, 0 of a one-sided row or an audit side; in ratings the period's total

TWO_SIDED_REQUIRED = (WHITE_ID, BLACK_ID, RESULT)
ONE_SIDED_REQUIRED = (PLAYER_ID, OPPONENT_RATING)

# --- rating list (one row per player) ---------------------------------------------------------
RATING = "rating"  # rating points: the list's (empty = unrated); in ratings the new one, in the audit the one used
K = "k"  # K printed on the list; in ratings the K of the next list
BIRTH_YEAR = "birth_year"  # year of birth (the junior K: list year - birth year <= 18)
GAMES_TOTAL = "games_total"  # rated games so far
REACHED_2400 = "reached_2400"  # a published rating once reached 2400 (K 10 for good)
REACHED_2300 = "reached_2300"  # a published rating once reached 2300 (ends the junior K 40)
PENDING = "pending"  # an unrated player's games waiting for a first rating (text: see contract/pending.py)
STANDARD_RATING = "standard_rating"  # rapid and blitz lists: the player's standard rating (R&B 7.2.1)

LIST_STATE = (K, BIRTH_YEAR, GAMES_TOTAL, REACHED_2400, REACHED_2300, PENDING)

# --- outputs ----------------------------------------------------------------------------------
RATING_BEFORE = "rating_before"  # rating on the list in force (Ro of the list), points
CHANGE = "change"  # rounded rating change of the period, points
ADJUSTMENT = "adjustment"  # points a one-time list change added (compression 2024, raise 2022); else null
BAND = "band"  # approximate strength label of the new rating (rules/bands.csv or --bands), never a title
K_USED = "k_used"  # K applied this period, after the 700 rule
GAMES = "games"  # rated games this period (n)
EXPECTED_SCORE = "expected_score"  # PD, points: in the audit the game side's, in ratings the sum over its rated games
STATUS = "status"  # rated | new | unrated (STATUSES)
PERFORMANCE_RATING = "performance_rating"  # Rp = Ra + dp, Title Regulations 1.4.8
OPPONENTS_AVERAGE = "opponents_average"  # Ra, rounded half up

#: The values of ``status``, in the order of the engine's codes 0, 1, 2.
STATUSES = ("rated", "new", "unrated")

RATINGS_OUTPUT = (
    PLAYER_ID,
    PERIOD,
    RATING,
    RATING_BEFORE,
    CHANGE,
    ADJUSTMENT,
    K_USED,
    GAMES,
    SCORE,
    EXPECTED_SCORE,
    STATUS,
    BAND,
    PERFORMANCE_RATING,
    OPPONENTS_AVERAGE,
    K,
    GAMES_TOTAL,
    REACHED_2400,
    REACHED_2300,
    BIRTH_YEAR,
    PENDING,
)

# audit: one row per game and side considered
SOURCE_FILE = "source_file"  # the input file of the row (for a frame its source_name, else null)
SOURCE_ROW = "source_row"  # 1-based data row in the source file (header not counted)
COLOUR = "colour"  # white | black (COLOURS) | null (one-sided rows)
#: The values of ``colour``, in the order of the sides (0: white, 1: black).
COLOURS = ("white", "black")
RATING_DIFF = "rating_diff"  # D after the 400-point rule, points
CAPPED = "capped"  # the 400-point rule changed D for this side
K_CHANGE = "k_change"  # k_used x (score - expected), unrounded, points
COUNTED = "counted"  # true: the side counts in the player's change; false: reason says why not
REASON = "reason"  # audit: why a side does not count (the values below); rejected: why the row was
EVENT_RULE = "event_rule"  # the event rule that decided this side (a RULE_* value below; null: none)

AUDIT_OUTPUT = (
    PERIOD,
    GAME_ID,
    SOURCE_FILE,
    SOURCE_ROW,
    EVENT_ID,
    ROUND,
    DATE,
    PLAYER_ID,
    OPPONENT_ID,
    COLOUR,
    RATING,
    OPPONENT_RATING,
    RATING_DIFF,
    CAPPED,
    EXPECTED_SCORE,
    SCORE,
    K_USED,
    K_CHANGE,
    COUNTED,
    REASON,
    EVENT_RULE,
)

# rejected: input rows that could not be used
COLUMN = "column"  # the column at fault (null when the row as a whole is at fault)
VALUE = "value"  # the offending value, as text
RAW = "raw"  # the whole input row as a JSON object of its original values

REJECTED_OUTPUT = (PERIOD, SOURCE_FILE, SOURCE_ROW, COLUMN, VALUE, REASON, RAW)

# --- audit reasons (not counted) --------------------------------------------------------------
FORFEIT = "forfeit"  # B.02 5.1: an unplayed game is not rated
UNRATED_OPPONENT = "unrated opponent"  # a rated player's game against an unrated one (B.02 8.3.1)
UNRATED_PLAYER = "unrated player"  # a rule set without initial ratings (elo)
DUPLICATE_ROW = "duplicate row"  # a repeat of an earlier row of the same game: it counts once
PENDING_FIRST_RATING = "pending first rating"  # an unrated player's game, pooled (B.02 7.1.4, 8.2)
FIRST_EVENT_ZERO = "first event scored zero"  # B.02 8.2.1: that event is disregarded
GAP_600 = "rating gap 600+ with a player above 2600"  # rapid and blitz from 2024-12 (R&B 7.3.1)
OUTSIDE_WINDOW = "pooled games older than 26 months"  # B.02 7.1.4: a pool spans at most 26 months
MATCH_UNRATED_PLAYER = "match with an unrated player"  # B.02 6.1
MATCH_DECIDED = "played after the match was decided"  # B.02 6.2
UNRATED_AT_START = "opponent unrated at the event's start"  # B.02 8.2.4
#: Every ``reason`` an audit row can give (null: counted); elo_batch.engine.audit orders them by its codes.
AUDIT_REASONS = (
    DUPLICATE_ROW, FORFEIT, UNRATED_OPPONENT, PENDING_FIRST_RATING, UNRATED_PLAYER, GAP_600, FIRST_EVENT_ZERO,
    MATCH_UNRATED_PLAYER, MATCH_DECIDED, UNRATED_AT_START,
)  # fmt: skip

# --- audit event_rule values: the event rule that decided a game side (B.02 clauses) -------------
RULE_MATCH_UNRATED = "6.1 match with an unrated player"  # not rated, either side
RULE_MATCH_DECIDED = "6.2 after the match was decided"  # not rated, either side
RULE_MATCH_WAIVER = "6.2 waiver: rated after the match was decided"  # rated (rate_all_games)
RULE_START_LIST = "ratings of the list at the event's start"  # a range rated the event's start month
RULE_CLOSING_DATE = "7.1.3 closing date: rated after the month of play"  # by event: it ended after the closing date
RULE_EVENT_PERIOD = "event period"  # the event's own period placed the row
RULE_OPPONENT_LATE = "8.2.4 opponent unrated at the event's start"  # not counted
RULE_RATED_FOR_HIMSELF = "8.2.4 rated for himself, unrated for his opponents"  # counted for himself
#: Every ``event_rule`` value (null: no event rule decided the side), in the order of the engine's codes 1..8
#: (elo_batch.engine.schema: row rules 1..6, side rules 7..8).
EVENT_RULES = (
    RULE_MATCH_UNRATED, RULE_MATCH_DECIDED, RULE_MATCH_WAIVER, RULE_START_LIST, RULE_CLOSING_DATE, RULE_EVENT_PERIOD,
    RULE_OPPONENT_LATE, RULE_RATED_FOR_HIMSELF,
)  # fmt: skip
