"""The public API's smaller doors: the two calculators and the importers, as the CLI's commands use them.

Library code: raises :mod:`elo_batch.errors` (messages name parameters, which the CLI shows as flags),
never prints or exits.
"""

from __future__ import annotations

import datetime as dt
import numbers
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO, Literal, get_args

from elo_batch.choices import CapChoice, CsvFormulas, Expected, ListKind, Rounding, RulesName
from elo_batch.config import check_k, parse_periods
from elo_batch.engine import calculator
from elo_batch.engine.calculator import GameResult, TournamentResult
from elo_batch.errors import UsageError, option
from elo_batch.formats.trf import read_trf
from elo_batch.inputs.encoding import decode_text
from elo_batch.inputs.paths import unreadable
from elo_batch.job.sources import path_arg
from elo_batch.options import RunOptions, check_choice
from elo_batch.outputs.gamesfile import write_games
from elo_batch.rules.sets import RuleSet


def rate_game(
    rating_a: float,
    rating_b: float,
    result: str | float | None = None,
    *,
    k: int | None = None,
    k_b: int | None = None,
    period: str | None = None,
    rules: RulesName = "fide",
    rule_set: str | None = None,
    expected: Expected | None = None,
    cap_400: CapChoice = "auto",
    rounding: Rounding | None = None,
) -> GameResult:
    """One game, as ``elo-batch game`` shows it: both players' expected score, change and new rating.

    Args:
        rating_a: Player A's rating (the list in force).
        rating_b: Player B's rating (the list in force).
        result: A's score (``1``, ``0.5``, ``0``, or text such as ``"1/2"``); None: only A's table of a
            win, a draw and a loss.
        k: A's K (also B's unless ``k_b``); default: the rule set's fixed K, else 20.
        k_b: B's K (default: A's).
        period: The month whose rules apply, ``YYYY-MM`` (default: this month).
        rules: As :func:`elo_batch.rate_period`.
        rule_set: As :func:`elo_batch.rate_period`.
        expected: As :func:`elo_batch.rate_period`.
        cap_400: As :func:`elo_batch.rate_period`.
        rounding: As :func:`elo_batch.rate_period`.

    Returns:
        The game (:class:`elo_batch.engine.calculator.GameResult`).

    Raises:
        TypeError: a rating is not a number (text, None or a bool is not one).
        UsageError: a bad option value (``k`` and ``k_b``: whole numbers from 1 to 100), ``period`` is a
            range, ``result`` is not a score (a forfeit is not rated), or a rating is out of range (0 to
            3500, exclusive) or not whole (only ``rounding="none"`` keeps fractional ratings).

    >>> import elo_batch
    >>> elo_batch.rate_game(2000, 2000, 1, k=20, period="2025-11").change_a.rounded
    10
    """
    _number_arg(rating_a, "rating_a")
    _number_arg(rating_b, "rating_b")
    check_k(k)
    check_k(k_b, "k_b")
    rule_set_used = _calculator_rules(period, rules, rule_set, expected=expected, cap_400=cap_400, rounding=rounding)
    score = None
    if result is not None:
        try:
            score = calculator.parse_score(result if isinstance(result, str) else str(result))
        except ValueError:
            raise UsageError(
                f"{result!r} is not a result for player A", option="result", hint="use 1, 0.5 or 0."
            ) from None
        if score is None:
            raise UsageError("a forfeit is not rated (FIDE B.02 5.1)", option="result", hint="use 1, 0.5 or 0.")
    k_a = _calculator_k(k, rule_set_used)
    return calculator.rate_game(rating_a, rating_b, score, rules=rule_set_used, k_a=k_a, k_b=k_b or k_a)


