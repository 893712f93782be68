"""What the inputs layer hands the engine and the outputs: an input file's record (:class:`InputFile`,
what the manifest records) and a run's checked game rows (:class:`GamesInput`)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from elo_batch import columns as c
from elo_batch.contract.names import escape, normalise

if TYPE_CHECKING:
    from elo_batch.engine.events import EventFacts


@dataclass(frozen=True)
class InputFile:
    """One input file as read: what the manifest records about it.

    Attributes:
        path: The path as given (or as found in a folder or glob); for a frame, the name messages give
            it (see :class:`elo_batch.inputs.frames.FrameInput`).
        size: Bytes (0 for a frame: nothing was read from a file).
        sha256: Hex digest of the file's bytes (empty for a frame).
        rows: Data rows read (header not counted).
        encoding: Text encoding used (CSV), ``parquet``, or ``frame``.
        separator: Field separator (CSV), or None.
        blank_rows: Blank CSV lines skipped (not counted in ``rows``).
        notes: What the user should know about how the file was read (shown as warnings).
        unnamed: A frame given without a name: its rows' ``source_file`` is null (see :attr:`source_file`).
        header: The column names as the file spells them (for messages).
    """

    path: str
    size: int
    sha256: str
    rows: int
    encoding: str
    separator: str | None
    blank_rows: int = 0
    notes: tuple[str, ...] = ()
    unnamed: bool = False
    header: tuple[str, ...] = ()

    @property
    def source_file(self) -> str | None:
        """What the rows read have in ``source_file``: ``path``, or null for a frame without a name."""
        return None if self.unnamed else self.path

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column of the file as the tables hold it (normalised and escaped, see
        :func:`elo_batch.inputs.inputfile.held_names`), read or not (see ``columns`` of
        :func:`elo_batch.inputs.readers.read_table`)."""
        return tuple(escape(normalise(name)) for name in self.header)


@dataclass(frozen=True)
class GamesInput:
    """All game rows of a run, checked.

    Attributes:
        rows: Valid rows in ``CANONICAL_SCHEMA``, in input order: in memory, or a lazy plan that reads
            and checks the files again each time it runs (inputs larger than memory; see
            :func:`elo_batch.inputs.validate.load_games`). ``white_id`` and ``black_id`` are Int64 when
            every file has integer player ids (:data:`~elo_batch.contract.schemas.INTEGER_IDS`), else
            text; ``game_id`` likewise (files without it aside).
        rejected: Rejected rows in ``REJECTED_SCHEMA``, in input order.
        files: What was read, file by file.
        period_rows: Rows of ``rows`` by period.
        absent: Canonical columns no input file has (null in every row), such as ``event_id``.
        event_rows: The event attributes given on game rows that have an ``event_id`` (in files with an
            event column or ``period``), ``EVENT_ROWS_SCHEMA``; None when no file has them.
        events: The run's event facts, once worked out (:func:`elo_batch.engine.events.settle`).
    """

    rows: pl.DataFrame | pl.LazyFrame
    rejected: pl.DataFrame
    files: tuple[InputFile, ...]
    period_rows: dict[str, int]
    absent: frozenset[str] = frozenset()
    event_rows: pl.DataFrame | None = None
    events: EventFacts | None = None

    @property
    def id_type(self) -> pl.DataType:
        """The type of the player ids in ``rows``: pl.Int64 or pl.String."""
        return self.rows.collect_schema()[c.WHITE_ID]

    @property
    def rows_read(self) -> int:
        """Data rows read over all files."""
        return sum(f.rows for f in self.files)

    def source_file(self, row_key: pl.Expr) -> pl.Expr:
        """The ``source_file`` of rows, from their ``row_key``: the files' rows hold consecutive row keys,
        file after file (see :func:`elo_batch.inputs.validate.load_games`). A Categorical of the files'
        paths (text written dictionary-encoded)."""
        names = list(dict.fromkeys(f.source_file for f in self.files))
        paths = pl.Series([f.source_file for f in self.files], dtype=pl.Categorical)
        if len(names) <= 1:
            return pl.lit(paths[0] if len(paths) else None, paths.dtype)
        starts = pl.Series(list(itertools.accumulate((f.rows for f in self.files[:-1]), initial=0)), dtype=pl.Int64)
        return pl.lit(paths).gather(pl.lit(starts).search_sorted(row_key, side="right").cast(pl.Int64) - 1)
