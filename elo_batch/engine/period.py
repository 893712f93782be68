"""Rate one rating period, and a range of periods (the only loop, over months): the local engine.

Inside a period nothing is sequential: every game uses the ratings in force. The period runs through the
kernels of :mod:`elo_batch.kernels`, with the period table cut into chunks of ``SUM_ROWS`` rows:

1. the pre-pass: the list in force, each player's dense index (players of the list first, by
   ``player_id``, then players absent from it), the period table of the period's rows with the two players'
   indices (a dense table for integer ids; text ids through 64-bit hashes checked against the ids);
2. the map, chunk by chunk: both sides of every row rated once, then per-player partial sums of games,
   score and score - PD (exact integers), added by index;
3. the reduce (the chunks' sums added) and the finalize: K, the change, the new list;
4. the audit: a lazy plan that gathers both sides of every table row in input order; the writer runs
   it in chunks, so it never has to fit in memory at once.

The rows may be in memory or a plan that reads the input files again (``--chunk-rows``); the queries
over them run on polars' streaming engine, chunk by chunk, and the per-player sums are exact, so the
result does not depend on the chunking.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Final

import polars as pl

from elo_batch import columns as c
from elo_batch import working as w
from elo_batch.config import RunConfig
from elo_batch.contract.tables import GamesInput, InputFile
from elo_batch.engine import eventrows, listchanges, prepass
from elo_batch.engine import schema as s
from elo_batch.engine import sums as sums_kernel
from elo_batch.engine.audit import audit
from elo_batch.engine.finish import Finished, finalize
from elo_batch.engine.listinforce import as_list_in_force, unrate_below_floor
from elo_batch.engine.sides import Chunk, RatedSides, rate_chunk
from elo_batch.errors import InternalError
from elo_batch.rules import bands as band_rules
from elo_batch.rules.bands import Bands
from elo_batch.rules.sets import Compression, Raise, RuleSet

#: Polars engine of the heavy queries (see :data:`elo_batch.engine.prepass.ENGINE`).
ENGINE: Final = prepass.ENGINE
#: Table rows rated and summed at a time (one chunk of the kernels), and the block of the fixed order
#: of floating-point sums (see :mod:`elo_batch.engine.sums`): a constant, so that float sums (logistic
#: formula) add in the same order whatever the input's chunks.
_SUM_ROWS: Final = sums_kernel.SUM_ROWS
#: Table rows of one part of the audit plan (two audit rows each): the writer streams the parts one
#: after the other, so one part's gathered columns are in memory at a time, not the whole audit's
#: (a 75 MB CSV of 1.6M games: the audit's write +170 -> +65 MB over what the run holds).
_AUDIT_ROWS: Final = 250_000


@dataclass(frozen=True)
class Counts:
    """How the input rows of a run are accounted for in one period.

    ``rows_read == counted + not_counted + other_periods + rejected`` always holds (see
    :meth:`reconciles`): counted rows have at least one side counted, not-counted rows are in the audit
    with their reason, rejected rows are in ``rejected``.
    """

    rows_read: int
    counted: int
    not_counted: int
    other_periods: int
    rejected: int

    def reconciles(self) -> bool:
        """True when every row read is accounted for exactly once."""
        return self.rows_read == self.counted + self.not_counted + self.other_periods + self.rejected


@dataclass(frozen=True)
class RatedPeriod:
    """A rating period as the engine rated it: everything the period produces, for the pipeline's views
    (the API hands it out as :class:`elo_batch.job.rated.PeriodResult`, ``run`` writes it).

    Attributes:
        period: Month of play, ``YYYY-MM``.
        rule_set: The rules applied.
        ratings: The new rating list (one row per player, sorted by ``player_id``).
        audit: One row per game side considered, in input order: a lazy plan, run when it is written.
        audit_rows: Rows of ``audit``.
        rejected: Rejected input rows attributed to this period, in input order.
        counts: Row accounting.
        warnings: Things the user should know that did not stop the run.
        unlisted: Ids of the period's players absent from the list in force, in order of first
            appearance (empty without a list: every player is taken from the games).
        events_file: The events file read (for the manifest), or None.
        band_moves: Players whose band went (up, down), among those with a band before and after.
    """

    period: str
    rule_set: RuleSet
    ratings: pl.DataFrame
    audit: pl.LazyFrame
    audit_rows: int
    rejected: pl.DataFrame
    counts: Counts
    warnings: tuple[str, ...]
    unlisted: pl.Series = field(default_factory=lambda: pl.Series(c.PLAYER_ID, [], pl.String))
    events_file: InputFile | None = None
    band_moves: tuple[int, int] = (0, 0)


def rate_periods(
    games: GamesInput, rating_list: pl.DataFrame | None, config: RunConfig, *, bands: Bands | None = None
) -> Iterator[RatedPeriod]:
    """Rate the periods of ``config`` in order, each starting from the list the previous one produced.

    Args:
        games: All checked game rows of the run.
        rating_list: The list in force before the first period (``LIST_SCHEMA`` columns first), or
            None to take ratings from the game rows.
        config: The run's settings.
        bands: The band table of the new lists (default: :func:`elo_batch.rules.bands.default_bands`).

    Yields:
        One :class:`RatedPeriod` per period, in order.

    Raises:
        UsageError: a period has no supported rule set (see :meth:`RunConfig.rules_for`).
    """
    current = rating_list
    if current is not None and current[c.PLAYER_ID].dtype == pl.Int64 and games.id_type != pl.Int64:
        current = current.with_columns(pl.col(c.PLAYER_ID).cast(pl.String))  # ids as text, as the games give them
    started = start_months(games, config.periods)
    start_lists: dict[str, pl.DataFrame | None] = {}  # the lists in force of those months, once rated
    for number, period in enumerate(config.periods):
        if period in started:  # as the period rates it: a list rating under the floor is no rating (B.02 7.1.2)
            start_lists[period] = unrate_below_floor(current, config.rules_for(period).floor, period)[0]
        result = rate_period(
            games,
            current,
            config.rules_for(period),
            period=period,
            add_players_from_games=rating_list is None,
            reject_undated=number == 0,
            start_lists=start_lists,
            bands=bands,
        )
        yield result
        current = as_list_in_force(result.ratings)


def start_months(games: GamesInput, periods: tuple[str, ...]) -> set[str]:
    """Months of the run in which an event started that is rated in a later month of the run: by event,
    its games use the list in force of its first month; a match (either mode) is judged on it (B.02 6.1:
    a match with a player unrated at its start is not rated, in any of its months)."""
    facts = games.events
    if facts is None:
        return set()
    starts = facts.events.select(c.EVENT_ID, w.START_PERIOD)
    later = pl.col(c.PERIOD).is_in(list(periods)) & (pl.col(c.PERIOD) > pl.col(w.START_PERIOD))
    matches = facts.match_rows.select(c.EVENT_ID, c.PERIOD).join(starts, on=c.EVENT_ID).filter(later)[w.START_PERIOD]
    months = set(matches.to_list())
    if facts.by_event:
        months |= set(facts.events.filter(later)[w.START_PERIOD].to_list())
    return months & set(periods)


def rate_period(
    games: GamesInput,
    rating_list: pl.DataFrame | None,
    rules: RuleSet,
    *,
    period: str,
    add_players_from_games: bool = False,
    reject_undated: bool = True,
    start_lists: Mapping[str, pl.DataFrame | None] | None = None,
    bands: Bands | None = None,
) -> RatedPeriod:
    """Rate one period: expected scores, K, change, new list and audit.

    Args:
        games: All checked game rows (rows of other periods are counted, not rated).
        rating_list: The list in force (``LIST_SCHEMA`` columns, then pass-through columns), or None:
            then each player's rating is the one on their first game of the period (by date, then
            file order).
        rules: The rule set of the period.
        period: Month of play, ``YYYY-MM``.
        add_players_from_games: Add players met in the games but absent from ``rating_list``, rated
            from the game rows (a range run without ``--ratings``).
        reject_undated: Write the rejected rows whose period cannot be read (no usable date or period)
            into this period's ``rejected``; False for the later periods of a range, so that a warehouse
            counts each bad row once (they count there as rows of other periods).
        start_lists: The lists in force of earlier months of a range, by month: by event, the games of
            an event that started in one of them use its ratings.
        bands: The band table of the new list's ``band`` (default: the table of ``rules/bands.csv``).

    Returns:
        The period's ratings, audit (a lazy plan), rejected rows and counts.

    References:
        FIDE Rating Regulations (B.02, 2024) 8.3 (rated players), 8.2 and 7.1.4 (unrated players),
        7.1.2 (1400 floor); ``fide-rules.md`` sections 3-7 and 12.
    """
    rating_list, floor_warnings = unrate_below_floor(rating_list, rules.floor, period)  # B.02 7.1.2
    rating_list, notes = listchanges.seed_from_standard(rating_list, games, rules, period=period)
    prepared = prepass.prepare(
        games, rating_list, period, add_players_from_games=add_players_from_games, start_lists=start_lists, rules=rules
    )
    table = prepared.table
    totals, every_side = _map_reduce(prepared, rules)
    bands = bands or band_rules.default_bands()
    finished = finalize(prepared, totals, rules, period=period, bands=bands)
    audited = _audit(table, every_side, finished, prepared=prepared, games=games, rules=rules, period=period)
    rejected, counts = accounting(
        games, period, in_period=table.height, counted=finished.counted_rows, reject_undated=reject_undated
    )
    warnings = (
        *floor_warnings,
        *prepared.warnings,
        *notes,
        *one_off_notes(finished.ratings, rules),
        *eventrows.rule_notes(period, *rule_counts(table, every_side)),
    )
    audit_rows = table.height + table.select((~pl.col(s.ONE_SIDED)).sum()).item()
    unlisted = prepared.ids.slice(prepared.listed.height)
    events_file = games.events.source if games.events is not None else None
    moves = _band_moves(finished.ratings, bands)
    return RatedPeriod(
        period, rules, finished.ratings, audited, audit_rows, rejected, counts, warnings, unlisted, events_file, moves
    )


def _map_reduce(prepared: prepass.Prepared, rules: RuleSet) -> tuple[sums_kernel.Sums, RatedSides]:
    """The period's per-player sums and its rated sides: the map over chunks of :data:`_SUM_ROWS` table
    rows, then the reduce."""
    table, block = prepared.table, _SUM_ROWS
    chunks = [Chunk(start, table.slice(start, block)) for start in range(0, table.height, block)] or [Chunk(0, table)]
    rated: list[RatedSides] = []
    mapped = _mapped(chunks, prepared, rules, rated=rated)
    totals = sums_kernel.reduce_sums(mapped, rules, players=prepared.players, rows=table.height, block_rows=block)
    return totals, RatedSides.concat(rated)


def _mapped(
    chunks: list[Chunk], prepared: prepass.Prepared, rules: RuleSet, *, rated: list[RatedSides]
) -> Iterator[sums_kernel.Partial]:
    """The map: each chunk's partial sums, in order, its rated sides appended to ``rated``.

    The next chunk's sides are worked out by polars (its threads, no GIL) while numpy adds this chunk's
    terms (one thread, holding the GIL): the two halves of the map overlap.
    """
    with concurrent.futures.ThreadPoolExecutor(1) as ahead:
        coming = ahead.submit(_terms, chunks[0], prepared, rules)
        for at, chunk in enumerate(chunks):
            sides, frames = coming.result()
            if at + 1 < len(chunks):
                coming = ahead.submit(_terms, chunks[at + 1], prepared, rules)
            rated.append(sides)
            yield sums_kernel.add_terms(chunk, frames, rules, players=prepared.players)
            del frames


def _terms(chunk: Chunk, prepared: prepass.Prepared, rules: RuleSet) -> tuple[RatedSides, list[pl.DataFrame]]:
    """polars' half of the map: a chunk's sides rated, and their terms."""
    sides = rate_chunk(chunk, prepared.list_rating, rules)
    return sides, sums_kernel.side_terms(chunk, sides, rules)


def _band_moves(ratings: pl.DataFrame, bands: Bands) -> tuple[int, int]:
    """Players whose band went (up, down), among those with a band before and after."""
    # the two rating columns only (a filter of the whole list would copy every column of the moved rows)
    moved = ratings.select(c.RATING_BEFORE, c.RATING).filter(
        pl.col(c.RATING).ne_missing(pl.col(c.RATING_BEFORE))  # the same band otherwise
    )
    up, down = moved.select(band_rules.moves(pl.col(c.RATING_BEFORE), pl.col(c.RATING), bands)).row(0)
    return up, down


def _audit(
    table: pl.DataFrame,
    rated: RatedSides,
    finished: Finished,
    *,
    prepared: prepass.Prepared,
    games: GamesInput,
    rules: RuleSet,
    period: str,
) -> pl.LazyFrame:
    """The period's audit (see :func:`elo_batch.engine.audit.audit`) as consecutive parts of
    :data:`_AUDIT_ROWS` table rows: the same rows in the same order as one part holding them all."""
    source_file = games.source_file(pl.col(s.ROW_KEY))
    parts = [
        audit(
            Chunk(start, table.slice(start, _AUDIT_ROWS)),
            rated.slice(start, _AUDIT_ROWS),
            finished,
            ids=prepared.ids,
            source_file=source_file,
            absent=games.absent,
            rules=rules,
            period=period,
        )
        for start in range(0, max(table.height, 1), _AUDIT_ROWS)
    ]
    return pl.concat(parts) if len(parts) > 1 else parts[0]


def accounting(
    games: GamesInput, period: str, *, in_period: int, counted: int, reject_undated: bool
) -> tuple[pl.DataFrame, Counts]:
    """The period's rejected rows and its counts, checked to reconcile: shared by every engine.

    Args:
        games: All checked game rows of the run (their rejected rows, rows by period, rows read).
        period: Month of play, ``YYYY-MM``.
        in_period: Rows of the period table (the period's rows, not rejected).
        counted: Rows of the period with at least one side counted.
        reject_undated: As :func:`rate_period`.

    Raises:
        InternalError: the rows do not reconcile (a bug).
    """
    undated = pl.col(c.PERIOD).is_null()
    rejected = games.rejected.filter((undated & reject_undated) | (pl.col(c.PERIOD) == period)).with_columns(
        pl.lit(period).alias(c.PERIOD)
    )
    other = (
        sum(rows for month, rows in games.period_rows.items() if month != period)
        + games.rejected.filter(
            (pl.col(c.PERIOD).is_not_null() & (pl.col(c.PERIOD) != period)) | (undated & (not reject_undated))
        ).height
    )
    counts = Counts(games.rows_read, counted, in_period - counted, other, rejected.height)
    if not counts.reconciles():
        raise InternalError(
            f"period {period}: rows do not reconcile ({counts}); nothing was written for this period",
            hint="this is a bug in elo-batch: every input row must be counted, audited or rejected; please report it.",
        )
    return rejected, counts


def rule_counts(table: pl.DataFrame, rated: RatedSides) -> tuple[dict[int, int], int]:
    """What the warnings about event rules count in rows of the period table (any run of them: the counts
    of several runs add up): the sides by the codes the rules decided (B.02 6.1, 6.2, 8.2.4), and the
    games rated under the 6.2 waiver (see :func:`elo_batch.engine.eventrows.rule_notes`)."""
    codes = [s.MATCH_UNRATED, s.MATCH_DECIDED, s.UNRATED_AT_START]
    sides = pl.concat([rated.white[w.CODE], rated.black[w.CODE].filter(~table[s.ONE_SIDED])])
    by_code = {int(code): int(count) for code, count in sides.filter(sides.is_in(codes)).value_counts().iter_rows()}
    waived = int((table[w.EVENT_RULE] == s.RULE_MATCH_WAIVER).sum())
    return by_code, waived


def one_off_notes(ratings: pl.DataFrame, rules: RuleSet) -> list[str]:
    """What the rule set's one-time list change did (column ``adjustment``)."""
    change = rules.one_off
    if change is None:
        return []
    moved = int((ratings[c.ADJUSTMENT].fill_null(0) != 0).sum())
    if isinstance(change, Compression):
        return [_compression_note(change, moved, rules=rules, standard=c.STANDARD_RATING in ratings.columns)]
    assert isinstance(change, Raise)
    if c.STANDARD_RATING not in ratings.columns:
        return [
            f"the 1 October 2022 {rules.list_kind} raise needs the list's {c.STANDARD_RATING}: none was given, "
            "no rating was raised"
        ]
    return [
        f"the 1 October 2022 {rules.list_kind} raise: {moved} rating(s) more than {change.margin} below the "
        f"standard rating raised to standard - {change.margin} (column {c.ADJUSTMENT})"
    ]


def _compression_note(change: Compression, moved: int, *, rules: RuleSet, standard: bool) -> str:
    """The note of the 1 March 2024 compression: ``moved`` ratings raised (``standard``: the list's
    ``standard_rating`` too)."""
    return (
        f"the 1 March 2024 compression: {moved} rating(s) under {change.below} raised by "
        f"{change.numerator / change.denominator:g} x ({change.below} - R)"
        + (", rounded" if rules.whole_ratings else "")
        + f" (column {c.ADJUSTMENT}; fide-rules.md section 8)"
        + (f"; {c.STANDARD_RATING} compressed the same way" if standard else "")
    )