def rate_tournament(
    rating: float,
    results: str | bytes | os.PathLike[str] | BinaryIO,
    *,
    k: int | None = None,
    period: str | None = None,
    rules: RulesName = "fide",
    rule_set: str | None = None,
    expected: Expected | None = None,
    cap_400: CapChoice = "auto",
    rule_700: bool | None = None,
    rounding: Rounding | None = None,
) -> TournamentResult:
    """One player's event, as ``elo-batch tournament`` shows it: each game's K x (score - expected), their
    sum rounded once, the performance rating.

    Args:
        rating: The player's rating before the event.
        results: Lines ``opponent_rating | result``: as text, as bytes (decoded as every input is), a
            file's path, or a binary stream (standard input; refused when it is a terminal).
        k: The player's K (default: the rule set's fixed K, else 20).
        period: As :func:`rate_game`.
        rules: As :func:`rate_game`.
        rule_set: As :func:`rate_game`.
        expected: As :func:`rate_game`.
        cap_400: As :func:`rate_game`.
        rule_700: False: do not reduce K when K x n > 700.
        rounding: As :func:`rate_game`.

    Returns:
        The event (:class:`elo_batch.engine.calculator.TournamentResult`).

    Raises:
        TypeError: ``rating`` is not a number, or ``results`` not text, bytes, a path or a binary stream.
        UsageError: a bad option value (``k``: a whole number from 1 to 100), ``period`` is a range,
            ``rating`` is out of range or not whole (as :func:`rate_game`), or no games to read (a terminal).
        InputMissingError: the file cannot be read.
        InputDataError: a line is not ``opponent_rating | result``, or the text cannot be decoded.
    """
    _number_arg(rating, "rating")
    check_k(k)
    if not isinstance(results, str | bytes | os.PathLike) and not callable(getattr(results, "read", None)):
        raise TypeError(
            "results must be text, bytes, a path or a binary stream of lines 'opponent_rating | result', "
            f"not {type(results).__name__}"
        )
    rule_set_used = _calculator_rules(
        period, rules, rule_set, expected=expected, cap_400=cap_400, rounding=rounding, rule_700=rule_700
    )
    source, text = _results_text(results)
    games = calculator.parse_results(text, source)
    return calculator.rate_tournament(rating, games, rules=rule_set_used, k=_calculator_k(k, rule_set_used))


def _results_text(results: str | bytes | os.PathLike[str] | BinaryIO) -> tuple[str, str]:
    """(where the results came from, their text): text as given; bytes, a file or a stream decoded.

    Raises:
        UsageError: ``results`` is a terminal (no games piped in).
        InputMissingError: the file cannot be read.
        InputDataError: the bytes cannot be decoded.
    """
    if isinstance(results, str):
        return "<results>", results
    if isinstance(results, bytes):
        source, data = "<results>", results
    elif isinstance(results, os.PathLike):
        source = os.fspath(results)
        try:
            with open(source, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            raise unreadable(exc, source) from exc
    else:
        if results.isatty():
            raise UsageError(
                "no games given",
                hint=f"pipe lines 'opponent_rating | result' into the command, or name a file with "
                f"{option('results')}.",
            )
        source, data = str(getattr(results, "name", "<stream>")), results.read()
    return source, decode_text(data, source)[0]


def _calculator_rules(
    period: str | None,
    rules: RulesName,
    rule_set: str | None,
    *,
    expected: Expected | None,
    cap_400: CapChoice,
    rounding: Rounding | None,
    rule_700: bool | None = None,
) -> RuleSet:
    """The rule set of a calculator: the rules in force for ``period`` (default: this month), with overrides."""
    month = period if period is not None else dt.date.today().strftime("%Y-%m")
    chosen = RunOptions(
        rules=rules, rule_set=rule_set, expected=expected, cap_400=cap_400, rule_700=rule_700, rounding=rounding
    )
    config = chosen.config(month)
    if len(config.periods) != 1:
        raise UsageError(f"{month!r} is a range of periods", option="period", hint="give one month, YYYY-MM.")
    return config.rules_for(config.periods[0])


def _number_arg(value: object, parameter: str) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{parameter} must be a number of rating points, not {type(value).__name__}")


def _calculator_k(k: int | None, rules: RuleSet) -> int:
    if k is not None:
        return k
    return rules.k_fixed if rules.fixed_k and rules.k_fixed else calculator.DEFAULT_K


#: The ways an importer writes formula-like cells of a CSV file (as :func:`elo_batch.write_period`).
CSV_FORMULAS = get_args(CsvFormulas)


@dataclass(frozen=True)
class Imported:
    """What an importer wrote.

    Attributes:
        lines: The importer's report, line by line (what was read, skipped, flagged).
        written: The file written (as given, or as written: an object-store URI).
        rows: Rows written (games, or players of a list).
    """

    lines: tuple[str, ...]
    written: str
    rows: int


def import_pgn(
    files: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    csv_formulas: Literal["escape", "keep"] = "escape",
) -> Imported:
    """PGN files (or zip archives of them) as a games file for :func:`elo_batch.run`, as ``elo-batch import
    pgn`` writes it: FideId tags as ids, Elo tags as game ratings, forfeits marked.

    Args:
        files: A PGN file or zip archive of PGN files, or a list of them.
        out: The games file to write: ``.parquet`` (default) or ``.csv``, or an ``s3://`` URI.
        csv_formulas: As :func:`elo_batch.write_period`.

    Returns:
        The report's lines, ``out`` and the games written.

    Raises:
        TypeError: ``files`` or ``out`` is not a path (or ``files`` a list of paths).
        UsageError: ``files`` is an empty list, a path is empty, or ``csv_formulas`` is not escape or keep.
        InputMissingError, InputDataError: a file cannot be read or holds no game.
        OutputError: ``out`` cannot be written.
    """
    from elo_batch.formats.pgn import import_pgn as convert  # python-chess: imported when used (0.05 s)

    paths = [path_arg(files, "files")] if isinstance(files, str | os.PathLike) else _paths_arg(files, "files")
    target = path_arg(out, "out")
    check_choice(csv_formulas, "csv_formulas", CSV_FORMULAS)
    report = convert(paths, target, csv_formulas=csv_formulas)
    return Imported(tuple(report.lines()), target, report.games)


def _paths_arg(files: object, parameter: str) -> list[str]:
    if not isinstance(files, list | tuple):
        raise TypeError(f"{parameter} must be a path (a str or Path) or a list of them, not {type(files).__name__}")
    if not files:
        raise UsageError("no file given", option=parameter, hint="give at least one file.")
    return [path_arg(item, parameter) for item in files]


def import_trf(
    file: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    period: str | None = None,
    csv_formulas: Literal["escape", "keep"] = "escape",
) -> Imported:
    """A FIDE Tournament Report File (TRF-16) as a games file, as ``elo-batch import trf`` writes it.

    Args:
        file: The TRF file.
        out: As :func:`import_pgn`.
        period: ``YYYY-MM`` for games whose round has no date on line 132.
        csv_formulas: As :func:`elo_batch.write_period`.

    Returns:
        The report's lines, the file written and the games written.

    Raises:
        TypeError: ``file`` or ``out`` is not a path.
        UsageError: ``period`` is not one month, a path is empty, or ``csv_formulas`` is not escape or keep.
        InputMissingError, InputDataError: the file cannot be read or is not a TRF file.
        OutputError: ``out`` cannot be written.
    """
    file, out = path_arg(file, "file"), path_arg(out, "out")
    check_choice(csv_formulas, "csv_formulas", CSV_FORMULAS)
    month = None
    if period is not None:
        months = parse_periods(period)
        if len(months) != 1:
            raise UsageError(f"{period!r} is a range of periods", option="period", hint="give one month.")
        month = months[0]
    games, report = read_trf(file, period=month)
    return Imported(tuple(report.lines()), write_games(games, out, csv_formulas=csv_formulas), games.height)


def import_fide_list(
    file: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    list_kind: Literal["standard", "rapid", "blitz"] | None = None,
) -> Imported:
    """FIDE's rating list download (TXT or XML, zipped or not) as a rating list, as ``elo-batch import
    fide-list`` writes it.

    Args:
        file: The download.
        out: The list to write: ``.parquet`` or ``.csv`` (or ``s3://``).
        list_kind: Which rating of a combined list (default standard); a single list's own.

    Returns:
        The report's lines, the file written and the players written.

    Raises:
        TypeError: ``file`` or ``out`` is not a path.
        UsageError: a path is empty, or ``list_kind`` is not standard, rapid or blitz.
        InputMissingError, InputDataError: the file cannot be read or is not FIDE's list.
        OutputError: ``out`` cannot be written.
    """
    from elo_batch.formats.fidelist import import_fide_list as convert

    file, out = path_arg(file, "file"), path_arg(out, "out")
    if list_kind is not None:
        check_choice(list_kind, "list_kind", get_args(ListKind))
    report, written = convert(file, out, list_kind=list_kind)
    return Imported(tuple(report.lines()), written, report.players)
